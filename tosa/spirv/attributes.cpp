// SPDX-License-Identifier: Apache-2.0
// Attribute operands by name (see attributes.h). One function per direction, each a switch on
// the op's attribute layout (tosa/attribute_layout.h), so both directions name the same
// operands in the same places.
#include "tosa/spirv/attributes.h"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "tosa/attribute_layout.h"

namespace openvgf::tosa::spirv {
namespace {

using detail::AttrLayout;

std::string_view kindName(AttributeValue::Kind kind) {
  switch (kind) {
    case AttributeValue::Kind::Int: return "an integer scalar constant";
    case AttributeValue::Kind::Bool: return "a boolean constant";
    case AttributeValue::Kind::List: return "a rank-1 integer tensor constant";
    case AttributeValue::Kind::Element: return "a scalar constant of the input's element type";
  }
  return "a constant";
}

/// Hands out the operands of one instruction by name and reports any it never asked for.
class Reader {
 public:
  Reader(Op op, const NamedAttributes& operands) : op_(op), operands_(operands), used_(operands.size(), false) {}

  Result<const AttributeValue*> get(std::string_view name, AttributeValue::Kind kind) {
    for (std::size_t i = 0; i < operands_.size(); ++i) {
      if (operands_[i].first != name) continue;
      used_[i] = true;
      if (operands_[i].second.kind != kind) return invalidInput("{}: expected {}", name, kindName(kind));
      return &operands_[i].second;
    }
    return invalidInput("{}: expected this attribute operand of {}", name, toString(op_));
  }

  Result<std::int32_t> integer(std::string_view name) {
    OPENVGF_ASSIGN_OR_RETURN(const AttributeValue* v, get(name, AttributeValue::Kind::Int));
    if (v->value < std::numeric_limits<std::int32_t>::min() || v->value > std::numeric_limits<std::int32_t>::max()) {
      return invalidInput("{}: expected a 32-bit integer, got {}", name, v->value);
    }
    return static_cast<std::int32_t>(v->value);
  }

  Result<bool> flag(std::string_view name) {
    OPENVGF_ASSIGN_OR_RETURN(const AttributeValue* v, get(name, AttributeValue::Kind::Bool));
    return v->flag;
  }

  Result<std::vector<std::int32_t>> list(std::string_view name) {
    OPENVGF_ASSIGN_OR_RETURN(const AttributeValue* v, get(name, AttributeValue::Kind::List));
    std::vector<std::int32_t> out;
    for (std::int64_t x : v->list) {
      if (x < std::numeric_limits<std::int32_t>::min() || x > std::numeric_limits<std::int32_t>::max()) {
        return invalidInput("{}: expected 32-bit integers, got {}", name, x);
      }
      out.push_back(static_cast<std::int32_t>(x));
    }
    return out;
  }

  Result<std::vector<std::uint8_t>> element(std::string_view name) {
    OPENVGF_ASSIGN_OR_RETURN(const AttributeValue* v, get(name, AttributeValue::Kind::Element));
    std::vector<std::uint8_t> bytes(hostElementBytes(v->dtype));
    const auto bits = static_cast<std::uint64_t>(v->value);
    std::memcpy(bytes.data(), &bits, std::min(bytes.size(), sizeof bits));
    return bytes;
  }

  Result<NanMode> nanMode(std::string_view name) {
    OPENVGF_ASSIGN_OR_RETURN(std::int32_t v, integer(name));
    if (v != 1 && v != 2) return invalidInput("{}: expected 1 (PROPAGATE) or 2 (IGNORE), got {}", name, v);
    return static_cast<NanMode>(v);
  }

  Result<DType> accType(std::string_view name) {
    OPENVGF_ASSIGN_OR_RETURN(std::int32_t v, integer(name));
    switch (v) {
      case 1: return DType::Int32;
      case 2: return DType::Fp16;
      case 3: return DType::Fp32;
      case 4: return DType::Int48;
      default: return invalidInput("{}: expected 1 (INT32), 2 (FP16), 3 (FP32) or 4 (INT48), got {}", name, v);
    }
  }

  Result<RoundingMode> roundingMode(std::string_view name) {
    OPENVGF_ASSIGN_OR_RETURN(std::int32_t v, integer(name));
    // 0 is not an enumerant of TOSA.001000.1, but the hand-written RESCALE samples of Khronos'
    // Vulkan-Samples (tests/data/vgf-graph/conv2d_int8.spvasm) pass it and Arm's emulation
    // layer runs them with single rounding; openvgf reads it the same way.
    if (v == 0) return RoundingMode::SingleRound;
    if (v < 1 || v > 3) {
      return invalidInput("{}: expected 1 (SINGLE_ROUND), 2 (INEXACT_ROUND) or 3 (DOUBLE_ROUND), got {}", name, v);
    }
    return static_cast<RoundingMode>(v);
  }

