// SPDX-License-Identifier: Apache-2.0
#include "tosa/types.h"

#include <array>

#include "tosa/op_table.h"

namespace openvgf::tosa {

namespace {

constexpr std::array<std::string_view, kMaxDType + 1> kDTypeNames = {
    "UNKNOWN", "BOOL", "INT4", "INT8", "INT16", "INT32", "INT48",
    "FP32",    "FP16", "BF16", "SHAPE", "FP8E4M3", "FP8E5M2"};

}  // namespace

std::string_view toString(DType type) {
  auto i = static_cast<std::uint32_t>(type);
  return i <= kMaxDType ? kDTypeNames[i] : std::string_view("INVALID_DTYPE");
}

std::string_view toString(Op op) {
  return isValid(op) ? opInfo(op).name : std::string_view("INVALID_OP");
}

OpArity opArity(Op op) { return opInfo(op).arity; }

std::string_view toString(ResizeMode mode) {
  switch (mode) {
    case ResizeMode::Unknown: return "UNKNOWN";
    case ResizeMode::Nearest: return "NEAREST";
    case ResizeMode::Bilinear: return "BILINEAR";
  }
  return "INVALID_RESIZE_MODE";
}

std::string_view toString(NanMode mode) {
  switch (mode) {
    case NanMode::Unknown: return "UNKNOWN";
    case NanMode::Propagate: return "PROPAGATE";
    case NanMode::Ignore: return "IGNORE";
  }
  return "INVALID_NAN_MODE";
}

std::string_view toString(RoundingMode mode) {
  switch (mode) {
    case RoundingMode::Unknown: return "UNKNOWN";
    case RoundingMode::SingleRound: return "SINGLE_ROUND";
    case RoundingMode::InexactRound: return "INEXACT_ROUND";
    case RoundingMode::DoubleRound: return "DOUBLE_ROUND";
  }
  return "INVALID_ROUNDING_MODE";
}

std::optional<DType> dtypeFromString(std::string_view name) {
  for (std::uint32_t i = 0; i <= kMaxDType; ++i) {
    if (kDTypeNames[i] == name) return static_cast<DType>(i);
  }
  return std::nullopt;
}

std::optional<Op> opFromString(std::string_view name) {
  for (const OpInfo& info : opTable()) {
    if (info.name == name) return info.op;
  }
  return std::nullopt;
}

int valueBits(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::Int4: return 4;
    case DType::Int8: return 8;
    case DType::Int16: return 16;
    case DType::Int32: return 32;
    case DType::Int48: return 48;
    case DType::Fp32: return 32;
    case DType::Fp16: return 16;
    case DType::Bf16: return 16;
    case DType::Shape: return 64;
    case DType::Fp8E4M3: return 8;
    case DType::Fp8E5M2: return 8;
    case DType::Unknown: return 0;
  }
  return 0;
}

std::size_t hostElementBytes(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::Int4: return 1;
    case DType::Int8: return 1;
    case DType::Int16: return 2;
    case DType::Int32: return 4;
    case DType::Int48: return 8;
    case DType::Fp32: return 4;
    case DType::Fp16: return 2;
    case DType::Bf16: return 2;
    case DType::Shape: return 8;
    case DType::Fp8E4M3: return 1;
    case DType::Fp8E5M2: return 1;
    case DType::Unknown: return 0;
  }
  return 0;
}

}  // namespace openvgf::tosa
