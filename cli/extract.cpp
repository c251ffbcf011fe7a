// SPDX-License-Identifier: Apache-2.0
// `openvgf extract program.pte -o DIR [--plan P] [--delegate N]`: writes each selected
// delegate payload byte for byte to DIR/<plan>_<index>_<backend id>.vgf|.ethosu.bin|.bin
// and DIR/manifest.json (openvgf::extract). Payloads that fail VGF / vela_bin_stream
// validation are still written (the bytes are what the user asked for), with a warning and
// a "problem" entry.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include <spdlog/spdlog.h>

#include "command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

struct ExtractOptions {
  std::string path;
  std::string outputDir;
  std::string plan;
  std::optional<int> delegate;
};

int runExtract(const ExtractOptions& options) {
  std::vector<ExtractedPayload> payloads = extract(options.path, options.outputDir, options.plan, options.delegate.value_or(-1));
  for (const ExtractedPayload& payload : payloads) {
    if (!payload.problem.empty()) {
      spdlog::warn("{}: plan '{}' delegate {} ({}): payload: {}", options.path, payload.plan, payload.delegate,
                   payload.backendId, payload.problem);
    }
  }
  if (quiet()) return 0;
  for (const ExtractedPayload& payload : payloads) {
    const std::filesystem::path file = std::filesystem::path(options.outputDir) / payload.file;
    std::error_code ec;
    const std::uintmax_t bytes = std::filesystem::file_size(file, ec);
    fmt::print("wrote {} ({}, plan '{}' delegate {}, {})\n", file.string(), payload.backendId, payload.plan,
               payload.delegate, ec ? std::string("?") : sizeText(bytes));
  }
  fmt::print("wrote {} (what each file is)\n", (std::filesystem::path(options.outputDir) / "manifest.json").string());
  return 0;
}

void setup(CLI::App& sub, Action& action) {
  auto options = std::make_shared<ExtractOptions>();
  sub.add_option("file", options->path, "ExecuTorch program (.pte)")->required();
  sub.add_option("-o,--output", options->outputDir, "Output folder")->required();
  sub.add_option("--plan", options->plan, "Only this execution plan (name or index)");
  sub.add_option("--delegate", options->delegate, "Only this delegate index (within each selected plan)")
      ->check(atLeast(0));
  action = [options]() { return runExtract(*options); };
}

OPENVGF_REGISTER_COMMAND({"extract", "Write the VGF / Ethos-U / other delegate payloads of a .pte to files",
                          40, setup});

}  // namespace
}  // namespace openvgf::cli
