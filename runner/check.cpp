// SPDX-License-Identifier: Apache-2.0
// Reference comparison for `run --check` (see check.h).
#include "runner/check.h"

#include <fmt/format.h>

#include "tosa/reference/reference.h"

namespace openvgf::runner {
namespace {

// Position of `name` in `names`, else `fallback` when the counts match (unnamed models).
Result<std::size_t> indexOf(std::span<const std::string> names, const std::string& name, std::size_t fallback,
                            std::string_view what) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return i;
  }
  if (fallback < names.size()) return fallback;
  return invalidInput("--check: graph {} '{}': expected a VGF {} of that name, got none", what, name, what);
}

}  // namespace

Result<std::vector<OutputCheck>> checkAgainstReference(const tosa::Graph& graph, std::span<const std::string> inputNames,
                                                       std::span<const tosa::HostTensor> inputs,
                                                       std::span<const std::string> outputNames,
                                                       std::span<const tosa::HostTensor> outputs,
                                                       tosa::reference::VariableState* state) {
  const tosa::Block* main = graph.mainBlock();
  if (main == nullptr) return invalidInput("--check: expected a graph with a main block");
  if (main->inputs.size() != inputs.size() || main->outputs.size() != outputs.size()) {
    return invalidInput("--check: expected the graph's {} inputs / {} outputs, the VGF has {} / {}", main->inputs.size(),
                        main->outputs.size(), inputs.size(), outputs.size());
  }
  std::vector<tosa::HostTensor> ordered;
  for (std::size_t i = 0; i < main->inputs.size(); ++i) {
    OPENVGF_ASSIGN_OR_RETURN(std::size_t k, indexOf(inputNames, main->inputs[i], i, "input"));
    ordered.push_back(inputs[k]);
  }
  tosa::reference::RunOptions options;
  options.precise = true;
  OPENVGF_ASSIGN_OR_RETURN(tosa::reference::RunResult reference, tosa::reference::run(graph, ordered, options, state));
  std::vector<tosa::HostTensor> actual;
  for (std::size_t i = 0; i < main->outputs.size(); ++i) {
    OPENVGF_ASSIGN_OR_RETURN(std::size_t k, indexOf(outputNames, main->outputs[i], i, "output"));
    actual.push_back(outputs[k]);
  }
  OPENVGF_ASSIGN_OR_RETURN(auto verdicts, tosa::reference::checkOutputs(reference, actual));
  std::string unpredictable;
  if (const auto& d = reference.diagnostics; !d.empty()) {
    unpredictable = fmt::format("REQUIRE failures ({} recorded), the first: {}", d.size(),
                                tosa::reference::toString(d.front()));
  }
  std::vector<OutputCheck> result;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    result.push_back({main->outputs[i], std::move(verdicts[i]), unpredictable});
  }
  return result;
}

std::string formatCheck(const OutputCheck& check) {
  const auto& v = check.verdict;
  std::string stats;
  switch (v.mode) {
    case tosa::compliance::CheckMode::DotProduct:
      stats = fmt::format("max abs error {:.3g}, dot-product max error {:.3g} (limit {:.3g})", v.maxAbsError,
                          v.maxDotError, v.absBoundLimit);
      break;
    case tosa::compliance::CheckMode::Exact:
    case tosa::compliance::CheckMode::IntRange:
      stats = fmt::format("max abs error {:.3g}", v.maxAbsError);
      break;
    default:
      stats = fmt::format("max abs error {:.3g}, max ULP error {:.3g}", v.maxAbsError, v.maxUlpError);
      break;
  }
  const char* verdict = v.pass ? "PASS" : (v.inconclusive ? "INCONCLUSIVE" : "FAIL");
  // An absolute tolerance means little without the size of what it bounds: both are shown.
  const std::string tolerance =
      v.mode == tosa::compliance::CheckMode::AbsError
          ? fmt::format(" (tolerance up to {:.3g}, |values| up to {:.3g})", v.maxTolerance, v.maxMagnitude)
          : std::string();
  std::string line = fmt::format("{}: {} ({}; {} check{}, {} elements)", check.name, verdict, stats,
                                 tosa::compliance::toString(v.mode), tolerance, v.elements);
  if (!v.pass && !v.message.empty()) line += fmt::format(": {}", v.message);
  if (v.inconclusive) line += "; `openvgf compare MODEL.tosa --per-operator` judges each operator on the device's own inputs";
  if (!v.pass && !check.unpredictable.empty()) {
    line += fmt::format("; the reference reports {} (TOSA calls this run's results unpredictable)", check.unpredictable);
  }
  return line;
}

}  // namespace openvgf::runner
