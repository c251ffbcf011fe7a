// SPDX-License-Identifier: Apache-2.0
// `openvgf bench model.vgf`: session creation (cold / warm pipeline cache), first inference,
// wall latency statistics, GPU time from timestamps, throughput and device memory of one
// VGF on one device (runner/benchmark.h does the measuring). A VGF with GRAPH segments is
// lowered first (converter/lower_vgf.h, cached), outside the measurement.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "common/file_io.h"
#include "converter/lower_vgf.h"
#include "runner/benchmark.h"
#include "runner/model.h"
#include "vgf/decoder.h"

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
};

void setup(CLI::App& sub, Action& action) {
  auto options = std::make_shared<BenchOptions>();
  sub.add_option("model", options->path, "A .vgf file")->required();
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
                 "Empty folder for the pipeline cache of the cold/warm measurement (default: a temporary one)");
  sub.add_option("--target", options->target, "How GRAPH segments are lowered: portable (default) or native");
  sub.add_flag("--validate", options->validate, "Enable the Vulkan validation layer (slows everything down)");
  sub.add_flag("--json", options->json, "Print one JSON object instead of text");
  action = [options]() -> Result<int> {
    OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(options->path));
    if (detectFileKind(file.bytes()) != FileKind::Vgf) {
      return invalidInput("{}: expected a VGF file, got a {} file", options->path,
                          toString(detectFileKind(file.bytes())));
    }
    Result<vgf::File> decoded = withContext(vgf::decode(file.bytes()), options->path);
    if (!decoded) return Unexpected(std::move(decoded).error());
    std::vector<std::uint8_t> lowered;
    if (converter::hasGraphSegments(*decoded)) {
      OPENVGF_ASSIGN_OR_RETURN(converter::KnownShapes shapes, converter::modelInputShapes(*decoded, {}, options->path));
      converter::LowerOptions lowerOptions;
      lowerOptions.convert.target = options->target;
      OPENVGF_ASSIGN_OR_RETURN(converter::LoweredModel model,
                               converter::lowerGraphSegments(file.bytes(), *decoded, shapes, options->path, lowerOptions));
      lowered = std::move(model.vgf);
      decoded = withContext(vgf::decode(lowered), options->path);
      if (!decoded) return Unexpected(std::move(decoded).error());
    }
    OPENVGF_ASSIGN_OR_RETURN(runner::Model model, runner::Model::create(*decoded, options->path));
    runner::BenchmarkOptions bench;
    bench.device = options->device;
    bench.validate = options->validate;
    bench.warmup = options->warmup;
    bench.iterations = options->iterations;
    bench.minTimeS = options->minTime;
    bench.gpuIterations = options->gpuIterations;
    bench.cacheDir = options->cacheDir;
    OPENVGF_ASSIGN_OR_RETURN(runner::BenchmarkResult result, runner::runBenchmark(model, bench));
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

OPENVGF_REGISTER_COMMAND({"bench", "Measure session creation, latency, GPU time, throughput and memory of a VGF", 45,
                          setup});

}  // namespace
}  // namespace openvgf::cli
