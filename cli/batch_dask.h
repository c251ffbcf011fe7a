// SPDX-License-Identifier: Apache-2.0
// `openvgf batch --scheduler ADDRESS`: the items the command found run on a Dask cluster
// through the Python package (openvgf.dask.batch_main), so the Dask logic has one home.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace openvgf::cli {

struct DaskItem {
  std::vector<std::string> inputs;   // per model input, in input order ("" = left to its default)
  std::vector<std::string> outputs;  // per model output
};

struct DaskBatch {
  std::string scheduler;  // tcp://host:port, as `dask worker` takes it
  std::string model;      // a path every worker can read
  std::vector<std::pair<std::string, std::string>> options;  // openvgf.Model keywords
  std::vector<DaskItem> items;
};

/// Runs `batch` in a Python process that writes each item's outputs atomically and reports
/// it: done(index) or failed(index, exitCode, message), from this thread. Throws Exception
/// (Environment) when Python, numpy, distributed or the openvgf package is missing, or when
/// the cluster cannot be used (no scheduler there, no worker with the resource); then no item
/// ran. Items the process never reported (it died) are failed with the reason.
void runOnDask(const DaskBatch& batch, const std::function<void(std::size_t index)>& done,
               const std::function<void(std::size_t index, int exitCode, const std::string& message)>& failed);

}  // namespace openvgf::cli
