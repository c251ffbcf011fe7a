// SPDX-License-Identifier: Apache-2.0
// Small helpers for reference-interpreter tests: host tensors from value lists and
// single-operator graphs built directly as tosa::Graph structs.
#pragma once

#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tosa/float_types.h"
#include "tosa/graph.h"
#include "tosa/reference/reference.h"

namespace openvgf::tosa::reftest {

/// A host tensor of an integer/bool type from int64 values (stored in host layout).
inline HostTensor ints(DType type, Shape shape, std::vector<std::int64_t> values) {
  HostTensor t(type, std::move(shape));
  for (std::size_t i = 0; i < values.size() && i < static_cast<std::size_t>(t.size()); ++i) {
    const std::int64_t v = values[i];
    switch (type) {
      case DType::Bool:
      case DType::Int4:
      case DType::Int8: t.bytes[i] = static_cast<std::uint8_t>(v); break;
      case DType::Int16: {
        auto x = static_cast<std::int16_t>(v);
        std::memcpy(t.bytes.data() + 2 * i, &x, 2);
        break;
      }
      case DType::Int32: {
        auto x = static_cast<std::int32_t>(v);
        std::memcpy(t.bytes.data() + 4 * i, &x, 4);
        break;
      }
      default: std::memcpy(t.bytes.data() + 8 * i, &v, 8); break;
    }
  }
  return t;
}

/// A host tensor of a float type from double values (rounded to the type).
inline HostTensor floats(DType type, Shape shape, std::vector<double> values) {
  HostTensor t(type, std::move(shape));
  for (std::size_t i = 0; i < values.size() && i < static_cast<std::size_t>(t.size()); ++i) {
    const double v = values[i];
    switch (type) {
      case DType::Fp32: {
        auto x = static_cast<float>(v);
        std::memcpy(t.bytes.data() + 4 * i, &x, 4);
        break;
      }
      case DType::Fp16: {
        auto x = doubleToFp16(v);
        std::memcpy(t.bytes.data() + 2 * i, &x, 2);
        break;
      }
      case DType::Bf16: {
        auto x = doubleToBf16(v);
        std::memcpy(t.bytes.data() + 2 * i, &x, 2);
        break;
      }
      case DType::Fp8E4M3: t.bytes[i] = doubleToFp8E4M3(v); break;
      case DType::Fp8E5M2: t.bytes[i] = doubleToFp8E5M2(v); break;
      default: break;
    }
  }
  return t;
}

inline HostTensor shapeValue(std::vector<std::int64_t> values) {
  const auto n = static_cast<std::int64_t>(values.size());
  return ints(DType::Shape, Shape{n}, std::move(values));
}

/// Reads any host tensor back as int64 (integers) or double (floats).
inline std::vector<std::int64_t> intValues(const HostTensor& t) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < t.size(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    switch (t.dtype) {
      case DType::Bool: out.push_back(t.bytes[k]); break;
      case DType::Int4:
      case DType::Int8: out.push_back(static_cast<std::int8_t>(t.bytes[k])); break;
      case DType::Int16: {
        std::int16_t x;
        std::memcpy(&x, t.bytes.data() + 2 * k, 2);
        out.push_back(x);
        break;
      }
      case DType::Int32: {
        std::int32_t x;
        std::memcpy(&x, t.bytes.data() + 4 * k, 4);
        out.push_back(x);
        break;
      }
      default: {
        std::int64_t x;
        std::memcpy(&x, t.bytes.data() + 8 * k, 8);
        out.push_back(x);
        break;
      }
    }
  }
  return out;
}

inline std::vector<double> floatValues(const HostTensor& t) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < t.size(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    switch (t.dtype) {
      case DType::Fp32: {
        float x;
        std::memcpy(&x, t.bytes.data() + 4 * k, 4);
        out.push_back(x);
        break;
      }
      case DType::Fp16: {
        std::uint16_t x;
        std::memcpy(&x, t.bytes.data() + 2 * k, 2);
        out.push_back(fp16ToDouble(x));
        break;
      }
      case DType::Bf16: {
        std::uint16_t x;
        std::memcpy(&x, t.bytes.data() + 2 * k, 2);
        out.push_back(bf16ToDouble(x));
        break;
      }
      case DType::Fp8E4M3: out.push_back(fp8E4M3ToDouble(t.bytes[k])); break;
      case DType::Fp8E5M2: out.push_back(fp8E5M2ToDouble(t.bytes[k])); break;
      default: break;
    }
  }
  return out;
}

