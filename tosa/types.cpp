// SPDX-License-Identifier: Apache-2.0
#include "tosa/types.h"

#include <array>

namespace openvgf::tosa {

namespace {

constexpr std::array<std::string_view, kMaxDType + 1> kDTypeNames = {
    "UNKNOWN", "BOOL", "INT4", "INT8", "INT16", "INT32", "INT48",
    "FP32",    "FP16", "BF16", "SHAPE", "FP8E4M3", "FP8E5M2"};

constexpr std::array<std::string_view, kMaxOp + 1> kOpNames = {
    "UNKNOWN", "ARGMAX", "AVG_POOL2D", "CONV2D", "CONV3D", "DEPTHWISE_CONV2D", "FFT2D", "MATMUL",
    "MAX_POOL2D", "RFFT2D", "TRANSPOSE_CONV2D", "CLAMP", "ERF", "SIGMOID", "TANH", "ADD",
    "ARITHMETIC_RIGHT_SHIFT", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "INTDIV", "LOGICAL_AND",
    "LOGICAL_LEFT_SHIFT", "LOGICAL_RIGHT_SHIFT", "LOGICAL_OR", "LOGICAL_XOR", "MAXIMUM", "MINIMUM",
    "MUL", "POW", "SUB", "TABLE", "ABS", "BITWISE_NOT", "CEIL", "CLZ", "COS", "EXP", "FLOOR", "LOG",
    "LOGICAL_NOT", "NEGATE", "RECIPROCAL", "RSQRT", "SIN", "SELECT", "EQUAL", "GREATER",
    "GREATER_EQUAL", "REDUCE_ALL", "REDUCE_ANY", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PRODUCT",
    "REDUCE_SUM", "CONCAT", "PAD", "RESHAPE", "REVERSE", "SLICE", "TILE", "TRANSPOSE", "GATHER",
    "SCATTER", "RESIZE", "CAST", "RESCALE", "CONST", "IDENTITY", "CUSTOM", "COND_IF", "WHILE_LOOP",
    "VARIABLE", "VARIABLE_WRITE", "VARIABLE_READ", "CONST_SHAPE"};

}  // namespace

std::string_view toString(DType type) {
  auto i = static_cast<std::uint32_t>(type);
  return i <= kMaxDType ? kDTypeNames[i] : std::string_view("INVALID_DTYPE");
}

std::string_view toString(Op op) {
  auto i = static_cast<std::uint32_t>(op);
  return i <= kMaxOp ? kOpNames[i] : std::string_view("INVALID_OP");
}

OpArity opArity(Op op) {
  switch (op) {
    case Op::AvgPool2d: return {3, 1, 2};
    case Op::Conv2d:
    case Op::Conv3d:
    case Op::DepthwiseConv2d:
    case Op::TransposeConv2d: return {5, 1, 2};
    case Op::Fft2d: return {2, 2};
    case Op::Rfft2d: return {1, 2};
    case Op::MatMul: return {4, 1, 2};
    case Op::Add:
    case Op::Sub:
    case Op::ArithmeticRightShift:
    case Op::BitwiseAnd:
    case Op::BitwiseOr:
    case Op::BitwiseXor:
    case Op::IntDiv:
    case Op::LogicalAnd:
    case Op::LogicalLeftShift:
    case Op::LogicalRightShift:
    case Op::LogicalOr:
    case Op::LogicalXor:
    case Op::Maximum:
    case Op::Minimum:
    case Op::Pow:
    case Op::Equal:
    case Op::Greater:
    case Op::GreaterEqual:
    case Op::Table:
    case Op::Gather:
    case Op::Reshape:
    case Op::Tile: return {2, 1};
    case Op::Mul: return {3, 1, 1};
    case Op::Negate: return {3, 1, 2};
    case Op::Pad: return {3, 1, 1};
    case Op::Select:
    case Op::Slice:
    case Op::Scatter: return {3, 1};
    case Op::Resize: return {4, 1};
    case Op::Rescale: return {5, 1};
    case Op::Const:
    case Op::ConstShape: return {0, 1};
    case Op::Concat: return {kVariadic, 1};
    case Op::Custom:
    case Op::CondIf:
    case Op::WhileLoop: return {kVariadic, kVariadic};
    case Op::Variable: return {0, 0};
    case Op::VariableWrite: return {1, 0};
    case Op::VariableRead: return {0, 1};
    default: return {1, 1};
  }
}

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
  for (std::uint32_t i = 0; i <= kMaxOp; ++i) {
    if (kOpNames[i] == name) return static_cast<Op>(i);
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
