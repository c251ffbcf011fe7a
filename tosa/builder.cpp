// SPDX-License-Identifier: Apache-2.0
// Builder implementation: typed helpers funnel into addOperator, which infers outputs, names
// them and appends the operator to the block being built.
#include "tosa/builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "tosa/float_types.h"
#include "tosa/packing.h"
#include "tosa/writer.h"

namespace openvgf::tosa {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Default accumulator of the convolutions for an input type.
DType defaultConvAcc(DType in) {
  switch (in) {
    case DType::Int8: return DType::Int32;
    case DType::Int16: return DType::Int48;
    case DType::Fp8E4M3:
    case DType::Fp8E5M2: return DType::Fp16;
    default: return DType::Fp32;
  }
}

std::vector<std::int32_t> orDefault(const std::vector<std::int32_t>& v, std::size_t n, std::int32_t fill) {
  return v.empty() ? std::vector<std::int32_t>(n, fill) : v;
}

}  // namespace

std::uint16_t floatToBits(DType type, double value) {
  const FloatFormat* format = floatFormatOf(type);
  return format != nullptr ? static_cast<std::uint16_t>(encodeFloat(value, *format)) : 0;
}

Builder::Builder(Version version) {
  graph_.version = version;
  graph_.regions.push_back(Region{"main", {}});
  Block main;
  main.name = "main";
  graph_.regions[0].blocks.push_back(std::move(main));
  blockStack_.emplace_back(0, 0);
}

Block& Builder::current() {
  auto [r, b] = blockStack_.back();
  return graph_.regions[r].blocks[b];
}

void Builder::fail(Error error) {
  if (!error_) error_ = std::move(error);
}

std::string Builder::uniqueName(std::string_view stem) {
  for (;;) {
    std::string candidate = fmt::format("{}_{}", stem, nextId_++);
    if (!names_.contains(candidate)) return candidate;
  }
}

Tensor* Builder::declare(std::string name, DType dtype, Shape shape) {
  if (failed()) return nullptr;
  if (name.empty()) {
    fail(Error(ErrorKind::InvalidInput, "builder: expected a non-empty tensor name"));
    return nullptr;
  }
  if (!names_.insert(name).second) {
    fail(Error(ErrorKind::InvalidInput, fmt::format("builder: tensor '{}': expected a unique name, got a "
                                                    "duplicate definition",
                                                    name)));
    return nullptr;
  }
  Tensor t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = std::move(shape);
  current().tensors.push_back(std::move(t));
  return &current().tensors.back();
}

Value Builder::input(std::string name, DType dtype, Shape shape) {
  Tensor* t = declare(std::move(name), dtype, std::move(shape));
  if (t == nullptr) return {};
  current().inputs.push_back(t->name);
  return {t->name, t->dtype, t->shape};
}

void Builder::output(const Value& value) {
  if (failed()) return;
  current().outputs.push_back(value.name);
}

Value Builder::constant(const HostTensor& value, std::string name) {
  if (failed()) return {};
  auto count = checkedElementCount(value.shape);
  if (!count || value.bytes.size() != static_cast<std::size_t>(*count) * hostElementBytes(value.dtype)) {
    fail(Error(ErrorKind::InvalidInput,
               fmt::format("builder: constant {}: expected {} bytes for shape {} of {}, got {}", name,
                           count ? static_cast<std::size_t>(*count) * hostElementBytes(value.dtype) : 0,
                           shapeToString(value.shape), toString(value.dtype), value.bytes.size())));
    return {};
  }
  if (name.empty()) name = uniqueName(value.dtype == DType::Shape ? "const_shape" : "const");
  Tensor* t = declare(name, value.dtype, value.shape);
  if (t == nullptr) return {};
  t->data = value.bytes;
  Operator op;
  op.op = value.dtype == DType::Shape ? Op::ConstShape : Op::Const;
  op.attributeTag = static_cast<std::uint8_t>(op.op);
  op.outputs = {name};
  if (value.dtype == DType::Shape) {
    t->inShapeTable = true;
    shapeValues_[name] =
        std::vector<std::int64_t>(value.as<std::int64_t>().begin(), value.as<std::int64_t>().end());
  }
  Value v{name, value.dtype, value.shape};
  current().operators.push_back(std::move(op));
  return v;
}

