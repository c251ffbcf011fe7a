// SPDX-License-Identifier: Apache-2.0
// `openvgf view FILE [-o page.html] [--format html|json|dot] [--profile trace.json]`: writes
// openvgf::viewReport of a .tosa, .vgf, .pte or Ethos-U stream (docs/view.md): a self-contained
// HTML page by default, Model Explorer's graph JSON or Graphviz DOT; without -o, to stdout.
#include <cstdio>
#include <memory>
#include <string>

#include "command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

struct ViewArgs {
  std::string path;
  std::string output;
  std::string format = "html";
  std::string profile;
};

int runView(const ViewArgs& args) {
  if (!args.output.empty()) checkWritableFile(args.output, "--output");
  const ViewFormat format = args.format == "json"  ? ViewFormat::Json
                            : args.format == "dot" ? ViewFormat::Dot
                                                   : ViewFormat::Html;
  const std::string page = viewReport(args.path, {.format = format, .profile = args.profile});
  if (args.output.empty()) {
    std::fwrite(page.data(), 1, page.size(), stdout);
    std::fflush(stdout);
    return 0;
  }
  writeFile(args.output, page);
  if (!quiet()) std::fprintf(stderr, "wrote %s (%zu bytes)\n", args.output.c_str(), page.size());
  return 0;
}

void setup(CLI::App& sub, Action& action) {
  auto args = std::make_shared<ViewArgs>();
  sub.add_option("file", args->path,
                 "A .tosa, .vgf, .pte or Ethos-U command stream (detected from its content)")
      ->required();
  sub.add_option("-o,--output", args->output, "Write to this file (default: stdout)");
  sub.add_option(
         "--format", args->format,
         "html: one self-contained page (no network), with search, zoom/pan and an attribute panel; json: "
         "Model Explorer's graph JSON; dot: Graphviz")
      ->check(CLI::IsMember({"html", "json", "dot"}))
      ->capture_default_str();
  sub.add_option("--profile", args->profile,
                 "A Chrome trace from `openvgf run --profile` of the same model: nodes show and are coloured "
                 "by their "
                 "GPU time")
      ->check(CLI::ExistingFile);
  action = [args]() -> int { return runView(*args); };
}

OPENVGF_REGISTER_COMMAND({"view",
                          "Draw a .tosa / .vgf / .pte / Ethos-U stream as a graph (HTML page, JSON or DOT)",
                          55, setup});

}  // namespace
}  // namespace openvgf::cli
