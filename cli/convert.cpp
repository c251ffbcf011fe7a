// SPDX-License-Identifier: Apache-2.0
// `openvgf convert model.tosa -o model.vgf`: reads and verifies a TOSA graph, converts it
// for a Vulkan target and writes the VGF atomically (openvgf::convert); `--format arm-graph`
// writes the graph as Arm's model-converter would (one GRAPH segment), and a VGF with GRAPH
// segments as input is lowered to COMPUTE segments. --stats prints
// the memory plan and kernel counts; a progress bar is drawn on a terminal while shaders
// compile. --passes chooses the graph passes, --dump-after prints the graph after one,
// --verify-each re-checks the graph after every pass.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "command.h"
#include "openvgf/openvgf.hpp"

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

struct DumpRequest {
  std::string pass;
  std::string file;  // "" = stdout
};

// Parses the --dump-after values against the passes that will run ("input" = before them).
std::vector<DumpRequest> dumpRequests(const ConvertArgs& args) {
  std::vector<std::string> running{"input"};
  if (!args.dumpAfter.empty()) {
    for (std::string& pass : passesThatRun(args.passes.value_or("all"))) running.push_back(std::move(pass));
  }
  std::vector<DumpRequest> requests;
  for (const std::string& value : args.dumpAfter) {
    DumpRequest request;
    const std::size_t eq = value.find('=');
    request.pass = value.substr(0, eq);
    if (eq != std::string::npos) request.file = value.substr(eq + 1);
    if (eq != std::string::npos && request.file.empty()) {
      fail(ErrorCode::InvalidInput, fmt::format("--dump-after {}: expected PASS or PASS=FILE, got an empty file name", value));
    }
    if (!request.file.empty()) checkWritableFile(request.file, "--dump-after");
    if (std::find(running.begin(), running.end(), request.pass) == running.end()) {
      fail(ErrorCode::InvalidInput, fmt::format("--dump-after {}: expected input or a pass that runs ({}), got '{}'",
                                                value, fmt::join(running, ", "), request.pass));
    }
    requests.push_back(std::move(request));
  }
  return requests;
}

// The Ethos-U configurations of conversionTargets(): every target but the Vulkan ones.
std::vector<std::string> ethosUTargets() {
  std::vector<std::string> targets;
  for (const std::string& target : conversionTargets()) {
    if (target != "portable" && target != "native") targets.push_back(target);
  }
  return targets;
}

// What the written file holds, for the success line.
std::string contentOf(const ConvertArgs& args, const ConvertStats& stats) {
  if (args.format == "arm-graph") return "one GRAPH segment";
  const std::vector<std::string> ethosU = ethosUTargets();
  if (std::find(ethosU.begin(), ethosU.end(), args.target) != ethosU.end()) {
    return fmt::format("{} NPU operation{} for {}", stats.kernels, stats.kernels == 1 ? "" : "s", args.target);
  }
  return fmt::format("{} dispatch{}{}", stats.kernels, stats.kernels == 1 ? "" : "es",
                     stats.fromCache ? ", lowered VGF from the cache" : "");
}

int runConvert(const ConvertArgs& args) {
  ConvertOptions options;
  options.target = args.target;
  options.device = args.device;
  options.format = args.format;
  options.precision = args.precision;
  options.cache = !args.noCache;
  options.passes = args.passes.value_or("all");
  options.verifyEach = args.verifyEach;
  const std::vector<DumpRequest> dumps = dumpRequests(args);
  std::optional<Exception> dumpFailure;  // a dump that could not be written; reported after the conversion
  if (!dumps.empty()) {
    options.afterPass = [&](const std::string& pass, bool changed, const std::string& listing) {
      for (const DumpRequest& request : dumps) {
        if (request.pass != pass) continue;
        const std::string text = fmt::format("# {} {}{}\n{}", args.input, pass == "input" ? "before the passes" : "after ",
                                             pass == "input" ? "" : fmt::format("{} ({})", pass, changed ? "changed" : "unchanged"),
                                             listing);
        if (request.file.empty()) {
          std::fputs(text.c_str(), stdout);
          std::fflush(stdout);
          continue;
        }
        try {
          if (!dumpFailure) writeFile(request.file, text);
        } catch (const Exception& e) {
          dumpFailure = e;
        }
      }
    };
  }
  if (isatty(STDERR_FILENO) != 0 && !quiet()) {
    options.progress = [](std::size_t done, std::size_t total) {
      constexpr int kWidth = 30;
      int filled = static_cast<int>(kWidth * done / std::max<std::size_t>(total, 1));
      fmt::print(stderr, "\rcompiling shaders [{:=<{}}{: <{}}] {}/{}", "", filled, "", kWidth - filled, done, total);
      if (done == total) fmt::print(stderr, "\n");
    };
  }
  const ConvertStats stats = convert(args.input, args.output, options);
  if (dumpFailure) throw *dumpFailure;
  if (args.stats) std::fputs(stats.report.c_str(), stdout);
  if (!quiet()) fmt::print("wrote {} ({}, {})\n", args.output, contentOf(args, stats), sizeText(stats.outputBytes));
  return 0;
}

void setup(CLI::App& sub, Action& action) {
  auto args = std::make_shared<ConvertArgs>();
  sub.add_option("model", args->input, "TOSA 1.0 flatbuffer (.tosa), or a VGF with GRAPH segments to lower")->required();
  sub.add_option("-o,--output", args->output, "Output VGF file")->required();
  const std::vector<std::string> ethosU = ethosUTargets();
  sub.add_option("--target", args->target,
                 fmt::format("portable (default), native (for one Vulkan device of this machine: --device), or an "
                             "Ethos-U configuration, which writes a vela_bin_stream: {}",
                             fmt::join(ethosU, ", ")));
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
                 "as fp16; activations stay fp32); bf16x3: fp32 MATMUL and CONV2D operands split by truncation into "
                 "bf16 parts (fp32's range) and multiplied as three bf16 products (about 2^-16 relative error, not "
                 "within TOSA's bound for every input); fp32-bf16: per GEMM as many bf16 products (3 or 6) as TOSA's "
                 "fp32 dot-product bound needs at its depth, or fp32 FMA where neither is within it (both need bf16 "
                 "cooperative matrices, as bf16; docs/performance.md)");
  sub.add_flag("--stats", args->stats, "Print kernels, modules, memory plan and constant bytes");
  sub.add_flag("--no-cache", args->noCache, "Do not read or write the SPIR-V cache");
  const std::vector<std::string> passNames = graphPasses();
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
  action = [args]() -> int { return runConvert(*args); };
}

OPENVGF_REGISTER_COMMAND({"convert", "Convert a TOSA graph to a VGF for Vulkan compute", 20, setup});

}  // namespace
}  // namespace openvgf::cli
