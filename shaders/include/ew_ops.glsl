// SPDX-License-Identifier: Apache-2.0
// Elementwise TOSA operators (specs/tosa.md §2.3) in compute types (float for every
// floating-point type, int for INT8/16/32, int64_t for INT48, bool for BOOL). The converter
// writes a fused chain as one call per operator, `float t1 = ovgf_round_fp16(ovgf_add(t0,
// a1));`, choosing the form here that fits the operator and its types; functions a module
// does not call are dropped. One file per job: clamp.glsl (MAXIMUM / MINIMUM / CLAMP),
// cast.glsl (CAST, rounding to narrow float types), rescale.glsl, table.glsl.
//
// Operators that are one GLSL operator are macros, not functions: spirv-opt inlines every
// function anyway, but a call numbers the optimised module's ids differently from the
// expression itself, and the converter's output is checked byte for byte
// (tests/data/vgf_hashes.txt). For the same reason functions keep their order in the text.
#ifndef OVGF_EW_OPS_GLSL
#define OVGF_EW_OPS_GLSL

#define kOvgfNan uintBitsToFloat(0x7FC00000u)
#define kOvgfInf uintBitsToFloat(0x7F800000u)

#include "include/clamp.glsl"

// Arithmetic (MUL of INT32 with a shift: (a * b + 2^(shift-1)) >> shift with a 64-bit
// intermediate, which is apply_scale_32 without double rounding, done in 32-bit halves).
#define ovgf_add(a, b) ((a) + (b))
#define ovgf_sub(a, b) ((a) - (b))
#define ovgf_mul(a, b) ((a) * (b))
#define ovgf_mul_shift(a, b, shift) apply_scale_32((a), (b), (shift), false)
#define ovgf_intdiv(a, b) ((a) / (b))
#define ovgf_negate(a) (-(a))
// Integer NEGATE with zero points, saturated to the output range [lo, hi].
#define ovgf_negate_zp(a, inZp, outZp, lo, hi) ovgf_clip(-((a) - (inZp)) + (outZp), (lo), (hi))
// Bitwise and logical operators; LOGICAL_LEFT_SHIFT is then wrapped to the type's width.
#define ovgf_bitwise_and(a, b) ((a) & (b))
#define ovgf_bitwise_or(a, b) ((a) | (b))
#define ovgf_bitwise_xor(a, b) ((a) ^ (b))
#define ovgf_bitwise_not(a) (~(a))
#define ovgf_logical_and(a, b) ((a) && (b))
#define ovgf_logical_or(a, b) ((a) || (b))
#define ovgf_logical_xor(a, b) ((a) != (b))
#define ovgf_logical_not(a) (!(a))
#define ovgf_shl(a, b) ((a) << (b))
// Comparisons and SELECT.
#define ovgf_equal(a, b) ((a) == (b))
#define ovgf_greater(a, b) ((a) > (b))
#define ovgf_greater_equal(a, b) ((a) >= (b))
#define ovgf_select(c, a, b) ((c) ? (a) : (b))

