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
// and optionally the split-K defines of include/gemm_split.glsl. The vec4 register-block
// path (TM, TN multiples of 4) also takes:
//   GEMM_STAGES             1 (default) or 2 shared-memory buffers per operand
//   GEMM_VEC4_A             1: vec4 gemm_load_a4(batch, m, k), k..k+3 of row m (K % 4 == 0)
//   GEMM_VEC4_B             1: vec4 gemm_load_b4(batch, k, n), n..n+3 of row k (N % 4 == 0)
// and the core without shared memory (GEMM_STAGES 0) 64-bit words of fp32 or (GEMM_WORDS_I8)
// raw int8 operands:
//   GEMM_A64                1: GEMM_A_WORD gemm_load_a8(batch, m, k), k..k+7 of row m
//                           (K % 8 == 0; with GEMM_A_ROWS GEMM_A_WORD gemm_a8_at(row, tap));
//                           moved between lanes as doubles, so the module needs shaderFloat64
//   GEMM_B64                1: uint gemm_b_offset(batch, k, n), the element of B(k, n) in
//                           binding 1, read as a lane's TN columns in words (N % TN == 0)
//   GEMM_WORDS_I8           1: the words hold int8 values; GEMM_WORD_ZP_A / GEMM_WORD_ZP_B are
//                           the zero points gemm_load_a / gemm_load_b subtract
// (16-byte loads; zero points must be 0, which fp32 operands always have).
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

#ifndef GEMM_STAGES
#define GEMM_STAGES 1
#endif
// A vec4 of the operand type (GEMM_VEC), and whether fp32 operands are loaded as vec4s
// (templates that include include/gemm_coopmat_ext.glsl have these defaults already).
#define OVGF_VEC4_float vec4
#define OVGF_VEC4_int ivec4
#define GEMM_VEC OVGF_CAT(OVGF_VEC4_, A_CT)
#ifndef GEMM_VEC4_A
#define GEMM_VEC4_A 0
#endif
#ifndef GEMM_VEC4_B
#define GEMM_VEC4_B 0
#endif

#if GEMM_SPLIT_PASS == 2
// The reduction pass: gemm_main comes from include/gemm_split.glsl.
#elif GEMM_STAGES == 0
// No shared memory (CPU devices: the tuning table's CPU entry). On llvmpipe a subgroup is the
// SIMD vector (8 lanes of fp32 with AVX2) and every load whose address differs between lanes
// is a loop over the lanes, while subgroupBroadcast from a constant lane is one extract and
// one splat; barriers switch coroutines. So the BN/TN invocations of a row of the workgroup,
// which need the same A rows, are one subgroup (the converter chooses this core only where
// the device's subgroup size is BN/TN and subgroups are consecutive invocations, as on
// llvmpipe): each lane loads A_K consecutive k of each of its TM rows, the lanes pass them to
// each other by broadcast, and each lane reads its own B columns straight from memory. A
// convolution's gathered A then costs one index decode per row and GEMM_LANES * A_K steps of
// K, instead of a shared-memory round trip per operand. A template may define GEMM_A_ROWS
// with ivec3 gemm_a_row(batch, m) (a row decoded once, marked where m >= M), ivec3
// gemm_a_tap(k, kEnd) (a k decoded once for all rows, marked where k >= kEnd) and
// gemm_a_at / gemm_a4_at(row, tap) (the operand, 0 where either is marked): a convolution
// whose shape comes at run time then decodes each row once and each k once per step.
#if (TM % 4 != 0) || (TN % 4 != 0)
#error "GEMM_STAGES 0 takes register blocks of whole vec4s"
#endif
#define GEMM_LANES (BN / TN)
#if GEMM_A64 && GEMM_WORDS_I8
// 8 int8 operands in one double (see below), each sign-extended and its zero point taken out.
#define GEMM_A_K 8
#define GEMM_A_T double
#define GEMM_A_AT(v, c) \
  (bitfieldExtract(int(unpackDouble2x32(v)[(c) / 4u]), 8 * int((c) % 4u), 8) - int(GEMM_WORD_ZP_A))
