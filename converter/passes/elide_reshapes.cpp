// SPDX-License-Identifier: Apache-2.0
// elide-reshapes: RESHAPE and IDENTITY move no data, so their output can be a second
// name for the input's buffer. Consumers keep naming the output tensor (and so keep its
// shape, which every kernel compiles into its defines); the plan binds the input's buffer.
//
//   before: y = RESHAPE(x, [1,1,64]); z = MATMUL(y, w)
//   after:  z = MATMUL(y, w)   with aliases {y -> x}
//
// Not elided: a node whose output is a model output (it needs its own buffer).
#include <algorithm>

#include "converter/passes/passes.h"

namespace openvgf::converter::passes {

Result<bool> elideReshapes(Program& program) {
  bool changed = false;
  for (std::size_t i = 0; i < program.nodes.size();) {
    const Node& node = program.nodes[i];
    const bool candidate = (node.op.op == tosa::Op::Reshape || node.op.op == tosa::Op::Identity) && node.epilogue.empty() &&
                           !node.op.inputs.empty() && node.op.outputs.size() == 1 && !program.isOutput(node.op.outputs[0]);
    if (!candidate) {
      ++i;
      continue;
    }
    const tosa::Tensor* in = program.find(node.op.inputs[0]);
    const tosa::Tensor* out = program.find(node.op.outputs[0]);
    if (in == nullptr || out == nullptr || in->dtype != out->dtype ||
        tosa::elementCount(in->shape) != tosa::elementCount(out->shape)) {
      ++i;
      continue;
    }
    const std::string from = node.op.outputs[0];
    const std::string to = node.op.inputs[0];
    program.aliases[from] = program.bufferOf(to);
    program.nodes.erase(program.nodes.begin() + static_cast<std::ptrdiff_t>(i));
    changed = true;
  }
  return changed;
}

}  // namespace openvgf::converter::passes
