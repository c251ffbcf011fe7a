// SPDX-License-Identifier: Apache-2.0
// FFT2D / RFFT2D: one axis of a 2D transform as a radix-2 decimation-in-frequency FFT.
// The data are viewed as LINES = OUTER*INNER lines of length L (element i of line
// (outer, inner) at (outer*L + i)*INNER + inner) and the result as lines of length OL
// (OL = L, or L/2+1 for the first axis of RFFT2D: only those bins are stored).
//
// A line of length L = SEGS*M, M the longest segment that fits in shared memory, goes
// through log2(SEGS) global stages (MODE 1, one dispatch each) and then one shared-memory
// kernel (MODE 0):
// - MODE 1, stage STAGE: butterflies of span HALF = L >> (STAGE+1) on whole lines in a
//   scratch buffer: (a, b) -> (a + b, (a - b) * w^j); with RADIX4 also stage STAGE+1 in
//   the same dispatch. Afterwards the line holds SEGS independent sub-transforms, each on a
//   contiguous segment of M elements.
// - MODE 0: each workgroup loads LPW lines' segment `seg` into shared memory, finishes the
//   decimation there (log2(M) stages, fused in pairs into radix-4 steps with a barrier
//   after each) and stores the bins in natural
//   order: after a full in-place DIF, position p = seg*M + q holds bin
//   bitreverse_L(p) = (bitreverse_M(q) << log2(SEGS)) | bitreverse_SEGS(seg).
// Twiddles come from a constant table tw[k] = (cos, sin)(2*pi*k/L), k < L/2, computed by
// the converter in double precision (exact at quarter turns) and rounded once to fp32, so
// the only fp32 errors are those of the butterflies: O(log L) roundings per bin. The
// forward transform multiplies by exp(-i*angle), the inverse by exp(+i*angle); no
// normalisation (TOSA).
//
// RFFT2D's rows, when they fit in shared memory, take the packed form (PACKED_REAL, MODE 0,
// INNER = 1): a real row of 2L points is read as L complex points (even + i*odd), so the
// FFT is half as long; the store step separates the halves' transforms again (below).
//
// Defines: MODE (0/1), OUTER L INNER OL, LOG2L, M LOG2M (MODE 0), LPW (lines per
//   workgroup, MODE 0), STAGE (MODE 1), FORWARD (1/0), REAL_INPUT (no imaginary input),
//   IN_PLACE (MODE 1 after stage 0: the scratch buffers are read and written),
//   PACKED_REAL (L = half the real row, OL = L + 1), TW_STEP (table stride: 2 when
//   PACKED_REAL, whose table is built for 2L), RADIX4 (MODE 1: two stages), WG_X.
// Bindings (set 0), all fp32: 0 input real, [1 input imaginary unless REAL_INPUT], then
//   twiddles, output real, output imaginary. IN_PLACE: 0 twiddles, 1 real, 2 imaginary.
// Grid: MODE 0: ceil(LINES/LPW) * SEGS workgroups; MODE 1: ceil(LINES*L/2 / WG_X)
//   (RADIX4: LINES*L/4);
//   folded as GRID_X x rows.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"

#ifndef MODE
#define MODE 0
#define OUTER 2
#define L 16
#define LOG2L 4
#define INNER 1
#define OL 16
#define M 16
#define LOG2M 4
#define LPW 1
#define STAGE 0
#define FORWARD 1
#define REAL_INPUT 0
#define IN_PLACE 0
#endif
#ifndef PACKED_REAL
#define PACKED_REAL 0
#endif
#ifndef TW_STEP
#define TW_STEP 1
#endif
#ifndef RADIX4
#define RADIX4 0
#endif
#define LINES (OUTER * INNER)
#define SEGS (L / M)

layout(local_size_x = WG_X, local_size_y = 1, local_size_z = 1) in;

