// SPDX-License-Identifier: Apache-2.0
// Net: the model zoo's way of writing a network. It assembles the graph with tosa::Builder
// (every operand TOSA 1.0 wants: zero points, MUL shift, RESHAPE shape values, spelled out
// explicitly), draws deterministic seeded weights, and records at the same time a
// framework-neutral description (layer list with op, shapes, attributes and weight file
// names) so that benchmarks/torch_compare.py can rebuild the identical network from .npy
// files.
//
// Net computes each output shape itself (it needs them while building, e.g. for SAME padding)
// and cross-checks it with tosa::inferOutputs; a disagreement or a TOSA shape rule violation
// (CONV2D output size must divide exactly, broadcasting needs equal ranks) is a bug in a model
// definition, reported through `status()`/`graph()` so the zoo refuses to write that model.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "tosa/builder.h"
#include "tosa/graph.h"
#include "tosa/host_tensor.h"

namespace openvgf::benchmarks {

/// A tensor produced by the net: its name in the graph plus what shape inference knows.
struct Value {
  std::string name;
  tosa::Shape shape;
  tosa::DType dtype = tosa::DType::Unknown;
};

/// splitmix64: tiny, fast and identical on every platform (std distributions are not).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  /// Uniform in [-1, 1).
  float symmetric();
  /// Uniform in [lo, hi).
  float uniform(float lo, float hi);

 private:
  std::uint64_t state_;
};


/// Spatial padding [top, bottom, left, right] plus the rows/columns to drop first so that
/// the TOSA exact-division rule holds (1x1 stride-2 kernels on even inputs).
struct SamePadding {
  std::vector<std::int32_t> pad;  // [top, bottom, left, right]
  std::int64_t cropY = 0;
  std::int64_t cropX = 0;
};
/// TensorFlow-style SAME padding for a KHxKW kernel with stride (sy, sx): output = ceil(in/s).
SamePadding samePadding(std::int64_t ih, std::int64_t iw, std::int64_t kh, std::int64_t kw,
                        std::int64_t sy, std::int64_t sx);

class Net {
 public:
  Net(std::string name, std::uint64_t seed);

  const std::string& name() const { return name_; }
  Rng& rng() { return rng_; }

  // Graph inputs and outputs, in order.
  Value input(const std::string& name, tosa::Shape shape, tosa::DType dtype);
  void output(const Value& value);

  /// A weight constant: written to the .tosa as CONST and to weights/<file>.npy.
  Value weight(const std::string& hint, tosa::HostTensor tensor);
  /// Float weights with uniform He scaling: U(-a, a), a = gain * sqrt(3 / fanIn).
  Value heWeight(const std::string& hint, tosa::Shape shape, std::int64_t fanIn, float gain,
                 tosa::DType dtype);
  /// Float vector U(lo, hi) of shape `shape`, stored as `dtype`.
  Value uniformWeight(const std::string& hint, tosa::Shape shape, float lo, float hi, tosa::DType dtype);
  /// A small constant that is an operand rather than a learned weight (zero point, shift,
  /// scale factor): written as CONST, described inline in the JSON.
  Value scalarConst(const std::string& hint, tosa::HostTensor tensor);
  /// A float scalar shaped [1]*rank (fp32 or fp16) for broadcasting.
  Value floatScalar(const std::string& hint, float value, std::size_t rank, tosa::DType dtype);
  /// A zero point tensor [1] of `dtype` with value `zp`.
  Value zeroPoint(tosa::DType dtype, std::int64_t zp = 0);