inline Tensor makeTensor(std::string name, DType type, Shape shape, std::optional<std::vector<std::uint8_t>> data = {},
                         bool variable = false) {
  Tensor t;
  t.name = std::move(name);
  t.dtype = type;
  t.shape = std::move(shape);
  t.data = std::move(data);
  t.variable = variable;
  return t;
}

inline Operator makeOp(Op op, std::vector<std::string> ins, std::vector<std::string> outs, Attributes attrs = {}) {
  Operator o;
  o.op = op;
  o.attrs = std::move(attrs);
  o.inputs = std::move(ins);
  o.outputs = std::move(outs);
  return o;
}

/// Builds a one-block graph. `input` operands become graph inputs, `constant` operands CONST
/// tensors (and CONST ops), then `op` adds an operator.
class GraphBuilder {
 public:
  GraphBuilder() {
    graph_.regions.push_back(Region{"main", {Block{}}});
    block().name = "main";
  }
  Block& block() { return graph_.regions[0].blocks[0]; }
  Graph& graph() { return graph_; }

  std::string input(const HostTensor& value) {
    std::string name = fresh("in");
    block().tensors.push_back(makeTensor(name, value.dtype, value.shape));
    block().inputs.push_back(name);
    inputs_.push_back(value);
    return name;
  }
  std::string constant(const HostTensor& value) {
    std::string name = fresh("const");
    block().tensors.push_back(makeTensor(name, value.dtype, value.shape, value.bytes));
    block().operators.push_back(makeOp(value.dtype == DType::Shape ? Op::ConstShape : Op::Const, {}, {name}));
    return name;
  }
  std::string tensor(DType type, Shape shape) {
    std::string name = fresh("t");
    block().tensors.push_back(makeTensor(name, type, std::move(shape)));
    return name;
  }
  void op(Op op, std::vector<std::string> ins, std::vector<std::string> outs, Attributes attrs = {}) {
    block().operators.push_back(makeOp(op, std::move(ins), std::move(outs), std::move(attrs)));
  }
  void output(const std::string& name) { block().outputs.push_back(name); }

  Result<reference::RunResult> run(const reference::RunOptions& options = {}, reference::VariableState* state = nullptr) {
    return reference::run(graph_, inputs_, options, state);
  }

 private:
  std::string fresh(const char* prefix) { return std::string(prefix) + std::to_string(counter_++); }
  Graph graph_;
  std::vector<HostTensor> inputs_;
  int counter_ = 0;
};

/// Runs one operator whose operands are all graph inputs (or constants where `constMask`
/// says so) and returns its single output tensor; fails the test on an error.
inline HostTensor runOp(Op op, const std::vector<HostTensor>& operands, DType outType, Shape outShape,
                        Attributes attrs = {}, std::vector<bool> constMask = {}, reference::RunOptions options = {}) {
  GraphBuilder b;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const bool isConst = i < constMask.size() ? constMask[i] : operands[i].dtype == DType::Shape;
    names.push_back(isConst ? b.constant(operands[i]) : b.input(operands[i]));
  }
  std::string out = b.tensor(outType, std::move(outShape));
  b.op(op, names, {out}, std::move(attrs));
  b.output(out);
  auto result = b.run(options);
  EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message());
  if (!result) return {};
  return result->outputs.at(0).value;
}

/// The same, expecting an error; returns its message.
inline std::string runOpError(Op op, const std::vector<HostTensor>& operands, DType outType, Shape outShape,
                              Attributes attrs = {}) {
  GraphBuilder b;
  std::vector<std::string> names;
  for (const HostTensor& t : operands) names.push_back(t.dtype == DType::Shape ? b.constant(t) : b.input(t));
  std::string out = b.tensor(outType, std::move(outShape));
  b.op(op, names, {out}, std::move(attrs));
  b.output(out);
  auto result = b.run();
  EXPECT_FALSE(result.has_value());
  return result ? std::string() : result.error().message();
}

}  // namespace openvgf::tosa::reftest
