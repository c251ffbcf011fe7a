// SPDX-License-Identifier: Apache-2.0
// DEPTHWISE_CONV2D family (shaders/depthwise_conv2d.comp): channel-parallel output tiles,
// weights read in their [KH,KW,C,M] layout (already channel-fastest), fused epilogue.
#include <initializer_list>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/gemm_common.h"
#include "converter/kernels/int_division.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

// Output columns per invocation. On CPU devices (Tuning::runtimeShapes) they share the loads of
// each input row's window; 8 ran no faster on lavapipe than 4 (MobileNetV2's depthwise layers
// 35.5 against 34.7-35.3 ms) and took 1.3-1.5x as long to compile.
constexpr int kOutputsPerInvocation = 4;
// ... and in the word path (DW_LANES): 8 for fp32, whose two channels a word leave registers
// to spare, cut the looped loads and stores by a quarter (MobileNetV2 2335 -> 2254 M
// instructions per inference on lavapipe, about as fast to compile); int8's eight channels
// stay at 4 (8 gave only 2982 -> 2946 M, with 64 accumulators per invocation to compile).
int outputsPerWordInvocation(int lanes) { return lanes == 2 ? 8 : kOutputsPerInvocation; }

// Workgroups along x that every Vulkan device can dispatch (maxComputeWorkGroupCount).
constexpr std::uint64_t kMaxGroupsX = 65535;

// Channels per 64-bit word (DW_LANES of shaders/depthwise_conv2d.comp) for a CPU device's
// run-time-shapes kernel, or 0 where it reads element by element: the word path takes fp32
// and int8 data with a channel multiplier of 1 and a channel count that fills whole words.
// llvmpipe pays a lane-by-lane loop per component of every load and store whose index varies
// between invocations, so whole words cost 1/2 (fp32) or 1/8 (int8) as much.
int channelsPerWord(const LoweringContext& ctx, const Node& node) {
  const tosa::Tensor& weight = ctx.tensor(node.op.inputs[1]);
  const tosa::DType bias = ctx.tensor(node.op.inputs[2]).dtype;
  const tosa::DType in = ctx.storedType(node.op.inputs[0]);
  const int lanes = in == tosa::DType::Fp32 ? 2 : in == tosa::DType::Int8 ? 8 : 0;
  const tosa::DType biasType = in == tosa::DType::Fp32 ? tosa::DType::Fp32 : tosa::DType::Int32;
  if (lanes == 0 || !ctx.target().tuning.runtimeShapes || weight.dtype != in || bias != biasType ||
      weight.shape[3] != 1 || weight.shape[2] % lanes != 0) {
    return 0;
  }
  return lanes;
}

// Bits of each stored output element in the word path (0: the output does not fit one): fp32
// after fp32 data, int8 or int32 after int8 data (the epilogue's last type).
int outputBitsForWords(int lanes, tosa::DType out) {
  if (lanes == 2) return out == tosa::DType::Fp32 ? 32 : 0;
  return out == tosa::DType::Int8 ? 8 : out == tosa::DType::Int32 ? 32 : 0;
}

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
  int lanes = channelsPerWord(ctx, node);
  if (runtimeShapes) {
    // Tuning::runtimeShapes: entries 0..12 of the parameter buffer (shaders/depthwise_conv2d.comp).
    const std::initializer_list<std::int64_t> shapes = {batch, input.shape[1], input.shape[2], input.shape[3],
                                                        oh, ow, weight.shape[0], attrs.stride[0], attrs.dilation[0],
                                                        attrs.pad[0], attrs.pad[2], inZp, wZp};
    for (std::int64_t v : shapes) params.push_back(static_cast<std::int32_t>(v));
    // Entries 13, 14: the words per pixel as an ovgf_udiv pair (the word path's flat index).
    const DivMagic words = divMagic(static_cast<std::uint32_t>(lanes != 0 ? och / lanes : 1));
    params.push_back(static_cast<std::int32_t>(words.multiplier));
    params.push_back(static_cast<std::int32_t>(words.shift));
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
  PlanKernel kernel;
  kernel.name = fmt::format("DEPTHWISE_CONV2D_{}", node.index);
  kernel.bindings = {ctx.tensorId(node.op.inputs[0]), ctx.tensorId(node.op.inputs[1]), ctx.tensorId(node.op.inputs[2])};
  kernel.writes = {false, false, false};
  std::vector<std::size_t> tableSlots;
  OPENVGF_TRY(buildEpilogue(ctx, node, types.accumulator, d, kernel, std::move(params), &tableSlots));
  // The word path stores whole words itself (no epilogue tensor input, no fused TRANSPOSE)
  // and spreads words x tiles of one output row along x.
  const int outBits = outputBitsForWords(lanes, ctx.storedType(node.output()));
  const std::uint64_t wordTiles =
      ceilDiv(static_cast<std::uint64_t>(ow), static_cast<std::uint64_t>(outputsPerWordInvocation(lanes)));
  const std::uint64_t wordGroups = lanes != 0 ? ceilDiv(static_cast<std::uint64_t>(och / lanes) * wordTiles, 64) : 0;
  if (outBits == 0 || d.entries().at("NUM_EPI") != "0" || d.has("OUT_INDEX(i)") || wordGroups > kMaxGroupsX) lanes = 0;
  const int oxt = lanes != 0 ? outputsPerWordInvocation(lanes) : kOutputsPerInvocation;
  const std::uint64_t tiles = ceilDiv(static_cast<std::uint64_t>(ow), static_cast<std::uint64_t>(oxt));
  d.set("OXT", oxt);
  const int wg = lanes != 0 || och >= 64 ? 64 : 32;
  d.set("WG_X", wg);
  if (lanes != 0) {
    d.set("DW_LANES", lanes).set("DW_OUT_BITS", outBits);
    // One per-channel RESCALE: its scales are loaded once per invocation (DW_SCALE_SLOT).
    if (tableSlots.size() == 1) d.set("DW_SCALE_SLOT", static_cast<std::int64_t>(tableSlots[0]));
    kernel.grid = {static_cast<std::uint32_t>(wordGroups), 1, static_cast<std::uint32_t>(batch * oh)};
  } else {
    kernel.grid = {ceilDiv(static_cast<std::uint64_t>(och), static_cast<std::uint64_t>(wg)),
                   static_cast<std::uint32_t>(tiles), static_cast<std::uint32_t>(batch * oh)};
  }
  // gl_WorkGroupID.z = b * OH + oy (depthwise_conv2d.comp): with constant weights and bias, the
  // groups of image b read and write only it (runner/piece_plan.h).
  const Program& program = ctx.program();
  if (!endsWithTranspose(node) && program.isConstant(program.bufferOf(node.op.inputs[1])) &&
      program.isConstant(program.bufferOf(node.op.inputs[2]))) {
    kernel.batchGrid = batchGridOf(ctx, kernel, 2, batch, oh, 1, kernel.bindings[0], ctx.tensorId(node.output()));
  }
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
