// SPDX-License-Identifier: Apache-2.0
// TRANSPOSE_CONV2D as a gather-style tiled implicit GEMM (include/gemm.glsl): each output
// pixel gathers the input pixels that scatter onto it, so no atomics and no second pass.
// Outputs are split into STRIDE_Y*STRIDE_X phases by (oy - OUT_PAD_T) mod STRIDE_Y and
// (ox - OUT_PAD_L) mod STRIDE_X; within a phase only the taps ky = ry + STRIDE_Y*t
// (kx likewise) land on the output, so each phase is a dense GEMM (gl_WorkGroupID.z = phase)
// with M = N*MH*MW outputs, N = OC and K = TY*TX*IC taps (TY = ceil(KH/STRIDE_Y)), instead
// of masking KH*KW taps of which only 1/(STRIDE_Y*STRIDE_X) contribute. Rows of the phase
// grid past OH/OW and taps past KH/KW are masked. A workgroup computes a BM x BN tile of
// outputs with the weight slice of each K step staged in shared memory (sB). B(k, n) reads
// weights the converter pre-transposed to [KH*KW*IC][OC] (W_KN=1) or the OHWI tensor as
// given (W_KN=0). Bias and the fused epilogue follow.
//
// Signed % and / only ever see non-negative operands here: GLSL leaves both undefined for
// negative ones, and the NVIDIA driver (580.159) placed the phases of a negative out_pad
// (TRANSPOSE_CONV2D_* of the operator sweep, out_pad left -1) on the wrong columns, leaving a
// third of the outputs zero, where lavapipe got them right. The converter therefore passes
// the phase offsets OUT_PAD_T mod STRIDE_Y and OUT_PAD_L mod STRIDE_X already reduced.
//
// Defines: BATCH IH IW IC OH OW OC KH KW STRIDE_Y STRIDE_X OUT_PAD_T OUT_PAD_L
//   PHASE_OFFSET_Y PHASE_OFFSET_X (OUT_PAD_T mod STRIDE_Y, OUT_PAD_L mod STRIDE_X, in [0, stride))
//   IN_ZP W_ZP W_KN BIAS_BCAST, IN_STYPE IN_LD W_STYPE W_LD BIAS_STYPE BIAS_LD, A_CT ACC_CT,
//   BM BN BK TM TN, plus the epilogue defines of include/epilogue.glsl.
// Bindings (set 0): 0 input, 1 weight, 2 bias, 3.. epilogue inputs, OUT_BINDING output.
// Grid: (ceil(OC/BN), ceil(BATCH*MH*MW/BM), STRIDE_Y*STRIDE_X) with MH = ceil(OH/STRIDE_Y),
//   MW = ceil(OW/STRIDE_X); workgroup (BN/TN)*(BM/TM) invocations.
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
#define IH 5
#define IW 5
#define IC 8
#define OH 11
#define OW 11
#define OC 16
#define KH 3
#define KW 3
#define STRIDE_Y 2
#define STRIDE_X 2
#define OUT_PAD_T 0
#define OUT_PAD_L 0
#define PHASE_OFFSET_Y 0
#define PHASE_OFFSET_X 0
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

#define MH ((OH + STRIDE_Y - 1) / STRIDE_Y)
#define MW ((OW + STRIDE_X - 1) / STRIDE_X)
#define TY ((KH + STRIDE_Y - 1) / STRIDE_Y)
#define TX ((KW + STRIDE_X - 1) / STRIDE_X)
#define M (BATCH * MH * MW)
#define N OC
#define K (TY * TX * IC)

layout(local_size_x = (BN / TN) * (BM / TM), local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer In { IN_STYPE in0[]; };
layout(set = 0, binding = 1) readonly buffer Weight { W_STYPE w0[]; };
layout(set = 0, binding = 2) readonly buffer Bias { BIAS_STYPE bias0[]; };

#include "include/epilogue.glsl"

// Phase (ry, rx) of a workgroup and the first output row/column of that phase:
// (ry + OUT_PAD_T) mod STRIDE_Y with both terms non-negative.
int phase_ry(uint phase) { return int(phase / uint(STRIDE_X)); }
int phase_rx(uint phase) { return int(phase % uint(STRIDE_X)); }
int phase_oy0(int ry) { return int(uint(ry + PHASE_OFFSET_Y) % uint(STRIDE_Y)); }
int phase_ox0(int rx) { return int(uint(rx + PHASE_OFFSET_X) % uint(STRIDE_X)); }

A_CT gemm_load_a(uint phase, uint m, uint k) {
  int ry = phase_ry(phase), rx = phase_rx(phase);
  int i = int(m % uint(MW));
  uint t = m / uint(MW);
  int j = int(t % uint(MH));
  uint b = t / uint(MH);
  uint ic = k % uint(IC);
  uint tap = k / uint(IC);
  int tx = int(tap % uint(TX));
  int ty = int(tap / uint(TX));
  int oy0 = phase_oy0(ry), ox0 = phase_ox0(rx);
  int oy = oy0 + STRIDE_Y * j, ox = ox0 + STRIDE_X * i;
  int ky = ry + STRIDE_Y * ty, kx = rx + STRIDE_X * tx;
  if (oy >= OH || ox >= OW || ky >= KH || kx >= KW) return A_CT(0);
  // oy - OUT_PAD_T - ky is a multiple of the stride by construction of the phase; it is
  // divided only once known to be non-negative.
  int dy = oy - OUT_PAD_T - ky, dx = ox - OUT_PAD_L - kx;
  if (dy < 0 || dx < 0) return A_CT(0);
  int iy = int(uint(dy) / uint(STRIDE_Y));
  int ix = int(uint(dx) / uint(STRIDE_X));
  if (iy >= IH || ix >= IW) return A_CT(0);
  return A_CT(IN_LD(in0[((b * uint(IH) + uint(iy)) * uint(IW) + uint(ix)) * uint(IC) + ic])) - A_CT(IN_ZP);
}

A_CT gemm_load_b(uint phase, uint k, uint n) {
  uint ic = k % uint(IC);
  uint tap = k / uint(IC);
  int kx = phase_rx(phase) + STRIDE_X * int(tap % uint(TX));
  int ky = phase_ry(phase) + STRIDE_Y * int(tap / uint(TX));
  if (ky >= KH || kx >= KW) return A_CT(0);
  uint kk = (uint(ky) * uint(KW) + uint(kx)) * uint(IC) + ic;
#if W_KN
  return A_CT(W_LD(w0[kk * uint(OC) + n])) - A_CT(W_ZP);
#else
  return A_CT(W_LD(w0[n * uint(KH * KW * IC) + kk])) - A_CT(W_ZP);
#endif
}

void gemm_store(uint phase, uint m, uint n, ACC_CT acc) {
  int i = int(m % uint(MW));
  uint t = m / uint(MW);
  int j = int(t % uint(MH));
  uint b = t / uint(MH);
  int oy = phase_oy0(phase_ry(phase)) + STRIDE_Y * j;
  int ox = phase_ox0(phase_rx(phase)) + STRIDE_X * i;
  if (oy >= OH || ox >= OW) return;
  ACC_CT bias = ACC_CT(BIAS_LD(bias0[BIAS_BCAST != 0 ? 0u : n]));
  uint idx = ((b * uint(OH) + uint(oy)) * uint(OW) + uint(ox)) * uint(OC) + n;
  epilogue_store(idx, n, acc + bias);
}

#include "include/gemm.glsl"

void main() { gemm_main(); }
