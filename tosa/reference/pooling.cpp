// SPDX-License-Identifier: Apache-2.0
// AVG_POOL2D and MAX_POOL2D (TOSA 1.0 §2.3). Padding is never counted: the average divides
// by the number of in-bounds taps (integer path: reciprocal_scale + apply_scale_32).
#include <cmath>
#include <limits>

#include "tosa/reference/scale.h"
#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

namespace {

struct PoolGeometry {
  std::int64_t n, ih, iw, c, ky, kx, sy, sx, pt, pb, pl, pr, oh, ow;
};

Result<PoolGeometry> poolGeometry(Context& ctx, const Value& x, const std::vector<std::int32_t>& kernel,
                                  const std::vector<std::int32_t>& stride, const std::vector<std::int32_t>& pad) {
  if (x.shape.size() != 4) return ctx.error("input: expected rank 4 (NHWC), got {}", shapeToString(x.shape));
  if (kernel.size() != 2 || stride.size() != 2 || pad.size() != 4) {
    return ctx.error("kernel/stride/pad: expected 2/2/4 values, got {}/{}/{}", kernel.size(), stride.size(), pad.size());
  }
  PoolGeometry g{x.shape[0], x.shape[1], x.shape[2], x.shape[3], kernel[0], kernel[1], stride[0], stride[1],
                 pad[0],     pad[1],     pad[2],     pad[3],     0,         0};
  if (g.ky < 1 || g.kx < 1) return ctx.error("kernel: expected values >= 1, got [{},{}]", g.ky, g.kx);
  if (g.sy < 1 || g.sx < 1) return ctx.error("stride: expected values >= 1, got [{},{}]", g.sy, g.sx);
  if (g.pt < 0 || g.pb < 0 || g.pl < 0 || g.pr < 0) return ctx.error("pad: expected values >= 0");
  if (g.pt >= g.ky || g.pb >= g.ky || g.pl >= g.kx || g.pr >= g.kx) {
    return ctx.error("pad: expected each pad < kernel size in its dimension, got pad [{},{},{},{}] kernel [{},{}]", g.pt,
                     g.pb, g.pl, g.pr, g.ky, g.kx);
  }
  const std::int64_t hNum = g.ih + g.pt + g.pb - g.ky;
  const std::int64_t wNum = g.iw + g.pl + g.pr - g.kx;
  if (hNum < 0 || hNum % g.sy != 0 || wNum < 0 || wNum % g.sx != 0) {
    return ctx.error("output size: expected (IH + pads - kernel) divisible by stride in each dimension, got {} / {} "
                     "and {} / {}",
                     hNum, g.sy, wNum, g.sx);
  }
  g.oh = hNum / g.sy + 1;
  g.ow = wNum / g.sx + 1;
  return g;
}

}  // namespace

Result<Outputs> evalPool(Context& ctx, Inputs in) {
  const Value& x = *in[0];
  const Op op = ctx.op().op;
  const DType outType = ctx.outType();
  PoolGeometry g{};
  DType accType = DType::Unknown;
  NanMode nanMode = NanMode::Propagate;
  if (op == Op::AvgPool2d) {
    const auto* attrs = attrsAs<AvgPool2dAttrs>(ctx.op());
    if (attrs == nullptr) return ctx.error("attribute: expected an AvgPool2dAttribute");
    OPENVGF_ASSIGN_OR_RETURN(g, poolGeometry(ctx, x, attrs->kernel, attrs->stride, attrs->pad));
    accType = attrs->accType;
  } else {
    const auto* attrs = attrsAs<MaxPool2dAttrs>(ctx.op());
    if (attrs == nullptr) return ctx.error("attribute: expected a MaxPool2dAttribute");
    OPENVGF_ASSIGN_OR_RETURN(g, poolGeometry(ctx, x, attrs->kernel, attrs->stride, attrs->pad));
    nanMode = attrs->nanMode == NanMode::Ignore ? NanMode::Ignore : NanMode::Propagate;
  }
  std::int64_t inZp = 0;
  std::int64_t outZp = 0;
  if (op == Op::AvgPool2d) {
    if (in.size() > 1) inZp = scalarInt(*in[1]);
    if (in.size() > 2) outZp = scalarInt(*in[2]);
    if (x.dtype != DType::Int8 && ((in.size() > 1 && !isZeroScalar(*in[1])) || (in.size() > 2 && !isZeroScalar(*in[2])))) {
      return ctx.error("input_zp/output_zp: expected 0 for {}", toString(x.dtype));
    }
    if (accType == DType::Unknown) accType = x.isFloat() ? outType : DType::Int32;
  }
  OPENVGF_TRY(ctx.checkOutputShape(0, Shape{g.n, g.oh, g.ow, g.c}));
  Value out(outType, Shape{g.n, g.oh, g.ow, g.c});
  const double nmin = normalMin(outType);
  std::size_t dst = 0;
  for (std::int64_t b = 0; b < g.n; ++b) {
    for (std::int64_t oy = 0; oy < g.oh; ++oy) {
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        for (std::int64_t ch = 0; ch < g.c; ++ch, ++dst) {
          std::int64_t count = 0;
          std::int64_t iacc = 0;
          double facc = (op == Op::MaxPool2d) ? (nanMode == NanMode::Ignore ? std::numeric_limits<double>::quiet_NaN()
                                                                            : -std::numeric_limits<double>::infinity())
                                              : 0.0;
          std::int64_t imax = minOf(x.dtype);
          for (std::int64_t ky = 0; ky < g.ky; ++ky) {
            const std::int64_t y = oy * g.sy - g.pt + ky;
            if (y < 0 || y >= g.ih) continue;
            for (std::int64_t kx = 0; kx < g.kx; ++kx) {
              const std::int64_t xx = ox * g.sx - g.pl + kx;
              if (xx < 0 || xx >= g.iw) continue;
              const auto src = static_cast<std::size_t>(((b * g.ih + y) * g.iw + xx) * g.c + ch);
              ++count;
              if (x.isFloat()) {
                double v = x.floats[src];
                if (op == Op::MaxPool2d) {
                  facc = applyMax(facc, v, nanMode);
                } else {
                  if (ctx.bounds) v = std::max(std::fabs(v), nmin);
                  facc = ctx.round(facc + v, accType);
                }
              } else if (op == Op::MaxPool2d) {
                imax = std::max(imax, x.ints[src]);
              } else {
                iacc += x.ints[src] - inZp;
              }
            }
          }
          if (op == Op::MaxPool2d) {
            if (x.isFloat()) {
              out.floats[dst] = facc;
            } else {
              out.ints[dst] = imax;
            }
            continue;
          }
          // count >= 1: pad < kernel guarantees an in-bounds tap.
          if (x.isFloat()) {
            out.floats[dst] = ctx.round(ctx.round(facc, accType) / static_cast<double>(count), outType);
            continue;
          }
          if (iacc < minOf(DType::Int32) || iacc > maxOf(DType::Int32)) {
            ctx.require(false, "AVG_POOL2D: accumulator overflows INT32 (REQUIRE)");
            iacc = wrapTo(iacc, DType::Int32);
          }
          const ScalePair scale = reciprocalScale(static_cast<std::uint32_t>(count));
          std::int64_t r = applyScale32(ctx, iacc, scale.multiplier, scale.shift, false);
          r = clipTo(r + outZp, outType);
          out.ints[dst] = r;
        }
      }
    }
  }
  return Outputs{std::move(out)};
}

}  // namespace openvgf::tosa::reference
