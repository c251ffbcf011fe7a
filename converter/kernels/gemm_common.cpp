// SPDX-License-Identifier: Apache-2.0
// Shared type rules and tile choice of the GEMM-shaped kernel families.
#include "converter/kernels/gemm_common.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "converter/kernels/epilogue.h"
#include "tosa/float_types.h"

namespace openvgf::converter {

using tosa::DType;

std::optional<GemmTypes> gemmTypes(DType in, DType weight, DType out) {
  if (in == DType::Int8 && (weight == DType::Int8 || weight == DType::Int4) && out == DType::Int32) {
    return GemmTypes{"int", "int"};
  }
  if (in == DType::Int16 && (weight == DType::Int8 || weight == DType::Int16) && out == DType::Int48) {
    return GemmTypes{"int", "int64_t"};
  }
  if (in == DType::Fp32 && weight == DType::Fp32 && out == DType::Fp32) return GemmTypes{"float", "float"};
  if (in == DType::Fp16 && weight == DType::Fp16 && (out == DType::Fp16 || out == DType::Fp32)) {
    return GemmTypes{"float", "float"};
  }
  if (in == DType::Bf16 && weight == DType::Bf16 && (out == DType::Bf16 || out == DType::Fp32)) {
    return GemmTypes{"float", "float"};
  }
  if ((in == DType::Fp8E4M3 || in == DType::Fp8E5M2) && weight == in && out == DType::Fp16) {
    return GemmTypes{"float", "float"};
  }
  return std::nullopt;
}

void addGemmKernel(LoweringContext& ctx, PlanKernel kernel, const std::string& shader, ShaderDefines defines,
                   const GemmTypes& types, const SplitK& split, std::uint32_t workgroupSize, std::int64_t batches,
                   std::int64_t m, std::int64_t n) {
  if (split.slices <= 1) {
    kernel.shader = ShaderInstance{shader, std::move(defines)};
    ctx.addKernel(std::move(kernel));
    return;
  }
  kernel.batchGrid.reset();  // the partial pass's grid is slices x tiles, its reduction linear
  const DType accType = types.accumulator == "int" ? DType::Int32 : DType::Fp32;
  const std::size_t partial = ctx.addIntermediate(accType, {split.slices * batches, m, n});
  defines.set("GEMM_SPLIT_K", split.slices).set("GEMM_KS", split.depth);
  defines.set("PARTIAL_BINDING", static_cast<std::int64_t>(kernel.bindings.size()));

  // Both passes keep every binding of the template (one descriptor layout); the partial pass
  // writes only the accumulators, the reduction reads them and writes what the kernel wrote.
  PlanKernel partialPass = kernel;
  partialPass.name += "_partial";
  partialPass.splitKPartial = true;
  std::fill(partialPass.writes.begin(), partialPass.writes.end(), false);
  partialPass.bindings.push_back(partial);
  partialPass.writes.push_back(true);
  partialPass.grid[2] *= static_cast<std::uint32_t>(split.slices);
  ShaderDefines partialDefines = defines;
  partialDefines.set("GEMM_SPLIT_PASS", 1);
  partialPass.shader = ShaderInstance{shader, std::move(partialDefines)};
  ctx.addKernel(std::move(partialPass));

  kernel.bindings.push_back(partial);
  kernel.writes.push_back(false);
  defines.set("GEMM_SPLIT_PASS", 2);
  // fp32 partials of four neighbouring outputs are read as one vec4 (include/gemm_split.glsl)
  // where there are at least 2^18 outputs, so that the quarter-size grid still has 512
  // workgroups of 128 invocations, several per multiprocessor. With the direct fragment stores
  // of the partial pass, ResNet-50 batch 32's last-stage split GEMMs (800K outputs each) took
  // 3.5 us less each on an H200; with four outputs per invocation for every size, ResNet-50
  // batch 1 fp32 (reductions of 25K-800K outputs) was 1-2 % slower
  // (benchmarks/results/experiments/h100-gemm-limits.md, call 27).
  constexpr std::int64_t kReduceVec4MinOutputs = std::int64_t{1} << 18;
  const bool vec4 = types.accumulator == "float" && n % 4 == 0 && batches * m * n >= kReduceVec4MinOutputs;
  if (vec4) defines.set("GEMM_REDUCE_VEC4", 1);
  const std::uint64_t invocations = static_cast<std::uint64_t>(batches * m * n) / (vec4 ? 4 : 1);
  kernel.grid = linearGrid(ceilDiv(invocations, workgroupSize), defines);
  kernel.shader = ShaderInstance{shader, std::move(defines)};
  ctx.addKernel(std::move(kernel));
}

void setTile(ShaderDefines& defines, const GemmTile& tile) {
  defines.set("BM", tile.bm).set("BN", tile.bn).set("BK", tile.bk).set("TM", tile.tm).set("TN", tile.tn);
  if (tile.stages != 1) defines.set("GEMM_STAGES", tile.stages);
}

void setVec4Loads(ShaderDefines& defines, const GemmTile& tile, DType operand, bool a, bool b) {
  // Only the vec4 register-block path has them, and only fp32 buffers are read as vec4.
  if (tile.tm % 4 != 0 || tile.tn % 4 != 0 || operand != DType::Fp32) return;
  if (a) defines.set("GEMM_VEC4_A", 1);
  if (b) defines.set("GEMM_VEC4_B", 1);
}

void setWordLoads(ShaderDefines& defines, const Target& target, const GemmTile& tile, DType stored, bool a, bool b,
                  bool int8Words) {
  const bool int8 = int8Words && stored == DType::Int8;
  if (tile.stages != 0 || tile.tm % 4 != 0 || (tile.tn != 4 && tile.tn != 8) || (stored != DType::Fp32 && !int8)) {
    return;
  }
  a = a && target.caps.float64;
  if (a) defines.set("GEMM_A64", 1);
  if (b) defines.set("GEMM_B64", 1);
  if (int8 && (a || b)) defines.set("GEMM_WORDS_I8", 1);
}

std::uint32_t workgroupSize(const GemmTile& tile) {
  return static_cast<std::uint32_t>((tile.bm / tile.tm) * (tile.bn / tile.tn));
}

void chooseResidualAccumulators(const LoweringContext& ctx, const Node& node, CoopMatPlan& plan) {
  plan.residualAccumulators = ctx.target().tuning.coopMatResidualAccumulators && plan.fp32Operands &&
                              !plan.workgroupScope && epilogueStartsWithResidualAdd(ctx.program(), node);
  if (!plan.residualAccumulators) return;
  const FusedOp& add = node.epilogue.front();
  plan.residualFp16 = ctx.storedType(add.op.inputs[1 - add.chainInput]) == DType::Fp16;
}

namespace {
bool fp32Accumulators(const CoopMatPlan& plan) {
  return plan.shape.types == CoopMatTypes::F16xF16ToF32 || plan.shape.types == CoopMatTypes::Bf16xBf16ToF32;
}
}  // namespace

bool partialFragmentStores(const CoopMatPlan& plan, const SplitK& split, std::int64_t n) {
  return split.slices > 1 && fp32Accumulators(plan) && !plan.workgroupScope && plan.stagingBuffer() == 0 &&
         n % 8 == 0;
}

bool directFragmentStores(const LoweringContext& ctx, const Node& node, const CoopMatPlan& plan,
                          const SplitK& split, std::int64_t n, std::int64_t k) {
  if (k > ctx.target().tuning.coopMatDirectStoreMaxDepth || plan.workgroupScope || !fp32Accumulators(plan) ||
      plan.stagingBuffer() != 0 || split.slices > 1 || n % 8 != 0) {
    return false;
  }
  const DType out = ctx.storedType(node.output());
  if (out != DType::Fp32 && out != DType::Fp16) return false;
  const bool residual = plan.residualAccumulators;
  if (residual &&
      (!plan.residualFp16 || plan.shape.types != CoopMatTypes::F16xF16ToF32 || plan.shape.m != plan.shape.k)) {
    return false;
  }
  if (!epilogueIsPerElement(ctx.program(), node, residual)) return false;
  // The bias rows (shape.m copies of the tile's bn fp32 biases) and the identity fragment
  // (fp16) go into the second A buffer before the K loop first writes it.
  const int bytes = plan.shape.m * plan.bn * 4 + (residual ? plan.shape.m * plan.shape.k * 2 : 0);
  return bytes <= plan.bm * (plan.bk / plan.chunk() + 1) * 16;
}

bool useDot4(const Target& target, DType in, DType weight, DType out, std::int64_t zeroPointA,
             std::int64_t zeroPointB) {
  auto int8Range = [](std::int64_t v) { return v >= -128 && v <= 127; };
  return target.caps.integerDotProduct && in == DType::Int8 &&
         (weight == DType::Int8 || weight == DType::Int4) && out == DType::Int32 && int8Range(zeroPointA) &&
         int8Range(zeroPointB);
}

int CoopMatPlan::chunk() const { return shape.types == CoopMatTypes::S8xS8ToS32 ? 16 : 8; }

std::uint32_t CoopMatPlan::workgroupSize() const {
  if (workgroupScope) return static_cast<std::uint32_t>(invocations);
  return static_cast<std::uint32_t>((bm / (wm * shape.m)) * (bn / (wn * shape.n)) * subgroupSize);
}

namespace {

// Operand buffers of the subgroup core, in 16-byte chunks: two per operand, rows padded by
// one chunk (include/gemm_coopmat.glsl, SA_SIZE and SB_SIZE).
int operandChunksA(const CoopMatPlan& p) { return 2 * p.bm * (p.bk / p.chunk() + 1); }
int operandChunksB(const CoopMatPlan& p) { return 2 * p.bk * (p.bn / p.chunk() + 1); }
// ... and as many again for the lo halves of split operands (CM_SPLIT), twice as many for
// three bf16 parts.
int operandBuffers(const CoopMatPlan& p) {
  if (!p.splitOperands) return 1;
  return p.splitProducts == 6 ? 3 : 2;
}

}  // namespace

int CoopMatPlan::stagingBuffer() const {
  if (!bandEpilogue || workgroupScope || shape.types == CoopMatTypes::S8xS8ToS32) return 0;
  const int perChunk = shape.types == CoopMatTypes::F16xF16ToF16 ? 8 : 4;  // accumulators per 16 bytes
  if (shape.n % perChunk != 0) return 0;
  // One band per subgroup: shape.m rows of wn fragments, rows padded by one chunk.
  const int subgroups = (bm / (wm * shape.m)) * (bn / (wn * shape.n));
  const int band = subgroups * shape.m * (wn * shape.n / perChunk + 1);
  if (band <= operandChunksA(*this)) return 1;
  if (band <= operandChunksB(*this)) return 2;
  return 0;
}

int CoopMatPlan::sharedBytes() const {
  const int subgroups = (bm / (wm * shape.m)) * (bn / (wn * shape.n));
  const int accBytes = shape.types == CoopMatTypes::F16xF16ToF16 ? 2 : 4;
  const int staging = stagingBuffer() == 0 ? subgroups * shape.m * shape.n * accBytes : 0;
  return (operandChunksA(*this) + operandChunksB(*this)) * operandBuffers(*this) * 16 + staging;
}

GemmTile CoopMatPlan::tile() const {
  if (workgroupScope) return GemmTile{bm, bn, bk, partM, bn};
  // tm/tn: the fragment block per subgroup, which keeps bm % tm == 0 like the scalar tiles.
  return GemmTile{bm, bn, bk, wm * shape.m, wn * shape.n};
}

void setCoopMat(ShaderDefines& defines, const CoopMatPlan& plan) {
  if (plan.workgroupScope) {
    defines.set("GEMM_COOPMAT", 1).set("CM_ENCODING", 2).set("CM_INT", 0);
    defines.set("CM_ACC16", plan.shape.types == CoopMatTypes::F16xF16ToF16 ? 1 : 0);
    defines.set("BM", plan.bm).set("BN", plan.bn).set("BK", plan.bk).set("CM_PART_M", plan.partM);
    defines.set("CM_WG_THREADS", plan.invocations);
    return;
  }
  if (plan.khr) defines.set("CM_ENCODING", 1);
  defines.set("GEMM_COOPMAT", 1).set("CM_M", plan.shape.m).set("CM_N", plan.shape.n).set("CM_K", plan.shape.k);
  defines.set("CM_INT", plan.shape.types == CoopMatTypes::S8xS8ToS32 ? 1 : 0);
  defines.set("CM_ACC16", plan.shape.types == CoopMatTypes::F16xF16ToF16 ? 1 : 0);
  defines.set("BM", plan.bm).set("BN", plan.bn).set("BK", plan.bk).set("WM", plan.wm).set("WN", plan.wn);
  defines.set("SG", plan.subgroupSize);
  defines.set("CM_STAGE", plan.stagingBuffer());
  if (plan.residualAccumulators) defines.set("CM_RESIDUAL_ACC", 1);
  if (plan.residualFp16) defines.set("CM_RESIDUAL_F16", 1);
  if (plan.fp32Operands && !plan.narrowA) defines.set("CM_F32_OPERANDS", 1);
  if (plan.shape.types == CoopMatTypes::Bf16xBf16ToF32) defines.set("CM_BF16", 1);
  if (plan.splitOperands) defines.set("CM_SPLIT", 1);
  if (plan.splitOperands && plan.splitProducts != 3) defines.set("CM_SPLIT_PRODUCTS", plan.splitProducts);
  if (plan.prefetch != 1) defines.set("CM_PREFETCH", plan.prefetch);
}

DType narrowedWeights(const CoopMatPlan& plan, bool weightsKN, std::int64_t oc) {
  if (!plan.fp32Operands || plan.splitOperands || plan.workgroupScope || !weightsKN ||
      oc % plan.chunk() != 0) {
    return DType::Unknown;
  }
  return plan.shape.types == CoopMatTypes::Bf16xBf16ToF32 ? DType::Bf16 : DType::Fp16;
}

void bindWeightsKN(LoweringContext& ctx, const Node& node, std::size_t input, ShaderDefines& defines,
                   PlanKernel& kernel, DType storeAs, KRuns runs) {
  const std::string& name = node.op.inputs[input];
  const tosa::Tensor& weight = ctx.tensor(name);
  if (!ctx.program().isConstant(ctx.program().bufferOf(name))) {
    kernel.bindings.push_back(ctx.tensorId(name));
    kernel.writes.push_back(false);
    defines.set("W_KN", 0);
    return;
  }
  const tosa::Tensor& source = ctx.tensor(ctx.program().bufferOf(name));
  const std::size_t eb = tosa::hostElementBytes(weight.dtype);
  const std::int64_t oc = weight.shape[0];
  const std::int64_t k = tosa::elementCount(weight.shape) / oc;
  const auto& src = *source.data;
  const bool narrow = weight.dtype == DType::Fp32 && (storeAs == DType::Fp16 || storeAs == DType::Bf16);
  const std::size_t outBytes = narrow ? 2 : eb;
  const bool padded = runs.run > 0 && runs.padded > runs.run && k % runs.run == 0;
  const std::int64_t rows = padded ? k / runs.run * runs.padded : k;
  std::vector<std::uint8_t> dst(static_cast<std::size_t>(rows * oc) * outBytes);  // padding rows stay 0
  for (std::int64_t o = 0; o < oc; ++o) {
    for (std::int64_t j = 0; j < k; ++j) {
      const std::int64_t row = padded ? j / runs.run * runs.padded + j % runs.run : j;
      const std::size_t from = static_cast<std::size_t>(o * k + j) * eb;
      const std::size_t to = static_cast<std::size_t>(row * oc + o) * outBytes;
      if (narrow) {
        float v = 0;
        std::memcpy(&v, &src[from], sizeof v);
        const std::uint16_t bits = storeAs == DType::Fp16 ? tosa::floatToFp16(v) : tosa::floatToBf16(v);
        std::memcpy(&dst[to], &bits, sizeof bits);
      } else {
        std::memcpy(&dst[to], &src[from], eb);
      }
    }
  }
  kernel.bindings.push_back(ctx.addConstant(narrow ? storeAs : weight.dtype, {rows, oc}, std::move(dst)));
  kernel.writes.push_back(false);
  defines.set("W_KN", 1);
}

Result<std::int64_t> zeroPoint(const LoweringContext& ctx, const Node& node, std::size_t input) {
  if (node.op.inputs.size() <= input) return std::int64_t{0};
  OPENVGF_ASSIGN_OR_RETURN(auto zp, ctx.constantInput(node, input, "zero point"));
  if (zp.size() == 0 || tosa::isFloat(zp.dtype)) return std::int64_t{0};
  return constInt(zp, 0);
}

Status checkConvAttrs(const LoweringContext& ctx, const Node& node, std::size_t dims) {
  const auto& attrs = std::get<tosa::ConvAttrs>(node.op.attrs);
  if (attrs.pad.size() != 2 * dims || attrs.stride.size() != dims || attrs.dilation.size() != dims) {
    return invalidInput("{}: expected pad[{}], stride[{}], dilation[{}]", describeOp(ctx.program(), node.op, node.index),
                        2 * dims, dims, dims);
  }
  return {};
}

Result<ConvOperands> convOperands(const LoweringContext& ctx, const Node& node, std::size_t rank) {
  ConvOperands t{ctx.tensor(node.op.inputs[0]), ctx.tensor(node.op.inputs[1]), ctx.tensor(node.op.inputs[2]),
                 ctx.tensor(node.op.outputs[0])};
  if (t.input.shape.size() != rank || t.weight.shape.size() != rank || t.output.shape.size() != rank) {
    return invalidInput("{}: expected rank-{} input, weight and output", nodeLabel(node), rank);
  }
  return t;
}

}  // namespace openvgf::converter
