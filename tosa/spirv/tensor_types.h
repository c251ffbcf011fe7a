// SPDX-License-Identifier: Apache-2.0
// The TOSA view of SPIR-V tensor types, shared by the graph decoder and the signature reader:
// element types, declared (possibly unshaped or unranked) tensor types and their text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/error.h"
#include "tosa/spirv/module.h"
#include "tosa/types.h"
#include "tosa/host_tensor.h"

namespace openvgf::tosa::spirv {

/// The TOSA element type of a SPIR-V scalar type; Unsupported for types TOSA has none of.
Result<DType> elementType(const Module& module, std::uint32_t typeId);

/// An OpTypeTensorARM as the module declares it.
struct DeclaredTensor {
  DType dtype = DType::Unknown;
  std::optional<std::uint32_t> rank;  // nullopt: unranked
  std::optional<Shape> shape;         // nullopt: unshaped
};

Result<DeclaredTensor> declaredTensor(const Module& module, std::uint32_t typeId);

/// "FP32[1,20,20,3]", "FP32 of rank 4", "FP32 of any rank".
std::string typeText(const DeclaredTensor& t);

/// Does a tensor of `dtype` and `shape` satisfy what the module declares?
bool conforms(const DeclaredTensor& declared, DType dtype, const Shape& shape);

}  // namespace openvgf::tosa::spirv
