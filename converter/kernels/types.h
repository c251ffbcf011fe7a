// SPDX-License-Identifier: Apache-2.0
// TOSA element types on the GPU: storage and compute types and the load/store functions of
// shaders/include/types.glsl, byte sizes, vk_formats, integer ranges, and the decoding of
// constant elements (narrow floats through tosa/float_types).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "converter/shader_defines.h"
#include "tosa/host_tensor.h"
#include "tosa/types.h"

namespace openvgf::converter {

struct TypeInfo {
  const char* storage;  // GLSL storage type
  const char* load;     // ld_<t>
  const char* store;    // st_<t>
  const char* compute;  // float / int / int64_t / bool
  const char* rawBits;  // unsigned type of the same size (data-layout copies)
};

/// GPU storage description of a TOSA type; nullopt for types that have no storage.
std::optional<TypeInfo> typeInfo(tosa::DType type);
/// Bytes of one element in GPU storage (INT4 -> 1, INT48 -> 8, BOOL -> 1).
std::size_t storageBytes(tosa::DType type);
/// vk_format of a tensor of this type (specs/vgf.md §1.6).
std::uint32_t vkFormatOf(tosa::DType type);

/// Sets <prefix>_STYPE, <prefix>_LD, <prefix>_ST, <prefix>_CT.
void setBufferType(ShaderDefines& defines, const std::string& prefix, tosa::DType type);

/// Integer range of a TOSA integer type ([0,1] for BOOL).
std::pair<std::int64_t, std::int64_t> intRange(tosa::DType type);

/// Element i of a constant host tensor as int64 (integers, bool) or double (floats).
std::int64_t constInt(const tosa::HostTensor& t, std::size_t i);
double constFloat(const tosa::HostTensor& t, std::size_t i);
/// One host-layout element of a floating-point type as float (exact: every narrow value is
/// a float); 0 for other types.
float decodeFloat(tosa::DType type, const std::uint8_t* bytes);

}  // namespace openvgf::converter
