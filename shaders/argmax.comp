// SPDX-License-Identifier: Apache-2.0
// ARGMAX along one axis, viewed as [OUTER, KR, INNER]. Like reduce.comp, RY invocations
// split the reduced dim and a shared-memory tree combines (value, index) pairs, keeping
// the first index of the maximum; NaN ordering follows nan_mode (specs/tosa.md §2.3).
//
// Defines: OUTER KR INNER, RX RY, IN_STYPE IN_LD, A_CT, IS_FLOAT, NAN_IGNORE.
// Bindings (set 0): 0 input, 1 output (int32, [OUTER, INNER]).
// Grid: (ceil(INNER/RX), min(OUTER, 65535), ceil(OUTER/65535)).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"
#include "include/types.glsl"
#include "include/ew_ops.glsl"

#ifndef OUTER
#define OUTER 4
#define KR 100
#define INNER 3
#define RX 4
#define RY 64
#define IN_STYPE float
#define IN_LD ld_f32
#define A_CT float
#define IS_FLOAT 1
#endif
#ifndef NAN_IGNORE
#define NAN_IGNORE 0
#endif

// One-dimensional workgroup (lx fastest): subgroups then hold consecutive ly when RX == 1.
layout(local_size_x = RX * RY, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) readonly buffer In { IN_STYPE in0[]; };
layout(set = 0, binding = 1) writeonly buffer Out { int out0[]; };

shared A_CT sVal[RY][RX];
shared int sIdx[RY][RX];

// True if candidate (v, i) replaces the current best (b, bi): greater value, or equal value
// with a smaller index. PROPAGATE ranks NaN above every number, IGNORE below.
bool better(A_CT v, int i, A_CT b, int bi) {
  if (bi < 0) return true;
  if (i < 0) return false;
#if IS_FLOAT
  bool vn = isnan(v);
  bool bn = isnan(b);
  if (vn || bn) {
#if NAN_IGNORE
    if (vn && bn) return i < bi;
    return bn;
#else
    if (vn && bn) return i < bi;
    return vn;
#endif
  }
#endif
  return v > b || (v == b && i < bi);
}

void main() {
  uint lx = gl_LocalInvocationIndex % uint(RX);
  uint ly = gl_LocalInvocationIndex / uint(RX);
  uint inner = gl_WorkGroupID.x * uint(RX) + lx;
  // Outer indexes beyond the 65535 workgroups of y continue in z.
  uint outer = gl_WorkGroupID.z * 65535u + gl_WorkGroupID.y;
  if (outer >= uint(OUTER)) return;
  bool inRange = inner < uint(INNER);
  A_CT best = A_CT(0);
  int bestIdx = -1;
  if (inRange) {
    for (uint k = ly; k < uint(KR); k += uint(RY)) {
      A_CT v = A_CT(IN_LD(in0[(outer * uint(KR) + k) * uint(INNER) + inner]));
      if (better(v, int(k), best, bestIdx)) { best = v; bestIdx = int(k); }
    }
  }
  sVal[ly][lx] = best;
  sIdx[ly][lx] = bestIdx;
  barrier();
  for (uint stride = uint(RY) / 2u; stride > 0u; stride /= 2u) {
    if (ly < stride && better(sVal[ly + stride][lx], sIdx[ly + stride][lx], sVal[ly][lx], sIdx[ly][lx])) {
      sVal[ly][lx] = sVal[ly + stride][lx];
      sIdx[ly][lx] = sIdx[ly + stride][lx];
    }
    barrier();
  }
  if (ly == 0u && inRange) out0[outer * uint(INNER) + inner] = max(sIdx[0][lx], 0);
}
