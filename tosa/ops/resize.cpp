// SPDX-License-Identifier: Apache-2.0
// RESIZE: verify and shape rules (scale, offset and border are compile-time shape_t values).
#include <algorithm>
#include <array>
#include <cstring>

#include "tosa/ops/rules.h"

namespace openvgf::tosa::ops {
namespace {

/// The ERROR_IF limits on scale, offset, border and the image size (level "8K").
Status checkResizeParameters(OpCheck& c) {
  const Tensor &x = c.in(0), &scale = c.in(1), &offset = c.in(2), &border = c.in(3);
  if (!scale.data || !offset.data || !border.data || scale.data->size() != 32 || offset.data->size() != 16 ||
      border.data->size() != 16 || x.shape.size() != 4 || c.out(0).shape.size() != 4) {
    return {};
  }
  std::int64_t s[4], o[2], b[2];
  std::memcpy(s, scale.data->data(), 32);
  std::memcpy(o, offset.data->data(), 16);
  std::memcpy(b, border.data->data(), 16);
  for (int d = 0; d < 2; ++d) {
    std::int64_t n = s[2 * d];
    std::int64_t den = s[2 * d + 1];
    const char* axis = d == 0 ? "y" : "x";
    if (n <= 0 || den <= 0) return c.fail("scale: expected values > 0, got [{}, {}]", n, den);
    if (n > 2048) return c.fail("scale_{}_n: expected <= 2048, got {}", axis, n);
    if (den >= 16 * n) return c.fail("scale_{0}_d: expected scale_{0}_d < 16 * scale_{0}_n, got {1} and {2}", axis, den, n);
    if (o[d] < -n || o[d] >= 16 * n) {
      return c.fail("offset_{0}: expected -scale_{0}_n <= offset_{0} < 16 * scale_{0}_n, got {1}", axis, o[d]);
    }
    if (b[d] < -16 * n || b[d] >= n) {
      return c.fail("border_{0}: expected -16 * scale_{0}_n <= border_{0} < scale_{0}_n, got {1}", axis, b[d]);
    }
  }
  std::int64_t maxDim = std::max({x.shape[1], x.shape[2], c.out(0).shape[1], c.out(0).shape[2]});
  if (maxDim >= 16384) return c.fail("expected IH, IW, OH, OW < 16384, got {}", maxDim);
  return {};
}

Status verifyResize(OpCheck& c) {
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, c.attrs<ResizeAttrs>());
  if (a->mode != ResizeMode::Nearest && a->mode != ResizeMode::Bilinear) {
    return c.fail("mode: expected NEAREST or BILINEAR, got {}", static_cast<std::uint32_t>(a->mode));
  }
  for (std::size_t i = 1; i < 4; ++i) {
    static constexpr std::array<std::string_view, 4> kNames = {"", "scale", "offset", "border"};
    OPENVGF_TRY(c.requireType(i, kNames[i], DType::Shape));
    OPENVGF_TRY(c.requireCtc(i, kNames[i]));
  }
  OPENVGF_TRY(checkResizeParameters(c));
  DType t = c.in(0).dtype;
  bool integer = t == DType::Int8 || t == DType::Int16;
  if (integer) {
    DType want = a->mode == ResizeMode::Bilinear ? (t == DType::Int8 ? DType::Int32 : DType::Int48) : t;
    if (c.out(0).dtype != want) {
      return c.fail("output '{}': expected {} for {} {} resize, got {}", c.out(0).name, toString(want), toString(t),
                    toString(a->mode), toString(c.out(0).dtype));
    }
  }
  return c.checkTypes({c.in(0).dtype, c.out(0).dtype}, "input x output");
}

Result<std::vector<OutputInfo>> inferResize(const Inference& in) {
  OPENVGF_TRY(in.rank(0, "input", 4));
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, in.attrs<ResizeAttrs>());
  OPENVGF_ASSIGN_OR_RETURN(auto scale, in.shapeValue(1, "scale", 4));
  OPENVGF_ASSIGN_OR_RETURN(auto offset, in.shapeValue(2, "offset", 2));
  OPENVGF_ASSIGN_OR_RETURN(auto border, in.shapeValue(3, "border", 2));
  for (std::int64_t s : scale) {
    if (s <= 0) return invalidInput("scale: expected values > 0, got {}", shapeToString(scale));
  }
  const Shape& x = in.in(0).shape;
  std::int64_t outDims[2];
  for (int d = 0; d < 2; ++d) {
    std::int64_t n = scale[2 * d];
    std::int64_t den = scale[2 * d + 1];
    if (n > (1 << 20) || den > (1 << 20) || x[1 + d] > (1 << 20)) {
      return invalidInput("scale: expected values below 2^20, got {}", shapeToString(scale));
    }
    constexpr std::int64_t kMaxShift = std::int64_t{1} << 40;
    if (offset[d] < -kMaxShift || offset[d] > kMaxShift || border[d] < -kMaxShift || border[d] > kMaxShift) {
      return invalidInput("offset, border: expected values within +-2^40, got {} and {}", shapeToString(offset),
                          shapeToString(border));
    }
    std::int64_t num = (x[1 + d] - 1) * n - offset[d] + border[d];
    if (num < 0 || num % den != 0) {
      return invalidInput(
          "{0} = ((I{0} - 1) * scale_{1}_n - offset_{1} + border_{1}) / scale_{1}_d + 1 must divide exactly, got "
          "({2}) / {3}",
          d == 0 ? "OH" : "OW", d == 0 ? "y" : "x", num, den);
    }
    outDims[d] = num / den + 1;
  }
  DType t = in.in(0).dtype;
  DType out = t;
  if (a->mode == ResizeMode::Bilinear && t == DType::Int8) out = DType::Int32;
  if (a->mode == ResizeMode::Bilinear && t == DType::Int16) out = DType::Int48;
  return Inference::same(out, {x[0], outDims[0], outDims[1], x[3]});
}

}  // namespace

const OpRules kResizeRules{verifyResize, inferResize};

}  // namespace openvgf::tosa::ops