#elif GEMM_A64
#define GEMM_A_K 8
// 8 fp32 operands as 4 doubles: subgroup operations take 64-bit floats with shaderFloat64
// alone (64-bit integers would need shaderSubgroupExtendedTypes); only the bits move.
#define GEMM_A_T dvec4
#define GEMM_A_AT(v, c) uintBitsToFloat(unpackDouble2x32((v)[(c) / 2u]))[(c) % 2u]
#elif GEMM_VEC4_A
#define GEMM_A_K 4
#define GEMM_A_T vec4
#define GEMM_A_AT(v, c) (v)[c]
#else
#define GEMM_A_K 1
#define GEMM_A_T A_CT
#define GEMM_A_AT(v, c) (v)
#endif
#define GEMM_ROUND (GEMM_LANES * GEMM_A_K)
// llvmpipe turns each load of a buffer (and each subgroupBroadcast from a lane that is not a
// constant) into a loop over the lanes that costs about 10 instructions per component, per
// lane: what counts is components, not bytes. 64-bit words halve the components of A's loads
// and broadcasts (GEMM_A64) and of B's loads (GEMM_B64): MobileNetV2 on lavapipe ran 18 %
// fewer instructions per inference (benchmarks/results/lavapipe-words-2026-11-29.md).
#if GEMM_B64 && (TN != 8 && TN != 4)
#error "GEMM_B64 takes register blocks 4 or 8 columns wide"
#elif GEMM_B64 && GEMM_WORDS_I8
#define GEMM_B_WORDS OVGF_CAT(OVGF_I8_WORDS_, TN)  // a lane's TN int8 columns
#define OVGF_I8_WORDS_8 uint64_t
#define OVGF_I8_WORDS_4 uint
#elif GEMM_B64
#define GEMM_B_WORDS OVGF_CAT(OVGF_F32_WORDS_, TN)  // a lane's TN fp32 columns
#define OVGF_F32_WORDS_8 u64vec4
#define OVGF_F32_WORDS_4 u64vec2
#endif
#if GEMM_B64
layout(set = 0, binding = 1) readonly buffer GemmBWords { GEMM_B_WORDS gemm_b_words[]; };
#endif
#if GEMM_A64 && GEMM_WORDS_I8
double gemm_as_doubles(uint64_t v) { return packDouble2x32(unpackUint2x32(v)); }
#elif GEMM_A64
dvec4 gemm_as_doubles(u64vec4 v) {
  return dvec4(packDouble2x32(unpackUint2x32(v.x)), packDouble2x32(unpackUint2x32(v.y)),
               packDouble2x32(unpackUint2x32(v.z)), packDouble2x32(unpackUint2x32(v.w)));
}
#endif
#if GEMM_B64 && GEMM_WORDS_I8
// The 4 int8 columns of a 32-bit word, sign-extended, zero point out.
ivec4 gemm_b_i8x4(uint word) {
  const int w = int(word);
  return ivec4(bitfieldExtract(w, 0, 8), bitfieldExtract(w, 8, 8), bitfieldExtract(w, 16, 8),
               bitfieldExtract(w, 24, 8)) - ivec4(GEMM_WORD_ZP_B);
}
#endif

