// SPDX-License-Identifier: Apache-2.0
// RESIZE (NEAREST, BILINEAR) with TOSA's integer position arithmetic: the output pixel
// (oy, ox) maps to y = oy*YD + OFF_Y, iy = floor(y / YN), remainder ry (and likewise for
// x); neighbours are clamped to the input. Integer BILINEAR keeps the scale YN*XN in the
// result (a following RESCALE divides it out). Floating-point fractions are rounded to the
// input type (RT_ROUND) as the reference does, so NEAREST picks the same neighbour.
// One invocation per output element, channel fastest (coalesced).
//
// Defines: BATCH IH IW C OH OW YN YD XN XD OFF_Y OFF_X, BILINEAR (0/1), FLOAT_T (0/1),
//   IN_STYPE IN_LD OUT_STYPE OUT_ST OUT_CT, ACC_CT (integer bilinear accumulator),
//   RT_ROUND(x) (fp fraction rounding), EPT, WG_X.
// Bindings (set 0): 0 input, 1 output.
// Grid: ceil(BATCH*OH*OW*C / (WG_X*EPT)) workgroups folded as GRID_X x rows.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"
#include "include/types.glsl"

#ifndef BATCH
#define BATCH 1
#define IH 4
#define IW 5
#define C 3
#define OH 7
#define OW 9
#define YN 2
#define YD 1
#define XN 2
#define XD 1
#define OFF_Y 0
#define OFF_X 0
#define BILINEAR 1
#define FLOAT_T 1
#define IN_STYPE float
#define IN_LD ld_f32
#define OUT_STYPE float
#define OUT_ST st_f32
#define OUT_CT float
#define ACC_CT float
#define RT_ROUND(x) (x)
#endif
#ifndef EPT
#define EPT 4
#endif
#define TOTAL (BATCH * OH * OW * C)

layout(local_size_x = WG_X, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) readonly buffer In { IN_STYPE in0[]; };
layout(set = 0, binding = 1) writeonly buffer Out { OUT_STYPE out0[]; };

// floor(a / b) for b > 0.
int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

void main() {
  uint base = ovgf_linear_group() * uint(WG_X * EPT) + gl_LocalInvocationID.x;
  for (uint j = 0u; j < uint(EPT); ++j) {
    uint e = base + j * uint(WG_X);
    if (e >= uint(TOTAL)) return;
    uint c = e % uint(C);
    uint t = e / uint(C);
    int ox = int(t % uint(OW));
    t /= uint(OW);
    int oy = int(t % uint(OH));
    uint b = t / uint(OH);

    int y = oy * YD + OFF_Y;
    int iy = floor_div(y, YN);
    int ry = y - iy * YN;
    int iy0 = max(iy, 0);
    int iy1 = min(iy + 1, IH - 1);
    int x = ox * XD + OFF_X;
    int ix = floor_div(x, XN);
    int rx = x - ix * XN;
    int ix0 = max(ix, 0);
    int ix1 = min(ix + 1, IW - 1);
    uint row0 = (b * uint(IH) + uint(iy0)) * uint(IW);
    uint row1 = (b * uint(IH) + uint(iy1)) * uint(IW);

#if FLOAT_T
    float dy = RT_ROUND(float(ry) / float(YN));
    float dx = RT_ROUND(float(rx) / float(XN));
#if BILINEAR
    float wy0 = RT_ROUND(1.0 - dy);
    float wx0 = RT_ROUND(1.0 - dx);
    float v00 = IN_LD(in0[(row0 + uint(ix0)) * uint(C) + c]);
    float v01 = IN_LD(in0[(row0 + uint(ix1)) * uint(C) + c]);
    float v10 = IN_LD(in0[(row1 + uint(ix0)) * uint(C) + c]);
    float v11 = IN_LD(in0[(row1 + uint(ix1)) * uint(C) + c]);
    float acc = v00 * wy0 * wx0 + v01 * wy0 * dx + v10 * dy * wx0 + v11 * dy * dx;
    out0[e] = OUT_ST(OUT_CT(acc));
#else
    uint yy = dy >= 0.5 ? row1 : row0;
    int xx = dx >= 0.5 ? ix1 : ix0;
    out0[e] = OUT_ST(OUT_CT(IN_LD(in0[(yy + uint(xx)) * uint(C) + c])));
#endif
#else
#if BILINEAR
    ACC_CT v00 = ACC_CT(IN_LD(in0[(row0 + uint(ix0)) * uint(C) + c]));
    ACC_CT v01 = ACC_CT(IN_LD(in0[(row0 + uint(ix1)) * uint(C) + c]));
    ACC_CT v10 = ACC_CT(IN_LD(in0[(row1 + uint(ix0)) * uint(C) + c]));
    ACC_CT v11 = ACC_CT(IN_LD(in0[(row1 + uint(ix1)) * uint(C) + c]));
    ACC_CT wy1 = ACC_CT(ry), wy0 = ACC_CT(YN - ry), wx1 = ACC_CT(rx), wx0 = ACC_CT(XN - rx);
    ACC_CT acc = v00 * wy0 * wx0 + v01 * wy0 * wx1 + v10 * wy1 * wx0 + v11 * wy1 * wx1;
    out0[e] = OUT_ST(OUT_CT(acc));
#else
    uint yy = 2 * ry >= YN ? row1 : row0;
    int xx = 2 * rx >= XN ? ix1 : ix0;
    out0[e] = OUT_ST(OUT_CT(IN_LD(in0[(yy + uint(xx)) * uint(C) + c])));
#endif
#endif
  }
}
