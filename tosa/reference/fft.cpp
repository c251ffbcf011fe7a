// SPDX-License-Identifier: Apache-2.0
// FFT2D and RFFT2D (EXT-FFT, TOSA 1.0 §2.3): direct evaluation of the 2-D DFT, no
// normalisation. The angle is reduced with integer arithmetic ((iy*oy) mod H) before the
// division so large indices keep full precision.
#include <bit>
#include <cmath>
#include <numbers>

#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

Result<Outputs> evalFft(Context& ctx, Inputs in) {
  const bool real = ctx.op().op == Op::Rfft2d;
  const Value& re = *in[0];
  const Value* im = real ? nullptr : in[1];
  if (re.shape.size() != 3 || (im != nullptr && im->shape != re.shape)) {
    return ctx.error("input: expected [N,H,W] real (and equal imaginary) parts, got {}", shapeToString(re.shape));
  }
  const std::int64_t n = re.shape[0];
  const std::int64_t h = re.shape[1];
  const std::int64_t w = re.shape[2];
  if (!std::has_single_bit(static_cast<std::uint64_t>(h)) || !std::has_single_bit(static_cast<std::uint64_t>(w))) {
    return ctx.error("input: expected H and W to be powers of two, got {}x{}", h, w);
  }
  const auto* attrs = attrsAs<FftAttrs>(ctx.op());
  const bool inverse = !real && attrs != nullptr && attrs->inverse;
  const bool localBound = attrs != nullptr && attrs->localBound;
  const double sign = inverse ? -1.0 : 1.0;
  const std::int64_t ow = real ? w / 2 + 1 : w;
  const DType outType = ctx.outType();
  Value outRe(outType, Shape{n, h, ow});
  Value outIm(outType, Shape{n, h, ow});
  const double nmin = normalMin(outType);
  double globalMax = nmin;
  if (ctx.bounds && !localBound) {
    for (double v : re.floats) globalMax = std::max(globalMax, std::fabs(v));
    if (im != nullptr) {
      for (double v : im->floats) globalMax = std::max(globalMax, std::fabs(v));
    }
  }
  auto load = [&](const Value& v, std::size_t i) {
    if (!ctx.bounds) return v.floats[i];
    return localBound ? std::max(std::fabs(v.floats[i]), nmin) : globalMax;
  };
  const std::int64_t turn = std::max(h, w);
  std::size_t dst = 0;
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t oy = 0; oy < h; ++oy) {
      for (std::int64_t ox = 0; ox < ow; ++ox, ++dst) {
        double sumRe = 0.0;
        double sumIm = 0.0;
        for (std::int64_t iy = 0; iy < h; ++iy) {
          for (std::int64_t ix = 0; ix < w; ++ix) {
            const auto src = static_cast<std::size_t>((b * h + iy) * w + ix);
            // The angle as an exact fraction of a turn (H and W are powers of two), with
            // exact values at quarter turns: sin(pi) in fp64 is 1.2e-16, not 0, which would
            // give the Nyquist bins of a real input a non-zero reference and bound.
            const std::int64_t num = (((iy * oy) % h) * (turn / h) + ((ix * ox) % w) * (turn / w)) % turn;
            double c = 0.0;
            double s = 0.0;
            if ((4 * num) % turn == 0) {
              constexpr double kCos[4] = {1.0, 0.0, -1.0, 0.0};
              constexpr double kSin[4] = {0.0, 1.0, 0.0, -1.0};
              c = kCos[(4 * num) / turn];
              s = sign * kSin[(4 * num) / turn];
            } else {
              const double angle = sign * 2.0 * std::numbers::pi * static_cast<double>(num) / static_cast<double>(turn);
              c = std::cos(angle);
              s = std::sin(angle);
            }
            const double r = load(re, src);
            const double i = im != nullptr ? load(*im, src) : 0.0;
            if (ctx.bounds) {
              sumRe += r * std::fabs(c) + i * std::fabs(s);
              sumIm += r * std::fabs(s) + i * std::fabs(c);
            } else {
              sumRe = ctx.round(sumRe + r * c + i * s, outType);
              sumIm = ctx.round(sumIm - r * s + i * c, outType);
            }
          }
        }
        outRe.floats[dst] = ctx.round(sumRe, outType);
        outIm.floats[dst] = ctx.round(sumIm, outType);
      }
    }
  }
  Outputs outs;
  outs.push_back(std::move(outRe));
  outs.push_back(std::move(outIm));
  return outs;
}

}  // namespace openvgf::tosa::reference
