// SPDX-License-Identifier: Apache-2.0
// TRANSPOSE_CONV2D family (shaders/transpose_conv2d.comp): gather-style tiled implicit
// GEMM, one per stride phase of the output (only the taps that land on that phase), the
// weights pre-transposed to [KH*KW*IC][OC] at conversion time when they are constant, bias
// and fused epilogue.
#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/gemm_common.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

Status check(const LoweringContext& ctx, const Node& node) {
  OPENVGF_TRY(checkConvLike<tosa::TransposeConv2dAttrs>(ctx, node, "TransposeConv2dAttribute"));
  const auto& attrs = std::get<tosa::TransposeConv2dAttrs>(node.op.attrs);
  if (attrs.outPad.size() != 4 || attrs.stride.size() != 2 || attrs.stride[0] < 1 || attrs.stride[1] < 1) {
    return invalidInput("{}: expected out_pad[4] and stride[2] >= 1", describeOp(ctx.program(), node.op, node.index));
  }
  return {};
}

Status lower(LoweringContext& ctx, const Node& node) {
  const auto& attrs = std::get<tosa::TransposeConv2dAttrs>(node.op.attrs);
  OPENVGF_ASSIGN_OR_RETURN(const ConvOperands operands, convOperands(ctx, node, 4));
  const auto& [input, weight, bias, output] = operands;
  const std::int64_t batch = input.shape[0], ih = input.shape[1], iw = input.shape[2], ic = input.shape[3];
  const std::int64_t oc = weight.shape[0], kh = weight.shape[1], kw = weight.shape[2];
  const std::int64_t oh = output.shape[1], ow = output.shape[2];
  const std::int64_t sy = attrs.stride[0], sx = attrs.stride[1];
  if (weight.shape[3] != ic || output.shape[3] != oc || output.shape[0] != batch ||
      oh != (ih - 1) * sy + attrs.outPad[0] + attrs.outPad[1] + kh ||
      ow != (iw - 1) * sx + attrs.outPad[2] + attrs.outPad[3] + kw) {
    return invalidInput(
        "{}: weight {} and output {}: expected [OC,KH,KW,{}] and the size given by stride and out_pad",
        nodeLabel(node), tosa::shapeToString(weight.shape), tosa::shapeToString(output.shape), ic);
  }
  auto types = *gemmTypes(input.dtype, weight.dtype, output.dtype);
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t inZp, zeroPoint(ctx, node, 3));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t wZp, zeroPoint(ctx, node, 4));

  ShaderDefines d;
  d.set("BATCH", batch).set("IH", ih).set("IW", iw).set("IC", ic).set("OH", oh).set("OW", ow).set("OC", oc);
  d.set("KH", kh).set("KW", kw).set("STRIDE_Y", sy).set("STRIDE_X", sx);
  d.set("OUT_PAD_T", attrs.outPad[0]).set("OUT_PAD_L", attrs.outPad[2]);
  // Reduced here so that the shader never takes % of a negative number (transpose_conv2d.comp).
  const auto nonNegativeMod = [](std::int64_t a, std::int64_t b) { return ((a % b) + b) % b; };
  d.set("PHASE_OFFSET_Y", nonNegativeMod(attrs.outPad[0], sy)).set("PHASE_OFFSET_X", nonNegativeMod(attrs.outPad[2], sx));
  d.set("IN_ZP", inZp).set("W_ZP", wZp).set("BIAS_BCAST", tosa::elementCount(bias.shape) == 1 ? 1 : 0);
  setBufferType(d, "IN", input.dtype);
  setBufferType(d, "W", weight.dtype);
  setBufferType(d, "BIAS", bias.dtype);
  d.setCode("A_CT", types.operand).setCode("ACC_CT", types.accumulator);
  // One GEMM per stride phase (grid z), each over ceil(OH/sy) x ceil(OW/sx) outputs: no split-K.
  const GemmTile tile = chooseGemm(ctx.target(), {.kind = GemmKind::Convolution, .in = input.dtype,
                                                  .weight = weight.dtype, .out = output.dtype,
                                                  .m = batch * ((oh + sy - 1) / sy) * ((ow + sx - 1) / sx), .n = oc,
                                                  .k = kh * kw * ic, .splitK = false})
                            .tile;
  setTile(d, tile);

  PlanKernel kernel;
  kernel.name = fmt::format("TRANSPOSE_CONV2D_{}", node.index);
  kernel.bindings.push_back(ctx.tensorId(node.op.inputs[0]));
  kernel.writes.push_back(false);
  bindWeightsKN(ctx, node, 1, d, kernel);
  kernel.bindings.push_back(ctx.tensorId(node.op.inputs[2]));
  kernel.writes.push_back(false);
  OPENVGF_TRY(buildEpilogue(ctx, node, types.accumulator, d, kernel));
  // One GEMM per stride phase (gl_WorkGroupID.z), each over ceil(OH/sy) x ceil(OW/sx) outputs.
  const std::int64_t phaseOutputs = batch * ((oh + sy - 1) / sy) * ((ow + sx - 1) / sx);
  kernel.grid = {ceilDiv(static_cast<std::uint64_t>(oc), static_cast<std::uint64_t>(tile.bn)),
                 ceilDiv(static_cast<std::uint64_t>(phaseOutputs), static_cast<std::uint64_t>(tile.bm)),
                 static_cast<std::uint32_t>(sy * sx)};
  kernel.shader = ShaderInstance{"transpose_conv2d.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
  return {};
}

}  // namespace

KernelSpec transposeConv2dKernel() {
  return KernelSpec{"transpose_conv2d", {tosa::Op::TransposeConv2d}, check, lower, epilogueFusable};
}

}  // namespace openvgf::converter
