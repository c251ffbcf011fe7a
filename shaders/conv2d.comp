// SPDX-License-Identifier: Apache-2.0
// CONV2D as a tiled implicit GEMM (include/gemm.glsl): M = N*OH*OW output pixels,
// N = OC, K = KH*KW*IC. A(m, k) gathers the input pixel under tap (ky, kx, ic) with
// padding and dilation; B(k, n) reads weights the converter pre-transposed to [K][OC]
// (W_KN=1) or the OHWI tensor as given (W_KN=0). Bias and the fused epilogue follow.
//
// Defines: BATCH IH IW IC OH OW OC KH KW STRIDE_Y STRIDE_X DIL_Y DIL_X PAD_T PAD_L
//   IN_ZP W_ZP (integer zero points), W_KN, BIAS_BCAST (bias has one element),
//   IN_PH IN_PW (rows and columns of the stored input, default IH IW),
//   IN_STYPE IN_LD W_STYPE W_LD BIAS_STYPE BIAS_LD (types), A_CT ACC_CT,
//   BM BN BK TM TN (tile), plus the epilogue defines of include/epilogue.glsl;
//   GEMM_STAGES, GEMM_VEC4_A / GEMM_VEC4_B (fp32 operands: vec4 loads, include/gemm.glsl);
//   GEMM_COOPMAT=1 with CM_* WM WN SG selects include/gemm_coopmat.glsl, GEMM_DOT4=1 the int8
//   dot-product core include/gemm_dot4.glsl (native target); GEMM_RUN_A, GEMM_ROW_A (the
//   padded run length; K = KH * GEMM_ROW_A) how the cooperative-matrix core gathers A.
// GEMM_RUNTIME_SHAPE=1 (CPU devices, Tuning::gemmRuntimeShapes): the shape defines above, IN_PH
//   IN_PW and the zero points come at run time from ovgf_params[0..CONV_PARAMS) instead (order
//   below; converter/kernels/conv2d.cpp writes them), so convolutions that differ only in shape
//   share one module: llvmpipe compiles each module at its first dispatch. CONV_1X1=1: a 1x1
//   filter at stride 1 without padding or crop, whose A is the input as an [M][IC] matrix.
// Bindings (set 0): 0 input, 1 weight, 2 bias, 3.. epilogue inputs, OUT_BINDING output.
// Grid: (ceil(OC/BN), ceil(BATCH*OH*OW/BM), 1); workgroup (BN/TN)*(BM/TM) invocations.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "include/gemm_coopmat_ext.glsl"
#include "include/common.glsl"
#include "include/types.glsl"
#include "include/intmath.glsl"
#include "include/ew_ops.glsl"

