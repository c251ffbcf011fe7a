// SPDX-License-Identifier: Apache-2.0
// Cnn: the layer vocabulary of the zoo's convolutional networks (conv + folded batch norm +
// activation, depthwise conv, residual add, pooling, classifier), written once and emitted
// either in fp32 or per-channel quantised int8.
//
// Weights are drawn from the net's RNG in the same order for both precisions, so
// mobilenet_v2_int8 is the quantised mobilenet_v2. Each conv's float weights are He-uniform,
// scaled like a folded batch norm: the analytic mean square of the input activation is
// tracked and the bound chosen so that every pre-activation has unit RMS. That keeps fp32
// activations far from the ReLU6 cap and gives the int8 network realistic, non-saturating
// scales (symmetric int8, zero point 0; per-output-channel weight scales; int32 bias;
// RESCALE scale32/SINGLE_ROUND with per-channel multipliers and shifts).
#pragma once

#include <cstdint>
#include <string>

#include "benchmarks/models/net.h"

namespace openvgf::benchmarks {

enum class Precision { Fp32, Int8 };
enum class Activation { None, Relu, Relu6 };

/// An activation tensor with the statistics the quantiser needs.
struct Act {
  Value value;
  double meanSquare = 1.0;  // analytic E[x^2] of the float activation
  double scale = 0.0;       // int8 quantisation scale (int8 networks only)
};

/// scale ~= multiplier * 2^-shift with multiplier in [2^30, 2^31) and shift in [2, 62].
struct QuantMultiplier {
  std::int32_t multiplier = 0;
  std::int32_t shift = 0;
};
QuantMultiplier quantizeScale(double scale);

class Cnn {
 public:
  Cnn(Net& net, Precision precision) : net_(net), precision_(precision) {}

  Precision precision() const { return precision_; }
  bool quantized() const { return precision_ == Precision::Int8; }

  /// NHWC image input in [-1, 1] (int8: scale 1/127).
  Act input(std::int64_t batch, std::int64_t height, std::int64_t width, std::int64_t channels);
  /// KxK conv with SAME padding, bias, activation.
  Act conv(const Act& x, std::int64_t outChannels, std::int64_t kernel, std::int64_t stride,
           Activation act, const std::string& hint);
  /// KxK depthwise conv (multiplier 1) with SAME padding, bias, activation.
  Act depthwise(const Act& x, std::int64_t kernel, std::int64_t stride, Activation act, const std::string& hint);
  /// a + b followed by `act`.
  Act add(const Act& a, const Act& b, Activation act);
  Act maxPool(const Act& x, std::int64_t kernel, std::int64_t stride);
  /// Average over the whole spatial extent: [N,H,W,C] -> [N,1,1,C].
  Act globalAvgPool(const Act& x);
  /// Fully connected layer as a 1x1 conv on [N,1,1,C], then reshaped to [N, classes].
  Value classifier(const Act& x, std::int64_t classes);

 private:
  Act finish(const Value& acc, const Act& x, std::span<const double> weightScales, double preMeanSquare,
             Activation act);
  Value applyActivation(const Value& v, Activation act, double scale);
  Act cropForStride(const Act& x, std::int64_t cropY, std::int64_t cropX);

  Net& net_;
  Precision precision_;
};

}  // namespace openvgf::benchmarks
