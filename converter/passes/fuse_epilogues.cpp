// SPDX-License-Identifier: Apache-2.0
// fuse-epilogues: the elementwise consumers of a heavy kernel (CONV2D, CONV3D,
// TRANSPOSE_CONV2D, DEPTHWISE_CONV2D, MATMUL, AVG_POOL2D, MAX_POOL2D) run in that kernel's epilogue, before the store, so
// the accumulator never goes through memory in its wide type.
//
//   before: acc = CONV2D(x, w, b); q = RESCALE(acc, ...); y = CLAMP(q)
//   after:  y = CONV2D(x, w, b) |> RESCALE |> CLAMP
#include "converter/passes/fusion.h"
#include "converter/passes/passes.h"

namespace openvgf::converter::passes {
namespace {

bool isHeavy(const Node& node) {
  switch (node.op.op) {
    case tosa::Op::Conv2d:
    case tosa::Op::Conv3d:
    case tosa::Op::TransposeConv2d:
    case tosa::Op::DepthwiseConv2d:
    case tosa::Op::MatMul:
    case tosa::Op::AvgPool2d:
    case tosa::Op::MaxPool2d: return true;
    default: return false;
  }
}

}  // namespace

Result<bool> fuseEpilogues(Program& program) { return fuseConsumers(program, isHeavy); }

}  // namespace openvgf::converter::passes
