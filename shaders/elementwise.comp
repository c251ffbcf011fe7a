// SPDX-License-Identifier: Apache-2.0
// Elementwise kernel: every unary/binary/ternary/compare/cast/rescale/clamp/table operator
// and fused chains of them (the converter writes the fused expression), with TOSA
// broadcasting (equal ranks, size-1 dims broadcast; the converter passes stride 0).
//
// Defines:
//   NUM_IN               number of tensor inputs, 0..4
//   RANK                 1..6, output rank after the converter merged compatible dims
//   TOTAL                output element count
//   OUT_D0..OUT_D5       output dims, D0 outermost
//   IN<k>_S0..IN<k>_S5   element stride of input k along each output dim (0 = broadcast)
//   IN<k>_CONTIG         1 if input k is indexed like the output (skips index math)
//   IN<k>_STYPE, IN<k>_LD, IN<k>_CT   storage type, load function, compute type of input k
//   OUT_STYPE, OUT_ST, OUT_CT         same for the output
//   LAST_DIM             size of the output's last TOSA dim (per-channel parameters)
//   EW_DECLS             helper functions the body uses (tables and per-channel scales are in
//                        the parameter buffer `ovgf_params`)
//   EW_BODY              statements that compute `OUT_CT r` from a0..a3 and `ch`
//   EPT                  elements per invocation (strided by WG_X for coalescing)
//   FP16_MATH            1: fp16 chains compute in float16_t (ew_ops.glsl's f16 helpers)
//   EW_RUNTIME           1 (CPU devices, Tuning::runtimeShapes): TOTAL, LAST_DIM, the OUT_D and
//                        IN<k>_S values come from the first 46 entries of `ovgf_params`
//                        (converter/kernels/elementwise.cpp: fillRuntimeHeader), each divisor
//                        with its ovgf_udiv pair, and the grid folds with gl_NumWorkGroups.x, so
//                        that kernels that differ only in shapes share one module.
// Bindings (set 0): binding k = input k (k < NUM_IN), binding NUM_IN = output, then the
//   constant parameter buffer (PARAMS_BINDING, include/common.glsl) when the body uses one.
// Grid: ceil(TOTAL / (WG_X * EPT)) workgroups, as GRID_X x ceil(n / GRID_X).
#version 460
#extension GL_GOOGLE_include_directive : require
// FP16_MATH=1 (native target): the chain computes in float16_t, each operator rounded to
// nearest even as TOSA rounds each fp16 result (the module then needs Float16 and
// RoundingModeRTE for 16-bit, which the runner checks against the device).
#if defined(FP16_MATH) && FP16_MATH
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(capabilities = [4467], 4462, 16);
#endif
#include "include/common.glsl"
#include "include/types.glsl"
#include "include/intmath.glsl"
#include "include/ew_ops.glsl"

#ifndef NUM_IN
#define NUM_IN 2
#define IN0_STYPE float
#define IN0_LD ld_f32
#define IN0_CT float
#define IN1_STYPE float
#define IN1_LD ld_f32
#define IN1_CT float
#define IN0_CONTIG 1
#define IN1_CONTIG 1
#define OUT_STYPE float
#define OUT_ST st_f32
#define OUT_CT float
#define EW_BODY r = a0 + a1;
#endif
#ifndef RANK
#define RANK 1
#endif
#if defined(EW_RUNTIME) && EW_RUNTIME
// Header layout: [0] TOTAL, [1..3] LAST_DIM and its division pair, [4 + 3d ..] OUT_Dd and its
// pair, [22 + 6k + d] stride of input k along dim d.
#define TOTAL uint(ovgf_params[0])
#define EW_DIM(d) uint(ovgf_params[4 + 3 * (d)])
#define EW_DIV(n, d) ovgf_udiv_param((n), 5 + 3 * (d))
#define EW_STRIDE(K, d) uint(ovgf_params[22 + 6 * (K) + (d)])
#define EW_CHANNEL(idx) ((idx) - ovgf_udiv_param((idx), 2) * uint(ovgf_params[1]))
#define EW_GROUP() (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x)
#else
#define EW_CHANNEL(idx) ((idx) % uint(LAST_DIM))
#define EW_GROUP() ovgf_linear_group()
#endif
#ifndef TOTAL
#define TOTAL 256
#endif
#ifndef EPT
#define EPT 4
#endif
#ifndef LAST_DIM
#define LAST_DIM 1
#endif
#ifndef EW_DECLS
#define EW_DECLS
#endif
#ifndef OUT_D0
#define OUT_D0 TOTAL
#endif
#ifndef OUT_D1
#define OUT_D1 1
#endif
#ifndef OUT_D2
#define OUT_D2 1
#endif
#ifndef OUT_D3
#define OUT_D3 1
#endif
#ifndef OUT_D4
#define OUT_D4 1
#endif
#ifndef OUT_D5
#define OUT_D5 1
#endif