#if IN_PLACE
layout(set = 0, binding = 0) readonly buffer Twiddle { vec2 tw[]; };
layout(set = 0, binding = 1) buffer DataRe { float dataRe[]; };
layout(set = 0, binding = 2) buffer DataIm { float dataIm[]; };
#define IN_RE dataRe
#define IN_IM dataIm
#define OUT_RE dataRe
#define OUT_IM dataIm
#else
layout(set = 0, binding = 0) readonly buffer InRe { float inRe[]; };
#if REAL_INPUT
#define TW_BINDING 1
#else
layout(set = 0, binding = 1) readonly buffer InIm { float inIm[]; };
#define TW_BINDING 2
#endif
layout(set = 0, binding = TW_BINDING) readonly buffer Twiddle { vec2 tw[]; };
layout(set = 0, binding = TW_BINDING + 1) writeonly buffer OutRe { float outRe[]; };
layout(set = 0, binding = TW_BINDING + 2) writeonly buffer OutIm { float outIm[]; };
#define IN_RE inRe
#define IN_IM inIm
#define OUT_RE outRe
#define OUT_IM outIm
#endif

// Entry k of the table for the direction of the transform.
vec2 tableTwiddle(uint k) {
  vec2 w = tw[k];
#if FORWARD
  w.y = -w.y;
#endif
  return w;
}

// w_L^k: the table is built for length L*TW_STEP (PACKED_REAL: the real line's length).
vec2 twiddle(uint k) { return tableTwiddle(k * uint(TW_STEP)); }

vec2 cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

vec2 load(uint index) {
#if REAL_INPUT && !IN_PLACE
  return vec2(IN_RE[index], 0.0);
#else
  return vec2(IN_RE[index], IN_IM[index]);
#endif
}

#if MODE == 1

// The four points base + {0, q, h, h+q} (times INNER in memory) through the stages of
// spans h and q = h/2, at offset j in their blocks; `stride` is the span-h twiddle step
// L/(2h). The shared-memory loop of MODE 0 does the same on the shared arrays.
void radix4(uint base, uint q, uint h, uint j, uint stride) {
  uint s = uint(INNER);
  vec2 x0 = load(base);
  vec2 x1 = load(base + q * s);
  vec2 x2 = load(base + h * s);
  vec2 x3 = load(base + (h + q) * s);
  vec2 a0 = x0 + x2;
  vec2 a2 = cmul(x0 - x2, twiddle(j * stride));
  vec2 a1 = x1 + x3;
  vec2 a3 = cmul(x1 - x3, twiddle((j + q) * stride));
  vec2 w = twiddle(j * 2u * stride);
  vec2 y1 = cmul(a0 - a1, w);
  vec2 y3 = cmul(a2 - a3, w);
  a0 += a1;
  a2 += a3;
  OUT_RE[base] = a0.x;
  OUT_IM[base] = a0.y;
  OUT_RE[base + q * s] = y1.x;
  OUT_IM[base + q * s] = y1.y;
  OUT_RE[base + h * s] = a2.x;
  OUT_IM[base + h * s] = a2.y;
  OUT_RE[base + (h + q) * s] = y3.x;
  OUT_IM[base + (h + q) * s] = y3.y;
}

