// SPDX-License-Identifier: Apache-2.0
// CONV2D, CONV3D, DEPTHWISE_CONV2D and TRANSPOSE_CONV2D (TOSA 1.0 §2.3). CONV2D runs as a
// CONV3D with depth 1. Integer accumulation is exact in int64 and checked against acc_type
// (INT32/INT48); float accumulation is rounded to acc_type after each step in normal mode.
// In bounds mode (compliance §3.4) every operand is replaced by its magnitude (at least
// normal_min of the output type); without local_bound every input value, padding included,
// becomes the largest input magnitude.
#include <cmath>
#include <limits>

#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

namespace {

struct Accumulator {
  const Context& ctx;
  DType accType;
  std::int64_t i = 0;
  double f = 0.0;

  void reset() {
    i = 0;
    f = 0.0;
  }
  void add(std::int64_t a, std::int64_t b) { i += a * b; }
  void add(double a, double b) { f = ctx.round(f + a * b, accType); }
};

struct Operands {
  const Value& input;
  const Value& weight;
  const Value& bias;
  std::int64_t inputZp = 0;
  std::int64_t weightZp = 0;
  // Bounds mode: replacement for padded / every input value.
  bool boundsGlobal = false;
  double boundsInput = 0.0;
  double boundsPad = 0.0;
  double nmin = 0.0;
};

Result<std::int64_t> checkedOutputSize(Context& ctx, std::int64_t numerator, std::int64_t stride, const char* dim) {
  if (numerator < 0 || numerator % stride != 0) {
    return ctx.error("{}: expected (input - 1 + pads - (kernel - 1) * dilation) = {} to be a non-negative multiple of "
                     "stride {}",
                     dim, numerator, stride);
  }
  return numerator / stride + 1;
}

Result<std::vector<std::int64_t>> intList(Context& ctx, const std::vector<std::int32_t>& v, std::size_t n,
                                          std::int64_t minValue, const char* what) {
  if (v.size() != n) return ctx.error("{}: expected {} values, got {}", what, n, v.size());
  std::vector<std::int64_t> out(v.begin(), v.end());
  for (std::int64_t x : out) {
    if (x < minValue) return ctx.error("{}: expected values >= {}, got {}", what, minValue, x);
  }
  return out;
}

// Finishes one output element: acc -> out_t, + bias, range checks.
void storeResult(Context& ctx, const Accumulator& acc, const Operands& ops, std::int64_t biasIndex, Value& out,
                 std::size_t dst) {
  const DType outType = out.dtype;
  if (out.isFloat()) {
    double bias = ops.bias.floats[static_cast<std::size_t>(biasIndex)];
    if (ctx.bounds) bias = std::max(std::fabs(bias), ops.nmin);
    out.floats[dst] = ctx.round(ctx.round(acc.f, outType) + bias, outType);
    return;
  }
  std::int64_t a = acc.i;
  if (a < minOf(acc.accType) || a > maxOf(acc.accType)) {
    ctx.require(false, "accumulator {} overflows {} (REQUIRE)", a, toString(acc.accType));
    a = wrapTo(a, acc.accType);
  }
  std::int64_t r = a + ops.bias.ints[static_cast<std::size_t>(biasIndex)];
  if (r < minOf(outType) || r > maxOf(outType)) {
    ctx.require(false, "result {} overflows {} (REQUIRE)", r, toString(outType));
    r = wrapTo(r, outType);
  }
  out.ints[dst] = r;
}

template <typename T>
T inputAt(const Operands& ops, std::size_t idx);
template <>
std::int64_t inputAt<std::int64_t>(const Operands& ops, std::size_t idx) {
  return ops.input.ints[idx] - ops.inputZp;
}
template <>
double inputAt<double>(const Operands& ops, std::size_t idx) {
  if (ops.boundsGlobal) return ops.boundsInput;
  return ops.nmin > 0.0 ? std::max(std::fabs(ops.input.floats[idx]), ops.nmin) : ops.input.floats[idx];
}
template <typename T>
T weightAt(const Operands& ops, std::size_t idx);
template <>
std::int64_t weightAt<std::int64_t>(const Operands& ops, std::size_t idx) {
  return ops.weight.ints[idx] - ops.weightZp;
}
template <>
double weightAt<double>(const Operands& ops, std::size_t idx) {
  return ops.nmin > 0.0 ? std::max(std::fabs(ops.weight.floats[idx]), ops.nmin) : ops.weight.floats[idx];
}

struct Geometry3d {
  std::int64_t n, id, ih, iw, ic, kd, kh, kw, oc, od, oh, ow;
  std::int64_t pd0, pt, pl;
  std::int64_t sd, sy, sx, dd, dy, dx;
};

template <typename T>
void runConv3d(Context& ctx, const Geometry3d& g, const Operands& ops, Accumulator& acc, Value& out) {
  const std::int64_t biasCount = ops.bias.size();
  std::size_t dst = 0;
  for (std::int64_t b = 0; b < g.n; ++b) {
    for (std::int64_t od = 0; od < g.od; ++od) {
      for (std::int64_t oy = 0; oy < g.oh; ++oy) {
        for (std::int64_t ox = 0; ox < g.ow; ++ox) {
          for (std::int64_t oc = 0; oc < g.oc; ++oc, ++dst) {
            acc.reset();
            for (std::int64_t kd = 0; kd < g.kd; ++kd) {
              const std::int64_t z = od * g.sd - g.pd0 + kd * g.dd;
              for (std::int64_t ky = 0; ky < g.kh; ++ky) {
                const std::int64_t y = oy * g.sy - g.pt + ky * g.dy;
                for (std::int64_t kx = 0; kx < g.kw; ++kx) {
                  const std::int64_t x = ox * g.sx - g.pl + kx * g.dx;
                  const bool inside = z >= 0 && z < g.id && y >= 0 && y < g.ih && x >= 0 && x < g.iw;
                  const std::int64_t wBase = (((oc * g.kd + kd) * g.kh + ky) * g.kw + kx) * g.ic;
                  if (!inside) {
                    if constexpr (std::is_same_v<T, double>) {
                      if (ctx.bounds) {  // padded taps count in the bound
                        for (std::int64_t c = 0; c < g.ic; ++c) {
                          acc.add(ops.boundsPad, weightAt<double>(ops, static_cast<std::size_t>(wBase + c)));
                        }
                      }
                    }
                    continue;
                  }
                  const std::int64_t iBase = (((b * g.id + z) * g.ih + y) * g.iw + x) * g.ic;
                  for (std::int64_t c = 0; c < g.ic; ++c) {
                    acc.add(inputAt<T>(ops, static_cast<std::size_t>(iBase + c)),
                            weightAt<T>(ops, static_cast<std::size_t>(wBase + c)));
                  }
                }
              }
            }
            storeResult(ctx, acc, ops, biasCount == 1 ? 0 : oc, out, dst);
          }
        }
      }
    }
  }
}

template <typename T>
void runDepthwise(Context& ctx, const Geometry3d& g, std::int64_t m, const Operands& ops, Accumulator& acc, Value& out) {
  const std::int64_t biasCount = ops.bias.size();
  std::size_t dst = 0;
  for (std::int64_t b = 0; b < g.n; ++b) {
    for (std::int64_t oy = 0; oy < g.oh; ++oy) {
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        for (std::int64_t c = 0; c < g.ic; ++c) {
          for (std::int64_t mm = 0; mm < m; ++mm, ++dst) {
            acc.reset();
            for (std::int64_t ky = 0; ky < g.kh; ++ky) {
              const std::int64_t y = oy * g.sy - g.pt + ky * g.dy;
              for (std::int64_t kx = 0; kx < g.kw; ++kx) {
                const std::int64_t x = ox * g.sx - g.pl + kx * g.dx;
                const auto wIdx = static_cast<std::size_t>(((ky * g.kw + kx) * g.ic + c) * m + mm);
                if (y < 0 || y >= g.ih || x < 0 || x >= g.iw) {
                  if constexpr (std::is_same_v<T, double>) {
                    if (ctx.bounds) acc.add(ops.boundsPad, weightAt<double>(ops, wIdx));
                  }
                  continue;
                }
                const auto iIdx = static_cast<std::size_t>(((b * g.ih + y) * g.iw + x) * g.ic + c);
                acc.add(inputAt<T>(ops, iIdx), weightAt<T>(ops, wIdx));
              }
            }
            storeResult(ctx, acc, ops, biasCount == 1 ? 0 : c * m + mm, out, dst);
          }
        }
      }
    }
  }
}