layout(local_size_x = WG_X, local_size_y = 1, local_size_z = 1) in;

#if NUM_IN > 0
layout(set = 0, binding = 0) readonly buffer In0 { IN0_STYPE in0[]; };
#endif
#if NUM_IN > 1
layout(set = 0, binding = 1) readonly buffer In1 { IN1_STYPE in1[]; };
#endif
#if NUM_IN > 2
layout(set = 0, binding = 2) readonly buffer In2 { IN2_STYPE in2[]; };
#endif
#if NUM_IN > 3
layout(set = 0, binding = 3) readonly buffer In3 { IN3_STYPE in3[]; };
#endif
layout(set = 0, binding = NUM_IN) writeonly buffer Out { OUT_STYPE out0[]; };

EW_DECLS

#if defined(EW_RUNTIME) && EW_RUNTIME
// Offset of input K for output index idx, from the per-dim strides in the parameter buffer.
#define OVGF_DIM_STEP(K, d)                                                           \
  { uint q_ = EW_DIV(rem_, d); off_ += (rem_ - q_ * EW_DIM(d)) * EW_STRIDE(K, d); rem_ = q_; }
#define OVGF_OFFSET(K, idx, result)                                                   \
  {                                                                                   \
    uint rem_ = idx;                                                                  \
    uint off_ = 0u;                                                                   \
    if (RANK > 5) OVGF_DIM_STEP(K, 5)                                                 \
    if (RANK > 4) OVGF_DIM_STEP(K, 4)                                                 \
    if (RANK > 3) OVGF_DIM_STEP(K, 3)                                                 \
    if (RANK > 2) OVGF_DIM_STEP(K, 2)                                                 \
    if (RANK > 1) OVGF_DIM_STEP(K, 1)                                                 \
    off_ += rem_ * EW_STRIDE(K, 0);                                                   \
    result = off_;                                                                    \
  }
#else
// Offset of input K for output index idx, from the per-dim strides (all compile-time).
#define OVGF_OFFSET(K, idx, result)                                              \
  {                                                                              \
    uint rem_ = idx;                                                             \
    uint off_ = 0u;                                                              \
    if (RANK > 5) { off_ += (rem_ % uint(OUT_D5)) * uint(IN##K##_S5); rem_ /= uint(OUT_D5); } \
    if (RANK > 4) { off_ += (rem_ % uint(OUT_D4)) * uint(IN##K##_S4); rem_ /= uint(OUT_D4); } \
    if (RANK > 3) { off_ += (rem_ % uint(OUT_D3)) * uint(IN##K##_S3); rem_ /= uint(OUT_D3); } \
    if (RANK > 2) { off_ += (rem_ % uint(OUT_D2)) * uint(IN##K##_S2); rem_ /= uint(OUT_D2); } \
    if (RANK > 1) { off_ += (rem_ % uint(OUT_D1)) * uint(IN##K##_S1); rem_ /= uint(OUT_D1); } \
    off_ += rem_ * uint(IN##K##_S0);                                             \
    result = off_;                                                               \
  }
#endif

#if NUM_IN > 0 && !defined(IN0_CONTIG)
#define IN0_CONTIG 0
#endif
#if NUM_IN > 1 && !defined(IN1_CONTIG)
#define IN1_CONTIG 0
#endif
#if NUM_IN > 2 && !defined(IN2_CONTIG)
#define IN2_CONTIG 0
#endif
#if NUM_IN > 3 && !defined(IN3_CONTIG)
#define IN3_CONTIG 0
#endif

void main() {
  uint base = EW_GROUP() * uint(WG_X * EPT) + gl_LocalInvocationID.x;
  for (uint j = 0u; j < uint(EPT); ++j) {
    uint idx = base + j * uint(WG_X);
    if (idx >= uint(TOTAL)) return;
    uint ch = EW_CHANNEL(idx);
#if NUM_IN > 0
    uint o0 = idx;
#if !IN0_CONTIG
    OVGF_OFFSET(0, idx, o0)
#endif
    IN0_CT a0 = IN0_LD(in0[o0]);
#endif
#if NUM_IN > 1
    uint o1 = idx;
#if !IN1_CONTIG
    OVGF_OFFSET(1, idx, o1)
#endif
    IN1_CT a1 = IN1_LD(in1[o1]);
#endif
#if NUM_IN > 2
    uint o2 = idx;
#if !IN2_CONTIG
    OVGF_OFFSET(2, idx, o2)
#endif
    IN2_CT a2 = IN2_LD(in2[o2]);
#endif
#if NUM_IN > 3
    uint o3 = idx;
#if !IN3_CONTIG
    OVGF_OFFSET(3, idx, o3)
#endif
    IN3_CT a3 = IN3_LD(in3[o3]);
#endif
    OUT_CT r;
    EW_BODY
    out0[idx] = OUT_ST(r);
  }
}