void gemm_main() {
  uint tid = gl_LocalInvocationIndex;
  uint tx = tid % uint(GEMM_LANES);
  uint ty = tid / uint(GEMM_LANES);
  uint m0 = gl_WorkGroupID.y * uint(BM);
  uint n0 = gl_WorkGroupID.x * uint(BN);
  uint batch = gemm_batch();
  uint kBegin = gemm_k_begin();
  uint kEnd = gemm_k_end();
  // A subgroup whose rows all lie past M has nothing to compute or store, and no barrier or
  // other subgroup waits for it. Its first row is its smallest. With run-time shapes every
  // GEMM takes the 64-row tile, so a batch-1 classifier (M = 1) would otherwise run 8
  // subgroups where one has a row.
  if (m0 + 4u * ty >= uint(M)) return;

  ACC_CT acc[TM][TN];
  [[unroll]] for (int i = 0; i < TM; ++i)
    [[unroll]] for (int j = 0; j < TN; ++j) acc[i][j] = ACC_CT(0);

#ifdef GEMM_A_ROWS
  // The template's gathered rows, decoded once (gemm_a_row; rows past M are marked there).
  ivec3 rowA[TM];
  [[unroll]] for (int i = 0; i < TM; ++i) rowA[i] = gemm_a_row(batch, m0 + 4u * (ty + uint((i / 4) * (BM / TM))) + uint(i % 4));
#endif
  for (uint k0 = kBegin; k0 < kEnd; k0 += uint(GEMM_ROUND)) {
    // This lane's A_K operands of each row (rows as the register block lays them out).
    GEMM_A_T ra[TM];
    uint ka = k0 + gl_SubgroupInvocationID * uint(GEMM_A_K);
#ifdef GEMM_A_ROWS
    const ivec3 tapA = gemm_a_tap(ka, kEnd);
    [[unroll]] for (int i = 0; i < TM; ++i) {
#if GEMM_A64
      ra[i] = gemm_as_doubles(gemm_a8_at(rowA[i], tapA));
#elif GEMM_VEC4_A
      ra[i] = gemm_a4_at(rowA[i], tapA);
#else
      ra[i] = gemm_a_at(rowA[i], tapA);
#endif
    }
#else
    [[unroll]] for (int i = 0; i < TM; ++i) {
      uint m = m0 + 4u * (ty + uint((i / 4) * (BM / TM))) + uint(i % 4);
      ra[i] = GEMM_A_T(0);
#if GEMM_A64
      if (m < uint(M) && ka < kEnd) ra[i] = gemm_as_doubles(gemm_load_a8(batch, m, ka));
#elif GEMM_VEC4_A
      if (m < uint(M) && ka < kEnd) ra[i] = gemm_load_a4(batch, m, ka);
#else
      if (m < uint(M) && ka < kEnd) ra[i] = gemm_load_a(batch, m, ka);
#endif
    }
#endif
    // Not unrolled: unrolled over the lanes, the multiply block made each module 8x larger and
    // llvmpipe's LLVM compile of a MobileNetV2 about 5x longer (65 against 13 s of CPU); the
    // broadcast from a uniform, non-constant lane (SPIR-V 1.5+) is still one extract. Only the
    // lanes whose k are inside the slice: a GEMM shallower than a round (K = 16 against 32)
    // would otherwise multiply zeros, which compile-time shapes let the compiler cut and
    // run-time ones do not. K is a multiple of GEMM_A_K (GEMM_VEC4_A needs K % 4 == 0), so
    // every k of those lanes is inside and B needs no test of k.
    const uint lanes = min(uint(GEMM_LANES), (kEnd - k0 + uint(GEMM_A_K) - 1u) / uint(GEMM_A_K));
    [[dont_unroll]] for (uint l = 0u; l < lanes; ++l) {
      GEMM_A_T a[TM];
      [[unroll]] for (int i = 0; i < TM; ++i) a[i] = subgroupBroadcast(ra[i], l);
      [[unroll]] for (uint c = 0u; c < uint(GEMM_A_K); ++c) {
        uint k = k0 + l * uint(GEMM_A_K) + c;
        GEMM_VEC b[TN / 4];
#if GEMM_B64
        {
          // This lane's TN consecutive columns (all inside N or all past it: N % TN == 0).
          const uint n = n0 + uint(TN) * tx;
          GEMM_B_WORDS w = GEMM_B_WORDS(0);
          if (n < uint(N)) w = gemm_b_words[gemm_b_offset(batch, k, n) / uint(TN)];
#if GEMM_WORDS_I8 && TN == 8
          b[0] = gemm_b_i8x4(unpackUint2x32(w).x);
          b[1] = gemm_b_i8x4(unpackUint2x32(w).y);
#elif GEMM_WORDS_I8
          b[0] = gemm_b_i8x4(w);
#else
          [[unroll]] for (int j = 0; j < TN / 4; ++j) {
            b[j] = vec4(uintBitsToFloat(unpackUint2x32(w[2 * j])), uintBitsToFloat(unpackUint2x32(w[2 * j + 1])));
          }
#endif
        }
#else
        [[unroll]] for (int j = 0; j < TN / 4; ++j) {
          uint n = n0 + 4u * (tx + uint(j * (BN / TN)));
          b[j] = GEMM_VEC(0);
#if GEMM_VEC4_B
          if (n < uint(N)) b[j] = gemm_load_b4(batch, k, n);
#else
          [[unroll]] for (int q = 0; q < 4; ++q) {
            if (n + uint(q) < uint(N)) b[j][q] = gemm_load_b(batch, k, n + uint(q));
          }
#endif
        }
#endif
        [[unroll]] for (int i = 0; i < TM; ++i)
          [[unroll]] for (int j = 0; j < TN; ++j) acc[i][j] += ACC_CT(GEMM_A_AT(a[i], c)) * ACC_CT(b[j / 4][j % 4]);
      }
    }
  }

  // A row at a time, not unrolled over the rows: the epilogue (bias, RESCALE, CLAMP, a
  // residual...) is inlined at every store, and TM * TN copies of it were a large part of
  // each module's LLVM compile on llvmpipe. The row is picked out of the registers by
  // comparisons with the uniform row index (selects), which keeps acc in registers.
  [[dont_unroll]] for (int i = 0; i < TM; ++i) {
    uint m = m0 + 4u * (ty + uint((i / 4) * (BM / TM))) + uint(i % 4);
    if (m >= uint(M)) continue;
    ACC_CT row[TN];
    [[unroll]] for (int j = 0; j < TN; ++j) row[j] = acc[0][j];
    [[unroll]] for (int r = 1; r < TM; ++r)
      [[unroll]] for (int j = 0; j < TN; ++j) row[j] = i == r ? acc[r][j] : row[j];
    [[unroll]] for (int j = 0; j < TN; ++j) {
#if GEMM_B64
      uint n = n0 + uint(TN) * tx + uint(j);  // the columns the words above hold
#else
      uint n = n0 + 4u * (tx + uint((j / 4) * (BN / TN))) + uint(j % 4);
#endif
      if (n < uint(N)) GEMM_STORE(batch, m, n, row[j]);
    }
  }
}