#if GEMM_RUNTIME_SHAPE
// ovgf_params[0..CONV_PARAMS): BATCH IH IW IC OH OW OC KH KW STRIDE_Y STRIDE_X DIL_Y DIL_X PAD_T
// PAD_L IN_ZP W_ZP IN_PH IN_PW, then the (multiplier, shift) pairs of ovgf_udiv for OW, OH, IC
// and KW (include/intmath.glsl). Read once, at the start, into private scalars: values the
// driver keeps in registers and knows to be uniform, rather than loads from the buffer at
// every use inside the loops.
#define CONV_PARAMS 27
int conv_batch, conv_ih, conv_iw, conv_ic, conv_oh, conv_ow, conv_oc, conv_kh, conv_kw, conv_stride_y, conv_stride_x;
int conv_dil_y, conv_dil_x, conv_pad_t, conv_pad_l, conv_in_zp, conv_w_zp, conv_in_ph, conv_in_pw;
uint conv_div_ow_m, conv_div_ow_s, conv_div_oh_m, conv_div_oh_s, conv_div_ic_m, conv_div_ic_s;
uint conv_div_kw_m, conv_div_kw_s;
void conv_read_params() {
  conv_batch = ovgf_params[0];
  conv_ih = ovgf_params[1];
  conv_iw = ovgf_params[2];
  conv_ic = ovgf_params[3];
  conv_oh = ovgf_params[4];
  conv_ow = ovgf_params[5];
  conv_oc = ovgf_params[6];
  conv_kh = ovgf_params[7];
  conv_kw = ovgf_params[8];
  conv_stride_y = ovgf_params[9];
  conv_stride_x = ovgf_params[10];
  conv_dil_y = ovgf_params[11];
  conv_dil_x = ovgf_params[12];
  conv_pad_t = ovgf_params[13];
  conv_pad_l = ovgf_params[14];
  conv_in_zp = ovgf_params[15];
  conv_w_zp = ovgf_params[16];
  conv_in_ph = ovgf_params[17];
  conv_in_pw = ovgf_params[18];
  conv_div_ow_m = uint(ovgf_params[19]);
  conv_div_ow_s = uint(ovgf_params[20]);
  conv_div_oh_m = uint(ovgf_params[21]);
  conv_div_oh_s = uint(ovgf_params[22]);
  conv_div_ic_m = uint(ovgf_params[23]);
  conv_div_ic_s = uint(ovgf_params[24]);
  conv_div_kw_m = uint(ovgf_params[25]);
  conv_div_kw_s = uint(ovgf_params[26]);
}
#define BATCH conv_batch
#define IH conv_ih
#define IW conv_iw
#define IC conv_ic
#define OH conv_oh
#define OW conv_ow
#define OC conv_oc
#define KH conv_kh
#define KW conv_kw
#define STRIDE_Y conv_stride_y
#define STRIDE_X conv_stride_x
#define DIL_Y conv_dil_y
#define DIL_X conv_dil_x
#define PAD_T conv_pad_t
#define PAD_L conv_pad_l
#define IN_ZP conv_in_zp
#define W_ZP conv_w_zp
#define IN_PH conv_in_ph
#define IN_PW conv_in_pw
#define CONV_DIV(n, d) ovgf_udiv((n), conv_div_##d##_m, conv_div_##d##_s)
#endif

#ifndef BATCH
#define BATCH 1
#define IH 8
#define IW 8
#define IC 8
#define OH 8
#define OW 8
#define OC 16
#define KH 3
#define KW 3
#define STRIDE_Y 1
#define STRIDE_X 1
#define DIL_Y 1
#define DIL_X 1
#define PAD_T 1
#define PAD_L 1
#define IN_STYPE float
#define IN_LD ld_f32
#define W_STYPE float
#define W_LD ld_f32
#define BIAS_STYPE float
#define BIAS_LD ld_f32
#define A_CT float
#define ACC_CT float
#define OUT_STYPE float
#define OUT_ST st_f32
#define OUT_CT float
#define OUT_BINDING 3
#define W_KN 1
#endif
#ifndef IN_ZP
#define IN_ZP 0
#endif
#ifndef W_ZP
#define W_ZP 0
#endif
#ifndef BIAS_BCAST
#define BIAS_BCAST 0
#endif
// Rows and columns of the stored input: more than IH x IW when the input is a crop of a
// larger tensor (fold-crops), which the bounds checks still cut at IH x IW.
#ifndef IN_PH
#define IN_PH IH
#define IN_PW IW
#endif
#ifndef BM
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4
#endif

#define M (BATCH * OH * OW)
#define N OC
#if GEMM_ROW_A
#define K (KH * GEMM_ROW_A)
#else
#define K (KH * KW * IC)
#endif

#if GEMM_COOPMAT
layout(local_size_x = (BM / (WM * CM_M)) * (BN / (WN * CM_N)) * SG, local_size_y = 1, local_size_z = 1) in;
#else
layout(local_size_x = (BN / TN) * (BM / TM), local_size_y = 1, local_size_z = 1) in;
#endif

layout(set = 0, binding = 0) readonly buffer In { IN_STYPE in0[]; };
layout(set = 0, binding = 1) readonly buffer Weight { W_STYPE w0[]; };
layout(set = 0, binding = 2) readonly buffer Bias { BIAS_STYPE bias0[]; };

