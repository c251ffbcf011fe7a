// SPDX-License-Identifier: Apache-2.0
// `openvgf bench model.vgf`: prints openvgf::benchmark (session creation with cold / warm
// pipeline cache, first inference, wall latency statistics, GPU time from timestamps,
// throughput and device memory of one model on one device). `--pipelined N` adds host-to-host
// timings of runAsync with pinned memory and N runs in flight; `openvgf bench --transfer MIB`
// (no model) prints openvgf::benchmarkTransfers (host <-> device bandwidth against a plain
// vkCmdCopyBuffer).
#include <cstdint>
#include <cstdio>
#include <memory>

#include "command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

struct BenchOptions {
  std::string path;
  BenchmarkOptions bench;
  double transferMiB = 0;
  std::string uploadMemory = "auto";
  double uploadChunkMiB = -1;
};

void setup(CLI::App& sub, Action& action) {
  auto options = std::make_shared<BenchOptions>();
  sub.add_option("model", options->path,
                 "A .vgf, or a .tosa (converted first, then cached) or .pte (not with --transfer)");
  sub.add_option("--device", options->bench.device, "Vulkan device index or name substring (see `openvgf devices`)");
  sub.add_option("--warmup", options->bench.warmup, "Untimed runs before the measurement")
      ->check(atLeast(0))
      ->capture_default_str();
  sub.add_option("--iterations", options->bench.iterations, "Timed runs (at least)")
      ->check(atLeast(1))
      ->capture_default_str();
  sub.add_option("--min-time", options->bench.minTimeS, "Keep timing until S seconds have passed as well")
      ->check(atLeast(0, false))
      ->capture_default_str();
  sub.add_option("--gpu-iterations", options->bench.gpuIterations,
                 "Runs with GPU timestamps, in a separate session (default: min(20, iterations))")
      ->check(atLeast(1));
  sub.add_option("--cache-dir", options->bench.cacheDir,
                 "Empty folder for the pipeline cache (and Mesa's and NVIDIA's shader caches) of the cold/warm "
                 "measurement (default: a temporary one)");
  sub.add_option("--target", options->bench.target,
                 "How a .tosa is converted and GRAPH segments are lowered: portable (default) or native");
  sub.add_flag("--validate", options->bench.validate, "Enable the Vulkan validation layer (slows everything down)");
  sub.add_flag("--json", options->bench.json, "Print one JSON object instead of text");
  sub.add_option("--pipelined", options->bench.pipelined,
                 "Also time runAsync: serial with pinned memory, and N runs in flight with pageable and pinned memory")
      ->check(CLI::Range(1, 8));
  sub.add_option("--upload-memory", options->uploadMemory,
                 "Upload staging: auto (device-local host-visible when the device has a resizable BAR) or host")
      ->check(oneOf({"auto", "host"}))
      ->capture_default_str();
  sub.add_option("--upload-chunk", options->uploadChunkMiB,
                 "Stage and upload host inputs in pieces of MIB mebibytes, pipelined (0: whole; default: the "
                 "session's)")
      ->check(atLeast(0, false, false));
  sub.add_option("--transfer", options->transferMiB,
                 "No model: host<->device bandwidth of MIB mebibytes against vkCmdCopyBuffer (--iterations, max 20)")
      ->check(atLeast(0, false, true));
  action = [options]() -> int {
    if (options->transferMiB > 0) {
      if (!options->path.empty()) fail(ErrorCode::InvalidInput, "bench: expected a model or --transfer, got both");
      std::fputs(benchmarkTransfers(static_cast<std::uint64_t>(options->transferMiB * 1048576.0), options->bench).c_str(),
                 stdout);
      return 0;
    }
    if (options->path.empty()) fail(ErrorCode::InvalidInput, "bench: expected a model (or --transfer MIB), got none");
    options->bench.uploadViaHost = options->uploadMemory == "host";
    if (options->uploadChunkMiB >= 0) {
      options->bench.uploadChunkBytes = static_cast<std::int64_t>(options->uploadChunkMiB * 1048576.0);
    }
    std::fputs(benchmark(options->path, options->bench).c_str(), stdout);
    return 0;
  };
}

OPENVGF_REGISTER_COMMAND({"bench", "Measure session creation, latency, GPU time, throughput and memory of a model", 45,
                          setup});

}  // namespace
}  // namespace openvgf::cli
