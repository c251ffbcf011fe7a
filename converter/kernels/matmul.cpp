// SPDX-License-Identifier: Apache-2.0
// MATMUL family (shaders/matmul.comp): batched tiled GEMM with fused epilogue.
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/epilogue.h"
#include "converter/kernels/gemm_common.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

Status check(const LoweringContext& ctx, const Node& node) {
  const Program& p = ctx.program();
  if (node.op.inputs.size() < 2) return invalidInput("{}: expected inputs A and B", describeOp(p, node.op, node.index));
  auto a = ctx.tensor(node.op.inputs[0]).dtype, b = ctx.tensor(node.op.inputs[1]).dtype,
       out = ctx.tensor(node.op.outputs[0]).dtype;
  if (a != b || !gemmTypes(a, b, out)) {
    return unsupported("{}: expected a supported type combination", describeOp(p, node.op, node.index));
  }
  return {};
}

Status lower(LoweringContext& ctx, const Node& node) {
  const tosa::Tensor& a = ctx.tensor(node.op.inputs[0]);
  const tosa::Tensor& b = ctx.tensor(node.op.inputs[1]);
  const tosa::Tensor& out = ctx.tensor(node.op.outputs[0]);
  if (a.shape.size() != 3 || b.shape.size() != 3 || a.shape[0] != b.shape[0] || a.shape[2] != b.shape[1]) {
    return invalidInput("{}: expected A [N,H,C] and B [N,C,W], got {} and {}", nodeLabel(node), tosa::shapeToString(a.shape),
                        tosa::shapeToString(b.shape));
  }
  const std::int64_t batch = a.shape[0], h = a.shape[1], c = a.shape[2], w = b.shape[2];
  auto types = *gemmTypes(a.dtype, b.dtype, out.dtype);
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t aZp, zeroPoint(ctx, node, 2));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t bZp, zeroPoint(ctx, node, 3));
  // MATMUL accumulates in its output type (specs/tosa.md).
  GemmShape shape{.kind = GemmKind::Matmul, .in = a.dtype, .weight = b.dtype, .out = out.dtype, .acc = out.dtype,
                  .zeroPointA = aZp, .zeroPointB = bZp, .batches = batch, .m = h, .n = w, .k = c,
                  .fastCores = true, .runtimeShapes = true};
  // Workgroup-scope matrices read A and B in place: whole tiles, 16-byte rows, no zero points.
  shape.plainOperands = aZp == 0 && bZp == 0 && c % 8 == 0 && w % 8 == 0;
  shape.residualEpilogue = epilogueStartsWithResidualAdd(ctx.program(), node);
  GemmConfig gemm = chooseGemm(ctx.target(), shape);
  ShaderDefines d;
  // The shape as defines, or at run time as the parameter buffer's first entries in
  // matmul.comp's order (GEMM_RUNTIME_SHAPE).
  std::vector<std::int32_t> params;
  if (gemm.runtimeShapes) {
    for (std::int64_t v : {batch, h, c, w, aZp, bZp}) params.push_back(static_cast<std::int32_t>(v));
    d.set("GEMM_RUNTIME_SHAPE", 1);
  } else {
    d.set("BATCH", batch).set("H", h).set("C", c).set("W", w).set("A_ZP", aZp).set("B_ZP", bZp);
  }
  setBufferType(d, "A", a.dtype);
  setBufferType(d, "B", b.dtype);
  d.setCode("A_CT", types.operand).setCode("ACC_CT", types.accumulator);
  std::optional<CoopMatPlan>& coopMat = gemm.coopMat;
  if (coopMat && !coopMat->workgroupScope) chooseResidualAccumulators(ctx, node, *coopMat);
  const GemmTile& tile = gemm.tile;
  if (coopMat) {
    setCoopMat(d, *coopMat);
    d.set("GEMM_VEC_A", c % coopMat->chunk() == 0 ? 1 : 0).set("GEMM_VEC_B", w % coopMat->chunk() == 0 ? 1 : 0);
  } else {
    setTile(d, tile);
    setVec4Loads(d, tile, a.dtype, c % 4 == 0, w % 4 == 0);
    setWordLoads(d, ctx.target(), tile, a.dtype, c % 8 == 0, w % tile.tn == 0);
    if (gemm.dot4) d.set("GEMM_DOT4", 1);
  }
  PlanKernel kernel;
  kernel.name = fmt::format("MATMUL_{}", node.index);
  kernel.bindings = {ctx.tensorId(node.op.inputs[0]), ctx.tensorId(node.op.inputs[1])};
  kernel.writes = {false, false};
  OPENVGF_TRY(buildEpilogue(ctx, node, types.accumulator, d, kernel, std::move(params)));
  kernel.grid = {ceilDiv(static_cast<std::uint64_t>(w), static_cast<std::uint64_t>(tile.bn)),
                 ceilDiv(static_cast<std::uint64_t>(h), static_cast<std::uint64_t>(tile.bm)),
                 static_cast<std::uint32_t>(batch)};
  const SplitK& split = gemm.split;
  if (coopMat && partialFragmentStores(*coopMat, split, w)) d.set("CM_PARTIAL_STORE", 1);
  addGemmKernel(ctx, std::move(kernel), "matmul.comp", std::move(d), types, split,
                coopMat ? coopMat->workgroupSize() : workgroupSize(tile), batch, h, w);
  return {};
}

}  // namespace

KernelSpec matmulKernel() { return KernelSpec{"matmul", {tosa::Op::MatMul}, check, lower, epilogueFusable}; }

}  // namespace openvgf::converter
