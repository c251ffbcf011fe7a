// SPDX-License-Identifier: Apache-2.0
// TOSA 1.0 graph verifier. Graph-level checks run per block (names, definitions, cycles,
// outputs, control-flow signatures); operator checks combine the shared shape inference with
// the type tables of specs/tosa.md §2.2 and the ERROR_IF rules of §2.3.
#include "tosa/verifier.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "tosa/packing.h"
#include "tosa/shape_inference.h"

namespace openvgf::tosa {

namespace {

//===------------------------------------------------------------------===//
// Profile / extension type tables.
//===------------------------------------------------------------------===//

enum Ext : std::uint32_t {
  kInt16 = 1u << 0,
  kInt4 = 1u << 1,
  kBf16 = 1u << 2,
  kE4m3 = 1u << 3,
  kE5m2 = 1u << 4,
  kFft = 1u << 5,
  kVariable = 1u << 6,
  kControlFlow = 1u << 7,
  kDynamic = 1u << 8,
  kDoubleRound = 1u << 9,
  kInexactRound = 1u << 10,
};
constexpr std::array<std::string_view, 11> kExtNames = {
    "EXT-INT16",    "EXT-INT4",        "EXT-BF16",    "EXT-FP8E4M3",     "EXT-FP8E5M2",     "EXT-FFT",
    "EXT-VARIABLE", "EXT-CONTROLFLOW", "EXT-DYNAMIC", "EXT-DOUBLEROUND", "EXT-INEXACTROUND"};
constexpr std::uint8_t kInt = 1;
constexpr std::uint8_t kFp = 2;
constexpr std::uint8_t kBoth = 3;

/// One allowed type combination: the profiles that define it (any one suffices) and the
/// extensions it needs (all of them).
struct Alt {
  std::uint8_t profiles = kBoth;
  std::uint32_t ext = 0;
};

struct Row {
  std::vector<DType> key;
  Alt alt;
};

using D = DType;

std::vector<Row> fpUnaryRows() {
  return {{{D::Fp16}, {kFp, 0}}, {{D::Fp32}, {kFp, 0}}, {{D::Bf16}, {kFp, kBf16}}};
}

std::vector<Row> dataLayoutRows(bool concat) {
  return {
      {{D::Bool}, {kBoth, 0}},      {{D::Int8}, {kInt, 0}},       {{D::Int16}, {kInt, concat ? kInt16 : 0u}},
      {{D::Int32}, {kInt, 0}},      {{D::Fp16}, {kFp, 0}},        {{D::Fp32}, {kFp, 0}},
      {{D::Fp8E4M3}, {kFp, kE4m3}}, {{D::Fp8E5M2}, {kFp, kE5m2}}, {{D::Bf16}, {kFp, kBf16}}};
}

std::vector<Row> convRows() {
  return {
      {{D::Int8, D::Int8, D::Int32}, {kInt, 0}},         {{D::Int8, D::Int4, D::Int32}, {kInt, kInt4}},
      {{D::Int16, D::Int8, D::Int48}, {kInt, kInt16}},   {{D::Fp16, D::Fp16, D::Fp16}, {kFp, 0}},
      {{D::Fp16, D::Fp16, D::Fp32}, {kFp, 0}},           {{D::Fp32, D::Fp32, D::Fp32}, {kFp, 0}},
      {{D::Fp8E4M3, D::Fp8E4M3, D::Fp16}, {kFp, kE4m3}}, {{D::Fp8E5M2, D::Fp8E5M2, D::Fp16}, {kFp, kE5m2}},
      {{D::Bf16, D::Bf16, D::Fp32}, {kFp, kBf16}}};
}

const std::map<Op, std::vector<Row>>& typeTables() {
  static const std::map<Op, std::vector<Row>> tables = [] {
    std::map<Op, std::vector<Row>> t;
    std::vector<Row> argmaxLike = {{{D::Int8}, {kInt, 0}},       {{D::Fp16}, {kFp, 0}},
                                   {{D::Fp32}, {kFp, 0}},        {{D::Int16}, {kInt, kInt16}},
                                   {{D::Fp8E4M3}, {kFp, kE4m3}}, {{D::Fp8E5M2}, {kFp, kE5m2}},
                                   {{D::Bf16}, {kFp, kBf16}}};
    t[Op::ArgMax] = argmaxLike;
    t[Op::MaxPool2d] = argmaxLike;
    t[Op::AvgPool2d] = {{{D::Int8, D::Int32}, {kInt, 0}},       {{D::Fp16, D::Fp16}, {kFp, 0}},
                        {{D::Fp16, D::Fp32}, {kFp, 0}},         {{D::Fp32, D::Fp32}, {kFp, 0}},
                        {{D::Int16, D::Int32}, {kInt, kInt16}}, {{D::Fp8E4M3, D::Fp16}, {kFp, kE4m3}},
                        {{D::Fp8E5M2, D::Fp16}, {kFp, kE5m2}},  {{D::Bf16, D::Fp32}, {kFp, kBf16}}};
    for (Op op : {Op::Conv2d, Op::Conv3d, Op::DepthwiseConv2d, Op::TransposeConv2d}) t[op] = convRows();
    t[Op::Fft2d] = {{{D::Fp32}, {kFp, kFft}}};
    t[Op::Rfft2d] = {{{D::Fp32}, {kFp, kFft}}};
    t[Op::MatMul] = {
        {{D::Int8, D::Int8, D::Int32}, {kInt, 0}},         {{D::Int16, D::Int16, D::Int48}, {kInt, kInt16}},
        {{D::Fp16, D::Fp16, D::Fp16}, {kFp, 0}},           {{D::Fp16, D::Fp16, D::Fp32}, {kFp, 0}},
        {{D::Fp32, D::Fp32, D::Fp32}, {kFp, 0}},           {{D::Fp8E4M3, D::Fp8E4M3, D::Fp16}, {kFp, kE4m3}},
        {{D::Fp8E5M2, D::Fp8E5M2, D::Fp16}, {kFp, kE5m2}}, {{D::Bf16, D::Bf16, D::Fp32}, {kFp, kBf16}}};
    t[Op::Clamp] = {{{D::Int8}, {kInt, 0}},
                    {{D::Fp16}, {kFp, 0}},
                    {{D::Fp32}, {kFp, 0}},
                    {{D::Int16}, {kInt, kInt16}},
                    {{D::Bf16}, {kFp, kBf16}}};
    for (Op op : {Op::Erf, Op::Sigmoid, Op::Tanh, Op::Pow, Op::Ceil, Op::Cos, Op::Exp, Op::Floor, Op::Log,
                  Op::Reciprocal, Op::Rsqrt, Op::Sin, Op::ReduceProduct}) {
      t[op] = fpUnaryRows();
    }
    std::vector<Row> addLike = fpUnaryRows();
    addLike.push_back({{D::Int32}, {kBoth, 0}});
    t[Op::Add] = addLike;
    t[Op::Sub] = addLike;
    t[Op::Abs] = addLike;
    t[Op::Maximum] = addLike;
    t[Op::Minimum] = addLike;
    t[Op::ReduceSum] = addLike;
    for (Op op : {Op::Equal, Op::Greater, Op::GreaterEqual}) t[op] = addLike;
    std::vector<Row> ints = {{{D::Int8}, {kInt, 0}}, {{D::Int16}, {kInt, 0}}, {{D::Int32}, {kInt, 0}}};
    for (Op op : {Op::ArithmeticRightShift, Op::BitwiseAnd, Op::BitwiseOr, Op::BitwiseXor, Op::BitwiseNot})
      t[op] = ints;
    std::vector<Row> intsBoth = {{{D::Int8}, {kBoth, 0}}, {{D::Int16}, {kBoth, 0}}, {{D::Int32}, {kBoth, 0}}};
    t[Op::LogicalLeftShift] = intsBoth;
    t[Op::LogicalRightShift] = intsBoth;
    t[Op::IntDiv] = {{{D::Int32}, {kBoth, 0}}};
    t[Op::Clz] = {{{D::Int32}, {kInt, 0}}};
    for (Op op :
         {Op::LogicalAnd, Op::LogicalOr, Op::LogicalXor, Op::LogicalNot, Op::ReduceAll, Op::ReduceAny}) {
      t[op] = {{{D::Bool}, {kBoth, 0}}};
    }
    t[Op::Mul] = {{{D::Int8, D::Int32}, {kInt, 0}},   {{D::Int16, D::Int32}, {kInt, 0}},
                  {{D::Int32, D::Int32}, {kBoth, 0}}, {{D::Fp16, D::Fp16}, {kFp, 0}},
                  {{D::Fp32, D::Fp32}, {kFp, 0}},     {{D::Bf16, D::Bf16}, {kFp, kBf16}}};
    t[Op::Table] = {{{D::Int8}, {kInt, 0}}, {{D::Int16}, {kInt, kInt16}}};
    t[Op::Negate] = {{{D::Int8}, {kInt, 0}}, {{D::Int16}, {kInt, 0}}, {{D::Int32}, {kInt, 0}},
                     {{D::Fp16}, {kFp, 0}},  {{D::Fp32}, {kFp, 0}},   {{D::Bf16}, {kFp, kBf16}}};
    t[Op::Select] = {{{D::Bool}, {kBoth, 0}},  {{D::Int8}, {kInt, 0}}, {{D::Int16}, {kInt, 0}},
                     {{D::Int32}, {kInt, 0}},  {{D::Fp16}, {kFp, 0}},  {{D::Fp32}, {kFp, 0}},
                     {{D::Bf16}, {kFp, kBf16}}};
    t[Op::ReduceMax] = {{{D::Int8}, {kInt, 0}}, {{D::Int16}, {kInt, 0}}, {{D::Int32}, {kInt, 0}},
                        {{D::Fp16}, {kFp, 0}},  {{D::Fp32}, {kFp, 0}},   {{D::Bf16}, {kFp, kBf16}}};
    t[Op::ReduceMin] = t[Op::ReduceMax];
    t[Op::Concat] = dataLayoutRows(true);
    for (Op op : {Op::Pad, Op::Reshape, Op::Reverse, Op::Slice, Op::Tile, Op::Transpose})
      t[op] = dataLayoutRows(false);
    t[Op::Gather] = {{{D::Int8}, {kInt, 0}},       {{D::Int16}, {kInt, 0}},  {{D::Int32}, {kInt, 0}},
                     {{D::Fp16}, {kFp, 0}},        {{D::Fp32}, {kFp, 0}},    {{D::Fp8E4M3}, {kFp, kE4m3}},
                     {{D::Fp8E5M2}, {kFp, kE5m2}}, {{D::Bf16}, {kFp, kBf16}}};
    t[Op::Scatter] = t[Op::Gather];
    t[Op::Resize] = {{{D::Int8, D::Int32}, {kInt, 0}},       {{D::Int8, D::Int8}, {kInt, 0}},
                     {{D::Int16, D::Int48}, {kInt, kInt16}}, {{D::Int16, D::Int16}, {kInt, kInt16}},
                     {{D::Fp16, D::Fp16}, {kFp, 0}},         {{D::Fp32, D::Fp32}, {kFp, 0}},
                     {{D::Bf16, D::Bf16}, {kFp, kBf16}}};
    std::vector<Row> cast;
    for (D i : {D::Int8, D::Int16, D::Int32}) {
      cast.push_back({{D::Bool, i}, {kInt, 0}});
      cast.push_back({{i, D::Bool}, {kInt, 0}});
      for (D o : {D::Int8, D::Int16, D::Int32}) {
        if (i != o) cast.push_back({{i, o}, {kInt, 0}});
      }
      for (D f : {D::Fp16, D::Fp32}) {
        cast.push_back({{i, f}, {kFp, 0}});
        cast.push_back({{f, i}, {kFp, 0}});
      }
      cast.push_back({{i, D::Bf16}, {kFp, kBf16}});
      cast.push_back({{D::Bf16, i}, {kFp, kBf16}});
    }
    cast.push_back({{D::Fp16, D::Fp32}, {kFp, 0}});
    cast.push_back({{D::Fp32, D::Fp16}, {kFp, 0}});
    cast.push_back({{D::Bf16, D::Fp32}, {kFp, kBf16}});
    cast.push_back({{D::Fp32, D::Bf16}, {kFp, kBf16}});
    for (auto [f8, ext] : {std::pair{D::Fp8E4M3, kE4m3}, std::pair{D::Fp8E5M2, kE5m2}}) {
      for (D f : {D::Fp16, D::Fp32}) {
        cast.push_back({{f8, f}, {kFp, ext}});
        cast.push_back({{f, f8}, {kFp, ext}});
      }
      cast.push_back({{f8, D::Bf16}, {kFp, ext | kBf16}});
      cast.push_back({{D::Bf16, f8}, {kFp, ext | kBf16}});
    }
    t[Op::Cast] = cast;
    std::vector<Row> rescale;
    for (D i : {D::Int8, D::Int16, D::Int32}) {
      for (D o : {D::Int8, D::Int16, D::Int32}) rescale.push_back({{i, o}, {kInt, 0}});
    }
    for (D o : {D::Int8, D::Int16, D::Int32}) rescale.push_back({{D::Int48, o}, {kInt, kInt16}});
    t[Op::Rescale] = rescale;
    std::vector<Row> constRows = {
        {{D::Bool}, {kBoth, 0}},      {{D::Int8}, {kBoth, 0}},      {{D::Int16}, {kBoth, 0}},
        {{D::Int32}, {kBoth, 0}},     {{D::Fp16}, {kFp, 0}},        {{D::Fp32}, {kFp, 0}},
        {{D::Int4}, {kInt, kInt4}},   {{D::Int48}, {kInt, kInt16}}, {{D::Fp8E4M3}, {kFp, kE4m3}},
        {{D::Fp8E5M2}, {kFp, kE5m2}}, {{D::Bf16}, {kFp, kBf16}}};
    t[Op::Const] = constRows;
    t[Op::Identity] = constRows;
    t[Op::ConstShape] = {{{D::Shape}, {kBoth, 0}}};
    return t;
  }();
  return tables;
}

//===------------------------------------------------------------------===//
// Small helpers.
//===------------------------------------------------------------------===//

std::string typeOf(const Tensor& t) {
  return fmt::format("{} {}", toString(t.dtype), shapeToString(t.shape));
}

double decodeSmallFloat(std::uint32_t bits, int expBits, int manBits, bool hasInf) {
  std::uint32_t expMax = (1u << expBits) - 1;
  int bias = (1 << (expBits - 1)) - 1;
  bool negative = (bits >> (expBits + manBits)) & 1u;
  std::uint32_t e = (bits >> manBits) & expMax;
  std::uint32_t m = bits & ((1u << manBits) - 1);
  double v = 0;
  if (e == expMax && (hasInf || m == (1u << manBits) - 1)) {
    v = (hasInf && m == 0) ? INFINITY : NAN;
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), 1 - bias - manBits);
  } else {
    v = std::ldexp(static_cast<double>(m + (1u << manBits)), static_cast<int>(e) - bias - manBits);
  }
  return negative ? -v : v;
}

