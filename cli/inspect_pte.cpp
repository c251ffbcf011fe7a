// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect program.pte`: plans, delegates, backend ids, payload kinds and sizes,
// Ethos-U stream details, the summary of each VGF payload, and whether `openvgf run` can run
// each plan (pte/run_plan.h); `--json` for the same as JSON.
// A delegate payload that is not a valid VGF / vela_bin_stream makes the command fail
// (exit 2) after the listing.
#include <cstdio>

#include "cli/command.h"
#include "pte/extract.h"
#include "pte/program.h"
#include "pte/run_plan.h"
#include "vgf/json.h"

namespace openvgf::cli {
namespace {

Result<int> inspectPte(const InspectOptions& options, std::span<const std::uint8_t> bytes) {
  if (options.dumpSpirv || options.dumpConstant) {
    return invalidInput(
        "{}: --dump-spirv / --dump-constant: expected a .vgf file; extract the payload first with "
        "`openvgf extract`",
        options.path);
  }
  Result<pte::Program> program = withContext(pte::readProgram(bytes), options.path);
  if (!program) return Unexpected(std::move(program).error());
  std::string text;
  if (options.json) {
    nlohmann::json json = pte::toJson(*program);
    for (std::size_t p = 0; p < program->plans.size() && p < json["execution_plans"].size(); ++p) {
      auto plan = pte::planVgfExecution(*program, std::to_string(p));
      json["execution_plans"][p]["runs_with_openvgf"] = plan.has_value();
      if (!plan) json["execution_plans"][p]["why_not"] = plan.error().message();
    }
    text = vgf::dumpJson(json) + "\n";
  } else {
    text = pte::formatSummary(*program) + pte::formatRunnability(*program);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  for (std::size_t p = 0; p < program->plans.size(); ++p) {
    const pte::ExecutionPlan& plan = program->plans[p];
    for (std::size_t d = 0; d < plan.delegates.size(); ++d) {
      if (!plan.delegates[d].payloadProblem.empty()) {
        return invalidInput("{}: execution_plan[{}] '{}': delegates[{}] ({}): payload: {}", options.path, p,
                            plan.name, d, plan.delegates[d].backendId, plan.delegates[d].payloadProblem);
      }
    }
  }
  return 0;
}

OPENVGF_REGISTER_INSPECT(FileKind::Pte, inspectPte);

}  // namespace
}  // namespace openvgf::cli
