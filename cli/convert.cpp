// SPDX-License-Identifier: Apache-2.0
// `openvgf convert model.tosa -o model.vgf`: reads and verifies a TOSA graph, converts it
// for a Vulkan target and writes the VGF atomically (api/convert.h); `--format arm-graph`
// writes the graph as Arm's model-converter would (one GRAPH segment), and a VGF with GRAPH
// segments as input is lowered to COMPUTE segments. --stats prints
// the memory plan and kernel counts; a progress bar is drawn on a terminal while shaders
// compile. --passes chooses the graph passes, --dump-after prints the graph after one,
// --verify-each re-checks the graph after every pass.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/convert.h"
#include "api/devices.h"
#include "cli/command.h"
#include "cli/convert_ethosu.h"
#include "common/file_io.h"
#include "converter/passes/passes.h"

namespace openvgf::cli {
namespace {

struct ConvertArgs {
  std::string input;
  std::string output;
  std::string target = "portable";
  std::string device;  // --target native: the device to convert for
  std::string precision = "fp32";
  std::string format = "compute";  // compute | arm-graph
  bool stats = false;
  bool noCache = false;
  std::optional<std::string> passes;   // unset = all
  std::vector<std::string> dumpAfter;  // PASS or PASS=FILE
  bool verifyEach = false;
};

std::string bytesText(std::uint64_t bytes) {
  if (bytes >= (1u << 20)) return fmt::format("{:.2f} MiB", static_cast<double>(bytes) / (1 << 20));
  if (bytes >= (1u << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / (1 << 10));
  return fmt::format("{} B", bytes);
}

struct DumpRequest {
  std::string pass;
  std::string file;  // "" = stdout
};

// Parses the --dump-after values against the passes that will run ("input" = before them).
Result<std::vector<DumpRequest>> dumpRequests(const ConvertArgs& args, const std::optional<std::vector<std::string>>& enabled) {
  std::vector<DumpRequest> requests;
  for (const std::string& value : args.dumpAfter) {
    DumpRequest request;
    const std::size_t eq = value.find('=');
    request.pass = value.substr(0, eq);
    if (eq != std::string::npos) request.file = value.substr(eq + 1);
    if (eq != std::string::npos && request.file.empty()) {
      return invalidInput("--dump-after {}: expected PASS or PASS=FILE, got an empty file name", value);
    }
    std::vector<std::string_view> running{"input"};
    for (const auto& pass : converter::passes::passPipeline()) {
      if (!enabled || std::find(enabled->begin(), enabled->end(), pass.name) != enabled->end()) running.push_back(pass.name);
    }
    if (!request.file.empty()) OPENVGF_TRY(checkOutputPath(request.file, "--dump-after"));
    if (std::find(running.begin(), running.end(), request.pass) == running.end()) {
      return invalidInput("--dump-after {}: expected input or a pass that runs ({}), got '{}'", value,
                          fmt::join(running, ", "), request.pass);
    }
    requests.push_back(std::move(request));
  }
  return requests;
}

// A VGF with GRAPH segments in, a VGF of COMPUTE segments out.
Result<int> lowerVgf(const ConvertArgs& args, converter::ConvertOptions options) {
  converter::LowerOptions lowerOptions;
  lowerOptions.convert = std::move(options);
  lowerOptions.useCache = !args.noCache;
  OPENVGF_ASSIGN_OR_RETURN(converter::LoweredModel model, api::lowerVgfFile(args.input, args.output, lowerOptions));
  if (args.stats) {
    fmt::print("GRAPH segment runs:     {}{}\n", model.graphRuns, model.cacheHit ? " (lowered VGF from the cache)" : "");
    fmt::print("kernels:                {}\n", model.kernels);
    fmt::print("vgf bytes:              {}\n", model.vgf.size());
  }
  return 0;
}

Result<int> runConvert(const ConvertArgs& args) {
  OPENVGF_TRY(checkOutputPath(args.output, "--output"));
  const bool passFlags =
      args.passes.has_value() || !args.dumpAfter.empty() || args.verifyEach || args.precision != "fp32";
  if (args.format != "compute" && args.format != "arm-graph") {
    return invalidInput("--format: expected compute or arm-graph, got '{}'", args.format);
  }
  if (args.format == "arm-graph") {
    if (passFlags || args.target != "portable") {
      return invalidInput("--format arm-graph: expected no --target, --precision, --passes, --dump-after or --verify-each "
                          "(it writes the TOSA graph itself)");
    }
    OPENVGF_ASSIGN_OR_RETURN(std::vector<std::uint8_t> vgf, api::convertToArmGraph(args.input, args.output));
    if (args.stats) fmt::print("vgf bytes:              {}\n", vgf.size());
    return 0;
  }
  if (args.target.starts_with("ethos-u")) {
    if (passFlags) {
      return invalidInput("--target {}: expected no --precision, --passes, --dump-after or --verify-each (they apply to "
                          "the Vulkan targets)", args.target);
    }
    return convertEthosU(args.input, args.output, args.target, args.stats);
  }
  converter::ConvertOptions options;
  if (args.passes) {
    OPENVGF_ASSIGN_OR_RETURN(options.passes, converter::passes::parsePassList(*args.passes));
  }
  OPENVGF_ASSIGN_OR_RETURN(std::vector<DumpRequest> dumps, dumpRequests(args, options.passes));
  options.target = args.target;
  if (!args.device.empty() && args.target != "native") {
    return invalidInput("--device {}: expected --target native (a {} model runs on any device)", args.device,
                        args.target);
  }
  OPENVGF_TRY(api::prepareNativeTarget(options, args.device, api::tuningFromEnvironment()));
  options.precision = args.precision;
  options.useCache = !args.noCache;
  options.verifyEach = args.verifyEach;
  OPENVGF_ASSIGN_OR_RETURN(MappedFile input, MappedFile::open(args.input));
  if (detectFileKind(input.bytes()) == FileKind::Vgf && dumps.empty()) return lowerVgf(args, std::move(options));
  Status dumpStatus;
  if (!dumps.empty()) {
    options.afterPass = [&](std::string_view pass, bool changed, const converter::Program& program) {
      for (const DumpRequest& request : dumps) {
        if (request.pass != pass) continue;
        const std::string text = fmt::format("# {} {}{}\n{}", args.input, pass == "input" ? "before the passes" : "after ",
                                             pass == "input" ? "" : fmt::format("{} ({})", pass, changed ? "changed" : "unchanged"),
                                             converter::listProgram(program));
        if (request.file.empty()) {
          fmt::print("{}", text);
          std::fflush(stdout);
        } else if (dumpStatus) {
          dumpStatus = writeFileAtomic(request.file, std::string_view(text));
        }
      }
    };
  }
  const bool tty = isatty(STDERR_FILENO) != 0 && !quiet();
  if (tty) {
    options.progress = [](std::size_t done, std::size_t total) {
      constexpr int kWidth = 30;
      int filled = static_cast<int>(kWidth * done / std::max<std::size_t>(total, 1));
      fmt::print(stderr, "\rcompiling shaders [{:=<{}}{: <{}}] {}/{}", "", filled, "", kWidth - filled, done, total);
      if (done == total) fmt::print(stderr, "\n");
    };
  }
  auto model = api::convertTosaFile(args.input, options);
  OPENVGF_TRY(dumpStatus);
  if (!model) return Unexpected(std::move(model).error());
  OPENVGF_TRY(writeFileAtomic(args.output, model->vgf));
  if (args.stats) {
    const auto& s = model->stats;
    fmt::print("target:                 {}\n", s.target);
    fmt::print("kernels:                {}\n", s.kernels);
    fmt::print("split-K GEMMs:          {} (each a partial and a reduction kernel)\n", s.splitKGemms);
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
  sub.add_option("model", args->input, "TOSA 1.0 flatbuffer (.tosa), or a VGF with GRAPH segments to lower")->required();
  sub.add_option("-o,--output", args->output, "Output VGF file")->required();
  sub.add_option("--target", args->target, "portable (default), native (for one Vulkan device of this machine: --device), "
                 "or an Ethos-U configuration: ethos-u55-32|64|128|256, ethos-u65-256|512 (writes a vela_bin_stream)");
  sub.add_option("--device", args->device,
                 "--target native: the device to convert for, as `run --device` names it (index or name substring; "
                 "default: the device `run` picks). Env OPENVGF_TUNING overrides its tuning-table entries");
  sub.add_option("--format", args->format,
                 "compute (default): COMPUTE segments for any Vulkan 1.3 device; arm-graph: one GRAPH segment (SPIR-V "
                 "TOSA graph) as Arm's model-converter writes it");
  sub.add_option("--precision", args->precision,
                 "fp32 (default): every operator at TOSA's precision; fp16: fp32 MATMUL and CONV2D operands are "
                 "rounded to fp16 and multiplied on fp16 cooperative matrices with fp32 accumulators, and activations "
                 "that only convolutions, pools and elementwise kernels touch are stored as fp16 (needs --target "
                 "native on a GPU that has them; results then differ from the fp32 reference by fp16 rounding, so "
                 "run --check, which applies fp32 rules, may fail); bf16: the same with bf16 operands and fp32 "
                 "activations (fp32's range, 8 significant bits; needs VK_KHR_cooperative_matrix and "
                 "VK_KHR_shader_bfloat16); fp16x3: fp32 MATMUL and CONV2D operands each split into two fp16 (the "
                 "rounded value and its remainder scaled by 2^11) and multiplied as three fp16 products with fp32 "
                 "accumulators: 22 significant bits for operands of magnitude 2^-14 to 65504; a tile that meets a larger "
                 "or non-finite operand is computed again in fp32, at scalar speed (needs fp16 cooperative matrices, "
                 "as fp16; activations stay fp32)");
  sub.add_flag("--stats", args->stats, "Print kernels, modules, memory plan and constant bytes");
  sub.add_flag("--no-cache", args->noCache, "Do not read or write the SPIR-V cache");
  std::vector<std::string_view> passNames;
  for (const auto& pass : converter::passes::passPipeline()) passNames.push_back(pass.name);
  sub.add_option("--passes", args->passes,
                 fmt::format("Graph passes to run: all (default), none, or a comma-separated list of {}. They always "
                             "run in that order, whatever the order of the list",
                             fmt::join(passNames, ", ")));
  sub.add_option("--dump-after", args->dumpAfter,
                 "Print the graph (inputs, constants, aliases, one line per node with result types, outputs) after "
                 "PASS, or before the passes for PASS = input; PASS=FILE writes it to FILE instead of stdout. "
                 "Repeatable")
      ->type_name("PASS[=FILE]")
      ->allow_extra_args(false);  // one value per --dump-after, so a following model path stays positional
  sub.add_flag("--verify-each", args->verifyEach,
               "Check the graph's invariants after every pass and name the pass that breaks them (always on in "
               "Debug builds)");
  action = [args]() -> Result<int> { return runConvert(*args); };
}

OPENVGF_REGISTER_COMMAND({"convert", "Convert a TOSA graph to a VGF for Vulkan compute", 20, setup});

}  // namespace
}  // namespace openvgf::cli