template <typename T>
void runTransposeConv(Context& ctx, const Geometry3d& g, const Operands& ops, Accumulator& acc, Value& out) {
  const std::int64_t biasCount = ops.bias.size();
  std::size_t dst = 0;
  for (std::int64_t b = 0; b < g.n; ++b) {
    for (std::int64_t oy = 0; oy < g.oh; ++oy) {
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        for (std::int64_t oc = 0; oc < g.oc; ++oc, ++dst) {
          acc.reset();
          for (std::int64_t ky = 0; ky < g.kh; ++ky) {
            const std::int64_t y = oy - g.pt - ky;
            if (y < 0 || y >= g.ih * g.sy || y % g.sy != 0) continue;
            for (std::int64_t kx = 0; kx < g.kw; ++kx) {
              const std::int64_t x = ox - g.pl - kx;
              if (x < 0 || x >= g.iw * g.sx || x % g.sx != 0) continue;
              const std::int64_t iBase = ((b * g.ih + y / g.sy) * g.iw + x / g.sx) * g.ic;
              const std::int64_t wBase = ((oc * g.kh + ky) * g.kw + kx) * g.ic;
              for (std::int64_t c = 0; c < g.ic; ++c) {
                acc.add(inputAt<T>(ops, static_cast<std::size_t>(iBase + c)),
                        weightAt<T>(ops, static_cast<std::size_t>(wBase + c)));
              }
            }
          }
          storeResult(ctx, acc, ops, biasCount == 1 ? 0 : oc, out, dst);
        }
      }
    }
  }
}

}  // namespace

