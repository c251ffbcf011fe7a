// SPDX-License-Identifier: Apache-2.0
// `run --check`: judges a VGF's outputs against the TOSA reference interpreter run on the
// same inputs, with TOSA's compliance rules (exact for integers, ULP bounds, dot-product
// statistics for conv/matmul/pool/reduce). Inputs and outputs are matched by name (the
// converter names VGF inputs/outputs after the TOSA graph's), else by position.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "tosa/compliance.h"
#include "tosa/graph.h"
#include "tosa/host_tensor.h"
#include "tosa/reference/reference.h"

namespace openvgf::runner {

struct OutputCheck {
  std::string name;                  // graph output name
  tosa::compliance::Verdict verdict;
  /// The reference's REQUIRE failures on these inputs ("2 REQUIRE failures, the first: ..."),
  /// empty when none. TOSA calls the results of such a run unpredictable, so a FAIL may not be
  /// the implementation's fault; formatCheck says so on FAIL lines.
  std::string unpredictable;
};

/// Runs the reference interpreter (precise mode) on `inputs` (named as the VGF names them)
/// and judges `outputs` (named likewise). `state` holds the EXT-VARIABLE values the run
/// starts from and receives the values it leaves (a fresh state when null). Errors: a name
/// that the graph does not have, or counts that disagree.
Result<std::vector<OutputCheck>> checkAgainstReference(const tosa::Graph& graph,
                                                       std::span<const std::string> inputNames,
                                                       std::span<const tosa::HostTensor> inputs,
                                                       std::span<const std::string> outputNames,
                                                       std::span<const tosa::HostTensor> outputs,
                                                       tosa::reference::VariableState* state = nullptr);

/// "name: PASS (max abs error 1e-06, max ULP error 0.5)" style line for one output; a FAIL
/// line ends with the reference's REQUIRE failures when it had any; an INCONCLUSIVE one
/// (Verdict::inconclusive) names the tolerance, the output's magnitude and `openvgf compare`.
std::string formatCheck(const OutputCheck& check);

}  // namespace openvgf::runner