void main() {
  // Invocation t -> (outer, butterfly bt, inner) with inner fastest, so neighbouring
  // invocations of a column pass touch neighbouring addresses.
  uint t = ovgf_linear_group() * uint(WG_X) + gl_LocalInvocationID.x;
  const uint half_ = uint(L) >> (STAGE + 1);
#if RADIX4
  // Stages STAGE and STAGE+1 at once: L/4 four-point groups per line.
  if (t >= uint(LINES * (L / 4))) return;
  uint inner = t % uint(INNER);
  uint rest = t / uint(INNER);
  uint bt = rest % uint(L / 4);
  uint outer = rest / uint(L / 4);
  const uint q = half_ / 2u;
  uint j = bt % q;
  uint i0 = (bt / q) * 2u * half_ + j;
  radix4((outer * uint(L) + i0) * uint(INNER) + inner, q, half_, j, 1u << STAGE);
#else
  if (t >= uint(LINES * (L / 2))) return;
  uint inner = t % uint(INNER);
  uint rest = t / uint(INNER);
  uint bt = rest % uint(L / 2);
  uint outer = rest / uint(L / 2);
  uint j = bt % half_;
  uint i0 = (bt / half_) * 2u * half_ + j;
  uint a0 = (outer * uint(L) + i0) * uint(INNER) + inner;
  uint a1 = a0 + half_ * uint(INNER);
  vec2 a = load(a0);
  vec2 b = load(a1);
  vec2 d = cmul(a - b, twiddle(j << STAGE));
  a += b;
  OUT_RE[a0] = a.x;
  OUT_IM[a0] = a.y;
  OUT_RE[a1] = d.x;
  OUT_IM[a1] = d.y;
#endif
}

#else

shared float sRe[LPW * M];
shared float sIm[LPW * M];

uint reverseBits(uint v, uint bits) { return bits == 0u ? 0u : bitfieldReverse(v) >> (32u - bits); }

// Element e of the workgroup's LPW x M tile -> (line of the tile, index in the segment).
// Rows (INNER = 1) walk a line contiguously; columns walk across neighbouring lines first.
uvec2 tileElement(uint e) {
#if INNER == 1
  return uvec2(e / uint(M), e % uint(M));
#else
  return uvec2(e % uint(LPW), e / uint(LPW));
#endif
}

