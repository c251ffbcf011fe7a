// SPDX-License-Identifier: Apache-2.0
// A builder that lets C++ code construct any TOSA 1.0 graph and write it as .tosa.
//
//   Builder b;
//   Value x = b.input("x", DType::Fp32, {1, 224, 224, 3});
//   Value w = b.constant(weights);                       // HostTensor [OC, KH, KW, IC]
//   Value y = b.conv2d(x, w, std::nullopt, {.pad = {1, 1, 1, 1}, .stride = {2, 2}});
//   b.output(b.clamp(y, 0.0, 6.0));
//   Result<Graph> g = b.build();                         // or b.write("m.tosa")
//
// Every typed helper infers its output shape and type with tosa/shape_inference.h, names the
// output automatically ("conv2d_3") unless a name is given, and creates the compile-time
// constant inputs the spec requires (zero points, MUL shift, RESCALE multiplier/shift, PAD
// pad_const, shape operands as CONST_SHAPE) from plain values. A bias left out becomes zeros.
//
// Errors are sticky: the first failing call (bad shapes, duplicate names, ...) is recorded,
// later calls do nothing and return an empty Value, and build()/write() return that error, so
// long chains need no per-call checks. Shape values are written to TosaBasicBlock.shapes
// (the 1.0 serializer's encoding); the operator attribute tag is the op's number.
//
// Variables follow the files TOSA tools write: variable(...) declares a tensor with
// `variable = true` and its initial value; variableRead/variableWrite are IDENTITY operators
// from/to that tensor carrying the VariableRead/VariableWrite attribute tags.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"
#include "tosa/shape_inference.h"

namespace openvgf::tosa {

/// A tensor of the graph being built: its name plus type and shape, for chaining.
struct Value {
  std::string name{};
  DType dtype = DType::Unknown;
  Shape shape{};
  bool operator==(const Value&) const = default;
};

/// An output declared explicitly (generic addOperator, CUSTOM, CAST-like choices).
struct TensorSpec {
  DType dtype = DType::Unknown;
  Shape shape{};
  std::string name{};  // empty = automatic
};

/// CONV2D / CONV3D / DEPTHWISE_CONV2D. Empty vectors take the neutral value (zero padding,
/// stride 1, dilation 1) with the op's length (4/2/2 for 2D, 6/3/3 for 3D).
struct ConvParams {
  std::vector<std::int32_t> pad{};
  std::vector<std::int32_t> stride{};
  std::vector<std::int32_t> dilation{};
  /// Default: INT32 for int8, INT48 for int16, FP16 for fp8 inputs, FP32 otherwise.
  std::optional<DType> accType{};
  bool localBound = false;
  std::int64_t inputZp = 0;
  std::int64_t weightZp = 0;
  std::string name{};
};

struct TransposeConvParams {
  std::vector<std::int32_t> outPad{};  // [top, bottom, left, right], default zeros
  std::vector<std::int32_t> stride{};  // default [1, 1]
  std::optional<DType> accType{};
  bool localBound = false;
  std::int64_t inputZp = 0;
  std::int64_t weightZp = 0;
  std::string name{};
};

struct AvgPoolParams {
  std::vector<std::int32_t> kernel{};  // [ky, kx], required
  std::vector<std::int32_t> stride{};  // default = kernel
  std::vector<std::int32_t> pad{};     // default zeros
  /// Default: INT32 for integer inputs, FP16 for fp8, FP32 otherwise.
  std::optional<DType> accType{};
  std::int64_t inputZp = 0;
  std::int64_t outputZp = 0;
  std::string name{};
};

struct MaxPoolParams {
  std::vector<std::int32_t> kernel{};
  std::vector<std::int32_t> stride{};  // default = kernel
  std::vector<std::int32_t> pad{};
  NanMode nanMode = NanMode::Propagate;
  std::string name{};
};

struct MatMulParams {
  std::int64_t aZp = 0;
  std::int64_t bZp = 0;
  /// Only f16 inputs have a choice (FP16 or FP32 output); default per shape_inference.
  std::optional<DType> outType{};
  std::string name{};
};

struct RescaleParams {
  DType outType = DType::Int8;
  std::vector<std::int32_t> multiplier{};  // one value, or one per channel (last dim)
  std::vector<std::int32_t> shift{};       // same count as multiplier; 2..62
  std::int64_t inputZp = 0;
  std::int64_t outputZp = 0;
  bool scale32 = true;
  RoundingMode roundingMode = RoundingMode::SingleRound;
  /// Default: true when more than one multiplier is given.
  std::optional<bool> perChannel{};
  bool inputUnsigned = false;
  bool outputUnsigned = false;
  std::string name{};
};

class Builder {
 public:
  using BranchFn = std::function<std::vector<Value>(Builder&, const std::vector<Value>& blockInputs)>;
  using CondFn = std::function<Value(Builder&, const std::vector<Value>& blockInputs)>;