Value Builder::constantFromInts(DType dtype, Shape shape, const std::vector<std::int64_t>& values,
                                std::string name) {
  if (failed()) return {};
  if (isFloat(dtype)) {
    return constantFromDoubles(dtype, std::move(shape), std::vector<double>(values.begin(), values.end()),
                               std::move(name));
  }
  HostTensor t(dtype, shape);
  if (static_cast<std::int64_t>(values.size()) != t.size()) {
    fail(Error(ErrorKind::InvalidInput,
               fmt::format("builder: constant {}: expected {} values for shape {}, got {}", name, t.size(),
                           shapeToString(shape), values.size())));
    return {};
  }
  int bits = dtype == DType::Bool ? 1 : valueBits(dtype);
  std::int64_t lo = dtype == DType::Bool ? 0
                    : bits >= 64         ? std::numeric_limits<std::int64_t>::min()
                                         : -(std::int64_t{1} << (bits - 1));
  std::int64_t hi = dtype == DType::Bool ? 1
                    : bits >= 64         ? std::numeric_limits<std::int64_t>::max()
                                         : (std::int64_t{1} << (bits - 1)) - 1;
  std::size_t eb = hostElementBytes(dtype);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::int64_t v = values[i];
    if (v < lo || v > hi) {
      fail(Error(ErrorKind::InvalidInput,
                 fmt::format("builder: constant {}: value [{}] = {} is outside the range "
                             "[{}, {}] of {}",
                             name, i, v, lo, hi, toString(dtype))));
      return {};
    }
    // Little-endian host: the low bytes of the int64 are the narrower value.
    std::memcpy(t.bytes.data() + i * eb, &v, eb);
  }
  return constant(t, std::move(name));
}

Value Builder::constantFromDoubles(DType dtype, Shape shape, const std::vector<double>& values,
                                   std::string name) {
  if (failed()) return {};
  if (!isFloat(dtype)) {
    std::vector<std::int64_t> ints;
    for (double d : values) {
      if (!std::isfinite(d) || std::fabs(d) > 9.2e18) {
        fail(Error(ErrorKind::InvalidInput,
                   fmt::format("builder: constant {}: value {} does not fit {}", name, d, toString(dtype))));
        return {};
      }
      ints.push_back(std::llround(d));
    }
    return constantFromInts(dtype, std::move(shape), ints, std::move(name));
  }
  HostTensor t(dtype, shape);
  if (static_cast<std::int64_t>(values.size()) != t.size()) {
    fail(Error(ErrorKind::InvalidInput,
               fmt::format("builder: constant {}: expected {} values for shape {}, got {}", name, t.size(),
                           shapeToString(shape), values.size())));
    return {};
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::Fp32) {
      float f = static_cast<float>(values[i]);
      std::memcpy(t.bytes.data() + i * 4, &f, 4);
    } else {
      std::uint16_t bits = floatToBits(dtype, values[i]);
      std::memcpy(t.bytes.data() + i * hostElementBytes(dtype), &bits, hostElementBytes(dtype));
    }
  }
  return constant(t, std::move(name));
}

Value Builder::splat(DType dtype, Shape shape, double value, std::string name) {
  auto count = checkedElementCount(shape);
  if (!count || *count > (std::int64_t{1} << 32)) {
    fail(Error(ErrorKind::InvalidInput, fmt::format("builder: splat: bad shape {}", shapeToString(shape))));
    return {};
  }
  return constantFromDoubles(dtype, std::move(shape),
                             std::vector<double>(static_cast<std::size_t>(*count), value), std::move(name));
}

Value Builder::constShape(std::vector<std::int64_t> values, std::string name) {
  HostTensor t(DType::Shape, {static_cast<std::int64_t>(values.size())});
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), values.size() * 8);
  if (name.empty() && !failed()) name = uniqueName("shape");
  return constant(t, std::move(name));
}

Value Builder::zeroPoint(DType dtype, std::int64_t value, std::string_view what) {
  if (failed()) return {};
  return constantFromInts(dtype, {1}, {value}, uniqueName(what));
}

std::vector<Value> Builder::addOperator(Op op, const std::vector<Value>& inputs, Attributes attrs,
                                        const std::vector<TensorSpec>& outputs) {
  if (failed()) return std::vector<Value>(outputs.size());
  Operator o;
  o.op = op;
  o.attrs = std::move(attrs);
  o.attributeTag = static_cast<std::uint8_t>(op);
  for (const Value& v : inputs) {
    if (v.name.empty()) {
      fail(Error(ErrorKind::InvalidInput,
                 fmt::format("builder: {}: expected named inputs, got an empty Value", toString(op))));
      return std::vector<Value>(outputs.size());
    }
    o.inputs.push_back(v.name);
  }
  std::vector<Value> result;
  for (const TensorSpec& spec : outputs) {
    std::string name = spec.name.empty() ? uniqueName(lower(toString(op))) : spec.name;
    if (declare(name, spec.dtype, spec.shape) == nullptr) return std::vector<Value>(outputs.size());
    o.outputs.push_back(name);
    result.push_back({name, spec.dtype, spec.shape});
  }
  current().operators.push_back(std::move(o));
  return result;
}

