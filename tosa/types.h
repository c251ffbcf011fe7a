// SPDX-License-Identifier: Apache-2.0
// TOSA 1.0 enumerations with their serialized (final 1.0) numbering, and facts about element
// types that every backend needs. Numbering: specs/tosa.md §1.3.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace openvgf::tosa {

enum class DType : std::uint32_t {
  Unknown = 0,
  Bool = 1,
  Int4 = 2,
  Int8 = 3,
  Int16 = 4,
  Int32 = 5,
  Int48 = 6,
  Fp32 = 7,
  Fp16 = 8,
  Bf16 = 9,
  Shape = 10,
  Fp8E4M3 = 11,
  Fp8E5M2 = 12,
};
inline constexpr std::uint32_t kMaxDType = 12;

/// TOSA 1.0 operators, numbered as serialized; the table is tosa/ops.def.
enum class Op : std::uint32_t {
#define OVGF_OP(Name, Number, ...) Name = Number,
#include "tosa/ops.def"
#undef OVGF_OP
};
/// The highest operator number (ops.def numbers the operators 0, 1, 2, ... without gaps).
inline constexpr std::uint32_t kMaxOp = 0
#define OVGF_OP(...) +1
#include "tosa/ops.def"
#undef OVGF_OP
    - 1;

enum class ResizeMode : std::uint32_t { Unknown = 0, Nearest = 1, Bilinear = 2 };
enum class NanMode : std::uint32_t { Unknown = 0, Propagate = 1, Ignore = 2 };
enum class RoundingMode : std::uint32_t { Unknown = 0, SingleRound = 1, InexactRound = 2, DoubleRound = 3 };

/// Spec spelling, e.g. "INT8", "FP8E4M3".
std::string_view toString(DType type);
/// Spec spelling, e.g. "CONV2D", "DEPTHWISE_CONV2D".
std::string_view toString(Op op);
std::string_view toString(ResizeMode mode);
std::string_view toString(NanMode mode);
std::string_view toString(RoundingMode mode);

/// Operand counts of an operator in serialized order (specs/tosa.md §2.2), from tosa/ops.def.
/// kVariadic marks a count the graph decides (CONCAT's inputs, CUSTOM, control flow). The
/// verifier, shape inference and the reference interpreter all check against this one table.
inline constexpr int kVariadic = -1;
struct OpArity {
  int inputs = 1;
  int outputs = 1;
  /// Trailing scalar operands that default to 0 when absent (zero points, MUL's shift,
  /// PAD's pad value): serialized graphs carry them, the reference interpreter's API lets
  /// hand-built graphs leave them out.
  int defaultedInputs = 0;
};
OpArity opArity(Op op);

std::optional<DType> dtypeFromString(std::string_view name);
std::optional<Op> opFromString(std::string_view name);

inline constexpr bool isValid(DType t) { return static_cast<std::uint32_t>(t) <= kMaxDType; }
inline constexpr bool isValid(Op op) { return static_cast<std::uint32_t>(op) <= kMaxOp; }

inline constexpr bool isFloat(DType t) {
  return t == DType::Fp32 || t == DType::Fp16 || t == DType::Bf16 || t == DType::Fp8E4M3 ||
         t == DType::Fp8E5M2;
}
inline constexpr bool isInteger(DType t) {
  return t == DType::Int4 || t == DType::Int8 || t == DType::Int16 || t == DType::Int32 ||
         t == DType::Int48;
}

/// Bits of the TOSA value range (INT4 = 4, INT48 = 48, BOOL = 1, SHAPE = 64).
int valueBits(DType t);

/// Bytes one element occupies in a host (in-memory) tensor. Host storage is one C++ scalar per
/// element: BOOL uint8 (0/1), INT4 int8, INT8 int8, INT16 int16, INT32 int32, INT48 int64
/// (sign-extended), FP32 float, FP16/BF16 uint16 bit patterns, FP8 uint8 bit patterns,
/// SHAPE int64. This differs from the packed .tosa encoding only for INT4 and INT48.
std::size_t hostElementBytes(DType t);

}  // namespace openvgf::tosa
