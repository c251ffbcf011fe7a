// SPDX-License-Identifier: Apache-2.0
// CONV2D family (shaders/conv2d.comp): tiled implicit GEMM with the weights pre-transposed
// to [KH*KW*IC][OC] at conversion time when they are constant, bias and fused epilogue.
#include <cstring>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/epilogue.h"
#include "converter/kernels/gemm_common.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

using tosa::DType;

Status check(const LoweringContext& ctx, const Node& node) {
  OPENVGF_TRY(checkConvLike<tosa::ConvAttrs>(ctx, node, "ConvAttribute"));
  return checkConvAttrs(ctx, node, 2);
}

Status lower(LoweringContext& ctx, const Node& node) {
  const auto& attrs = std::get<tosa::ConvAttrs>(node.op.attrs);
  OPENVGF_ASSIGN_OR_RETURN(const ConvOperands operands, convOperands(ctx, node, 4));
  const auto& [input, weight, bias, output] = operands;
  const std::int64_t batch = input.shape[0], ih = input.shape[1], iw = input.shape[2], ic = input.shape[3];
  const std::int64_t oc = weight.shape[0], kh = weight.shape[1], kw = weight.shape[2];
  const std::int64_t oh = output.shape[1], ow = output.shape[2];
  if (weight.shape[3] != ic || output.shape[3] != oc || output.shape[0] != batch) {
    return invalidInput("{}: weight {}: expected [OC,KH,KW,{}] matching output {}", nodeLabel(node),
                        tosa::shapeToString(weight.shape), ic, tosa::shapeToString(output.shape));
  }
  auto types = *gemmTypes(input.dtype, weight.dtype, output.dtype);
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t inZp, zeroPoint(ctx, node, 3));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t wZp, zeroPoint(ctx, node, 4));

  ShaderDefines d;
  d.set("BATCH", batch).set("IH", ih).set("IW", iw).set("IC", ic).set("OH", oh).set("OW", ow).set("OC", oc);
  d.set("KH", kh).set("KW", kw).set("STRIDE_Y", attrs.stride[0]).set("STRIDE_X", attrs.stride[1]);
  d.set("DIL_Y", attrs.dilation[0]).set("DIL_X", attrs.dilation[1]).set("PAD_T", attrs.pad[0]).set("PAD_L", attrs.pad[2]);
  // A crop of a larger tensor (fold-crops) is read in place, with the larger tensor's pitch.
  if (ctx.program().crops.count(node.op.inputs[0]) != 0) {
    const tosa::Shape& stored = ctx.tensor(ctx.program().bufferOf(node.op.inputs[0])).shape;
    d.set("IN_PH", stored[1]).set("IN_PW", stored[2]);
  }
  d.set("IN_ZP", inZp).set("W_ZP", wZp).set("BIAS_BCAST", tosa::elementCount(bias.shape) == 1 ? 1 : 0);
  // --precision fp16 may store the input as fp16 (narrowStorage).
  const DType inStored = ctx.storedType(node.op.inputs[0]);
  setBufferType(d, "IN", inStored);
  setBufferType(d, "BIAS", bias.dtype);
  d.setCode("A_CT", types.operand).setCode("ACC_CT", types.accumulator);
  const DType accType = attrs.accType == DType::Unknown ? output.dtype : attrs.accType;
  // Constant weights are stored as [K][OC] (bindWeightsKN), so rows of B are contiguous.
  const bool weightsKN = ctx.program().isConstant(ctx.program().bufferOf(node.op.inputs[1]));
  const Target& target = ctx.target();
  const std::int64_t m = batch * oh * ow;
  GemmShape shape{.kind = GemmKind::Convolution, .in = input.dtype, .weight = weight.dtype, .out = output.dtype,
                  .acc = accType, .zeroPointA = inZp, .zeroPointB = wZp, .m = m, .n = oc, .k = kh * kw * ic,
                  .fastCores = true};
  shape.residualEpilogue = epilogueStartsWithResidualAdd(ctx.program(), node);
  shape.runA = ic;
  // Filter rows are contiguous in the input along x at dilation 1, and constant weights can
  // be stored with zero rows between runs (GEMM_ROW_A, Tuning::coopMatRowRunsMaxPadding).
  if (weightsKN && attrs.dilation[1] == 1) shape.rowRun = kw * ic;
  GemmConfig gemm = chooseGemm(target, shape);
  std::optional<CoopMatPlan>& coopMat = gemm.coopMat;
  const KRuns& runs = gemm.runs;
  const std::int64_t depth = gemm.depth;
  if (coopMat) {
    coopMat->narrowA = coopMat->fp32Operands && inStored == DType::Fp16;
    chooseResidualAccumulators(ctx, node, *coopMat);
  }
  const GemmTile& tile = gemm.tile;
  // --precision: constant fp32 weights the core reads in chunks are stored rounded to the
  // operand type, so it loads them as they are (half the bytes, no conversion).
  const DType storedWeights = coopMat ? narrowedWeights(*coopMat, weightsKN, oc) : DType::Unknown;
  setBufferType(d, "W", storedWeights != DType::Unknown ? storedWeights : weight.dtype);
  if (coopMat) {
    setCoopMat(d, *coopMat);
    d.set("GEMM_VEC_A", ic % coopMat->chunk() == 0 ? 1 : 0);
    if (ic % coopMat->chunk() != 0) d.set("GEMM_RUN_A", 1);
    if (runs.run > 0) d.set("GEMM_ROW_A", runs.padded);
    // fp32 weights left unrounded are read in 16-byte chunks only when A is fp32 too (the
    // views are of one type); beside an fp16-stored A they are packed element by element.
    const bool bInFragmentType = storedWeights != DType::Unknown || !coopMat->narrowA;
    d.set("GEMM_VEC_B", weightsKN && oc % coopMat->chunk() == 0 && bInFragmentType ? 1 : 0);
    if (storedWeights != DType::Unknown) d.set("CM_NARROW_B", 1);
  } else {
    setTile(d, tile);
    setVec4Loads(d, tile, inStored, ic % 4 == 0, weightsKN && oc % 4 == 0);
    if (gemm.dot4) d.set("GEMM_DOT4", 1);
  }

  PlanKernel kernel;
  kernel.name = fmt::format("CONV2D_{}", node.index);
  kernel.bindings.push_back(ctx.tensorId(node.op.inputs[0]));
  kernel.writes.push_back(false);
  bindWeightsKN(ctx, node, 1, d, kernel, storedWeights, runs);
  kernel.bindings.push_back(ctx.tensorId(node.op.inputs[2]));
  kernel.writes.push_back(false);
  OPENVGF_TRY(buildEpilogue(ctx, node, types.accumulator, d, kernel));
  kernel.grid = {ceilDiv(static_cast<std::uint64_t>(oc), static_cast<std::uint64_t>(tile.bn)),
                 ceilDiv(static_cast<std::uint64_t>(batch * oh * ow), static_cast<std::uint64_t>(tile.bm)), 1};
  const SplitK& split = gemm.split;
  if (coopMat && partialFragmentStores(*coopMat, split, oc)) d.set("CM_PARTIAL_STORE", 1);
  if (coopMat && directFragmentStores(ctx, node, *coopMat, split, oc, depth)) {
    d.set("CM_DIRECT_STORE", 1).set("CM_OUT_F16", ctx.storedType(node.output()) == DType::Fp16 ? 1 : 0);
  }
  addGemmKernel(ctx, std::move(kernel), "conv2d.comp", std::move(d), types, split,
                coopMat ? coopMat->workgroupSize() : workgroupSize(tile), 1, m, oc);
  return {};
}

}  // namespace

KernelSpec conv2dKernel() {
  return KernelSpec{"conv2d", {tosa::Op::Conv2d}, check, lower, epilogueFusable, KernelSpec::Storage::FirstInput};
}

}  // namespace openvgf::converter
