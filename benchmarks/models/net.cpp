// SPDX-License-Identifier: Apache-2.0
// Net implementation: operand lists follow TOSA 1.0 serialized input order
// (specs/tosa.md §2.2), shape inference covers the ops the zoo uses, and each operator is
// mirrored as one JSON layer record.
#include "benchmarks/models/net.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tosa/float_types.h"
#include "tosa/shape_inference.h"

namespace openvgf::benchmarks {

using tosa::DType;
using tosa::HostTensor;
using tosa::Op;
using tosa::Shape;

//===------------------------------------------------------------------===//
// Random numbers and half floats.
//===------------------------------------------------------------------===//

std::uint64_t Rng::next() {
  state_ += 0x9E3779B97F4A7C15ull;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float Rng::symmetric() {
  // 24 random bits -> [0, 1) exactly representable, then to [-1, 1).
  float unit = static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);
  return 2.0f * unit - 1.0f;
}

float Rng::uniform(float lo, float hi) {
  float unit = static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);
  return lo + (hi - lo) * unit;
}

SamePadding samePadding(std::int64_t ih, std::int64_t iw, std::int64_t kh, std::int64_t kw,
                        std::int64_t sy, std::int64_t sx) {
  SamePadding result;
  auto one = [](std::int64_t in, std::int64_t k, std::int64_t s, std::int32_t& before,
                std::int32_t& after, std::int64_t& crop) {
    std::int64_t out = (in + s - 1) / s;
    std::int64_t total = (out - 1) * s + k - in;
    if (total < 0) {
      // The kernel never reaches the last -total rows; TOSA wants them gone, not ignored.
      crop = -total;
      total = 0;
    }
    before = static_cast<std::int32_t>(total / 2);
    after = static_cast<std::int32_t>(total - total / 2);
  };
  result.pad.assign(4, 0);
  one(ih, kh, sy, result.pad[0], result.pad[1], result.cropY);
  one(iw, kw, sx, result.pad[2], result.pad[3], result.cropX);
  return result;
}

//===------------------------------------------------------------------===//
// JSON helpers.
//===------------------------------------------------------------------===//

namespace {

std::string dtypeName(DType type) { return std::string(tosa::toString(type)); }

nlohmann::json shapeJson(const Shape& shape) { return nlohmann::json(shape); }

/// Element i of a host tensor as double (for the small inline constants of the JSON).
double elementAsDouble(const HostTensor& t, std::int64_t i) {
  switch (t.dtype) {
    case DType::Fp32: return t.as<float>()[i];
    case DType::Fp16: return tosa::fp16ToFloat(t.as<std::uint16_t>()[i]);
    case DType::Int8: return t.as<std::int8_t>()[i];
    case DType::Int16: return t.as<std::int16_t>()[i];
    case DType::Int32: return t.as<std::int32_t>()[i];
    case DType::Int48:
    case DType::Shape: return static_cast<double>(t.as<std::int64_t>()[i]);
    case DType::Bool: return t.as<std::uint8_t>()[i];
    default: return 0.0;
  }
}

/// Host-layout bytes of one element of `type` holding `value` (CLAMP bounds, zero points).
std::vector<std::uint8_t> scalarBytes(DType type, double value) {
  HostTensor t(type, {1});
  switch (type) {
    case DType::Fp32: t.as<float>()[0] = static_cast<float>(value); break;
    case DType::Fp16: t.as<std::uint16_t>()[0] = tosa::floatToFp16(static_cast<float>(value)); break;
    case DType::Int8: t.as<std::int8_t>()[0] = static_cast<std::int8_t>(value); break;
    case DType::Int16: t.as<std::int16_t>()[0] = static_cast<std::int16_t>(value); break;
    case DType::Int32: t.as<std::int32_t>()[0] = static_cast<std::int32_t>(value); break;
    default: break;
  }
  return t.bytes;
}

}  // namespace

//===------------------------------------------------------------------===//
// Net.
//===------------------------------------------------------------------===//

Net::Net(std::string name, std::uint64_t seed) : name_(std::move(name)), rng_(seed) {}

