// SPDX-License-Identifier: Apache-2.0
// Tiled GEMM core shared by MATMUL, CONV2D, CONV3D and TRANSPOSE_CONV2D (implicit GEMM):
// a workgroup computes a BM x BN output tile, stepping over K in BK slices staged in
// shared memory; each invocation keeps a TM x TN register block of accumulators.
//
// The including template defines, before including this file:
//   A_CT, ACC_CT            operand compute type (float or int) and accumulator type
//   M, N, K                 GEMM sizes (per batch)
//   BM, BN, BK, TM, TN      tile config (WG size = (BN/TN) * (BM/TM))
//   A_CT gemm_load_a(uint batch, uint m, uint k)   in-range, zero-point-corrected operand
//   A_CT gemm_load_b(uint batch, uint k, uint n)
//   void gemm_store(uint batch, uint m, uint n, ACC_CT acc)   epilogue for one output
// and optionally the split-K defines of include/gemm_split.glsl.
// Loads of A walk k fastest and loads of B walk n fastest, so both are coalesced for the
// row-major layouts the converter chooses (A = [M][K], B = [K][N]). With TM and TN
// multiples of 4 the register block is made of vec4 groups (below); otherwise an
// invocation's register block is strided (rows ty + i*BM/TM, columns tx + j*BN/TN): neighbouring
// invocations read neighbouring shared-memory words (no bank conflicts) and store
// neighbouring output columns (coalesced).
#ifndef OVGF_GEMM_GLSL
#define OVGF_GEMM_GLSL

#define GEMM_THREADS ((BN / TN) * (BM / TM))

#include "include/gemm_split.glsl"

#if GEMM_SPLIT_PASS == 2
// The reduction pass: gemm_main comes from include/gemm_split.glsl.
#elif (TM % 4 == 0) && (TN % 4 == 0)
// Register blocks of whole vec4s: an invocation owns TM/4 groups of 4 consecutive rows
// (group ty + ii*BM/TM) and TN/4 groups of 4 consecutive columns (group tx + jj*BN/TN), and
// the inner loop reads each group from shared memory as one vec4. On lavapipe every
// shared-memory load instruction becomes a loop over the SIMD lanes, so one vec4 load
// instead of four scalar ones, and a larger register block per load, is what makes the
// GEMM fast there; GPUs get conflict-free 128-bit shared loads (neighbouring invocations
// read neighbouring vec4s) and stores that stay within 16-byte runs.
#define OVGF_VEC4_float vec4
#define OVGF_VEC4_int ivec4
#define GEMM_VEC OVGF_CAT(OVGF_VEC4_, A_CT)

// One vec4 of padding per row: the staging stores of A walk k fastest, and the padded row
// stride spreads them over the banks.
shared GEMM_VEC sA[BK][BM / 4 + 1];
shared GEMM_VEC sB[BK][BN / 4 + 1];