void main() {
  uint group = ovgf_linear_group();
  const uint lineGroups = (uint(LINES) + uint(LPW) - 1u) / uint(LPW);
  if (group >= lineGroups * uint(SEGS)) return;
  uint seg = group % uint(SEGS);
  uint firstLine = (group / uint(SEGS)) * uint(LPW);
  uint tid = gl_LocalInvocationID.x;

  for (uint e = tid; e < uint(LPW * M); e += uint(WG_X)) {
    uvec2 lq = tileElement(e);
    uint line = firstLine + lq.x;
    vec2 v = vec2(0.0);
    if (line < uint(LINES)) {
      uint outer = line / uint(INNER);
      uint inner = line % uint(INNER);
#if PACKED_REAL
      // Real points 2p and 2p+1 of the row become complex point p.
      uint src = (outer * uint(L) + lq.y) * 2u;
      v = vec2(inRe[src], inRe[src + 1u]);
#else
      v = load((outer * uint(L) + seg * uint(M) + lq.y) * uint(INNER) + inner);
#endif
    }
    sRe[lq.x * uint(M) + lq.y] = v.x;
    sIm[lq.x * uint(M) + lq.y] = v.y;
  }
  barrier();

  // Remaining DIF stages, spans M/2 ... 1 (a span h of the full line uses twiddle
  // w_L^(j * L/(2h))), two at a time: the stages of spans h and h/2 mix the four points
  // base + {0, h/2, h, 3h/2}, so one invocation does both in registers (a radix-4 step)
  // and a barrier follows every pair instead of every stage.
  uint h = uint(M) / 2u;
  for (; h >= 2u; h >>= 2) {
    const uint q = h / 2u;
    const uint stride = uint(L) / (2u * h);
    for (uint t = tid; t < uint(LPW * (M / 4)); t += uint(WG_X)) {
      uint ll = t / uint(M / 4);
      uint bt = t % uint(M / 4);
      uint j = bt % q;
      uint i0 = ll * uint(M) + (bt / q) * 2u * h + j;
      vec2 x0 = vec2(sRe[i0], sIm[i0]);
      vec2 x1 = vec2(sRe[i0 + q], sIm[i0 + q]);
      vec2 x2 = vec2(sRe[i0 + h], sIm[i0 + h]);
      vec2 x3 = vec2(sRe[i0 + h + q], sIm[i0 + h + q]);
      // Span h: pairs (x0, x2) at offset j and (x1, x3) at offset j + q.
      vec2 a0 = x0 + x2;
      vec2 a2 = cmul(x0 - x2, twiddle(j * stride));
      vec2 a1 = x1 + x3;
      vec2 a3 = cmul(x1 - x3, twiddle((j + q) * stride));
      // Span q: pairs (a0, a1) and (a2, a3), both at offset j.
      vec2 w = twiddle(j * 2u * stride);
      vec2 y1 = cmul(a0 - a1, w);
      vec2 y3 = cmul(a2 - a3, w);
      a0 += a1;
      a2 += a3;
      sRe[i0] = a0.x;
      sIm[i0] = a0.y;
      sRe[i0 + q] = y1.x;
      sIm[i0 + q] = y1.y;
      sRe[i0 + h] = a2.x;
      sIm[i0 + h] = a2.y;
      sRe[i0 + h + q] = y3.x;
      sIm[i0 + h + q] = y3.y;
    }
    barrier();
  }
  if (h == 1u) {
    // An odd number of stages: the last one has span 1, whose twiddle is 1.
    for (uint t = tid; t < uint(LPW * (M / 2)); t += uint(WG_X)) {
      uint i0 = 2u * t;
      vec2 a = vec2(sRe[i0], sIm[i0]);
      vec2 b = vec2(sRe[i0 + 1u], sIm[i0 + 1u]);
      sRe[i0] = a.x + b.x;
      sIm[i0] = a.y + b.y;
      sRe[i0 + 1u] = a.x - b.x;
      sIm[i0 + 1u] = a.y - b.y;
    }
    barrier();
  }

#if PACKED_REAL
  // Z = FFT_L(x[2p] + i*x[2p+1]) gives the even and odd halves' transforms
  // E[k] = (Z[k] + conj(Z[L-k])) / 2 and O[k] = (Z[k] - conj(Z[L-k])) / (2i), and the bins of
  // the real line of length 2L are X[k] = E[k] + w_2L^k * O[k], k = 0..L (w_2L^L = -1).
  for (uint e = tid; e < uint(LPW * OL); e += uint(WG_X)) {
    uint ll = e / uint(OL);
    uint k = e % uint(OL);
    uint line = firstLine + ll;
    if (line >= uint(LINES)) continue;
    uint a = ll * uint(M) + reverseBits(k % uint(L), uint(LOG2M));
    uint b = ll * uint(M) + reverseBits((uint(L) - k) % uint(L), uint(LOG2M));
    vec2 z = vec2(sRe[a], sIm[a]);
    vec2 zc = vec2(sRe[b], -sIm[b]);
    vec2 even = 0.5 * (z + zc);
    vec2 d = z - zc;
    vec2 odd = 0.5 * vec2(d.y, -d.x);
    vec2 x = k == uint(L) ? even - odd : even + cmul(odd, tableTwiddle(k));
    uint dst = line * uint(OL) + k;
    outRe[dst] = x.x;
    outIm[dst] = x.y;
  }
#else
  const uint segBits = uint(LOG2L - LOG2M);
  const uint low = reverseBits(seg, segBits);
  for (uint e = tid; e < uint(LPW * M); e += uint(WG_X)) {
    uvec2 lq = tileElement(e);
    uint line = firstLine + lq.x;
    uint k = (lq.y << segBits) | low;  // the bin this invocation stores
    if (line >= uint(LINES) || k >= uint(OL)) continue;
    uint outer = line / uint(INNER);
    uint inner = line % uint(INNER);
    uint src = lq.x * uint(M) + reverseBits(lq.y, uint(LOG2M));
    uint dst = (outer * uint(OL) + k) * uint(INNER) + inner;
    outRe[dst] = sRe[src];
    outIm[dst] = sIm[src];
  }
#endif
}

#endif
