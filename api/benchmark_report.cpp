// SPDX-License-Identifier: Apache-2.0
// What `openvgf bench` prints, as installed API (openvgf::benchmark, benchmarkTransfers): the
// model is opened as Model::open opens it (a .tosa converted and GRAPH segments lowered
// first, cached, outside the measurement) and runner/benchmark.h measures it;
// runner/transfer_benchmark.h measures host <-> device bandwidth.
#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "api/devices.h"
#include "api/model.h"
#include "api/public_state.h"
#include "runner/benchmark.h"
#include "runner/transfer_benchmark.h"

namespace openvgf {

std::string benchmark(const std::string& path, const BenchmarkOptions& options) {
  api::LoadOptions load;
  load.target = options.target;
  load.device = options.device;
  load.tuning = api::tuningFromEnvironment();
  api::LoadedModel model = unwrap(api::LoadedModel::load(path, load));
  if (model.partCount() != 1) {
    throw Exception(ErrorCode::Unsupported,
                    fmt::format("{}: expected a model that runs as one VGF, got a plan of {} VgfBackend delegate calls; "
                                "`openvgf extract` writes each delegate's VGF, which bench measures one by one",
                                path, model.partCount()));
  }
  runner::BenchmarkOptions bench;
  bench.device = options.device;
  bench.validate = options.validate;
  bench.warmup = options.warmup;
  bench.iterations = options.iterations;
  bench.minTimeS = options.minTimeS;
  bench.gpuIterations = options.gpuIterations;
  bench.cacheDir = options.cacheDir;
  bench.pipelined = options.pipelined;
  bench.uploadViaHost = options.uploadViaHost;
  if (options.uploadChunkBytes >= 0) bench.uploadChunkBytes = static_cast<std::uint64_t>(options.uploadChunkBytes);
  if (options.overlapSegments >= 0) bench.overlapSegments = static_cast<std::size_t>(options.overlapSegments);
  runner::BenchmarkResult result = unwrap(runner::runBenchmark(*model.part(0).model, bench));
  if (!options.json) return runner::formatText(result);
  std::pair<std::string, std::string> version{"openvgf_version", OPENVGF_VERSION};
  return runner::formatJson(result, std::span(&version, 1));
}

std::string benchmarkTransfers(std::uint64_t bytes, const BenchmarkOptions& options) {
  runner::TransferOptions transfer;
  transfer.device = options.device;
  transfer.validate = options.validate;
  transfer.bytes = bytes;
  transfer.iterations = std::min(options.iterations, 20);
  runner::TransferResult result = unwrap(runner::measureTransfers(transfer));
  return options.json ? runner::formatJson(result) : runner::formatText(result);
}

}  // namespace openvgf