#include "include/epilogue.glsl"

#if CONV_1X1
// A is the input as an [M][IC] matrix.
A_CT gemm_load_a(uint batch, uint m, uint k) { return A_CT(IN_LD(in0[m * uint(IC) + k])) - A_CT(IN_ZP); }
#elif GEMM_RUNTIME_SHAPE
// As below, with the divisions by run-time divisors as ovgf_udiv.
A_CT gemm_load_a(uint batch, uint m, uint k) {
  const uint t = CONV_DIV(m, ow);
  const uint ox = m - t * uint(OW);
  const uint b = CONV_DIV(t, oh);
  const uint oy = t - b * uint(OH);
  const uint tap = CONV_DIV(k, ic);
  const uint ic = k - tap * uint(IC);
  const uint ky = CONV_DIV(tap, kw);
  const uint kx = tap - ky * uint(KW);
  int y = int(oy) * STRIDE_Y - PAD_T + int(ky) * DIL_Y;
  int x = int(ox) * STRIDE_X - PAD_L + int(kx) * DIL_X;
  if (y < 0 || y >= IH || x < 0 || x >= IW) return A_CT(0);
  return A_CT(IN_LD(in0[((b * uint(IN_PH) + uint(y)) * uint(IN_PW) + uint(x)) * uint(IC) + ic])) - A_CT(IN_ZP);
}
#else
A_CT gemm_load_a(uint batch, uint m, uint k) {
  uint ox = m % uint(OW);
  uint t = m / uint(OW);
  uint oy = t % uint(OH);
  uint b = t / uint(OH);
  uint ic = k % uint(IC);
  uint tap = k / uint(IC);
  uint kx = tap % uint(KW);
  uint ky = tap / uint(KW);
  int y = int(oy) * STRIDE_Y - PAD_T + int(ky) * DIL_Y;
  int x = int(ox) * STRIDE_X - PAD_L + int(kx) * DIL_X;
  if (y < 0 || y >= IH || x < 0 || x >= IW) return A_CT(0);
  return A_CT(IN_LD(in0[((b * uint(IN_PH) + uint(y)) * uint(IN_PW) + uint(x)) * uint(IC) + ic])) - A_CT(IN_ZP);
}
#endif

A_CT gemm_load_b(uint batch, uint k, uint n) {
#if W_KN
  return A_CT(W_LD(w0[k * uint(OC) + n])) - A_CT(W_ZP);
#else
  return A_CT(W_LD(w0[n * uint(K) + k])) - A_CT(W_ZP);
#endif
}

