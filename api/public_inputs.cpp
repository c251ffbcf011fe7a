// SPDX-License-Identifier: Apache-2.0
// Inputs people have (openvgf/openvgf.hpp): PNG / JPEG images preprocessed for a model input,
// headerless raw files, and seeded random tensors.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "api/image_decode.h"
#include "api/public_state.h"
#include "common/file_io.h"
#include "tosa/float_types.h"

namespace openvgf {

namespace {

// Stores `value` as element `i` of a host tensor (floats rounded to nearest even, integers
// already in range).
void store(Tensor& t, std::size_t i, double value) {
  auto* p = t.dataAs<std::uint8_t>();
  switch (t.dtype()) {
    case DataType::Bool: p[i] = value != 0 ? 1 : 0; break;
    case DataType::Int4:
    case DataType::Int8: p[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(value)); break;
    case DataType::Int16: t.dataAs<std::int16_t>()[i] = static_cast<std::int16_t>(value); break;
    case DataType::Int32: t.dataAs<std::int32_t>()[i] = static_cast<std::int32_t>(value); break;
    case DataType::Int48: t.dataAs<std::int64_t>()[i] = static_cast<std::int64_t>(value); break;
    case DataType::Float32: t.dataAs<float>()[i] = static_cast<float>(value); break;
    case DataType::Float64: t.dataAs<double>()[i] = value; break;
    case DataType::Float16: t.dataAs<std::uint16_t>()[i] = tosa::doubleToFp16(value); break;
    case DataType::BFloat16: t.dataAs<std::uint16_t>()[i] = tosa::doubleToBf16(value); break;
    case DataType::Float8E4M3: p[i] = tosa::doubleToFp8E4M3(value); break;
    case DataType::Float8E5M2: p[i] = tosa::doubleToFp8E5M2(value); break;
  }
}

bool isFloatType(DataType t) {
  return t == DataType::Float32 || t == DataType::Float16 || t == DataType::BFloat16;
}

// Where height, width and channels sit in the input's shape.
struct ImageLayout {
  std::int64_t height = 0, width = 0, channels = 0;
  bool channelsFirst = false;
};

ImageLayout imageLayout(const TensorInfo& input, const std::string& layout, const std::string& what) {
  const Shape& s = input.shape;
  if (input.anyShape || (s.size() != 3 && s.size() != 4)) {
    raiseInvalid(
        fmt::format("{}: expected an input of rank 4 (NHWC or NCHW) or 3 (HWC or CHW), got shape [{}]", what,
                    fmt::join(s, ",")));
  }
  if (std::any_of(s.begin(), s.end(), [](std::int64_t d) { return d <= 0; })) {
    raiseInvalid(fmt::format("{}: expected static dimensions, got shape [{}]", what, fmt::join(s, ",")));
  }
  const std::size_t b = s.size() == 4 ? 1 : 0;  // first dimension after the batch
  if (b == 1 && s[0] != 1)
    raiseInvalid(fmt::format("{}: expected batch 1, got shape [{}]", what, fmt::join(s, ",")));
  auto isChannels = [](std::int64_t d) { return d == 1 || d == 3 || d == 4; };
  bool first = false;
  if (layout == "nchw") {
    first = true;
  } else if (layout.empty()) {
    first = !isChannels(s.back()) && isChannels(s[b]);
  } else if (layout != "nhwc") {
    raiseInvalid(fmt::format("{}: layout: expected nhwc or nchw, got '{}'", what, layout));
  }
  ImageLayout l;
  l.channelsFirst = first;
  l.channels = first ? s[b] : s.back();
  l.height = first ? s[b + 1] : s[b];
  l.width = first ? s[b + 2] : s[b + 1];
  if (!isChannels(l.channels)) {
    raiseInvalid(fmt::format("{}: expected 1, 3 or 4 channels ({}), got {} in shape [{}]", what,
                             first ? "NCHW" : "NHWC", l.channels, fmt::join(s, ",")));
  }
  return l;
}

// One value per channel: `given` broadcast from one value, or `fallback` when empty.
std::vector<double> perChannel(const std::vector<double>& given, std::int64_t channels, double fallback,
                               const std::string& what, const char* option) {
  if (given.empty()) return std::vector<double>(static_cast<std::size_t>(channels), fallback);
  if (given.size() == 1) return std::vector<double>(static_cast<std::size_t>(channels), given[0]);
  if (static_cast<std::int64_t>(given.size()) != channels) {
    raiseInvalid(fmt::format("{}: {}: expected 1 or {} values (one per channel), got {}", what, option,
                             channels, given.size()));
  }
  return given;
}

// Channel `c` of the 8-bit image at (y, x), as the input's channel count sees it.
double channelValue(const api::Rgba8Image& image, std::int64_t y, std::int64_t x, std::int64_t c,
                    std::int64_t channels) {
  const std::uint8_t* px =
      image.pixels.data() + (static_cast<std::size_t>(y) * image.width + static_cast<std::size_t>(x)) * 4;
  if (channels == 1) return 0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2];
  return px[c];
}

// Bilinear sample with half-pixel centres and clamped edges at output (y, x) of an out
// image of outH x outW.
double sample(const api::Rgba8Image& image, const ImageLayout& l, std::int64_t y, std::int64_t x,
              std::int64_t c) {
  auto source = [](std::int64_t o, std::int64_t outSize, std::uint32_t inSize, std::int64_t& i0,
                   std::int64_t& i1) {
    double s =
        (static_cast<double>(o) + 0.5) * static_cast<double>(inSize) / static_cast<double>(outSize) - 0.5;
    s = std::clamp(s, 0.0, static_cast<double>(inSize - 1));
    i0 = static_cast<std::int64_t>(std::floor(s));
    i1 = std::min<std::int64_t>(i0 + 1, inSize - 1);
    return s - static_cast<double>(i0);
  };
  std::int64_t y0, y1, x0, x1;
  const double fy = source(y, l.height, image.height, y0, y1);
  const double fx = source(x, l.width, image.width, x0, x1);
  const double top =
      channelValue(image, y0, x0, c, l.channels) * (1 - fx) + channelValue(image, y0, x1, c, l.channels) * fx;
  const double bottom =
      channelValue(image, y1, x0, c, l.channels) * (1 - fx) + channelValue(image, y1, x1, c, l.channels) * fx;
  return top * (1 - fy) + bottom * fy;
}

// splitmix64 (Steele, Lea, Flood 2014): a fixed, portable stream for a seed.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform integer in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
};

}  // namespace

