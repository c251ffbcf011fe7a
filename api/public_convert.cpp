// SPDX-License-Identifier: Apache-2.0
// The installed API's convert (openvgf/openvgf.hpp): a .tosa to a VGF of COMPUTE segments, to
// one GRAPH segment (Arm's encoding) or to an Ethos-U vela_bin_stream, or a VGF with GRAPH
// segments lowered; options that do not apply to the target are refused, and the figures
// `convert --stats` prints are made here.
#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/convert.h"
#include "api/devices.h"
#include "common/suggest.h"
#include "api/file_kind.h"
#include "api/public_state.h"
#include "common/file_io.h"
#include "converter/passes/passes.h"
#include "converter/program.h"

namespace openvgf {
namespace {

std::string bytesText(std::uint64_t bytes) {
  if (bytes >= (1u << 20)) return fmt::format("{:.2f} MiB", static_cast<double>(bytes) / (1 << 20));
  if (bytes >= (1u << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / (1 << 10));
  return fmt::format("{} B", bytes);
}

ConvertStats convertEthosU(const std::string& input, const std::string& output, const ConvertOptions& options) {
  converter::ethosu::CompiledModel model = unwrap(api::convertToEthosU(input, output, options.target));
  const converter::ethosu::CompileStats& s = model.stats;
  ConvertStats stats;
  stats.target = options.target;
  stats.outputBytes = model.velaBinStream.size();
  stats.kernels = s.npuOperations;
  stats.constantBytes = s.weightBytes + s.scaleBytes + s.constantBytes;
  stats.report = fmt::format("target:            {}\n", options.target);
  stats.report += fmt::format("npu operations:    {}\n", s.npuOperations);
  stats.report += fmt::format("commands:          {}\n", s.commands);
  stats.report += fmt::format("weight bytes:      {}\n", s.weightBytes);
  stats.report += fmt::format("scale bytes:       {}\n", s.scaleBytes);
  stats.report += fmt::format("other constants:   {}\n", s.constantBytes);
  stats.report += fmt::format("scratch size:      {}\n", s.scratchSize);
  stats.report += fmt::format("MACs:              {}\n", s.macs);
  stats.report += fmt::format("estimated cycles:  {}\n", s.cycles);
  return stats;
}

// A VGF with GRAPH segments in, a VGF of COMPUTE segments out.
ConvertStats lowerVgf(const std::string& input, const std::string& output, converter::ConvertOptions convert,
                      bool cache) {
  converter::LowerOptions lower;
  lower.convert = std::move(convert);
  lower.useCache = cache;
  converter::LoweredModel lowered = unwrap(api::lowerVgfFile(input, output, lower));
  ConvertStats stats;
  stats.target = lower.convert.target;
  stats.outputBytes = lowered.vgf.size();
  stats.kernels = lowered.kernels;
  stats.fromCache = lowered.cacheHit;
  stats.report = fmt::format("GRAPH segment runs:     {}{}\n", lowered.graphRuns,
                             lowered.cacheHit ? " (lowered VGF from the cache)" : "");
  stats.report += fmt::format("kernels:                {}\n", lowered.kernels);
  stats.report += fmt::format("vgf bytes:              {}\n", lowered.vgf.size());
  return stats;
}

ConvertStats statsOf(const converter::ConvertedModel& model) {
  const converter::ConvertStats& s = model.stats;
  ConvertStats stats;
  stats.target = s.target;
  stats.outputBytes = model.vgf.size();
  stats.kernels = s.kernels;
  stats.uniqueModules = s.uniqueModules;
  stats.constantBytes = s.constantBytes;
  stats.peakLiveBytes = s.peakLiveBytes;
  std::string& r = stats.report;
  r += fmt::format("target:                 {}\n", s.target);
  r += fmt::format("kernels:                {}\n", s.kernels);
  r += fmt::format("split-K GEMMs:          {} (each a partial and a reduction kernel)\n", s.splitKGemms);
  r += fmt::format("unique modules:         {}\n", s.uniqueModules);
  r += fmt::format("peak live bytes:        {} ({})\n", s.peakLiveBytes, bytesText(s.peakLiveBytes));
  r += fmt::format("sum without aliasing:   {} ({})\n", s.unaliasedBytes, bytesText(s.unaliasedBytes));
  r += fmt::format("planned intermediates:  {} ({}, {} alias groups)\n", s.plannedBytes, bytesText(s.plannedBytes),
                   s.aliasGroups);
  r += fmt::format("constant bytes:         {} ({})\n", s.constantBytes, bytesText(s.constantBytes));
  r += fmt::format("spirv cache hits:       {}\n", s.cacheHits);
  r += fmt::format("capabilities:           {}\n", fmt::join(s.capabilities, ", "));
  r += fmt::format("vgf bytes:              {}\n", model.vgf.size());
  return stats;
}

// The options of a Vulkan conversion (COMPUTE segments).
converter::ConvertOptions vulkanOptions(const ConvertOptions& options) {
  converter::ConvertOptions convert;
  convert.passes = unwrap(converter::passes::parsePassList(options.passes));
  convert.target = options.target;
  if (!options.device.empty() && options.target != "native") {
    raiseInvalid(fmt::format("--device {}: expected --target native (a {} model runs on any device)", options.device,
                             options.target));
  }
  unwrap(api::prepareNativeTarget(convert, options.device, api::tuningFromEnvironment()));
  convert.precision = options.precision;
  convert.useCache = options.cache;
  convert.verifyEach = options.verifyEach;
  convert.progress = options.progress;
  if (options.afterPass) {
    convert.afterPass = [&options](std::string_view pass, bool changed, const converter::Program& program) {
      options.afterPass(std::string(pass), changed, converter::listProgram(program));
    };
  }
  return convert;
}

}  // namespace

std::vector<std::string> conversionTargets() { return api::conversionTargets(); }

std::vector<std::string> graphPasses() {
  std::vector<std::string> names;
  for (const converter::passes::PassInfo& pass : converter::passes::passPipeline()) names.emplace_back(pass.name);
  return names;
}

std::vector<std::string> passesThatRun(const std::string& passes) {
  const std::vector<std::string> enabled = unwrap(converter::passes::parsePassList(passes));
  std::vector<std::string> running;
  for (const std::string& pass : graphPasses()) {
    if (std::find(enabled.begin(), enabled.end(), pass) != enabled.end()) running.push_back(pass);
  }
  return running;
}

ConvertStats convert(const std::string& input, const std::string& output, const ConvertOptions& options) {
  unwrap(checkOutputPath(output, "--output"));
  const bool passOptions = options.passes != "all" || options.afterPass || options.verifyEach || options.precision != "fp32";
  if (options.format != "compute" && options.format != "arm-graph") {
    raiseInvalid(fmt::format("--format: expected compute or arm-graph, got '{}'{}", options.format,
                             didYouMean(options.format, {"compute", "arm-graph"})));
  }
  if (options.format == "arm-graph") {
    if (passOptions || options.target != "portable" || !options.device.empty()) {
      raiseInvalid("--format arm-graph: expected no --target, --device, --precision, --passes, --dump-after or "
                   "--verify-each (it writes the TOSA graph itself)");
    }
    ConvertStats stats;
    stats.target = "arm-graph";
    stats.outputBytes = unwrap(api::convertToArmGraph(input, output)).size();
    stats.report = fmt::format("vgf bytes:              {}\n", stats.outputBytes);
    return stats;
  }
  if (api::isEthosUTarget(options.target)) {
    if (passOptions || !options.device.empty()) {
      raiseInvalid(fmt::format("--target {}: expected no --device, --precision, --passes, --dump-after or "
                               "--verify-each (they apply to the Vulkan targets)", options.target));
    }
    return convertEthosU(input, output, options);
  }
  converter::ConvertOptions convert = vulkanOptions(options);
  if (api::detectFileKind(unwrap(MappedFile::open(input)).bytes()) == api::FileKind::Vgf && !options.afterPass) {
    return lowerVgf(input, output, std::move(convert), options.cache);
  }
  return statsOf(unwrap(api::convertToVgf(input, output, convert)));
}

}  // namespace openvgf
