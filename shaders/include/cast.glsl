// SPDX-License-Identifier: Apache-2.0
// CAST between TOSA types in compute types (specs/tosa.md §2.3 CAST), and the rounding that
// every floating-point operator applies to its result so that a fused chain sees the same
// values as separate kernels would store: the result is rounded to the output type and
// widened back to fp32. Integer narrowing is ovgf_wrap8 / ovgf_wrap16 (ew_ops.glsl).
// Included by ew_ops.glsl; the one-operator forms are macros (see there).
#ifndef OVGF_CAST_GLSL
#define OVGF_CAST_GLSL

// An fp32 value rounded to the output type (nearest even) and widened back.
#define ovgf_round_fp16(x) float(float16_t(x))
#define ovgf_round_bf16(x) ld_bf16(st_bf16(x))
#define ovgf_round_fp8e4m3(x) ld_fp8e4m3(st_fp8e4m3(x))
#define ovgf_round_fp8e5m2(x) ld_fp8e5m2(st_fp8e5m2(x))

// BOOL -> integer, integer -> BOOL, integer -> floating point (then rounded as above).
#define ovgf_cast_from_bool(b) ((b) ? 1 : 0)
#define ovgf_cast_to_bool(x) ((x) != 0)
#define ovgf_cast_to_float(x) float(x)

// Floating point -> integer: round half to even, saturate to [lo, hi].
int ovgf_f2i(float x, int lo, int hi) {
  float r = roundEven(x);
  if (r >= float(hi)) return hi;
  if (r <= float(lo)) return lo;
  return int(r);
}

#endif  // OVGF_CAST_GLSL