std::vector<Value> Builder::addOperator(Op op, const std::vector<Value>& inputs, Attributes attrs) {
  if (failed()) return {};
  auto inferred = infer(op, attrs, inputs);
  if (!inferred) {
    fail(std::move(inferred).error().addContext(fmt::format("builder: {}", toString(op))));
    return {};
  }
  std::vector<TensorSpec> specs;
  for (const OutputInfo& out : *inferred) {
    if (out.dtype == DType::Unknown) {
      fail(Error(
          ErrorKind::InvalidInput,
          fmt::format("builder: {}: output type is not implied by the inputs; declare outputs explicitly",
                      toString(op))));
      return {};
    }
    specs.push_back({out.dtype, out.shape, {}});
  }
  return addOperator(op, inputs, std::move(attrs), specs);
}

Result<std::vector<OutputInfo>> Builder::infer(Op op, const Attributes& attrs, const std::vector<Value>& inputs) const {
  std::vector<ValueInfo> infos;
  for (const Value& v : inputs) {
    ValueInfo info{v.dtype, v.shape, std::nullopt};
    auto it = shapeValues_.find(v.name);
    if (it != shapeValues_.end()) info.shapeValue = it->second;
    infos.push_back(std::move(info));
  }
  return inferOutputs(op, attrs, infos);
}

Value Builder::single(Op op, const std::vector<Value>& inputs, Attributes attrs, std::string name) {
  if (failed()) return {};
  if (name.empty()) {
    std::vector<Value> out = addOperator(op, inputs, std::move(attrs));
    return out.empty() ? Value{} : out[0];
  }
  // Infer, then declare with the caller's name.
  auto inferred = infer(op, attrs, inputs);
  if (!inferred) {
    fail(std::move(inferred).error().addContext(fmt::format("builder: {} '{}'", toString(op), name)));
    return {};
  }
  auto values =
      addOperator(op, inputs, std::move(attrs), {{inferred->at(0).dtype, inferred->at(0).shape, name}});
  return values.empty() ? Value{} : values[0];
}

Value Builder::unary(Op op, const Value& x, std::string name) {
  return single(op, {x}, {}, std::move(name));
}

Value Builder::binary(Op op, const Value& a, const Value& b, Attributes attrs, std::string name) {
  return single(op, {a, b}, std::move(attrs), std::move(name));
}

//===--- tensor operators ---------------------------------------------------------===//

Value Builder::argmax(const Value& x, std::int32_t axis, NanMode nanMode, std::string name) {
  return single(Op::ArgMax, {x}, ArgMaxAttrs{axis, nanMode}, std::move(name));
}

Value Builder::avgPool2d(const Value& x, const AvgPoolParams& p) {
  if (failed()) return {};
  AvgPool2dAttrs a;
  a.kernel = p.kernel;
  a.stride = p.stride.empty() ? p.kernel : p.stride;
  a.pad = orDefault(p.pad, 4, 0);
  a.accType = p.accType                                                  ? *p.accType
              : isInteger(x.dtype)                                       ? DType::Int32
              : (x.dtype == DType::Fp8E4M3 || x.dtype == DType::Fp8E5M2) ? DType::Fp16
                                                                         : DType::Fp32;
  Value izp = zeroPoint(x.dtype, p.inputZp, "input_zp");
  Value ozp = zeroPoint(x.dtype, p.outputZp, "output_zp");
  return single(Op::AvgPool2d, {x, izp, ozp}, a, p.name);
}

Value Builder::maxPool2d(const Value& x, const MaxPoolParams& p) {
  MaxPool2dAttrs a;
  a.kernel = p.kernel;
  a.stride = p.stride.empty() ? p.kernel : p.stride;
  a.pad = orDefault(p.pad, 4, 0);
  a.nanMode = p.nanMode;
  return single(Op::MaxPool2d, {x}, a, p.name);
}

