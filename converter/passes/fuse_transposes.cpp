// SPDX-License-Identifier: Apache-2.0
// fuse-transposes: a TRANSPOSE whose input only a GEMM-like kernel writes (MATMUL, the
// convolutions, pools: the families that store through include/epilogue.glsl) joins that
// kernel's epilogue, which then stores every result at its transposed position. The
// transposed tensor is never written and read back. BERT's attention heads are the case:
// the Q/K/V projections are stored head-major, and the attention output token-major.
//
//   before: q = MATMUL(x, w) |> ADD(., b); h = RESHAPE(q); t = TRANSPOSE(h, [0,2,1,3])
//   after:  t = MATMUL(x, w) |> ADD(., b) |> TRANSPOSE(h)      with aliases {h -> q}
#include <algorithm>

#include "converter/kernels/common.h"
#include "converter/kernels/registry.h"
#include "converter/passes/passes.h"

namespace openvgf::converter::passes {
namespace {

// Reads of `name` and of the aliases that share its buffer, model outputs counted as reads.
std::size_t readsOfBuffer(const Program& program, const std::string& name) {
  std::size_t n = program.useCount(name) + (program.isOutput(name) ? 1 : 0);
  for (const auto& [view, base] : program.aliases) {
    if (base == name) n += program.useCount(view) + (program.isOutput(view) ? 1 : 0);
  }
  return n;
}

// The node before `position` that writes `name` as its final result, if any.
Node* finalWriter(Program& program, std::size_t position, const std::string& name) {
  for (std::size_t k = position; k-- > 0;) {
    if (program.nodes[k].output() == name) return &program.nodes[k];
  }
  return nullptr;
}

}  // namespace

Result<bool> fuseTransposes(Program& program) {
  bool changed = false;
  for (std::size_t i = 0; i < program.nodes.size();) {
    const Node& transpose = program.nodes[i];
    if (transpose.op.op != tosa::Op::Transpose || !transpose.epilogue.empty() || transpose.op.inputs.empty() ||
        transpose.op.outputs.size() != 1) {
      ++i;
      continue;
    }
    const std::string& source = program.bufferOf(transpose.op.inputs[0]);
    Node* producer = finalWriter(program, i, source);
    const KernelSpec* spec = producer == nullptr ? nullptr : findKernel(producer->op.op);
    const tosa::Tensor* in = program.find(transpose.op.inputs[0]);
    const tosa::Tensor* out = program.find(transpose.op.outputs[0]);
    const bool fusable = spec != nullptr && spec->acceptsEpilogue == &epilogueFusable &&
                         (producer->epilogue.empty() || producer->epilogue.back().op.op != tosa::Op::Transpose) &&
                         readsOfBuffer(program, source) == 1 && in != nullptr && out != nullptr &&
                         in->dtype == out->dtype;
    if (!fusable) {
      ++i;
      continue;
    }
    producer->epilogue.push_back(FusedOp{transpose.op, transpose.index, 0});
    program.nodes.erase(program.nodes.begin() + static_cast<std::ptrdiff_t>(i));
    changed = true;
  }
  return changed;
}

}  // namespace openvgf::converter::passes
