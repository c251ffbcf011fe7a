// SPDX-License-Identifier: Apache-2.0
// MATMUL: out[b, h, w] = sum_c (A[b, h, c] - A_ZP) * (B[b, c, w] - B_ZP), as the tiled GEMM
// of include/gemm.glsl with the batch in the grid's z, then the fused epilogue.
//
// Defines: BATCH H C W (A is [BATCH,H,C], B is [BATCH,C,W]), A_ZP B_ZP,
//   A_STYPE A_LD B_STYPE B_LD, A_CT ACC_CT, BM BN BK TM TN, epilogue defines;
//   GEMM_STAGES, GEMM_VEC4_A / GEMM_VEC4_B (fp32 operands: vec4 loads, include/gemm.glsl);
//   GEMM_COOPMAT=1 with CM_* WM WN SG selects include/gemm_coopmat.glsl (CM_ENCODING=2 with
//   CM_PART_M CM_WG_THREADS: include/gemm_coopmat_wg.glsl), GEMM_DOT4=1 the int8
//   dot-product core include/gemm_dot4.glsl (native target).
// GEMM_RUNTIME_SHAPE=1 (CPU devices, Tuning::gemmRuntimeShapes): BATCH H C W A_ZP B_ZP come at
//   run time from ovgf_params[0..6) in that order (converter/kernels/matmul.cpp), so MATMULs
//   that differ only in shape share one module.
// Bindings (set 0): 0 A, 1 B, 2.. epilogue inputs, OUT_BINDING output.
// Grid: (ceil(W/BN), ceil(H/BM), BATCH); workgroup (BN/TN)*(BM/TM) invocations.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "include/gemm_coopmat_ext.glsl"
#include "include/common.glsl"
#include "include/types.glsl"
#include "include/intmath.glsl"
#include "include/ew_ops.glsl"

#if GEMM_RUNTIME_SHAPE
// Read once, at the start, into private variables: values the driver keeps in registers and
// knows to be uniform, where loads from the buffer in the loops would be repeated.
int matmul_batch, matmul_h, matmul_c, matmul_w, matmul_a_zp, matmul_b_zp;
void matmul_read_params() {
  matmul_batch = ovgf_params[0];
  matmul_h = ovgf_params[1];
  matmul_c = ovgf_params[2];
  matmul_w = ovgf_params[3];
  matmul_a_zp = ovgf_params[4];
  matmul_b_zp = ovgf_params[5];
}
#define BATCH matmul_batch
#define H matmul_h
#define C matmul_c
#define W matmul_w
#define A_ZP matmul_a_zp
#define B_ZP matmul_b_zp
#endif

#ifndef BATCH
#define BATCH 1
#define H 64
#define C 64
#define W 64
#define A_STYPE float
#define A_LD ld_f32
#define B_STYPE float
#define B_LD ld_f32
#define A_CT float
#define ACC_CT float
#define OUT_STYPE float
#define OUT_ST st_f32
#define OUT_CT float
#define OUT_BINDING 2
#endif
#ifndef A_ZP
#define A_ZP 0
#endif
#ifndef B_ZP
#define B_ZP 0
#endif
#ifndef BM
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4
#endif

#define M H
#define N W
#define K C
#define GEMM_BATCHES BATCH

#if GEMM_COOPMAT && CM_ENCODING == 2
layout(local_size_x = CM_WG_THREADS, local_size_y = 1, local_size_z = 1) in;
#elif GEMM_COOPMAT
layout(local_size_x = (BM / (WM * CM_M)) * (BN / (WN * CM_N)) * SG, local_size_y = 1, local_size_z = 1) in;
#else
layout(local_size_x = (BN / TN) * (BM / TM), local_size_y = 1, local_size_z = 1) in;
#endif

layout(set = 0, binding = 0) readonly buffer MatA { A_STYPE a0[]; };
layout(set = 0, binding = 1) readonly buffer MatB { B_STYPE b0[]; };

#include "include/epilogue.glsl"

