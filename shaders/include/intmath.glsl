// SPDX-License-Identifier: Apache-2.0
// TOSA 1.0 integer helpers (specs/tosa.md §2.3): apply_scale_32 / apply_scale_16 with a
// 64-bit intermediate, saturating clips and the AVG_POOL2D reciprocal. Uses int64_t, so a
// module that calls them declares the Int64 capability (present on lavapipe and desktop GPUs).
#ifndef OVGF_INTMATH_GLSL
#define OVGF_INTMATH_GLSL

int ovgf_clip(int v, int lo, int hi) { return min(max(v, lo), hi); }

int apply_scale_32(int value, int multiplier, int shift, bool doubleRound) {
  int64_t round = int64_t(1) << (shift - 1);
  if (doubleRound && shift > 31) round += value >= 0 ? (int64_t(1) << 30) : -(int64_t(1) << 30);
  int64_t r = (int64_t(value) * int64_t(multiplier) + round) >> shift;
  return int(r);
}

int apply_scale_16(int64_t value, int multiplier, int shift) {
  int64_t r = (value * int64_t(multiplier) + (int64_t(1) << (shift - 1))) >> shift;
  return int(r);
}

// reciprocal_scale(count) as a (multiplier, shift) pair.
ivec2 reciprocal_scale(uint v) {
  int k = v > 1u ? findMSB(v - 1u) + 1 : 0;  // 32 - clz(v - 1)
  int64_t m = ((int64_t(1) << 30) + 1) << k;
  return ivec2(int(m / int64_t(v)), 30 + k);
}

#endif  // OVGF_INTMATH_GLSL
