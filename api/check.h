// SPDX-License-Identifier: Apache-2.0
// `run --check` with EXT-VARIABLE state: a model's `state:<name>` inputs are the variables'
// values before the run (the reference interpreter starts from them), and its `state:<name>`
// outputs are judged against the values the reference leaves, under the compliance rule of
// the tensor the graph writes into the variable.
#pragma once

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

}  // namespace openvgf::api