Value Builder::convLike(Op op, const Value& x, const Value& weight, const std::optional<Value>& bias,
                        Attributes attrs, std::int64_t inputZp, std::int64_t weightZp,
                        const std::string& name) {
  if (failed()) return {};
  Value b;
  if (bias) {
    b = *bias;
  } else {
    // A zero bias of one element broadcasts over the output channels (BC == 1 is allowed).
    DType outType = x.dtype == DType::Int8                                     ? DType::Int32
                    : x.dtype == DType::Int16                                  ? DType::Int48
                    : (x.dtype == DType::Fp8E4M3 || x.dtype == DType::Fp8E5M2) ? DType::Fp16
                                                                               : x.dtype;
    b = splat(outType, {1}, 0.0, uniqueName("bias"));
  }
  Value izp = zeroPoint(x.dtype, inputZp, "input_zp");
  Value wzp = zeroPoint(weight.dtype, weightZp, "weight_zp");
  return single(op, {x, weight, b, izp, wzp}, std::move(attrs), name);
}

Value Builder::conv2d(const Value& x, const Value& weight, const std::optional<Value>& bias,
                      const ConvParams& p) {
  ConvAttrs a{orDefault(p.pad, 4, 0), orDefault(p.stride, 2, 1), orDefault(p.dilation, 2, 1), p.localBound,
              p.accType.value_or(defaultConvAcc(x.dtype))};
  return convLike(Op::Conv2d, x, weight, bias, a, p.inputZp, p.weightZp, p.name);
}

Value Builder::conv3d(const Value& x, const Value& weight, const std::optional<Value>& bias,
                      const ConvParams& p) {
  ConvAttrs a{orDefault(p.pad, 6, 0), orDefault(p.stride, 3, 1), orDefault(p.dilation, 3, 1), p.localBound,
              p.accType.value_or(defaultConvAcc(x.dtype))};
  return convLike(Op::Conv3d, x, weight, bias, a, p.inputZp, p.weightZp, p.name);
}

Value Builder::depthwiseConv2d(const Value& x, const Value& weight, const std::optional<Value>& bias,
                               const ConvParams& p) {
  ConvAttrs a{orDefault(p.pad, 4, 0), orDefault(p.stride, 2, 1), orDefault(p.dilation, 2, 1), p.localBound,
              p.accType.value_or(defaultConvAcc(x.dtype))};
  return convLike(Op::DepthwiseConv2d, x, weight, bias, a, p.inputZp, p.weightZp, p.name);
}

Value Builder::transposeConv2d(const Value& x, const Value& weight, const std::optional<Value>& bias,
                               const TransposeConvParams& p) {
  TransposeConv2dAttrs a{orDefault(p.outPad, 4, 0), orDefault(p.stride, 2, 1), p.localBound,
                         p.accType.value_or(defaultConvAcc(x.dtype))};
  return convLike(Op::TransposeConv2d, x, weight, bias, a, p.inputZp, p.weightZp, p.name);
}

std::pair<Value, Value> Builder::fft2d(const Value& real, const Value& imag, bool inverse, bool localBound) {
  auto out = addOperator(Op::Fft2d, {real, imag}, FftAttrs{inverse, localBound});
  if (out.size() != 2) return {};
  return {out[0], out[1]};
}

std::pair<Value, Value> Builder::rfft2d(const Value& real, bool localBound) {
  auto out = addOperator(Op::Rfft2d, {real}, FftAttrs{false, localBound});
  if (out.size() != 2) return {};
  return {out[0], out[1]};
}

Value Builder::matmul(const Value& a, const Value& b, const MatMulParams& p) {
  if (failed()) return {};
  Value azp = zeroPoint(a.dtype, p.aZp, "a_zp");
  Value bzp = zeroPoint(b.dtype, p.bZp, "b_zp");
  if (!p.outType) return single(Op::MatMul, {a, b, azp, bzp}, {}, p.name);
  std::vector<ValueInfo> infos = {
      {a.dtype, a.shape, {}}, {b.dtype, b.shape, {}}, {azp.dtype, azp.shape, {}}, {bzp.dtype, bzp.shape, {}}};
  auto inferred = inferOutputs(Op::MatMul, {}, infos);
  if (!inferred) {
    fail(std::move(inferred).error().addContext("builder: MATMUL"));
    return {};
  }
  auto out = addOperator(Op::MatMul, {a, b, azp, bzp}, {}, {{*p.outType, inferred->at(0).shape, p.name}});
  return out.empty() ? Value{} : out[0];
}

//===--- activation and elementwise -----------------------------------------------===//