  // Operators. `acc` is the accumulator type (CONV2D acc_type); zero points as in TOSA 1.0.
  Value conv2d(const Value& x, const Value& w, const Value& bias, std::vector<std::int32_t> pad,
               std::vector<std::int32_t> stride, tosa::DType acc, std::int64_t inZp = 0,
               std::int64_t wZp = 0);
  Value depthwiseConv2d(const Value& x, const Value& w, const Value& bias, std::vector<std::int32_t> pad,
                        std::vector<std::int32_t> stride, tosa::DType acc, std::int64_t inZp = 0,
                        std::int64_t wZp = 0);
  Value matmul(const Value& a, const Value& b, std::int64_t aZp = 0, std::int64_t bZp = 0);
  Value avgPool2d(const Value& x, std::vector<std::int32_t> kernel, std::vector<std::int32_t> stride,
                  std::vector<std::int32_t> pad, tosa::DType acc, std::int64_t inZp = 0,
                  std::int64_t outZp = 0);
  Value maxPool2d(const Value& x, std::vector<std::int32_t> kernel, std::vector<std::int32_t> stride,
                  std::vector<std::int32_t> pad);
  /// CLAMP with bounds given as doubles and stored in x's type.
  Value clamp(const Value& x, double lo, double hi);
  Value add(const Value& a, const Value& b);
  Value sub(const Value& a, const Value& b);
  Value mul(const Value& a, const Value& b);
  Value maximum(const Value& a, const Value& b);
  Value unary(tosa::Op op, const Value& x);  // EXP, RECIPROCAL, RSQRT, TANH, ERF, SIGMOID
  Value reduce(tosa::Op op, const Value& x, std::int32_t axis);  // REDUCE_SUM / REDUCE_MAX
  Value reshape(const Value& x, tosa::Shape shape);
  Value transpose(const Value& x, std::vector<std::int32_t> perms);
  Value slice(const Value& x, tosa::Shape start, tosa::Shape size);
  Value cast(const Value& x, tosa::DType to);
  /// RESCALE (scale32, SINGLE_ROUND). multipliers/shifts: one entry, or one per channel.
  Value rescale(const Value& x, tosa::DType to, std::span<const std::int32_t> multipliers,
                std::span<const std::int32_t> shifts, std::int64_t inZp = 0, std::int64_t outZp = 0);

  /// The first shape/type error met while building, if any.
  const Status& status() const { return status_; }

  /// The graph (or the first error of the net or of tosa::Builder).
  Result<tosa::Graph> graph() const;
  /// {"name", "seed", "inputs", "outputs", "tensors", "layers", "weights"}; weight entries
  /// name files relative to the model folder (weights/<name>.npy).
  nlohmann::json description() const;
  /// Weight tensors by graph tensor name (what goes to weights/*.npy).
  const std::map<std::string, tosa::HostTensor>& weights() const { return weights_; }
  /// Number of parameters (weight elements) and multiply-accumulates of the graph.
  std::int64_t parameterCount() const;
  std::int64_t macCount() const { return macs_; }

 private:
  std::string freshName(const std::string& hint);
  Value addConst(const std::string& name, const tosa::HostTensor& tensor);
  Value constShape(const tosa::Shape& values);
  Value emit(tosa::Op op, tosa::Attributes attrs, std::vector<Value> inputs, tosa::Shape outShape,
             tosa::DType outType, nlohmann::json attrJson);
  Value elementwise(tosa::Op op, const Value& a, const Value& b, tosa::Attributes attrs);
  Value convLike(tosa::Op op, const Value& x, const Value& w, const Value& bias,
                 std::vector<std::int32_t> pad, std::vector<std::int32_t> stride, tosa::DType acc,
                 std::int64_t inZp, std::int64_t wZp);
  void fail(std::string message);

  std::string name_;
  Rng rng_;
  tosa::Builder builder_;
  std::vector<Value> inputs_;
  std::vector<Value> outputs_;
  std::map<std::string, std::vector<std::int64_t>> shapeValues_;  // CONST_SHAPE contents by name
  std::map<std::string, int> nameCounts_;
  std::map<std::string, tosa::HostTensor> weights_;
  nlohmann::json layers_ = nlohmann::json::array();
  nlohmann::json tensors_ = nlohmann::json::object();
  std::int64_t macs_ = 0;
  Status status_;
};

}  // namespace openvgf::benchmarks
