// SPDX-License-Identifier: Apache-2.0
// MAXIMUM, MINIMUM and CLAMP of floating-point values with TOSA's nan_mode (specs/tosa.md
// §2.3): PROPAGATE (_p) gives NaN when an operand is NaN, IGNORE (_i) the other operand (for
// CLAMP: min_val). fp32 always; fp16 too in fp16-arithmetic chains (FP16_MATH=1). Integer
// MAXIMUM / MINIMUM are GLSL's max / min, integer CLAMP is ovgf_clip (intmath.glsl).
// Included by ew_ops.glsl, which defines kOvgfNan.
#ifndef OVGF_CLAMP_GLSL
#define OVGF_CLAMP_GLSL

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

#endif  // OVGF_CLAMP_GLSL
