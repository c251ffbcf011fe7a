// SPDX-License-Identifier: Apache-2.0
// REDUCE_ALL/ANY/MAX/MIN/PRODUCT/SUM and ARGMAX (TOSA 1.0 §2.3). A tensor is viewed as
// [outer, K, inner] around the reduced axis.
#include <cmath>
#include <limits>

#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

namespace {

struct AxisView {
  std::int64_t outer = 1;
  std::int64_t k = 1;
  std::int64_t inner = 1;
};

AxisView viewAround(const Shape& shape, std::size_t axis) {
  AxisView v;
  for (std::size_t i = 0; i < axis; ++i) v.outer *= shape[i];
  v.k = shape[axis];
  for (std::size_t i = axis + 1; i < shape.size(); ++i) v.inner *= shape[i];
  return v;
}

Result<std::size_t> checkedAxis(Context& ctx, const Value& x, std::int32_t axis) {
  if (axis < 0 || static_cast<std::size_t>(axis) >= x.shape.size()) {
    return ctx.error("axis: expected 0 <= axis < rank {}, got {}", x.shape.size(), axis);
  }
  return static_cast<std::size_t>(axis);
}

NanMode effective(NanMode m) { return m == NanMode::Ignore ? NanMode::Ignore : NanMode::Propagate; }

}  // namespace

Result<Outputs> evalReduce(Context& ctx, Inputs in) {
  const Value& x = *in[0];
  const auto* attrs = attrsAs<AxisAttrs>(ctx.op());
  if (attrs == nullptr) return ctx.error("attribute: expected an axis attribute");
  OPENVGF_ASSIGN_OR_RETURN(std::size_t axis, checkedAxis(ctx, x, attrs->axis));
  const AxisView view = viewAround(x.shape, axis);
  Shape outShape = x.shape;
  outShape[axis] = 1;
  const Op op = ctx.op().op;
  const DType outType = ctx.outType();
  Value out(outType, outShape);
  const NanMode nanMode = effective(attrs->nanMode);
  DType accType = outType == DType::Bf16 ? DType::Fp32 : outType;
  const double nmin = normalMin(outType);
  for (std::int64_t o = 0; o < view.outer; ++o) {
    for (std::int64_t i = 0; i < view.inner; ++i) {
      const auto dst = static_cast<std::size_t>(o * view.inner + i);
      auto src = [&](std::int64_t k) { return static_cast<std::size_t>((o * view.k + k) * view.inner + i); };
      if (x.isFloat()) {
        double acc = 0.0;
        switch (op) {
          case Op::ReduceSum:
            for (std::int64_t k = 0; k < view.k; ++k) {
              double v = x.floats[src(k)];
              if (ctx.bounds) v = std::max(std::fabs(v), nmin);
              acc = ctx.round(acc + v, accType);
            }
            break;
          case Op::ReduceProduct:
            acc = 1.0;
            for (std::int64_t k = 0; k < view.k; ++k) acc = ctx.round(acc * x.floats[src(k)], outType);
            break;
          case Op::ReduceMax:
          case Op::ReduceMin:
            acc = x.floats[src(0)];
            for (std::int64_t k = 1; k < view.k; ++k) {
              acc = op == Op::ReduceMax ? applyMax(acc, x.floats[src(k)], nanMode)
                                        : applyMin(acc, x.floats[src(k)], nanMode);
            }
            break;
          default: return ctx.notSupported("floating-point input of type {}", toString(x.dtype));
        }
        out.floats[dst] = ctx.round(acc, outType);
      } else {
        std::int64_t acc = 0;
        switch (op) {
          case Op::ReduceSum:
            for (std::int64_t k = 0; k < view.k; ++k) {
              acc += x.ints[src(k)];
              if (acc < minOf(DType::Int32) || acc > maxOf(DType::Int32)) {
                ctx.require(false, "REDUCE_SUM: accumulator overflows INT32 (REQUIRE)");
                acc = wrapTo(acc, DType::Int32);
              }
            }
            break;
          case Op::ReduceMax:
          case Op::ReduceMin:
            acc = x.ints[src(0)];
            for (std::int64_t k = 1; k < view.k; ++k) {
              acc = op == Op::ReduceMax ? std::max(acc, x.ints[src(k)]) : std::min(acc, x.ints[src(k)]);
            }
            break;
          case Op::ReduceAll:
            acc = 1;
            for (std::int64_t k = 0; k < view.k; ++k) acc = acc != 0 && x.ints[src(k)] != 0 ? 1 : 0;
            break;
          case Op::ReduceAny:
            acc = 0;
            for (std::int64_t k = 0; k < view.k; ++k) acc = acc != 0 || x.ints[src(k)] != 0 ? 1 : 0;
            break;
          default: return ctx.notSupported("integer input of type {}", toString(x.dtype));
        }
        out.ints[dst] = acc;
      }
    }
  }
  return Outputs{std::move(out)};
}

Result<Outputs> evalArgMax(Context& ctx, Inputs in) {
  const Value& x = *in[0];
  const auto* attrs = attrsAs<ArgMaxAttrs>(ctx.op());
  if (attrs == nullptr) return ctx.error("attribute: expected an ArgMaxAttribute");
  OPENVGF_ASSIGN_OR_RETURN(std::size_t axis, checkedAxis(ctx, x, attrs->axis));
  const AxisView view = viewAround(x.shape, axis);
  Shape outShape;
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    if (d != axis) outShape.push_back(x.shape[d]);
  }
  Value out(ctx.outType(), outShape);
  const NanMode nanMode = effective(attrs->nanMode);
  for (std::int64_t o = 0; o < view.outer; ++o) {
    for (std::int64_t i = 0; i < view.inner; ++i) {
      auto src = [&](std::int64_t k) { return static_cast<std::size_t>((o * view.k + k) * view.inner + i); };
      std::int64_t best = 0;
      if (x.isFloat()) {
        // PROPAGATE: NaN ranks above every number, so the first NaN wins. IGNORE: NaN ranks
        // below every number; an all-NaN row gives 0.
        double bestValue = x.floats[src(0)];
        for (std::int64_t k = 1; k < view.k; ++k) {
          const double v = x.floats[src(k)];
          const bool bestNan = std::isnan(bestValue);
          const bool vNan = std::isnan(v);
          bool better = false;
          if (nanMode == NanMode::Propagate) {
            better = !bestNan && (vNan || v > bestValue);
          } else {
            better = !vNan && (bestNan || v > bestValue);
          }
          if (better) {
            best = k;
            bestValue = v;
          }
        }
      } else {
        std::int64_t bestValue = x.ints[src(0)];
        for (std::int64_t k = 1; k < view.k; ++k) {
          if (x.ints[src(k)] > bestValue) {
            best = k;
            bestValue = x.ints[src(k)];
          }
        }
      }
      out.ints[static_cast<std::size_t>(o * view.inner + i)] = best;
    }
  }
  return Outputs{std::move(out)};
}

}  // namespace openvgf::tosa::reference
