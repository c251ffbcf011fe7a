// SPDX-License-Identifier: Apache-2.0
// CONV2D, DEPTHWISE_CONV2D (multiplier 1) and MATMUL with a constant B (a 1x1 convolution),
// each with its RESCALE (+CLAMP) output stage fused (specs/ethosu.md §4.6).
#include "converter/ethosu/lowering.h"

namespace openvgf::converter::ethosu {

using tosa::DType;
using tosa::Op;

namespace {

/// The traversal Vela chooses for small IFM depths; either is valid as long as
/// KERNEL_STRIDE says which.
WeightTraversal convTraversal(int ifmDepth) {
  return ifmDepth <= 8 ? WeightTraversal::PartKernelFirst : WeightTraversal::DepthFirst;
}

}  // namespace

Status Lowering::lowerConv(std::size_t index) {
  const tosa::Operator& o = op(index);
  const std::string what = label(index);
  const bool depthwise = o.op == Op::DepthwiseConv2d;
  const auto* attrs = std::get_if<tosa::ConvAttrs>(&o.attrs);
  if (!attrs || o.inputs.size() != 5 || o.outputs.size() != 1 || attrs->pad.size() != 4 || attrs->stride.size() != 2 ||
      attrs->dilation.size() != 2) {
    return invalidInput("{}: expected 5 inputs, 1 output and 2-D pad/stride/dilation", what);
  }
  const tosa::Tensor* in = tensor(o.inputs[0]);
  const tosa::Tensor* wt = tensor(o.inputs[1]);
  const tosa::Tensor* out = tensor(o.outputs[0]);
  if (!in || !wt || !out) return invalidInput("{}: undefined tensor", what);
  if (in->dtype != DType::Int8 || wt->dtype != DType::Int8 || out->dtype != DType::Int32) {
    return unsupported("{}: only INT8 x INT8 -> INT32 runs on the NPU, got {} x {} -> {}", what, tosa::toString(in->dtype),
                       tosa::toString(wt->dtype), tosa::toString(out->dtype));
  }
  NpuOp npu;
  npu.kind = depthwise ? Kind::Depthwise : Kind::Conv;
  npu.what = what;
  npu.sy = attrs->stride[0];
  npu.sx = attrs->stride[1];
  npu.dy = attrs->dilation[0];
  npu.dx = attrs->dilation[1];
  npu.padTop = attrs->pad[0];
  npu.padBottom = attrs->pad[1];
  npu.padLeft = attrs->pad[2];
  npu.padRight = attrs->pad[3];
  std::string inputName = o.inputs[0];
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t inputZp, scalarValue(o.inputs[3], what + ": input_zp"));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t weightZp, scalarValue(o.inputs[4], what + ": weight_zp"));
  if (auto p = pads_.find(inputName); p != pads_.end()) {
    if (p->second.value != inputZp) {
      return unsupported("{}: the PAD before it pads with {}, but only the input zero point {} can be folded", what,
                         p->second.value, inputZp);
    }
    npu.padTop += p->second.top;
    npu.padBottom += p->second.bottom;
    npu.padLeft += p->second.left;
    npu.padRight += p->second.right;
    inputName = p->second.input;
  }
  if (npu.sy < 1 || npu.sy > 3 || npu.sx < 1 || npu.sx > 3) return unsupported("{}: stride {}x{} (NPU: 1..3)", what, npu.sy, npu.sx);
  if (npu.dy < 1 || npu.dy > 2 || npu.dx < 1 || npu.dx > 2) {
    return unsupported("{}: dilation {}x{} (NPU: 1 or 2)", what, npu.dy, npu.dx);
  }
  if (npu.padTop > 127 || npu.padLeft > 127 || npu.padBottom > 128 || npu.padRight > 128 || npu.padTop < 0 ||
      npu.padLeft < 0 || npu.padBottom < 0 || npu.padRight < 0) {
    return unsupported("{}: padding {}/{}/{}/{} (NPU: top/left 0..127, bottom/right 0..128)", what, npu.padTop, npu.padBottom,
                       npu.padLeft, npu.padRight);
  }
  npu.ifmZp = static_cast<int>(inputZp);
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(inputName, what));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int64_t> w, intValues(o.inputs[1], what + ": weight"));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int64_t> bias, intValues(o.inputs[2], what + ": bias"));
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(o.outputs[0], what));
  const tosa::Shape& ws = wt->shape;
  if (ws.size() != 4) return invalidInput("{}: weight must have rank 4", what);
  WeightVolume& vol = npu.weights;
  if (depthwise) {
    // TOSA depthwise weights are [KH, KW, C, M]; the NPU wants O = C, I = 1.
    if (ws[3] != 1) return unsupported("{}: depth multiplier {} (only 1 runs on the NPU)", what, ws[3]);
    vol.ofmDepth = static_cast<int>(ws[2]);
    vol.kernelHeight = static_cast<int>(ws[0]);
    vol.kernelWidth = static_cast<int>(ws[1]);
    vol.ifmDepth = 1;
    vol.values.resize(w.size());
    for (int ky = 0; ky < vol.kernelHeight; ++ky)
      for (int kx = 0; kx < vol.kernelWidth; ++kx)
        for (int c = 0; c < vol.ofmDepth; ++c)
          vol.values[static_cast<std::size_t>((c * vol.kernelHeight + ky) * vol.kernelWidth + kx)] = static_cast<std::int16_t>(
              w[static_cast<std::size_t>((ky * vol.kernelWidth + kx) * vol.ofmDepth + c)] - weightZp);
    vol.traversal = WeightTraversal::Depthwise;
    if (npu.ifm.c != vol.ofmDepth) return invalidInput("{}: input channels {} != weight channels {}", what, npu.ifm.c, vol.ofmDepth);
  } else {
    vol.ofmDepth = static_cast<int>(ws[0]);
    vol.kernelHeight = static_cast<int>(ws[1]);
    vol.kernelWidth = static_cast<int>(ws[2]);
    vol.ifmDepth = static_cast<int>(ws[3]);
    vol.values.resize(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) vol.values[i] = static_cast<std::int16_t>(w[i] - weightZp);
    vol.traversal = convTraversal(vol.ifmDepth);
    if (npu.ifm.c != vol.ifmDepth) {
      return invalidInput("{}: input channels {} != weight input channels {}", what, npu.ifm.c, vol.ifmDepth);
    }
  }
  if (od.c != vol.ofmDepth) return invalidInput("{}: output channels {} != weight output channels {}", what, od.c, vol.ofmDepth);
  npu.kh = vol.kernelHeight;
  npu.kw = vol.kernelWidth;
  if (bias.size() != 1 && bias.size() != static_cast<std::size_t>(od.c)) {
    return invalidInput("{}: bias: expected 1 or {} values, got {}", what, od.c, bias.size());
  }
  npu.bias.resize(static_cast<std::size_t>(od.c));
  for (int c = 0; c < od.c; ++c) npu.bias[static_cast<std::size_t>(c)] = bias[bias.size() == 1 ? 0 : static_cast<std::size_t>(c)];
  // The hardware extent equation (specs/ethosu.md §2.2) equals TOSA's output size rule.
  const int khExt = (npu.kh - 1) * npu.dy + 1, kwExt = (npu.kw - 1) * npu.dx + 1;
  if ((od.h - 1) * npu.sy + khExt - npu.padTop - npu.padBottom != npu.ifm.h ||
      (od.w - 1) * npu.sx + kwExt - npu.padLeft - npu.padRight != npu.ifm.w) {
    return invalidInput("{}: output {}x{} does not match input {}x{}, kernel, stride and padding", what, od.h, od.w, npu.ifm.h,
                        npu.ifm.w);
  }
  std::string finalName;
  OPENVGF_TRY(fuseOutputStage(index, o.outputs[0], npu, od.c, finalName, true));
  npu.macs = static_cast<std::uint64_t>(od.h) * od.w * od.c * npu.kh * npu.kw * (depthwise ? 1 : vol.ifmDepth);
  pushOp(std::move(npu), finalName, od);
  return {};
}

