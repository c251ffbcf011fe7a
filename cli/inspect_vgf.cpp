// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect model.vgf`: text summary, `--json` (vgf_dump's structure),
// `--dump-spirv N -o f.spv` and `--dump-constant N -o f.npy` (raw bytes unless -o ends in .npy).
#include <cstdio>

#include "cli/command.h"
#include "common/file_io.h"
#include "vgf/decoder.h"
#include "vgf/json.h"
#include "vgf/npy_export.h"
#include "vgf/summary.h"

namespace openvgf::cli {
namespace {

Result<int> inspectVgf(const InspectOptions& options, std::span<const std::uint8_t> bytes) {
  Result<vgf::File> decoded = withContext(vgf::decode(bytes), options.path);
  if (!decoded) return Unexpected(std::move(decoded).error());
  const vgf::File& file = *decoded;
  if (options.dumpSpirv || options.dumpConstant) {
    if (options.output.empty()) {
      return invalidInput("{}: --dump-spirv / --dump-constant: expected an output file with -o FILE", options.path);
    }
  }
  if (options.dumpSpirv) {
    int index = *options.dumpSpirv;
    if (index < 0 || static_cast<std::size_t>(index) >= file.modules.size()) {
      return invalidInput("{}: --dump-spirv: expected a module index < {}, got {}", options.path, file.modules.size(),
                          index);
    }
    const vgf::Module& module = file.modules[static_cast<std::size_t>(index)];
    if (module.codeKind != vgf::CodeKind::Spirv || !module.hasCode) {
      return invalidInput("{}: --dump-spirv: expected module {} to hold SPIR-V code, got {}{}", options.path, index,
                          vgf::toString(module.codeKind), module.hasCode ? "" : " without code");
    }
    std::span<const std::uint8_t> code(reinterpret_cast<const std::uint8_t*>(module.spirv.data()),
                                       module.spirv.size_bytes());
    OPENVGF_TRY(writeFileAtomic(options.output, code));
    return 0;
  }
  if (options.dumpConstant) {
    int index = *options.dumpConstant;
    if (index < 0 || static_cast<std::size_t>(index) >= file.constants.size()) {
      return invalidInput("{}: --dump-constant: expected a constant index < {}, got {}", options.path,
                          file.constants.size(), index);
    }
    const std::string& out = options.output;
    if (out.size() >= 4 && out.compare(out.size() - 4, 4, ".npy") == 0) {
      Result<std::vector<std::uint8_t>> npy = withContext(vgf::constantToNpy(file, static_cast<std::size_t>(index)),
                                                          options.path);
      if (!npy) return Unexpected(std::move(npy).error());
      OPENVGF_TRY(writeFileAtomic(out, *npy));
    } else {
      OPENVGF_TRY(writeFileAtomic(out, file.constants[static_cast<std::size_t>(index)].data));
    }
    return 0;
  }
  std::string text = options.json ? vgf::toJson(file).dump(4) + "\n" : vgf::formatSummary(file);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

OPENVGF_REGISTER_INSPECT(FileKind::Vgf, inspectVgf);

}  // namespace
}  // namespace openvgf::cli
