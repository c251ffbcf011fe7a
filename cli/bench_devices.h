// SPDX-License-Identifier: Apache-2.0
// `openvgf bench MODEL --devices LIST`: throughput of a DevicePool on each named device alone
// and on all of them together, and the scaling efficiency between the two.
#pragma once

#include <string>

namespace openvgf::cli {

struct DevicesBenchOptions {
  std::string path;
  std::string devices;     ///< as DevicePool names them ("all", "0,1", "H200")
  unsigned inFlight = 2;   ///< runs in flight per device (--jobs)
  int warmup = 5;          ///< untimed items per device before each measurement
  int iterations = 50;     ///< timed items per device in each of the repeats
  int repeats = 3;         ///< measurements of each configuration; the median is reported
  std::string target = "portable";
  bool validate = false;
  bool json = false;
};

/// The report: items/s of each device alone (a pool of that device), of all together, and
/// efficiency = together / (sum of alone). Text, or one JSON object.
std::string benchmarkDevices(const DevicesBenchOptions& options);

}  // namespace openvgf::cli
