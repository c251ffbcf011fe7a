// SPDX-License-Identifier: Apache-2.0
// Cooperative-matrix GEMM core (GL_NV_cooperative_matrix), the `native` target's fast path
// for fp16 (and int8, with GL_NV_integer_cooperative_matrix) MATMUL and CONV2D. Same
// contract as include/gemm.glsl (gemm_load_a / gemm_load_b / gemm_store, M N K), so the
// templates switch between the two with one define.
//
// A workgroup computes a BM x BN output tile. Per BK step its invocations stage the A
// (BM x BK) and B (BK x BN) slices in shared memory as packed 16-byte chunks of the operand
// type (fp16 or int8), then each subgroup multiplies its WM x WN block of CM_M x CM_N
// accumulator tiles with coopMatMulAddNV. After
// the K loop each subgroup stores one accumulator tile at a time into a shared staging
// tile, and its invocations run the scalar epilogue (gemm_store) over it, so the epilogue
// (bias, RESCALE, CLAMP, residual ADD, ...) is the same code as the scalar kernel's.
// The next K slice is fetched into registers while the current one is multiplied and then
// written to the other of two shared buffers (one barrier per K slice).
//
// Defines (set by the converter; GEMM_COOPMAT=1 selects this file):
//   CM_M CM_N CM_K          one cooperative-matrix shape the device lists
//   CM_INT                  0: fp16 operands, 1: int8 operands with int32 accumulators
//   CM_F32_OPERANDS         1: the tensors are fp32, rounded to fp16 as they are written to
//                           shared memory (--precision fp16; include/gemm_coopmat_ext.glsl),
//                           or to bf16 with CM_BF16=1 (--precision bf16)
//   CM_NARROW_B             1: B (constant CONV2D weights) is stored in the fragments' type
//                           already, so only A is rounded
//   CM_STAGE                0: the epilogue stages one fragment at a time in sC; 1 / 2: a
//                           band of fragments at a time in sA / sB (CoopMatPlan::stagingBuffer)
//   CM_RESIDUAL_ACC         1: the accumulators start from the epilogue's input e0, the
//                           tensor its first operator (an ADD) adds (see below)
//   CM_RESIDUAL_F16         1: e0 is stored as fp16 (--precision fp16 storage)
//   CM_DIRECT_STORE         1: whole fragments start from the bias (the template's
//                           gemm_bias(n)) and, with CM_RESIDUAL_ACC, e0, run the epilogue on
//                           their components (epilogue_value) and are stored to out0 as they
//                           are (see below); CM_OUT_F16 1: out0 holds fp16
//   CM_ACC16                1: fp16 accumulators (TOSA acc_type fp16), else fp32
//   CM_SPLIT                1 (with CM_F32_OPERANDS and fp32 accumulators; --precision
//                           fp16x3): each fp32 operand x goes to shared memory as two fp16,
//                           hi (x rounded to 11 significant bits, cm_split_chunk) and
//                           lo = fp16((x - hi) * 2^11), 22 significant bits together.
//                           hi x hi accumulates in acc, hi x lo + lo x hi in corr, which
//                           is added to acc times 2^-11 after the K loop; lo x lo
//                           (2^-22 of the product) is dropped. Scaling lo keeps it in fp16's
//                           normal range wherever hi is, so both carry 11 bits. An operand
//                           whose hi is beyond fp16's range (|x| >= 65520) is infinite in
//                           fp16 and makes every accumulator of its row (A) or column (B)
//                           infinite or NaN; a workgroup whose accumulators end up so
//                           computes its tile again as fp32 dot products (cm_dot_f32): fp32's
//                           range and special values, at scalar speed, for that tile only.
//                           Testing the accumulators once costs nothing in the K loop, where
//                           testing each operand cost 4-10 % on an H200.
//                           With CM_BF16 (--precision bf16x3 / fp32-bf16) the parts are bf16
//                           instead, split by truncation (converter/kernels/bf16_split.h):
//                           hi, mid (in the lo buffers) and, with CM_SPLIT_PRODUCTS 6, lo (in
//                           the third buffers). acc takes hi x hi, corr the others unscaled
//                           (bf16 has fp32's range): hi x mid + mid x hi, and with 6 products
//                           hi x lo + lo x hi + mid x mid. The same rare path covers inf, NaN
//                           and fp32 overflow.
//   BM BN BK                workgroup tile; WM WN tiles per subgroup; SG subgroup size
//   CM_PREFETCH             1 (default): the next K slice is fetched while one is multiplied;
//                           2: the next two (two register sets, Target::coopMatPrefetchMaxDepth)
//   GEMM_RUN_A              1 (without GEMM_VEC_A): the template provides
//                           void gemm_load_a_run(batch, m, k, out A_CT v[CM_CHUNK]), the
//                           operands k .. k + CM_CHUNK - 1 of row m, 0 outside M x K, so
//                           that it decodes m and k once per chunk rather than per element
//   GEMM_VEC_A, GEMM_VEC_B  1: the template provides CM_FETCH_T gemm_load_a_vec(batch, m, k) /
//                           CM_FETCH_B_T gemm_load_b_vec(batch, k, n), one aligned chunk of CH
//                           consecutive raw operands (zero points 0, chunk inside K / N)
// Workgroup: (BM / (WM*CM_M)) * (BN / (WN*CM_N)) subgroups of SG invocations.
#ifndef OVGF_GEMM_COOPMAT_GLSL
#define OVGF_GEMM_COOPMAT_GLSL

