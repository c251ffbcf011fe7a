// SPDX-License-Identifier: Apache-2.0
// Cnn implementation: float weights drawn once, then emitted as fp32 or quantised per channel.
#include "benchmarks/models/cnn.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

namespace openvgf::benchmarks {

using tosa::DType;
using tosa::HostTensor;

namespace {

// Activations are quantised to cover +-kRangeSigmas RMS: 4 sigma clips well under 0.01% of a
// Gaussian-like activation, which is what calibrated int8 networks typically end up with.
constexpr double kRangeSigmas = 4.0;
// Residual adds are carried out in int32 at a scale 2^10 finer than the coarser operand, so
// the two rescaled operands lose nothing (TOSA ADD has no int8 form).
constexpr double kAddHeadroom = 1024.0;
constexpr float kBiasBound = 0.1f;

double meanSquareAfter(Activation act, double preMeanSquare) {
  // ReLU of a zero-mean symmetric pre-activation keeps half of its second moment; the ReLU6
  // cap is far above a unit-RMS pre-activation and is ignored here.
  return act == Activation::None ? preMeanSquare : preMeanSquare / 2.0;
}

double outputScale(Activation act, double preMeanSquare) {
  double range = kRangeSigmas * std::sqrt(preMeanSquare);
  if (act == Activation::Relu6) range = std::min(range, 6.0);
  return range / 127.0;
}

HostTensor floatTensor(const std::vector<float>& values, tosa::Shape shape) {
  HostTensor t(DType::Fp32, std::move(shape));
  std::copy(values.begin(), values.end(), t.as<float>().begin());
  return t;
}

}  // namespace

QuantMultiplier quantizeScale(double scale) {
  QuantMultiplier q;
  if (!(scale > 0.0)) return q;
  int exponent = 0;
  double mantissa = std::frexp(scale, &exponent);  // scale = mantissa * 2^exponent, mantissa in [0.5, 1)
  auto multiplier = static_cast<std::int64_t>(std::llround(mantissa * 2147483648.0));
  if (multiplier == (std::int64_t{1} << 31)) {
    multiplier /= 2;
    ++exponent;
  }
  std::int32_t shift = 31 - exponent;
  if (shift > 62) {
    // Below 2^-31 the multiplier loses bits; TOSA allows nothing beyond shift 62.
    multiplier = std::llround(std::ldexp(scale, 62));
    shift = 62;
  }
  q.multiplier = static_cast<std::int32_t>(multiplier);
  q.shift = std::max(shift, 2);
  return q;
}

Act Cnn::input(std::int64_t batch, std::int64_t height, std::int64_t width, std::int64_t channels) {
  Act a;
  a.value = net_.input("input", {batch, height, width, channels}, quantized() ? DType::Int8 : DType::Fp32);
  a.meanSquare = 1.0 / 3.0;  // U(-1, 1)
  a.scale = quantized() ? 1.0 / 127.0 : 0.0;
  return a;
}

Act Cnn::cropForStride(const Act& x, std::int64_t cropY, std::int64_t cropX) {
  if (cropY == 0 && cropX == 0) return x;
  const tosa::Shape& s = x.value.shape;
  Act out = x;
  out.value = net_.slice(x.value, {0, 0, 0, 0}, {s[0], s[1] - cropY, s[2] - cropX, s[3]});
  return out;
}

Value Cnn::applyActivation(const Value& v, Activation act, double scale) {
  if (act == Activation::None) return v;
  if (!quantized()) return net_.clamp(v, 0.0, act == Activation::Relu6 ? 6.0 : FLT_MAX);
  double hi = act == Activation::Relu6 ? std::min(127.0, std::round(6.0 / scale)) : 127.0;
  return net_.clamp(v, 0.0, hi);
}

Act Cnn::finish(const Value& acc, const Act& x, std::span<const double> weightScales, double preMeanSquare,
                Activation act) {
  Act out;
  out.meanSquare = meanSquareAfter(act, preMeanSquare);
  if (!quantized()) {
    out.value = applyActivation(acc, act, 0.0);
    return out;
  }
  out.scale = outputScale(act, preMeanSquare);
  std::vector<std::int32_t> multipliers;
  std::vector<std::int32_t> shifts;
  for (double ws : weightScales) {
    QuantMultiplier q = quantizeScale(x.scale * ws / out.scale);
    multipliers.push_back(q.multiplier);
    shifts.push_back(q.shift);
  }
  Value requantized = net_.rescale(acc, DType::Int8, multipliers, shifts);
  out.value = applyActivation(requantized, act, out.scale);
  return out;
}

Act Cnn::conv(const Act& x, std::int64_t outChannels, std::int64_t kernel, std::int64_t stride, Activation act,
              const std::string& hint) {
  SamePadding same = samePadding(x.value.shape[1], x.value.shape[2], kernel, kernel, stride, stride);
  Act in = cropForStride(x, same.cropY, same.cropX);
  std::int64_t ic = in.value.shape[3];
  std::int64_t fanIn = kernel * kernel * ic;
  auto bound = static_cast<float>(std::sqrt(3.0 / (static_cast<double>(fanIn) * x.meanSquare)));
  std::vector<float> w(static_cast<std::size_t>(outChannels * fanIn));
  for (float& v : w) v = bound * net_.rng().symmetric();
  std::vector<float> b(static_cast<std::size_t>(outChannels));
  for (float& v : b) v = net_.rng().uniform(-kBiasBound, kBiasBound);
  double preMeanSquare = 1.0 + kBiasBound * kBiasBound / 3.0;
  tosa::Shape wShape = {outChannels, kernel, kernel, ic};
  std::vector<std::int32_t> strides = {static_cast<std::int32_t>(stride), static_cast<std::int32_t>(stride)};

  if (!quantized()) {
    Value wv = net_.weight(hint + "_w", floatTensor(w, wShape));
    Value bv = net_.weight(hint + "_b", floatTensor(b, {outChannels}));
    Value acc = net_.conv2d(in.value, wv, bv, same.pad, strides, DType::Fp32);
    return finish(acc, in, {}, preMeanSquare, act);
  }
  HostTensor wq(DType::Int8, wShape);
  HostTensor bq(DType::Int32, {outChannels});
  std::vector<double> scales(static_cast<std::size_t>(outChannels));
  for (std::int64_t o = 0; o < outChannels; ++o) {
    const float* row = w.data() + o * fanIn;
    float maxAbs = 0.0f;
    for (std::int64_t i = 0; i < fanIn; ++i) maxAbs = std::max(maxAbs, std::fabs(row[i]));
    double s = std::max(static_cast<double>(maxAbs), 1e-12) / 127.0;
    scales[static_cast<std::size_t>(o)] = s;
    for (std::int64_t i = 0; i < fanIn; ++i) {
      wq.as<std::int8_t>()[o * fanIn + i] =
          static_cast<std::int8_t>(std::clamp(std::lround(row[i] / s), -127l, 127l));
    }
    bq.as<std::int32_t>()[o] = static_cast<std::int32_t>(std::lround(b[static_cast<std::size_t>(o)] / (x.scale * s)));
  }
  Value wv = net_.weight(hint + "_w", std::move(wq));
  Value bv = net_.weight(hint + "_b", std::move(bq));
  Value acc = net_.conv2d(in.value, wv, bv, same.pad, strides, DType::Int32);
  return finish(acc, in, scales, preMeanSquare, act);
}

Act Cnn::depthwise(const Act& x, std::int64_t kernel, std::int64_t stride, Activation act, const std::string& hint) {
  SamePadding same = samePadding(x.value.shape[1], x.value.shape[2], kernel, kernel, stride, stride);
  Act in = cropForStride(x, same.cropY, same.cropX);
  std::int64_t channels = in.value.shape[3];
  std::int64_t taps = kernel * kernel;
  auto bound = static_cast<float>(std::sqrt(3.0 / (static_cast<double>(taps) * x.meanSquare)));
  // Drawn channel-major ([C][KH*KW]) so each channel's taps are contiguous, stored HWCM.
  std::vector<float> w(static_cast<std::size_t>(channels * taps));
  for (float& v : w) v = bound * net_.rng().symmetric();
  std::vector<float> b(static_cast<std::size_t>(channels));
  for (float& v : b) v = net_.rng().uniform(-kBiasBound, kBiasBound);
  double preMeanSquare = 1.0 + kBiasBound * kBiasBound / 3.0;
  tosa::Shape wShape = {kernel, kernel, channels, 1};
  std::vector<std::int32_t> strides = {static_cast<std::int32_t>(stride), static_cast<std::int32_t>(stride)};
  auto hwcm = [&](std::int64_t c, std::int64_t t) { return t * channels + c; };

  if (!quantized()) {
    HostTensor wf(DType::Fp32, wShape);
    for (std::int64_t c = 0; c < channels; ++c) {
      for (std::int64_t t = 0; t < taps; ++t) wf.as<float>()[hwcm(c, t)] = w[static_cast<std::size_t>(c * taps + t)];
    }
    Value wv = net_.weight(hint + "_w", std::move(wf));
    Value bv = net_.weight(hint + "_b", floatTensor(b, {channels}));
    Value acc = net_.depthwiseConv2d(in.value, wv, bv, same.pad, strides, DType::Fp32);
    return finish(acc, in, {}, preMeanSquare, act);
  }
  HostTensor wq(DType::Int8, wShape);
  HostTensor bq(DType::Int32, {channels});
  std::vector<double> scales(static_cast<std::size_t>(channels));
  for (std::int64_t c = 0; c < channels; ++c) {
    const float* row = w.data() + c * taps;
    float maxAbs = 0.0f;
    for (std::int64_t t = 0; t < taps; ++t) maxAbs = std::max(maxAbs, std::fabs(row[t]));
    double s = std::max(static_cast<double>(maxAbs), 1e-12) / 127.0;
    scales[static_cast<std::size_t>(c)] = s;
    for (std::int64_t t = 0; t < taps; ++t) {
      wq.as<std::int8_t>()[hwcm(c, t)] = static_cast<std::int8_t>(std::clamp(std::lround(row[t] / s), -127l, 127l));
    }
    bq.as<std::int32_t>()[c] = static_cast<std::int32_t>(std::lround(b[static_cast<std::size_t>(c)] / (x.scale * s)));
  }
  Value wv = net_.weight(hint + "_w", std::move(wq));
  Value bv = net_.weight(hint + "_b", std::move(bq));
  Value acc = net_.depthwiseConv2d(in.value, wv, bv, same.pad, strides, DType::Int32);
  return finish(acc, in, scales, preMeanSquare, act);
}

Act Cnn::add(const Act& a, const Act& b, Activation act) {
  double sumMeanSquare = a.meanSquare + b.meanSquare;
  Act out;
  out.meanSquare = meanSquareAfter(act, sumMeanSquare);
  if (!quantized()) {
    out.value = applyActivation(net_.add(a.value, b.value), act, 0.0);
    return out;
  }
  double common = std::max(a.scale, b.scale) / kAddHeadroom;
  QuantMultiplier qa = quantizeScale(a.scale / common);
  QuantMultiplier qb = quantizeScale(b.scale / common);
  Value wideA = net_.rescale(a.value, DType::Int32, std::vector<std::int32_t>{qa.multiplier},
                             std::vector<std::int32_t>{qa.shift});
  Value wideB = net_.rescale(b.value, DType::Int32, std::vector<std::int32_t>{qb.multiplier},
                             std::vector<std::int32_t>{qb.shift});
  Value sum = net_.add(wideA, wideB);
  out.scale = outputScale(act, sumMeanSquare);
  QuantMultiplier qo = quantizeScale(common / out.scale);
  Value narrow = net_.rescale(sum, DType::Int8, std::vector<std::int32_t>{qo.multiplier},
                              std::vector<std::int32_t>{qo.shift});
  out.value = applyActivation(narrow, act, out.scale);
  return out;
}

Act Cnn::maxPool(const Act& x, std::int64_t kernel, std::int64_t stride) {
  SamePadding same = samePadding(x.value.shape[1], x.value.shape[2], kernel, kernel, stride, stride);
  Act in = cropForStride(x, same.cropY, same.cropX);
  Act out = in;
  std::vector<std::int32_t> k = {static_cast<std::int32_t>(kernel), static_cast<std::int32_t>(kernel)};
  std::vector<std::int32_t> s = {static_cast<std::int32_t>(stride), static_cast<std::int32_t>(stride)};
  out.value = net_.maxPool2d(in.value, k, s, same.pad);
  // The maximum of 9 post-ReLU values sits well above their RMS; the int8 scale is kept
  // (max pooling cannot leave the input range).
  out.meanSquare = in.meanSquare * 2.0;
  return out;
}

Act Cnn::globalAvgPool(const Act& x) {
  const tosa::Shape& s = x.value.shape;
  std::vector<std::int32_t> kernel = {static_cast<std::int32_t>(s[1]), static_cast<std::int32_t>(s[2])};
  Act out = x;
  out.value = net_.avgPool2d(x.value, kernel, {1, 1}, {0, 0, 0, 0}, quantized() ? DType::Int32 : DType::Fp32);
  // Averaging post-ReLU maps leaves mostly their mean: about a third of the second moment.
  out.meanSquare = x.meanSquare / 3.0;
  return out;
}

Value Cnn::classifier(const Act& x, std::int64_t classes) {
  Act logits = conv(x, classes, 1, 1, Activation::None, "fc");
  return net_.reshape(logits.value, {x.value.shape[0], classes});
}

}  // namespace openvgf::benchmarks