Value Builder::clamp(const Value& x, double minVal, double maxVal, NanMode nanMode, std::string name) {
  if (failed()) return {};
  auto bytesOf = [&](double v) {
    std::vector<std::uint8_t> out(hostElementBytes(x.dtype));
    if (x.dtype == DType::Fp32) {
      float f = static_cast<float>(v);
      std::memcpy(out.data(), &f, 4);
    } else if (isFloat(x.dtype)) {
      std::uint16_t bits = floatToBits(x.dtype, v);
      std::memcpy(out.data(), &bits, out.size());
    } else {
      std::int64_t i = std::llround(std::clamp(v, -9.0e18, 9.0e18));
      std::memcpy(out.data(), &i, out.size());
    }
    return out;
  };
  ClampAttrs a{bytesOf(minVal), bytesOf(maxVal), nanMode};
  return single(Op::Clamp, {x}, a, std::move(name));
}

Value Builder::erf(const Value& x, std::string name) {
  return unary(Op::Erf, x, std::move(name));
}
Value Builder::sigmoid(const Value& x, std::string name) {
  return unary(Op::Sigmoid, x, std::move(name));
}
Value Builder::tanh(const Value& x, std::string name) {
  return unary(Op::Tanh, x, std::move(name));
}

Value Builder::add(const Value& a, const Value& b, std::string name) {
  return binary(Op::Add, a, b, {}, std::move(name));
}
Value Builder::sub(const Value& a, const Value& b, std::string name) {
  return binary(Op::Sub, a, b, {}, std::move(name));
}
Value Builder::arithmeticRightShift(const Value& a, const Value& b, bool round, std::string name) {
  return binary(Op::ArithmeticRightShift, a, b, ArithmeticRightShiftAttrs{round}, std::move(name));
}
Value Builder::bitwiseAnd(const Value& a, const Value& b, std::string name) {
  return binary(Op::BitwiseAnd, a, b, {}, std::move(name));
}
Value Builder::bitwiseOr(const Value& a, const Value& b, std::string name) {
  return binary(Op::BitwiseOr, a, b, {}, std::move(name));
}
Value Builder::bitwiseXor(const Value& a, const Value& b, std::string name) {
  return binary(Op::BitwiseXor, a, b, {}, std::move(name));
}
Value Builder::intDiv(const Value& a, const Value& b, std::string name) {
  return binary(Op::IntDiv, a, b, {}, std::move(name));
}
Value Builder::logicalAnd(const Value& a, const Value& b, std::string name) {
  return binary(Op::LogicalAnd, a, b, {}, std::move(name));
}
Value Builder::logicalLeftShift(const Value& a, const Value& b, std::string name) {
  return binary(Op::LogicalLeftShift, a, b, {}, std::move(name));
}
Value Builder::logicalRightShift(const Value& a, const Value& b, std::string name) {
  return binary(Op::LogicalRightShift, a, b, {}, std::move(name));
}
Value Builder::logicalOr(const Value& a, const Value& b, std::string name) {
  return binary(Op::LogicalOr, a, b, {}, std::move(name));
}
Value Builder::logicalXor(const Value& a, const Value& b, std::string name) {
  return binary(Op::LogicalXor, a, b, {}, std::move(name));
}
Value Builder::maximum(const Value& a, const Value& b, NanMode nanMode, std::string name) {
  return binary(Op::Maximum, a, b, NanModeAttrs{nanMode}, std::move(name));
}
Value Builder::minimum(const Value& a, const Value& b, NanMode nanMode, std::string name) {
  return binary(Op::Minimum, a, b, NanModeAttrs{nanMode}, std::move(name));
}
Value Builder::mul(const Value& a, const Value& b, std::int32_t shift, std::string name) {
  if (failed()) return {};
  Value s = constantFromInts(DType::Int8, {1}, {shift}, uniqueName("shift"));
  return single(Op::Mul, {a, b, s}, {}, std::move(name));
}
Value Builder::pow(const Value& a, const Value& b, std::string name) {
  return binary(Op::Pow, a, b, {}, std::move(name));
}

Value Builder::table(const Value& x, const Value& tableValues, std::string name) {
  return single(Op::Table, {x, tableValues}, {}, std::move(name));
}

Value Builder::table(const Value& x, const std::vector<std::int32_t>& entries, std::string name) {
  if (failed()) return {};
  DType t = x.dtype == DType::Int16 ? DType::Int16 : DType::Int8;
  Value tv = constant(t, {static_cast<std::int64_t>(entries.size())}, entries, uniqueName("table"));
  return table(x, tv, std::move(name));
}

