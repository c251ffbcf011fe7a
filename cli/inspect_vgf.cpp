// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect model.vgf`: text summary, `--json` (vgf_dump's structure),
// `--dump-spirv N -o f.spv` and `--dump-constant N -o f.npy` (raw bytes unless -o ends in .npy),
// through api/inspect.h.
#include <cstdio>

#include "api/inspect.h"
#include "cli/command.h"
#include "vgf/decoder.h"

namespace openvgf::cli {
namespace {

Result<int> inspectVgf(const InspectOptions& options, std::span<const std::uint8_t> bytes) {
  Result<vgf::File> decoded = withContext(vgf::decode(bytes), options.path);
  if (!decoded) return Unexpected(std::move(decoded).error());
  if (options.dumpSpirv || options.dumpConstant) {
    if (options.output.empty()) {
      return invalidInput("{}: --dump-spirv / --dump-constant: expected an output file with -o FILE", options.path);
    }
    OPENVGF_TRY(options.dumpSpirv ? api::dumpVgfSpirv(*decoded, options.path, *options.dumpSpirv, options.output)
                                  : api::dumpVgfConstant(*decoded, options.path, *options.dumpConstant, options.output));
    return 0;
  }
  OPENVGF_ASSIGN_OR_RETURN(api::Inspection inspection, api::inspectVgf(bytes, options.path, options.json));
  std::fwrite(inspection.text.data(), 1, inspection.text.size(), stdout);
  return 0;
}

OPENVGF_REGISTER_INSPECT(FileKind::Vgf, inspectVgf);

}  // namespace
}  // namespace openvgf::cli
