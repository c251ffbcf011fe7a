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
// it, so one NV type may serve one use only: the cores' callers choose shapes for which A
// (M x K), B (K x N) and the accumulator (M x N) are distinct types (coopMatKhrDistinct,
// converter/kernels/gemm_common.h). glslang keeps fragments in function variables, which is
// why the types cannot simply be split per use here.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/error.h"

namespace openvgf::converter {

enum class CoopMatScope : std::uint32_t { Workgroup = 2, Subgroup = 3 };

/// Re-encodes every NV cooperative-matrix type and instruction of `nvModule` as KHR, with
/// every matrix at `scope`; a module without matrices comes back unchanged. Fails (as a
/// converter bug) on a module it cannot map.
Result<std::vector<std::uint32_t>> cooperativeMatrixNvToKhr(std::span<const std::uint32_t> nvModule,
                                                            CoopMatScope scope);

}  // namespace openvgf::converter
