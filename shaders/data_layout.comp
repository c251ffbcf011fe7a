// SPDX-License-Identifier: Apache-2.0
// Data-layout copies: TRANSPOSE, SLICE, PAD, TILE, REVERSE, CONCAT (one dispatch per
// input), RESHAPE copies and SCATTER's initial copy. The converter describes each as an
// iteration space of up to 8 dims with a linear source and destination offset per dim
// (strides may be 0 or negative), so every op of the family is the same loop. Elements
// are moved as raw bits of their storage size (no conversion).
//
// Defines: RANK (1..8), TOTAL, D0..D7 (iteration dims, D0 outermost), SRC_S<i>, DST_S<i>
//   (element strides), SRC_BASE, DST_BASE, ETYPE (uint8_t/uint16_t/uint/uint64_t),
//   PAD_MODE (1: source coord = coord - LO<i>, out-of-range positions get PAD_BITS),
//   LO0..LO7, LIM0..LIM7 (source dims in PAD_MODE), EPT, WG_X.
// Bindings (set 0): 0 source, 1 destination.
// Grid: ceil(TOTAL / (WG_X*EPT)) workgroups folded as GRID_X x rows.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

#ifndef RANK
#define RANK 2
#define TOTAL 4096
#define D0 64
#define D1 64
#define SRC_S0 1
#define SRC_S1 64
#define DST_S0 64
#define DST_S1 1
#define ETYPE uint
#endif
#ifndef SRC_BASE
#define SRC_BASE 0
#endif
#ifndef DST_BASE
#define DST_BASE 0
#endif
#ifndef PAD_MODE
#define PAD_MODE 0
#endif
#ifndef PAD_BITS
#define PAD_BITS 0
#endif
#ifndef EPT
#define EPT 4
#endif
#ifndef D1
#define D1 1
#endif
#ifndef D2
#define D2 1
#endif
#ifndef D3
#define D3 1
#endif
#ifndef D4
#define D4 1
#endif
#ifndef D5
#define D5 1
#endif
#ifndef D6
#define D6 1
#endif
#ifndef D7
#define D7 1
#endif
#ifndef SRC_S1
#define SRC_S1 0
#endif
#ifndef SRC_S2
#define SRC_S2 0
#endif
#ifndef SRC_S3
#define SRC_S3 0
#endif
#ifndef SRC_S4
#define SRC_S4 0
#endif
#ifndef SRC_S5
#define SRC_S5 0
#endif
#ifndef SRC_S6
#define SRC_S6 0
#endif
#ifndef SRC_S7
#define SRC_S7 0
#endif
#ifndef DST_S1
#define DST_S1 0
#endif
#ifndef DST_S2
#define DST_S2 0
#endif
#ifndef DST_S3
#define DST_S3 0
#endif
#ifndef DST_S4
#define DST_S4 0
#endif
#ifndef DST_S5
#define DST_S5 0
#endif
#ifndef DST_S6
#define DST_S6 0
#endif
#ifndef DST_S7
#define DST_S7 0
#endif
#if PAD_MODE
#ifndef LO1
#define LO1 0
#define LIM1 1
#endif
#ifndef LO2
#define LO2 0
#define LIM2 1
#endif
#ifndef LO3
#define LO3 0
#define LIM3 1
#endif
#ifndef LO4
#define LO4 0
#define LIM4 1
#endif
#ifndef LO5
#define LO5 0
#define LIM5 1
#endif
#ifndef LO6
#define LO6 0
#define LIM6 1
#endif
#ifndef LO7
#define LO7 0
#define LIM7 1
#endif
#endif

layout(local_size_x = WG_X, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) readonly buffer Src { ETYPE src0[]; };
layout(set = 0, binding = 1) writeonly buffer Dst { ETYPE dst0[]; };

#if PAD_MODE
#define OVGF_DIM(i)                                                   \
  if (RANK > i) {                                                     \
    int c_ = int(rem % uint(D##i));                                   \
    rem /= uint(D##i);                                                \
    int sc_ = c_ - LO##i;                                             \
    inside = inside && sc_ >= 0 && sc_ < LIM##i;                      \
    s += sc_ * SRC_S##i;                                              \
    d += c_ * DST_S##i;                                               \
  }
#else
#define OVGF_DIM(i)                                                   \
  if (RANK > i) {                                                     \
    int c_ = int(rem % uint(D##i));                                   \
    rem /= uint(D##i);                                                \
    s += c_ * SRC_S##i;                                               \
    d += c_ * DST_S##i;                                               \
  }
#endif

void main() {
  uint base = ovgf_linear_group() * uint(WG_X * EPT) + gl_LocalInvocationID.x;
  for (uint j = 0u; j < uint(EPT); ++j) {
    uint idx = base + j * uint(WG_X);
    if (idx >= uint(TOTAL)) return;
    uint rem = idx;
    int s = SRC_BASE;
    int d = DST_BASE;
    bool inside = true;
    OVGF_DIM(7) OVGF_DIM(6) OVGF_DIM(5) OVGF_DIM(4) OVGF_DIM(3) OVGF_DIM(2) OVGF_DIM(1) OVGF_DIM(0)
#if PAD_MODE
    dst0[d] = inside ? src0[s] : ETYPE(PAD_BITS);
#else
    dst0[d] = src0[s];
#endif
  }
}
