// SPDX-License-Identifier: Apache-2.0
// RESIZE (TOSA 1.0 §2.3): NEAREST and BILINEAR with the spec's integer position arithmetic
// (scale = [y_n, y_d, x_n, x_d], offset, border). Integer BILINEAR results are scaled by
// y_n * x_n (a following RESCALE divides it out).
#include <cmath>

#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

Result<Outputs> evalResize(Context& ctx, Inputs in) {
  const Value& x = *in[0];
  const std::vector<std::int64_t> scale = shapeValues(*in[1]);
  const std::vector<std::int64_t> offset = shapeValues(*in[2]);
  const std::vector<std::int64_t> border = shapeValues(*in[3]);
  const auto* attrs = attrsAs<ResizeAttrs>(ctx.op());
  if (attrs == nullptr) return ctx.error("attribute: expected a ResizeAttribute");
  if (x.shape.size() != 4) return ctx.error("input: expected rank 4 (NHWC), got {}", shapeToString(x.shape));
  if (scale.size() != 4 || offset.size() != 2 || border.size() != 2) {
    return ctx.error("scale/offset/border: expected 4/2/2 values, got {}/{}/{}", scale.size(), offset.size(), border.size());
  }
  const ResizeMode mode = attrs->mode;
  if (mode != ResizeMode::Nearest && mode != ResizeMode::Bilinear) {
    return ctx.error("mode: expected NEAREST or BILINEAR, got {}", toString(mode));
  }
  const std::int64_t yn = scale[0], yd = scale[1], xn = scale[2], xd = scale[3];
  const std::int64_t offY = offset[0], offX = offset[1];
  const std::int64_t borY = border[0], borX = border[1];
  if (yn <= 0 || yd <= 0 || xn <= 0 || xd <= 0) return ctx.error("scale: expected positive values");
  if (yn > 2048 || xn > 2048) return ctx.error("scale: expected scale_y_n, scale_x_n <= 2048, got {} and {}", yn, xn);
  if (yd >= 16 * yn || xd >= 16 * xn) return ctx.error("scale: expected scale_d < 16 * scale_n");
  if (offY < -yn || offY >= 16 * yn || offX < -xn || offX >= 16 * xn) {
    return ctx.error("offset: expected -scale_n <= offset < 16 * scale_n, got [{},{}]", offY, offX);
  }
  if (borY < -16 * yn || borY >= yn || borX < -16 * xn || borX >= xn) {
    return ctx.error("border: expected -16 * scale_n <= border < scale_n, got [{},{}]", borY, borX);
  }
  const std::int64_t n = x.shape[0], ih = x.shape[1], iw = x.shape[2], c = x.shape[3];
  const std::int64_t hNum = (ih - 1) * yn - offY + borY;
  const std::int64_t wNum = (iw - 1) * xn - offX + borX;
  if (hNum < 0 || hNum % yd != 0 || wNum < 0 || wNum % xd != 0) {
    return ctx.error("output size: expected (IH-1)*scale_y_n - offset_y + border_y divisible by scale_y_d (and for x), "
                     "got {} / {} and {} / {}",
                     hNum, yd, wNum, xd);
  }
  const std::int64_t oh = hNum / yd + 1;
  const std::int64_t ow = wNum / xd + 1;
  if (std::max({oh, ow, ih, iw}) >= 16384) return ctx.error("size: expected every H and W < 16384");
  const DType outType = ctx.outType();
  OPENVGF_TRY(ctx.checkOutputShape(0, Shape{n, oh, ow, c}));
  Value out(outType, Shape{n, oh, ow, c});
  const bool fp = x.isFloat();
  const DType rt = x.dtype;  // resize_t for floats
  std::size_t dst = 0;
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t oy = 0; oy < oh; ++oy) {
      const std::int64_t y = oy * yd + offY;
      const std::int64_t iy = floorDiv(y, yn);
      const std::int64_t ry = y - iy * yn;
      const std::int64_t iy0 = std::max<std::int64_t>(iy, 0);
      const std::int64_t iy1 = std::min<std::int64_t>(iy + 1, ih - 1);
      for (std::int64_t ox = 0; ox < ow; ++ox) {
        const std::int64_t xx = ox * xd + offX;
        const std::int64_t ix = floorDiv(xx, xn);
        const std::int64_t rx = xx - ix * xn;
        const std::int64_t ix0 = std::max<std::int64_t>(ix, 0);
        const std::int64_t ix1 = std::min<std::int64_t>(ix + 1, iw - 1);
        for (std::int64_t ch = 0; ch < c; ++ch, ++dst) {
          auto at = [&](std::int64_t yy, std::int64_t xi) {
            return static_cast<std::size_t>(((b * ih + yy) * iw + xi) * c + ch);
          };
          if (fp) {
            const double dy = ctx.round(static_cast<double>(ry) / static_cast<double>(yn), rt);
            const double dx = ctx.round(static_cast<double>(rx) / static_cast<double>(xn), rt);
            if (mode == ResizeMode::Nearest) {
              out.floats[dst] = x.floats[at(dy >= 0.5 ? iy1 : iy0, dx >= 0.5 ? ix1 : ix0)];
            } else {
              const double wy0 = ctx.round(1.0 - dy, rt);
              const double wx0 = ctx.round(1.0 - dx, rt);
              double acc = ctx.round(ctx.round(x.floats[at(iy0, ix0)] * wy0, rt) * wx0, rt);
              acc = ctx.round(acc + ctx.round(ctx.round(x.floats[at(iy0, ix1)] * wy0, rt) * dx, rt), rt);
              acc = ctx.round(acc + ctx.round(ctx.round(x.floats[at(iy1, ix0)] * dy, rt) * wx0, rt), rt);
              acc = ctx.round(acc + ctx.round(ctx.round(x.floats[at(iy1, ix1)] * dy, rt) * dx, rt), rt);
              out.floats[dst] = ctx.round(acc, outType);
            }
          } else if (mode == ResizeMode::Nearest) {
            out.ints[dst] = x.ints[at(2 * ry >= yn ? iy1 : iy0, 2 * rx >= xn ? ix1 : ix0)];
          } else {
            const std::int64_t acc = x.ints[at(iy0, ix0)] * (yn - ry) * (xn - rx) +
                                     x.ints[at(iy0, ix1)] * (yn - ry) * rx + x.ints[at(iy1, ix0)] * ry * (xn - rx) +
                                     x.ints[at(iy1, ix1)] * ry * rx;
            out.ints[dst] = acc;
          }
        }
      }
    }
  }
  return Outputs{std::move(out)};
}

}  // namespace openvgf::tosa::reference
