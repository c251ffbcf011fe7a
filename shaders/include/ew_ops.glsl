// SPDX-License-Identifier: Apache-2.0
// Scalar helpers for elementwise TOSA operators (specs/tosa.md §2.3) in compute types
// (float for every floating-point type, int for INT8/16/32, bool for BOOL). The converter
// writes fused expressions that call these; functions a module does not call are dropped.
#ifndef OVGF_EW_OPS_GLSL
#define OVGF_EW_OPS_GLSL

#define kOvgfNan uintBitsToFloat(0x7FC00000u)
#define kOvgfInf uintBitsToFloat(0x7F800000u)

// MAXIMUM / MINIMUM / CLAMP with nan_mode PROPAGATE (p) or IGNORE (i).
float ovgf_max_p(float a, float b) { return isnan(a) || isnan(b) ? kOvgfNan : max(a, b); }
float ovgf_min_p(float a, float b) { return isnan(a) || isnan(b) ? kOvgfNan : min(a, b); }
float ovgf_max_i(float a, float b) { return isnan(a) ? b : isnan(b) ? a : max(a, b); }
float ovgf_min_i(float a, float b) { return isnan(a) ? b : isnan(b) ? a : min(a, b); }
float ovgf_clamp_p(float x, float lo, float hi) { return isnan(x) ? x : min(max(x, lo), hi); }
float ovgf_clamp_i(float x, float lo, float hi) { return isnan(x) ? lo : min(max(x, lo), hi); }
#if defined(FP16_MATH) && FP16_MATH
// The same in fp16 arithmetic (elementwise.comp with FP16_MATH=1).
#define kOvgfNanH float16_t(kOvgfNan)
float16_t ovgf_max_p(float16_t a, float16_t b) { return isnan(a) || isnan(b) ? kOvgfNanH : max(a, b); }
float16_t ovgf_min_p(float16_t a, float16_t b) { return isnan(a) || isnan(b) ? kOvgfNanH : min(a, b); }
float16_t ovgf_max_i(float16_t a, float16_t b) { return isnan(a) ? b : isnan(b) ? a : max(a, b); }
float16_t ovgf_min_i(float16_t a, float16_t b) { return isnan(a) ? b : isnan(b) ? a : min(a, b); }
float16_t ovgf_clamp_p(float16_t x, float16_t lo, float16_t hi) { return isnan(x) ? x : min(max(x, lo), hi); }
float16_t ovgf_clamp_i(float16_t x, float16_t lo, float16_t hi) { return isnan(x) ? lo : min(max(x, lo), hi); }
#endif

// Transcendentals with TOSA's special values.
float ovgf_sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }
float ovgf_tanh(float x) {
  if (abs(x) > 9.0) return sign(x);
  // tanh(x) = 1 - 2 / (exp(2x) + 1) loses precision near 0; use the builtin there.
  return abs(x) < 0.5 ? tanh(x) : sign(x) * (1.0 - 2.0 / (exp(2.0 * abs(x)) + 1.0));
}
float ovgf_log(float x) {
  if (x == 0.0) return -kOvgfInf;
  if (x < 0.0) return kOvgfNan;
  return log(x);
}
float ovgf_rsqrt(float x) {
  if (x == 0.0) return (floatBitsToUint(x) >> 31) != 0u ? -kOvgfInf : kOvgfInf;
  if (x < 0.0) return kOvgfNan;
  return inversesqrt(x);
}
float ovgf_reciprocal(float x) { return 1.0 / x; }
float ovgf_abs(float x) { return abs(x); }
// erf: Taylor series for |x| < 2.5 (alternating, evaluated in fp32 with compensation by
// grouping), continued-fraction erfc beyond; both well under TOSA's ERF bound.
float ovgf_erf(float x) {
  float ax = abs(x);
  if (isnan(x)) return x;
  if (ax >= 4.0) return sign(x);
  if (ax < 2.0) {
    float x2 = ax * ax;
    float term = ax;
    float sum = ax;
    for (int n = 1; n < 40; ++n) {
      term *= -x2 / float(n);
      float t = term / float(2 * n + 1);
      sum += t;
      if (abs(t) < 1e-9 * abs(sum)) break;
    }
    return sign(x) * sum * 1.1283791670955126;
  }
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...)))) (Lentz-free, fixed depth)
  float f = ax;
  for (int k = 40; k >= 1; --k) f = ax + (float(k) * 0.5) / f;
  float erfc = exp(-ax * ax) / f * 0.5641895835477563;
  return sign(x) * (1.0 - erfc);
}

// Integer helpers (values already in int; results wrapped by the store or ovgf_wrapN).
int ovgf_wrap8(int v) { return bitfieldExtract(v, 0, 8); }
int ovgf_wrap16(int v) { return bitfieldExtract(v, 0, 16); }
int ovgf_clz(int v) { return v == 0 ? 32 : 31 - findMSB(uint(v)); }
int ovgf_ashr(int a, int b, bool roundFlag) {
  int r = a >> b;
  if (roundFlag && b > 0 && ((a >> (b - 1)) & 1) != 0) r += 1;
  return r;
}
int ovgf_lshr(int a, int b, int bits) {
  uint mask = bits == 32 ? 0xFFFFFFFFu : ((1u << bits) - 1u);
  return int((uint(a) & mask) >> uint(b));
}
// fp -> int: round half to even, saturate (CAST).
int ovgf_f2i(float x, int lo, int hi) {
  float r = roundEven(x);
  if (r >= float(hi)) return hi;
  if (r <= float(lo)) return lo;
  return int(r);
}

#endif  // OVGF_EW_OPS_GLSL
