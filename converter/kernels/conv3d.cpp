// SPDX-License-Identifier: Apache-2.0
// CONV3D family (shaders/conv3d.comp): tiled implicit GEMM over NDHWC with the weights
// pre-transposed to [KD*KH*KW*IC][OC], bias and fused epilogue.
#include <cstring>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/gemm_common.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

Status check(const LoweringContext& ctx, const Node& node) {
  OPENVGF_TRY(checkConvLike<tosa::ConvAttrs>(ctx, node, "ConvAttribute"));
  return checkConvAttrs(ctx, node, 3);
}

Status lower(LoweringContext& ctx, const Node& node) {
  const auto& attrs = std::get<tosa::ConvAttrs>(node.op.attrs);
  OPENVGF_ASSIGN_OR_RETURN(const ConvOperands operands, convOperands(ctx, node, 5));
  const auto& [input, weight, bias, output] = operands;
  const std::int64_t batch = input.shape[0], id = input.shape[1], ih = input.shape[2], iw = input.shape[3], ic = input.shape[4];
  const std::int64_t oc = weight.shape[0], kd = weight.shape[1], kh = weight.shape[2], kw = weight.shape[3];
  const std::int64_t od = output.shape[1], oh = output.shape[2], ow = output.shape[3];
  if (weight.shape[4] != ic || output.shape[4] != oc || output.shape[0] != batch) {
    return invalidInput("{}: weight {}: expected [OC,KD,KH,KW,{}] matching output {}", nodeLabel(node),
                        tosa::shapeToString(weight.shape), ic, tosa::shapeToString(output.shape));
  }
  auto types = *gemmTypes(input.dtype, weight.dtype, output.dtype);
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t inZp, zeroPoint(ctx, node, 3));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t wZp, zeroPoint(ctx, node, 4));

  ShaderDefines d;
  d.set("BATCH", batch).set("ID", id).set("IH", ih).set("IW", iw).set("IC", ic);
  d.set("OD", od).set("OH", oh).set("OW", ow).set("OC", oc).set("KD", kd).set("KH", kh).set("KW", kw);
  d.set("STRIDE_D", attrs.stride[0]).set("STRIDE_Y", attrs.stride[1]).set("STRIDE_X", attrs.stride[2]);
  d.set("DIL_D", attrs.dilation[0]).set("DIL_Y", attrs.dilation[1]).set("DIL_X", attrs.dilation[2]);
  d.set("PAD_D", attrs.pad[0]).set("PAD_T", attrs.pad[2]).set("PAD_L", attrs.pad[4]);
  d.set("IN_ZP", inZp).set("W_ZP", wZp).set("BIAS_BCAST", tosa::elementCount(bias.shape) == 1 ? 1 : 0);
  setBufferType(d, "IN", input.dtype);
  setBufferType(d, "W", weight.dtype);
  setBufferType(d, "BIAS", bias.dtype);
  d.setCode("A_CT", types.operand).setCode("ACC_CT", types.accumulator);
  const std::int64_t m = batch * od * oh * ow;
  const GemmConfig gemm = chooseGemm(ctx.target(), {.kind = GemmKind::Convolution, .in = input.dtype,
                                                    .weight = weight.dtype, .out = output.dtype,
                                                    .m = m, .n = oc, .k = kd * kh * kw * ic});
  const GemmTile& tile = gemm.tile;
  setTile(d, tile);

  PlanKernel kernel;
  kernel.name = fmt::format("CONV3D_{}", node.index);
  kernel.bindings.push_back(ctx.tensorId(node.op.inputs[0]));
  kernel.writes.push_back(false);
  bindWeightsKN(ctx, node, 1, d, kernel);
  kernel.bindings.push_back(ctx.tensorId(node.op.inputs[2]));
  kernel.writes.push_back(false);
  OPENVGF_TRY(buildEpilogue(ctx, node, types.accumulator, d, kernel));
  kernel.grid = {ceilDiv(static_cast<std::uint64_t>(oc), static_cast<std::uint64_t>(tile.bn)),
                 ceilDiv(static_cast<std::uint64_t>(batch * od * oh * ow), static_cast<std::uint64_t>(tile.bm)), 1};
  addGemmKernel(ctx, std::move(kernel), "conv3d.comp", std::move(d), types, gemm.split, workgroupSize(tile), 1, m,
                oc);
  return {};
}

}  // namespace

KernelSpec conv3dKernel() { return KernelSpec{"conv3d", {tosa::Op::Conv3d}, check, lower, epilogueFusable}; }

}  // namespace openvgf::converter
