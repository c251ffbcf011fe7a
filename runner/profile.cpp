// SPDX-License-Identifier: Apache-2.0
// Chrome trace JSON and the profiling summary table.
#include "runner/profile.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace openvgf::runner {
namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

std::string ProfileRecorder::chromeTrace() const {
  nlohmann::json events = nlohmann::json::array();
  std::uint64_t origin = 0;
  for (const RunTiming& run : runs_) {
    if (!run.timestampsNs.empty()) {
      origin = run.timestampsNs.front();
      break;
    }
  }
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0}, {"args", {{"name", "openvgf GPU"}}}});
  events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0}, {"args", {{"name", "queue"}}}});
  for (std::size_t r = 0; r < runs_.size(); ++r) {
    const std::vector<std::uint64_t>& ts = runs_[r].timestampsNs;
    for (std::size_t s = 0; s + 1 < ts.size() && s < names_.size(); ++s) {
      // Timestamps can go backwards across dispatches that overlap on the GPU; clamp to zero.
      double start = static_cast<double>(ts[s] - std::min(ts[s], origin)) / 1000.0;
      double duration = ts[s + 1] > ts[s] ? static_cast<double>(ts[s + 1] - ts[s]) / 1000.0 : 0.0;
      events.push_back({{"name", names_[s]},
                        {"cat", "dispatch"},
                        {"ph", "X"},
                        {"pid", 0},
                        {"tid", 0},
                        {"ts", start},
                        {"dur", duration},
                        {"args", {{"run", r}, {"segment", s}}}});
    }
  }
  nlohmann::json trace = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  return trace.dump(1) + "\n";
}

std::string ProfileRecorder::summary(std::size_t top) const {
  std::vector<std::vector<double>> perSegment(names_.size());
  std::vector<double> gpu, host;
  for (const RunTiming& run : runs_) {
    const std::vector<std::uint64_t>& ts = run.timestampsNs;
    for (std::size_t s = 0; s + 1 < ts.size() && s < names_.size(); ++s) {
      perSegment[s].push_back(ts[s + 1] > ts[s] ? static_cast<double>(ts[s + 1] - ts[s]) * 1e-6 : 0.0);
    }
    gpu.push_back(run.gpuMs());
    host.push_back(run.hostMs);
  }
  struct Row {
    std::size_t segment;
    double ms;
  };
  std::vector<Row> rows;
  for (std::size_t s = 0; s < names_.size(); ++s) rows.push_back({s, median(perSegment[s])});
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.ms > b.ms; });
  double gpuMs = median(gpu);
  double hostMs = median(host);
  std::size_t width = 7;
  for (const std::string& name : names_) width = std::max(width, std::min<std::size_t>(name.size(), 48));
  std::string out = fmt::format("GPU profile ({} run{}, medians):\n  {:<{}}  {:>10}  {:>6}\n", runs_.size(),
                                runs_.size() == 1 ? "" : "s", "segment", width, "time [ms]", "share");
  for (std::size_t i = 0; i < rows.size() && i < top; ++i) {
    double share = gpuMs > 0 ? 100.0 * rows[i].ms / gpuMs : 0.0;
    out += fmt::format("  {:<{}}  {:>10.4f}  {:>5.1f}%\n", names_[rows[i].segment].substr(0, 48), width, rows[i].ms,
                       share);
  }
  if (rows.size() > top) out += fmt::format("  ... {} more segment(s)\n", rows.size() - top);
  out += fmt::format("  total GPU time    {:>10.4f} ms ({} dispatches)\n", gpuMs, names_.size());
  out += fmt::format("  host wall time    {:>10.4f} ms\n", hostMs);
  out += fmt::format("  host overhead     {:>10.4f} ms\n", std::max(0.0, hostMs - gpuMs));
  return out;
}

}  // namespace openvgf::runner
