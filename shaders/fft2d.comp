// SPDX-License-Identifier: Apache-2.0
// FFT2D and RFFT2D (EXT-FFT, fp32) as two separable passes of radix-2 FFTs in shared
// memory, O(log L) work per output and pass instead of the O(H*W) of a direct DFT.
//   PASS 0 (rows):    one workgroup per (n, y): transforms input row y along W and writes
//                     the first OUT_W bins (W, or W/2+1 for RFFT2D) to the outputs.
//   PASS 1 (columns): one workgroup per (n, x < OUT_W): transforms the output column along
//                     H in place (the workgroup owns its column: it loads every element
//                     before it writes any).
// Each line is loaded in bit-reversed order, then LOG2L butterfly stages run with a barrier
// between them. Twiddles come from a constant table tw[k] = (cos, sin)(2*pi*k/L),
// k < L/2, computed in double by the converter; the forward transform multiplies by
// exp(-i*angle) and the inverse by exp(+i*angle); no normalisation (TOSA).
//
// Defines: PASS (0/1), REAL (RFFT2D: no imaginary input), INVERSE, BATCH H W OUT_W,
//   L (line length: W for PASS 0, H for PASS 1), LOG2L, WG_X.
// Bindings (set 0): PASS 0: 0 input real, [1 input imaginary unless REAL], then twiddles,
//   output real, output imaginary. PASS 1: 0 twiddles, 1 output real, 2 output imaginary.
// Grid: PASS 0: BATCH*H workgroups, PASS 1: BATCH*OUT_W workgroups, folded as GRID_X x rows.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

#ifndef PASS
#define PASS 0
#define REAL 0
#define INVERSE 0
#define BATCH 1
#define H 8
#define W 16
#define OUT_W 16
#define L 16
#define LOG2L 4
#endif

layout(local_size_x = WG_X, local_size_y = 1, local_size_z = 1) in;

#if PASS == 0
layout(set = 0, binding = 0) readonly buffer InRe { float inRe[]; };
#if REAL
#define TW_BINDING 1
#else
layout(set = 0, binding = 1) readonly buffer InIm { float inIm[]; };
#define TW_BINDING 2
#endif
#else
#define TW_BINDING 0
#endif
layout(set = 0, binding = TW_BINDING) readonly buffer Twiddle { vec2 tw[]; };
layout(set = 0, binding = TW_BINDING + 1) buffer OutRe { float outRe[]; };
layout(set = 0, binding = TW_BINDING + 2) buffer OutIm { float outIm[]; };

shared float sRe[L];
shared float sIm[L];

uint bit_reverse(uint i) {
#if LOG2L == 0
  return 0u;
#else
  return bitfieldReverse(i) >> uint(32 - LOG2L);
#endif
}

void main() {
  uint line = ovgf_linear_group();
  uint tid = gl_LocalInvocationID.x;
#if PASS == 0
  if (line >= uint(BATCH * H)) return;
  uint src = line * uint(W);          // row (n, y) of the input
  uint dst = line * uint(OUT_W);      // row (n, y) of the outputs
  for (uint i = tid; i < uint(L); i += uint(WG_X)) {
    uint r = bit_reverse(i);
    sRe[r] = inRe[src + i];
#if REAL
    sIm[r] = 0.0;
#else
    sIm[r] = inIm[src + i];
#endif
  }
#else
  if (line >= uint(BATCH * OUT_W)) return;
  uint b = line / uint(OUT_W);
  uint col = b * uint(H * OUT_W) + line % uint(OUT_W);  // element (n, 0, x); stride OUT_W
  for (uint i = tid; i < uint(L); i += uint(WG_X)) {
    uint r = bit_reverse(i);
    sRe[r] = outRe[col + i * uint(OUT_W)];
    sIm[r] = outIm[col + i * uint(OUT_W)];
  }
#endif
  barrier();

  for (uint half_ = 1u; half_ < uint(L); half_ <<= 1) {
    uint step = uint(L) / (2u * half_);
    for (uint t = tid; t < uint(L / 2); t += uint(WG_X)) {
      uint j = t % half_;
      uint i0 = (t / half_) * 2u * half_ + j;
      uint i1 = i0 + half_;
      vec2 w = tw[j * step];
#if INVERSE == 0
      w.y = -w.y;
#endif
      float vr = sRe[i1] * w.x - sIm[i1] * w.y;
      float vi = sRe[i1] * w.y + sIm[i1] * w.x;
      float ur = sRe[i0];
      float ui = sIm[i0];
      sRe[i0] = ur + vr;
      sIm[i0] = ui + vi;
      sRe[i1] = ur - vr;
      sIm[i1] = ui - vi;
    }
    barrier();
  }

#if PASS == 0
  for (uint k = tid; k < uint(OUT_W); k += uint(WG_X)) {
    outRe[dst + k] = sRe[k];
    outIm[dst + k] = sIm[k];
  }
#else
  for (uint k = tid; k < uint(L); k += uint(WG_X)) {
    outRe[col + k * uint(OUT_W)] = sRe[k];
    outIm[col + k * uint(OUT_W)] = sIm[k];
  }
#endif
}
