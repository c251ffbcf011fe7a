// SPDX-License-Identifier: Apache-2.0
// int8 GEMM core with packed 4 x 8-bit dot products (OpSDot, SPV_KHR_integer_dot_product,
// core in SPIR-V 1.6), the `native` target's path for int8 MATMUL and CONV2D on devices with
// shaderIntegerDotProduct but no integer cooperative matrices. Same contract and tiling as
// include/gemm.glsl (gemm_load_a / gemm_load_b / gemm_store, BM BN BK TM TN), plus
// GEMM_ZP_A / GEMM_ZP_B, the zero points that gemm_load_a / gemm_load_b subtract.
//
// The shared tiles hold the RAW int8 operands packed four consecutive k per word, so one
// OpSDot does four multiply-adds. Zero points are taken out exactly afterwards:
//   sum_k (a - za)(b - zb) = sum_k a*b - zb*sum_k a - za*sum_k b + K'*za*zb
// where positions outside the input (padding, k >= K) hold a = za and b = zb, so they add
// nothing, and K' is K rounded up to BK. The two sums are OpSDot products with a packed zero
// point. All arithmetic is int32 and wraps, so the result is exact whenever the true result
// fits in int32 (which TOSA requires of the accumulator). A split-K slice
// (include/gemm_split.glsl) applies the identity to its own K range (K' = its BK steps), so
// its partial sum is already corrected.
#ifndef OVGF_GEMM_DOT4_GLSL
#define OVGF_GEMM_DOT4_GLSL

#define GEMM_THREADS ((BN / TN) * (BM / TM))
#define BK4 (BK / 4)

#include "include/gemm_split.glsl"

// The split-K reduction pass takes gemm_main from include/gemm_split.glsl.
#if GEMM_SPLIT_PASS != 2

spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int ovgf_sdot4(uint a, uint b, spirv_literal int packedVectorFormat);

shared uint sA4[BK4][BM + 1];
shared uint sB4[BK4][BN + 1];

uint dot4_pack(int v0, int v1, int v2, int v3) {
  return (uint(v0) & 0xFFu) | ((uint(v1) & 0xFFu) << 8) | ((uint(v2) & 0xFFu) << 16) | (uint(v3) << 24);
}

// Raw operand (zero point added back); outside the matrix: the zero point.
int dot4_a(uint batch, uint m, uint k) {
  return (m < uint(M) && k < uint(K)) ? int(gemm_load_a(batch, m, k)) + int(GEMM_ZP_A) : int(GEMM_ZP_A);
}
int dot4_b(uint batch, uint k, uint n) {
  return (n < uint(N) && k < uint(K)) ? int(gemm_load_b(batch, k, n)) + int(GEMM_ZP_B) : int(GEMM_ZP_B);
}

void gemm_main() {
  uint tid = gl_LocalInvocationIndex;
  uint tx = tid % uint(BN / TN);
  uint ty = tid / uint(BN / TN);
  uint m0 = gl_WorkGroupID.y * uint(BM);
  uint n0 = gl_WorkGroupID.x * uint(BN);
  uint batch = gemm_batch();
  uint kEnd = gemm_k_end();
  const uint zpA4 = dot4_pack(GEMM_ZP_A, GEMM_ZP_A, GEMM_ZP_A, GEMM_ZP_A);
  const uint zpB4 = dot4_pack(GEMM_ZP_B, GEMM_ZP_B, GEMM_ZP_B, GEMM_ZP_B);

  int acc[TM][TN];
  int rowSum[TM];  // zb * sum_k a, per row
  int colSum[TN];  // za * sum_k b, per column
  for (int i = 0; i < TM; ++i) {
    rowSum[i] = 0;
    for (int j = 0; j < TN; ++j) acc[i][j] = 0;
  }
  for (int j = 0; j < TN; ++j) colSum[j] = 0;

  uint kPadded = 0u;
  for (uint k0 = gemm_k_begin(); k0 < kEnd; k0 += uint(BK)) {
    for (uint e = tid; e < uint(BM * BK4); e += uint(GEMM_THREADS)) {
      uint mm = e / uint(BK4);
      uint kq = e % uint(BK4);
      uint m = m0 + mm;
      uint k = k0 + kq * 4u;
      sA4[kq][mm] = dot4_pack(dot4_a(batch, m, k), dot4_a(batch, m, k + 1u), dot4_a(batch, m, k + 2u),
                              dot4_a(batch, m, k + 3u));
    }
    for (uint e = tid; e < uint(BN * BK4); e += uint(GEMM_THREADS)) {
      uint kq = e / uint(BN);
      uint nn = e % uint(BN);
      uint n = n0 + nn;
      uint k = k0 + kq * 4u;
      sB4[kq][nn] = dot4_pack(dot4_b(batch, k, n), dot4_b(batch, k + 1u, n), dot4_b(batch, k + 2u, n),
                              dot4_b(batch, k + 3u, n));
    }
    barrier();
    for (uint kq = 0u; kq < uint(BK4); ++kq) {
      uint a[TM];
      uint b[TN];
      for (int i = 0; i < TM; ++i) a[i] = sA4[kq][ty + uint(i * (BM / TM))];
      for (int j = 0; j < TN; ++j) b[j] = sB4[kq][tx + uint(j * (BN / TN))];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] += ovgf_sdot4(a[i], b[j], 0);
#if GEMM_ZP_B != 0
      for (int i = 0; i < TM; ++i) rowSum[i] += ovgf_sdot4(a[i], zpB4, 0);
#endif
#if GEMM_ZP_A != 0
      for (int j = 0; j < TN; ++j) colSum[j] += ovgf_sdot4(zpA4, b[j], 0);
#endif
    }
    barrier();
    kPadded += uint(BK);
  }

  const int constant = int(kPadded) * int(GEMM_ZP_A) * int(GEMM_ZP_B);
  for (int i = 0; i < TM; ++i) {
    uint m = m0 + ty + uint(i * (BM / TM));
    if (m >= uint(M)) continue;
    for (int j = 0; j < TN; ++j) {
      uint n = n0 + tx + uint(j * (BN / TN));
      if (n < uint(N)) GEMM_STORE(batch, m, n, ACC_CT(acc[i][j] - rowSum[i] - colSum[j] + constant));
    }
  }
}

#endif  // GEMM_SPLIT_PASS != 2

#endif  // OVGF_GEMM_DOT4_GLSL
