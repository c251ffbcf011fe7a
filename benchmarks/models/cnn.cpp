// SPDX-License-Identifier: Apache-2.0
// Cnn implementation: float weights drawn once, batch norm folded from calibration
// statistics, then emitted as fp32 or quantised per channel.
#include "benchmarks/models/cnn.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

namespace openvgf::benchmarks {

using tosa::DType;
using tosa::HostTensor;

namespace {

// Calibration images: one at full resolution, more for reduced-size variants so that the
// last layers (1x1 or 2x2 maps there) still see enough positions for their statistics.
std::int64_t calibrationBatch(std::int64_t height, std::int64_t width) {
  return std::clamp<std::int64_t>((224 * 224) / std::max<std::int64_t>(height * width, 1), 1, 8);
}
// Full-resolution inputs reach values the calibration batch did not; 25% headroom over the
// calibration maximum keeps clipping rare without wasting much int8 resolution.
constexpr double kRangeMargin = 1.25;
// Residual adds are carried out in int32 at a scale 2^10 finer than the coarser operand, so
// the two rescaled operands lose nothing (TOSA ADD has no int8 form).
constexpr double kAddHeadroom = 1024.0;
constexpr float kBetaBound = 0.1f;
// Per-channel statistics from few positions (late layers, classifier) are shrunk towards the
// per-tensor ones, as if kShrinkPositions more positions had the tensor-wide statistics.
constexpr double kShrinkPositions = 16.0;

HostTensor floatTensor(const std::vector<float>& values, tosa::Shape shape) {
  HostTensor t(DType::Fp32, std::move(shape));
  std::copy(values.begin(), values.end(), t.as<float>().begin());
  return t;
}

float activate(float v, Activation act) {
  switch (act) {
    case Activation::None: return v;
    case Activation::Relu: return std::max(v, 0.0f);
    case Activation::Relu6: return std::clamp(v, 0.0f, 6.0f);
  }
  return v;
}

double maxAbs(const Sample& s) {
  double m = 0.0;
  for (float v : s.data) m = std::max(m, static_cast<double>(std::fabs(v)));
  return m;
}

Sample cropSample(const Sample& x, std::int64_t cropY, std::int64_t cropX) {
  if (cropY == 0 && cropX == 0) return x;
  const tosa::Shape& s = x.shape;
  Sample out{{s[0], s[1] - cropY, s[2] - cropX, s[3]}, {}};
  out.data.reserve(static_cast<std::size_t>(tosa::elementCount(out.shape)));
  for (std::int64_t n = 0; n < s[0]; ++n) {
    for (std::int64_t y = 0; y < out.shape[1]; ++y) {
      const float* row = x.data.data() + ((n * s[1] + y) * s[2]) * s[3];
      out.data.insert(out.data.end(), row, row + out.shape[2] * s[3]);
    }
  }
  return out;
}

/// NHWC conv (weights OHWI) or depthwise conv (weights [C][KH*KW]) without bias.
Sample convSample(const Sample& x, const std::vector<float>& w, bool depthwise, std::int64_t outChannels,
                  std::int64_t kernel, std::int64_t stride, const std::vector<std::int32_t>& pad) {
  const tosa::Shape& s = x.shape;
  std::int64_t ic = s[3];
  std::int64_t oh = (s[1] + pad[0] + pad[1] - kernel) / stride + 1;
  std::int64_t ow = (s[2] + pad[2] + pad[3] - kernel) / stride + 1;
  Sample out{{s[0], oh, ow, outChannels}, {}};
  out.data.assign(static_cast<std::size_t>(tosa::elementCount(out.shape)), 0.0f);
  for (std::int64_t n = 0; n < s[0]; ++n) {
    for (std::int64_t y = 0; y < oh; ++y) {
      for (std::int64_t xo = 0; xo < ow; ++xo) {
        float* o = out.data.data() + ((n * oh + y) * ow + xo) * outChannels;
        for (std::int64_t ky = 0; ky < kernel; ++ky) {
          std::int64_t iy = y * stride - pad[0] + ky;
          if (iy < 0 || iy >= s[1]) continue;
          for (std::int64_t kx = 0; kx < kernel; ++kx) {
            std::int64_t ix = xo * stride - pad[2] + kx;
            if (ix < 0 || ix >= s[2]) continue;
            const float* in = x.data.data() + ((n * s[1] + iy) * s[2] + ix) * ic;
            if (depthwise) {
              std::int64_t tap = ky * kernel + kx;
              for (std::int64_t c = 0; c < ic; ++c) o[c] += in[c] * w[static_cast<std::size_t>(c * kernel * kernel + tap)];
            } else {
              for (std::int64_t c = 0; c < outChannels; ++c) {
                const float* wr = w.data() + ((c * kernel + ky) * kernel + kx) * ic;
                float acc = 0.0f;
                for (std::int64_t i = 0; i < ic; ++i) acc += in[i] * wr[i];
                o[c] += acc;
              }
            }
          }
        }
      }
    }
  }
  return out;
}

struct ChannelStats {
  std::vector<double> mean;
  std::vector<double> stddev;
};

ChannelStats channelStats(const Sample& s) {
  std::int64_t c = s.shape.back();
  std::int64_t positions = tosa::elementCount(s.shape) / c;
  std::vector<double> sum(static_cast<std::size_t>(c), 0.0);
  std::vector<double> sumSq(static_cast<std::size_t>(c), 0.0);
  for (std::int64_t p = 0; p < positions; ++p) {
    for (std::int64_t i = 0; i < c; ++i) {
      double v = s.data[static_cast<std::size_t>(p * c + i)];
      sum[static_cast<std::size_t>(i)] += v;
      sumSq[static_cast<std::size_t>(i)] += v * v;
    }
  }
  double allSum = 0.0;
  double allSq = 0.0;
  for (std::int64_t i = 0; i < c; ++i) {
    allSum += sum[static_cast<std::size_t>(i)];
    allSq += sumSq[static_cast<std::size_t>(i)];
  }
  double total = static_cast<double>(positions * c);
  double allMean = allSum / total;
  double allVar = std::max(allSq / total - allMean * allMean, 0.0);
  ChannelStats stats;
  auto n = static_cast<double>(positions);
  for (std::int64_t i = 0; i < c; ++i) {
    double mean = sum[static_cast<std::size_t>(i)] / n;
    double var = std::max(sumSq[static_cast<std::size_t>(i)] / n - mean * mean, 0.0);
    double shrunkMean = (n * mean + kShrinkPositions * allMean) / (n + kShrinkPositions);
    double shrunkVar = (n * var + kShrinkPositions * allVar) / (n + kShrinkPositions);
    stats.mean.push_back(shrunkMean);
    stats.stddev.push_back(std::sqrt(shrunkVar + 1e-6));
  }
  return stats;
}

double outputScale(const Sample& s, Activation act) {
  double range = std::max(maxAbs(s) * kRangeMargin, 1e-3);
  if (act == Activation::Relu6) range = std::min(range, 6.0);
  return range / 127.0;
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
  a.scale = quantized() ? 1.0 / 127.0 : 0.0;
  std::int64_t ch = std::min(height, calibrationResolution_);
  std::int64_t cw = std::min(width, calibrationResolution_);
  a.sample.shape = {calibrationBatch(ch, cw), ch, cw, channels};
  Rng rng(0xCA11B4A7E0000000ull);
  a.sample.data.resize(static_cast<std::size_t>(tosa::elementCount(a.sample.shape)));
  for (float& v : a.sample.data) v = rng.symmetric();
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

Act Cnn::convCommon(const Act& x, bool depthwise, std::int64_t outChannels, std::int64_t kernel,
                    std::int64_t stride, Activation act, const std::string& hint) {
  SamePadding same = samePadding(x.value.shape[1], x.value.shape[2], kernel, kernel, stride, stride);
  Act in = cropForStride(x, same.cropY, same.cropX);
  SamePadding sampleSame = samePadding(x.sample.shape[1], x.sample.shape[2], kernel, kernel, stride, stride);
  Sample sampleIn = cropSample(x.sample, sampleSame.cropY, sampleSame.cropX);
  std::int64_t ic = in.value.shape[3];
  if (depthwise) outChannels = ic;
  std::int64_t rowLength = depthwise ? kernel * kernel : kernel * kernel * ic;

  // He-uniform for ReLU (gain sqrt 2), then the folded batch norm.
  auto bound = static_cast<float>(std::sqrt(6.0 / static_cast<double>(rowLength)));
  std::vector<float> w(static_cast<std::size_t>(outChannels * rowLength));
  for (float& v : w) v = bound * net_.rng().symmetric();
  std::vector<float> beta(static_cast<std::size_t>(outChannels));
  for (float& v : beta) v = net_.rng().uniform(-kBetaBound, kBetaBound);
  Sample y = convSample(sampleIn, w, depthwise, outChannels, kernel, stride, sampleSame.pad);
  ChannelStats stats = channelStats(y);
  std::vector<float> b(static_cast<std::size_t>(outChannels));
  for (std::int64_t c = 0; c < outChannels; ++c) {
    auto ci = static_cast<std::size_t>(c);
    auto inv = static_cast<float>(1.0 / stats.stddev[ci]);
    for (std::int64_t i = 0; i < rowLength; ++i) w[static_cast<std::size_t>(c * rowLength + i)] *= inv;
    b[ci] = beta[ci] - static_cast<float>(stats.mean[ci]) * inv;
  }
  Act out;
  out.sample = std::move(y);
  for (std::size_t i = 0; i < out.sample.data.size(); ++i) {
    auto c = static_cast<std::size_t>(static_cast<std::int64_t>(i) % outChannels);
    float v = static_cast<float>((out.sample.data[i] - stats.mean[c]) / stats.stddev[c]) + beta[c];
    out.sample.data[i] = activate(v, act);
  }

  std::vector<std::int32_t> strides = {static_cast<std::int32_t>(stride), static_cast<std::int32_t>(stride)};
  // Graph layouts: conv OHWI (= the row layout of w); depthwise HWCM with M = 1.
  tosa::Shape wShape = depthwise ? tosa::Shape{kernel, kernel, ic, 1} : tosa::Shape{outChannels, kernel, kernel, ic};
  auto graphIndex = [&](std::int64_t c, std::int64_t i) { return depthwise ? i * ic + c : c * rowLength + i; };

  if (!quantized()) {
    HostTensor wf(DType::Fp32, wShape);
    for (std::int64_t c = 0; c < outChannels; ++c) {
      for (std::int64_t i = 0; i < rowLength; ++i) {
        wf.as<float>()[graphIndex(c, i)] = w[static_cast<std::size_t>(c * rowLength + i)];
      }
    }
    Value wv = net_.weight(hint + "_w", std::move(wf));
    Value bv = net_.weight(hint + "_b", floatTensor(b, {outChannels}));
    Value acc = depthwise ? net_.depthwiseConv2d(in.value, wv, bv, same.pad, strides, DType::Fp32)
                          : net_.conv2d(in.value, wv, bv, same.pad, strides, DType::Fp32);
    out.value = applyActivation(acc, act, 0.0);
    return out;
  }

  HostTensor wq(DType::Int8, wShape);
  HostTensor bq(DType::Int32, {outChannels});
  out.scale = outputScale(out.sample, act);
  std::vector<std::int32_t> multipliers;
  std::vector<std::int32_t> shifts;
  for (std::int64_t c = 0; c < outChannels; ++c) {
    const float* row = w.data() + c * rowLength;
    float rowMax = 0.0f;
    for (std::int64_t i = 0; i < rowLength; ++i) rowMax = std::max(rowMax, std::fabs(row[i]));
    double s = std::max(static_cast<double>(rowMax), 1e-12) / 127.0;
    for (std::int64_t i = 0; i < rowLength; ++i) {
      wq.as<std::int8_t>()[graphIndex(c, i)] = static_cast<std::int8_t>(std::clamp(std::lround(row[i] / s), -127l, 127l));
    }
    bq.as<std::int32_t>()[c] = static_cast<std::int32_t>(std::lround(b[static_cast<std::size_t>(c)] / (in.scale * s)));
    QuantMultiplier q = quantizeScale(in.scale * s / out.scale);
    multipliers.push_back(q.multiplier);
    shifts.push_back(q.shift);
  }
  Value wv = net_.weight(hint + "_w", std::move(wq));
  Value bv = net_.weight(hint + "_b", std::move(bq));
  Value acc = depthwise ? net_.depthwiseConv2d(in.value, wv, bv, same.pad, strides, DType::Int32)
                        : net_.conv2d(in.value, wv, bv, same.pad, strides, DType::Int32);
  Value requantized = net_.rescale(acc, DType::Int8, multipliers, shifts);
  out.value = applyActivation(requantized, act, out.scale);
  return out;
}

Act Cnn::conv(const Act& x, std::int64_t outChannels, std::int64_t kernel, std::int64_t stride, Activation act,
              const std::string& hint) {
  return convCommon(x, false, outChannels, kernel, stride, act, hint);
}

Act Cnn::depthwise(const Act& x, std::int64_t kernel, std::int64_t stride, Activation act, const std::string& hint) {
  return convCommon(x, true, 0, kernel, stride, act, hint);
}

Act Cnn::add(const Act& a, const Act& b, Activation act) {
  Act out;
  out.sample = a.sample;
  for (std::size_t i = 0; i < out.sample.data.size(); ++i) {
    out.sample.data[i] = activate(a.sample.data[i] + b.sample.data[i], act);
  }
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
  out.scale = outputScale(out.sample, act);
  QuantMultiplier qo = quantizeScale(common / out.scale);
  Value narrow = net_.rescale(sum, DType::Int8, std::vector<std::int32_t>{qo.multiplier},
                              std::vector<std::int32_t>{qo.shift});
  out.value = applyActivation(narrow, act, out.scale);
  return out;
}

Act Cnn::maxPool(const Act& x, std::int64_t kernel, std::int64_t stride) {
  SamePadding same = samePadding(x.value.shape[1], x.value.shape[2], kernel, kernel, stride, stride);
  Act in = cropForStride(x, same.cropY, same.cropX);
  std::vector<std::int32_t> k = {static_cast<std::int32_t>(kernel), static_cast<std::int32_t>(kernel)};
  std::vector<std::int32_t> s = {static_cast<std::int32_t>(stride), static_cast<std::int32_t>(stride)};
  Act out;
  out.value = net_.maxPool2d(in.value, k, s, same.pad);
  out.scale = in.scale;  // max pooling cannot leave the input range

  SamePadding sampleSame = samePadding(x.sample.shape[1], x.sample.shape[2], kernel, kernel, stride, stride);
  Sample si = cropSample(x.sample, sampleSame.cropY, sampleSame.cropX);
  const tosa::Shape& sh = si.shape;
  const std::vector<std::int32_t>& p = sampleSame.pad;
  std::int64_t oh = (sh[1] + p[0] + p[1] - kernel) / stride + 1;
  std::int64_t ow = (sh[2] + p[2] + p[3] - kernel) / stride + 1;
  out.sample.shape = {sh[0], oh, ow, sh[3]};
  out.sample.data.assign(static_cast<std::size_t>(tosa::elementCount(out.sample.shape)), -FLT_MAX);
  for (std::int64_t n = 0; n < sh[0]; ++n) {
    for (std::int64_t y = 0; y < oh; ++y) {
      for (std::int64_t xo = 0; xo < ow; ++xo) {
        float* o = out.sample.data.data() + ((n * oh + y) * ow + xo) * sh[3];
        for (std::int64_t ky = 0; ky < kernel; ++ky) {
          std::int64_t iy = y * stride - p[0] + ky;
          if (iy < 0 || iy >= sh[1]) continue;
          for (std::int64_t kx = 0; kx < kernel; ++kx) {
            std::int64_t ix = xo * stride - p[2] + kx;
            if (ix < 0 || ix >= sh[2]) continue;
            const float* iv = si.data.data() + ((n * sh[1] + iy) * sh[2] + ix) * sh[3];
            for (std::int64_t c = 0; c < sh[3]; ++c) o[c] = std::max(o[c], iv[c]);
          }
        }
      }
    }
  }
  return out;
}

Act Cnn::globalAvgPool(const Act& x) {
  const tosa::Shape& s = x.value.shape;
  std::vector<std::int32_t> kernel = {static_cast<std::int32_t>(s[1]), static_cast<std::int32_t>(s[2])};
  Act out;
  out.value = net_.avgPool2d(x.value, kernel, {1, 1}, {0, 0, 0, 0}, quantized() ? DType::Int32 : DType::Fp32);
  out.scale = x.scale;  // TOSA AVG_POOL2D keeps the input's quantisation
  const tosa::Shape& sh = x.sample.shape;
  out.sample.shape = {sh[0], 1, 1, sh[3]};
  out.sample.data.assign(static_cast<std::size_t>(sh[0] * sh[3]), 0.0f);
  std::int64_t positions = sh[1] * sh[2];
  for (std::int64_t n = 0; n < sh[0]; ++n) {
    for (std::int64_t p = 0; p < positions; ++p) {
      for (std::int64_t c = 0; c < sh[3]; ++c) {
        out.sample.data[static_cast<std::size_t>(n * sh[3] + c)] +=
            x.sample.data[static_cast<std::size_t>((n * positions + p) * sh[3] + c)] / static_cast<float>(positions);
      }
    }
  }
  return out;
}

Value Cnn::classifier(const Act& x, std::int64_t classes) {
  Act logits = conv(x, classes, 1, 1, Activation::None, "fc");
  return net_.reshape(logits.value, {x.value.shape[0], classes});
}

}  // namespace openvgf::benchmarks
