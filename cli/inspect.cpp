// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect FILE`: prints openvgf::inspectReport of a .tosa, .vgf, .pte, Ethos-U stream
// or SPIR-V module of TOSA graphs (the listing, then what makes the file invalid, if anything:
// exit 2), or writes one of its parts (openvgf::dumpSpirv, dumpConstant).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

struct InspectArgs {
  std::string path;
  bool json = false;
  std::optional<int> dumpSpirv;             // --dump-spirv N
  std::optional<std::string> dumpConstant;  // --dump-constant N (VGF) or NAME|N (TOSA)
  std::string output;                       // -o for dumps
};

int runInspect(const InspectArgs& args) {
  if (args.dumpSpirv || args.dumpConstant) {
    const char* flag = args.dumpSpirv ? "--dump-spirv" : "--dump-constant";
    if (args.dumpSpirv && args.dumpConstant) {
      fail(ErrorCode::InvalidInput, fmt::format("{}: --dump-spirv and --dump-constant: expected one of them", args.path));
    }
    if (args.output.empty()) {
      fail(ErrorCode::InvalidInput, fmt::format("{}: {}: expected an output file with -o FILE", args.path, flag));
    }
    checkWritableFile(args.output, "--output");
    if (args.dumpSpirv) {
      dumpSpirv(args.path, *args.dumpSpirv, args.output);
    } else {
      dumpConstant(args.path, *args.dumpConstant, args.output);
    }
    return 0;
  }
  if (!args.output.empty()) {
    fail(ErrorCode::InvalidInput, fmt::format("{}: -o: expected --dump-spirv or --dump-constant (the listing goes to "
                                              "stdout)", args.path));
  }
  const InspectReport report = inspectReport(args.path, args.json);
  std::fwrite(report.text.data(), 1, report.text.size(), stdout);
  std::fflush(stdout);  // the listing before the error message, also through pipes
  if (!report.problem.empty()) throw Exception(report.problemCode, report.problem);
  return 0;
}

void setup(CLI::App& sub, Action& action) {
  auto args = std::make_shared<InspectArgs>();
  sub.add_option("file", args->path,
                 "A .tosa, .vgf, .pte, Ethos-U command stream, SPIR-V module of TOSA graphs, or .npy array (detected "
                 "from its content)")
      ->required();
  sub.add_flag("--json", args->json, "Print JSON instead of a text summary (not for SPIR-V modules)");
  sub.add_option("--dump-spirv", args->dumpSpirv, "VGF: write module N's SPIR-V code to -o FILE");
  sub.add_option("--dump-constant", args->dumpConstant,
                 "Write a constant to -o FILE (.npy, else raw bytes). TOSA: the tensor NAME or N-th constant of the "
                 "main block, in TOSA layout. VGF: constant N with its resource's shape and dtype, in the layout the "
                 "kernels read (openvgf stores CONV2D weights as [KH*KW*IC, OC]); dump the .tosa for TOSA layout")
      ->type_name("NAME|N");
  sub.add_option("-o,--output", args->output, "Output file for --dump-spirv / --dump-constant");
  action = [args]() -> int { return runInspect(*args); };
}

OPENVGF_REGISTER_COMMAND({"inspect", "Show what a .tosa / .vgf / .pte / Ethos-U stream / .npy contains", 20, setup});

}  // namespace
}  // namespace openvgf::cli