Value Builder::abs(const Value& x, std::string name) {
  return unary(Op::Abs, x, std::move(name));
}
Value Builder::bitwiseNot(const Value& x, std::string name) {
  return unary(Op::BitwiseNot, x, std::move(name));
}
Value Builder::ceil(const Value& x, std::string name) {
  return unary(Op::Ceil, x, std::move(name));
}
Value Builder::clz(const Value& x, std::string name) {
  return unary(Op::Clz, x, std::move(name));
}
Value Builder::cos(const Value& x, std::string name) {
  return unary(Op::Cos, x, std::move(name));
}
Value Builder::exp(const Value& x, std::string name) {
  return unary(Op::Exp, x, std::move(name));
}
Value Builder::floor(const Value& x, std::string name) {
  return unary(Op::Floor, x, std::move(name));
}
Value Builder::log(const Value& x, std::string name) {
  return unary(Op::Log, x, std::move(name));
}
Value Builder::logicalNot(const Value& x, std::string name) {
  return unary(Op::LogicalNot, x, std::move(name));
}
Value Builder::negate(const Value& x, std::int64_t inputZp, std::int64_t outputZp, std::string name) {
  if (failed()) return {};
  Value izp = zeroPoint(x.dtype, inputZp, "input1_zp");
  Value ozp = zeroPoint(x.dtype, outputZp, "output_zp");
  return single(Op::Negate, {x, izp, ozp}, {}, std::move(name));
}
Value Builder::reciprocal(const Value& x, std::string name) {
  return unary(Op::Reciprocal, x, std::move(name));
}
Value Builder::rsqrt(const Value& x, std::string name) {
  return unary(Op::Rsqrt, x, std::move(name));
}
Value Builder::sin(const Value& x, std::string name) {
  return unary(Op::Sin, x, std::move(name));
}

Value Builder::select(const Value& condition, const Value& a, const Value& b, std::string name) {
  return single(Op::Select, {condition, a, b}, {}, std::move(name));
}
Value Builder::equal(const Value& a, const Value& b, std::string name) {
  return binary(Op::Equal, a, b, {}, std::move(name));
}
Value Builder::greater(const Value& a, const Value& b, std::string name) {
  return binary(Op::Greater, a, b, {}, std::move(name));
}
Value Builder::greaterEqual(const Value& a, const Value& b, std::string name) {
  return binary(Op::GreaterEqual, a, b, {}, std::move(name));
}

//===--- reductions ---------------------------------------------------------------===//

Value Builder::reduceAll(const Value& x, std::int32_t axis, std::string name) {
  return single(Op::ReduceAll, {x}, AxisAttrs{axis, NanMode::Propagate}, std::move(name));
}
Value Builder::reduceAny(const Value& x, std::int32_t axis, std::string name) {
  return single(Op::ReduceAny, {x}, AxisAttrs{axis, NanMode::Propagate}, std::move(name));
}
Value Builder::reduceMax(const Value& x, std::int32_t axis, NanMode nanMode, std::string name) {
  return single(Op::ReduceMax, {x}, AxisAttrs{axis, nanMode}, std::move(name));
}
Value Builder::reduceMin(const Value& x, std::int32_t axis, NanMode nanMode, std::string name) {
  return single(Op::ReduceMin, {x}, AxisAttrs{axis, nanMode}, std::move(name));
}
Value Builder::reduceProduct(const Value& x, std::int32_t axis, std::string name) {
  return single(Op::ReduceProduct, {x}, AxisAttrs{axis, NanMode::Propagate}, std::move(name));
}
Value Builder::reduceSum(const Value& x, std::int32_t axis, std::string name) {
  return single(Op::ReduceSum, {x}, AxisAttrs{axis, NanMode::Propagate}, std::move(name));
}

//===--- data layout and the rest -------------------------------------------------===//

Value Builder::concat(const std::vector<Value>& inputs, std::int32_t axis, std::string name) {
  return single(Op::Concat, inputs, AxisAttrs{axis, NanMode::Propagate}, std::move(name));
}

Value Builder::pad(const Value& x, const std::vector<std::int64_t>& padding, double padConst,
                   std::string name) {
  if (failed()) return {};
  Value p = constShape(padding);
  Value c = splat(x.dtype, {1}, padConst, uniqueName("pad_const"));
  return single(Op::Pad, {x, p, c}, {}, std::move(name));
}

