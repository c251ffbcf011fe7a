// SPDX-License-Identifier: Apache-2.0
// SPIR-V tensor types seen as TOSA types (see tensor_types.h). TOSA.001000.1 "Type mapping".
#include "tosa/spirv/tensor_types.h"

#include <fmt/format.h>

#include "tosa/spirv/grammar.h"

namespace openvgf::tosa::spirv {

Result<DType> elementType(const Module& module, std::uint32_t typeId) {
  const TypeInfo* t = module.type(typeId);
  if (t == nullptr) return invalidInput("type <id> {}: expected a scalar type", typeId);
  switch (t->kind) {
    case TypeInfo::Kind::Bool: return DType::Bool;
    case TypeInfo::Kind::Int:
      switch (t->width) {
        case 8: return DType::Int8;
        case 16: return DType::Int16;
        case 32: return DType::Int32;
        case 64: return DType::Int48;  // TOSA.001000.1 maps i48_t to OpTypeInt 64
        default: break;
      }
      break;
    case TypeInfo::Kind::Float:
      if (!t->encoding && t->width == 16) return DType::Fp16;
      if (!t->encoding && t->width == 32) return DType::Fp32;
      if (t->encoding == kFPEncodingBFloat16KHR && t->width == 16) return DType::Bf16;
      if (t->encoding == kFPEncodingFloat8E4M3EXT && t->width == 8) return DType::Fp8E4M3;
      if (t->encoding == kFPEncodingFloat8E5M2EXT && t->width == 8) return DType::Fp8E5M2;
      break;
    default: return invalidInput("type <id> {}: expected a scalar type", typeId);
  }
  return unsupported("type <id> {}: expected a TOSA element type (bool, i8, i16, i32, i64 as i48, fp16, bf16, fp32, "
                     "fp8), got a {}-bit {}{}",
                     typeId, t->width, t->kind == TypeInfo::Kind::Int ? "integer" : "float",
                     t->encoding ? fmt::format(" with FP encoding {}", *t->encoding) : "");
}

std::string typeText(const DeclaredTensor& t) {
  if (t.shape) return fmt::format("{}{}", toString(t.dtype), shapeToString(*t.shape));
  if (t.rank) return fmt::format("{} of rank {}", toString(t.dtype), *t.rank);
  return fmt::format("{} of any rank", toString(t.dtype));
}

Result<DeclaredTensor> declaredTensor(const Module& m, std::uint32_t typeId) {
  const TypeInfo* t = m.type(typeId);
  if (t == nullptr || t->kind != TypeInfo::Kind::Tensor) {
    return invalidInput("type <id> {}: expected an OpTypeTensorARM", typeId);
  }
  DeclaredTensor out;
  OPENVGF_ASSIGN_OR_RETURN(out.dtype, elementType(m, t->element));
  out.rank = t->rank;
  out.shape = t->shape;
  if (t->rank && *t->rank == 0) out.shape = Shape{};
  return out;
}

bool conforms(const DeclaredTensor& declared, DType dtype, const Shape& shape) {
  if (declared.dtype != dtype) return false;
  if (declared.rank && *declared.rank != shape.size()) return false;
  return !declared.shape || *declared.shape == shape;
}

}  // namespace openvgf::tosa::spirv