// fp32 vec4 views for the scalar core (include/gemm.glsl; same bindings, aliased): with IC a
// multiple of 4, 4 consecutive k are 4 consecutive input channels of one tap; with the
// weights stored as [K][OC] and OC a multiple of 4, 4 consecutive n are contiguous.
#if GEMM_VEC4_A
layout(set = 0, binding = 0) readonly buffer In4 { vec4 in0q[]; };
#endif
// And 64-bit words of 8 input channels, fp32 or raw int8 (GEMM_WORDS_I8) (GEMM_A64: IC % 8 ==
// 0; the converter sets it only with GEMM_RUNTIME_SHAPE: A is the input itself with CONV_1X1,
// else gathered rows, gemm_a8_at). An int8 position in the padding reads as the zero point.
#if GEMM_A64 && GEMM_WORDS_I8
#define GEMM_A_WORD uint64_t
#define GEMM_WORD_ZP_A IN_ZP
#define GEMM_WORD_ZP_B W_ZP
#define CONV_A_WORD_OUTSIDE packUint2x32(uvec2((uint(IN_ZP) & 0xFFu) * 0x01010101u))
#elif GEMM_A64
#define GEMM_A_WORD u64vec4
#define CONV_A_WORD_OUTSIDE u64vec4(0)
#endif
#if GEMM_B64 && GEMM_WORDS_I8 && !defined(GEMM_WORD_ZP_B)
#define GEMM_WORD_ZP_B W_ZP
#endif
#if GEMM_A64
layout(set = 0, binding = 0) readonly buffer In8 { GEMM_A_WORD in0o[]; };
#endif
#if GEMM_A64 && CONV_1X1
GEMM_A_WORD gemm_load_a8(uint batch, uint m, uint k) { return in0o[(m * uint(IC) + k) / 8u]; }
#elif GEMM_A64 && !GEMM_RUNTIME_SHAPE
#error "GEMM_A64 takes GEMM_RUNTIME_SHAPE"
#endif
#if GEMM_VEC4_A && CONV_1X1
vec4 gemm_load_a4(uint batch, uint m, uint k) { return in0q[(m * uint(IC) + k) / 4u]; }
#elif GEMM_VEC4_A && GEMM_RUNTIME_SHAPE
vec4 gemm_load_a4(uint batch, uint m, uint k) {
  const uint t = CONV_DIV(m, ow);
  const uint ox = m - t * uint(OW);
  const uint b = CONV_DIV(t, oh);
  const uint oy = t - b * uint(OH);
  const uint tap = CONV_DIV(k, ic);
  const uint ic = k - tap * uint(IC);
  const uint ky = CONV_DIV(tap, kw);
  const uint kx = tap - ky * uint(KW);
  int y = int(oy) * STRIDE_Y - PAD_T + int(ky) * DIL_Y;
  int x = int(ox) * STRIDE_X - PAD_L + int(kx) * DIL_X;
  if (y < 0 || y >= IH || x < 0 || x >= IW) return vec4(0.0);
  return in0q[(((b * uint(IN_PH) + uint(y)) * uint(IN_PW) + uint(x)) * uint(IC) + ic) / 4u];
}
#elif GEMM_VEC4_A
vec4 gemm_load_a4(uint batch, uint m, uint k) {
  uint ox = m % uint(OW);
  uint t = m / uint(OW);
  uint oy = t % uint(OH);
  uint b = t / uint(OH);
  uint ic = k % uint(IC);
  uint tap = k / uint(IC);
  uint kx = tap % uint(KW);
  uint ky = tap / uint(KW);
  int y = int(oy) * STRIDE_Y - PAD_T + int(ky) * DIL_Y;
  int x = int(ox) * STRIDE_X - PAD_L + int(kx) * DIL_X;
  if (y < 0 || y >= IH || x < 0 || x >= IW) return vec4(0.0);
  return in0q[(((b * uint(IN_PH) + uint(y)) * uint(IN_PW) + uint(x)) * uint(IC) + ic) / 4u];
}
#endif
// The gathered A by rows for the core without shared memory (include/gemm.glsl, GEMM_A_ROWS):
// each of an invocation's rows is decoded once, before the K loop, to the input position of
// its first tap (x, y) and that position's element offset (z); each step of K decodes its
// k once for all rows, to the tap's offset from there (x, y) and in elements (z). A row past
// M, or a k past the end, gets a y offset that no bounds check passes.
#if GEMM_RUNTIME_SHAPE && !CONV_1X1
#define GEMM_A_ROWS 1
const int conv_outside = -0x40000000;
ivec3 gemm_a_row(uint batch, uint m) {
  const uint t = CONV_DIV(m, ow);
  const uint ox = m - t * uint(OW);
  const uint b = CONV_DIV(t, oh);
  const uint oy = t - b * uint(OH);
  const int y0 = int(oy) * STRIDE_Y - PAD_T;
  const int x0 = int(ox) * STRIDE_X - PAD_L;
  return ivec3(x0, m < uint(M) ? y0 : conv_outside, ((int(b) * IN_PH + y0) * IN_PW + x0) * IC);
}
ivec3 gemm_a_tap(uint k, uint kEnd) {
  const uint tap = CONV_DIV(k, ic);
  const uint ic = k - tap * uint(IC);
  const uint ky = CONV_DIV(tap, kw);
  const uint kx = tap - ky * uint(KW);
  const int dy = int(ky) * DIL_Y;
  const int dx = int(kx) * DIL_X;
  return ivec3(dx, k < kEnd ? dy : conv_outside, (dy * IN_PW + dx) * IC + int(ic));
}
bool conv_inside(ivec3 row, ivec3 tap) {
  return uint(row.y + tap.y) < uint(IH) && uint(row.x + tap.x) < uint(IW);
}
A_CT gemm_a_at(ivec3 row, ivec3 tap) {
  if (!conv_inside(row, tap)) return A_CT(0);
  return A_CT(IN_LD(in0[uint(row.z + tap.z)])) - A_CT(IN_ZP);
}
#if GEMM_A64
GEMM_A_WORD gemm_a8_at(ivec3 row, ivec3 tap) {
  if (!conv_inside(row, tap)) return CONV_A_WORD_OUTSIDE;
  return in0o[uint(row.z + tap.z) / 8u];
}
#endif
#if GEMM_VEC4_A
vec4 gemm_a4_at(ivec3 row, ivec3 tap) {
  if (!conv_inside(row, tap)) return vec4(0.0);
  return in0q[uint(row.z + tap.z) / 4u];
}
#endif
#endif

