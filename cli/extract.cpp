// SPDX-License-Identifier: Apache-2.0
// `openvgf extract program.pte -o DIR [--plan P] [--delegate N]`: writes each selected
// delegate payload byte for byte to DIR/<plan>_<index>_<backend id>.vgf|.ethosu.bin|.bin
// and DIR/manifest.json. Payloads that fail VGF / vela_bin_stream validation are still
// written (the bytes are what the user asked for), with a warning and a "problem" entry.
#include "pte/extract.h"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "cli/command.h"
#include "common/file_io.h"
#include "pte/program.h"
#include "vgf/json.h"

namespace openvgf::cli {
namespace {

struct ExtractOptions {
  std::string path;
  std::string outputDir;
  std::string plan;
  std::optional<std::size_t> delegate;
};

Result<int> runExtract(const ExtractOptions& options) {
  OPENVGF_TRY(checkOutputFolder(options.outputDir, "--output"));
  OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(options.path));
  if (detectFileKind(file.bytes()) != FileKind::Pte) {
    return invalidInput("{}: expected an ExecuTorch program (\"ET12\" at offset 4), got a {} file",
                        options.path, toString(detectFileKind(file.bytes())));
  }
  Result<pte::Program> program = withContext(pte::readProgram(file.bytes()), options.path);
  if (!program) return Unexpected(std::move(program).error());
  pte::ExtractionFilter filter;
  if (!options.plan.empty()) filter.plan = options.plan;
  filter.delegate = options.delegate;
  Result<std::vector<pte::ExtractionItem>> items =
      withContext(pte::selectPayloads(*program, filter), options.path);
  if (!items) return Unexpected(std::move(items).error());
  std::vector<FolderEntry> entries;
  for (const pte::ExtractionItem& item : *items) {
    if (!item.delegate->payloadProblem.empty()) {
      spdlog::warn("{}: plan '{}' delegate {} ({}): payload: {}", options.path, item.plan, item.delegateIndex,
                   item.delegate->backendId, item.delegate->payloadProblem);
    }
    entries.push_back({item.fileName, item.delegate->payload});
  }
  // The manifest goes last: a folder that has it has every payload it lists.
  std::string manifest = vgf::dumpJson(pte::manifestJson(options.path, *items)) + "\n";
  entries.push_back({"manifest.json", std::span(reinterpret_cast<const std::uint8_t*>(manifest.data()), manifest.size())});
  OPENVGF_TRY(writeFolderAtomic(options.outputDir, entries));
  spdlog::info("{}: wrote {} payload(s) and manifest.json to {}", options.path, items->size(),
               options.outputDir);
  return 0;
}

void setup(CLI::App& sub, Action& action) {
  auto options = std::make_shared<ExtractOptions>();
  sub.add_option("file", options->path, "ExecuTorch program (.pte)")->required();
  sub.add_option("-o,--output", options->outputDir, "Output folder")->required();
  sub.add_option("--plan", options->plan, "Only this execution plan (name or index)");
  sub.add_option("--delegate", options->delegate, "Only this delegate index (within each selected plan)");
  action = [options]() { return runExtract(*options); };
}

OPENVGF_REGISTER_COMMAND({"extract", "Write the VGF / Ethos-U / other delegate payloads of a .pte to files",
                          40, setup});

}  // namespace
}  // namespace openvgf::cli