  /// Starts a graph with region "main" holding block "main". Version 1.0.0 final by default.
  explicit Builder(Version version = Version{1, 0, 0, false});

  //===--- graph inputs, outputs and constants ----------------------------------===//

  /// Declares an input of the current block (the main graph unless inside a branch).
  Value input(std::string name, DType dtype, Shape shape);
  /// Appends `value` to the current block's outputs.
  void output(const Value& value);

  /// CONST with a host-layout payload.
  Value constant(const HostTensor& value, std::string name = {});
  /// CONST from plain values converted to `dtype` (integers range-checked, floats rounded to
  /// nearest even for FP16/BF16/FP8). values.size() must equal the shape's element count.
  template <typename T>
  requires std::is_arithmetic_v<T> Value constant(DType dtype, Shape shape, const std::vector<T>& values,
                                                  std::string name = {}) {
    if constexpr (std::is_floating_point_v<T>) {
      return constantFromDoubles(dtype, std::move(shape), std::vector<double>(values.begin(), values.end()),
                                 std::move(name));
    } else {
      return constantFromInts(dtype, std::move(shape),
                              std::vector<std::int64_t>(values.begin(), values.end()), std::move(name));
    }
  }
  /// A [1]-shaped (or `shape`-shaped, filled) constant of one value.
  Value splat(DType dtype, Shape shape, double value, std::string name = {});
  /// CONST_SHAPE: a shape_t value with the given contents.
  Value constShape(std::vector<std::int64_t> values, std::string name = {});

  //===--- generic --------------------------------------------------------------===//

  /// Adds any operator with explicitly declared outputs.
  std::vector<Value> addOperator(Op op, const std::vector<Value>& inputs, Attributes attrs,
                                 const std::vector<TensorSpec>& outputs);
  /// Adds an operator whose outputs are inferred (tosa::inferOutputs).
  std::vector<Value> addOperator(Op op, const std::vector<Value>& inputs, Attributes attrs);

  //===--- tensor operators -------------------------------------------------------===//

  Value argmax(const Value& x, std::int32_t axis, NanMode nanMode = NanMode::Propagate,
               std::string name = {});
  Value avgPool2d(const Value& x, const AvgPoolParams& params);
  Value maxPool2d(const Value& x, const MaxPoolParams& params);
  Value conv2d(const Value& x, const Value& weight, const std::optional<Value>& bias,
               const ConvParams& params = {});
  Value conv3d(const Value& x, const Value& weight, const std::optional<Value>& bias,
               const ConvParams& params = {});
  Value depthwiseConv2d(const Value& x, const Value& weight, const std::optional<Value>& bias,
                        const ConvParams& params = {});
  Value transposeConv2d(const Value& x, const Value& weight, const std::optional<Value>& bias,
                        const TransposeConvParams& params = {});
  /// Returns {output_real, output_imag}.
  std::pair<Value, Value> fft2d(const Value& real, const Value& imag, bool inverse, bool localBound = false);
  std::pair<Value, Value> rfft2d(const Value& real, bool localBound = false);
  Value matmul(const Value& a, const Value& b, const MatMulParams& params = {});

  //===--- activation and elementwise -------------------------------------------===//

  /// Bounds are converted to the input's type.
  Value clamp(const Value& x, double minVal, double maxVal, NanMode nanMode = NanMode::Propagate,
              std::string name = {});
  Value erf(const Value& x, std::string name = {});
  Value sigmoid(const Value& x, std::string name = {});
  Value tanh(const Value& x, std::string name = {});

