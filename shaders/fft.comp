// SPDX-License-Identifier: Apache-2.0
// FFT2D / RFFT2D as two separable DFT passes (along W, then along H), each a complex
// matrix-vector product with twiddles exp(-i*sign*2*pi*((i*o) mod L)/L) computed from the
// exact integer phase (reduced to [-L/2, L/2) before the fp32 angle). The input is viewed
// as [OUTER, L, INNER] and the output as [OUTER, OL, INNER].
//
// Defines: OUTER L INNER OL, SIGN (+1 forward, -1 inverse), REAL_INPUT (no imaginary
//   input binding), EPT, WG_X.
// Bindings (set 0): REAL_INPUT=0: 0 real, 1 imag, 2 out real, 3 out imag;
//   REAL_INPUT=1: 0 real, 1 out real, 2 out imag. All fp32.
// Grid: ceil(OUTER*OL*INNER / (WG_X*EPT)) workgroups folded as GRID_X x rows.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

#ifndef OUTER
#define OUTER 8
#define L 16
#define INNER 1
#define OL 16
#define SIGN 1
#define REAL_INPUT 0
#endif
#ifndef EPT
#define EPT 1
#endif
#define TOTAL (OUTER * OL * INNER)

layout(local_size_x = WG_X, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) readonly buffer InRe { float inRe[]; };
#if REAL_INPUT
layout(set = 0, binding = 1) writeonly buffer OutRe { float outRe[]; };
layout(set = 0, binding = 2) writeonly buffer OutIm { float outIm[]; };
#else
layout(set = 0, binding = 1) readonly buffer InIm { float inIm[]; };
layout(set = 0, binding = 2) writeonly buffer OutRe { float outRe[]; };
layout(set = 0, binding = 3) writeonly buffer OutIm { float outIm[]; };
#endif

void main() {
  uint base = ovgf_linear_group() * uint(WG_X * EPT) + gl_LocalInvocationID.x;
  for (uint j = 0u; j < uint(EPT); ++j) {
    uint idx = base + j * uint(WG_X);
    if (idx >= uint(TOTAL)) return;
    uint inner = idx % uint(INNER);
    uint t = idx / uint(INNER);
    uint o = t % uint(OL);
    uint outer = t / uint(OL);
    float re = 0.0;
    float im = 0.0;
    for (uint i = 0u; i < uint(L); ++i) {
      int phase = int((i * o) % uint(L));
      if (2 * phase >= L) phase -= L;  // [-L/2, L/2); L = 1 keeps phase 0
      float c;
      float s;
      if ((phase * 4) % L == 0) {
        // Quarter turns are exact, so symmetric outputs (e.g. RFFT2D's imaginary part at
        // columns 0 and W/2) come out exactly zero.
        int q = phase * 4 / L;  // -2, -1, 0 or 1
        c = q == 0 ? 1.0 : (q == -2 ? -1.0 : 0.0);
        s = q == 1 ? float(SIGN) : (q == -1 ? -float(SIGN) : 0.0);
      } else {
        float a = float(SIGN) * 6.283185307179586 * float(phase) / float(L);
        c = cos(a);
        s = sin(a);
      }
      uint src = (outer * uint(L) + i) * uint(INNER) + inner;
      float r = inRe[src];
#if REAL_INPUT
      re += r * c;
      im -= r * s;
#else
      float m = inIm[src];
      re += r * c + m * s;
      im += m * c - r * s;
#endif
    }
    outRe[idx] = re;
    outIm[idx] = im;
  }
}
