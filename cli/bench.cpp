// SPDX-License-Identifier: Apache-2.0
// `openvgf bench model.vgf`: session creation (cold / warm pipeline cache), first inference,
// wall latency statistics, GPU time from timestamps, throughput and device memory of one
// model on one device. The model is opened by api::LoadedModel (.vgf, .tosa, .pte; a .tosa
// is converted and GRAPH segments are lowered first, cached, outside the measurement);
// runner/benchmark.h does the measuring. `--pipelined N` adds host-to-host timings of
// runAsync with pinned memory and N runs in flight; `openvgf bench --transfer MIB` (no model)
// measures host <-> device bandwidth against a plain vkCmdCopyBuffer (runner/transfer_benchmark.h).
#include <algorithm>
#include <cstdio>
#include <memory>

#include "api/devices.h"
#include "api/model.h"
#include "cli/command.h"
#include "runner/benchmark.h"
#include "runner/transfer_benchmark.h"

namespace openvgf::cli {
namespace {

struct BenchOptions {
  std::string path;
  std::string device;
  int warmup = 5;
  int iterations = 50;
  double minTime = 0.0;
  int gpuIterations = 0;
  std::string cacheDir;
  std::string target = "portable";
  bool validate = false;
  bool json = false;
  unsigned pipelined = 0;
  double transferMiB = 0;
  std::string uploadMemory = "auto";
};

Result<int> benchTransfers(const BenchOptions& options) {
  runner::TransferOptions transfer;
  transfer.device = options.device;
  transfer.validate = options.validate;
  transfer.bytes = static_cast<std::uint64_t>(options.transferMiB * 1048576.0);
  transfer.iterations = std::min(options.iterations, 20);
  OPENVGF_ASSIGN_OR_RETURN(runner::TransferResult result, runner::measureTransfers(transfer));
  std::string text = options.json ? runner::formatJson(result) : runner::formatText(result);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

void setup(CLI::App& sub, Action& action) {
  auto options = std::make_shared<BenchOptions>();
  sub.add_option("model", options->path,
                 "A .vgf, or a .tosa (converted first, then cached) or .pte (not with --transfer)");
  sub.add_option("--device", options->device, "Vulkan device index or name substring (see `openvgf devices`)");
  sub.add_option("--warmup", options->warmup, "Untimed runs before the measurement")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub.add_option("--iterations", options->iterations, "Timed runs (at least)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub.add_option("--min-time", options->minTime, "Keep timing until S seconds have passed as well")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub.add_option("--gpu-iterations", options->gpuIterations,
                 "Runs with GPU timestamps, in a separate session (default: min(20, iterations))")
      ->check(CLI::PositiveNumber);
  sub.add_option("--cache-dir", options->cacheDir,
                 "Empty folder for the pipeline cache (and Mesa's and NVIDIA's shader caches) of the cold/warm "
                 "measurement (default: a temporary one)");
  sub.add_option("--target", options->target,
                 "How a .tosa is converted and GRAPH segments are lowered: portable (default) or native");
  sub.add_flag("--validate", options->validate, "Enable the Vulkan validation layer (slows everything down)");
  sub.add_flag("--json", options->json, "Print one JSON object instead of text");
  sub.add_option("--pipelined", options->pipelined,
                 "Also time runAsync: serial with pinned memory, and N runs in flight with pageable and pinned memory")
      ->check(CLI::Range(1, 8));
  sub.add_option("--upload-memory", options->uploadMemory,
                 "Upload staging: auto (device-local host-visible when the device has a resizable BAR) or host")
      ->check(CLI::IsMember({"auto", "host"}))
      ->capture_default_str();
  sub.add_option("--transfer", options->transferMiB,
                 "No model: host<->device bandwidth of MIB mebibytes against vkCmdCopyBuffer (--iterations, max 20)")
      ->check(CLI::PositiveNumber);
  action = [options]() -> Result<int> {
    if (options->transferMiB > 0) {
      if (!options->path.empty()) return invalidInput("bench: expected a model or --transfer, got both");
      return benchTransfers(*options);
    }
    if (options->path.empty()) return invalidInput("bench: expected a model (or --transfer MIB), got none");
    api::LoadOptions load;
    load.target = options->target;
    load.device = options->device;
    load.tuning = api::tuningFromEnvironment();
    OPENVGF_ASSIGN_OR_RETURN(api::LoadedModel model, api::LoadedModel::load(options->path, load));
    runner::BenchmarkOptions bench;
    bench.device = options->device;
    bench.validate = options->validate;
    bench.warmup = options->warmup;
    bench.iterations = options->iterations;
    bench.minTimeS = options->minTime;
    bench.gpuIterations = options->gpuIterations;
    bench.cacheDir = options->cacheDir;
    bench.pipelined = options->pipelined;
    bench.uploadViaHost = options->uploadMemory == "host";
    if (model.partCount() != 1) {
      return unsupported("{}: expected a model that runs as one VGF, got a plan of {} VgfBackend delegate calls; "
                         "`openvgf extract` writes each delegate's VGF, which bench measures one by one",
                         options->path, model.partCount());
    }
    OPENVGF_ASSIGN_OR_RETURN(runner::BenchmarkResult result, runner::runBenchmark(*model.part(0).model, bench));
    std::string text;
    if (options->json) {
      std::pair<std::string, std::string> version{"openvgf_version", OPENVGF_VERSION};
      text = runner::formatJson(result, std::span(&version, 1));
    } else {
      text = runner::formatText(result);
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  };
}

OPENVGF_REGISTER_COMMAND({"bench", "Measure session creation, latency, GPU time, throughput and memory of a model", 45,
                          setup});

}  // namespace
}  // namespace openvgf::cli
