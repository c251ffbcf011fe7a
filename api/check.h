// SPDX-License-Identifier: Apache-2.0
// `run --check` with EXT-VARIABLE state: a model's `state:<name>` inputs are the variables'
// values before the run (the reference interpreter starts from them), and its `state:<name>`
// outputs are judged against the values the reference leaves, under the compliance rule of
// the tensor the graph writes into the variable.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "runner/check.h"
#include "runner/model.h"
#include "tosa/graph.h"
#include "tosa/host_tensor.h"

namespace openvgf::api {

/// Judges `outputs` of a run on `inputs` (both in the order of `inputInfo` / `outputInfo`)
/// against the reference on `graph`; one line per output, state outputs included.
Result<std::vector<runner::OutputCheck>> checkOutputs(const tosa::Graph& graph, const std::string& graphPath,
                                                      std::span<const runner::TensorInfo> inputInfo,
                                                      std::span<const tosa::HostTensor> inputs,
                                                      std::span<const runner::TensorInfo> outputInfo,
                                                      std::span<const tosa::HostTensor> outputs);

/// One operator judged alone (openvgf.hpp OperatorCheck).
struct OperatorVerdict {
  std::size_t index = 0;
  tosa::Op op = tosa::Op::Unknown;
  std::vector<runner::OutputCheck> checks;  // empty when not judged
  std::string notJudged;
  std::size_t upstream = 0;
};

/// Judges every operator of `graph`'s main block that computes a value alone, with the
/// device's `values` (by tensor name: the graph's inputs and the tensors it computed) of its
/// inputs as exact givens, against the reference in precise mode under the operator's own rule
/// (tosa::operatorGraph, runner::checkAgainstReference). An operator that cannot be judged so
/// gets OperatorVerdict::notJudged, never a pass.
std::vector<OperatorVerdict> checkOperators(const tosa::Graph& graph,
                                            const std::map<std::string, tosa::HostTensor>& values);

}  // namespace openvgf::api