#if GEMM_B64
uint gemm_b_offset(uint batch, uint k, uint n) { return k * uint(OC) + n; }
#endif
#if GEMM_VEC4_B
layout(set = 0, binding = 1) readonly buffer Weight4 { vec4 w0q[]; };
vec4 gemm_load_b4(uint batch, uint k, uint n) { return w0q[(k * uint(OC) + n) / 4u]; }
#endif

// A chunk of K for the cooperative-matrix path when IC is not a multiple of it (a 3-channel
// stem), where decoding each operand on its own made the index arithmetic outweigh the
// multiplies.
#if GEMM_ROW_A
// GEMM_ROW_A (DIL_X 1; the converter lays the weights out to match): K is KH runs of
// GEMM_ROW_A operands, the first KW * IC of each a filter row's taps, which lie side by side
// in one input row. GEMM_ROW_A is a whole number of chunks, so a chunk stays in one run: one
// decode, then per operand a load and a test against the ends of the row and of the run.
void gemm_load_a_run(uint batch, uint m, uint k, out A_CT v[CM_CHUNK]) {
  const uint ox = m % uint(OW);
  const uint t = m / uint(OW);
  const uint oy = t % uint(OH);
  const uint b = t / uint(OH);
  const uint ky = k / uint(GEMM_ROW_A);
  const uint j = k % uint(GEMM_ROW_A);
  const int y = int(oy) * STRIDE_Y - PAD_T + int(ky) * DIL_Y;
  const bool rowInside = m < uint(M) && ky < uint(KH) && y >= 0 && y < IH;
  const uint rowStart = (b * uint(IN_PH) + uint(y)) * uint(IN_PW) * uint(IC);
  const int first = (int(ox) * STRIDE_X - PAD_L) * IC + int(j);  // operand j's place in the row
  [[unroll]] for (int i = 0; i < CM_CHUNK; ++i) {
    const int at = first + i;
    const bool inside = rowInside && j + uint(i) < uint(KW * IC) && at >= 0 && at < IW * IC;
    v[i] = inside ? A_CT(IN_LD(in0[rowStart + uint(at)])) - A_CT(IN_ZP) : A_CT(0);
  }
}
#elif GEMM_RUN_A
// Otherwise the output pixel and the first tap are decoded once, the later taps by stepping
// through channels, columns and rows.
void gemm_load_a_run(uint batch, uint m, uint k, out A_CT v[CM_CHUNK]) {
  const uint ox = m % uint(OW);
  const uint t = m / uint(OW);
  const uint oy = t % uint(OH);
  const uint b = t / uint(OH);
  const int y0 = int(oy) * STRIDE_Y - PAD_T;
  const int x0 = int(ox) * STRIDE_X - PAD_L;
  uint ic = k % uint(IC);
  const uint tap = k / uint(IC);
  uint kx = tap % uint(KW);
  uint ky = tap / uint(KW);
  [[unroll]] for (int i = 0; i < CM_CHUNK; ++i) {
    const int y = y0 + int(ky) * DIL_Y;
    const int x = x0 + int(kx) * DIL_X;
    const bool inside = m < uint(M) && k + uint(i) < uint(K) && y >= 0 && y < IH && x >= 0 && x < IW;
    v[i] = inside ? A_CT(IN_LD(in0[((b * uint(IN_PH) + uint(y)) * uint(IN_PW) + uint(x)) * uint(IC) + ic])) - A_CT(IN_ZP)
                  : A_CT(0);
    ++ic;
    if (ic == uint(IC)) {
      ic = 0u;
      ++kx;
      if (kx == uint(KW)) {
        kx = 0u;
        ++ky;
      }
    }
  }
}
#endif

