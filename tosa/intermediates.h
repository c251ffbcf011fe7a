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
#include <string>
#include <vector>

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

}  // namespace openvgf::tosa
