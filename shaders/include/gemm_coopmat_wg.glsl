// SPDX-License-Identifier: Apache-2.0
// Workgroup-scope cooperative-matrix GEMM core (VK_NV_cooperative_matrix2): the `native`
// target's path for fp16 GEMMs whose M, N and K are whole multiples of the tile and whose
// operands are plain row-major matrices. The whole workgroup owns each matrix, so the driver
// stages A and B through shared memory and schedules the tensor-core work itself; the shader
// only walks K. The matrices are declared with GL_NV_cooperative_matrix types, which
// Debian's glslang compiles, and the converter re-encodes them as KHR matrices of workgroup
// scope (CM_ENCODING=2, converter/coopmat_khr.h).
//
// After the K loop each CM_PART_M x BN part of the output goes through a shared staging tile
// to the template's scalar epilogue (gemm_store), the same code every other core runs.
//
// Defines: BM BN BK (workgroup tile, K step), CM_PART_M (rows per accumulator; BM is a
// multiple), CM_WG_THREADS (the invocation count the device lists for these matrices),
// CM_ACC16 (fp16 accumulators). The template provides the 16-byte views a0v / b0v of A
// [M,K] and B [K,N] (GEMM_VEC_A / GEMM_VEC_B) and gemm_a_vec_index(batch, m, k) /
// gemm_b_vec_index(batch, k, n), the view index of an element that starts a chunk.
#ifndef OVGF_GEMM_COOPMAT_WG_GLSL
#define OVGF_GEMM_COOPMAT_WG_GLSL

#if CM_ACC16
#define CM_ACC_T float16_t
#define CM_CMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_PART_M, BN>
#else
#define CM_ACC_T float
#define CM_CMAT fcoopmatNV<32, gl_ScopeSubgroup, CM_PART_M, BN>
#endif
#define CM_AMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_PART_M, BK>
#define CM_BMAT fcoopmatNV<16, gl_ScopeSubgroup, BK, BN>
#define CM_PARTS (BM / CM_PART_M)
#define GEMM_THREADS CM_WG_THREADS

#include "include/gemm_split.glsl"

#if GEMM_SPLIT_PASS != 2

shared CM_ACC_T sC[CM_PART_M * BN];

void gemm_main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint m0 = gl_WorkGroupID.y * uint(BM);
  const uint n0 = gl_WorkGroupID.x * uint(BN);
  const uint batch = gemm_batch();

  CM_CMAT acc[CM_PARTS];
  [[unroll]] for (int p = 0; p < CM_PARTS; ++p) acc[p] = CM_CMAT(CM_ACC_T(0));
  for (uint k = gemm_k_begin(); k < gemm_k_end(); k += uint(BK)) {
    CM_BMAT b;
    coopMatLoadNV(b, b0v, gemm_b_vec_index(batch, k, n0), uint(N) / uint(CM_CHUNK), false);
    [[unroll]] for (int p = 0; p < CM_PARTS; ++p) {
      CM_AMAT a;
      coopMatLoadNV(a, a0v, gemm_a_vec_index(batch, m0 + uint(p * CM_PART_M), k), uint(K) / uint(CM_CHUNK), false);
      acc[p] = coopMatMulAddNV(a, b, acc[p]);
    }
  }

  [[unroll]] for (int p = 0; p < CM_PARTS; ++p) {
    coopMatStoreNV(acc[p], sC, 0u, uint(BN), false);
    barrier();
    const uint mBase = m0 + uint(p * CM_PART_M);
    for (uint e = tid; e < uint(CM_PART_M * BN); e += uint(GEMM_THREADS)) {
      GEMM_STORE(batch, mBase + e / uint(BN), n0 + e % uint(BN), ACC_CT(sC[e]));
    }
    barrier();
  }
}

#endif  // GEMM_SPLIT_PASS != 2

#endif  // OVGF_GEMM_COOPMAT_WG_GLSL
