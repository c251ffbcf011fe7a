// SPDX-License-Identifier: Apache-2.0
// Elementwise operators (TOSA 1.0 §2.2 elementwise binary/unary/ternary, comparison,
// activation, TABLE). Integer arithmetic is done in int64 and checked against the type's
// range, so REQUIRE failures (e.g. INT32 overflow in ADD) become diagnostics with a wrapped
// result instead of undefined behaviour.
#include <bit>
#include <cmath>
#include <limits>

#include "tosa/reference/broadcast.h"
#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

namespace {

__extension__ using Int128 = __int128;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Result<Shape> binaryShape(Context& ctx, const Value& a, const Value& b) {
  auto shape = broadcastShapes(a.shape, b.shape);
  if (!shape) {
    return ctx.error("inputs: expected broadcast-compatible shapes of equal rank, got {} and {}",
                     shapeToString(a.shape), shapeToString(b.shape));
  }
  return *shape;
}

// Checked int32 result of an exact int64 computation.
std::int64_t checkedInt32(Context& ctx, std::int64_t v, const char* what) {
  if (v < minOf(DType::Int32) || v > maxOf(DType::Int32)) {
    ctx.require(false, "{}: result {} overflows INT32 (REQUIRE)", what, v);
    return wrapTo(v, DType::Int32);
  }
  return v;
}

Result<Outputs> integerBinary(Context& ctx, const Value& a, const Value& b, const Value* shiftInput,
                              const Shape& shape) {
  const Op op = ctx.op().op;
  const DType inType = a.dtype;
  const DType outType = ctx.outType();
  OPENVGF_TRY(ctx.checkOutputShape(0, shape));
  Value out(outType, shape);
  const auto ma = broadcastMap(shape, a.shape);
  const auto mb = broadcastMap(shape, b.shape);
  const int bits = valueBits(inType);
  std::int64_t mulShift = 0;
  if (op == Op::Mul && shiftInput != nullptr) {
    mulShift = scalarInt(*shiftInput);
    ctx.require(mulShift >= 0 && mulShift <= 63, "shift {} outside [0, 63] (REQUIRE)", mulShift);
    ctx.require(mulShift == 0 || inType == DType::Int32, "shift {} must be 0 for {} inputs (REQUIRE)", mulShift,
                toString(inType));
    mulShift = std::clamp<std::int64_t>(mulShift, 0, 63);
    if (inType != DType::Int32) mulShift = 0;
  }
  for (std::size_t i = 0; i < out.ints.size(); ++i) {
    const std::int64_t x = a.ints[static_cast<std::size_t>(ma[i])];
    const std::int64_t y = b.ints[static_cast<std::size_t>(mb[i])];
    std::int64_t r = 0;
    switch (op) {
      case Op::Add: r = checkedInt32(ctx, x + y, "ADD"); break;
      case Op::Sub: r = checkedInt32(ctx, x - y, "SUB"); break;
      case Op::Mul: {
        if (inType != DType::Int32) {
          r = x * y;  // i8/i16 products are exact in i32
        } else if (mulShift == 0) {
          r = wrapTo(x * y, DType::Int32);  // low 32 bits, as specified
        } else {
          Int128 p = static_cast<Int128>(x) * y;
          p = (p + (static_cast<Int128>(1) << (mulShift - 1))) >> mulShift;
          auto narrowed = static_cast<std::int64_t>(p);
          if (p < minOf(DType::Int32) || p > maxOf(DType::Int32)) {
            ctx.require(false, "MUL: scaled product overflows INT32 (REQUIRE)");
            narrowed = wrapTo(narrowed, DType::Int32);
          }
          r = narrowed;
        }
        break;
      }
      case Op::IntDiv:
        if (y == 0) {
          ctx.require(false, "INTDIV: division by zero (REQUIRE)");
          r = 0;
        } else {
          r = checkedInt32(ctx, x / y, "INTDIV");  // C division truncates toward zero
        }
        break;
      case Op::BitwiseAnd: r = x & y; break;
      case Op::BitwiseOr: r = x | y; break;
      case Op::BitwiseXor: r = x ^ y; break;
      case Op::LogicalAnd: r = (x != 0 && y != 0) ? 1 : 0; break;
      case Op::LogicalOr: r = (x != 0 || y != 0) ? 1 : 0; break;
      case Op::LogicalXor: r = ((x != 0) != (y != 0)) ? 1 : 0; break;
      case Op::ArithmeticRightShift:
      case Op::LogicalLeftShift:
      case Op::LogicalRightShift: {
        std::int64_t s = y;
        if (s < 0 || s >= bits) {
          ctx.require(false, "shift {} outside [0, {}] for {} (REQUIRE)", s, bits - 1, toString(inType));
          s = std::clamp<std::int64_t>(s, 0, bits - 1);
        }
        if (op == Op::ArithmeticRightShift) {
          r = x >> s;
          const auto* attrs = attrsAs<ArithmeticRightShiftAttrs>(ctx.op());
          if (attrs != nullptr && attrs->round && s > 0 && ((x >> (s - 1)) & 1) != 0) r += 1;
        } else if (op == Op::LogicalLeftShift) {
          r = wrapTo(static_cast<std::int64_t>(static_cast<std::uint64_t>(x) << s), inType);
        } else {
          const std::uint64_t mask = (bits >= 64) ? ~std::uint64_t{0} : ((std::uint64_t{1} << bits) - 1);
          r = wrapTo(static_cast<std::int64_t>((static_cast<std::uint64_t>(x) & mask) >> s), inType);
        }
        break;
      }
      case Op::Maximum: r = std::max(x, y); break;
      case Op::Minimum: r = std::min(x, y); break;
      case Op::Equal: r = x == y ? 1 : 0; break;
      case Op::Greater: r = x > y ? 1 : 0; break;
      case Op::GreaterEqual: r = x >= y ? 1 : 0; break;
      default: return ctx.notSupported("integer inputs of type {}", toString(inType));
    }
    out.ints[i] = r;
  }
  return Outputs{std::move(out)};
}

Result<Outputs> floatBinary(Context& ctx, const Value& a, const Value& b, const Shape& shape) {
  const Op op = ctx.op().op;
  const DType outType = ctx.outType();
  OPENVGF_TRY(ctx.checkOutputShape(0, shape));
  Value out(outType, shape);
  const auto ma = broadcastMap(shape, a.shape);
  const auto mb = broadcastMap(shape, b.shape);
  NanMode nanMode = NanMode::Propagate;
  if (const auto* attrs = attrsAs<NanModeAttrs>(ctx.op())) {
    nanMode = attrs->nanMode == NanMode::Ignore ? NanMode::Ignore : NanMode::Propagate;
  }
  const std::size_t n = static_cast<std::size_t>(elementCount(shape));
  for (std::size_t i = 0; i < n; ++i) {
    const double x = a.floats[static_cast<std::size_t>(ma[i])];
    const double y = b.floats[static_cast<std::size_t>(mb[i])];
    switch (op) {
      case Op::Add: out.floats[i] = ctx.round(x + y, outType); break;
      case Op::Sub: out.floats[i] = ctx.round(x - y, outType); break;
      case Op::Mul: out.floats[i] = ctx.round(x * y, outType); break;
      case Op::Pow:
        ctx.require(!(x < 0.0) && std::isfinite(x) && std::isfinite(y) && !(x == 0.0 && y <= 0.0),
                    "POW({}, {}) is undefined (REQUIRE)", x, y);
        out.floats[i] = ctx.round(std::pow(x, y), outType);
        break;
      case Op::Maximum: out.floats[i] = applyMax(x, y, nanMode); break;
      case Op::Minimum: out.floats[i] = applyMin(x, y, nanMode); break;
      case Op::Equal: out.ints[i] = x == y ? 1 : 0; break;
      case Op::Greater: out.ints[i] = x > y ? 1 : 0; break;
      case Op::GreaterEqual: out.ints[i] = x >= y ? 1 : 0; break;
      default: return ctx.notSupported("floating-point inputs of type {}", toString(a.dtype));
    }
  }
  return Outputs{std::move(out)};
}

double erfOf(double x) { return std::erf(x); }

double sigmoidOf(double x) {
  if (x == -std::numeric_limits<double>::infinity()) return 0.0;
  return 1.0 / (1.0 + std::exp(-x));
}

}  // namespace

