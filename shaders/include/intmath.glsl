// SPDX-License-Identifier: Apache-2.0
// TOSA 1.0 integer helpers (specs/tosa.md §2.3): apply_scale_32 (32-bit operations only),
// apply_scale_16 for 48-bit values, saturating clips and the AVG_POOL2D reciprocal. The
// last two use int64_t, so a module that calls them declares the Int64 capability (present
// on lavapipe and desktop GPUs).
#ifndef OVGF_INTMATH_GLSL
#define OVGF_INTMATH_GLSL

int ovgf_clip(int v, int lo, int hi) { return min(max(v, lo), hi); }

// apply_scale_32: (value * multiplier + round) >> shift with a 64-bit intermediate, done in
// 32-bit halves (imulExtended + carries) so that no Int64 arithmetic reaches the driver:
// lavapipe's LLVM backend compiles 64-bit vector code slowly and runs it slowly. Exact for
// every 32-bit value and multiplier and 1 <= shift <= 63 (also serves MUL's shift).
int apply_scale_32(int value, int multiplier, int shift, bool doubleRound) {
  int phi;
  int plo;
  imulExtended(value, multiplier, phi, plo);
  uint hi = uint(phi);
  uint carry;
  // + 2^(shift - 1)
  uint lo = uaddCarry(uint(plo), shift <= 32 ? 1u << uint(shift - 1) : 0u, carry);
  hi += carry + (shift > 32 ? 1u << uint(shift - 33) : 0u);
  if (doubleRound && shift > 31) {
    // +/- 2^30 as a 64-bit two's-complement addend (high word 0 or all ones).
    lo = uaddCarry(lo, value >= 0 ? 0x40000000u : 0xC0000000u, carry);
    hi += carry + (value >= 0 ? 0u : 0xFFFFFFFFu);
  }
  if (shift < 32) return int((lo >> uint(shift)) | (hi << uint(32 - shift)));
  return int(hi) >> (shift - 32);
}

int apply_scale_16(int64_t value, int multiplier, int shift) {
  int64_t r = (value * int64_t(multiplier) + (int64_t(1) << (shift - 1))) >> shift;
  return int(r);
}

// n / d for a divisor known only at run time, as the converter's magic pair for d
// (converter/kernels/int_division.h: divMagic, mirrored by magicDivide): one multiply-high
// and two shifts, which llvmpipe keeps in one vector instruction each where a division
// becomes a scalar division per lane. Exact for n < 2^31.
uint ovgf_udiv(uint n, uint multiplier, uint shift) {
  uint hi;
  uint lo;
  umulExtended(n << 1u, multiplier, hi, lo);
  return hi >> shift;
}
// ... with the pair at `offset` of the parameter buffer (multiplier, then shift).
#define ovgf_udiv_param(n, offset) ovgf_udiv((n), uint(ovgf_params[(offset)]), uint(ovgf_params[(offset) + 1]))

// reciprocal_scale(count) as a (multiplier, shift) pair.
ivec2 reciprocal_scale(uint v) {
  int k = v > 1u ? findMSB(v - 1u) + 1 : 0;  // 32 - clz(v - 1)
  int64_t m = ((int64_t(1) << 30) + 1) << k;
  return ivec2(int(m / int64_t(v)), 30 + k);
}

#endif  // OVGF_INTMATH_GLSL
