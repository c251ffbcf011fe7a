// SPDX-License-Identifier: Apache-2.0
// CAST (TOSA 1.0 §2.3): integer narrowing wraps; float -> integer rounds half to even and
// saturates; conversions to floating point round to nearest even (FP8 outputs follow OCP's
// non-saturating rules through tosa/float_types.h).
#include <cmath>

#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

namespace {

double roundHalfEven(double v) {
  const double f = std::floor(v);
  const double diff = v - f;
  if (diff > 0.5) return f + 1.0;
  if (diff < 0.5) return f;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

}  // namespace

Result<Outputs> evalCast(Context& ctx, Inputs in) {
  const Value& x = *in[0];
  const DType outType = ctx.outType();
  Value out(outType, x.shape);
  const bool outFloat = isFloat(outType);
  const std::size_t n = static_cast<std::size_t>(x.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (outType == DType::Bool) {
      out.ints[i] = x.isFloat() ? (x.floats[i] != 0.0 ? 1 : 0) : (x.ints[i] != 0 ? 1 : 0);
    } else if (x.isFloat() && outFloat) {
      out.floats[i] = ctx.round(x.floats[i], outType);
    } else if (x.isFloat()) {
      const double v = x.floats[i];
      if (std::isnan(v)) {
        ctx.require(false, "CAST of NaN to {} (REQUIRE)", toString(outType));
        out.ints[i] = 0;
        continue;
      }
      const double lo = static_cast<double>(minOf(outType));
      const double hi = static_cast<double>(maxOf(outType));
      out.ints[i] = static_cast<std::int64_t>(std::clamp(roundHalfEven(v), lo, hi));
    } else if (outFloat) {
      out.floats[i] = ctx.round(static_cast<double>(x.ints[i]), outType);
    } else {
      out.ints[i] = wrapTo(x.ints[i], outType);
    }
  }
  return Outputs{std::move(out)};
}

}  // namespace openvgf::tosa::reference