#if CM_INT
#define CM_AMAT icoopmatNV<8, gl_ScopeSubgroup, CM_M, CM_K>
#define CM_BMAT icoopmatNV<8, gl_ScopeSubgroup, CM_K, CM_N>
#define CM_CMAT icoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>
#define CM_ACC_T int
#elif CM_ACC16
#define CM_AMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K>
#define CM_BMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N>
#define CM_CMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_N>
#define CM_ACC_T float16_t
#else
#define CM_AMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K>
#define CM_BMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N>
#define CM_CMAT fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>
#define CM_ACC_T float
#endif

#define CM_SG_M (BM / (WM * CM_M))  // subgroups along M
#define CM_SG_N (BN / (WN * CM_N))  // subgroups along N
#define GEMM_THREADS (CM_SG_M * CM_SG_N * SG)

#include "include/gemm_split.glsl"

// The split-K reduction pass takes gemm_main from include/gemm_split.glsl.
#if GEMM_SPLIT_PASS != 2

// Operands live in shared memory as 16-byte chunks (uvec4) of CH consecutive elements along
// K (A) or N (B): one 16-byte store per chunk, and cooperative loads read 16-byte aligned
// rows. Row strides are padded by one chunk so that consecutive rows start in different
// shared-memory banks. Strides and offsets below are in chunks.
#define CH CM_CHUNK
#define SA_STRIDE (BK / CH + 1)
#define SB_STRIDE (BN / CH + 1)
// Two buffers per operand: while the subgroups multiply one K slice, the next is written to
// the other, so one barrier per slice suffices.
#define SA_SIZE (BM * SA_STRIDE)
#define SB_SIZE (BK * SB_STRIDE)
shared uvec4 sA[2 * SA_SIZE];  // [buffer][m][k / CH]
shared uvec4 sB[2 * SB_SIZE];  // [buffer][k][n / CH]
#ifndef CM_SPLIT
#define CM_SPLIT 0
#endif
#if CM_SPLIT
#if !CM_F32_OPERANDS || CM_ACC16 || CM_INT || CM_NARROW_B
#error "CM_SPLIT needs fp32 operands rounded to fp16 or bf16 and fp32 accumulators"
#endif
#ifndef CM_SPLIT_PRODUCTS
#define CM_SPLIT_PRODUCTS 3
#endif
#if CM_SPLIT_PRODUCTS == 6 && !CM_BF16
#error "six products split operands into three bf16 parts"
#endif
shared uvec4 sALo[2 * SA_SIZE];  // the lo halves (bf16: mid parts), laid out as sA and sB
shared uvec4 sBLo[2 * SB_SIZE];
#if CM_SPLIT_PRODUCTS == 6
shared uvec4 sAThird[2 * SA_SIZE];  // bf16 lo parts
shared uvec4 sBThird[2 * SB_SIZE];
#endif
shared bool cmOutOfRange;  // some accumulator of the workgroup is not finite
#endif
#ifndef CM_STAGE
#define CM_STAGE 0
#endif
#if CM_STAGE == 0
shared CM_ACC_T sC[CM_SG_M * CM_SG_N * CM_M * CM_N];  // one staging tile per subgroup
#endif

#define A_CHUNKS (BM * BK / CH)
#define B_CHUNKS (BK * BN / CH)
#define A_PER_THREAD ((A_CHUNKS + GEMM_THREADS - 1) / GEMM_THREADS)
#define B_PER_THREAD ((B_CHUNKS + GEMM_THREADS - 1) / GEMM_THREADS)

// Packs four consecutive operands into one 32-bit word (fp16 pairs or int8 bytes).
#if CM_INT
uint cm_pack4(A_CT v0, A_CT v1, A_CT v2, A_CT v3) {
  return (uint(v0) & 0xFFu) | ((uint(v1) & 0xFFu) << 8) | ((uint(v2) & 0xFFu) << 16) | (uint(v3) << 24);
}
#elif !CM_F32_OPERANDS
uint cm_pack2(A_CT v0, A_CT v1) { return packFloat2x16(f16vec2(float16_t(v0), float16_t(v1))); }
#endif

