// SPDX-License-Identifier: Apache-2.0
// REDUCE_SUM / PRODUCT / MAX / MIN / ALL / ANY along one axis. The converter views the
// input as [OUTER, KR, INNER] (KR = reduced dim). A workgroup owns RX consecutive inner
// positions of one outer index and RY invocations split the reduced dim; partial results
// are combined with subgroup arithmetic (RX == 1, USE_SUBGROUP) and a shared-memory tree.
//
// Defines: OUTER KR INNER, RX RY (RX*RY invocations), IN_STYPE IN_LD, A_CT (accumulator),
//   RED_INIT (identity), RED_OP(a, b) (combine), SG_OP (subgroup collective, e.g.
//   subgroupAdd), USE_SUBGROUP, ACC_RND(x) (rounding to acc_t), OUT_STYPE OUT_ST.
// Bindings (set 0): 0 input, 1 output [OUTER, 1, INNER].
// Grid: (ceil(INNER/RX), min(OUTER, 65535), ceil(OUTER/65535)).
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
#include "include/common.glsl"
#include "include/types.glsl"
#include "include/ew_ops.glsl"

#ifndef OUTER
#define OUTER 4
#define KR 1000
#define INNER 1
#define RX 1
#define RY 256
#define IN_STYPE float
#define IN_LD ld_f32
#define A_CT float
#define RED_INIT 0.0
#define RED_OP(a, b) ((a) + (b))
#define SG_OP subgroupAdd
#define USE_SUBGROUP 1
#define OUT_STYPE float
#define OUT_ST st_f32
#endif
#ifndef USE_SUBGROUP
#define USE_SUBGROUP 0
#endif
#ifndef ACC_RND
#define ACC_RND(x) (x)
#endif

// One-dimensional workgroup (lx fastest): subgroups then hold consecutive ly when RX == 1.
layout(local_size_x = RX * RY, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) readonly buffer In { IN_STYPE in0[]; };
layout(set = 0, binding = 1) writeonly buffer Out { OUT_STYPE out0[]; };

shared A_CT partial[RY][RX];

void main() {
  uint lx = gl_LocalInvocationIndex % uint(RX);
  uint ly = gl_LocalInvocationIndex / uint(RX);
  uint inner = gl_WorkGroupID.x * uint(RX) + lx;
  // Outer indexes beyond the 65535 workgroups of y continue in z.
  uint outer = gl_WorkGroupID.z * 65535u + gl_WorkGroupID.y;
  if (outer >= uint(OUTER)) return;
  bool inRange = inner < uint(INNER);

  A_CT acc = A_CT(RED_INIT);
  if (inRange) {
    for (uint k = ly; k < uint(KR); k += uint(RY)) {
      A_CT v = A_CT(IN_LD(in0[(outer * uint(KR) + k) * uint(INNER) + inner]));
      acc = ACC_RND(RED_OP(acc, v));
    }
  }
#if USE_SUBGROUP && RX == 1
  // Invocations of one subgroup hold consecutive ly; reduce them first, then one value
  // per subgroup goes through shared memory.
  acc = SG_OP(acc);
  uint sgCount = gl_NumSubgroups;
  if (subgroupElect()) partial[gl_SubgroupID][0] = acc;
  barrier();
  if (ly == 0u) {
    A_CT total = partial[0][0];
    for (uint s = 1u; s < sgCount; ++s) total = ACC_RND(RED_OP(total, partial[s][0]));
    out0[outer] = OUT_ST(total);
  }
#else
  partial[ly][lx] = acc;
  barrier();
  for (uint stride = uint(RY) / 2u; stride > 0u; stride /= 2u) {
    if (ly < stride) partial[ly][lx] = ACC_RND(RED_OP(partial[ly][lx], partial[ly + stride][lx]));
    barrier();
  }
  if (ly == 0u && inRange) out0[outer * uint(INNER) + inner] = OUT_ST(partial[0][lx]);
#endif
}
