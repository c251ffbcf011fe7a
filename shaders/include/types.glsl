// SPDX-License-Identifier: Apache-2.0
// Storage <-> compute conversions for every TOSA element type, as stored by openvgf
// (tightly packed buffers of the tensor's vk_format):
//   BOOL  uint8_t (0/1)          INT4/INT8 int8_t     INT16 int16_t     INT32 int
//   INT48 int64_t (sign-extended) FP32 float           FP16 float16_t
//   BF16  uint16_t bit pattern    FP8E4M3/FP8E5M2 uint8_t bit pattern
// Floating-point values are computed in fp32 and integers in int (int64_t for INT48), so
// each accessor pair is ld_<t>(storage) -> compute and st_<t>(compute) -> storage. The
// converter names the pair per binding with defines such as IN0_LD=ld_i8, OUT_ST=st_bf16.
// Integer stores truncate (callers clip first where TOSA saturates).
#ifndef OVGF_TYPES_GLSL
#define OVGF_TYPES_GLSL

// 8/16-bit values may only be converted, not passed to functions (storage-only types), so
// their accessors are macros around 32-bit helper functions.
float ld_f32(float v) { return v; }
float st_f32(float v) { return v; }
#define ld_f16(v) float(v)
#define st_f16(v) float16_t(v)
// fp16 arithmetic (FP16_MATH): loads and stores keep float16_t.
#define ld_f16_math(v) float16_t(v)
#define st_f16_math(v) float16_t(v)

// BF16: upper half of an fp32; stores round to nearest even and keep NaNs quiet.
float ovgf_bf16_to_f32(uint b) { return uintBitsToFloat(b << 16); }
uint ovgf_f32_to_bf16(float v) {
  uint u = floatBitsToUint(v);
  if (isnan(v)) return (u >> 16) | 0x40u;
  u += 0x7FFFu + ((u >> 16) & 1u);
  return u >> 16;
}
// Two at once, x in the low half, with selects instead of the early return: the GEMM cores'
// --precision bf16 load path (include/gemm_coopmat_ext.glsl), where this form ran MATMUL 4096
// and ResNet-50 b32 11-15 % faster than two ovgf_f32_to_bf16 calls on an H100.
uint ovgf_f32x2_to_bf16x2(vec2 v) {
  const uvec2 u = floatBitsToUint(v);
  const uvec2 r = mix((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16, (u >> 16) | 0x40u, isnan(v));
  return r.x | (r.y << 16);
}
#define ld_bf16(v) ovgf_bf16_to_f32(uint(v))
#define st_bf16(v) uint16_t(ovgf_f32_to_bf16(v))

// OCP FP8 E4M3 (bias 7, no infinities, S.1111.111 = NaN) and E5M2 (bias 15, IEEE-like).
float ovgf_fp8e4m3_to_f32(uint v) {
  float s = (v & 0x80u) != 0u ? -1.0 : 1.0;
  uint e = (v >> 3) & 0xFu;
  uint m = v & 0x7u;
  if (e == 15u && m == 7u) return uintBitsToFloat(0x7FC00000u);
  if (e == 0u) return s * float(m) * exp2(-9.0);
  return s * (1.0 + float(m) / 8.0) * exp2(float(int(e) - 7));
}
float ovgf_fp8e5m2_to_f32(uint v) {
  float s = (v & 0x80u) != 0u ? -1.0 : 1.0;
  uint e = (v >> 2) & 0x1Fu;
  uint m = v & 0x3u;
  if (e == 31u) return m == 0u ? s * uintBitsToFloat(0x7F800000u) : uintBitsToFloat(0x7FC00000u);
  if (e == 0u) return s * float(m) * exp2(-16.0);
  return s * (1.0 + float(m) / 4.0) * exp2(float(int(e) - 15));
}
// Round-to-nearest-even encoding with `mbits` mantissa bits and exponent bias `bias`; a
// result past the largest exponent field becomes `overflowCode` (non-saturating, OCP).
uint ovgf_fp8_encode(float v, int mbits, int bias, uint maxExpField, uint overflowCode) {
  uint sign = floatBitsToUint(v) >> 31 << 7;
  float a = abs(v);
  float minNormal = exp2(float(1 - bias));
  uint bits;
  if (a < minNormal) {
    bits = uint(roundEven(a * exp2(float(bias - 1 + mbits))));
  } else {
    int e;
    float f = frexp(a, e);  // a = f * 2^e, f in [0.5, 1)
    e -= 1;
    float q = roundEven((f * 2.0 - 1.0) * float(1 << mbits));
    if (q >= float(1 << mbits)) { q = 0.0; e += 1; }
    int field = e + bias;
    if (field > int(maxExpField)) return sign | overflowCode;
    bits = (uint(field) << mbits) | uint(q);
  }
  return sign | bits;
}
// E4M3: rounding past 448 lands on S.1111.111, which is NaN, as OCP requires.
uint ovgf_f32_to_fp8e4m3(float v) {
  if (isnan(v) || isinf(v)) return 0x7Fu | (floatBitsToUint(v) >> 31 << 7);
  return ovgf_fp8_encode(v, 3, 7, 15u, 0x7Fu);
}
uint ovgf_f32_to_fp8e5m2(float v) {
  if (isnan(v)) return 0x7Fu;
  return ovgf_fp8_encode(v, 2, 15, 30u, 0x7Cu);
}
#define ld_fp8e4m3(v) ovgf_fp8e4m3_to_f32(uint(v))
#define st_fp8e4m3(v) uint8_t(ovgf_f32_to_fp8e4m3(v))
#define ld_fp8e5m2(v) ovgf_fp8e5m2_to_f32(uint(v))
#define st_fp8e5m2(v) uint8_t(ovgf_f32_to_fp8e5m2(v))

// Integers.
#define ld_bool(v) (uint(v) != 0u)
#define st_bool(v) uint8_t((v) ? 1u : 0u)
#define st_bool_from_int(v) uint8_t((v) != 0 ? 1u : 0u)
#define ld_i8(v) int(v)
#define st_i8(v) int8_t(v)
#define ld_i16(v) int(v)
#define st_i16(v) int16_t(v)
int ld_i32(int v) { return v; }
int st_i32(int v) { return v; }
int64_t ld_i48(int64_t v) { return v; }
int64_t st_i48(int64_t v) { return v; }

#endif  // OVGF_TYPES_GLSL
