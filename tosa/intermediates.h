// SPDX-License-Identifier: Apache-2.0
// Per-layer outputs (`openvgf run --dump`, `openvgf compare`): every tensor an operator of the
// main block computes becomes a graph output, so a backend materialises it and the reference
// interpreter returns it. Both sides apply the same rewrite to graphs with the same tensor
// names, so their extra outputs line up by name.
//
// Kept: the outputs of the main block's operators, in operator order (a valid topological
// order, as the reference interpreter runs it). Not kept: constants (CONST, CONST_SHAPE),
// shape values, EXT-VARIABLE state tensors and what VARIABLE / VARIABLE_WRITE touch, unranked
// tensors, and the tensors inside COND_IF / WHILE_LOOP bodies (only the control-flow
// operator's own outputs are). A backend that fuses operators cannot fuse across a kept tensor
// (a graph output is always materialised), so such a run measures the unfused kernels.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"

namespace openvgf::tosa {

/// One tensor computed by an operator of the main block.
struct ComputedTensor {
  std::string tensor;
  std::size_t opIndex = 0;  // the producing operator's index in the main block
  Op op = Op::Unknown;
  bool graphOutput = false;  // already an output of the graph
};

/// The tensors the main block's operators compute (see above for which), in operator order.
std::vector<ComputedTensor> computedTensors(const Graph& graph);

/// Appends every computed tensor that is not yet a graph output to the main block's outputs,
/// in operator order; returns computedTensors() of the graph as it was. No-op without a main
/// block.
std::vector<ComputedTensor> keepIntermediates(Graph& graph);

/// One operator of the main block as a graph of its own (`openvgf compare --per-operator`
/// judges each operator on a device's values of its inputs).
struct OperatorGraph {
  Graph graph;  // main block: the operator, after the `upstream` operators it needs
  std::size_t upstream = 0;
};

/// The main block's operator `opIndex` as a graph whose inputs are the tensors it reads that
/// `given` names (the caller has their values), whose constants are the graph's, and whose
/// outputs are its outputs that `judged` names. An input neither given nor constant is computed
/// by its producer, taken along (recursively; OperatorGraph::upstream counts them). A
/// COND_IF / WHILE_LOOP keeps the graph's other blocks and every tensor of the main block
/// (its bodies may read them by name). InvalidInput (naming the tensor, and the upstream
/// operator when the cause is not `opIndex` itself): it reads or writes EXT-VARIABLE state (its
/// values depend on the whole run), or an input nobody produces before it is neither given nor
/// constant.
Result<OperatorGraph> operatorGraph(const Graph& graph, std::size_t opIndex,
                                    const std::function<bool(const std::string&)>& given,
                                    const std::function<bool(const std::string&)>& judged);

}  // namespace openvgf::tosa
