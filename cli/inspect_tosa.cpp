// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect model.tosa`: a summary of a TOSA graph (version, graph inputs and outputs,
// operator histogram, constant bytes, profiles and extensions used) or, with --json, the whole
// graph (api::inspectTosa). The graph is verified; a file that cannot be read or that breaks a
// TOSA rule exits with code 2 (after the summary, so the user still sees what the file holds).
// --dump-constant NAME|N -o FILE writes a constant tensor in TOSA layout.
#include <cstdio>

#include "api/inspect.h"
#include "cli/command.h"

namespace openvgf::cli {
namespace {

Result<int> inspectTosa(const InspectOptions& options, std::span<const std::uint8_t> bytes) {
  if (options.dumpSpirv) return invalidInput("{}: --dump-spirv applies to VGF files, not TOSA graphs", options.path);
  if (options.dumpConstant) {
    if (options.output.empty()) {
      return invalidInput("{}: --dump-constant: expected an output file with -o FILE", options.path);
    }
    OPENVGF_TRY(api::dumpTosaConstant(bytes, options.path, *options.dumpConstant, options.output));
    return 0;
  }
  OPENVGF_ASSIGN_OR_RETURN(api::Inspection inspection, api::inspectTosa(bytes, options.path, options.json));
  std::fwrite(inspection.text.data(), 1, inspection.text.size(), stdout);
  std::fflush(stdout);  // the summary before the error message, also through pipes
  OPENVGF_TRY(inspection.problem);
  return 0;
}

OPENVGF_REGISTER_INSPECT(FileKind::Tosa, inspectTosa);

}  // namespace
}  // namespace openvgf::cli
