// SPDX-License-Identifier: Apache-2.0
// Profiling output from per-dispatch GPU timestamps: a Chrome trace-event JSON file (loads in
// Perfetto and chrome://tracing, one slice per segment named after it, one process row per
// run) and a summary table (top segments, total GPU time, host overhead).
#pragma once

#include <string>
#include <vector>

#include "runner/session.h"

namespace openvgf::runner {

class ProfileRecorder {
 public:
  explicit ProfileRecorder(std::vector<std::string> segmentNames) : names_(std::move(segmentNames)) {}

  /// Adds the timings of one run (Session::lastTiming() of a profiling session).
  void add(const RunTiming& timing) { runs_.push_back(timing); }
  std::size_t runCount() const { return runs_.size(); }

  /// {"traceEvents": [...], "displayTimeUnit": "ms"}; times in microseconds from the first run's start.
  std::string chromeTrace() const;
  /// Text table: the `top` slowest segments by median time, then total GPU time and host
  /// overhead (host wall time minus GPU time), medians over the runs.
  std::string summary(std::size_t top = 10) const;

 private:
  std::vector<std::string> names_;
  std::vector<RunTiming> runs_;
};

}  // namespace openvgf::runner
