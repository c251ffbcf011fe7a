// SPDX-License-Identifier: Apache-2.0
// What an operator family's rules see (tosa/ops/<family>.cpp). Each family file defines, next
// to each other, the verify rule of its operators (types from the operator table's rows,
// attributes, zero points, compile-time constants and the ERROR_IF conditions of
// specs/tosa.md §2.3 beyond shapes) and their shape rule (output types and shapes from the
// inputs and attributes, quoting the spec's formulas). tosa/ops.def names each operator's
// rules; the verifier (OpCheck) and shape inference (Inference) call them.
//
// Internal to openvgf::tosa: the public entry points are tosa/verifier.h and
// tosa/shape_inference.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.h"
#include "tosa/graph.h"
#include "tosa/op_table.h"
#include "tosa/packing.h"
#include "tosa/shape_inference.h"
#include "tosa/verifier.h"

namespace openvgf::tosa::ops {

class OpCheck;
class Inference;

/// The rules of one group of operators.
struct OpRules {
  /// Checks what shape inference does not: types, attributes, operands (runs first).
  Status (*verify)(OpCheck& check);
  /// The outputs' types and shapes; nullptr where the graph decides them (CONST, CUSTOM,
  /// control flow, variables).
  Result<std::vector<OutputInfo>> (*infer)(const Inference& in);
};

// clang-format off
#define OVGF_OP(Name, Number, Spelling, Category, RulesName, ...) extern const OpRules k##RulesName##Rules;
#include "tosa/ops.def"
#undef OVGF_OP
// clang-format on

//===------------------------------------------------------------------===//
// Verification of one operator (tosa/verifier.cpp).
//===------------------------------------------------------------------===//

/// Name resolution from one block outward through its parents (control-flow blocks see the
/// tensors of the block that calls them).
class Scope {
 public:
  explicit Scope(const std::unordered_map<const Block*, const Block*>& parents) : parents_(parents) {}
  const Tensor* find(const Block& block, std::string_view name) const;

 private:
  const std::unordered_map<std::string, const Tensor*>& indexOf(const Block& block) const;

  const std::unordered_map<const Block*, const Block*>& parents_;
  mutable std::unordered_map<const Block*, std::unordered_map<std::string, const Tensor*>> index_;
};

/// One operator being verified: its resolved operands and what its rules may check and report.
class OpCheck {
 public:
  OpCheck(const Graph& graph, const Block& block, std::size_t index, const Scope& scope, const VerifyOptions& options);

  /// Counts, names, the operator's verify rule, then its shape rule.
  Status run();
  /// After run() succeeded: the type rows the operator's types matched.
  const std::vector<const TypeRow*>& matchedRows() const { return matched_; }
  /// After run() succeeded: extensions the operator needs beyond its type rows.
  std::uint32_t extraExtensions() const { return extraExt_; }

  // What rules use.
  Op op() const { return op_.op; }
  const Operator& operatorRef() const { return op_; }
  const Graph& graph() const { return graph_; }
  const Block& block() const { return block_; }
  const Scope& scope() const { return scope_; }
  const Tensor& in(std::size_t i) const { return *inputs_[i]; }
  const Tensor& out(std::size_t i) const { return *outputs_[i]; }
  const std::vector<const Tensor*>& inputs() const { return inputs_; }
  const std::vector<const Tensor*>& outputs() const { return outputs_; }

  /// InvalidInput "<block>: operators[i] OP: <message>".
  template <typename... Args>
  Unexpected fail(fmt::format_string<Args...> format, Args&&... args) const {
    return failWith(fmt::format(format, std::forward<Args>(args)...));
  }
  Unexpected failWith(const std::string& message) const;

  /// The operator's attribute struct, or an error naming the mismatch.
  template <typename T>
  Result<const T*> attrs() const {
    const T* a = std::get_if<T>(&op_.attrs);
    if (a == nullptr) return fail("expected the op's attribute struct, got another kind");
    return a;
  }
  Status checkNan(NanMode mode) const;
  /// Looks `key` up in the operator's type rows (Unsupported when no row matches).
  Status checkTypes(std::initializer_list<DType> key, std::string_view what);
  Status requireType(std::size_t input, std::string_view argName, DType expected) const;
  /// A compile-time constant input (any computed value with VerifyOptions::allowDynamic).
  Status requireCtc(std::size_t input, std::string_view argName) const;
  /// A zero point: type `type`, one element, compile-time constant, 0 unless allowNonZero.
  Status zeroPoint(std::size_t input, std::string_view argName, DType type, bool allowNonZero) const;
  void addExtensions(std::uint32_t extensions) const { extraExt_ |= extensions; }

 private:
  Status resolve();
  Status checkShapes();

  const Graph& graph_;
  const Block& block_;
  const Operator& op_;
  std::size_t index_;
  const Scope& scope_;
  const VerifyOptions& options_;
  std::vector<const Tensor*> inputs_;
  std::vector<const Tensor*> outputs_;
  std::vector<const TypeRow*> matched_;
  mutable std::uint32_t extraExt_ = 0;
};

/// "INT8 [1,2,3]".
std::string typeOf(const Tensor& t);
/// `"[1,2,3]"`.
std::string intList(const std::vector<std::int32_t>& v);
/// Element `index` of a host-layout payload of `type` as a double (integers exactly up to
/// 2^53); nullopt if the payload is too short.
std::optional<double> scalarOf(DType type, std::span<const std::uint8_t> bytes, std::size_t index = 0);

//===------------------------------------------------------------------===//
// Shape inference of one operator (tosa/shape_inference.cpp).
//===------------------------------------------------------------------===//

class Inference {
 public:
  Inference(Op op, const Attributes& attrs, std::span<const ValueInfo> in) : op_(op), attrs_(attrs), in_(in) {}

  Op op() const { return op_; }
  const ValueInfo& in(std::size_t i) const { return in_[i]; }
  std::size_t size() const { return in_.size(); }

  template <typename T>
  Result<const T*> attrs() const {
    const T* a = std::get_if<T>(&attrs_);
    if (a == nullptr) return invalidInput("{}: expected the op's attribute struct, got another kind", toString(op_));
    return a;
  }
  /// Input `index` (spec name `name`) has rank r.
  Status rank(std::size_t index, std::string_view name, std::size_t r) const;
  /// The values of shape_t input `index`; `length` values unless it is kAnyLength.
  static constexpr std::size_t kAnyLength = std::numeric_limits<std::size_t>::max();
  Result<std::vector<std::int64_t>> shapeValue(std::size_t index, std::string_view name, std::size_t length) const;
  static Status checkVec(const std::vector<std::int32_t>& v, std::size_t n, std::string_view name);
  /// One spatial output size, checking that `rule` divides exactly.
  Result<std::int64_t> spatial(std::string_view dim, std::int64_t in, std::int64_t padA, std::int64_t padB,
                               std::int64_t k, std::int64_t stride, std::int64_t dilation, std::string_view rule) const;
  /// One output.
  static Result<std::vector<OutputInfo>> same(DType dtype, Shape shape);
  /// input1 and input2 broadcast to one shape of type `out`.
  Result<std::vector<OutputInfo>> broadcast2(DType out) const;

 private:
  Op op_;
  const Attributes& attrs_;
  std::span<const ValueInfo> in_;
};

/// Output element type of the convolutions and MATMUL for an input type.
DType accumulatorOutput(DType in);

}  // namespace openvgf::tosa::ops
