// SPDX-License-Identifier: Apache-2.0
// CONV3D as a tiled implicit GEMM (include/gemm.glsl): M = N*OD*OH*OW output voxels,
// N = OC, K = KD*KH*KW*IC. A(m, k) gathers the input voxel under tap (kd, ky, kx, ic) with
// padding and dilation; B(k, n) reads weights the converter pre-transposed to [K][OC]
// (W_KN=1) or the [OC,KD,KH,KW,IC] tensor as given (W_KN=0). Bias and epilogue follow.
//
// Defines: BATCH ID IH IW IC OD OH OW OC KD KH KW STRIDE_D STRIDE_Y STRIDE_X DIL_D DIL_Y
//   DIL_X PAD_D PAD_T PAD_L
//   IN_ZP W_ZP (integer zero points), W_KN, BIAS_BCAST (bias has one element),
//   IN_STYPE IN_LD W_STYPE W_LD BIAS_STYPE BIAS_LD (types), A_CT ACC_CT,
//   BM BN BK TM TN (tile), plus the epilogue defines of include/epilogue.glsl.
// Bindings (set 0): 0 input, 1 weight, 2 bias, 3.. epilogue inputs, OUT_BINDING output.
// Grid: (ceil(OC/BN), ceil(BATCH*OD*OH*OW/BM), 1); workgroup (BN/TN)*(BM/TM) invocations.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : enable  // [[unroll]] in include/gemm.glsl
#if defined(GEMM_STAGES) && GEMM_STAGES == 0  // include/gemm.glsl's core without shared memory
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#include "include/common.glsl"
#include "include/types.glsl"
#include "include/intmath.glsl"
#include "include/ew_ops.glsl"

#ifndef BATCH
#define BATCH 1
#define ID 4
#define OD 4
#define KD 3
#define STRIDE_D 1
#define DIL_D 1
#define PAD_D 1
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
#ifndef BM
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4
#endif

#define M (BATCH * OD * OH * OW)
#define N OC
#define K (KD * KH * KW * IC)

layout(local_size_x = (BN / TN) * (BM / TM), local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer In { IN_STYPE in0[]; };
layout(set = 0, binding = 1) readonly buffer Weight { W_STYPE w0[]; };
layout(set = 0, binding = 2) readonly buffer Bias { BIAS_STYPE bias0[]; };

#include "include/epilogue.glsl"

A_CT gemm_load_a(uint batch, uint m, uint k) {
  uint ox = m % uint(OW);
  uint t = m / uint(OW);
  uint oy = t % uint(OH);
  t /= uint(OH);
  uint od = t % uint(OD);
  uint b = t / uint(OD);
  uint ic = k % uint(IC);
  uint tap = k / uint(IC);
  uint kx = tap % uint(KW);
  tap /= uint(KW);
  uint ky = tap % uint(KH);
  uint kd = tap / uint(KH);
  int z = int(od) * STRIDE_D - PAD_D + int(kd) * DIL_D;
  int y = int(oy) * STRIDE_Y - PAD_T + int(ky) * DIL_Y;
  int x = int(ox) * STRIDE_X - PAD_L + int(kx) * DIL_X;
  if (z < 0 || z >= ID || y < 0 || y >= IH || x < 0 || x >= IW) return A_CT(0);
  return A_CT(IN_LD(in0[(((b * uint(ID) + uint(z)) * uint(IH) + uint(y)) * uint(IW) + uint(x)) * uint(IC) + ic])) - A_CT(IN_ZP);
}

A_CT gemm_load_b(uint batch, uint k, uint n) {
#if W_KN
  return A_CT(W_LD(w0[k * uint(OC) + n])) - A_CT(W_ZP);
#else
  return A_CT(W_LD(w0[n * uint(K) + k])) - A_CT(W_ZP);
#endif
}

void gemm_store(uint batch, uint m, uint n, ACC_CT acc) {
  ACC_CT bias = ACC_CT(BIAS_LD(bias0[BIAS_BCAST != 0 ? 0u : n]));
  epilogue_store(m * uint(OC) + n, n, acc + bias);
}

#include "include/gemm.glsl"

void main() { gemm_main(); }