#elif (TM % 4 == 0) && (TN % 4 == 0)
// Register blocks of whole vec4s: an invocation owns TM/4 groups of 4 consecutive rows
// (group ty + ii*BM/TM) and TN/4 groups of 4 consecutive columns (group tx + jj*BN/TN), and
// the inner loop reads each group from shared memory as one vec4. On lavapipe every
// shared-memory load instruction becomes a loop over the SIMD lanes, so one vec4 load
// instead of four scalar ones, and a larger register block per load, is what makes the
// GEMM fast there; GPUs get conflict-free 128-bit shared loads (neighbouring invocations
// read neighbouring vec4s) and stores that stay within 16-byte runs.
// One vec4 of padding per row: the staging stores of A walk k fastest, and the padded row
// stride spreads them over the banks. GEMM_STAGES == 2: two buffers, so the next K slice is
// written while the current one is read, with one barrier per slice instead of two.
shared GEMM_VEC sA[GEMM_STAGES][BK][BM / 4 + 1];
shared GEMM_VEC sB[GEMM_STAGES][BK][BN / 4 + 1];

// vec4s of A and B per K slice, and per invocation.
#define GEMM_A_VECS (BM * BK / 4)
#define GEMM_B_VECS (BN * BK / 4)
#define GEMM_A_PER ((GEMM_A_VECS + GEMM_THREADS - 1) / GEMM_THREADS)
#define GEMM_B_PER ((GEMM_B_VECS + GEMM_THREADS - 1) / GEMM_THREADS)

// Global -> registers: this invocation's vec4s of the K slice at k0, fetched before the
// current slice is multiplied so that the loads are in flight meanwhile. A's vec4 e holds
// 4 rows of one k (e % BK, row group e / BK; 4 loads), or with GEMM_VEC4_A 4 consecutive k
// of one row (row e / (BK/4); one 16-byte load through the template's gemm_load_a4, which
// needs K % 4 == 0). B's vec4 e holds 4 columns of k e / (BN/4) (gemm_load_b4 with
// GEMM_VEC4_B, which needs N % 4 == 0).
void gemm_fetch(uint batch, uint m0, uint n0, uint k0, uint tid, out GEMM_VEC ra[GEMM_A_PER],
                out GEMM_VEC rb[GEMM_B_PER]) {
  [[unroll]] for (int r = 0; r < GEMM_A_PER; ++r) {
    uint e = tid + uint(r * GEMM_THREADS);
    ra[r] = GEMM_VEC(0);
    if (e >= uint(GEMM_A_VECS)) continue;
#if GEMM_VEC4_A
    uint m = m0 + e / uint(BK / 4);
    uint k = k0 + (e % uint(BK / 4)) * 4u;
    if (m < uint(M) && k < uint(K)) ra[r] = gemm_load_a4(batch, m, k);
#else
    uint k = k0 + e % uint(BK);
    [[unroll]] for (int q = 0; q < 4; ++q) {
      uint m = m0 + (e / uint(BK)) * 4u + uint(q);
      if (m < uint(M) && k < uint(K)) ra[r][q] = gemm_load_a(batch, m, k);
    }
#endif
  }
  [[unroll]] for (int r = 0; r < GEMM_B_PER; ++r) {
    uint e = tid + uint(r * GEMM_THREADS);
    rb[r] = GEMM_VEC(0);
    if (e >= uint(GEMM_B_VECS)) continue;
    uint k = k0 + e / uint(BN / 4);
    uint n = n0 + (e % uint(BN / 4)) * 4u;
#if GEMM_VEC4_B
    if (n < uint(N) && k < uint(K)) rb[r] = gemm_load_b4(batch, k, n);
#else
    [[unroll]] for (int q = 0; q < 4; ++q) {
      if (n + uint(q) < uint(N) && k < uint(K)) rb[r][q] = gemm_load_b(batch, k, n + uint(q));
    }
#endif
  }
}

