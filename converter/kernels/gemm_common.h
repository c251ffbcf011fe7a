// SPDX-License-Identifier: Apache-2.0
// Pieces shared by the GEMM-shaped families (CONV2D, MATMUL, ...): type rules for
// (input, weight, output) triples and the tile choice per problem size.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "converter/kernels/common.h"

namespace openvgf::converter {

struct GemmTypes {
  std::string operand;      // A_CT: float or int
  std::string accumulator;  // ACC_CT: float, int or int64_t
};

/// Type rules of CONV2D / CONV3D / DEPTHWISE_CONV2D / TRANSPOSE_CONV2D / MATMUL
/// (specs/tosa.md §2.2); nullopt if the triple is not in any profile or extension.
std::optional<GemmTypes> gemmTypes(tosa::DType in, tosa::DType weight, tosa::DType out);

/// The common part of the conv-like families' check(): input, weight and bias present, an
/// attribute of kind `Attrs` (named `attrName` in the message) and a supported type triple.
template <typename Attrs>
Status checkConvLike(const LoweringContext& ctx, const Node& node, std::string_view attrName) {
  const std::string where = describeOp(ctx.program(), node.op, node.index);
  if (node.op.inputs.size() < 3 || !std::holds_alternative<Attrs>(node.op.attrs)) {
    return invalidInput("{}: expected input, weight, bias and a {}", where, attrName);
  }
  if (!gemmTypes(ctx.tensor(node.op.inputs[0]).dtype, ctx.tensor(node.op.inputs[1]).dtype,
                 ctx.tensor(node.op.outputs[0]).dtype)) {
    return unsupported("{}: expected a supported type combination", where);
  }
  return {};
}

/// CONV2D / CONV3D / DEPTHWISE_CONV2D attributes for `dims` spatial dimensions:
/// pad[2*dims], stride[dims], dilation[dims].
Status checkConvAttrs(const LoweringContext& ctx, const Node& node, std::size_t dims);

/// Input, weight, bias and output of a conv-like node, each of rank `rank`, or an error.
struct ConvOperands {
  const tosa::Tensor& input;
  const tosa::Tensor& weight;
  const tosa::Tensor& bias;
  const tosa::Tensor& output;
};
Result<ConvOperands> convOperands(const LoweringContext& ctx, const Node& node, std::size_t rank);

/// Which GEMMs a tile choice is for: MATMUL's plain operands or a convolution's gathered ones.
enum class GemmKind { Matmul, Convolution };
void setTile(ShaderDefines& defines, const GemmTile& tile);
/// GEMM_VEC4_A / GEMM_VEC4_B (include/gemm.glsl: 16-byte loads) for fp32 operands on a tile of
/// vec4 register blocks, where the template says 4 consecutive k of A (`a`) or 4 consecutive
/// n of B (`b`) are contiguous and 16-byte aligned.
void setVec4Loads(ShaderDefines& defines, const GemmTile& tile, tosa::DType operand, bool a, bool b);
/// GEMM_A64 / GEMM_B64 (include/gemm.glsl) for the core without shared memory (GEMM_STAGES 0,
/// CPU devices): 8 consecutive k of A as 64-bit words where the template says they are
/// contiguous and aligned (`a`) and the device has shaderFloat64; a lane's TN columns of B as
/// words where N is a multiple of TN and rows of B are contiguous (`b`). For fp32 operands
/// (`stored` is both operands' stored type), and int8 ones (GEMM_WORDS_I8) where the
/// template unpacks raw int8 words (`int8Words`).
void setWordLoads(ShaderDefines& defines, const Target& target, const GemmTile& tile, tosa::DType stored, bool a,
                  bool b, bool int8Words = false);
/// Invocations per workgroup of the scalar cores with this tile.
std::uint32_t workgroupSize(const GemmTile& tile);

/// Split-K plan of a GEMM on the include/gemm.glsl core: `slices` partial GEMMs over K
/// ranges of `depth` (a multiple of the tile's BK); slices == 1 means one kernel.
struct SplitK {
  int slices = 1;
  std::int64_t depth = 0;
};

/// Adds a kernel of a GEMM core (include/gemm.glsl, gemm_dot4.glsl, gemm_coopmat.glsl) whose
/// bindings, writes, grid ((N tiles, M tiles, batches)) and defines are complete: as is when
/// split.slices == 1, else as a partial pass (grid z = batches * slices, writing an
/// intermediate accumulator tensor) and a reduction pass over the batches * M * N outputs,
/// `workgroupSize` invocations per workgroup, that runs the template's gemm_store.
void addGemmKernel(LoweringContext& ctx, PlanKernel kernel, const std::string& shader, ShaderDefines defines,
                   const GemmTypes& types, const SplitK& split, std::uint32_t workgroupSize, std::int64_t batches,
                   std::int64_t m, std::int64_t n);

/// Cooperative-matrix GEMM config (include/gemm_coopmat.glsl): the fragment shape, the
/// workgroup tile and the fragments per subgroup.
struct CoopMatPlan {
  CoopMatShape shape;
  int bm = 0, bn = 0, bk = 0;  // workgroup tile
  int wm = 0, wn = 0;          // fragments per subgroup along M and N
  int subgroupSize = 0;
  bool fp32Operands = false;  // fp32 tensors rounded to fp16 on load (Precision::Fp16, Bf16, Fp16x3)
  bool khr = false;           // re-encoded as KHR matrices (Tuning::coopMatKhrEncoding)
  // Workgroup-scope matrices (include/gemm_coopmat_wg.glsl): shape, wm, wn and subgroupSize
  // are unused; the workgroup has `invocations` invocations and partM-row accumulators.
  bool workgroupScope = false;
  int partM = 0;
  bool bandEpilogue = false;  // stage the epilogue a band at a time where it fits (Tuning::coopMatBandEpilogue)
  // The accumulators start from the epilogue's residual input (CM_RESIDUAL_ACC,
  // Tuning::coopMatResidualAccumulators); only with fp32 operands and accumulators.
  bool residualAccumulators = false;
  // ... from a residual stored as fp16 (narrowStorage): loaded as fp16 matrices and converted.
  bool residualFp16 = false;
  // A is an fp32 tensor stored as fp16 (narrowStorage, with fp32Operands): the core reads it
  // as raw fp16 chunks, as it reads an fp16 tensor, and rounds nothing.
  bool narrowA = false;
  // fp32 operands as two fp16 each, three products (CM_SPLIT, Precision::Fp16x3), or as bf16
  // parts with fragments of bf16 (Precision::Bf16x3, Fp32Bf16): splitProducts 3 (hi, mid) or
  // 6 (hi, mid, lo; CM_SPLIT_PRODUCTS).
  bool splitOperands = false;
  int splitProducts = 3;
  int prefetch = 1;  // K slices in flight (CM_PREFETCH, Tuning::coopMatPrefetchMaxDepth)
  int invocations = 0;
  /// Operands per 16-byte chunk (8 fp16 or 16 int8): dimensions that are multiples of it
  /// allow the template's vector loads (GEMM_VEC_A / GEMM_VEC_B).
  int chunk() const;
  /// Invocations per workgroup: one subgroup per wm x wn block of fragments.
  std::uint32_t workgroupSize() const;
  /// The workgroup tile as a GemmTile (grid and split-K arithmetic).
  GemmTile tile() const;
  /// Where the subgroup core stages accumulators for the epilogue (CM_STAGE,
  /// include/gemm_coopmat.glsl): with bandEpilogue, 1 or 2, a band of each subgroup's
  /// fragments (one fragment row, all its columns) at a time in the A or B operand buffers,
  /// which the K loop no longer needs; else, when no band fits, and for int8, 0: one fragment
  /// at a time in a tile of its own.
  int stagingBuffer() const;
  /// Shared memory of the subgroup core, in bytes.
  int sharedBytes() const;
};

/// Sets plan.residualAccumulators, whether `plan` starts its accumulators from the residual
/// ADD that begins the epilogue of `node`: the target asks for it, the operands are fp32
/// rounded to fragments (--precision) and epilogueStartsWithResidualAdd holds; and
/// plan.residualFp16 where that residual is stored as fp16.
void chooseResidualAccumulators(const LoweringContext& ctx, const Node& node, CoopMatPlan& plan);
/// Whether a convolution on `plan` stores whole fragments directly (CM_DIRECT_STORE,
/// Tuning::coopMatDirectStoreMaxDepth): K at most that deep, fp32 accumulators at subgroup
/// scope with fragment staging, one kernel (no split-K), N a multiple of 8, an output stored
/// as fp32 or fp16, an epilogue that epilogueIsPerElement accepts (with a residual only if it
/// is stored as fp16, with fp16 operands and square A fragments), and room for the bias rows
/// and the identity fragment in the second A buffer.
bool directFragmentStores(const LoweringContext& ctx, const Node& node, const CoopMatPlan& plan,
                          const SplitK& split, std::int64_t n, std::int64_t k);
/// Whether the split-K partial pass of a GEMM on `plan` stores whole fragments of raw
/// accumulators directly (CM_PARTIAL_STORE, include/gemm_coopmat.glsl): split into slices,
/// fp32 accumulators at subgroup scope with fragment staging, N a multiple of 8.
bool partialFragmentStores(const CoopMatPlan& plan, const SplitK& split, std::int64_t n);
/// GEMM_COOPMAT=1 and the CM_* / tile defines of `plan`.
void setCoopMat(ShaderDefines& defines, const CoopMatPlan& plan);

/// Whether an int8 GEMM uses packed 4 x 8-bit dot products (include/gemm_dot4.glsl): the
/// target has shaderIntegerDotProduct, operands are int8 (or int4 stored as int8) with an
/// int32 accumulator and int8-range zero points.
bool useDot4(const Target& target, tosa::DType in, tosa::DType weight, tosa::DType out, std::int64_t zeroPointA,
             std::int64_t zeroPointB);

/// K as runs of `run` operands each padded with zeros to `padded` (GEMM_ROW_A: a filter row
/// of KW * IC operands padded to whole 16-byte chunks); run 0: K as it is.
struct KRuns {
  std::int64_t run = 0;
  std::int64_t padded = 0;
};

/// A GEMM as the choice of its kernel sees it: `batches` products of M x K by K x N.
struct GemmShape {
  GemmKind kind = GemmKind::Matmul;
  tosa::DType in = tosa::DType::Fp32, weight = tosa::DType::Fp32;  // operand tensors
  tosa::DType out = tosa::DType::Fp32;                             // output tensor
  tosa::DType acc = tosa::DType::Fp32;  // accumulator type (MATMUL: the output's; CONV2D: acc_type)
  std::int64_t zeroPointA = 0, zeroPointB = 0;
  std::int64_t batches = 1, m = 0, n = 0, k = 0;
  /// The family's template has the cooperative-matrix and packed-dot-product cores (MATMUL,
  /// CONV2D) / a split-K pass (not TRANSPOSE_CONV2D, whose grid's z is its stride phases).
  bool fastCores = false;
  bool splitK = true;
  /// The family's template can take its shape at run time (GEMM_RUNTIME_SHAPE: MATMUL, CONV2D).
  bool runtimeShapes = false;
  /// A and B are plain row-major fp16 matrices with 16-byte rows and no zero points (MATMUL):
  /// workgroup-scope matrices may read them in place.
  bool plainOperands = false;
  /// The epilogue starts with a residual ADD (epilogueStartsWithResidualAdd), which the
  /// accumulators may start from; such GEMMs take their tiles by coopMatResidualMinTiles.
  bool residualEpilogue = false;
  /// How many consecutive operands of a row of A lie next to each other in memory (a
  /// convolution's input channels; 0: the whole row). Where that is not a multiple of the
  /// cooperative-matrix chunk, A is gathered element by element and the GEMM takes
  /// Tuning::coopMatTileGather where the target has one and N is as wide.
  std::int64_t runA = 0;
  /// CONV2D with constant [K][OC] weights and filter rows contiguous in the input (dilation 1
  /// along x): the operands of one filter row (KW * IC), which a gathered A may read as one
  /// run padded to whole chunks (Tuning::coopMatRowRunsMaxPadding); 0: not available.
  std::int64_t rowRun = 0;
};

/// How a GEMM runs: on cooperative matrices (`coopMat`, whose tile() is `tile`) or on the
/// scalar core with `tile` (packed int8 dot products where `dot4`), split into `split`
/// slices over K, with K read as `runs` (`depth`: K after the runs' padding).
struct GemmConfig {
  std::optional<CoopMatPlan> coopMat;
  GemmTile tile;
  SplitK split;
  bool dot4 = false;
  KRuns runs;
  std::int64_t depth = 0;
  /// The kernel takes its shape at run time (GEMM_RUNTIME_SHAPE): the family can
  /// (GemmShape::runtimeShapes), the target asks for it (Tuning::runtimeShapes) and the GEMM
  /// runs on the scalar core in one kernel (include/gemm.glsl, no split-K), whose loops read
  /// the shape as values.
  bool runtimeShapes = false;
};

/// The one GEMM choice, a pure function of the target and the shape (tested without a GPU):
/// workgroup-scope matrices where they take the operands whole; else subgroup cooperative
/// matrices on the first tile whose grid the GEMM fills (gemm_choice.cpp has the order); else
/// the scalar or dot-product core on the tuning table's tile; then the split over K that
/// fills the grid. chooseResidualAccumulators, which depends on how tensors are stored, is
/// applied to the plan afterwards.
GemmConfig chooseGemm(const Target& target, const GemmShape& shape);

/// Binds the weight input of a conv-like node: a constant [OC, K...] tensor is stored
/// pre-transposed to [K][OC] (constant plan: coalesced B-tile loads) and W_KN=1 is set; a
/// run-time weight is bound as is with W_KN=0. `storeAs` Fp16 or Bf16 stores constant fp32
/// weights rounded to that type (--precision, narrowedWeights): to nearest even, as the
/// cooperative-matrix core's load path rounds (NaN payloads aside). With `runs`, constant
/// weights are stored as [K / run * padded][OC], each run of K followed by zero rows.
void bindWeightsKN(LoweringContext& ctx, const Node& node, std::size_t input, ShaderDefines& defines,
                   PlanKernel& kernel, tosa::DType storeAs = tosa::DType::Unknown, KRuns runs = {});
/// The type constant fp32 CONV2D weights are stored in for `plan` (--precision): its operand
/// type when the core reads B in 16-byte chunks, so it loads them as they are; else Unknown
/// (stored as fp32).
tosa::DType narrowedWeights(const CoopMatPlan& plan, bool weightsKN, std::int64_t oc);

/// A zero-point CTC input as an integer (0 when absent or floating point).
Result<std::int64_t> zeroPoint(const LoweringContext& ctx, const Node& node, std::size_t input);

}  // namespace openvgf::converter