/// The first element of a host-layout payload of `type` as a double (integers exactly up to
/// 2^53). nullopt if the payload is too short.
std::optional<double> scalarOf(DType type, std::span<const std::uint8_t> bytes, std::size_t index = 0) {
  std::size_t n = hostElementBytes(type);
  if (n == 0 || bytes.size() < (index + 1) * n) return std::nullopt;
  const std::uint8_t* p = bytes.data() + index * n;
  switch (type) {
    case D::Bool: return p[0] != 0 ? 1.0 : 0.0;
    case D::Int4:
    case D::Int8: return static_cast<double>(static_cast<std::int8_t>(p[0]));
    case D::Int16: {
      std::int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case D::Int32: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case D::Int48:
    case D::Shape: {
      std::int64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
    case D::Fp32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case D::Fp16:
    case D::Bf16: {
      std::uint16_t v;
      std::memcpy(&v, p, 2);
      return type == D::Fp16 ? decodeSmallFloat(v, 5, 10, true) : decodeSmallFloat(v, 8, 7, true);
    }
    case D::Fp8E4M3: return decodeSmallFloat(p[0], 4, 3, false);
    case D::Fp8E5M2: return decodeSmallFloat(p[0], 5, 2, true);
    case D::Unknown: return std::nullopt;
  }
  return std::nullopt;
}

bool isPowerOfTwo(std::int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

/// Name resolution from one block outward through its parents.
class Scope {
 public:
  explicit Scope(const std::unordered_map<const Block*, const Block*>& parents) : parents_(parents) {}

  const Tensor* find(const Block& block, std::string_view name) const {
    const Block* current = &block;
    for (int depth = 0; current != nullptr && depth <= 256; ++depth) {
      const auto& index = indexOf(*current);
      auto it = index.find(std::string(name));
      if (it != index.end()) return it->second;
      auto p = parents_.find(current);
      current = p == parents_.end() ? nullptr : p->second;
    }
    return nullptr;
  }

 private:
  const std::unordered_map<std::string, const Tensor*>& indexOf(const Block& block) const {
    auto it = index_.find(&block);
    if (it != index_.end()) return it->second;
    auto& map = index_[&block];
    for (const Tensor& t : block.tensors) map.emplace(t.name, &t);
    return map;
  }

  const std::unordered_map<const Block*, const Block*>& parents_;
  mutable std::unordered_map<const Block*, std::unordered_map<std::string, const Tensor*>> index_;
};

std::unordered_map<const Block*, const Block*> parentMap(const Graph& graph) {
  std::unordered_map<const Block*, const Block*> parents;
  for (const Region& r : graph.regions) {
    for (const Block& b : r.blocks) {
      for (const Operator& op : b.operators) {
        std::vector<std::string_view> names;
        if (const auto* c = std::get_if<CondIfAttrs>(&op.attrs)) names = {c->thenGraph, c->elseGraph};
        if (const auto* w = std::get_if<WhileLoopAttrs>(&op.attrs)) names = {w->condGraph, w->bodyGraph};
        for (std::string_view n : names) {
          const Block* child = graph.findGraph(n);
          if (child != nullptr && child != &b && !parents.contains(child)) parents[child] = &b;
        }
      }
    }
  }
  return parents;
}

std::string blockPath(const Graph& graph, const Block& block) {
  for (std::size_t r = 0; r < graph.regions.size(); ++r) {
    for (std::size_t b = 0; b < graph.regions[r].blocks.size(); ++b) {
      if (&graph.regions[r].blocks[b] == &block)
        return fmt::format("regions[{}].blocks[{}] '{}'", r, b, block.name);
    }
  }
  return fmt::format("block '{}'", block.name);
}

//===------------------------------------------------------------------===//
// Operator checks.
//===------------------------------------------------------------------===//

class OpChecker {
 public:
  OpChecker(const Graph& graph, const Block& block, std::size_t index, const Scope& scope,
            const VerifyOptions& options)
      : graph_(graph),
        block_(block),
        op_(block.operators[index]),
        index_(index),
        scope_(scope),
        options_(options) {}

  Status run();
  /// After run() succeeded: the type-table alternatives of this operator.
  std::vector<Alt> alternatives() const { return alts_; }
  std::uint32_t extraExt() const { return extraExt_; }

 private:
  template <typename... Args>
  Unexpected fail(fmt::format_string<Args...> format, Args&&... args) const {
    return invalidInput("{}: operators[{}] {}: {}", blockPath(graph_, block_), index_, toString(op_.op),
                        fmt::format(format, std::forward<Args>(args)...));
  }
  const Tensor& in(std::size_t i) const { return *inputs_[i]; }
  const Tensor& out(std::size_t i) const { return *outputs_[i]; }

  Status resolve();
  Status checkTypes(const std::vector<DType>& key, std::string_view what);
  Status requireType(std::size_t input, std::string_view argName, DType expected) const {
    if (in(input).dtype != expected) {
      return fail("{} '{}': expected type {}, got {}", argName, in(input).name, toString(expected),
                  toString(in(input).dtype));
    }
    return {};
  }
  Status requireCtc(std::size_t input, std::string_view argName) const;
  Status zeroPoint(std::size_t input, std::string_view argName, DType type, bool allowNonZero) const;
  Status checkShapes();
  Status checkSpecific();
  Status checkControlFlow();

  const Graph& graph_;
  const Block& block_;
  const Operator& op_;
  std::size_t index_;
  const Scope& scope_;
  const VerifyOptions& options_;
  std::vector<const Tensor*> inputs_;
  std::vector<const Tensor*> outputs_;
  std::vector<Alt> alts_;
  mutable std::uint32_t extraExt_ = 0;  // extensions implied beyond the type tables
};

Status OpChecker::resolve() {
  const OpArity arity = opArity(op_.op);
  const int nIn = arity.inputs;
  const int nOut = arity.outputs;
  if (nIn >= 0 && op_.inputs.size() != static_cast<std::size_t>(nIn)) {
    return fail("expected {} inputs, got {}", nIn, op_.inputs.size());
  }
  if (nOut >= 0 && op_.outputs.size() != static_cast<std::size_t>(nOut)) {
    return fail("expected {} outputs, got {}", nOut, op_.outputs.size());
  }
  if (op_.op == Op::Concat && op_.inputs.empty())
    return fail("input1: expected at least one tensor, got none");
  for (const std::string& name : op_.inputs) {
    const Tensor* t = scope_.find(block_, name);
    if (t == nullptr)
      return fail("input '{}': undefined tensor (no declaration in this block or its parents)", name);
    inputs_.push_back(t);
  }
  for (const std::string& name : op_.outputs) {
    const Tensor* t = scope_.find(block_, name);
    if (t == nullptr) return fail("output '{}': undefined tensor (no declaration in this block)", name);
    outputs_.push_back(t);
  }
  return {};
}

Status OpChecker::checkTypes(const std::vector<DType>& key, std::string_view what) {
  const auto& tables = typeTables();
  auto it = tables.find(op_.op);
  if (it == tables.end()) return {};
  for (const Row& row : it->second) {
    if (row.key == key) alts_.push_back(row.alt);
  }
  if (alts_.empty()) {
    std::vector<std::string_view> names;
    for (DType t : key) names.push_back(toString(t));
    return Unexpected(Error(
        ErrorKind::Unsupported,
        fmt::format("{}: operators[{}] {}: {}: expected a type combination of a TOSA 1.0 "
                    "profile or extension, got {}",
                    blockPath(graph_, block_), index_, toString(op_.op), what, fmt::join(names, " x "))));
  }
  return {};
}

Status OpChecker::requireCtc(std::size_t input, std::string_view argName) const {
  const Tensor& t = in(input);
  bool constant = t.data.has_value() && !t.variable;
  if (!constant) {
    if (options_.allowDynamic) {
      extraExt_ |= kDynamic;
      return {};
    }
    return fail(
        "{} '{}': expected a compile-time constant (CONST/CONST_SHAPE output) in PRO-INT/PRO-FP without "
        "EXT-DYNAMIC, got a computed tensor",
        argName, t.name);
  }
  return {};
}

Status OpChecker::zeroPoint(std::size_t input, std::string_view argName, DType type,
                            bool allowNonZero) const {
  const Tensor& zp = in(input);
  if (zp.dtype != type) {
    return fail("{} '{}': expected type {} (the zero point's operand type), got {}", argName, zp.name,
                toString(type), toString(zp.dtype));
  }
  auto count = checkedElementCount(zp.shape);
  if (!count || *count != 1)
    return fail("{} '{}': expected one element (shape [1]), got {}", argName, zp.name,
                shapeToString(zp.shape));
  OPENVGF_TRY(requireCtc(input, argName));
  if (!allowNonZero && zp.data) {
    auto v = scalarOf(zp.dtype, *zp.data);
    if (v && *v != 0.0) {
      return fail("{} '{}': expected 0 (ERROR_IF {} != 0 for non-int8 types), got {}", argName, zp.name,
                  argName, *v);
    }
  }
  return {};
}

Status OpChecker::checkShapes() {
  if (!hasShapeInference(op_.op)) return {};
  std::vector<ValueInfo> infos;
  for (const Tensor* t : inputs_) {
    ValueInfo v{t->dtype, t->shape, std::nullopt};
    if (t->dtype == DType::Shape && t->data) {
      std::vector<std::int64_t> values(t->data->size() / 8);
      if (!values.empty()) std::memcpy(values.data(), t->data->data(), values.size() * 8);
      v.shapeValue = std::move(values);
    }
    infos.push_back(std::move(v));
  }
  auto inferred = inferOutputs(op_.op, op_.attrs, infos);
  if (!inferred) return fail("{}", inferred.error().message());
  for (std::size_t i = 0; i < inferred->size() && i < outputs_.size(); ++i) {
    const OutputInfo& o = (*inferred)[i];
    const Tensor& t = out(i);
    if (t.shape != o.shape) {
      return fail("output '{}': expected shape {} (from the inputs and attributes), got {}", t.name,
                  shapeToString(o.shape), shapeToString(t.shape));
    }
    bool typeIsChoice = op_.op == Op::MatMul || o.dtype == DType::Unknown;
    if (!typeIsChoice && t.dtype != o.dtype) {
      return fail("output '{}': expected type {}, got {}", t.name, toString(o.dtype), toString(t.dtype));
    }
  }
  return {};
}

Status OpChecker::checkControlFlow() {
  extraExt_ |= kControlFlow;
  auto signature = [&](const Block& g, std::string_view role, const std::vector<const Tensor*>& operands,
                       bool checkOutputs) -> Status {
    if (g.inputs.size() != operands.size()) {
      return fail("{} graph '{}': expected {} inputs (the operator's input list), got {}", role, g.name,
                  operands.size(), g.inputs.size());
    }
    for (std::size_t i = 0; i < operands.size(); ++i) {
      const Tensor* t = g.findTensor(g.inputs[i]);
      if (t == nullptr)
        return fail("{} graph '{}': input '{}' has no tensor declaration", role, g.name, g.inputs[i]);
      if (t->dtype != operands[i]->dtype || t->shape != operands[i]->shape) {
        return fail("{} graph '{}': input {} '{}': expected {} like operand '{}', got {}", role, g.name, i,
                    t->name, typeOf(*operands[i]), operands[i]->name, typeOf(*t));
      }
    }
    if (!checkOutputs) return {};
    if (g.outputs.size() != outputs_.size()) {
      return fail("{} graph '{}': expected {} outputs (the operator's output list), got {}", role, g.name,
                  outputs_.size(), g.outputs.size());
    }
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
      const Tensor* t = scope_.find(g, g.outputs[i]);
      if (t == nullptr) return fail("{} graph '{}': output '{}' is undefined", role, g.name, g.outputs[i]);
      if (t->dtype != outputs_[i]->dtype || t->shape != outputs_[i]->shape) {
        return fail("{} graph '{}': output {} '{}': expected {} like '{}', got {}", role, g.name, i, t->name,
                    typeOf(*outputs_[i]), outputs_[i]->name, typeOf(*t));
      }
    }
    return {};
  };
  auto find = [&](const std::string& name, std::string_view role) -> Result<const Block*> {
    const Block* g = graph_.findGraph(name);
    if (g == nullptr) return fail("{}: graph '{}' not found (no region or block of that name)", role, name);
    if (g == &block_) return fail("{}: graph '{}' is the operator's own block (recursion)", role, name);
    return g;
  };
  if (const auto* a = std::get_if<CondIfAttrs>(&op_.attrs)) {
    if (inputs_.empty()) return fail("condition: expected a BOOL input, got no inputs");
    const Tensor& cond = in(0);
    auto n = checkedElementCount(cond.shape);
    if (cond.dtype != DType::Bool || !n || *n != 1) {
      return fail("condition '{}': expected a BOOL tensor of one element, got {}", cond.name, typeOf(cond));
    }
    std::vector<const Tensor*> operands(inputs_.begin() + 1, inputs_.end());
    OPENVGF_ASSIGN_OR_RETURN(const Block* thenGraph, find(a->thenGraph, "then_graph"));
    OPENVGF_ASSIGN_OR_RETURN(const Block* elseGraph, find(a->elseGraph, "else_graph"));
    OPENVGF_TRY(signature(*thenGraph, "then", operands, true));
    OPENVGF_TRY(signature(*elseGraph, "else", operands, true));
    return {};
  }
  if (const auto* a = std::get_if<WhileLoopAttrs>(&op_.attrs)) {
    OPENVGF_ASSIGN_OR_RETURN(const Block* condGraph, find(a->condGraph, "cond_graph"));
    OPENVGF_ASSIGN_OR_RETURN(const Block* bodyGraph, find(a->bodyGraph, "body_graph"));
    if (outputs_.size() != inputs_.size()) {
      return fail("expected as many outputs as inputs (the loop-carried list), got {} and {}",
                  outputs_.size(), inputs_.size());
    }
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      if (in(i).dtype != out(i).dtype || in(i).shape != out(i).shape) {
        return fail("output '{}': expected {} like input '{}', got {}", out(i).name, typeOf(in(i)),
                    in(i).name, typeOf(out(i)));
      }
    }
    OPENVGF_TRY(signature(*condGraph, "cond", inputs_, false));
    OPENVGF_TRY(signature(*bodyGraph, "body", inputs_, true));
    if (condGraph->outputs.size() != 1) {
      return fail("cond graph '{}': expected one BOOL output, got {} outputs", condGraph->name,
                  condGraph->outputs.size());
    }
    const Tensor* c = scope_.find(*condGraph, condGraph->outputs[0]);
    auto n = c ? checkedElementCount(c->shape) : std::nullopt;
    if (c == nullptr || c->dtype != DType::Bool || !n || *n != 1) {
      return fail("cond graph '{}': expected its output to be a BOOL tensor of one element, got {}",
                  condGraph->name, c ? typeOf(*c) : std::string("an undefined tensor"));
    }
    return {};
  }
  return fail("expected {} attributes, got another attribute kind", toString(op_.op));
}

Status OpChecker::checkSpecific() {
  auto attrs = [&]<typename T>() -> Result<const T*> {
    const T* a = std::get_if<T>(&op_.attrs);
    if (a == nullptr) return fail("expected the op's attribute struct, got another kind");
    return a;
  };
  auto checkNan = [&](NanMode m) -> Status {
    if (m != NanMode::Propagate && m != NanMode::Ignore) {
      return fail("nan_mode: expected PROPAGATE or IGNORE, got {}", static_cast<std::uint32_t>(m));
    }
    return {};
  };
  switch (op_.op) {
    case Op::ArgMax: {
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, (attrs.template operator()<ArgMaxAttrs>()));
      OPENVGF_TRY(checkNan(a->nanMode));
      return checkTypes({in(0).dtype}, "input");
    }
    case Op::AvgPool2d:
    case Op::MaxPool2d: {
      const std::vector<std::int32_t>* kernel;
      const std::vector<std::int32_t>* pad;
      const std::vector<std::int32_t>* stride;
      if (op_.op == Op::AvgPool2d) {
        OPENVGF_ASSIGN_OR_RETURN(const auto* a, (attrs.template operator()<AvgPool2dAttrs>()));
        kernel = &a->kernel, pad = &a->pad, stride = &a->stride;
        OPENVGF_TRY(zeroPoint(1, "input_zp", in(0).dtype, in(0).dtype == DType::Int8));
        OPENVGF_TRY(zeroPoint(2, "output_zp", in(0).dtype, in(0).dtype == DType::Int8));
        OPENVGF_TRY(checkTypes({in(0).dtype, a->accType}, "input x acc_type"));
      } else {
        OPENVGF_ASSIGN_OR_RETURN(const auto* a, (attrs.template operator()<MaxPool2dAttrs>()));
        kernel = &a->kernel, pad = &a->pad, stride = &a->stride;
        OPENVGF_TRY(checkNan(a->nanMode));
        OPENVGF_TRY(checkTypes({in(0).dtype}, "input"));
      }
      if (kernel->size() == 2 && pad->size() == 4 && stride->size() == 2) {
        for (int i = 0; i < 4; ++i) {
          std::int32_t k = (*kernel)[static_cast<std::size_t>(i / 2)];
          std::int32_t p = (*pad)[static_cast<std::size_t>(i)];
          if (p < 0 || p >= k) {
            return fail(
                "pad: expected 0 <= pad < kernel in each dimension (ERROR_IF pad >= kernel), got pad {} "
                "kernel {}",
                fmt::format("[{}]", fmt::join(*pad, ",")), fmt::format("[{}]", fmt::join(*kernel, ",")));
          }
        }
      }
      return {};
    }
    case Op::Conv2d:
    case Op::Conv3d:
    case Op::DepthwiseConv2d:
    case Op::TransposeConv2d: {
      DType acc = DType::Unknown;
      if (op_.op == Op::TransposeConv2d) {
        OPENVGF_ASSIGN_OR_RETURN(const auto* a, (attrs.template operator()<TransposeConv2dAttrs>()));
        acc = a->accType;
        if (a->outPad.size() == 4 && in(1).shape.size() == 4) {
          for (std::size_t i = 0; i < 4; ++i) {
            std::int64_t k = in(1).shape[1 + i / 2];
            if (a->outPad[i] <= -k) {
              return fail(
                  "out_pad: expected out_pad > -K (ERROR_IF out_pad <= -KH/KW), got {} with kernel {}",
                  a->outPad[i], k);
            }
          }
        }
      } else {
        OPENVGF_ASSIGN_OR_RETURN(const auto* a, (attrs.template operator()<ConvAttrs>()));
        acc = a->accType;
        for (std::int32_t p : a->pad) {
          if (p < 0)
            return fail("pad: expected values >= 0 (ERROR_IF pad < 0), got [{}]", fmt::join(a->pad, ","));
        }
      }
      OPENVGF_TRY(checkTypes({in(0).dtype, in(1).dtype, acc}, "input x weight x acc_type"));
      const Tensor& bias = in(2);
      DType outType = out(0).dtype;
      if (bias.dtype != outType) {
        return fail("bias '{}': expected the output type {}, got {}", bias.name, toString(outType),
                    toString(bias.dtype));
      }
      std::int64_t oc = out(0).shape.empty() ? 0 : out(0).shape.back();
      if (bias.shape.size() != 1 || (bias.shape[0] != 1 && bias.shape[0] != oc)) {
        return fail("bias '{}': expected shape [1] or [{}] (ERROR_IF BC != OC && BC != 1), got {}", bias.name,
                    oc, shapeToString(bias.shape));
      }
      OPENVGF_TRY(zeroPoint(3, "input_zp", in(0).dtype, in(0).dtype == DType::Int8));
      OPENVGF_TRY(zeroPoint(4, "weight_zp", in(1).dtype, in(1).dtype == DType::Int8));
      return {};
    }
    case Op::Fft2d:
    case Op::Rfft2d: {
      const Shape& s = in(0).shape;
      if (s.size() == 3 && (!isPowerOfTwo(s[1]) || !isPowerOfTwo(s[2]))) {
        return fail("input_real '{}': expected H and W to be powers of two, got {}", in(0).name,
                    shapeToString(s));
      }
      if (op_.op == Op::Fft2d) OPENVGF_TRY(requireType(1, "input_imag", in(0).dtype));
      return checkTypes({in(0).dtype}, "input_real");
    }
    case Op::MatMul:
      OPENVGF_TRY(zeroPoint(2, "A_zp", in(0).dtype, in(0).dtype == DType::Int8));
      OPENVGF_TRY(zeroPoint(3, "B_zp", in(1).dtype, in(1).dtype == DType::Int8));
      return checkTypes({in(0).dtype, in(1).dtype, out(0).dtype}, "A x B x output");
    case Op::Clamp: {
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, (attrs.template operator()<ClampAttrs>()));
      OPENVGF_TRY(checkNan(a->nanMode));
      OPENVGF_TRY(checkTypes({in(0).dtype}, "input"));
      std::size_t n = hostElementBytes(in(0).dtype);
      if (a->minVal.size() != n || a->maxVal.size() != n) {
        return fail("min_val/max_val: expected {} bytes (one {} element), got {} and {}", n,
                    toString(in(0).dtype), a->minVal.size(), a->maxVal.size());
      }
      auto lo = scalarOf(in(0).dtype, a->minVal);
      auto hi = scalarOf(in(0).dtype, a->maxVal);
      if (lo && hi && (std::isnan(*lo) || std::isnan(*hi) || *hi < *lo)) {
        return fail(
            "min_val/max_val: expected min_val <= max_val and neither NaN (ERROR_IF max_val < min_val), got "
            "{} and {}",
            *lo, *hi);
      }
      return {};
    }
    case Op::Maximum:
    case Op::Minimum: {
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, (attrs.template operator()<NanModeAttrs>()));
      OPENVGF_TRY(checkNan(a->nanMode));
      [[fallthrough]];
    }
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
    case Op::Pow:
    case Op::Equal:
    case Op::Greater:
    case Op::GreaterEqual:
      OPENVGF_TRY(requireType(1, "input2", in(0).dtype));
      return checkTypes({in(0).dtype}, "input1");
    case Op::Mul: {
      OPENVGF_TRY(requireType(1, "input2", in(0).dtype));
      const Tensor& shift = in(2);
      if (shift.dtype != DType::Int8 || shift.shape != Shape{1}) {
        return fail("shift '{}': expected INT8 [1], got {}", shift.name, typeOf(shift));
      }
      OPENVGF_TRY(requireCtc(2, "shift"));
      if (shift.data) {
        double s = scalarOf(DType::Int8, *shift.data).value_or(0);
        if (in(0).dtype != DType::Int32 && s != 0) {
          return fail("shift '{}': expected 0 for {} inputs (ERROR_IF in_t != i32 && shift != 0), got {}",
                      shift.name, toString(in(0).dtype), s);
        }
      }
      return checkTypes({in(0).dtype, out(0).dtype}, "input x output");
    }
    case Op::Table: {
      OPENVGF_TRY(requireType(1, "table", in(0).dtype));
      std::int64_t want = in(0).dtype == DType::Int16 ? 513 : 256;
      if (in(1).shape != Shape{want}) {
        return fail("table '{}': expected shape [{}], got {}", in(1).name, want, shapeToString(in(1).shape));
      }
      OPENVGF_TRY(requireCtc(1, "table"));
      return checkTypes({in(0).dtype}, "input");
    }
    case Op::Negate:
      OPENVGF_TRY(zeroPoint(1, "input1_zp", in(0).dtype, in(0).dtype == DType::Int8));
      OPENVGF_TRY(zeroPoint(2, "output_zp", in(0).dtype, in(0).dtype == DType::Int8));
      return checkTypes({in(0).dtype}, "input1");
    case Op::Select:
      OPENVGF_TRY(requireType(0, "input1", DType::Bool));
      OPENVGF_TRY(requireType(2, "input3", in(1).dtype));
      return checkTypes({in(1).dtype}, "input2");
    case Op::ReduceMax:
    case Op::ReduceMin: {
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, (attrs.template operator()<AxisAttrs>()));
      OPENVGF_TRY(checkNan(a->nanMode));
      return checkTypes({in(0).dtype}, "input");
    }
    case Op::Concat:
      for (std::size_t i = 1; i < inputs_.size(); ++i) OPENVGF_TRY(requireType(i, "input1[]", in(0).dtype));
      return checkTypes({in(0).dtype}, "input1");
    case Op::Pad: {
      OPENVGF_TRY(requireType(1, "padding", DType::Shape));
      OPENVGF_TRY(requireType(2, "pad_const", in(0).dtype));
      auto n = checkedElementCount(in(2).shape);
      if (!n || *n != 1)
        return fail("pad_const '{}': expected one element, got {}", in(2).name, shapeToString(in(2).shape));
      OPENVGF_TRY(requireCtc(1, "padding"));
      OPENVGF_TRY(requireCtc(2, "pad_const"));
      return checkTypes({in(0).dtype}, "input1");
    }
    case Op::Reshape:
    case Op::Tile:
      OPENVGF_TRY(requireType(1, op_.op == Op::Reshape ? "shape" : "multiples", DType::Shape));
      OPENVGF_TRY(requireCtc(1, op_.op == Op::Reshape ? "shape" : "multiples"));
      return checkTypes({in(0).dtype}, "input1");
    case Op::Slice:
      OPENVGF_TRY(requireType(1, "start", DType::Shape));
      OPENVGF_TRY(requireType(2, "size", DType::Shape));
      OPENVGF_TRY(requireCtc(1, "start"));
      OPENVGF_TRY(requireCtc(2, "size"));
      return checkTypes({in(0).dtype}, "input1");
    case Op::Gather:
      OPENVGF_TRY(requireType(1, "indices", DType::Int32));
      return checkTypes({in(0).dtype}, "values");
    case Op::Scatter:
      OPENVGF_TRY(requireType(1, "indices", DType::Int32));
      OPENVGF_TRY(requireType(2, "input", in(0).dtype));
      return checkTypes({in(0).dtype}, "values_in");
    case Op::Resize: {
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, (attrs.template operator()<ResizeAttrs>()));
      if (a->mode != ResizeMode::Nearest && a->mode != ResizeMode::Bilinear) {
        return fail("mode: expected NEAREST or BILINEAR, got {}", static_cast<std::uint32_t>(a->mode));
      }
      for (std::size_t i = 1; i < 4; ++i) {
        static constexpr std::array<std::string_view, 4> kNames = {"", "scale", "offset", "border"};
        OPENVGF_TRY(requireType(i, kNames[i], DType::Shape));
        OPENVGF_TRY(requireCtc(i, kNames[i]));
      }
      if (in(1).data && in(2).data && in(3).data && in(1).data->size() == 32 && in(2).data->size() == 16 &&
          in(3).data->size() == 16 && in(0).shape.size() == 4 && out(0).shape.size() == 4) {
        std::int64_t s[4], o[2], b[2];
        std::memcpy(s, in(1).data->data(), 32);
        std::memcpy(o, in(2).data->data(), 16);
        std::memcpy(b, in(3).data->data(), 16);
        for (int d = 0; d < 2; ++d) {
          std::int64_t n = s[2 * d];
          std::int64_t den = s[2 * d + 1];
          const char* axis = d == 0 ? "y" : "x";
          if (n <= 0 || den <= 0) return fail("scale: expected values > 0, got [{}, {}]", n, den);
          if (n > 2048) return fail("scale_{}_n: expected <= 2048, got {}", axis, n);
          if (den >= 16 * n)
            return fail("scale_{0}_d: expected scale_{0}_d < 16 * scale_{0}_n, got {1} and {2}", axis, den,
                        n);
          if (o[d] < -n || o[d] >= 16 * n) {
            return fail("offset_{0}: expected -scale_{0}_n <= offset_{0} < 16 * scale_{0}_n, got {1}", axis,
                        o[d]);
          }
          if (b[d] < -16 * n || b[d] >= n) {
            return fail("border_{0}: expected -16 * scale_{0}_n <= border_{0} < scale_{0}_n, got {1}", axis,
                        b[d]);
          }
        }
        std::int64_t maxDim = std::max({in(0).shape[1], in(0).shape[2], out(0).shape[1], out(0).shape[2]});
        if (maxDim >= 16384) return fail("expected IH, IW, OH, OW < 16384, got {}", maxDim);
      }
      DType t = in(0).dtype;
      bool integer = t == DType::Int8 || t == DType::Int16;
      if (integer) {
        DType want = a->mode == ResizeMode::Bilinear ? (t == DType::Int8 ? DType::Int32 : DType::Int48) : t;
        if (out(0).dtype != want) {
          return fail("output '{}': expected {} for {} {} resize, got {}", out(0).name, toString(want),
                      toString(t), toString(a->mode), toString(out(0).dtype));
        }
      }
      return checkTypes({in(0).dtype, out(0).dtype}, "input x output");
    }
    case Op::Cast:
      if (in(0).shape != out(0).shape) {
        return fail("output '{}': expected shape {}, got {}", out(0).name, shapeToString(in(0).shape),
                    shapeToString(out(0).shape));
      }
      return checkTypes({in(0).dtype, out(0).dtype}, "input x output");
    case Op::Rescale: {
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, (attrs.template operator()<RescaleAttrs>()));
      DType inT = in(0).dtype;
      DType outT = out(0).dtype;
      if (in(0).shape != out(0).shape) {
        return fail("output '{}': expected shape {}, got {}", out(0).name, shapeToString(in(0).shape),
                    shapeToString(out(0).shape));
      }
      if (a->roundingMode == RoundingMode::DoubleRound) {
        if (!a->scale32)
          return fail("rounding_mode: DOUBLE_ROUND requires scale32 (ERROR_IF !scale32 && DOUBLE_ROUND)");
        extraExt_ |= kDoubleRound;
      } else if (a->roundingMode == RoundingMode::InexactRound) {
        extraExt_ |= kInexactRound;
      } else if (a->roundingMode != RoundingMode::SingleRound) {
        return fail("rounding_mode: expected SINGLE_ROUND, INEXACT_ROUND or DOUBLE_ROUND, got {}",
                    static_cast<std::uint32_t>(a->roundingMode));
      }
      if (inT == DType::Int48 && a->scale32)
        return fail("scale32: expected false for INT48 input (ERROR_IF scale32 && in_t == i48)");
      if (a->inputUnsigned && a->outputUnsigned)
        return fail("input_unsigned and output_unsigned: expected at most one to be true");
      if (a->inputUnsigned && inT != DType::Int8 && inT != DType::Int16) {
        return fail("input_unsigned: only allowed for INT8/INT16 input, got {}", toString(inT));
      }
      if (a->outputUnsigned && outT != DType::Int8 && outT != DType::Int16) {
        return fail("output_unsigned: only allowed for INT8/INT16 output, got {}", toString(outT));
      }
      std::int64_t nc = a->perChannel ? (in(0).shape.empty() ? 0 : in(0).shape.back()) : 1;
      DType multType = a->scale32 ? DType::Int32 : DType::Int16;
      if (in(1).dtype != multType || in(1).shape != Shape{nc}) {
        return fail("multiplier '{}': expected {} [{}] (scale32 = {}, per_channel = {}), got {}", in(1).name,
                    toString(multType), nc, a->scale32, a->perChannel, typeOf(in(1)));
      }
      if (in(2).dtype != DType::Int8 || in(2).shape != Shape{nc}) {
        return fail("shift '{}': expected INT8 [{}], got {}", in(2).name, nc, typeOf(in(2)));
      }
      OPENVGF_TRY(requireCtc(1, "multiplier"));
      OPENVGF_TRY(requireCtc(2, "shift"));
      bool inZpOk = inT == DType::Int8 || (a->inputUnsigned && inT == DType::Int16);
      bool outZpOk = outT == DType::Int8 || (a->outputUnsigned && outT == DType::Int16);
      OPENVGF_TRY(zeroPoint(3, "input_zp", inT, inZpOk));
      OPENVGF_TRY(zeroPoint(4, "output_zp", outT, outZpOk));
      return checkTypes({inT, outT}, "input x output");
    }
    case Op::Const:
    case Op::ConstShape: {
      const Tensor& t = out(0);
      if (op_.op == Op::ConstShape && t.dtype != DType::Shape) {
        return fail("output '{}': expected type SHAPE, got {}", t.name, toString(t.dtype));
      }
      if (op_.op == Op::Const && t.dtype == DType::Shape)
        return fail("output '{}': SHAPE values come from CONST_SHAPE", t.name);
      if (!t.data) return fail("output '{}': expected constant data in the tensor, got none", t.name);
      auto count = checkedElementCount(t.shape);
      if (!count || t.data->size() != static_cast<std::size_t>(*count) * hostElementBytes(t.dtype)) {
        return fail("output '{}': expected {} data bytes for {}, got {}", t.name,
                    count ? static_cast<std::size_t>(*count) * hostElementBytes(t.dtype) : 0, typeOf(t),
                    t.data->size());
      }
      return checkTypes({t.dtype}, "output");
    }
    case Op::Identity:
      if (in(0).dtype != out(0).dtype) {
        return fail("output '{}': expected type {}, got {}", out(0).name, toString(in(0).dtype),
                    toString(out(0).dtype));
      }
      if (in(0).variable || out(0).variable) extraExt_ |= kVariable;
      return checkTypes({in(0).dtype}, "input1");
    case Op::CondIf:
    case Op::WhileLoop: return checkControlFlow();
    case Op::Variable:
    case Op::VariableRead:
    case Op::VariableWrite: extraExt_ |= kVariable; return {};
    case Op::Custom: return {};
    default:
      OPENVGF_TRY(checkTypes({in(0).dtype}, "input1"));
      if (op_.op == Op::ReduceAll || op_.op == Op::ReduceAny || op_.op == Op::ReduceSum ||
          op_.op == Op::ReduceProduct || op_.op == Op::Reverse) {
        OPENVGF_TRY((attrs.template operator()<AxisAttrs>()));
      }
      return {};
  }
}

