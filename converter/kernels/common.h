// SPDX-License-Identifier: Apache-2.0
// Shared helpers of the kernel families: storage/compute types per TOSA element type,
// constant decoding, elementwise expression generation (used by the elementwise family
// and by every fused epilogue) and dispatch-grid arithmetic.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "converter/plan.h"
#include "converter/shader_defines.h"
#include "tosa/types.h"

namespace openvgf::converter {

struct TypeInfo {
  const char* storage;  // GLSL storage type
  const char* load;     // ld_<t>
  const char* store;    // st_<t>
  const char* compute;  // float / int / int64_t / bool
  const char* rawBits;  // unsigned type of the same size (data-layout copies)
};

/// GPU storage description of a TOSA type; nullopt for types that have no storage.
std::optional<TypeInfo> typeInfo(tosa::DType type);
/// Bytes of one element in GPU storage (INT4 -> 1, INT48 -> 8, BOOL -> 1).
std::size_t storageBytes(tosa::DType type);
/// vk_format of a tensor of this type (specs/vgf.md §1.6).
std::uint32_t vkFormatOf(tosa::DType type);

/// Sets <prefix>_STYPE, <prefix>_LD, <prefix>_ST, <prefix>_CT.
void setBufferType(ShaderDefines& defines, const std::string& prefix, tosa::DType type);

/// Integer range of a TOSA integer type ([0,1] for BOOL).
std::pair<std::int64_t, std::int64_t> intRange(tosa::DType type);

/// Element i of a constant host tensor as int64 (integers, bool) or double (floats).
std::int64_t constInt(const tosa::HostTensor& t, std::size_t i);
double constFloat(const tosa::HostTensor& t, std::size_t i);
float decodeFloat(tosa::DType type, const std::uint8_t* bytes);

/// Workgroup counts for `groups` linear workgroups folded into x <= 65535 (GRID_X define).
std::array<std::uint32_t, 3> linearGrid(std::uint64_t groups, ShaderDefines& defines);
std::uint32_t ceilDiv(std::uint64_t a, std::uint64_t b);

/// Inputs of an elementwise operator that are data tensors (others are CTC parameters).
std::vector<std::size_t> dataInputs(const tosa::Operator& op);
/// True for the operators the elementwise family (and epilogues) implement.
bool isElementwiseOp(tosa::Op op);

/// One elementwise operator as a GLSL expression in the compute type of its output.
/// `args[i]` is the expression of data input dataInputs(op)[i]; `decls` collects global
/// declarations (helper functions) named with `uid`. Per-channel RESCALE multipliers and
/// shifts and TABLE entries are appended to `params` and read from the kernel's parameter
/// buffer (`ovgf_params`, see bindParams): constant arrays indexed at run time take lavapipe's
/// shader compiler seconds per kernel, and literal tables would make every layer's module unique.
Result<std::string> elementwiseExpression(const LoweringContext& ctx, const tosa::Operator& op, std::size_t opIndex,
                                          const std::vector<std::string>& args, std::string& decls,
                                          std::vector<std::int32_t>& params, int uid);
/// Binds `params` (if any) as a constant INT32 buffer after the kernel's other bindings and
/// sets PARAMS_BINDING, which declares `ovgf_params` (shaders/include/common.glsl).
void bindParams(LoweringContext& ctx, std::vector<std::int32_t> params, ShaderDefines& defines, PlanKernel& kernel);
/// Checks the type combination of an elementwise operator.
Status checkElementwiseTypes(const LoweringContext& ctx, const tosa::Operator& op, std::size_t opIndex);

/// Fused epilogue of a GEMM-like node: sets NUM_EPI, EPI<k>_*, EPI_BODY, EW_DECLS,
/// OUT_* and appends the extra input bindings; `accType` is the type of `v`.
/// Epilogue inputs must be indexed like the output (same shape).
Status buildEpilogue(LoweringContext& ctx, const Node& node, const std::string& accCompute,
                     ShaderDefines& defines, PlanKernel& kernel);
/// Whether `next` can join the epilogue of `node` (elementwise, extra inputs shaped like
/// the output or scalar constants, single-use intermediate).
bool epilogueFusable(const Program& program, const Node& node, const FusedOp& next);

/// "operators[3] CONV2D (INT8, INT8 -> INT32)" for messages.
std::string describeOp(const Program& program, const tosa::Operator& op, std::size_t index);

}  // namespace openvgf::converter