Result<Outputs> evalElementwiseBinary(Context& ctx, Inputs in) {
  const Value& a = *in[0];
  const Value& b = *in[1];
  if (a.dtype != b.dtype) {
    return ctx.error("input2: expected the type of input1 ({}), got {}", toString(a.dtype), toString(b.dtype));
  }
  OPENVGF_ASSIGN_OR_RETURN(Shape shape, binaryShape(ctx, a, b));
  if (a.isFloat()) return floatBinary(ctx, a, b, shape);
  const Value* shift = (ctx.op().op == Op::Mul && in.size() > 2) ? in[2] : nullptr;
  return integerBinary(ctx, a, b, shift, shape);
}

Result<Outputs> evalElementwiseUnary(Context& ctx, Inputs in) {
  const Value& x = *in[0];
  const Op op = ctx.op().op;
  const DType outType = ctx.outType();
  Value out(outType, x.shape);
  const std::size_t n = static_cast<std::size_t>(x.size());
  if (!x.isFloat()) {
    std::int64_t inZp = 0;
    std::int64_t outZp = 0;
    if (op == Op::Negate) {
      if (in.size() > 1) inZp = scalarInt(*in[1]);
      if (in.size() > 2) outZp = scalarInt(*in[2]);
      if (x.dtype != DType::Int8 && (inZp != 0 || outZp != 0)) {
        return ctx.error("input1_zp/output_zp: expected 0 for {}, got {}/{}", toString(x.dtype), inZp, outZp);
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t v = x.ints[i];
      switch (op) {
        case Op::Abs: out.ints[i] = checkedInt32(ctx, v < 0 ? -v : v, "ABS"); break;
        case Op::BitwiseNot: out.ints[i] = ~v; break;
        case Op::Clz:
          out.ints[i] = std::countl_zero(static_cast<std::uint32_t>(static_cast<std::int32_t>(v)));
          break;
        case Op::LogicalNot: out.ints[i] = v != 0 ? 0 : 1; break;
        case Op::Negate: {
          std::int64_t r = checkedInt32(ctx, v - inZp, "NEGATE");
          r = checkedInt32(ctx, -r, "NEGATE");
          r = checkedInt32(ctx, r + outZp, "NEGATE");
          out.ints[i] = clipTo(r, outType);
          break;
        }
        default: return ctx.notSupported("integer input of type {}", toString(x.dtype));
      }
    }
    return Outputs{std::move(out)};
  }
  if (op == Op::Negate) {
    for (std::size_t k = 1; k < in.size() && k < 3; ++k) {
      if (!isZeroScalar(*in[k])) return ctx.error("zero point {}: expected 0 for floating-point types", k);
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double v = x.floats[i];
    double r = 0.0;
    switch (op) {
      case Op::Abs: r = std::fabs(v); break;
      case Op::Negate: r = -v; break;
      case Op::Ceil: r = std::ceil(v); break;
      case Op::Floor: r = std::floor(v); break;
      case Op::Cos: r = std::cos(v); break;
      case Op::Sin: r = std::sin(v); break;
      case Op::Exp: r = std::exp(v); break;
      case Op::Log: r = std::isnan(v) ? v : (v < 0.0 ? kNaN : std::log(v)); break;
      case Op::Reciprocal: r = 1.0 / v; break;
      case Op::Rsqrt: r = v < 0.0 ? kNaN : 1.0 / std::sqrt(v); break;
      case Op::Erf: r = erfOf(v); break;
      case Op::Sigmoid: r = sigmoidOf(v); break;
      case Op::Tanh: r = std::tanh(v); break;
      default: return ctx.notSupported("floating-point input of type {}", toString(x.dtype));
    }
    out.floats[i] = ctx.round(r, outType);
  }
  return Outputs{std::move(out)};
}

Result<Outputs> evalSelect(Context& ctx, Inputs in) {
  const Value& c = *in[0];
  const Value& a = *in[1];
  const Value& b = *in[2];
  if (c.dtype != DType::Bool) return ctx.error("input1: expected BOOL, got {}", toString(c.dtype));
  if (a.dtype != b.dtype) {
    return ctx.error("input3: expected the type of input2 ({}), got {}", toString(a.dtype), toString(b.dtype));
  }
  auto s1 = broadcastShapes(c.shape, a.shape);
  auto shape = s1 ? broadcastShapes(*s1, b.shape) : std::nullopt;
  if (!shape) {
    return ctx.error("inputs: expected broadcast-compatible shapes, got {}, {} and {}", shapeToString(c.shape),
                     shapeToString(a.shape), shapeToString(b.shape));
  }
  OPENVGF_TRY(ctx.checkOutputShape(0, *shape));
  Value out(a.dtype, *shape);
  const auto mc = broadcastMap(*shape, c.shape);
  const auto ma = broadcastMap(*shape, a.shape);
  const auto mb = broadcastMap(*shape, b.shape);
  for (std::size_t i = 0; i < mc.size(); ++i) {
    const bool pick = c.ints[static_cast<std::size_t>(mc[i])] != 0;
    const auto src = static_cast<std::size_t>(pick ? ma[i] : mb[i]);
    if (a.isFloat()) {
      out.floats[i] = pick ? a.floats[src] : b.floats[src];
    } else {
      out.ints[i] = pick ? a.ints[src] : b.ints[src];
    }
  }
  return Outputs{std::move(out)};
}

Result<Outputs> evalClamp(Context& ctx, Inputs in) {
  const Value& x = *in[0];
  const auto* attrs = attrsAs<ClampAttrs>(ctx.op());
  if (attrs == nullptr) return ctx.error("attribute: expected a ClampAttribute");
  const std::size_t elemBytes = hostElementBytes(x.dtype);
  if (attrs->minVal.size() < elemBytes || attrs->maxVal.size() < elemBytes) {
    return ctx.error("min_val/max_val: expected {} bytes of {}, got {}/{}", elemBytes, toString(x.dtype),
                     attrs->minVal.size(), attrs->maxVal.size());
  }
  HostTensor lo(x.dtype, {});
  HostTensor hi(x.dtype, {});
  std::copy_n(attrs->minVal.begin(), elemBytes, lo.bytes.begin());
  std::copy_n(attrs->maxVal.begin(), elemBytes, hi.bytes.begin());
  const Value loV = fromHost(lo);
  const Value hiV = fromHost(hi);
  const NanMode mode = attrs->nanMode == NanMode::Ignore ? NanMode::Ignore : NanMode::Propagate;
  Value out(x.dtype, x.shape);
  if (x.isFloat()) {
    const double mn = loV.floats[0];
    const double mx = hiV.floats[0];
    if (std::isnan(mn) || std::isnan(mx)) return ctx.error("min_val/max_val: expected numbers, got NaN");
    if (mx < mn) return ctx.error("max_val: expected max_val >= min_val, got {} < {}", mx, mn);
    for (std::size_t i = 0; i < out.floats.size(); ++i) {
      out.floats[i] = applyMin(applyMax(x.floats[i], mn, mode), mx, mode);
    }
  } else {
    const std::int64_t mn = loV.ints[0];
    const std::int64_t mx = hiV.ints[0];
    if (mx < mn) return ctx.error("max_val: expected max_val >= min_val, got {} < {}", mx, mn);
    for (std::size_t i = 0; i < out.ints.size(); ++i) out.ints[i] = std::min(std::max(x.ints[i], mn), mx);
  }
  return Outputs{std::move(out)};
}

Result<Outputs> evalTable(Context& ctx, Inputs in) {
  const Value& x = *in[0];
  const Value& table = *in[1];
  Value out(ctx.outType(), x.shape);
  if (x.dtype == DType::Int8) {
    if (table.size() != 256) return ctx.error("table: expected 256 entries for INT8, got {}", table.size());
    for (std::size_t i = 0; i < out.ints.size(); ++i) {
      out.ints[i] = table.ints[static_cast<std::size_t>(x.ints[i] + 128)];
    }
    return Outputs{std::move(out)};
  }
  if (x.dtype == DType::Int16) {
    if (table.size() != 513) return ctx.error("table: expected 513 entries for INT16, got {}", table.size());
    for (std::size_t i = 0; i < out.ints.size(); ++i) {
      const std::int64_t v = x.ints[i];
      const auto index = static_cast<std::size_t>((v + 32768) >> 7);
      const std::int64_t frac = v & 0x7F;
      const std::int64_t base = table.ints[index];
      const std::int64_t next = table.ints[index + 1];
      const std::int64_t slope = next - base;
      ctx.require(slope >= -32768 && slope <= 32767, "table slope {} does not fit INT16 (REQUIRE)", slope);
      out.ints[i] = base * 128 + slope * frac;
    }
    return Outputs{std::move(out)};
  }
  return ctx.notSupported("input1 of type {}", toString(x.dtype));
}

}  // namespace openvgf::tosa::reference
