// SPDX-License-Identifier: Apache-2.0
// TOSA element types on the GPU (see types.h).
#include "converter/kernels/types.h"

#include <cstring>

#include "tosa/float_types.h"
#include "vgf/file.h"

namespace openvgf::converter {

using tosa::DType;

std::optional<TypeInfo> typeInfo(DType type) {
  switch (type) {
    case DType::Bool: return TypeInfo{"uint8_t", "ld_bool", "st_bool", "bool", "uint8_t"};
    case DType::Int4:
    case DType::Int8: return TypeInfo{"int8_t", "ld_i8", "st_i8", "int", "uint8_t"};
    case DType::Int16: return TypeInfo{"int16_t", "ld_i16", "st_i16", "int", "uint16_t"};
    case DType::Int32: return TypeInfo{"int", "ld_i32", "st_i32", "int", "uint"};
    case DType::Int48: return TypeInfo{"int64_t", "ld_i48", "st_i48", "int64_t", "uint64_t"};
    case DType::Fp32: return TypeInfo{"float", "ld_f32", "st_f32", "float", "uint"};
    case DType::Fp16: return TypeInfo{"float16_t", "ld_f16", "st_f16", "float", "uint16_t"};
    case DType::Bf16: return TypeInfo{"uint16_t", "ld_bf16", "st_bf16", "float", "uint16_t"};
    case DType::Fp8E4M3: return TypeInfo{"uint8_t", "ld_fp8e4m3", "st_fp8e4m3", "float", "uint8_t"};
    case DType::Fp8E5M2: return TypeInfo{"uint8_t", "ld_fp8e5m2", "st_fp8e5m2", "float", "uint8_t"};
    default: return std::nullopt;
  }
}

std::size_t storageBytes(DType type) {
  switch (type) {
    case DType::Bool:
    case DType::Int4:
    case DType::Int8:
    case DType::Fp8E4M3:
    case DType::Fp8E5M2: return 1;
    case DType::Int16:
    case DType::Fp16:
    case DType::Bf16: return 2;
    case DType::Int32:
    case DType::Fp32: return 4;
    case DType::Int48:
    case DType::Shape: return 8;
    default: return 0;
  }
}

std::uint32_t vkFormatOf(DType type) {
  using F = vgf::VkFormatValue;
  F f = F::Undefined;
  switch (type) {
    case DType::Bool: f = F::R8BoolArm; break;
    case DType::Int4:
    case DType::Int8: f = F::R8Sint; break;
    case DType::Int16: f = F::R16Sint; break;
    case DType::Int32: f = F::R32Sint; break;
    case DType::Int48:
    case DType::Shape: f = F::R64Sint; break;
    case DType::Fp32: f = F::R32Sfloat; break;
    case DType::Fp16: f = F::R16Sfloat; break;
    case DType::Bf16: f = F::R16SfloatBfloat16Arm; break;
    case DType::Fp8E4M3: f = F::R8SfloatFloat8E4M3Arm; break;
    case DType::Fp8E5M2: f = F::R8SfloatFloat8E5M2Arm; break;
    default: break;
  }
  return static_cast<std::uint32_t>(f);
}

void setBufferType(ShaderDefines& defines, const std::string& prefix, DType type) {
  auto info = typeInfo(type);
  if (!info) return;
  defines.setCode(prefix + "_STYPE", info->storage)
      .setCode(prefix + "_LD", info->load)
      .setCode(prefix + "_ST", info->store)
      .setCode(prefix + "_CT", info->compute);
}

std::pair<std::int64_t, std::int64_t> intRange(DType type) {
  switch (type) {
    case DType::Bool: return {0, 1};
    case DType::Int4: return {-8, 7};
    case DType::Int8: return {-128, 127};
    case DType::Int16: return {-32768, 32767};
    case DType::Int32: return {INT32_MIN, INT32_MAX};
    case DType::Int48: return {-(std::int64_t{1} << 47), (std::int64_t{1} << 47) - 1};
    default: return {INT64_MIN, INT64_MAX};
  }
}

std::int64_t constInt(const tosa::HostTensor& t, std::size_t i) {
  const std::uint8_t* p = t.bytes.data() + i * tosa::hostElementBytes(t.dtype);
  switch (t.dtype) {
    case DType::Bool: return *p != 0;
    case DType::Int4:
    case DType::Int8: return static_cast<std::int8_t>(*p);
    case DType::Int16: { std::int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::Int32: { std::int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::Int48:
    case DType::Shape: { std::int64_t v; std::memcpy(&v, p, 8); return v; }
    default: return static_cast<std::int64_t>(constFloat(t, i));
  }
}

float decodeFloat(DType type, const std::uint8_t* p) {
  if (type == DType::Fp32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  const tosa::FloatFormat* format = tosa::floatFormatOf(type);
  if (format == nullptr) return 0.0f;
  std::uint32_t bits = p[0];
  if (tosa::hostElementBytes(type) == 2) {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    bits = h;
  }
  // Every narrow value is exact in float, so this cast does not round.
  return static_cast<float>(tosa::decodeFloat(bits, *format));
}

double constFloat(const tosa::HostTensor& t, std::size_t i) {
  if (tosa::isFloat(t.dtype)) return decodeFloat(t.dtype, t.bytes.data() + i * tosa::hostElementBytes(t.dtype));
  return static_cast<double>(constInt(t, i));
}

}  // namespace openvgf::converter
