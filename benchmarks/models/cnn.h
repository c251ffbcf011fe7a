// SPDX-License-Identifier: Apache-2.0
// Cnn: the layer vocabulary of the zoo's convolutional networks (conv + folded batch norm +
// activation, depthwise conv, residual add, pooling, classifier), written once and emitted
// either in fp32 or per-channel quantised int8.
//
// Weights are drawn from the net's RNG in the same order for both precisions, so
// mobilenet_v2_int8 is the quantised mobilenet_v2. Random weights without batch norm let
// activations drift by orders of magnitude over 50 layers, so Cnn carries a float
// calibration batch (U(-1, 1) images at the model's resolution; one image at 224x224, up to
// 8 for reduced-size variants) through the network while it is built: each conv's He-uniform weights are followed by a batch norm whose statistics come
// from that batch, folded into weights and bias (pre-activations ~ N(beta, 1) per channel),
// exactly how a trained network's BN is folded before export. The int8 scales come from the
// same batch (post-training calibration: max |activation| with a 25% margin): symmetric
// int8, zero point 0; per-output-channel weight scales; int32 bias; RESCALE
// scale32/SINGLE_ROUND with per-channel multipliers and shifts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "benchmarks/models/net.h"

namespace openvgf::benchmarks {

enum class Precision { Fp32, Int8 };
enum class Activation { None, Relu, Relu6 };

/// Float NHWC activations of the calibration batch.
struct Sample {
  tosa::Shape shape;
  std::vector<float> data;
};

/// An activation tensor with its calibration values.
struct Act {
  Value value;
  Sample sample;
  double scale = 0.0;  // int8 quantisation scale (int8 networks only)
};

/// scale ~= multiplier * 2^-shift with multiplier in [2^30, 2^31) and shift in [2, 62].
struct QuantMultiplier {
  std::int32_t multiplier = 0;
  std::int32_t shift = 0;
};
QuantMultiplier quantizeScale(double scale);

class Cnn {
 public:
  /// `calibrationResolution`: height/width of the calibration images (<= the model's).
  Cnn(Net& net, Precision precision, std::int64_t calibrationResolution)
      : net_(net), precision_(precision), calibrationResolution_(calibrationResolution) {}

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
  /// Shared by conv and depthwise: folds the calibration batch norm into w (per output
  /// channel rows of `rowLength`), emits the op and its epilogue.
  Act convCommon(const Act& x, bool depthwise, std::int64_t outChannels, std::int64_t kernel, std::int64_t stride,
                 Activation act, const std::string& hint);
  Value applyActivation(const Value& v, Activation act, double scale);
  Act cropForStride(const Act& x, std::int64_t cropY, std::int64_t cropX);

  Net& net_;
  Precision precision_;
  std::int64_t calibrationResolution_;
};

}  // namespace openvgf::benchmarks