void gemm_main() {
  uint tid = gl_LocalInvocationIndex;
  uint tx = tid % uint(BN / TN);
  uint ty = tid / uint(BN / TN);
  uint m0 = gl_WorkGroupID.y * uint(BM);
  uint n0 = gl_WorkGroupID.x * uint(BN);
  uint batch = gemm_batch();
  uint kEnd = gemm_k_end();

  ACC_CT acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) acc[i][j] = ACC_CT(0);

  for (uint k0 = gemm_k_begin(); k0 < kEnd; k0 += uint(BK)) {
    // Staging: each invocation gathers 4 rows (A) or 4 columns (B) and stores them as one
    // vec4 (one shared-memory store instead of four; conflict-free on GPUs with the padding).
    for (uint e = tid; e < uint(BM / 4 * BK); e += uint(GEMM_THREADS)) {
      uint m4 = e / uint(BK);
      uint kk = e % uint(BK);
      uint k = k0 + kk;
      GEMM_VEC v;
      for (int q = 0; q < 4; ++q) {
        uint m = m0 + m4 * 4u + uint(q);
        v[q] = (m < uint(M) && k < uint(K)) ? gemm_load_a(batch, m, k) : A_CT(0);
      }
      sA[kk][m4] = v;
    }
    for (uint e = tid; e < uint(BN / 4 * BK); e += uint(GEMM_THREADS)) {
      uint kk = e / uint(BN / 4);
      uint n4 = e % uint(BN / 4);
      uint k = k0 + kk;
      GEMM_VEC v;
      for (int q = 0; q < 4; ++q) {
        uint n = n0 + n4 * 4u + uint(q);
        v[q] = (n < uint(N) && k < uint(K)) ? gemm_load_b(batch, k, n) : A_CT(0);
      }
      sB[kk][n4] = v;
    }
    barrier();
    for (uint kk = 0u; kk < uint(BK); ++kk) {
      GEMM_VEC a[TM / 4];
      GEMM_VEC b[TN / 4];
      for (int i = 0; i < TM / 4; ++i) a[i] = sA[kk][ty + uint(i * (BM / TM))];
      for (int j = 0; j < TN / 4; ++j) b[j] = sB[kk][tx + uint(j * (BN / TN))];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] += ACC_CT(a[i / 4][i % 4]) * ACC_CT(b[j / 4][j % 4]);
    }
    barrier();
  }

  for (int i = 0; i < TM; ++i) {
    uint m = m0 + 4u * (ty + uint((i / 4) * (BM / TM))) + uint(i % 4);
    if (m >= uint(M)) continue;
    for (int j = 0; j < TN; ++j) {
      uint n = n0 + 4u * (tx + uint((j / 4) * (BN / TN))) + uint(j % 4);
      if (n < uint(N)) GEMM_STORE(batch, m, n, acc[i][j]);
    }
  }
}

#else
// +1 column of padding keeps a column walk off a single shared-memory bank.
shared A_CT sA[BK][BM + 1];
shared A_CT sB[BK][BN + 1];

void gemm_main() {
  uint tid = gl_LocalInvocationIndex;
  uint tx = tid % uint(BN / TN);
  uint ty = tid / uint(BN / TN);
  uint m0 = gl_WorkGroupID.y * uint(BM);
  uint n0 = gl_WorkGroupID.x * uint(BN);
  uint batch = gemm_batch();
  uint kEnd = gemm_k_end();

  ACC_CT acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) acc[i][j] = ACC_CT(0);

  for (uint k0 = gemm_k_begin(); k0 < kEnd; k0 += uint(BK)) {
    for (uint e = tid; e < uint(BM * BK); e += uint(GEMM_THREADS)) {
      uint mm = e / uint(BK);
      uint kk = e % uint(BK);
      uint m = m0 + mm;
      uint k = k0 + kk;
      sA[kk][mm] = (m < uint(M) && k < uint(K)) ? gemm_load_a(batch, m, k) : A_CT(0);
    }
    for (uint e = tid; e < uint(BN * BK); e += uint(GEMM_THREADS)) {
      uint kk = e / uint(BN);
      uint nn = e % uint(BN);
      uint n = n0 + nn;
      uint k = k0 + kk;
      sB[kk][nn] = (n < uint(N) && k < uint(K)) ? gemm_load_b(batch, k, n) : A_CT(0);
    }
    barrier();
    for (uint kk = 0u; kk < uint(BK); ++kk) {
      A_CT a[TM];
      A_CT b[TN];
      for (int i = 0; i < TM; ++i) a[i] = sA[kk][ty + uint(i * (BM / TM))];
      for (int j = 0; j < TN; ++j) b[j] = sB[kk][tx + uint(j * (BN / TN))];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] += ACC_CT(a[i]) * ACC_CT(b[j]);
    }
    barrier();
  }

  for (int i = 0; i < TM; ++i) {
    uint m = m0 + ty + uint(i * (BM / TM));
    if (m >= uint(M)) continue;
    for (int j = 0; j < TN; ++j) {
      uint n = n0 + tx + uint(j * (BN / TN));
      if (n < uint(N)) GEMM_STORE(batch, m, n, acc[i][j]);
    }
  }
}

#endif

#endif  // OVGF_GEMM_GLSL