  Value add(const Value& a, const Value& b, std::string name = {});
  Value sub(const Value& a, const Value& b, std::string name = {});
  Value arithmeticRightShift(const Value& a, const Value& b, bool round, std::string name = {});
  Value bitwiseAnd(const Value& a, const Value& b, std::string name = {});
  Value bitwiseOr(const Value& a, const Value& b, std::string name = {});
  Value bitwiseXor(const Value& a, const Value& b, std::string name = {});
  Value intDiv(const Value& a, const Value& b, std::string name = {});
  Value logicalAnd(const Value& a, const Value& b, std::string name = {});
  Value logicalLeftShift(const Value& a, const Value& b, std::string name = {});
  Value logicalRightShift(const Value& a, const Value& b, std::string name = {});
  Value logicalOr(const Value& a, const Value& b, std::string name = {});
  Value logicalXor(const Value& a, const Value& b, std::string name = {});
  Value maximum(const Value& a, const Value& b, NanMode nanMode = NanMode::Propagate, std::string name = {});
  Value minimum(const Value& a, const Value& b, NanMode nanMode = NanMode::Propagate, std::string name = {});
  /// `shift` is only allowed for INT32 inputs (the spec's MUL shift operand, an i8 CONST).
  Value mul(const Value& a, const Value& b, std::int32_t shift = 0, std::string name = {});
  Value pow(const Value& a, const Value& b, std::string name = {});
  /// TABLE with an explicit table tensor (INT8 [256] or INT16 [513]).
  Value table(const Value& x, const Value& tableValues, std::string name = {});
  /// TABLE from values: 256 entries for INT8 input, 513 for INT16.
  Value table(const Value& x, const std::vector<std::int32_t>& entries, std::string name = {});

  Value abs(const Value& x, std::string name = {});
  Value bitwiseNot(const Value& x, std::string name = {});
  Value ceil(const Value& x, std::string name = {});
  Value clz(const Value& x, std::string name = {});
  Value cos(const Value& x, std::string name = {});
  Value exp(const Value& x, std::string name = {});
  Value floor(const Value& x, std::string name = {});
  Value log(const Value& x, std::string name = {});
  Value logicalNot(const Value& x, std::string name = {});
  Value negate(const Value& x, std::int64_t inputZp = 0, std::int64_t outputZp = 0, std::string name = {});
  Value reciprocal(const Value& x, std::string name = {});
  Value rsqrt(const Value& x, std::string name = {});
  Value sin(const Value& x, std::string name = {});

  Value select(const Value& condition, const Value& a, const Value& b, std::string name = {});
  Value equal(const Value& a, const Value& b, std::string name = {});
  Value greater(const Value& a, const Value& b, std::string name = {});
  Value greaterEqual(const Value& a, const Value& b, std::string name = {});

  //===--- reductions -------------------------------------------------------------===//

  Value reduceAll(const Value& x, std::int32_t axis, std::string name = {});
  Value reduceAny(const Value& x, std::int32_t axis, std::string name = {});
  Value reduceMax(const Value& x, std::int32_t axis, NanMode nanMode = NanMode::Propagate,
                  std::string name = {});
  Value reduceMin(const Value& x, std::int32_t axis, NanMode nanMode = NanMode::Propagate,
                  std::string name = {});
  Value reduceProduct(const Value& x, std::int32_t axis, std::string name = {});
  Value reduceSum(const Value& x, std::int32_t axis, std::string name = {});

  //===--- data layout, gather/scatter, image, conversion -----------------------===//

