// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect program.pte`: plans, delegates, backend ids, payload kinds and sizes,
// Ethos-U stream details and the summary of each VGF payload; `--json` for the same as JSON
// (api::inspectPte). A delegate payload that is not a valid VGF / vela_bin_stream makes the
// command fail (exit 2) after the listing.
#include <cstdio>

#include "api/inspect.h"
#include "cli/command.h"

namespace openvgf::cli {
namespace {

Result<int> inspectPte(const InspectOptions& options, std::span<const std::uint8_t> bytes) {
  if (options.dumpSpirv || options.dumpConstant) {
    return invalidInput(
        "{}: --dump-spirv / --dump-constant: expected a .vgf file; extract the payload first with "
        "`openvgf extract`",
        options.path);
  }
  OPENVGF_ASSIGN_OR_RETURN(api::Inspection inspection, api::inspectPte(bytes, options.path, options.json));
  std::fwrite(inspection.text.data(), 1, inspection.text.size(), stdout);
  std::fflush(stdout);
  OPENVGF_TRY(inspection.problem);
  return 0;
}

OPENVGF_REGISTER_INSPECT(FileKind::Pte, inspectPte);

}  // namespace
}  // namespace openvgf::cli
