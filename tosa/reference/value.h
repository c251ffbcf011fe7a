// SPDX-License-Identifier: Apache-2.0
// Internal working representation of the reference interpreter and the evaluation context
// handed to every operator family. Integer, boolean and shape tensors hold sign-extended
// int64 values; floating-point tensors hold doubles. In normal mode each float value is
// already rounded to its tensor's type (so an FP16 tensor holds only FP16 values); in
// precise mode float values stay unrounded fp64 through the whole graph.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "tosa/float_types.h"
#include "tosa/graph.h"
#include "tosa/host_tensor.h"
#include "tosa/reference/reference.h"

namespace openvgf::tosa::reference {

/// Largest tensor the interpreter materialises (elements), 2 GiB of doubles.
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 28;

struct Value {
  DType dtype = DType::Unknown;
  Shape shape;
  std::vector<std::int64_t> ints;  // BOOL (0/1), INT4..INT48, SHAPE
  std::vector<double> floats;      // FP32, FP16, BF16, FP8*

  Value() = default;
  Value(DType type, Shape dims);

  bool isFloat() const { return tosa::isFloat(dtype); }
  std::int64_t size() const { return elementCount(shape); }
  std::int64_t intAt(std::int64_t i) const { return ints[static_cast<std::size_t>(i)]; }
  double floatAt(std::int64_t i) const { return floats[static_cast<std::size_t>(i)]; }
};

/// HostTensor -> Value (decodes FP16/BF16/FP8 bit patterns, sign-extends integers).
Value fromHost(const HostTensor& tensor);
/// Value -> HostTensor, rounding float values to the tensor's type and wrapping integers
/// to its bit width.
HostTensor toHost(const Value& value);

/// Smallest and largest value of a signed integer type (INT4: -7..7 per §3.2 for data,
/// but the storage range -8..7 is used for wrapping), BOOL 0..1.
std::int64_t minOf(DType type);
std::int64_t maxOf(DType type);
/// Wraps v to the bit width of an integer type (two's complement, sign-extended).
std::int64_t wrapTo(std::int64_t v, DType type);
/// Saturates v to the range of an integer type.
std::int64_t clipTo(std::int64_t v, DType type);

/// Strides of a row-major shape.
std::vector<std::int64_t> stridesOf(const Shape& shape);

/// What an operator family sees while it runs: the operator, its declared outputs, the
/// mode, and the channels for REQUIRE diagnostics and ERROR_IF errors.
class Context {
 public:
  Context(const Operator& op, std::size_t index, std::string block, bool precise,
          std::vector<Diagnostic>& diagnostics, bool strict)
      : op_(op), index_(index), block_(std::move(block)), precise_(precise),
        diagnostics_(diagnostics), strict_(strict) {}

  const Operator& op() const { return op_; }
  std::size_t index() const { return index_; }
  bool precise() const { return precise_; }

  /// Bounds mode (precise mode only): dot-product ops evaluate on absolute values for the
  /// compliance check (§3.4); padded taps then contribute `boundsPadValue`.
  bool bounds = false;

  /// Declared type and shape of output i (from the block's tensor list).
  std::vector<DType> outTypes;
  std::vector<Shape> outShapes;
  std::vector<bool> outShapeKnown;
  DType outType(std::size_t i = 0) const { return outTypes.at(i); }

  /// Checks a computed output shape before anything is allocated: it must equal the declared
  /// shape (when known) and stay within kMaxElements (an Unsupported error otherwise), so
  /// hostile attributes cannot make the interpreter allocate without bound.
  Result<void> checkOutputShape(std::size_t k, const Shape& shape) const;

  /// Rounds v to `type` in normal mode; keeps it in precise mode.
  double round(double v, DType type) const { return precise_ ? v : roundToFloatType(v, type); }

  /// Records a REQUIRE failure (unpredictable result). Only the first few per operator are kept.
  template <typename... Args>
  void require(bool condition, fmt::format_string<Args...> format, Args&&... args) {
    if (!condition) addDiagnostic(fmt::format(format, std::forward<Args>(args)...));
  }
  void addDiagnostic(std::string message);
  /// True after a REQUIRE failure in strict mode: the executor turns it into an error.
  bool strictFailure() const { return strictFailure_; }

  /// An ERROR_IF violation naming the operator.
  template <typename... Args>
  Unexpected error(fmt::format_string<Args...> format, Args&&... args) const {
    return invalidInput("{}: {}", where(), fmt::format(format, std::forward<Args>(args)...));
  }
  template <typename... Args>
  Unexpected notSupported(fmt::format_string<Args...> format, Args&&... args) const {
    return unsupported("{}: {}", where(), fmt::format(format, std::forward<Args>(args)...));
  }
  /// "block main: operator 3 (CONV2D)"
  std::string where() const;

 private:
  const Operator& op_;
  std::size_t index_;
  std::string block_;
  bool precise_;
  std::vector<Diagnostic>& diagnostics_;
  bool strict_;
  bool strictFailure_ = false;
  int reported_ = 0;
};

using Inputs = std::span<const Value* const>;
using Outputs = std::vector<Value>;

//===------------------------------------------------------------------===//
// Operator families: one kernel per name in the Reference column of tosa/ops.def (the table
// says which operators each runs). Each returns the op's outputs (in order) or an ERROR_IF
// error. Input counts are checked by the executor before the call. evalNone (executor.cpp)
// reports an operator without a kernel.
//===------------------------------------------------------------------===//

#define OVGF_OP(Name, Number, Spelling, Category, RulesName, Reference, ...) \
  Result<Outputs> eval##Reference(Context& ctx, Inputs in);
#include "tosa/ops.def"
#undef OVGF_OP

//===------------------------------------------------------------------===//
// Shared helpers.
//===------------------------------------------------------------------===//

/// Reads a single-element zero-point / scalar tensor as int64 (float zero points give 0
/// after the ERROR_IF "must be zero" check done by the caller through `zpIsZero`).
std::int64_t scalarInt(const Value& v);
double scalarFloat(const Value& v);
bool isZeroScalar(const Value& v);

/// The values of a shape_t input.
std::vector<std::int64_t> shapeValues(const Value& v);

/// NaN-aware maximum / minimum of §2.3 (PROPAGATE: NaN wins; IGNORE: the other operand).
double applyMax(double a, double b, NanMode mode);
double applyMin(double a, double b, NanMode mode);

template <typename T>
const T* attrsAs(const Operator& op) {
  return std::get_if<T>(&op.attrs);
}

}  // namespace openvgf::tosa::reference