// 16-byte views of the input and the [K][OC] weights for the cooperative-matrix path (same
// bindings, aliased): with IC a multiple of the chunk, a chunk of K stays inside one tap.
#if GEMM_VEC_A
layout(set = 0, binding = 0) readonly buffer Inv { CM_VIEW_T in0v[]; };
CM_FETCH_T gemm_load_a_vec(uint batch, uint m, uint k) {
  uint ox = m % uint(OW);
  uint t = m / uint(OW);
  uint oy = t % uint(OH);
  uint b = t / uint(OH);
  uint ic = k % uint(IC);
  uint tap = k / uint(IC);
  uint kx = tap % uint(KW);
  uint ky = tap / uint(KW);
  int y = int(oy) * STRIDE_Y - PAD_T + int(ky) * DIL_Y;
  int x = int(ox) * STRIDE_X - PAD_L + int(kx) * DIL_X;
  if (y < 0 || y >= IH || x < 0 || x >= IW) return CM_FETCH_ZERO;
  return CM_CHUNK_AT(in0v, ((b * uint(IN_PH) + uint(y)) * uint(IN_PW) + uint(x)) * uint(IC) + ic);
}
#endif
#if GEMM_VEC_B
layout(set = 0, binding = 1) readonly buffer Weightv { CM_VIEW_B_T w0v[]; };
CM_FETCH_B_T gemm_load_b_vec(uint batch, uint k, uint n) { return CM_CHUNK_B_AT(w0v, k * uint(OC) + n); }
#endif

void gemm_store(uint batch, uint m, uint n, ACC_CT acc) {
  ACC_CT bias = ACC_CT(BIAS_LD(bias0[BIAS_BCAST != 0 ? 0u : n]));
  epilogue_store(m * uint(OC) + n, n, acc + bias);
}
// For the cooperative-matrix core's residual accumulators and whole-fragment stores
// (include/gemm_coopmat.glsl).
#if NUM_EPI == 1 || defined(CM_DIRECT_STORE)
uint gemm_out_index(uint batch, uint m, uint n) { return m * uint(OC) + n; }
#endif
#if NUM_EPI == 1
void gemm_store_with(uint batch, uint m, uint n, ACC_CT acc, EPI0_CT e0) {
  ACC_CT bias = ACC_CT(BIAS_LD(bias0[BIAS_BCAST != 0 ? 0u : n]));
  epilogue_store_with(m * uint(OC) + n, n, acc + bias, e0);
}
#endif
#if defined(CM_DIRECT_STORE)
ACC_CT gemm_bias(uint n) { return ACC_CT(BIAS_LD(bias0[BIAS_BCAST != 0 ? 0u : n])); }
#endif

#if GEMM_COOPMAT
#include "include/gemm_coopmat.glsl"
#elif GEMM_DOT4
#define GEMM_ZP_A IN_ZP
#define GEMM_ZP_B W_ZP
#include "include/gemm_dot4.glsl"
#else
#include "include/gemm.glsl"
#endif

#if GEMM_RUNTIME_SHAPE
void main() {
  conv_read_params();
  gemm_main();
}
#else
void main() { gemm_main(); }
#endif
