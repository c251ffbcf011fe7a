// SPDX-License-Identifier: Apache-2.0
// DEPTHWISE_CONV2D family (shaders/depthwise_conv2d.comp): channel-parallel output tiles,
// weights read in their [KH,KW,C,M] layout (already channel-fastest), fused epilogue.
#include <initializer_list>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/gemm_common.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

// Output columns per invocation. On CPU devices (Tuning::runtimeShapes) they share the loads of
// each input row's window; 8 ran no faster on lavapipe than 4 (MobileNetV2's depthwise layers
// 35.5 against 34.7-35.3 ms) and took 1.3-1.5x as long to compile.
constexpr int kOutputsPerInvocation = 4;

Status check(const LoweringContext& ctx, const Node& node) {
  OPENVGF_TRY(checkConvLike<tosa::ConvAttrs>(ctx, node, "ConvAttribute"));
  return checkConvAttrs(ctx, node, 2);
}

Status lower(LoweringContext& ctx, const Node& node) {
  const auto& attrs = std::get<tosa::ConvAttrs>(node.op.attrs);
  const tosa::Tensor& input = ctx.tensor(node.op.inputs[0]);
  const tosa::Tensor& weight = ctx.tensor(node.op.inputs[1]);
  const tosa::Tensor& bias = ctx.tensor(node.op.inputs[2]);
  const tosa::Tensor& output = ctx.tensor(node.op.outputs[0]);
  if (input.shape.size() != 4 || weight.shape.size() != 4 || output.shape.size() != 4 || weight.shape[2] != input.shape[3] ||
      output.shape[3] != weight.shape[2] * weight.shape[3]) {
    return invalidInput("{}: expected input [N,H,W,C], weight [KH,KW,C,M], output [N,OH,OW,C*M]", nodeLabel(node));
  }
  auto types = *gemmTypes(input.dtype, weight.dtype, output.dtype);
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t inZp, zeroPoint(ctx, node, 3));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t wZp, zeroPoint(ctx, node, 4));
  const std::int64_t batch = input.shape[0], oh = output.shape[1], ow = output.shape[2];
  const std::int64_t och = output.shape[3];
  ShaderDefines d;
  std::vector<std::int32_t> params;
  const bool runtimeShapes = ctx.target().tuning.runtimeShapes;
  if (runtimeShapes) {
    // Tuning::runtimeShapes: entries 0..12 of the parameter buffer (shaders/depthwise_conv2d.comp).
    const std::initializer_list<std::int64_t> shapes = {batch, input.shape[1], input.shape[2], input.shape[3],
                                                        oh, ow, weight.shape[0], attrs.stride[0], attrs.dilation[0],
                                                        attrs.pad[0], attrs.pad[2], inZp, wZp};
    for (std::int64_t v : shapes) params.push_back(static_cast<std::int32_t>(v));
    d.set("DW_RUNTIME", 1).set("CM", weight.shape[3]).set("KW", weight.shape[1]);
    d.set("STRIDE_X", attrs.stride[1]).set("DIL_X", attrs.dilation[1]);
  } else {
    d.set("BATCH", batch).set("IH", input.shape[1]).set("IW", input.shape[2]).set("C", input.shape[3]);
    d.set("CM", weight.shape[3]).set("OH", oh).set("OW", ow).set("KH", weight.shape[0]).set("KW", weight.shape[1]);
    d.set("STRIDE_Y", attrs.stride[0]).set("STRIDE_X", attrs.stride[1]).set("DIL_Y", attrs.dilation[0]);
    d.set("DIL_X", attrs.dilation[1]).set("PAD_T", attrs.pad[0]).set("PAD_L", attrs.pad[2]);
    d.set("IN_ZP", inZp).set("W_ZP", wZp);
  }
  d.set("BIAS_BCAST", tosa::elementCount(bias.shape) == 1 ? 1 : 0);
  setBufferType(d, "IN", ctx.storedType(node.op.inputs[0]));
  setBufferType(d, "W", weight.dtype);
  setBufferType(d, "BIAS", bias.dtype);
  d.setCode("A_CT", types.operand).setCode("ACC_CT", types.accumulator);
  const int wg = och >= 64 ? 64 : 32;
  d.set("WG_X", wg).set("OXT", kOutputsPerInvocation);
  PlanKernel kernel;
  kernel.name = fmt::format("DEPTHWISE_CONV2D_{}", node.index);
  kernel.bindings = {ctx.tensorId(node.op.inputs[0]), ctx.tensorId(node.op.inputs[1]), ctx.tensorId(node.op.inputs[2])};
  kernel.writes = {false, false, false};
  OPENVGF_TRY(buildEpilogue(ctx, node, types.accumulator, d, kernel, std::move(params)));
  kernel.grid = {ceilDiv(static_cast<std::uint64_t>(och), static_cast<std::uint64_t>(wg)),
                 ceilDiv(static_cast<std::uint64_t>(ow), kOutputsPerInvocation), static_cast<std::uint32_t>(batch * oh)};
  kernel.shader = ShaderInstance{"depthwise_conv2d.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
  return {};
}

}  // namespace

KernelSpec depthwiseConv2dKernel() {
  return KernelSpec{"depthwise_conv2d", {tosa::Op::DepthwiseConv2d}, check, lower, epilogueFusable,
                    KernelSpec::Storage::FirstInput};
}

}  // namespace openvgf::converter