Result<Outputs> evalConv(Context& ctx, Inputs in) {
  const Op op = ctx.op().op;
  const Value& input = *in[0];
  const Value& weight = *in[1];
  const Value& bias = *in[2];
  Operands ops{input, weight, bias};
  if (in.size() > 3) ops.inputZp = scalarInt(*in[3]);
  if (in.size() > 4) ops.weightZp = scalarInt(*in[4]);
  if (input.dtype != DType::Int8 && in.size() > 3 && !isZeroScalar(*in[3])) {
    return ctx.error("input_zp: expected 0 for {} input, got {}", toString(input.dtype), scalarFloat(*in[3]));
  }
  if (weight.dtype != DType::Int8 && in.size() > 4 && !isZeroScalar(*in[4])) {
    return ctx.error("weight_zp: expected 0 for {} weights, got {}", toString(weight.dtype), scalarFloat(*in[4]));
  }
  if (input.isFloat() != weight.isFloat()) {
    return ctx.error("weight: expected a type matching input {}, got {}", toString(input.dtype), toString(weight.dtype));
  }
  const bool is3d = op == Op::Conv3d;
  const std::size_t rank = is3d ? 5 : 4;
  if (input.shape.size() != rank || weight.shape.size() != 4 + (is3d ? 1 : 0) || bias.shape.size() != 1) {
    return ctx.error("input/weight/bias: expected ranks {}/{}/1, got {}, {} and {}", rank, is3d ? 5 : 4,
                     shapeToString(input.shape), shapeToString(weight.shape), shapeToString(bias.shape));
  }
  DType accType = DType::Unknown;
  bool localBound = false;
  Geometry3d g{};
  g.n = input.shape[0];
  g.id = is3d ? input.shape[1] : 1;
  g.ih = input.shape[rank - 3];
  g.iw = input.shape[rank - 2];
  g.ic = input.shape[rank - 1];
  g.kd = 1;
  g.sd = 1;
  g.dd = 1;
  std::int64_t m = 1;  // depthwise multiplier
  std::int64_t padBottom = 0;
  std::int64_t padRight = 0;
  std::int64_t padD1 = 0;
  if (op == Op::TransposeConv2d) {
    const auto* attrs = attrsAs<TransposeConv2dAttrs>(ctx.op());
    if (attrs == nullptr) return ctx.error("attribute: expected a TransposeConv2dAttribute");
    accType = attrs->accType;
    localBound = attrs->localBound;
    OPENVGF_ASSIGN_OR_RETURN(auto stride, intList(ctx, attrs->stride, 2, 1, "stride"));
    OPENVGF_ASSIGN_OR_RETURN(auto outPad, intList(ctx, attrs->outPad, 4, std::numeric_limits<std::int64_t>::min(), "out_pad"));
    g.oc = weight.shape[0];
    g.kh = weight.shape[1];
    g.kw = weight.shape[2];
    if (weight.shape[3] != g.ic) return ctx.error("weight: expected IC = {}, got {}", g.ic, weight.shape[3]);
    if (outPad[0] <= -g.kh || outPad[1] <= -g.kh || outPad[2] <= -g.kw || outPad[3] <= -g.kw) {
      return ctx.error("out_pad: expected each value > -kernel size, got [{},{},{},{}]", outPad[0], outPad[1], outPad[2],
                       outPad[3]);
    }
    g.sy = stride[0];
    g.sx = stride[1];
    g.pt = outPad[0];
    g.pl = outPad[2];
    g.oh = (g.ih - 1) * g.sy + outPad[0] + outPad[1] + g.kh;
    g.ow = (g.iw - 1) * g.sx + outPad[2] + outPad[3] + g.kw;
    g.od = 1;
  } else {
    const auto* attrs = attrsAs<ConvAttrs>(ctx.op());
    if (attrs == nullptr) return ctx.error("attribute: expected a convolution attribute");
    accType = attrs->accType;
    localBound = attrs->localBound;
    const std::size_t spatial = is3d ? 3 : 2;
    OPENVGF_ASSIGN_OR_RETURN(auto pad, intList(ctx, attrs->pad, 2 * spatial, 0, "pad"));
    OPENVGF_ASSIGN_OR_RETURN(auto stride, intList(ctx, attrs->stride, spatial, 1, "stride"));
    OPENVGF_ASSIGN_OR_RETURN(auto dilation, intList(ctx, attrs->dilation, spatial, 1, "dilation"));
    if (is3d) {
      g.pd0 = pad[0];
      padD1 = pad[1];
      g.sd = stride[0];
      g.dd = dilation[0];
    }
    const std::size_t o = is3d ? 1 : 0;
    g.pt = pad[2 * o];
    padBottom = pad[2 * o + 1];
    g.pl = pad[2 * o + 2];
    padRight = pad[2 * o + 3];
    g.sy = stride[o];
    g.sx = stride[o + 1];
    g.dy = dilation[o];
    g.dx = dilation[o + 1];
    if (op == Op::DepthwiseConv2d) {
      g.kh = weight.shape[0];
      g.kw = weight.shape[1];
      if (weight.shape[2] != g.ic) return ctx.error("weight: expected C = {}, got {}", g.ic, weight.shape[2]);
      m = weight.shape[3];
      g.oc = g.ic * m;
    } else {
      g.oc = weight.shape[0];
      g.kd = is3d ? weight.shape[1] : 1;
      g.kh = weight.shape[is3d ? 2 : 1];
      g.kw = weight.shape[is3d ? 3 : 2];
      if (weight.shape.back() != g.ic) return ctx.error("weight: expected IC = {}, got {}", g.ic, weight.shape.back());
    }
    OPENVGF_ASSIGN_OR_RETURN(g.od, checkedOutputSize(ctx, g.id - 1 + g.pd0 + padD1 - (g.kd - 1) * g.dd, g.sd, "OD"));
    OPENVGF_ASSIGN_OR_RETURN(g.oh, checkedOutputSize(ctx, g.ih - 1 + g.pt + padBottom - (g.kh - 1) * g.dy, g.sy, "OH"));
    OPENVGF_ASSIGN_OR_RETURN(g.ow, checkedOutputSize(ctx, g.iw - 1 + g.pl + padRight - (g.kw - 1) * g.dx, g.sx, "OW"));
  }
  if (bias.size() != g.oc && bias.size() != 1) {
    return ctx.error("bias: expected {} or 1 values, got {}", g.oc, bias.size());
  }
  if (g.oh < 1 || g.ow < 1) return ctx.error("output: expected a non-empty output, got {}x{}", g.oh, g.ow);
  const DType outType = ctx.outType();
  if (accType == DType::Unknown) accType = input.isFloat() ? outType : DType::Int32;
  Shape outShape = is3d ? Shape{g.n, g.od, g.oh, g.ow, g.oc} : Shape{g.n, g.oh, g.ow, g.oc};
  OPENVGF_TRY(ctx.checkOutputShape(0, outShape));
  Value out(outType, outShape);
  Accumulator acc{ctx, accType};
  if (ctx.bounds) {
    ops.nmin = normalMin(outType);
    double maxIn = 0.0;
    for (double v : input.floats) maxIn = std::max(maxIn, std::fabs(v));
    ops.boundsInput = std::max(maxIn, ops.nmin);
    ops.boundsGlobal = !localBound;
    ops.boundsPad = localBound ? ops.nmin : ops.boundsInput;
  }
  if (input.isFloat()) {
    if (op == Op::DepthwiseConv2d) {
      runDepthwise<double>(ctx, g, m, ops, acc, out);
    } else if (op == Op::TransposeConv2d) {
      runTransposeConv<double>(ctx, g, ops, acc, out);
    } else {
      runConv3d<double>(ctx, g, ops, acc, out);
    }
  } else {
    if (op == Op::DepthwiseConv2d) {
      runDepthwise<std::int64_t>(ctx, g, m, ops, acc, out);
    } else if (op == Op::TransposeConv2d) {
      runTransposeConv<std::int64_t>(ctx, g, ops, acc, out);
    } else {
      runConv3d<std::int64_t>(ctx, g, ops, acc, out);
    }
  }
  return Outputs{std::move(out)};
}

}  // namespace openvgf::tosa::reference
