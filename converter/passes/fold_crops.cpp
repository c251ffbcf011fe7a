// SPDX-License-Identifier: Apache-2.0
// fold-crops: a SLICE that only drops trailing rows and columns of an NHWC tensor, read only
// as the input of CONV2Ds, is not copied: the convolutions read the uncropped buffer with its
// own row pitch and their bounds at the cropped size. TOSA asks a strided convolution's
// input to fit its stride exactly, so exporters crop the row and column such a convolution
// would never read (ResNet-50's stride-2 1x1 projections: three copies of 21-87 µs each at
// batch 32 on an H100).
//
//   before: c = SLICE(x, start [0,0,0,0], size [n,h-1,w-1,ch]); y = CONV2D(c, w, b)
//   after:  y = CONV2D(c, w, b)   with aliases {c -> x} and crops {c}
#include <algorithm>

#include "converter/kernels/common.h"
#include "converter/passes/passes.h"

namespace openvgf::converter::passes {
namespace {

// Whether every read of `name` is a CONV2D's input 0 (no epilogue, alias or model output).
bool onlyConvolutionsRead(const Program& program, const std::string& name) {
  if (program.isOutput(name)) return false;
  for (const auto& [view, base] : program.aliases) {
    if (base == name) return false;
  }
  std::size_t reads = 0;
  for (const Node& node : program.nodes) {
    for (std::size_t i = 0; i < node.op.inputs.size(); ++i) {
      if (node.op.inputs[i] != name) continue;
      if (node.op.op != tosa::Op::Conv2d || i != 0) return false;
      ++reads;
    }
    for (const FusedOp& f : node.epilogue) {
      if (std::find(f.op.inputs.begin(), f.op.inputs.end(), name) != f.op.inputs.end()) return false;
    }
  }
  return reads > 0;
}

// Whether `slice` keeps the batch and channels of its rank-4 input and starts at its origin.
bool isTrailingCrop(const Program& program, const Node& slice) {
  if (slice.op.op != tosa::Op::Slice || !slice.epilogue.empty() || slice.op.inputs.size() < 2 ||
      slice.op.outputs.size() != 1) {
    return false;
  }
  const tosa::Tensor* in = program.find(slice.op.inputs[0]);
  const tosa::Tensor* out = program.find(slice.op.outputs[0]);
  const tosa::Tensor* base = program.find(program.bufferOf(slice.op.inputs[0]));
  const std::string& startName = program.bufferOf(slice.op.inputs[1]);
  if (in == nullptr || out == nullptr || base == nullptr || in->shape.size() != 4 || out->shape.size() != 4 ||
      in->dtype != out->dtype || !program.isConstant(startName) ||
      program.isConstant(program.bufferOf(slice.op.inputs[0]))) {
    return false;
  }
  // The convolution takes its pitch from the buffer's tensor: a reshaped view of it has
  // another row pitch.
  if (base->shape != in->shape) return false;
  const tosa::HostTensor start = tosa::constantValue(*program.find(startName));
  if (start.size() != 4) return false;
  for (std::size_t d = 0; d < 4; ++d) {
    if (constInt(start, d) != 0) return false;
  }
  return out->shape[0] == in->shape[0] && out->shape[3] == in->shape[3] && out->shape[1] <= in->shape[1] &&
         out->shape[2] <= in->shape[2];
}

}  // namespace

Result<bool> foldCrops(Program& program) {
  bool changed = false;
  for (std::size_t i = 0; i < program.nodes.size();) {
    const Node& slice = program.nodes[i];
    if (!isTrailingCrop(program, slice) || !onlyConvolutionsRead(program, slice.op.outputs[0])) {
      ++i;
      continue;
    }
    const std::string view = slice.op.outputs[0];
    program.aliases[view] = program.bufferOf(slice.op.inputs[0]);
    program.crops.insert(view);
    program.nodes.erase(program.nodes.begin() + static_cast<std::ptrdiff_t>(i));
    changed = true;
  }
  return changed;
}

}  // namespace openvgf::converter::passes
