// SPDX-License-Identifier: Apache-2.0
// RESIZE (NEAREST, BILINEAR) per TOSA 1.0: one invocation per output element, channel
// fastest (coalesced). Integer BILINEAR returns the unnormalised sum (scaled by
// y_n * x_n) as the spec does; floating point interpolates in fp32.
//
// Defines: BATCH IH IW C OH OW, SCALE_YN SCALE_YD SCALE_XN SCALE_XD OFF_Y OFF_X, BILINEAR,
//   IS_FLOAT, IN_STYPE IN_LD OUT_STYPE OUT_ST, ACC_CT (int, int64_t or float), EPT, WG_X.
// Bindings (set 0): 0 input [N,IH,IW,C], 1 output [N,OH,OW,C].
// Grid: ceil(N*OH*OW*C / (WG_X*EPT)) workgroups folded as GRID_X x rows.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"
#include "include/types.glsl"

#ifndef BATCH
#define BATCH 1
#define IH 4
#define IW 4
#define C 3
#define OH 8
#define OW 8
#define SCALE_YN 4
#define SCALE_YD 2
#define SCALE_XN 4
#define SCALE_XD 2
#define OFF_Y (-1)
#define OFF_X (-1)
#define BILINEAR 1
#define IS_FLOAT 1
#define IN_STYPE float
#define IN_LD ld_f32
#define OUT_STYPE float
#define OUT_ST st_f32
#define ACC_CT float
#endif
#ifndef EPT
#define EPT 4
#endif
#define TOTAL (BATCH * OH * OW * C)

layout(local_size_x = WG_X, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) readonly buffer In { IN_STYPE in0[]; };
layout(set = 0, binding = 1) writeonly buffer Out { OUT_STYPE out0[]; };

int floorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

ACC_CT fetch(uint b, int y, int x, uint c) {
  return ACC_CT(IN_LD(in0[((b * uint(IH) + uint(y)) * uint(IW) + uint(x)) * uint(C) + c]));
}

void main() {
  uint base = ovgf_linear_group() * uint(WG_X * EPT) + gl_LocalInvocationID.x;
  for (uint j = 0u; j < uint(EPT); ++j) {
    uint idx = base + j * uint(WG_X);
    if (idx >= uint(TOTAL)) return;
    uint c = idx % uint(C);
    uint t = idx / uint(C);
    int ox = int(t % uint(OW));
    t /= uint(OW);
    int oy = int(t % uint(OH));
    uint b = t / uint(OH);
    int y = oy * SCALE_YD + OFF_Y;
    int x = ox * SCALE_XD + OFF_X;
    int iy = floorDiv(y, SCALE_YN);
    int ix = floorDiv(x, SCALE_XN);
    int ry = y - iy * SCALE_YN;
    int rx = x - ix * SCALE_XN;
    int iy0 = clamp(iy, 0, IH - 1);
    int iy1 = clamp(iy + 1, 0, IH - 1);
    int ix0 = clamp(ix, 0, IW - 1);
    int ix1 = clamp(ix + 1, 0, IW - 1);
#if BILINEAR
#if IS_FLOAT
    float dy = float(ry) / float(SCALE_YN);
    float dx = float(rx) / float(SCALE_XN);
    ACC_CT acc = fetch(b, iy0, ix0, c) * (1.0 - dy) * (1.0 - dx) + fetch(b, iy0, ix1, c) * (1.0 - dy) * dx +
                 fetch(b, iy1, ix0, c) * dy * (1.0 - dx) + fetch(b, iy1, ix1, c) * dy * dx;
#else
    ACC_CT wy0 = ACC_CT(SCALE_YN - ry), wy1 = ACC_CT(ry), wx0 = ACC_CT(SCALE_XN - rx), wx1 = ACC_CT(rx);
    ACC_CT acc = fetch(b, iy0, ix0, c) * wy0 * wx0 + fetch(b, iy0, ix1, c) * wy0 * wx1 +
                 fetch(b, iy1, ix0, c) * wy1 * wx0 + fetch(b, iy1, ix1, c) * wy1 * wx1;
#endif
#else
#if IS_FLOAT
    bool upY = float(ry) / float(SCALE_YN) >= 0.5;
    bool upX = float(rx) / float(SCALE_XN) >= 0.5;
#else
    bool upY = 2 * ry >= SCALE_YN;
    bool upX = 2 * rx >= SCALE_XN;
#endif
    ACC_CT acc = fetch(b, upY ? iy1 : iy0, upX ? ix1 : ix0, c);
#endif
    out0[idx] = OUT_ST(acc);
  }
}