// A fetched chunk as shared memory holds it: fp32 operands are rounded here, after the
// multiplies that overlap their loads (include/gemm_coopmat_ext.glsl).
#if CM_F32_OPERANDS
#if CM_SPLIT && CM_BF16
// The bf16 parts of four operands by truncation, as splitToBf16 in
// converter/kernels/bf16_split.cpp (tests emulate the core with it): hi = x's top 16 bits,
// mid = the top 16 bits of x - hi, lo = those of x - hi - mid (both differences exact).
// inf and NaN stay in hi (a NaN keeps a NaN's bits there), with mid = lo = 0 rather than
// inf - inf; a nonzero x below 2^-96, whose parts could fall below fp32's normal range, makes
// hi a NaN. Either sends the tile to the fp32 path (cm_dot_f32). Returned as bit patterns in
// the top halves of words.
void cm_split4(vec4 x, out uvec4 hi, out uvec4 mid, out uvec4 lo) {
  const uvec4 bits = floatBitsToUint(x);
  const uvec4 magnitude = bits & 0x7FFFFFFFu;
  const bvec4 tiny = lessThan(magnitude - 1u, uvec4(0x0F7FFFFFu));  // 0 < |x| < 2^-96
  const bvec4 nan = greaterThan(magnitude, uvec4(0x7F800000u));
  const bvec4 whole = lessThan(magnitude - 0x0F800000u, uvec4(0x70000000u));  // 2^-96 <= |x| < inf
  hi = mix(mix(bits & 0xFFFF0000u, bits | 0x00400000u, nan), uvec4(0x7FC00000u), tiny) & 0xFFFF0000u;
  const vec4 rest = mix(vec4(0.0), x - uintBitsToFloat(bits & 0xFFFF0000u), whole);
  mid = floatBitsToUint(rest) & 0xFFFF0000u;
  lo = floatBitsToUint(rest - uintBitsToFloat(mid)) & 0xFFFF0000u;
}
// Two words of bf16 pairs from the top halves of four.
uvec2 cm_bf16_pairs(uvec4 w) { return uvec2((w.x >> 16) | (w.y & 0xFFFF0000u), (w.z >> 16) | (w.w & 0xFFFF0000u)); }
// A fetched chunk as its hi, mid and (six products) lo chunks.
#if CM_SPLIT_PRODUCTS == 6
void cm_split_chunk(mat2x4 c, out uvec4 hi, out uvec4 mid, out uvec4 lo) {
#else
void cm_split_chunk(mat2x4 c, out uvec4 hi, out uvec4 mid) {
  uvec4 lo;
#endif
  uvec4 h0, m0, l0, h1, m1, l1;
  cm_split4(c[0], h0, m0, l0);
  cm_split4(c[1], h1, m1, l1);
  hi = uvec4(cm_bf16_pairs(h0), cm_bf16_pairs(h1));
  mid = uvec4(cm_bf16_pairs(m0), cm_bf16_pairs(m1));
  lo = uvec4(cm_bf16_pairs(l0), cm_bf16_pairs(l1));
}
#elif CM_SPLIT
// The hi and lo halves of four operands. hi is x rounded to 11 significant bits in the
// integer domain (add half of the dropped part, clear it): a conversion to fp16 and back
// would give the same value where x is in fp16's range, but the driver may fold such a
// pair into x (measured: results were those of plain fp16 operands). hi is 0 where it would
// fall below fp16's normal range, leaving x to lo, which is then normal down to 2^-25.
// x - hi is exact in fp32.
void cm_split4(vec4 x, out uvec2 hi, out uvec2 lo) {
  vec4 h = uintBitsToFloat((floatBitsToUint(x) + 0x1000u) & 0xFFFFE000u);
  h = mix(h, vec4(0.0), lessThan(abs(h), vec4(1.0 / 16384.0)));
  const vec4 rest = (x - h) * 2048.0;
  hi = uvec2(packFloat2x16(f16vec2(h.xy)), packFloat2x16(f16vec2(h.zw)));
  lo = uvec2(packFloat2x16(f16vec2(rest.xy)), packFloat2x16(f16vec2(rest.zw)));
}
// A fetched chunk as its hi and lo chunks.
void cm_split_chunk(mat2x4 c, out uvec4 hi, out uvec4 lo) {
  cm_split4(c[0], hi.xy, lo.xy);
  cm_split4(c[1], hi.zw, lo.zw);
}
#else
uvec4 cm_pack_chunk(mat2x4 c) {
  return uvec4(CM_HALF2(c[0].xy), CM_HALF2(c[0].zw), CM_HALF2(c[1].xy), CM_HALF2(c[1].zw));
}
#endif
#if CM_NARROW_B
uvec4 cm_pack_chunk(uvec4 c) { return c; }  // B already in the fragments' type
#if !GEMM_VEC_B
#error "CM_NARROW_B needs the 16-byte B view (GEMM_VEC_B)"
#endif
#endif
#else
#define cm_pack_chunk(c) (c)
#endif

// Element-wise chunk loads (any layout, padding, zero points already applied by the
// template); out-of-range elements are zero.
A_CT cm_a(uint batch, uint m, uint k) { return (m < uint(M) && k < uint(K)) ? gemm_load_a(batch, m, k) : A_CT(0); }
A_CT cm_b(uint batch, uint k, uint n) { return (n < uint(N) && k < uint(K)) ? gemm_load_b(batch, k, n) : A_CT(0); }

CM_FETCH_T cm_chunk_a(uint batch, uint m, uint k) {
#if GEMM_VEC_A
  return (m < uint(M) && k < uint(K)) ? gemm_load_a_vec(batch, m, k) : CM_FETCH_ZERO;
#elif GEMM_RUN_A
  A_CT v[CH];
  gemm_load_a_run(batch, m, k, v);
#if CM_F32_OPERANDS
  return mat2x4(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
#else
  uvec4 c;
  [[unroll]] for (int w = 0; w < 4; ++w) {
#if CM_INT
    c[w] = cm_pack4(v[4 * w], v[4 * w + 1], v[4 * w + 2], v[4 * w + 3]);
#else
    c[w] = cm_pack2(v[2 * w], v[2 * w + 1]);
#endif
  }
  return c;
#endif
#elif CM_F32_OPERANDS
  return mat2x4(cm_a(batch, m, k), cm_a(batch, m, k + 1u), cm_a(batch, m, k + 2u), cm_a(batch, m, k + 3u),
                cm_a(batch, m, k + 4u), cm_a(batch, m, k + 5u), cm_a(batch, m, k + 6u), cm_a(batch, m, k + 7u));
#else
  uvec4 c;
  for (int w = 0; w < 4; ++w) {
#if CM_INT
    uint kk = k + uint(4 * w);
    c[w] = cm_pack4(cm_a(batch, m, kk), cm_a(batch, m, kk + 1u), cm_a(batch, m, kk + 2u), cm_a(batch, m, kk + 3u));
#else
    uint kk = k + uint(2 * w);
    c[w] = cm_pack2(cm_a(batch, m, kk), cm_a(batch, m, kk + 1u));
#endif
  }
  return c;
#endif
}

CM_FETCH_B_T cm_chunk_b(uint batch, uint k, uint n) {
#if GEMM_VEC_B
  return (n < uint(N) && k < uint(K)) ? gemm_load_b_vec(batch, k, n) : CM_FETCH_B_ZERO;
#elif CM_F32_OPERANDS
  return mat2x4(cm_b(batch, k, n), cm_b(batch, k, n + 1u), cm_b(batch, k, n + 2u), cm_b(batch, k, n + 3u),
                cm_b(batch, k, n + 4u), cm_b(batch, k, n + 5u), cm_b(batch, k, n + 6u), cm_b(batch, k, n + 7u));
#else
  uvec4 c;
  for (int w = 0; w < 4; ++w) {
#if CM_INT
    uint nn = n + uint(4 * w);
    c[w] = cm_pack4(cm_b(batch, k, nn), cm_b(batch, k, nn + 1u), cm_b(batch, k, nn + 2u), cm_b(batch, k, nn + 3u));
#else
    uint nn = n + uint(2 * w);
    c[w] = cm_pack2(cm_b(batch, k, nn), cm_b(batch, k, nn + 1u));
#endif
  }
  return c;
#endif
}

// Global -> registers: this invocation's chunks of the K slice starting at k0.
void fetch_slice(uint batch, uint m0, uint n0, uint k0, uint tid, out CM_FETCH_T ra[A_PER_THREAD], out CM_FETCH_B_T rb[B_PER_THREAD]) {
  [[unroll]] for (int r = 0; r < A_PER_THREAD; ++r) {
    uint e = tid + uint(r * GEMM_THREADS);
    uint m = m0 + e / uint(BK / CH);
    uint k = k0 + (e % uint(BK / CH)) * uint(CH);
    ra[r] = e < uint(A_CHUNKS) ? cm_chunk_a(batch, m, k) : CM_FETCH_ZERO;
  }
  [[unroll]] for (int r = 0; r < B_PER_THREAD; ++r) {
    uint e = tid + uint(r * GEMM_THREADS);
    uint k = k0 + e / uint(BN / CH);
    uint n = n0 + (e % uint(BN / CH)) * uint(CH);
    rb[r] = e < uint(B_CHUNKS) ? cm_chunk_b(batch, k, n) : CM_FETCH_B_ZERO;
  }
}

#if CM_SPLIT && CM_SPLIT_PRODUCTS == 6
#define CM_SPLIT_STORE(c, HI, LO, THIRD, at) cm_split_chunk(c, HI[at], LO[at], THIRD[at])
#elif CM_SPLIT
#define CM_SPLIT_STORE(c, HI, LO, THIRD, at) cm_split_chunk(c, HI[at], LO[at])
#endif
// Registers -> shared buffer `buf`.
void store_slice(uint buf, uint tid, CM_FETCH_T ra[A_PER_THREAD], CM_FETCH_B_T rb[B_PER_THREAD]) {
  [[unroll]] for (int r = 0; r < A_PER_THREAD; ++r) {
    uint e = tid + uint(r * GEMM_THREADS);
#if CM_SPLIT
    if (e >= uint(A_CHUNKS)) continue;
    const uint at = buf * uint(SA_SIZE) + (e / uint(BK / CH)) * uint(SA_STRIDE) + e % uint(BK / CH);
    CM_SPLIT_STORE(ra[r], sA, sALo, sAThird, at);
#else
    if (e < uint(A_CHUNKS)) sA[buf * uint(SA_SIZE) + (e / uint(BK / CH)) * uint(SA_STRIDE) + e % uint(BK / CH)] = cm_pack_chunk(ra[r]);
#endif
  }
  [[unroll]] for (int r = 0; r < B_PER_THREAD; ++r) {
    uint e = tid + uint(r * GEMM_THREADS);
#if CM_SPLIT
    if (e >= uint(B_CHUNKS)) continue;
    const uint at = buf * uint(SB_SIZE) + (e / uint(BN / CH)) * uint(SB_STRIDE) + e % uint(BN / CH);
    CM_SPLIT_STORE(rb[r], sB, sBLo, sBThird, at);
#else
    if (e < uint(B_CHUNKS)) sB[buf * uint(SB_SIZE) + (e / uint(BN / CH)) * uint(SB_STRIDE) + e % uint(BN / CH)] = cm_pack_chunk(rb[r]);
#endif
  }
}

#if CM_STAGE
// The epilogue's band: CM_M rows of WN * CM_N accumulators, CM_ACC_PER_CHUNK per 16-byte
// chunk, rows padded by one chunk.
#if CM_STAGE == 1
#define CM_STAGE_BUF sA
#else
#define CM_STAGE_BUF sB
#endif
#define CM_ACC_PER_CHUNK (CM_ACC16 != 0 ? 8 : 4)
#define CM_BAND_COLS (WN * CM_N)
#define CM_BAND_STRIDE (CM_BAND_COLS / CM_ACC_PER_CHUNK + 1)
#define CM_BAND_SIZE (CM_M * CM_BAND_STRIDE)
// Accumulator `c` of the staged row that starts at chunk `row`.
CM_ACC_T cm_staged(uint row, uint c) {
  const uvec4 q = CM_STAGE_BUF[row + c / uint(CM_ACC_PER_CHUNK)];
#if CM_ACC16
  return unpackFloat2x16(q[(c % 8u) / 2u])[c % 2u];
#else
  return uintBitsToFloat(q[c % 4u]);
#endif
}
#endif

// CM_RESIDUAL_ACC: every fragment that lies wholly inside M x N loads its accumulators from
// e0 (fp32, indexed like the output) instead of starting from zero, and the epilogue adds 0
// for it; fragments at the edges add e0 in the epilogue. The converter asks for it only under
// --precision and only where the ADD of e0 is the epilogue's first operator and e0's only use,
// so the sum changes only its order: (e0 + products) + bias for (products + bias) + e0. Read
// element by element in the epilogue, a residual ADD made the core 2-4x slower on an H100,
// one read per store as much as a fragment row or a band read ahead, where one matrix load
// per fragment costs little (benchmarks/results/experiments/h100-gemm-limits.md, call 9).
#if !defined(CM_RESIDUAL_ACC) || NUM_EPI != 1 || GEMM_SPLIT_K > 1
#undef CM_RESIDUAL_ACC
#define CM_RESIDUAL_ACC 0
#endif
#ifndef CM_RESIDUAL_F16
#define CM_RESIDUAL_F16 0
#endif
// CM_DIRECT_STORE: the converter asks for it where the epilogue is per element (scalar
// constants besides the residual e0, no transpose), e0 is stored as fp16 and CM_M == CM_K.
// Before the K loop the second A buffer holds CM_M rows of the tile's BN biases (fp32) and an
// fp16 identity fragment; a whole fragment starts as those bias rows, plus identity x e0 (e0's
// block loaded as a B fragment, exact in the fp32 accumulators). After the loop it runs
// epilogue_value on each of its components, whose positions it need not know, and is stored
// with one matrix store, where the staged epilogue reads, computes and writes element by
// element. Fragments at the edges of M x N start from zero and take the staged epilogue.
#ifndef CM_DIRECT_STORE
#define CM_DIRECT_STORE 0
#endif
#if CM_DIRECT_STORE
#if CM_STAGE != 0 || GEMM_SPLIT_K > 1 || CM_ACC16 || CM_INT
#error "CM_DIRECT_STORE needs fp32 accumulators, fragment staging and one kernel"
#endif
#define CM_BIAS_CHUNKS (CM_M * BN / 4)
#if CM_OUT_F16
#define CM_OUT_MAT fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_N>
#else
#define CM_OUT_MAT CM_CMAT
#endif
void cm_fill_direct_store(uint n0, uint tid) {
  for (uint e = tid; e < uint(CM_BIAS_CHUNKS); e += uint(GEMM_THREADS)) {
    const uint n = n0 + (e % uint(BN / 4)) * 4u;
    uvec4 c;
    [[unroll]] for (uint q = 0u; q < 4u; ++q) c[q] = floatBitsToUint(n + q < uint(N) ? float(gemm_bias(n + q)) : 0.0);
    sA[uint(SA_SIZE) + e] = c;
  }
#if CM_RESIDUAL_ACC
  for (uint e = tid; e < uint(CM_M * CM_K / 8); e += uint(GEMM_THREADS)) {
    const uint row = e / uint(CM_K / 8), col = (e % uint(CM_K / 8)) * 8u;
    uvec4 c;
    [[unroll]] for (uint q = 0u; q < 4u; ++q) {
      c[q] = packFloat2x16(f16vec2(col + 2u * q == row ? 1.0 : 0.0, col + 2u * q + 1u == row ? 1.0 : 0.0));
    }
    sA[uint(SA_SIZE + CM_BIAS_CHUNKS) + e] = c;
  }
#endif
}
#endif
// CM_PARTIAL_STORE: a split-K partial pass stores its whole fragments' raw accumulators to
// gemm_partial with one matrix store each instead of staging them for the element-wise store;
// fragments at the edges of M x N are staged. The converter asks for it with fp32
// accumulators, fragment staging (CM_STAGE 0) and N a multiple of 8.
#ifndef CM_PARTIAL_STORE
#define CM_PARTIAL_STORE 0
#endif
#if CM_PARTIAL_STORE && (GEMM_SPLIT_K < 2 || GEMM_SPLIT_PASS != 1 || CM_STAGE != 0 || CM_ACC16 || CM_INT)
#undef CM_PARTIAL_STORE
#define CM_PARTIAL_STORE 0
#endif
#if CM_RESIDUAL_ACC || CM_DIRECT_STORE || CM_PARTIAL_STORE
bool cm_whole_fragment(uint mFirst, uint nFirst) {
  return mFirst + uint(CM_M) <= uint(M) && nFirst + uint(CM_N) <= uint(N);
}
#endif
#if CM_SPLIT
// corr's scale: fp16 lo halves are scaled by 2^11 (cm_split4), bf16 parts are not.
#if CM_BF16
#define CM_SPLIT_SCALE 1.0
#else
#define CM_SPLIT_SCALE (1.0 / 2048.0)
#endif
// One output of this workgroup's K range as an fp32 dot product: the rare path of a tile
// whose operands do not fit fp16x3 (see CM_SPLIT above).
float cm_dot_f32(uint batch, uint m, uint n) {
  float sum = 0.0;
  for (uint k = gemm_k_begin(); k < gemm_k_end(); ++k) sum = fma(cm_a(batch, m, k), cm_b(batch, k, n), sum);
  return sum;
}
#endif

#if CM_RESIDUAL_ACC
// e0 of one element for the epilogue: 0 when its fragment started from it.
EPI0_CT cm_residual(uint batch, uint m, uint n, bool started) {
  return started ? EPI0_CT(0) : EPI0_LD(epi0[gemm_out_index(batch, m, n)]);
}
#define CM_STORE(batch, m, n, v, started) gemm_store_with(batch, m, n, v, cm_residual(batch, m, n, started))
#else
#define CM_STORE(batch, m, n, v, started) GEMM_STORE(batch, m, n, v)
#endif

// One CM_K step (kk) of buffer `cur`: this subgroup's A fragments first, then each B fragment just
// before the products that use it, so one B fragment is live at a time instead of WN and its
// products start while the next one loads (fp16 MATMUL 4096 on an H200: 432 against 451 us;
// convolutions and fp16x3 unchanged; benchmarks/results/experiments/h100-gemm-limits.md, calls
// 36-37). Each accumulator sums the K steps in the same order either way. With CM_SPLIT, hi x hi
// goes into acc and the cross products into corr, from the lo fragments (sALo, sBLo: the same
// layout) loaded beside the hi ones.
#if CM_SPLIT && CM_SPLIT_PRODUCTS == 6
// bf16 lo parts: hi x lo + lo x hi + mid x mid into corr too.
#define CM_THIRD_A CM_AMAT faThird[WM];
#define CM_LOAD_THIRD_A(i, at) coopMatLoadNV(faThird[i], sAThird, at, uint(SA_STRIDE), false)
#define CM_LOAD_THIRD_B()                                                                           \
  CM_BMAT fbThird;                                                                                  \
  coopMatLoadNV(fbThird, sBThird, at, uint(SB_STRIDE), false)
#define CM_THIRD_PRODUCTS(i, j)                                                                     \
  corr[i][j] = coopMatMulAddNV(fa[i], fbThird, corr[i][j]);                                         \
  corr[i][j] = coopMatMulAddNV(faThird[i], fb, corr[i][j]);                                         \
  corr[i][j] = coopMatMulAddNV(faLo[i], fbLo, corr[i][j])
#else
#define CM_THIRD_A
#define CM_LOAD_THIRD_A(i, at)
#define CM_LOAD_THIRD_B()
#define CM_THIRD_PRODUCTS(i, j)
#endif
#if CM_SPLIT
#define CM_MULTIPLY_STEP()                                                                          \
  CM_AMAT fa[WM];                                                                                   \
  CM_AMAT faLo[WM];                                                                                 \
  CM_THIRD_A                                                                                        \
  [[unroll]] for (int i = 0; i < WM; ++i) {                                                         \
    const uint at = cur * uint(SA_SIZE) + (sgM * uint(WM) + uint(i)) * uint(CM_M) * uint(SA_STRIDE) + kk / uint(CH); \
    coopMatLoadNV(fa[i], sA, at, uint(SA_STRIDE), false);                                           \
    coopMatLoadNV(faLo[i], sALo, at, uint(SA_STRIDE), false);                                       \
    CM_LOAD_THIRD_A(i, at);                                                                         \
  }                                                                                                 \
  [[unroll]] for (int j = 0; j < WN; ++j) {                                                         \
    CM_BMAT fb;                                                                                     \
    CM_BMAT fbLo;                                                                                   \
    const uint at = cur * uint(SB_SIZE) + kk * uint(SB_STRIDE) + (sgN * uint(WN) + uint(j)) * uint(CM_N) / uint(CH); \
    coopMatLoadNV(fb, sB, at, uint(SB_STRIDE), false);                                              \
    coopMatLoadNV(fbLo, sBLo, at, uint(SB_STRIDE), false);                                          \
    CM_LOAD_THIRD_B();                                                                              \
    [[unroll]] for (int i = 0; i < WM; ++i) {                                                       \
      acc[i][j] = coopMatMulAddNV(fa[i], fb, acc[i][j]);                                            \
      corr[i][j] = coopMatMulAddNV(fa[i], fbLo, corr[i][j]);                                        \
      corr[i][j] = coopMatMulAddNV(faLo[i], fb, corr[i][j]);                                        \
      CM_THIRD_PRODUCTS(i, j);                                                                      \
    }                                                                                               \
  }
#else
#define CM_MULTIPLY_STEP()                                                                          \
  CM_AMAT fa[WM];                                                                                   \
  [[unroll]] for (int i = 0; i < WM; ++i) {                                                         \
    uint row = (sgM * uint(WM) + uint(i)) * uint(CM_M);                                             \
    coopMatLoadNV(fa[i], sA, cur * uint(SA_SIZE) + row * uint(SA_STRIDE) + kk / uint(CH), uint(SA_STRIDE), false); \
  }                                                                                                 \
  [[unroll]] for (int j = 0; j < WN; ++j) {                                                         \
    CM_BMAT fb;                                                                                     \
    uint col = (sgN * uint(WN) + uint(j)) * uint(CM_N);                                             \
    coopMatLoadNV(fb, sB, cur * uint(SB_SIZE) + kk * uint(SB_STRIDE) + col / uint(CH), uint(SB_STRIDE), false); \
    [[unroll]] for (int i = 0; i < WM; ++i) acc[i][j] = coopMatMulAddNV(fa[i], fb, acc[i][j]);       \
  }
#endif
// Multiplies the K slice in shared buffer BUF into this subgroup's accumulators.
#define CM_MULTIPLY_SLICE(BUF)                                                                      \
  {                                                                                                 \
    const uint cur = (BUF);                                                                         \
    [[unroll]] for (uint kk = 0u; kk < uint(BK); kk += uint(CM_K)) {                                \
      CM_MULTIPLY_STEP();                                                                           \
    }                                                                                               \
  }
#ifndef CM_PREFETCH
#define CM_PREFETCH 1
#endif

void gemm_main() {
  uint tid = gl_LocalInvocationIndex;
  uint sg = tid / uint(SG);
  uint lane = tid % uint(SG);
  uint sgM = sg / uint(CM_SG_N);
  uint sgN = sg % uint(CM_SG_N);
  uint m0 = gl_WorkGroupID.y * uint(BM);
  uint n0 = gl_WorkGroupID.x * uint(BN);
  uint batch = gemm_batch();

#if CM_DIRECT_STORE
  cm_fill_direct_store(n0, tid);
  barrier();
#endif
  // Fragment arrays are indexed with unrolled constant indices only, so they stay in registers.
  CM_CMAT acc[WM][WN];
#if CM_SPLIT
  CM_CMAT corr[WM][WN];
  [[unroll]] for (int i = 0; i < WM; ++i)
    [[unroll]] for (int j = 0; j < WN; ++j) corr[i][j] = CM_CMAT(CM_ACC_T(0));
#endif
  [[unroll]] for (int i = 0; i < WM; ++i) {
    [[unroll]] for (int j = 0; j < WN; ++j) {
      acc[i][j] = CM_CMAT(CM_ACC_T(0));
#if CM_RESIDUAL_ACC || CM_DIRECT_STORE
      const uint mFirst = m0 + (sgM * uint(WM) + uint(i)) * uint(CM_M);
      const uint nFirst = n0 + (sgN * uint(WN) + uint(j)) * uint(CM_N);
      if (cm_whole_fragment(mFirst, nFirst)) {
#if CM_DIRECT_STORE
        coopMatLoadNV(acc[i][j], sA, uint(SA_SIZE) + (sgN * uint(WN) + uint(j)) * uint(CM_N / 4), uint(BN / 4), false);
#if CM_RESIDUAL_ACC
        CM_AMAT identity;
        coopMatLoadNV(identity, sA, uint(SA_SIZE + CM_BIAS_CHUNKS), uint(CM_K / 8), false);
        CM_BMAT residual;
        coopMatLoadNV(residual, epi0, gemm_out_index(batch, mFirst, nFirst), uint(N), false);
        acc[i][j] = coopMatMulAddNV(identity, residual, acc[i][j]);
#endif
#elif CM_RESIDUAL_F16
        fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_N> residual;
        coopMatLoadNV(residual, epi0, gemm_out_index(batch, mFirst, nFirst), uint(N), false);
        acc[i][j] = CM_CMAT(residual);
#else
        coopMatLoadNV(acc[i][j], epi0, gemm_out_index(batch, mFirst, nFirst), uint(N), false);
#endif
      }
#endif
    }
  }

  // The next K slice is fetched into registers (global loads in flight) while the current
  // one is multiplied, then written to the other shared buffer.
  CM_FETCH_T ra[A_PER_THREAD];
  CM_FETCH_B_T rb[B_PER_THREAD];
  // BK steps [first, last) of this workgroup's K range (gemm_k_begin() is a multiple of BK).
  const uint first = gemm_k_begin() / uint(BK);
  const uint last = (gemm_k_end() + uint(BK) - 1u) / uint(BK);
#if CM_SPLIT
  if (tid == 0u) cmOutOfRange = false;  // ordered before any write by the barrier below
#endif
#if CM_PREFETCH == 2
  // Two K slices in flight: slice t + 1 sits in one register set, fetched an iteration
  // earlier, while t + 2 is fetched into the other, so every slice's loads have two slices'
  // multiplies to land in. Unrolled by two, so that the sets alternate without copies (a
  // copy would wait for the loads).
  CM_FETCH_T ra2[A_PER_THREAD];
  CM_FETCH_B_T rb2[B_PER_THREAD];
  fetch_slice(batch, m0, n0, first * uint(BK), tid, ra, rb);
  store_slice(0u, tid, ra, rb);
  if (first + 1u < last) fetch_slice(batch, m0, n0, (first + 1u) * uint(BK), tid, ra, rb);
  barrier();
  for (uint t = first; t < last; t += 2u) {
    if (t + 2u < last) fetch_slice(batch, m0, n0, (t + 2u) * uint(BK), tid, ra2, rb2);
    CM_MULTIPLY_SLICE(0u);
    if (t + 1u < last) store_slice(1u, tid, ra, rb);
    barrier();
    if (t + 1u >= last) break;  // uniform, as are the barriers
    if (t + 3u < last) fetch_slice(batch, m0, n0, (t + 3u) * uint(BK), tid, ra, rb);
    CM_MULTIPLY_SLICE(1u);
    if (t + 2u < last) store_slice(0u, tid, ra2, rb2);
    barrier();
  }
#else
  fetch_slice(batch, m0, n0, first * uint(BK), tid, ra, rb);
  store_slice(0u, tid, ra, rb);
  barrier();
  for (uint t = first; t < last; ++t) {
    const uint buf = (t - first) & 1u;
    if (t + 1u < last) fetch_slice(batch, m0, n0, (t + 1u) * uint(BK), tid, ra, rb);
    CM_MULTIPLY_SLICE(buf);
    if (t + 1u < last) store_slice(buf ^ 1u, tid, ra, rb);
    barrier();
  }
#endif
#if CM_SPLIT
  bool notFinite = false;
  [[unroll]] for (int i = 0; i < WM; ++i) {
    [[unroll]] for (int j = 0; j < WN; ++j) {
      for (int e = 0; e < acc[i][j].length(); ++e) {
        acc[i][j][e] += corr[i][j][e] * CM_SPLIT_SCALE;
        // Exponent all ones: infinite or NaN (tested on the bits, which no fast-math folds).
        notFinite = notFinite || (floatBitsToUint(acc[i][j][e]) & 0x7F800000u) == 0x7F800000u;
      }
    }
  }
  if (notFinite) cmOutOfRange = true;
  barrier();
  if (cmOutOfRange) {  // the same in every invocation of the workgroup
    // The accumulators are dead here, so the rare path adds no registers to the common one.
    for (uint e = tid; e < uint(BM * BN); e += uint(GEMM_THREADS)) {
      const uint m = m0 + e / uint(BN), n = n0 + e % uint(BN);
      if (m < uint(M) && n < uint(N)) CM_STORE(batch, m, n, ACC_CT(cm_dot_f32(batch, m, n)), false);
    }
    return;
  }
#endif

#if CM_STAGE
  // A band of CM_M rows (all WN fragments of one fragment row) at a time, in the operand
  // buffer CM_STAGE names: the K loop's last barrier has released it. WM store-and-epilogue
  // rounds instead of WM * WN, each invocation running the epilogue for CM_M * WN * CM_N / SG
  // elements without a barrier between them. On an H100 MATMUL gained 7 % with it and
  // convolutions lost, so the converter asks for it for MATMUL only
  // (Target::coopMatBandEpilogue).
  [[unroll]] for (int i = 0; i < WM; ++i) {
    const uint base = sg * uint(CM_BAND_SIZE);
    [[unroll]] for (int j = 0; j < WN; ++j) {
      coopMatStoreNV(acc[i][j], CM_STAGE_BUF, base + uint(j * CM_N / CM_ACC_PER_CHUNK), uint(CM_BAND_STRIDE), false);
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    const uint mBase = m0 + (sgM * uint(WM) + uint(i)) * uint(CM_M);
    const uint nBase = n0 + sgN * uint(WN * CM_N);
    [[unroll]] for (uint e = lane; e < uint(CM_M * CM_BAND_COLS); e += uint(SG)) {
      const uint r = e / uint(CM_BAND_COLS);
      const uint c = e % uint(CM_BAND_COLS);
      if (mBase + r < uint(M) && nBase + c < uint(N)) {
        CM_STORE(batch, mBase + r, nBase + c, ACC_CT(cm_staged(base + r * uint(CM_BAND_STRIDE), c)),
                 cm_whole_fragment(mBase, nBase + c / uint(CM_N) * uint(CM_N)));
      }
    }
    subgroupBarrier();
  }
#else
  [[unroll]] for (int i = 0; i < WM; ++i) {
    [[unroll]] for (int j = 0; j < WN; ++j) {
#if CM_DIRECT_STORE
      const uint mWhole = m0 + (sgM * uint(WM) + uint(i)) * uint(CM_M);
      const uint nWhole = n0 + (sgN * uint(WN) + uint(j)) * uint(CM_N);
      if (cm_whole_fragment(mWhole, nWhole)) {
        for (int e = 0; e < acc[i][j].length(); ++e) acc[i][j][e] = CM_ACC_T(epilogue_value(acc[i][j][e]));
        CM_OUT_MAT result = CM_OUT_MAT(acc[i][j]);
        coopMatStoreNV(result, out0, gemm_out_index(batch, mWhole, nWhole), uint(N), false);
        continue;
      }
#elif CM_PARTIAL_STORE
      const uint mWhole = m0 + (sgM * uint(WM) + uint(i)) * uint(CM_M);
      const uint nWhole = n0 + (sgN * uint(WN) + uint(j)) * uint(CM_N);
      if (cm_whole_fragment(mWhole, nWhole)) {
        coopMatStoreNV(acc[i][j], gemm_partial, GEMM_PARTIAL_INDEX(batch, mWhole, nWhole), uint(N), false);
        continue;
      }
#endif
      coopMatStoreNV(acc[i][j], sC, sg * uint(CM_M * CM_N), uint(CM_N), false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      uint mBase = m0 + (sgM * uint(WM) + uint(i)) * uint(CM_M);
      uint nBase = n0 + (sgN * uint(WN) + uint(j)) * uint(CM_N);
      for (uint e = lane; e < uint(CM_M * CM_N); e += uint(SG)) {
        uint m = mBase + e / uint(CM_N);
        uint n = nBase + e % uint(CM_N);
        if (m < uint(M) && n < uint(N)) CM_STORE(batch, m, n, ACC_CT(sC[sg * uint(CM_M * CM_N) + e]), cm_whole_fragment(mBase, nBase));
      }
      subgroupBarrier();
    }
  }
#endif
}

#endif  // GEMM_SPLIT_PASS != 2

#endif  // OVGF_GEMM_COOPMAT_GLSL
