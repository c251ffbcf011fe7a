// SPDX-License-Identifier: Apache-2.0
// Turns a module that uses GL_NV_cooperative_matrix (what Debian's glslang 12 compiles) into
// one that uses SPV_KHR_cooperative_matrix, optionally with workgroup-scope matrices
// (VK_NV_cooperative_matrix2). glslang 12 cannot compile GL_KHR_cooperative_matrix, but the
// two instruction sets differ only in encoding, so the GEMM cores are written once against
// the NV built-ins and re-encoded here after spirv-val has checked the NV module.
//
// What changes (SPIR-V registry, SPV_NV_cooperative_matrix / SPV_KHR_cooperative_matrix):
//   OpTypeCooperativeMatrixNV  C S R K        -> OpTypeCooperativeMatrixKHR C S' R K Use
//   OpCooperativeMatrixLoadNV  P Stride Col   -> OpCooperativeMatrixLoadKHR P Layout Stride
//   OpCooperativeMatrixStoreNV P O Stride Col -> OpCooperativeMatrixStoreKHR P O Layout Stride
//   OpCooperativeMatrixMulAddNV A B C         -> OpCooperativeMatrixMulAddKHR A B C [signedness]
//   OpCooperativeMatrixLengthNV T             -> OpCooperativeMatrixLengthKHR T
//   capability CooperativeMatrixNV            -> CooperativeMatrixKHR
// The Use of each matrix type (A, B or accumulator) comes from the multiply-adds that consume
// it. An NV type that serves several uses (square fp16 fragments are A, B and accumulator
// alike) is split: it keeps the accumulator use, and its A and B uses get types of their own,
// given to the loads that produce those operands and to the function variables (touched only
// by loads and stores) that glslang keeps fragments in. A matrix converted to another
// component type (OpFConvert, an fp16 residual widened into fp32 accumulators) is an
// accumulator on both sides, the one Use KHR converts within. Anything else is refused.
//
// With bf16 operands the A and B matrices' fp16 components become bf16 (SPV_KHR_bfloat16:
// OpTypeFloat 16 with the BFloat16KHR encoding, capabilities BFloat16TypeKHR and
// BFloat16CooperativeMatrixKHR): the core declared them fp16, which glslang knows, and stored
// bf16 bit patterns in the shared memory they load from.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/error.h"

namespace openvgf::converter {

enum class CoopMatScope : std::uint32_t { Workgroup = 2, Subgroup = 3 };

/// Re-encodes every NV cooperative-matrix type and instruction of `nvModule` as KHR, with
/// every matrix at `scope` (and fp16 A and B matrices as bf16 with `bf16Operands`); a module
/// without matrices comes back unchanged. Fails (as a converter bug) on a module it cannot map.
Result<std::vector<std::uint32_t>> cooperativeMatrixNvToKhr(std::span<const std::uint32_t> nvModule,
                                                            CoopMatScope scope, bool bf16Operands = false);

}  // namespace openvgf::converter
