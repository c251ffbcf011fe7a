// SPDX-License-Identifier: Apache-2.0
// CONV2D family (shaders/conv2d.comp): tiled implicit GEMM with the weights pre-transposed
// to [KH*KW*IC][OC] at conversion time when they are constant, bias and fused epilogue.
#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/epilogue.h"
#include "converter/kernels/gemm_common.h"
#include "converter/kernels/int_division.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

using tosa::DType;

Status check(const LoweringContext& ctx, const Node& node) {
  OPENVGF_TRY(checkConvLike<tosa::ConvAttrs>(ctx, node, "ConvAttribute"));
  return checkConvAttrs(ctx, node, 2);
}

// The shape of a convolution as conv2d.comp takes it: BATCH IH IW IC OH OW OC KH KW STRIDE_Y
// STRIDE_X DIL_Y DIL_X PAD_T PAD_L IN_ZP W_ZP IN_PH IN_PW (the stored input's rows and
// columns: more than IH x IW for a crop of a larger tensor read in place, fold-crops).
struct ConvShape {
  std::int64_t batch, ih, iw, ic, oh, ow, oc, kh, kw, strideY, strideX, dilY, dilX, padT, padL, inZp, wZp, inPh,
      inPw;
  bool cropped;
};

// As defines; or with run-time shapes (GEMM_RUNTIME_SHAPE) as the first entries of the
// parameter buffer, in conv2d.comp's order, followed by ovgf_udiv's pairs for OW, OH, IC and
// KW, with only whether A is the input itself (CONV_1X1: a 1x1 filter at stride 1 without
// padding or crop) left as a define.
std::vector<std::int32_t> setShape(ShaderDefines& d, const ConvShape& s, const tosa::ConvAttrs& attrs, bool runtime) {
  if (!runtime) {
    d.set("BATCH", s.batch).set("IH", s.ih).set("IW", s.iw).set("IC", s.ic).set("OH", s.oh).set("OW", s.ow);
    d.set("OC", s.oc).set("KH", s.kh).set("KW", s.kw).set("STRIDE_Y", s.strideY).set("STRIDE_X", s.strideX);
    d.set("DIL_Y", s.dilY).set("DIL_X", s.dilX).set("PAD_T", s.padT).set("PAD_L", s.padL);
    if (s.cropped) d.set("IN_PH", s.inPh).set("IN_PW", s.inPw);
    d.set("IN_ZP", s.inZp).set("W_ZP", s.wZp);
    return {};
  }
  std::vector<std::int32_t> params;
  for (std::int64_t v : {s.batch, s.ih, s.iw, s.ic, s.oh, s.ow, s.oc, s.kh, s.kw, s.strideY, s.strideX, s.dilY,
                         s.dilX, s.padT, s.padL, s.inZp, s.wZp, s.inPh, s.inPw}) {
    params.push_back(static_cast<std::int32_t>(v));
  }
  for (std::int64_t divisor : {s.ow, s.oh, s.ic, s.kw}) {
    const DivMagic magic = divMagic(static_cast<std::uint32_t>(divisor));
    params.push_back(static_cast<std::int32_t>(magic.multiplier));
    params.push_back(static_cast<std::int32_t>(magic.shift));
  }
  d.set("GEMM_RUNTIME_SHAPE", 1);
  const bool unpadded = attrs.pad[0] == 0 && attrs.pad[1] == 0 && attrs.pad[2] == 0 && attrs.pad[3] == 0;
  if (s.kh == 1 && s.kw == 1 && s.strideY == 1 && s.strideX == 1 && unpadded && !s.cropped) d.set("CONV_1X1", 1);
  return params;
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
  const DType accType = attrs.accType == DType::Unknown ? output.dtype : attrs.accType;
  // Constant weights are stored as [K][OC] (bindWeightsKN), so rows of B are contiguous.
  const bool weightsKN = ctx.program().isConstant(ctx.program().bufferOf(node.op.inputs[1]));
  const Target& target = ctx.target();
  const std::int64_t m = batch * oh * ow;
  GemmShape shape{.kind = GemmKind::Convolution, .in = input.dtype, .weight = weight.dtype, .out = output.dtype,
                  .acc = accType, .zeroPointA = inZp, .zeroPointB = wZp, .m = m, .n = oc, .k = kh * kw * ic,
                  .fastCores = true, .runtimeShapes = true};
  shape.residualEpilogue = epilogueStartsWithResidualAdd(ctx.program(), node);
  shape.runA = ic;
  // Filter rows are contiguous in the input along x at dilation 1, and constant weights can
  // be stored with zero rows between runs (GEMM_ROW_A, Tuning::coopMatRowRunsMaxPadding).
  if (weightsKN && attrs.dilation[1] == 1) shape.rowRun = kw * ic;
  GemmConfig gemm = chooseGemm(target, shape);

  // A crop of a larger tensor (fold-crops) is read in place, with the larger tensor's pitch.
  const bool cropped = ctx.program().crops.count(node.op.inputs[0]) != 0;
  const tosa::Shape& stored = ctx.tensor(ctx.program().bufferOf(node.op.inputs[0])).shape;
  ShaderDefines d;
  std::vector<std::int32_t> params =
      setShape(d,
               ConvShape{batch, ih, iw, ic, oh, ow, oc, kh, kw, attrs.stride[0], attrs.stride[1], attrs.dilation[0],
                         attrs.dilation[1], attrs.pad[0], attrs.pad[2], inZp, wZp, cropped ? stored[1] : ih,
                         cropped ? stored[2] : iw, cropped},
               attrs, gemm.runtimeShapes);
  d.set("BIAS_BCAST", tosa::elementCount(bias.shape) == 1 ? 1 : 0);
  // --precision fp16 may store the input as fp16 (narrowStorage).
  const DType inStored = ctx.storedType(node.op.inputs[0]);
  setBufferType(d, "IN", inStored);
  setBufferType(d, "BIAS", bias.dtype);
  d.setCode("A_CT", types.operand).setCode("ACC_CT", types.accumulator);
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
    // 8 channels of one tap are 8 consecutive k, which conv2d.comp reads as words with run-time
    // shapes (through its 1x1 or gathered-row loads); int8 words hold raw values (int4 weights
    // are stored a value per byte too).
    const DType wStored = weight.dtype == DType::Int4 ? DType::Int8 : weight.dtype;
    if (!gemm.dot4 && wStored == inStored) {
      setWordLoads(d, target, tile, inStored, ic % 8 == 0 && gemm.runtimeShapes, weightsKN && oc % tile.tn == 0, true);
    }
    if (gemm.dot4) d.set("GEMM_DOT4", 1);
  }

  PlanKernel kernel;
  kernel.name = fmt::format("CONV2D_{}", node.index);
  kernel.bindings.push_back(ctx.tensorId(node.op.inputs[0]));
  kernel.writes.push_back(false);
  bindWeightsKN(ctx, node, 1, d, kernel, storedWeights, runs);
  kernel.bindings.push_back(ctx.tensorId(node.op.inputs[2]));
  kernel.writes.push_back(false);
  OPENVGF_TRY(buildEpilogue(ctx, node, types.accumulator, d, kernel, std::move(params)));
  kernel.grid = {ceilDiv(static_cast<std::uint64_t>(oc), static_cast<std::uint64_t>(tile.bn)),
                 ceilDiv(static_cast<std::uint64_t>(batch * oh * ow), static_cast<std::uint64_t>(tile.bm)), 1};
  // Rows m = (b * OH + oy) * OW + ox run along y in groups of BM (conv2d.comp), so the groups
  // of image b read only its input and write only its output (and residual) rows; with
  // constant weights and bias and no fused transpose moving rows, the runner may dispatch
  // them a piece of the batch at a time (runner/piece_plan.h).
  const Program& program = ctx.program();
  if (!endsWithTranspose(node) && program.isConstant(program.bufferOf(node.op.inputs[1])) &&
      program.isConstant(program.bufferOf(node.op.inputs[2]))) {
    kernel.batchGrid = batchGridOf(ctx, kernel, 1, batch, oh * ow, tile.bm, kernel.bindings[0],
                                   ctx.tensorId(node.output()));
  }
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
