// SPDX-License-Identifier: Apache-2.0
// `openvgf convert model.tosa -o model.vgf`: reads and verifies a TOSA graph, converts it
// for a Vulkan target (converter::convert) and writes the VGF atomically. --stats prints
// the memory plan and kernel counts; a progress bar is drawn on a terminal while shaders
// compile.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/command.h"
#include "cli/convert_ethosu.h"
#include "common/file_io.h"
#include "converter/convert.h"
#include "tosa/reader.h"
#include "tosa/verifier.h"

namespace openvgf::cli {
namespace {

struct ConvertArgs {
  std::string input;
  std::string output;
  std::string target = "portable";
  bool stats = false;
  bool noCache = false;
};

std::string bytesText(std::uint64_t bytes) {
  if (bytes >= (1u << 20)) return fmt::format("{:.2f} MiB", static_cast<double>(bytes) / (1 << 20));
  if (bytes >= (1u << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / (1 << 10));
  return fmt::format("{} B", bytes);
}

Result<int> runConvert(const ConvertArgs& args) {
  if (args.target.starts_with("ethos-u")) {
    return convertEthosU(args.input, args.output, args.target, args.stats);
  }
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, tosa::readGraph(std::filesystem::path(args.input)));
  OPENVGF_TRY(withContext(tosa::verify(graph), args.input));
  converter::ConvertOptions options;
  options.target = args.target;
  options.useCache = !args.noCache;
  const bool tty = isatty(STDERR_FILENO) != 0;
  if (tty) {
    options.progress = [](std::size_t done, std::size_t total) {
      constexpr int kWidth = 30;
      int filled = static_cast<int>(kWidth * done / std::max<std::size_t>(total, 1));
      fmt::print(stderr, "\rcompiling shaders [{:=<{}}{: <{}}] {}/{}", "", filled, "", kWidth - filled, done, total);
      if (done == total) fmt::print(stderr, "\n");
    };
  }
  auto model = converter::convert(graph, options);
  if (!model) return Unexpected(std::move(model).error().addContext(args.input));
  OPENVGF_TRY(writeFileAtomic(args.output, model->vgf));
  if (args.stats) {
    const auto& s = model->stats;
    fmt::print("target:                 {}\n", s.target);
    fmt::print("kernels:                {}\n", s.kernels);
    fmt::print("unique modules:         {}\n", s.uniqueModules);
    fmt::print("peak live bytes:        {} ({})\n", s.peakLiveBytes, bytesText(s.peakLiveBytes));
    fmt::print("sum without aliasing:   {} ({})\n", s.unaliasedBytes, bytesText(s.unaliasedBytes));
    fmt::print("planned intermediates:  {} ({}, {} alias groups)\n", s.plannedBytes, bytesText(s.plannedBytes), s.aliasGroups);
    fmt::print("constant bytes:         {} ({})\n", s.constantBytes, bytesText(s.constantBytes));
    fmt::print("spirv cache hits:       {}\n", s.cacheHits);
    fmt::print("capabilities:           {}\n", fmt::join(s.capabilities, ", "));
    fmt::print("vgf bytes:              {}\n", model->vgf.size());
  }
  return 0;
}

void setup(CLI::App& sub, Action& action) {
  auto args = std::make_shared<ConvertArgs>();
  sub.add_option("model", args->input, "TOSA 1.0 flatbuffer (.tosa)")->required();
  sub.add_option("-o,--output", args->output, "Output VGF file")->required();
  sub.add_option("--target", args->target, "portable (default), native (probe this machine's Vulkan device), or an Ethos-U "
                 "configuration: ethos-u55-32|64|128|256, ethos-u65-256|512 (writes a vela_bin_stream)");
  sub.add_flag("--stats", args->stats, "Print kernels, modules, memory plan and constant bytes");
  sub.add_flag("--no-cache", args->noCache, "Do not read or write the SPIR-V cache");
  action = [args]() -> Result<int> { return runConvert(*args); };
}

OPENVGF_REGISTER_COMMAND({"convert", "Convert a TOSA graph to a VGF for Vulkan compute", 20, setup});

}  // namespace
}  // namespace openvgf::cli