// Transcendentals with TOSA's special values.
float ovgf_sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }
// tanh: 1 - 2 / (exp(2|x|) + 1) from |x| = 0.55 (1.8 ulp where fp32 arithmetic is correctly
// rounded); below, where that cancels, Lambert's continued fraction
// x / (1 + x^2 / (3 + x^2 / (5 + ...))) to depth 6 (1.4 ulp). Not the GLSL builtin: its precision
// is the driver's, and lavapipe's was 50 ulp off at x = -0.0256, beyond TOSA's bound
// (transcendental_sweep_test).
float ovgf_tanh(float x) {
  float ax = abs(x);
  if (ax > 9.0) return sign(x);
  if (ax < 0.55) {
    float u = x * x;
    float d = 13.0;
    for (int k = 5; k >= 0; --k) d = float(2 * k + 1) + u / d;
    return x / d;
  }
  return sign(x) * (1.0 - 2.0 / (exp(2.0 * ax) + 1.0));
}
// log: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s) with s = (m - 1) / (m + 1)
// (|s| <= 0.1716, m - 1 exact) by its series to s^13, and e ln2 in two parts (the first with 12
// trailing zero bits, so e times it is exact): at most 0.27 of TOSA's LOG bound where fp32
// arithmetic is correctly rounded. Not the GLSL builtin: Vulkan allows it 2^-21 absolute error
// near 1, and the H200's was 611 ulp off at x = 0.952 (transcendental_sweep_test's values).
float ovgf_log(float x) {
  if (isnan(x) || (isinf(x) && x > 0.0)) return x;
  if (x == 0.0) return -kOvgfInf;
  if (x < 0.0) return kOvgfNan;
  int e = 0;
  if (x < 1.17549435e-38) {  // subnormal (where the device keeps them): scale into the normals
    x *= 16777216.0;
    e = -24;
  }
  uint b = floatBitsToUint(x);
  e += int(b >> 23) - 127;
  float m = uintBitsToFloat((b & 0x7FFFFFu) | 0x3F800000u);
  if (m > 1.41421356) {
    m *= 0.5;
    e += 1;
  }
  float s = (m - 1.0) / (m + 1.0);
  float u = s * s;
  float p = 1.0 / 13.0;
  p = p * u + 1.0 / 11.0;
  p = p * u + 1.0 / 9.0;
  p = p * u + 1.0 / 7.0;
  p = p * u + 1.0 / 5.0;
  p = p * u + 1.0 / 3.0;
  float logM = 2.0 * s + (2.0 * s) * (u * p);
  return float(e) * 0.693145751953125 + (float(e) * 1.4286068202862268e-06 + logM);
}
// sin: below |x| = 2^-7, x (1 - x^2 / 6) (the next term is 2^-28 of it); above, the builtin,
// whose error TOSA's bound (2^-10.5 |x|) allows there. Near 0 that bound shrinks with x, and
// the H200's builtin was off by all of sin(6.5e-38) (transcendental_sweep_test's values).
float ovgf_sin(float x) { return abs(x) < 0.0078125 ? x * (1.0 - x * x * (1.0 / 6.0)) : sin(x); }
float ovgf_rsqrt(float x) {
  if (x == 0.0) return (floatBitsToUint(x) >> 31) != 0u ? -kOvgfInf : kOvgfInf;
  if (x < 0.0) return kOvgfNan;
  return inversesqrt(x);
}
float ovgf_reciprocal(float x) { return 1.0 / x; }
float ovgf_abs(float x) { return abs(x); }
// erf, within TOSA's 5-ulp bound for every float (2.5 ulp at most where fp32 arithmetic is
// correctly rounded; tests/converter/ops_test.cpp ErfWithinFiveUlpAcrossTheWholeCurve):
// - |x| < 1: the Maclaurin series x * sum_n c_n x^(2n), c_n = 2/sqrt(pi) * (-1)^n / (n! (2n+1)),
//   by Horner from precomputed coefficients (13 terms: the next is below 2^-37 at x = 1).
//   Summing the terms as they were formed (each a product of the last) lost up to 11 ulp
//   near |x| = 1.9, where terms above 1 cancel to 0.99.
// - 1 <= |x| < 4: 1 - erfc(x), erfc from its continued fraction (depth 50: 1.1 ulp at x = 1).
//   erfc <= 0.16 here, so its own relative error reaches erf at most a fifth as large.
// - |x| >= 4: +-1 (erf(4) = 1 - 1.5e-8 rounds to 1 in fp32).
float ovgf_erf(float x) {
  float ax = abs(x);
  if (isnan(x)) return x;
  if (ax >= 4.0) return sign(x);
  if (ax < 1.0) {
    float u = ax * ax;
    float p = 9.422759065e-11;  // c_12
    p = p * u - 1.229055530e-09;
    p = p * u + 1.480719282e-08;
    p = p * u - 1.636584469e-07;
    p = p * u + 1.646211437e-06;
    p = p * u - 1.492565036e-05;
    p = p * u + 1.205533298e-04;
    p = p * u - 8.548327023e-04;
    p = p * u + 5.223977625e-03;
    p = p * u - 2.686617065e-02;
    p = p * u + 1.128379167e-01;
    p = p * u - 3.761263890e-01;
    p = p * u + 1.128379167e+00;
    return sign(x) * (ax * p);
  }
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...)))) (fixed depth)
  float f = ax;
  for (int k = 50; k >= 1; --k) f = ax + (float(k) * 0.5) / f;
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

#include "include/cast.glsl"
#include "include/rescale.glsl"
#include "include/table.glsl"

#endif  // OVGF_EW_OPS_GLSL