Status OpChecker::run() {
  if (!isValid(op_.op) || op_.op == Op::Unknown) {
    return fail("op: expected a TOSA 1.0 operator, got {}", static_cast<std::uint32_t>(op_.op));
  }
  OPENVGF_TRY(resolve());
  // Types and attributes first: a wrong type explains a wrong shape better than the reverse.
  OPENVGF_TRY(checkSpecific());
  OPENVGF_TRY(checkShapes());
  return {};
}

//===------------------------------------------------------------------===//
// Graph checks.
//===------------------------------------------------------------------===//

class GraphChecker {
 public:
  GraphChecker(const Graph& graph, const VerifyOptions& options)
      : graph_(graph), options_(options), parents_(parentMap(graph)), scope_(parents_) {}

  std::vector<Error> run(bool stopAtFirst) {
    stopAtFirst_ = stopAtFirst;
    const Block* main = graph_.mainBlock();
    if (main == nullptr) {
      add(invalidInput("graph: expected a main block in regions[0], got none").error());
      return errors_;
    }
    checkNesting();
    for (const Region& r : graph_.regions) {
      for (const Block& b : r.blocks) {
        if (done()) return errors_;
        checkBlock(b);
      }
    }
    return errors_;
  }

  Requirements requirements() {
    std::uint32_t ext = 0;
    std::uint8_t forced = 0;
    std::vector<std::vector<Alt>> flexible;
    for (const Region& r : graph_.regions) {
      for (const Block& b : r.blocks) {
        for (const Tensor& t : b.tensors) {
          if (t.variable) ext |= kVariable;
        }
        for (std::size_t i = 0; i < b.operators.size(); ++i) {
          OpChecker c(graph_, b, i, scope_, options_);
          if (!c.run()) continue;
          ext |= c.extraExt();
          std::vector<Alt> alts = c.alternatives();
          if (alts.empty()) continue;
          if (alts.size() == 1 && alts[0].profiles != kBoth) {
            forced |= alts[0].profiles;
            ext |= alts[0].ext;
          } else {
            flexible.push_back(std::move(alts));
          }
        }
      }
    }
    for (const auto& alts : flexible) {
      // Prefer an alternative whose profile is needed anyway, then one without extensions.
      const Alt* best = nullptr;
      for (const Alt& a : alts) {
        bool covered = (a.profiles & forced) != 0;
        if (best == nullptr || (covered && (best->profiles & forced) == 0) ||
            (covered == ((best->profiles & forced) != 0) &&
             std::popcount(a.ext) < std::popcount(best->ext))) {
          best = &a;
        }
      }
      if ((best->profiles & forced) == 0) forced |= (best->profiles & kInt) ? kInt : kFp;
      ext |= best->ext;
    }
    Requirements req;
    if (forced & kInt) req.profiles.emplace_back("PRO-INT");
    if (forced & kFp) req.profiles.emplace_back("PRO-FP");
    for (std::size_t i = 0; i < kExtNames.size(); ++i) {
      if (ext & (1u << i)) req.extensions.emplace_back(kExtNames[i]);
    }
    std::sort(req.extensions.begin(), req.extensions.end());
    return req;
  }

