// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect model.tosa`: a summary of a TOSA graph (version, graph inputs and outputs,
// operator histogram, constant bytes, profiles and extensions used) or, with --json, the whole
// graph (api::inspectTosa). The graph is verified; a file that cannot be read or that breaks a
// TOSA rule exits with code 2 (after the summary, so the user still sees what the file holds).
#include <cstdio>

#include "api/inspect.h"
#include "cli/command.h"

namespace openvgf::cli {
namespace {

Result<int> inspectTosa(const InspectOptions& options, std::span<const std::uint8_t> bytes) {
  if (options.dumpSpirv || options.dumpConstant) {
    return invalidInput("{}: --dump-spirv and --dump-constant apply to VGF files, not TOSA graphs",
                        options.path);
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
