// SPDX-License-Identifier: Apache-2.0
// GATHER (out[n, w, c] = values[n, indices[n, w], c]) and the row writes of SCATTER
// (values_out[n, indices[n, w], c] = input[n, w, c], after the converter copied values_in
// into values_out). One invocation per moved element, c fastest (coalesced rows).
// Indices outside [0, K) are skipped (TOSA: unpredictable, but never out of bounds).
//
// Defines: SCATTER (0 = GATHER, 1 = SCATTER), BATCH K W C, ETYPE (raw element bits),
//   EPT, WG_X.
// Bindings (set 0): GATHER: 0 values, 1 indices (int32), 2 output.
//   SCATTER: 0 input [N,W,C], 1 indices, 2 values_out (already holding values_in).
// Grid: ceil(BATCH*W*C / (WG_X*EPT)) workgroups folded as GRID_X x rows.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

#ifndef BATCH
#define SCATTER 0
#define BATCH 2
#define K 16
#define W 8
#define C 32
#define ETYPE uint
#endif
#ifndef EPT
#define EPT 4
#endif
#define TOTAL (BATCH * W * C)

layout(local_size_x = WG_X, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) readonly buffer Src { ETYPE src0[]; };
layout(set = 0, binding = 1) readonly buffer Indices { int idx0[]; };
layout(set = 0, binding = 2) buffer Dst { ETYPE dst0[]; };

void main() {
  uint base = ovgf_linear_group() * uint(WG_X * EPT) + gl_LocalInvocationID.x;
  for (uint j = 0u; j < uint(EPT); ++j) {
    uint e = base + j * uint(WG_X);
    if (e >= uint(TOTAL)) return;
    uint c = e % uint(C);
    uint nw = e / uint(C);
    uint n = nw / uint(W);
    int k = idx0[nw];
    if (k < 0 || k >= K) continue;
    uint row = (n * uint(K) + uint(k)) * uint(C) + c;
#if SCATTER
    dst0[row] = src0[e];
#else
    dst0[e] = src0[row];
#endif
  }
}