A_CT gemm_load_a(uint batch, uint m, uint k) {
  return A_CT(A_LD(a0[(batch * uint(H) + m) * uint(C) + k])) - A_CT(A_ZP);
}

A_CT gemm_load_b(uint batch, uint k, uint n) {
  return A_CT(B_LD(b0[(batch * uint(C) + k) * uint(W) + n])) - A_CT(B_ZP);
}

// fp32 vec4 views of A and B for the scalar core (include/gemm.glsl; same bindings, aliased):
// 4 consecutive k of a row of A (C % 4 == 0), 4 consecutive n of a row of B (W % 4 == 0).
#if GEMM_VEC4_A
layout(set = 0, binding = 0) readonly buffer MatA4 { vec4 a0q[]; };
vec4 gemm_load_a4(uint batch, uint m, uint k) { return a0q[((batch * uint(H) + m) * uint(C) + k) / 4u]; }
#endif
#if GEMM_VEC4_B
layout(set = 0, binding = 1) readonly buffer MatB4 { vec4 b0q[]; };
vec4 gemm_load_b4(uint batch, uint k, uint n) { return b0q[((batch * uint(C) + k) * uint(W) + n) / 4u]; }
#endif
// And 64-bit words for the core without shared memory: 8 k of A (GEMM_A64, C % 8 == 0), a
// lane's columns of B (GEMM_B64, W % TN == 0).
#if GEMM_A64
layout(set = 0, binding = 0) readonly buffer MatA8 { u64vec4 a0o[]; };
u64vec4 gemm_load_a8(uint batch, uint m, uint k) { return a0o[((batch * uint(H) + m) * uint(C) + k) / 8u]; }
#endif
#if GEMM_B64
uint gemm_b_offset(uint batch, uint k, uint n) { return (batch * uint(C) + k) * uint(W) + n; }
#endif

// 16-byte views of A and B for the cooperative-matrix path (same bindings, aliased).
#if GEMM_VEC_A
layout(set = 0, binding = 0) readonly buffer MatAv { CM_VIEW_T a0v[]; };
CM_FETCH_T gemm_load_a_vec(uint batch, uint m, uint k) { return CM_CHUNK_AT(a0v, (batch * uint(H) + m) * uint(C) + k); }
uint gemm_a_vec_index(uint batch, uint m, uint k) { return ((batch * uint(H) + m) * uint(C) + k) / uint(CM_CHUNK); }
#endif
#if GEMM_VEC_B
layout(set = 0, binding = 1) readonly buffer MatBv { CM_VIEW_B_T b0v[]; };
CM_FETCH_B_T gemm_load_b_vec(uint batch, uint k, uint n) { return CM_CHUNK_B_AT(b0v, (batch * uint(C) + k) * uint(W) + n); }
uint gemm_b_vec_index(uint batch, uint k, uint n) { return ((batch * uint(C) + k) * uint(W) + n) / uint(CM_CHUNK); }
#endif

void gemm_store(uint batch, uint m, uint n, ACC_CT acc) {
  epilogue_store((batch * uint(H) + m) * uint(W) + n, n, acc);
}
#if NUM_EPI == 1
// For the cooperative-matrix core's residual accumulators (include/gemm_coopmat.glsl).
uint gemm_out_index(uint batch, uint m, uint n) { return (batch * uint(H) + m) * uint(W) + n; }
void gemm_store_with(uint batch, uint m, uint n, ACC_CT acc, EPI0_CT e0) {
  epilogue_store_with(gemm_out_index(batch, m, n), n, acc, e0);
}
#endif

#if GEMM_COOPMAT && CM_ENCODING == 2
#include "include/gemm_coopmat_wg.glsl"
#elif GEMM_COOPMAT
#include "include/gemm_coopmat.glsl"
#elif GEMM_DOT4
#define GEMM_ZP_A A_ZP
#define GEMM_ZP_B B_ZP
#include "include/gemm_dot4.glsl"
#else
#include "include/gemm.glsl"
#endif

#if GEMM_RUNTIME_SHAPE
void main() {
  matmul_read_params();
  gemm_main();
}
#else
void main() { gemm_main(); }
#endif