Value Builder::reshape(const Value& x, const Shape& newShape, std::string name) {
  if (failed()) return {};
  Value s = constShape(newShape);
  return single(Op::Reshape, {x, s}, {}, std::move(name));
}

Value Builder::reverse(const Value& x, std::int32_t axis, std::string name) {
  return single(Op::Reverse, {x}, AxisAttrs{axis, NanMode::Propagate}, std::move(name));
}

Value Builder::slice(const Value& x, const std::vector<std::int64_t>& start,
                     const std::vector<std::int64_t>& size, std::string name) {
  if (failed()) return {};
  Value s0 = constShape(start);
  Value s1 = constShape(size);
  return single(Op::Slice, {x, s0, s1}, {}, std::move(name));
}

Value Builder::tile(const Value& x, const std::vector<std::int64_t>& multiples, std::string name) {
  if (failed()) return {};
  Value m = constShape(multiples);
  return single(Op::Tile, {x, m}, {}, std::move(name));
}

Value Builder::transpose(const Value& x, const std::vector<std::int32_t>& perms, std::string name) {
  return single(Op::Transpose, {x}, TransposeAttrs{perms}, std::move(name));
}

Value Builder::gather(const Value& values, const Value& indices, std::string name) {
  return single(Op::Gather, {values, indices}, {}, std::move(name));
}

Value Builder::scatter(const Value& valuesIn, const Value& indices, const Value& input, std::string name) {
  return single(Op::Scatter, {valuesIn, indices, input}, {}, std::move(name));
}

Value Builder::resize(const Value& x, const std::vector<std::int64_t>& scale,
                      const std::vector<std::int64_t>& offset, const std::vector<std::int64_t>& border,
                      ResizeMode mode, std::string name) {
  if (failed()) return {};
  Value s = constShape(scale);
  Value o = constShape(offset);
  Value b = constShape(border);
  return single(Op::Resize, {x, s, o, b}, ResizeAttrs{mode}, std::move(name));
}

Value Builder::cast(const Value& x, DType outType, std::string name) {
  auto out = addOperator(Op::Cast, {x}, {}, {{outType, x.shape, std::move(name)}});
  return out.empty() ? Value{} : out[0];
}

Value Builder::rescale(const Value& x, const RescaleParams& p) {
  if (failed()) return {};
  if (p.multiplier.empty() || p.multiplier.size() != p.shift.size()) {
    fail(Error(
        ErrorKind::InvalidInput,
        fmt::format("builder: RESCALE: expected as many shifts as multipliers (at least one), got {} and {}",
                    p.multiplier.size(), p.shift.size())));
    return {};
  }
  auto nc = static_cast<std::int64_t>(p.multiplier.size());
  Value m = constant(p.scale32 ? DType::Int32 : DType::Int16, {nc}, p.multiplier, uniqueName("multiplier"));
  Value s = constant(DType::Int8, {nc}, p.shift, uniqueName("shift"));
  Value izp = zeroPoint(x.dtype, p.inputZp, "input_zp");
  Value ozp = zeroPoint(p.outType, p.outputZp, "output_zp");
  RescaleAttrs a{p.scale32, p.roundingMode, p.perChannel.value_or(nc > 1), p.inputUnsigned, p.outputUnsigned};
  auto out = addOperator(Op::Rescale, {x, m, s, izp, ozp}, a, {{p.outType, x.shape, p.name}});
  return out.empty() ? Value{} : out[0];
}

Value Builder::identity(const Value& x, std::string name) {
  return unary(Op::Identity, x, std::move(name));
}

std::vector<Value> Builder::custom(const std::vector<Value>& inputs, CustomAttrs attrs,
                                   const std::vector<TensorSpec>& outputs) {
  return addOperator(Op::Custom, inputs, std::move(attrs), outputs);
}

//===--- control flow and variables -----------------------------------------------===//

std::vector<Value> Builder::runBranch(const std::string& regionName, const std::vector<Value>& inputs,
                                      const BranchFn& fn) {
  graph_.regions.push_back(Region{regionName, {}});
  Block block;
  block.name = regionName;
  graph_.regions.back().blocks.push_back(std::move(block));
  blockStack_.emplace_back(graph_.regions.size() - 1, 0);
  std::vector<Value> blockInputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    blockInputs.push_back(input(fmt::format("{}_input{}", regionName, i), inputs[i].dtype, inputs[i].shape));
  }
  std::vector<Value> outs = fn(*this, blockInputs);
  for (const Value& v : outs) output(v);
  blockStack_.pop_back();
  return outs;
}