void Net::fail(std::string message) {
  if (status_) status_ = internalError("model {}: {}", name_, message);
}

std::string Net::freshName(const std::string& hint) {
  int& count = nameCounts_[hint];
  std::string result = count == 0 ? hint : fmt::format("{}_{}", hint, count);
  ++count;
  return result;
}

namespace {

tosa::Value toBuilder(const Value& v) { return {v.name, v.dtype, v.shape}; }

}  // namespace

Value Net::input(const std::string& name, Shape shape, DType dtype) {
  std::string unique = freshName(name);
  builder_.input(unique, dtype, shape);
  Value v{unique, std::move(shape), dtype};
  inputs_.push_back(v);
  return v;
}

void Net::output(const Value& value) {
  builder_.output(toBuilder(value));
  outputs_.push_back(value);
}

Value Net::addConst(const std::string& name, const HostTensor& tensor) {
  if (tensor.dtype == DType::Shape) {
    std::vector<std::int64_t> values(tensor.as<std::int64_t>().begin(), tensor.as<std::int64_t>().end());
    shapeValues_[name] = values;
    builder_.constShape(std::move(values), name);
  } else {
    builder_.constant(tensor, name);
  }
  return {name, tensor.shape, tensor.dtype};
}

Value Net::weight(const std::string& hint, HostTensor tensor) {
  std::string name = freshName(hint);
  tensors_[name] = {{"kind", "weight"},
                    {"shape", shapeJson(tensor.shape)},
                    {"dtype", dtypeName(tensor.dtype)},
                    {"file", fmt::format("weights/{}.npy", name)}};
  Value v = addConst(name, tensor);
  weights_.emplace(name, std::move(tensor));
  return v;
}

Value Net::heWeight(const std::string& hint, Shape shape, std::int64_t fanIn, float gain, DType dtype) {
  float bound = gain * std::sqrt(3.0f / static_cast<float>(fanIn));
  return uniformWeight(hint, std::move(shape), -bound, bound, dtype);
}

Value Net::uniformWeight(const std::string& hint, Shape shape, float lo, float hi, DType dtype) {
  HostTensor t(dtype, std::move(shape));
  std::int64_t n = t.size();
  if (dtype == DType::Fp16) {
    auto out = t.as<std::uint16_t>();
    for (std::int64_t i = 0; i < n; ++i) out[i] = tosa::floatToFp16(rng_.uniform(lo, hi));
  } else {
    auto out = t.as<float>();
    for (std::int64_t i = 0; i < n; ++i) out[i] = rng_.uniform(lo, hi);
  }
  return weight(hint, std::move(t));
}

Value Net::scalarConst(const std::string& hint, HostTensor tensor) {
  std::string name = freshName(hint);
  nlohmann::json values = nlohmann::json::array();
  for (std::int64_t i = 0; i < tensor.size(); ++i) values.push_back(elementAsDouble(tensor, i));
  tensors_[name] = {{"kind", "const"},
                    {"shape", shapeJson(tensor.shape)},
                    {"dtype", dtypeName(tensor.dtype)},
                    {"values", std::move(values)}};
  return addConst(name, std::move(tensor));
}

Value Net::floatScalar(const std::string& hint, float value, std::size_t rank, DType dtype) {
  HostTensor t(dtype, Shape(rank, 1));
  t.bytes = scalarBytes(dtype, value);
  return scalarConst(hint, std::move(t));
}

Value Net::zeroPoint(DType dtype, std::int64_t zp) {
  HostTensor t(dtype, {1});
  t.bytes = scalarBytes(dtype, static_cast<double>(zp));
  return scalarConst("zp", std::move(t));
}

