// SPDX-License-Identifier: Apache-2.0
// The converter's working form of a TOSA graph: the main block's tensors by name, its
// operators as Nodes in execution order, and the model interface. Passes rewrite it in
// place; a Node can carry an epilogue of fused elementwise operators that the kernel of
// its anchor operator applies before storing (chain: each epilogue op consumes the
// previous op's output as `chainInput`).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"

namespace openvgf::converter {

struct FusedOp {
  tosa::Operator op;
  std::size_t index = 0;       // operator index in the source block (for messages)
  std::size_t chainInput = 0;  // which input of `op` is the previous result
};

struct Node {
  std::size_t index = 0;         // operator index in the source block (for messages)
  tosa::Operator op;
  /// Applied in order to the anchor's result. Besides elementwise chains: a last TRANSPOSE
  /// (fuse-transposes) changes where a GEMM-like kernel stores; a REDUCE anchor's epilogue
  /// (fuse-rows) is a row-wise chain that may read any earlier result of the node.
  std::vector<FusedOp> epilogue;

  /// Name of the tensor the node finally writes (last epilogue op's output, else op's).
  const std::string& output() const {
    return epilogue.empty() ? op.outputs.at(0) : epilogue.back().op.outputs.at(0);
  }
};

struct Program {
  std::map<std::string, tosa::Tensor> tensors;  // every tensor of the block by name
  std::vector<Node> nodes;                      // execution order
  std::vector<std::string> inputs;              // model inputs (block inputs)
  std::vector<std::string> outputs;             // model outputs (block outputs)
  /// Names the VGF gives the outputs: the TOSA output names, then `state:<variable>` for
  /// each EXT-VARIABLE (whose tensor in `outputs` is the last value written).
  std::vector<std::string> outputNames;
  /// Elided RESHAPE/IDENTITY outputs -> the tensor whose buffer they share.
  std::map<std::string, std::string> aliases;
  /// Aliases that are crops of their base (fold-crops): an NHWC view with fewer trailing rows
  /// or columns, which keeps the base's row pitch; only CONV2D input 0 reads them.
  std::set<std::string> crops;
  /// Blocks that COND_IF / WHILE_LOOP nodes name (then/else, cond/body), by the name the
  /// operator uses, until inline-control-flow replaces those nodes.
  std::map<std::string, tosa::Block> blocks;
  /// EXT-VARIABLE tensors in declaration order, until resolve-variables turns their reads
  /// and writes into IDENTITY nodes over the model input/output pairs `state:<name>`.
  std::vector<std::string> variables;
  /// Operators of the source block: the index that nodes the converter adds at its end report.
  std::size_t sourceOperators = 0;

  /// The tensor whose buffer holds `name` (itself unless aliased).
  const std::string& bufferOf(const std::string& name) const;
  /// True if a node reads `name` or a tensor aliased to it, or it is a model output.
  bool isUsed(const std::string& name) const;

  const tosa::Tensor* find(const std::string& name) const;
  tosa::Tensor* find(const std::string& name);
  /// True if the tensor holds a compile-time constant payload.
  bool isConstant(const std::string& name) const;
  /// Number of node inputs (anchor and epilogue ops) that read `name`.
  std::size_t useCount(const std::string& name) const;
  bool isOutput(const std::string& name) const;
};

/// Builds the Program of a graph's main block (in operator order, which a valid TOSA
/// graph already gives topologically). CONST / CONST_SHAPE operators become constant
/// tensors, not nodes; every other operator, COND_IF, WHILE_LOOP and variable reads and
/// writes included, becomes a node. The passes every conversion runs first
/// (passes::requiredPasses: inline-control-flow, resolve-variables) remove those.
Result<Program> makeProgram(const tosa::Graph& graph);

/// "<index> <OP>(<in>...) -> <out>" per node, for pass tests.
std::string dumpProgram(const Program& program);

/// The readable listing `openvgf convert --dump-after` prints: model inputs, the constants
/// and aliases nodes read, one line per node with the type and shape of what it writes
/// (fused epilogue ops follow `|>`), and the model outputs.
std::string listProgram(const Program& program);

/// Checks the invariants every pass must keep (InvalidInput naming the first violation):
/// every name refers to a tensor of the Program; a node reads only model inputs,
/// constants, variables, outputs of earlier nodes or aliases of those; each tensor but a
/// variable is written once and never a model input or constant; an epilogue op reads the
/// previous result (or an alias of it) at its `chainInput`; aliases point at a tensor that
/// is not itself an alias, with the same type and element count; every model output is
/// produced.
Status verifyProgram(const Program& program);
/// Whether `view` can be a crop of `base` (fold-crops, Program::crops): an NHWC tensor of
/// the same type, batch and channels with no more rows or columns, read only as a CONV2D's
/// input 0 (the one kernel that takes the base's pitch) and no model output.
Status checkCrop(const Program& program, const std::string& view, const std::string& base);

}  // namespace openvgf::converter