Status Lowering::lowerMatMul(std::size_t index) {
  const tosa::Operator& o = op(index);
  const std::string what = label(index);
  if (o.inputs.size() != 4 || o.outputs.size() != 1) return invalidInput("{}: expected 4 inputs and 1 output", what);
  const tosa::Tensor* a = tensor(o.inputs[0]);
  const tosa::Tensor* b = tensor(o.inputs[1]);
  const tosa::Tensor* out = tensor(o.outputs[0]);
  if (!a || !b || !out) return invalidInput("{}: undefined tensor", what);
  if (!isConst(o.inputs[1])) {
    return unsupported("{}: B must be a constant (activation x activation MATMUL is not lowered)", what);
  }
  if (a->dtype != DType::Int8 || b->dtype != DType::Int8 || out->dtype != DType::Int32) {
    return unsupported("{}: only INT8 x INT8 -> INT32 runs on the NPU", what);
  }
  if (a->shape.size() != 3 || b->shape.size() != 3 || a->shape[0] != 1 || b->shape[0] != 1) {
    return unsupported("{}: only batch 1 [1,H,C] x [1,C,W] is lowered", what);
  }
  const int rows = static_cast<int>(a->shape[1]), depth = static_cast<int>(a->shape[2]), cols = static_cast<int>(b->shape[2]);
  if (b->shape[1] != depth) return invalidInput("{}: A has {} columns but B has {} rows", what, depth, b->shape[1]);
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t aZp, scalarValue(o.inputs[2], what + ": A_zp"));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t bZp, scalarValue(o.inputs[3], what + ": B_zp"));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int64_t> bv, intValues(o.inputs[1], what + ": B"));
  NpuOp npu;
  npu.kind = Kind::Conv;
  npu.what = what;
  npu.ifmZp = static_cast<int>(aZp);
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(o.inputs[0], what));
  // A 1x1 convolution over a 1 x rows x depth IFM: weights O = cols, I = depth.
  WeightVolume& vol = npu.weights;
  vol.ofmDepth = cols;
  vol.kernelHeight = vol.kernelWidth = 1;
  vol.ifmDepth = depth;
  vol.values.resize(static_cast<std::size_t>(cols) * static_cast<std::size_t>(depth));
  for (int oc = 0; oc < cols; ++oc)
    for (int i = 0; i < depth; ++i)
      vol.values[static_cast<std::size_t>(oc * depth + i)] =
          static_cast<std::int16_t>(bv[static_cast<std::size_t>(i * cols + oc)] - bZp);
  vol.traversal = convTraversal(depth);
  npu.bias.assign(static_cast<std::size_t>(cols), 0);
  std::string finalName;
  OPENVGF_TRY(fuseOutputStage(index, o.outputs[0], npu, cols, finalName, true));
  npu.macs = static_cast<std::uint64_t>(rows) * cols * depth;
  pushOp(std::move(npu), finalName, Dims3{1, rows, cols});
  return {};
}

}  // namespace openvgf::converter::ethosu
