// SPDX-License-Identifier: Apache-2.0
// MATMUL (TOSA 1.0 §2.3): out[n,h,w] = sum_c (A[n,h,c] - A_zp) * (B[n,c,w] - B_zp),
// accumulated in the output type (INT32, INT48, FP16 or FP32).
#include <cmath>

#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

Result<Outputs> evalMatMul(Context& ctx, Inputs in) {
  const Value& a = *in[0];
  const Value& b = *in[1];
  if (a.shape.size() != 3 || b.shape.size() != 3 || a.shape[0] != b.shape[0] || a.shape[2] != b.shape[1]) {
    return ctx.error("A/B: expected [N,H,C] and [N,C,W], got {} and {}", shapeToString(a.shape), shapeToString(b.shape));
  }
  if (a.dtype != b.dtype) return ctx.error("B: expected the type of A ({}), got {}", toString(a.dtype), toString(b.dtype));
  std::int64_t aZp = in.size() > 2 ? scalarInt(*in[2]) : 0;
  std::int64_t bZp = in.size() > 3 ? scalarInt(*in[3]) : 0;
  if (a.dtype != DType::Int8 && ((in.size() > 2 && !isZeroScalar(*in[2])) || (in.size() > 3 && !isZeroScalar(*in[3])))) {
    return ctx.error("A_zp/B_zp: expected 0 for {}", toString(a.dtype));
  }
  const std::int64_t n = a.shape[0];
  const std::int64_t h = a.shape[1];
  const std::int64_t c = a.shape[2];
  const std::int64_t w = b.shape[2];
  const DType outType = ctx.outType();
  // BF16 inputs accumulate in FP32 (the output type); FP8 inputs in FP16.
  const DType accType = outType;
  OPENVGF_TRY(ctx.checkOutputShape(0, Shape{n, h, w}));
  Value out(outType, Shape{n, h, w});
  const double nmin = normalMin(outType);
  std::size_t dst = 0;
  for (std::int64_t bi = 0; bi < n; ++bi) {
    for (std::int64_t y = 0; y < h; ++y) {
      for (std::int64_t x = 0; x < w; ++x, ++dst) {
        if (a.isFloat()) {
          double acc = 0.0;
          for (std::int64_t k = 0; k < c; ++k) {
            double av = a.floats[static_cast<std::size_t>((bi * h + y) * c + k)];
            double bv = b.floats[static_cast<std::size_t>((bi * c + k) * w + x)];
            if (ctx.bounds) {
              av = std::max(std::fabs(av), nmin);
              bv = std::max(std::fabs(bv), nmin);
            }
            acc = ctx.round(acc + av * bv, accType);
          }
          out.floats[dst] = ctx.round(acc, outType);
        } else {
          std::int64_t acc = 0;
          for (std::int64_t k = 0; k < c; ++k) {
            acc += (a.ints[static_cast<std::size_t>((bi * h + y) * c + k)] - aZp) *
                   (b.ints[static_cast<std::size_t>((bi * c + k) * w + x)] - bZp);
          }
          if (acc < minOf(outType) || acc > maxOf(outType)) {
            ctx.require(false, "MATMUL: accumulator overflows {} (REQUIRE)", toString(outType));
            acc = wrapTo(acc, outType);
          }
          out.ints[dst] = acc;
        }
      }
    }
  }
  return Outputs{std::move(out)};
}

}  // namespace openvgf::tosa::reference