  Value concat(const std::vector<Value>& inputs, std::int32_t axis, std::string name = {});
  /// padding = [before0, after0, before1, after1, ...]; pad_const converted to x's type.
  Value pad(const Value& x, const std::vector<std::int64_t>& padding, double padConst = 0.0,
            std::string name = {});
  Value reshape(const Value& x, const Shape& newShape, std::string name = {});
  Value reverse(const Value& x, std::int32_t axis, std::string name = {});
  Value slice(const Value& x, const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& size,
              std::string name = {});
  Value tile(const Value& x, const std::vector<std::int64_t>& multiples, std::string name = {});
  Value transpose(const Value& x, const std::vector<std::int32_t>& perms, std::string name = {});
  Value gather(const Value& values, const Value& indices, std::string name = {});
  Value scatter(const Value& valuesIn, const Value& indices, const Value& input, std::string name = {});
  /// scale = [y_n, y_d, x_n, x_d], offset = [y, x], border = [y, x].
  Value resize(const Value& x, const std::vector<std::int64_t>& scale,
               const std::vector<std::int64_t>& offset, const std::vector<std::int64_t>& border,
               ResizeMode mode, std::string name = {});
  Value cast(const Value& x, DType outType, std::string name = {});
  Value rescale(const Value& x, const RescaleParams& params);
  Value identity(const Value& x, std::string name = {});
  std::vector<Value> custom(const std::vector<Value>& inputs, CustomAttrs attrs,
                            const std::vector<TensorSpec>& outputs);

  //===--- control flow (EXT-CONTROLFLOW) and variables (EXT-VARIABLE) ----------===//

  /// COND_IF: each branch becomes a region whose block takes values shaped like `inputs`;
  /// branch bodies may also use the enclosing block's values by name. Outputs are typed like
  /// the then-branch outputs.
  std::vector<Value> condIf(const Value& condition, const std::vector<Value>& inputs,
                            const BranchFn& thenBranch, const BranchFn& elseBranch);
  /// WHILE_LOOP: `cond` returns a BOOL [] or [1] value; `body` returns values typed like inputs.
  std::vector<Value> whileLoop(const std::vector<Value>& inputs, const CondFn& cond, const BranchFn& body);

  Value variable(std::string name, const HostTensor& initialValue);
  Value variableRead(const Value& variable, std::string name = {});
  void variableWrite(const Value& variable, const Value& value);

  //===--- result -----------------------------------------------------------------===//

  /// The first error recorded, if any.
  const std::optional<Error>& error() const { return error_; }
  /// The graph built so far (a copy), or the first error.
  Result<Graph> build() const&;
  /// Moves the graph out (no copy of large constants): `std::move(builder).build()`.
  Result<Graph> build() &&;
  /// build() + writeGraph().
  Result<std::vector<std::uint8_t>> serialize() const;
  Status write(const std::filesystem::path& path) const;

  /// A fresh name not used anywhere in the graph, from `stem` ("conv2d" -> "conv2d_4").
  std::string uniqueName(std::string_view stem);

 private:
  Value constantFromDoubles(DType dtype, Shape shape, const std::vector<double>& values, std::string name);
  Value constantFromInts(DType dtype, Shape shape, const std::vector<std::int64_t>& values, std::string name);
  Value zeroPoint(DType dtype, std::int64_t value, std::string_view what);
  Value unary(Op op, const Value& x, std::string name);
  Value binary(Op op, const Value& a, const Value& b, Attributes attrs, std::string name);
  Value single(Op op, const std::vector<Value>& inputs, Attributes attrs, std::string name);
  /// Output types and shapes of `op` (tosa::inferOutputs, with the shape values this builder made).
  Result<std::vector<OutputInfo>> infer(Op op, const Attributes& attrs, const std::vector<Value>& inputs) const;
  Value convLike(Op op, const Value& x, const Value& weight, const std::optional<Value>& bias,
                 Attributes attrs, std::int64_t inputZp, std::int64_t weightZp, const std::string& name);
  Tensor* declare(std::string name, DType dtype, Shape shape);
  Block& current();
  bool failed() const { return error_.has_value(); }
  void fail(Error error);
  std::vector<Value> runBranch(const std::string& regionName, const std::vector<Value>& inputs,
                               const BranchFn& fn);

  Graph graph_;
  std::vector<std::pair<std::size_t, std::size_t>> blockStack_;  // (region, block) being built
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, std::vector<std::int64_t>> shapeValues_;
  std::uint64_t nextId_ = 0;
  std::optional<Error> error_;
};

/// Converts a double to the host bit pattern of a float type (FP16, BF16, FP8E4M3, FP8E5M2:
/// round to nearest even; overflow gives inf, or NaN for FP8E4M3 which has no inf).
std::uint16_t floatToBits(DType type, double value);

}  // namespace openvgf::tosa
