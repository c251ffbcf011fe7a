// SPDX-License-Identifier: Apache-2.0
#include "api/extract.h"

#include "api/file_kind.h"
#include "common/file_io.h"
#include "pte/program.h"
#include "vgf/json.h"

namespace openvgf::api {

Result<std::vector<ExtractedPayload>> extractPayloads(const std::string& path, const std::filesystem::path& outputDir,
                                                      const pte::ExtractionFilter& filter) {
  OPENVGF_TRY(checkOutputFolder(outputDir, "--output"));
  OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  if (detectFileKind(file.bytes()) != FileKind::Pte) {
    return invalidInput("{}: expected an ExecuTorch program (\"ET12\" at offset 4), got {}", path,
                        describeFile(file.bytes()));
  }
  Result<pte::Program> program = withContext(pte::readProgram(file.bytes()), path);
  if (!program) return Unexpected(std::move(program).error());
  Result<std::vector<pte::ExtractionItem>> items = withContext(pte::selectPayloads(*program, filter), path);
  if (!items) return Unexpected(std::move(items).error());
  std::vector<ExtractedPayload> written;
  std::vector<FolderEntry> entries;
  for (const pte::ExtractionItem& item : *items) {
    entries.push_back({item.fileName, item.delegate->payload});
    written.push_back({item.plan, item.delegateIndex, item.delegate->backendId, item.fileName,
                       item.delegate->payloadProblem});
  }
  // The manifest goes last: a folder that has it has every payload it lists.
  std::string manifest = vgf::dumpJson(pte::manifestJson(path, *items)) + "\n";
  entries.push_back({"manifest.json", std::span(reinterpret_cast<const std::uint8_t*>(manifest.data()), manifest.size())});
  OPENVGF_TRY(writeFolderAtomic(outputDir, entries));
  return written;
}

}  // namespace openvgf::api