 private:
  bool done() const { return stopAtFirst_ && !errors_.empty(); }
  void add(Error e) { errors_.push_back(std::move(e)); }
  template <typename... Args>
  void failBlock(const Block& b, fmt::format_string<Args...> format, Args&&... args) {
    add(Error(ErrorKind::InvalidInput,
              fmt::format("{}: {}", blockPath(graph_, b), fmt::format(format, std::forward<Args>(args)...))));
  }

  /// Control-flow references must not loop back (a graph calling itself, directly or not).
  void checkNesting() {
    std::unordered_map<const Block*, int> state;  // 0 new, 1 on stack, 2 done
    std::function<bool(const Block&, int)> visit = [&](const Block& b, int depth) -> bool {
      if (depth > 256) {
        failBlock(b, "control flow: expected nesting depth <= 256 (MAX_NESTING), got deeper");
        return false;
      }
      state[&b] = 1;
      for (const Operator& op : b.operators) {
        std::vector<std::string_view> names;
        if (const auto* c = std::get_if<CondIfAttrs>(&op.attrs)) names = {c->thenGraph, c->elseGraph};
        if (const auto* w = std::get_if<WhileLoopAttrs>(&op.attrs)) names = {w->condGraph, w->bodyGraph};
        for (std::string_view n : names) {
          const Block* child = graph_.findGraph(n);
          if (child == nullptr) continue;
          if (state[child] == 1) {
            failBlock(b, "control flow: graph '{}' calls itself (a cycle of COND_IF/WHILE_LOOP graphs)", n);
            return false;
          }
          if (state[child] == 0 && !visit(*child, depth + 1)) return false;
        }
      }
      state[&b] = 2;
      return true;
    };
    visit(*graph_.mainBlock(), 0);
  }