bool isImageFile(const std::string& path) {
  // MappedFile refuses FIFOs and devices without blocking; whoever reads the file next names
  // the problem.
  Result<MappedFile> file = MappedFile::open(path);
  return file && api::detectImageFormat(file->bytes()) != api::ImageFormat::None;
}

Tensor readImage(const std::string& path, const TensorInfo& input, const ImageOptions& options) {
  const std::string what = fmt::format("{}: input '{}'", path, input.name);
  const ImageLayout l = imageLayout(input, options.layout, what);
  const bool isFloat = isFloatType(input.dtype);
  if (!isFloat && input.dtype != DataType::Int8) {
    throw Exception(ErrorCode::Unsupported,
                    fmt::format("{}: expected an FP32, FP16, BF16 or INT8 input for an image, got {}", what,
                                toString(input.dtype)));
  }
  if (!isFloat && (!options.mean.empty() || !options.stddev.empty())) {
    raiseInvalid(
        fmt::format("{}: mean / std: expected a float input, got INT8 (it takes round(pixel) - 128)", what));
  }
  const std::vector<double> mean = perChannel(options.mean, l.channels, 0.0, what, "mean");
  const std::vector<double> stddev = perChannel(options.stddev, l.channels, 1.0, what, "std");
  if (std::any_of(stddev.begin(), stddev.end(), [](double v) { return v == 0 || !std::isfinite(v); })) {
    raiseInvalid(
        fmt::format("{}: std: expected nonzero finite values, got [{}]", what, fmt::join(stddev, ", ")));
  }
  const api::Rgba8Image image = unwrap(api::decodeImage(path));
  Tensor out(input.dtype, input.shape);
  for (std::int64_t y = 0; y < l.height; ++y) {
    for (std::int64_t x = 0; x < l.width; ++x) {
      for (std::int64_t c = 0; c < l.channels; ++c) {
        const double pixel = sample(image, l, y, x, c);
        const auto ci = static_cast<std::size_t>(c);
        const double value = isFloat ? (pixel / 255.0 - mean[ci]) / stddev[ci] : std::round(pixel) - 128.0;
        const std::int64_t at =
            l.channelsFirst ? (c * l.height + y) * l.width + x : (y * l.width + x) * l.channels + c;
        store(out, static_cast<std::size_t>(at), value);
      }
    }
  }
  return out;
}

Tensor randomTensor(const TensorInfo& input, std::uint64_t seed) {
  if (input.anyShape ||
      std::any_of(input.shape.begin(), input.shape.end(), [](std::int64_t d) { return d < 0; })) {
    raiseInvalid(fmt::format("input '{}': random values: expected a static shape, got [{}]", input.name,
                             fmt::join(input.shape, ",")));
  }
  Tensor out(input.dtype, input.shape);
  SplitMix64 random{seed};
  const auto n = static_cast<std::size_t>(out.elementCount());
  for (std::size_t i = 0; i < n; ++i) {
    double v = 0;
    switch (input.dtype) {
      case DataType::Bool: v = static_cast<double>(random.next() >> 63); break;
      case DataType::Int4: v = static_cast<double>(random.between(-8, 7)); break;
      case DataType::Int8: v = static_cast<double>(random.between(-128, 127)); break;
      case DataType::Int16: v = static_cast<double>(random.between(-32768, 32767)); break;
      case DataType::Int32:
      case DataType::Int48: v = static_cast<double>(random.between(-32768, 32767)); break;
      default: v = static_cast<double>(random.next() >> 11) * 0x1.0p-52 - 1.0; break;  // [-1, 1)
    }
    store(out, i, v);
  }
  return out;
}

}  // namespace openvgf