// Registers -> shared buffer `buf` (A as [k][row group], B as [k][column group]).
void gemm_stage(uint buf, uint tid, GEMM_VEC ra[GEMM_A_PER], GEMM_VEC rb[GEMM_B_PER]) {
  [[unroll]] for (int r = 0; r < GEMM_A_PER; ++r) {
    uint e = tid + uint(r * GEMM_THREADS);
    if (e >= uint(GEMM_A_VECS)) continue;
#if GEMM_VEC4_A
    uint mm = e / uint(BK / 4);
    uint kk = (e % uint(BK / 4)) * 4u;
    [[unroll]] for (int q = 0; q < 4; ++q) sA[buf][kk + uint(q)][mm / 4u][mm % 4u] = ra[r][q];
#else
    sA[buf][e % uint(BK)][e / uint(BK)] = ra[r];
#endif
  }
  [[unroll]] for (int r = 0; r < GEMM_B_PER; ++r) {
    uint e = tid + uint(r * GEMM_THREADS);
    if (e < uint(GEMM_B_VECS)) sB[buf][e / uint(BN / 4)][e % uint(BN / 4)] = rb[r];
  }
}

void gemm_main() {
  uint tid = gl_LocalInvocationIndex;
  uint tx = tid % uint(BN / TN);
  uint ty = tid / uint(BN / TN);
  uint m0 = gl_WorkGroupID.y * uint(BM);
  uint n0 = gl_WorkGroupID.x * uint(BN);
  uint batch = gemm_batch();
  uint kBegin = gemm_k_begin();
  uint kEnd = gemm_k_end();

  ACC_CT acc[TM][TN];
  [[unroll]] for (int i = 0; i < TM; ++i)
    [[unroll]] for (int j = 0; j < TN; ++j) acc[i][j] = ACC_CT(0);

  GEMM_VEC ra[GEMM_A_PER];
  GEMM_VEC rb[GEMM_B_PER];
  gemm_fetch(batch, m0, n0, kBegin, tid, ra, rb);
  gemm_stage(0u, tid, ra, rb);
  barrier();
  uint buf = 0u;
  for (uint k0 = kBegin; k0 < kEnd; k0 += uint(BK)) {
    // Uniform across the workgroup, so the barriers below stay in uniform control flow.
    bool more = k0 + uint(BK) < kEnd;
    if (more) gemm_fetch(batch, m0, n0, k0 + uint(BK), tid, ra, rb);
    [[unroll]] for (uint kk = 0u; kk < uint(BK); ++kk) {
      GEMM_VEC a[TM / 4];
      GEMM_VEC b[TN / 4];
      [[unroll]] for (int i = 0; i < TM / 4; ++i) a[i] = sA[buf][kk][ty + uint(i * (BM / TM))];
      [[unroll]] for (int j = 0; j < TN / 4; ++j) b[j] = sB[buf][kk][tx + uint(j * (BN / TN))];
      [[unroll]] for (int i = 0; i < TM; ++i)
        [[unroll]] for (int j = 0; j < TN; ++j) acc[i][j] += ACC_CT(a[i / 4][i % 4]) * ACC_CT(b[j / 4][j % 4]);
    }
#if GEMM_STAGES == 2
    if (more) gemm_stage(buf ^ 1u, tid, ra, rb);
    buf ^= 1u;
    barrier();
#else
    barrier();
    if (more) gemm_stage(0u, tid, ra, rb);
    barrier();
#endif
  }

  [[unroll]] for (int i = 0; i < TM; ++i) {
    uint m = m0 + 4u * (ty + uint((i / 4) * (BM / TM))) + uint(i % 4);
    if (m >= uint(M)) continue;
    [[unroll]] for (int j = 0; j < TN; ++j) {
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
