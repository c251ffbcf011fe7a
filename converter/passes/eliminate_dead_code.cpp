// SPDX-License-Identifier: Apache-2.0
// eliminate-dead-code: nodes none of whose outputs is read (directly or through an
// elided reshape) and none of which is a model output are removed, last first, so whole
// dead chains go in one run.
//
//   before: a = ADD(x, y); b = EXP(a); out = MUL(x, y)     outputs: [out]
//   after:  out = MUL(x, y)
#include "converter/passes/passes.h"

namespace openvgf::converter::passes {

Result<bool> eliminateDeadCode(Program& program) {
  bool changed = false;
  for (std::size_t i = program.nodes.size(); i-- > 0;) {
    const Node& node = program.nodes[i];
    bool used = false;
    for (const auto& out : node.op.outputs) used = used || program.isUsed(out);
    for (const auto& f : node.epilogue) {
      for (const auto& out : f.op.outputs) used = used || program.isUsed(out);
    }
    if (!used) {
      program.nodes.erase(program.nodes.begin() + static_cast<std::ptrdiff_t>(i));
      changed = true;
    }
  }
  return changed;
}

}  // namespace openvgf::converter::passes
