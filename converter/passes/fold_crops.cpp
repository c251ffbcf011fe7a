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
#include "converter/kernels/common.h"
#include "converter/passes/passes.h"

namespace openvgf::converter::passes {
namespace {

// Whether `slice` is a SLICE from the origin of a rank-4 tensor that has a buffer of its own
// (not a RESHAPEd view: the convolution takes its pitch from the buffer's tensor), and its
// output can be a crop of that buffer (checkCrop) that some node reads.
bool foldable(const Program& program, const Node& slice) {
  if (slice.op.op != tosa::Op::Slice || !slice.epilogue.empty() || slice.op.inputs.size() < 2 ||
      slice.op.outputs.size() != 1) {
    return false;
  }
  const std::string& view = slice.op.outputs[0];
  const std::string& base = program.bufferOf(slice.op.inputs[0]);
  const tosa::Tensor* in = program.find(slice.op.inputs[0]);
  const tosa::Tensor* baseTensor = program.find(base);
  const std::string& startName = program.bufferOf(slice.op.inputs[1]);
  if (in == nullptr || baseTensor == nullptr || baseTensor->shape != in->shape || program.isConstant(base) ||
      !program.isConstant(startName) || program.useCount(view) == 0 || !checkCrop(program, view, base)) {
    return false;
  }
  for (const auto& [alias, aliased] : program.aliases) {
    if (aliased == view) return false;  // read contiguously through a RESHAPE
  }
  const tosa::HostTensor start = tosa::constantValue(*program.find(startName));
  if (start.size() != 4) return false;
  for (std::size_t d = 0; d < 4; ++d) {
    if (constInt(start, d) != 0) return false;
  }
  return true;
}

}  // namespace

Result<bool> foldCrops(Program& program) {
  bool changed = false;
  for (std::size_t i = 0; i < program.nodes.size();) {
    const Node& slice = program.nodes[i];
    if (!foldable(program, slice)) {
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