  void checkBlock(const Block& b) {
    // Declarations.
    std::unordered_set<std::string> declared;
    for (const Tensor& t : b.tensors) {
      if (!declared.insert(t.name).second) {
        failBlock(b, "tensors: duplicate definition of tensor '{}'", t.name);
        if (done()) return;
      }
      if (!isValid(t.dtype) || t.dtype == DType::Unknown) {
        failBlock(b, "tensor '{}': expected a TOSA 1.0 type, got {}", t.name,
                  static_cast<std::uint32_t>(t.dtype));
        if (done()) return;
      }
      bool positive = true;
      for (std::int64_t d : t.shape) {
        if (d < 1 && t.dtype != DType::Shape) {
          failBlock(b, "tensor '{}': expected every dimension >= 1, got shape {}", t.name,
                    shapeToString(t.shape));
          if (done()) return;
          positive = false;
          break;
        }
      }
      if (positive && t.dtype != DType::Shape && !checkedElementCount(t.shape)) {
        failBlock(b, "tensor '{}': shape {}: expected at most 2^63 - 1 elements (tensor_size_t, MAX_LOG2_SIZE 63 of "
                  "level none), got more",
                  t.name, shapeToString(t.shape));
        if (done()) return;
      }
    }
    // Producers.
    std::unordered_map<std::string, std::size_t> producer;
    std::unordered_set<std::string> blockInputs(b.inputs.begin(), b.inputs.end());
    bool isMain = &b == graph_.mainBlock();
    for (const std::string& name : b.inputs) {
      const Tensor* t = b.findTensor(name);
      if (t == nullptr) {
        failBlock(b, "inputs: '{}' has no tensor declaration", name);
      } else if (isMain && t->dtype == DType::Shape) {
        failBlock(b, "inputs: '{}': expected a tensor, got a shape_t value (graph inputs cannot be shapes)", name);
      }
      if (done()) return;
    }
    for (const std::string& name : b.outputs) {
      const Tensor* t = b.findTensor(name);
      if (isMain && t != nullptr && t->dtype == DType::Shape) {
        failBlock(b, "outputs: '{}': expected a tensor, got a shape_t value (graph outputs cannot be shapes)", name);
        if (done()) return;
      }
    }
    for (std::size_t i = 0; i < b.operators.size(); ++i) {
      const Operator& op = b.operators[i];
      for (const std::string& name : op.outputs) {
        const Tensor* t = scope_.find(b, name);
        if (t != nullptr && t->variable) continue;  // variable writes
        if (blockInputs.contains(name)) {
          failBlock(b, "operators[{}] {}: output '{}': duplicate definition (also a block input)", i,
                    toString(op.op), name);
          if (done()) return;
          continue;
        }
        auto [it, inserted] = producer.emplace(name, i);
        if (!inserted) {
          failBlock(
              b, "operators[{}] {}: output '{}': duplicate definition (already produced by operators[{}] {})",
              i, toString(op.op), name, it->second, toString(b.operators[it->second].op));
          if (done()) return;
        }
      }
    }
    auto isAvailable = [&](const std::string& name) {
      if (producer.contains(name) || blockInputs.contains(name)) return true;
      const Tensor* own = b.findTensor(name);
      if (own != nullptr) return own->data.has_value() || own->variable;
      return scope_.find(b, name) != nullptr;  // a parent block's value
    };
    // Operators and their use of names.
    for (std::size_t i = 0; i < b.operators.size(); ++i) {
      const Operator& op = b.operators[i];
      OpChecker checker(graph_, b, i, scope_, options_);
      Status s = checker.run();
      if (!s) {
        add(std::move(s).error());
        if (done()) return;
        continue;
      }
      for (const std::string& name : op.inputs) {
        if (!isAvailable(name)) {
          failBlock(b,
                    "operators[{}] {}: input '{}': tensor is never produced (not a block input, constant or "
                    "operator output)",
                    i, toString(op.op), name);
          if (done()) return;
        }
      }
    }
    // Cycles: Kahn's algorithm over the operators of this block.
    std::vector<std::size_t> pending(b.operators.size(), 0);
    std::unordered_map<std::size_t, std::vector<std::size_t>> consumers;
    for (std::size_t i = 0; i < b.operators.size(); ++i) {
      for (const std::string& name : b.operators[i].inputs) {
        auto it = producer.find(name);
        if (it != producer.end()) {
          ++pending[i];
          consumers[it->second].push_back(i);
        }
      }
    }
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (pending[i] == 0) ready.push_back(i);
    }
    std::size_t visited = 0;
    while (!ready.empty()) {
      std::size_t i = ready.back();
      ready.pop_back();
      ++visited;
      for (std::size_t c : consumers[i]) {
        if (--pending[c] == 0) ready.push_back(c);
      }
    }
    if (visited != b.operators.size()) {
      for (std::size_t i = 0; i < pending.size(); ++i) {
        if (pending[i] != 0) {
          failBlock(b, "operators[{}] {}: part of a cycle (its inputs depend on its own outputs)", i,
                    toString(b.operators[i].op));
          if (done()) return;
          break;
        }
      }
    }
    // Outputs.
    for (const std::string& name : b.outputs) {
      if (scope_.find(b, name) == nullptr) {
        failBlock(b, "outputs: '{}' is undefined (no tensor declaration)", name);
      } else if (!isAvailable(name)) {
        failBlock(b, "outputs: '{}' is never produced (not a block input, constant or operator output)",
                  name);
      }
      if (done()) return;
    }
  }

  const Graph& graph_;
  const VerifyOptions& options_;
  std::unordered_map<const Block*, const Block*> parents_;
  Scope scope_;
  std::vector<Error> errors_;
  bool stopAtFirst_ = false;
};

}  // namespace

Status verify(const Graph& graph, const VerifyOptions& options) {
  std::vector<Error> errors = GraphChecker(graph, options).run(true);
  if (errors.empty()) return {};
  return Unexpected(std::move(errors.front()));
}

std::vector<Error> verifyAll(const Graph& graph, const VerifyOptions& options) {
  return GraphChecker(graph, options).run(false);
}

Status verifyOperator(const Graph& graph, const Block& block, std::size_t operatorIndex,
                      const VerifyOptions& options) {
  if (operatorIndex >= block.operators.size()) {
    return invalidInput("{}: operators[{}]: expected an index below {}", block.name, operatorIndex,
                        block.operators.size());
  }
  auto parents = parentMap(graph);
  Scope scope(parents);
  return OpChecker(graph, block, operatorIndex, scope, options).run();
}

Requirements requirements(const Graph& graph) {
  VerifyOptions options;
  options.allowDynamic = true;
  GraphChecker checker(graph, options);
  return checker.requirements();
}

}  // namespace openvgf::tosa