  Result<ResizeMode> resizeMode(std::string_view name) {
    OPENVGF_ASSIGN_OR_RETURN(std::int32_t v, integer(name));
    if (v != 1 && v != 2) return invalidInput("{}: expected 1 (NEAREST_NEIGHBOR) or 2 (BILINEAR), got {}", name, v);
    return static_cast<ResizeMode>(v);
  }

  Status finish() const {
    for (std::size_t i = 0; i < operands_.size(); ++i) {
      if (!used_[i]) return invalidInput("{}: expected no such attribute operand for {}", operands_[i].first, toString(op_));
    }
    return {};
  }

 private:
  Op op_;
  const NamedAttributes& operands_;
  std::vector<bool> used_;
};

Result<Attributes> readAttributes(Op op, Reader& r) {
  switch (detail::attrLayout(op)) {
    case AttrLayout::Empty: return Attributes{};
    case AttrLayout::AxisNan: {
      OPENVGF_ASSIGN_OR_RETURN(std::int32_t axis, r.integer("axis"));
      OPENVGF_ASSIGN_OR_RETURN(NanMode nan, r.nanMode("nan_mode"));
      if (op == Op::ArgMax) return Attributes{ArgMaxAttrs{axis, nan}};
      return Attributes{AxisAttrs{axis, nan}};
    }
    case AttrLayout::AvgPool: {
      AvgPool2dAttrs a;
      OPENVGF_ASSIGN_OR_RETURN(a.kernel, r.list("kernel"));
      OPENVGF_ASSIGN_OR_RETURN(a.stride, r.list("stride"));
      OPENVGF_ASSIGN_OR_RETURN(a.pad, r.list("pad"));
      OPENVGF_ASSIGN_OR_RETURN(a.accType, r.accType("acc_type"));
      return Attributes{std::move(a)};
    }
    case AttrLayout::MaxPool: {
      MaxPool2dAttrs a;
      OPENVGF_ASSIGN_OR_RETURN(a.kernel, r.list("kernel"));
      OPENVGF_ASSIGN_OR_RETURN(a.stride, r.list("stride"));
      OPENVGF_ASSIGN_OR_RETURN(a.pad, r.list("pad"));
      OPENVGF_ASSIGN_OR_RETURN(a.nanMode, r.nanMode("nan_mode"));
      return Attributes{std::move(a)};
    }
    case AttrLayout::Conv: {
      ConvAttrs a;
      OPENVGF_ASSIGN_OR_RETURN(a.pad, r.list("pad"));
      OPENVGF_ASSIGN_OR_RETURN(a.stride, r.list("stride"));
      OPENVGF_ASSIGN_OR_RETURN(a.dilation, r.list("dilation"));
      OPENVGF_ASSIGN_OR_RETURN(a.accType, r.accType("acc_type"));
      OPENVGF_ASSIGN_OR_RETURN(a.localBound, r.flag("local_bound"));
      return Attributes{std::move(a)};
    }
    case AttrLayout::TransposeConv: {
      TransposeConv2dAttrs a;
      OPENVGF_ASSIGN_OR_RETURN(a.outPad, r.list("out_pad"));
      OPENVGF_ASSIGN_OR_RETURN(a.stride, r.list("stride"));
      OPENVGF_ASSIGN_OR_RETURN(a.accType, r.accType("acc_type"));
      OPENVGF_ASSIGN_OR_RETURN(a.localBound, r.flag("local_bound"));
      return Attributes{std::move(a)};
    }
    case AttrLayout::Fft: {
      FftAttrs a;
      OPENVGF_ASSIGN_OR_RETURN(a.inverse, r.flag("inverse"));
      OPENVGF_ASSIGN_OR_RETURN(a.localBound, r.flag("local_bound"));
      return Attributes{a};
    }
    case AttrLayout::Rfft: {
      FftAttrs a;
      OPENVGF_ASSIGN_OR_RETURN(a.localBound, r.flag("local_bound"));
      return Attributes{a};
    }
    case AttrLayout::Clamp: {
      ClampAttrs a;
      OPENVGF_ASSIGN_OR_RETURN(a.minVal, r.element("min_val"));
      OPENVGF_ASSIGN_OR_RETURN(a.maxVal, r.element("max_val"));
      OPENVGF_ASSIGN_OR_RETURN(a.nanMode, r.nanMode("nan_mode"));
      return Attributes{std::move(a)};
    }
    case AttrLayout::ArithmeticRightShift: {
      OPENVGF_ASSIGN_OR_RETURN(bool round, r.flag("round"));
      return Attributes{ArithmeticRightShiftAttrs{round}};
    }
    case AttrLayout::NanOnly: {
      OPENVGF_ASSIGN_OR_RETURN(NanMode nan, r.nanMode("nan_mode"));
      return Attributes{NanModeAttrs{nan}};
    }
    case AttrLayout::Axis: {
      OPENVGF_ASSIGN_OR_RETURN(std::int32_t axis, r.integer("axis"));
      return Attributes{AxisAttrs{axis, NanMode::Propagate}};
    }
    case AttrLayout::Transpose: {
      TransposeAttrs a;
      OPENVGF_ASSIGN_OR_RETURN(a.perms, r.list("perms"));
      return Attributes{std::move(a)};
    }
    case AttrLayout::Resize: {
      OPENVGF_ASSIGN_OR_RETURN(ResizeMode mode, r.resizeMode("mode"));
      return Attributes{ResizeAttrs{mode}};
    }
    case AttrLayout::Rescale: {
      RescaleAttrs a;
      OPENVGF_ASSIGN_OR_RETURN(a.scale32, r.flag("scale32"));
      OPENVGF_ASSIGN_OR_RETURN(a.roundingMode, r.roundingMode("rounding_mode"));
      OPENVGF_ASSIGN_OR_RETURN(a.perChannel, r.flag("per_channel"));
      OPENVGF_ASSIGN_OR_RETURN(a.inputUnsigned, r.flag("input_unsigned"));
      OPENVGF_ASSIGN_OR_RETURN(a.outputUnsigned, r.flag("output_unsigned"));
      return Attributes{a};
    }
    case AttrLayout::Custom:
    case AttrLayout::CondIf:
    case AttrLayout::WhileLoop: break;
  }
  return unsupported("{}: expected an operator of TOSA.001000.1", toString(op));
}

AttributeValue intValue(std::int64_t v) { return {AttributeValue::Kind::Int, v, false, {}, DType::Unknown}; }
AttributeValue boolValue(bool v) { return {AttributeValue::Kind::Bool, 0, v, {}, DType::Unknown}; }
AttributeValue listValue(const std::vector<std::int32_t>& v) {
  return {AttributeValue::Kind::List, 0, false, std::vector<std::int64_t>(v.begin(), v.end()), DType::Unknown};
}

Result<AttributeValue> elementValue(const std::vector<std::uint8_t>& bytes, DType dtype) {
  if (bytes.size() != hostElementBytes(dtype) || bytes.size() > 8) {
    return invalidInput("CLAMP bound: expected {} bytes of {}, got {}", hostElementBytes(dtype), toString(dtype),
                        bytes.size());
  }
  std::uint64_t bits = 0;
  std::memcpy(&bits, bytes.data(), bytes.size());
  return AttributeValue{AttributeValue::Kind::Element, static_cast<std::int64_t>(bits), false, {}, dtype};
}

/// TOSA's default for an unset nan_mode is PROPAGATE.
AttributeValue nanValue(NanMode mode) {
  return intValue(mode == NanMode::Unknown ? 1 : static_cast<std::int64_t>(mode));
}

Result<std::int64_t> accTypeValue(DType t) {
  switch (t) {
    case DType::Int32: return 1;
    case DType::Fp16: return 2;
    case DType::Fp32: return 3;
    case DType::Int48: return 4;
    default: return invalidInput("acc_type: expected INT32, FP16, FP32 or INT48, got {}", toString(t));
  }
}

}  // namespace

Result<Attributes> attributesFromOperands(Op op, const NamedAttributes& operands) {
  Reader reader(op, operands);
  OPENVGF_ASSIGN_OR_RETURN(Attributes attrs, readAttributes(op, reader));
  OPENVGF_TRY(reader.finish());
  return attrs;
}

Result<NamedAttributes> attributesToOperands(Op op, const Attributes& attrs, DType elementType) {
  NamedAttributes out;
  auto wrong = [&]() { return internalError("{}: attributes of the wrong kind for the op", toString(op)); };
  switch (detail::attrLayout(op)) {
    case AttrLayout::Empty: return out;
    case AttrLayout::AxisNan: {
      if (const auto* a = std::get_if<ArgMaxAttrs>(&attrs)) {
        out = {{"axis", intValue(a->axis)}, {"nan_mode", nanValue(a->nanMode)}};
      } else if (const auto* x = std::get_if<AxisAttrs>(&attrs)) {
        out = {{"axis", intValue(x->axis)}, {"nan_mode", nanValue(x->nanMode)}};
      } else {
        return wrong();
      }
      return out;
    }
    case AttrLayout::AvgPool: {
      const auto* a = std::get_if<AvgPool2dAttrs>(&attrs);
      if (a == nullptr) return wrong();
      OPENVGF_ASSIGN_OR_RETURN(std::int64_t acc, accTypeValue(a->accType));
      return NamedAttributes{{"kernel", listValue(a->kernel)}, {"stride", listValue(a->stride)},
                             {"pad", listValue(a->pad)}, {"acc_type", intValue(acc)}};
    }
    case AttrLayout::MaxPool: {
      const auto* a = std::get_if<MaxPool2dAttrs>(&attrs);
      if (a == nullptr) return wrong();
      return NamedAttributes{{"kernel", listValue(a->kernel)}, {"stride", listValue(a->stride)},
                             {"pad", listValue(a->pad)}, {"nan_mode", nanValue(a->nanMode)}};
    }
    case AttrLayout::Conv: {
      const auto* a = std::get_if<ConvAttrs>(&attrs);
      if (a == nullptr) return wrong();
      OPENVGF_ASSIGN_OR_RETURN(std::int64_t acc, accTypeValue(a->accType));
      return NamedAttributes{{"pad", listValue(a->pad)},           {"stride", listValue(a->stride)},
                             {"dilation", listValue(a->dilation)}, {"acc_type", intValue(acc)},
                             {"local_bound", boolValue(a->localBound)}};
    }
    case AttrLayout::TransposeConv: {
      const auto* a = std::get_if<TransposeConv2dAttrs>(&attrs);
      if (a == nullptr) return wrong();
      OPENVGF_ASSIGN_OR_RETURN(std::int64_t acc, accTypeValue(a->accType));
      return NamedAttributes{{"out_pad", listValue(a->outPad)}, {"stride", listValue(a->stride)},
                             {"acc_type", intValue(acc)}, {"local_bound", boolValue(a->localBound)}};
    }
    case AttrLayout::Fft:
    case AttrLayout::Rfft: {
      const auto* a = std::get_if<FftAttrs>(&attrs);
      if (a == nullptr) return wrong();
      if (op == Op::Rfft2d) return NamedAttributes{{"local_bound", boolValue(a->localBound)}};
      return NamedAttributes{{"inverse", boolValue(a->inverse)}, {"local_bound", boolValue(a->localBound)}};
    }
    case AttrLayout::Clamp: {
      const auto* a = std::get_if<ClampAttrs>(&attrs);
      if (a == nullptr) return wrong();
      OPENVGF_ASSIGN_OR_RETURN(AttributeValue lo, elementValue(a->minVal, elementType));
      OPENVGF_ASSIGN_OR_RETURN(AttributeValue hi, elementValue(a->maxVal, elementType));
      return NamedAttributes{{"min_val", lo}, {"max_val", hi}, {"nan_mode", nanValue(a->nanMode)}};
    }
    case AttrLayout::ArithmeticRightShift: {
      const auto* a = std::get_if<ArithmeticRightShiftAttrs>(&attrs);
      if (a == nullptr) return wrong();
      return NamedAttributes{{"round", boolValue(a->round)}};
    }
    case AttrLayout::NanOnly: {
      const auto* a = std::get_if<NanModeAttrs>(&attrs);
      if (a == nullptr) return wrong();
      return NamedAttributes{{"nan_mode", nanValue(a->nanMode)}};
    }
    case AttrLayout::Axis: {
      const auto* a = std::get_if<AxisAttrs>(&attrs);
      if (a == nullptr) return wrong();
      return NamedAttributes{{"axis", intValue(a->axis)}};
    }
    case AttrLayout::Transpose: {
      const auto* a = std::get_if<TransposeAttrs>(&attrs);
      if (a == nullptr) return wrong();
      return NamedAttributes{{"perms", listValue(a->perms)}};
    }
    case AttrLayout::Resize: {
      const auto* a = std::get_if<ResizeAttrs>(&attrs);
      if (a == nullptr) return wrong();
      if (a->mode != ResizeMode::Nearest && a->mode != ResizeMode::Bilinear) {
        return invalidInput("mode: expected NEAREST or BILINEAR, got {}", toString(a->mode));
      }
      return NamedAttributes{{"mode", intValue(static_cast<std::int64_t>(a->mode))}};
    }
    case AttrLayout::Rescale: {
      const auto* a = std::get_if<RescaleAttrs>(&attrs);
      if (a == nullptr) return wrong();
      return NamedAttributes{{"scale32", boolValue(a->scale32)},
                             {"rounding_mode", intValue(static_cast<std::int64_t>(a->roundingMode))},
                             {"per_channel", boolValue(a->perChannel)},
                             {"input_unsigned", boolValue(a->inputUnsigned)},
                             {"output_unsigned", boolValue(a->outputUnsigned)}};
    }
    case AttrLayout::Custom:
    case AttrLayout::CondIf:
    case AttrLayout::WhileLoop: break;
  }
  return unsupported("{}: expected an operator of TOSA.001000.1", toString(op));
}

}  // namespace openvgf::tosa::spirv