Value Net::constShape(const Shape& values) {
  HostTensor t(DType::Shape, {static_cast<std::int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.as<std::int64_t>().begin());
  return scalarConst("shape", std::move(t));
}

Value Net::emit(Op op, tosa::Attributes attrs, std::vector<Value> inputs, Shape outShape, DType outType,
                nlohmann::json attrJson) {
  std::string name = freshName(fmt::format("{}", tosa::toString(op)));
  std::transform(name.begin(), name.end(), name.begin(), [](char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  });
  for (std::int64_t d : outShape) {
    if (d < 1) fail(fmt::format("{} {}: inferred shape {} has a dimension < 1", tosa::toString(op), name,
                                tosa::shapeToString(outShape)));
  }
  // Cross-check with the project's shape inference where it can decide the output alone.
  std::vector<tosa::ValueInfo> infos;
  std::vector<tosa::Value> builderInputs;
  for (const Value& v : inputs) {
    tosa::ValueInfo info{v.dtype, v.shape, std::nullopt};
    if (auto it = shapeValues_.find(v.name); it != shapeValues_.end()) info.shapeValue = it->second;
    infos.push_back(std::move(info));
    builderInputs.push_back(toBuilder(v));
  }
  Result<std::vector<tosa::OutputInfo>> inferred = tosa::inferOutputs(op, attrs, infos);
  if (!inferred) {
    fail(fmt::format("{} {}: {}", tosa::toString(op), name, inferred.error().message()));
  } else if (inferred->size() == 1 && inferred->front().dtype != DType::Unknown &&
             (inferred->front().shape != outShape || inferred->front().dtype != outType)) {
    fail(fmt::format("{} {}: zoo computed {} {}, shape inference {} {}", tosa::toString(op), name,
                     tosa::shapeToString(outShape), tosa::toString(outType),
                     tosa::shapeToString(inferred->front().shape), tosa::toString(inferred->front().dtype)));
  }
  builder_.addOperator(op, builderInputs, attrs, {tosa::TensorSpec{outType, outShape, name}});

  nlohmann::json layer;
  layer["op"] = std::string(tosa::toString(op));
  layer["output"] = name;
  layer["shape"] = shapeJson(outShape);
  layer["dtype"] = dtypeName(outType);
  nlohmann::json ins = nlohmann::json::array();
  for (const Value& v : inputs) ins.push_back(v.name);
  layer["inputs"] = std::move(ins);
  layer["attrs"] = attrJson.is_null() ? nlohmann::json::object() : std::move(attrJson);
  layers_.push_back(std::move(layer));
  return {name, std::move(outShape), outType};
}

Value Net::convLike(Op op, const Value& x, const Value& w, const Value& bias, std::vector<std::int32_t> pad,
                    std::vector<std::int32_t> stride, DType acc, std::int64_t inZp, std::int64_t wZp) {
  if (x.shape.size() != 4 || w.shape.size() != 4 || pad.size() != 4 || stride.size() != 2) {
    fail(fmt::format("{}: expected rank-4 input and weight", tosa::toString(op)));
    return x;
  }
  std::int64_t kh = op == Op::Conv2d ? w.shape[1] : w.shape[0];
  std::int64_t kw = op == Op::Conv2d ? w.shape[2] : w.shape[1];
  std::int64_t ic = x.shape[3];
  std::int64_t oc = op == Op::Conv2d ? w.shape[0] : w.shape[2] * w.shape[3];
  std::int64_t wic = op == Op::Conv2d ? w.shape[3] : w.shape[2];
  if (wic != ic) {
    fail(fmt::format("{}: input channels {} but weight {}", tosa::toString(op), ic, tosa::shapeToString(w.shape)));
  }
  std::int64_t numY = x.shape[1] - 1 + pad[0] + pad[1] - (kh - 1);
  std::int64_t numX = x.shape[2] - 1 + pad[2] + pad[3] - (kw - 1);
  if (numY < 0 || numX < 0 || numY % stride[0] != 0 || numX % stride[1] != 0) {
    fail(fmt::format("{}: input {} kernel {}x{} pad [{}] stride [{}] does not divide exactly",
                     tosa::toString(op), tosa::shapeToString(x.shape), kh, kw, fmt::join(pad, ","),
                     fmt::join(stride, ",")));
  }
  Shape out = {x.shape[0], numY / stride[0] + 1, numX / stride[1] + 1, oc};
  macs_ += out[0] * out[1] * out[2] * oc * kh * kw * (op == Op::Conv2d ? ic : 1);
  Value xZp = zeroPoint(x.dtype, inZp);
  Value weightZp = zeroPoint(w.dtype, wZp);
  tosa::ConvAttrs attrs;
  attrs.pad = pad;
  attrs.stride = stride;
  attrs.dilation = {1, 1};
  attrs.accType = acc;
  nlohmann::json j = {{"pad", pad},       {"stride", stride},  {"dilation", {1, 1}},
                      {"acc_type", dtypeName(acc)}, {"input_zp", inZp}, {"weight_zp", wZp}};
  DType outType = acc == DType::Int32 ? DType::Int32 : x.dtype;
  return emit(op, attrs, {x, w, bias, xZp, weightZp}, out, outType, std::move(j));
}

Value Net::conv2d(const Value& x, const Value& w, const Value& bias, std::vector<std::int32_t> pad,
                  std::vector<std::int32_t> stride, DType acc, std::int64_t inZp, std::int64_t wZp) {
  return convLike(Op::Conv2d, x, w, bias, std::move(pad), std::move(stride), acc, inZp, wZp);
}

Value Net::depthwiseConv2d(const Value& x, const Value& w, const Value& bias, std::vector<std::int32_t> pad,
                           std::vector<std::int32_t> stride, DType acc, std::int64_t inZp, std::int64_t wZp) {
  return convLike(Op::DepthwiseConv2d, x, w, bias, std::move(pad), std::move(stride), acc, inZp, wZp);
}

Value Net::matmul(const Value& a, const Value& b, std::int64_t aZp, std::int64_t bZp) {
  if (a.shape.size() != 3 || b.shape.size() != 3 || a.shape[0] != b.shape[0] || a.shape[2] != b.shape[1]) {
    fail(fmt::format("MATMUL: shapes {} and {} do not chain", tosa::shapeToString(a.shape),
                     tosa::shapeToString(b.shape)));
    return a;
  }
  Shape out = {a.shape[0], a.shape[1], b.shape[2]};
  macs_ += out[0] * out[1] * out[2] * a.shape[2];
  DType outType = a.dtype == DType::Int8 ? DType::Int32 : a.dtype;
  Value za = zeroPoint(a.dtype, aZp);
  Value zb = zeroPoint(b.dtype, bZp);
  return emit(Op::MatMul, std::monostate{}, {a, b, za, zb}, out, outType, {{"a_zp", aZp}, {"b_zp", bZp}});
}

Value Net::avgPool2d(const Value& x, std::vector<std::int32_t> kernel, std::vector<std::int32_t> stride,
                     std::vector<std::int32_t> pad, DType acc, std::int64_t inZp, std::int64_t outZp) {
  std::int64_t numY = x.shape[1] + pad[0] + pad[1] - kernel[0];
  std::int64_t numX = x.shape[2] + pad[2] + pad[3] - kernel[1];
  if (numY < 0 || numX < 0 || numY % stride[0] != 0 || numX % stride[1] != 0) {
    fail("AVG_POOL2D: geometry does not divide exactly");
  }
  Shape out = {x.shape[0], numY / stride[0] + 1, numX / stride[1] + 1, x.shape[3]};
  tosa::AvgPool2dAttrs attrs{kernel, stride, pad, acc};
  Value zi = zeroPoint(x.dtype, inZp);
  Value zo = zeroPoint(x.dtype, outZp);
  nlohmann::json j = {{"kernel", kernel}, {"stride", stride}, {"pad", pad}, {"acc_type", dtypeName(acc)},
                      {"input_zp", inZp}, {"output_zp", outZp}};
  return emit(Op::AvgPool2d, attrs, {x, zi, zo}, out, x.dtype, std::move(j));
}

Value Net::maxPool2d(const Value& x, std::vector<std::int32_t> kernel, std::vector<std::int32_t> stride,
                     std::vector<std::int32_t> pad) {
  std::int64_t numY = x.shape[1] + pad[0] + pad[1] - kernel[0];
  std::int64_t numX = x.shape[2] + pad[2] + pad[3] - kernel[1];
  if (numY < 0 || numX < 0 || numY % stride[0] != 0 || numX % stride[1] != 0) {
    fail("MAX_POOL2D: geometry does not divide exactly");
  }
  Shape out = {x.shape[0], numY / stride[0] + 1, numX / stride[1] + 1, x.shape[3]};
  tosa::MaxPool2dAttrs attrs{kernel, stride, pad, tosa::NanMode::Propagate};
  nlohmann::json j = {{"kernel", kernel}, {"stride", stride}, {"pad", pad}};
  return emit(Op::MaxPool2d, attrs, {x}, out, x.dtype, std::move(j));
}

Value Net::clamp(const Value& x, double lo, double hi) {
  tosa::ClampAttrs attrs;
  attrs.minVal = scalarBytes(x.dtype, lo);
  attrs.maxVal = scalarBytes(x.dtype, hi);
  attrs.nanMode = tosa::NanMode::Propagate;
  return emit(Op::Clamp, attrs, {x}, x.shape, x.dtype, {{"min", lo}, {"max", hi}});
}

Value Net::elementwise(Op op, const Value& a, const Value& b, tosa::Attributes attrs) {
  if (a.shape.size() != b.shape.size() || a.dtype != b.dtype) {
    fail(fmt::format("{}: operands {} {} and {} {} differ in rank or type", tosa::toString(op),
                     tosa::shapeToString(a.shape), tosa::toString(a.dtype), tosa::shapeToString(b.shape),
                     tosa::toString(b.dtype)));
    return a;
  }
  Shape out(a.shape.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (a.shape[i] != b.shape[i] && a.shape[i] != 1 && b.shape[i] != 1) {
      fail(fmt::format("{}: shapes {} and {} do not broadcast", tosa::toString(op), tosa::shapeToString(a.shape),
                       tosa::shapeToString(b.shape)));
    }
    out[i] = std::max(a.shape[i], b.shape[i]);
  }
  std::vector<Value> inputs = {a, b};
  nlohmann::json j = nlohmann::json::object();
  DType outType = a.dtype;
  if (op == Op::Mul) {
    HostTensor shift(DType::Int8, {1});
    inputs.push_back(scalarConst("shift", std::move(shift)));
    j["shift"] = 0;
    if (a.dtype == DType::Int8 || a.dtype == DType::Int16) outType = DType::Int32;
  }
  return emit(op, std::move(attrs), std::move(inputs), std::move(out), outType, std::move(j));
}

Value Net::add(const Value& a, const Value& b) { return elementwise(Op::Add, a, b, std::monostate{}); }
Value Net::sub(const Value& a, const Value& b) { return elementwise(Op::Sub, a, b, std::monostate{}); }
Value Net::mul(const Value& a, const Value& b) { return elementwise(Op::Mul, a, b, std::monostate{}); }
Value Net::maximum(const Value& a, const Value& b) {
  return elementwise(Op::Maximum, a, b, tosa::NanModeAttrs{tosa::NanMode::Propagate});
}

Value Net::unary(Op op, const Value& x) { return emit(op, std::monostate{}, {x}, x.shape, x.dtype, nullptr); }

Value Net::reduce(Op op, const Value& x, std::int32_t axis) {
  Shape out = x.shape;
  if (axis < 0 || static_cast<std::size_t>(axis) >= out.size()) {
    fail(fmt::format("{}: axis {} out of range", tosa::toString(op), axis));
    return x;
  }
  out[static_cast<std::size_t>(axis)] = 1;
  tosa::AxisAttrs attrs{axis, tosa::NanMode::Propagate};
  return emit(op, attrs, {x}, std::move(out), x.dtype, {{"axis", axis}});
}

Value Net::reshape(const Value& x, Shape shape) {
  if (tosa::elementCount(shape) != tosa::elementCount(x.shape)) {
    fail(fmt::format("RESHAPE: {} to {} changes the element count", tosa::shapeToString(x.shape),
                     tosa::shapeToString(shape)));
  }
  Value s = constShape(shape);
  return emit(Op::Reshape, std::monostate{}, {x, s}, shape, x.dtype, {{"shape", shape}});
}

Value Net::transpose(const Value& x, std::vector<std::int32_t> perms) {
  Shape out(x.shape.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = x.shape[static_cast<std::size_t>(perms[i])];
  nlohmann::json j = {{"perms", perms}};
  return emit(Op::Transpose, tosa::TransposeAttrs{perms}, {x}, std::move(out), x.dtype, std::move(j));
}

Value Net::slice(const Value& x, Shape start, Shape size) {
  for (std::size_t i = 0; i < x.shape.size(); ++i) {
    if (start[i] < 0 || size[i] < 1 || start[i] + size[i] > x.shape[i]) fail("SLICE: window out of range");
  }
  Value s0 = constShape(start);
  Value s1 = constShape(size);
  nlohmann::json j = {{"start", start}, {"size", size}};
  return emit(Op::Slice, std::monostate{}, {x, s0, s1}, size, x.dtype, std::move(j));
}

Value Net::cast(const Value& x, DType to) { return emit(Op::Cast, std::monostate{}, {x}, x.shape, to, nullptr); }

Value Net::rescale(const Value& x, DType to, std::span<const std::int32_t> multipliers,
                   std::span<const std::int32_t> shifts, std::int64_t inZp, std::int64_t outZp) {
  bool perChannel = multipliers.size() > 1;
  if (multipliers.size() != shifts.size() ||
      (perChannel && static_cast<std::int64_t>(multipliers.size()) != x.shape.back())) {
    fail("RESCALE: multiplier/shift counts do not match the channel count");
  }
  std::int64_t nc = static_cast<std::int64_t>(multipliers.size());
  HostTensor m(DType::Int32, {nc});
  HostTensor s(DType::Int8, {nc});
  for (std::int64_t i = 0; i < nc; ++i) {
    m.as<std::int32_t>()[i] = multipliers[static_cast<std::size_t>(i)];
    std::int32_t sh = shifts[static_cast<std::size_t>(i)];
    if (sh < 2 || sh > 62) fail(fmt::format("RESCALE: shift {} outside [2, 62]", sh));
    s.as<std::int8_t>()[i] = static_cast<std::int8_t>(sh);
  }
  Value mv = scalarConst("multiplier", std::move(m));
  Value sv = scalarConst("shift", std::move(s));
  Value zi = zeroPoint(x.dtype, inZp);
  Value zo = zeroPoint(to, outZp);
  tosa::RescaleAttrs attrs;
  attrs.scale32 = true;
  attrs.roundingMode = tosa::RoundingMode::SingleRound;
  attrs.perChannel = perChannel;
  nlohmann::json j = {{"scale32", true}, {"rounding_mode", "SINGLE_ROUND"}, {"per_channel", perChannel},
                      {"input_zp", inZp}, {"output_zp", outZp}};
  return emit(Op::Rescale, attrs, {x, mv, sv, zi, zo}, x.shape, to, std::move(j));
}

Result<tosa::Graph> Net::graph() const {
  OPENVGF_TRY(status_);
  return withContext(builder_.build(), fmt::format("model {}", name_));
}

std::int64_t Net::parameterCount() const {
  std::int64_t n = 0;
  for (const auto& [name, t] : weights_) n += t.size();
  return n;
}

nlohmann::json Net::description() const {
  nlohmann::json j;
  j["name"] = name_;
  j["format"] = "openvgf-zoo-1";
  nlohmann::json ins = nlohmann::json::array();
  for (const Value& v : inputs_) ins.push_back({{"name", v.name}, {"shape", shapeJson(v.shape)}, {"dtype", dtypeName(v.dtype)}});
  nlohmann::json outs = nlohmann::json::array();
  for (const Value& v : outputs_) {
    outs.push_back({{"name", v.name}, {"shape", shapeJson(v.shape)}, {"dtype", dtypeName(v.dtype)}});
  }
  j["inputs"] = std::move(ins);
  j["outputs"] = std::move(outs);
  j["tensors"] = tensors_;
  j["layers"] = layers_;
  j["parameters"] = parameterCount();
  j["macs"] = macs_;
  return j;
}

}  // namespace openvgf::benchmarks