std::vector<Value> Builder::condIf(const Value& condition, const std::vector<Value>& inputs,
                                   const BranchFn& thenBranch, const BranchFn& elseBranch) {
  if (failed()) return {};
  std::string base = uniqueName("cond_if");
  names_.insert(base);
  std::string thenName = base + "_then";
  std::string elseName = base + "_else";
  std::vector<Value> thenOut = runBranch(thenName, inputs, thenBranch);
  std::vector<Value> elseOut = runBranch(elseName, inputs, elseBranch);
  if (failed()) return {};
  if (thenOut.size() != elseOut.size()) {
    fail(Error(ErrorKind::InvalidInput,
               fmt::format("builder: COND_IF: expected both branches to return the same "
                           "number of values, got {} and {}",
                           thenOut.size(), elseOut.size())));
    return {};
  }
  std::vector<Value> opInputs = {condition};
  opInputs.insert(opInputs.end(), inputs.begin(), inputs.end());
  std::vector<TensorSpec> specs;
  for (const Value& v : thenOut) specs.push_back({v.dtype, v.shape, {}});
  return addOperator(Op::CondIf, opInputs, CondIfAttrs{thenName, elseName}, specs);
}

std::vector<Value> Builder::whileLoop(const std::vector<Value>& inputs, const CondFn& cond,
                                      const BranchFn& body) {
  if (failed()) return {};
  std::string base = uniqueName("while_loop");
  names_.insert(base);
  std::string condName = base + "_cond";
  std::string bodyName = base + "_body";
  runBranch(condName, inputs,
            [&](Builder& b, const std::vector<Value>& in) { return std::vector<Value>{cond(b, in)}; });
  std::vector<Value> bodyOut = runBranch(bodyName, inputs, body);
  if (failed()) return {};
  std::vector<TensorSpec> specs;
  for (const Value& v : inputs) specs.push_back({v.dtype, v.shape, {}});
  return addOperator(Op::WhileLoop, inputs, WhileLoopAttrs{condName, bodyName}, specs);
}

Value Builder::variable(std::string name, const HostTensor& initialValue) {
  if (failed()) return {};
  Tensor* t = declare(name, initialValue.dtype, initialValue.shape);
  if (t == nullptr) return {};
  t->variable = true;
  t->variableName = name;
  t->data = initialValue.bytes;
  return {name, initialValue.dtype, initialValue.shape};
}

Value Builder::variableRead(const Value& variable, std::string name) {
  if (failed()) return {};
  if (name.empty()) name = uniqueName("variable_read");
  auto out = addOperator(Op::Identity, {variable}, {}, {{variable.dtype, variable.shape, name}});
  if (out.empty()) return {};
  current().operators.back().attributeTag = static_cast<std::uint8_t>(Op::VariableRead);
  return out[0];
}

void Builder::variableWrite(const Value& variable, const Value& value) {
  if (failed()) return;
  Operator o;
  o.op = Op::Identity;
  o.attributeTag = static_cast<std::uint8_t>(Op::VariableWrite);
  o.inputs = {value.name};
  o.outputs = {variable.name};
  current().operators.push_back(std::move(o));
}

//===--- result -------------------------------------------------------------------===//

namespace {

/// The reader lists TosaBasicBlock.shapes after the tensors; keep that order so that
/// build -> write -> read gives an equal graph.
void shapesLast(Graph& g) {
  for (Region& r : g.regions) {
    for (Block& b : r.blocks) {
      std::stable_partition(b.tensors.begin(), b.tensors.end(),
                            [](const Tensor& t) { return !t.inShapeTable; });
    }
  }
}

}  // namespace

Result<Graph> Builder::build() const& {
  if (error_) return Unexpected(*error_);
  Graph g = graph_;
  shapesLast(g);
  return g;
}

Result<Graph> Builder::build() && {
  if (error_) return Unexpected(*error_);
  Graph g = std::move(graph_);
  shapesLast(g);
  return g;
}

Result<std::vector<std::uint8_t>> Builder::serialize() const {
  OPENVGF_ASSIGN_OR_RETURN(Graph g, build());
  return writeGraph(g);
}

Status Builder::write(const std::filesystem::path& path) const {
  OPENVGF_ASSIGN_OR_RETURN(Graph g, build());
  return writeGraph(g, path);
}

}  // namespace openvgf::tosa
