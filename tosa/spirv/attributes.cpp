// SPDX-License-Identifier: Apache-2.0
// Attribute operands by name (see attributes.h). Both directions walk the fields that
// tosa/attributes.def lists for the op's layout, one operand per field by its schema name, and
// handle each field kind once, so an attribute is read exactly as it is written.
#include "tosa/spirv/attributes.h"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "tosa/attribute_fields.h"

namespace openvgf::tosa::spirv {
namespace {

using detail::FieldKind;

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

/// The operand `name` of kind K, as the field of that kind holds it.
template <FieldKind K>
Result<detail::FieldValue<K>> readField(Op op, Reader& r, std::string_view name) {
  if constexpr (K == FieldKind::Int32) {
    return r.integer(name);
  } else if constexpr (K == FieldKind::Int32List) {
    return r.list(name);
  } else if constexpr (K == FieldKind::Bool) {
    return r.flag(name);
  } else if constexpr (K == FieldKind::AccType) {
    return r.accType(name);
  } else if constexpr (K == FieldKind::NanMode) {
    return r.nanMode(name);
  } else if constexpr (K == FieldKind::ResizeMode) {
    return r.resizeMode(name);
  } else if constexpr (K == FieldKind::RoundingMode) {
    return r.roundingMode(name);
  } else if constexpr (K == FieldKind::ElementBytes) {
    return r.element(name);
  } else {
    // Strings and byte strings (CUSTOM, COND_IF, WHILE_LOOP) have no TOSA.001000.1 operand.
    return unsupported("{}: expected an operator of TOSA.001000.1", toString(op));
  }
}

/// The operand that encodes a field of kind K (CLAMP's bounds take the input's element type).
template <FieldKind K>
Result<AttributeValue> fieldOperand(Op op, const detail::FieldValue<K>& value, DType elementType) {
  if constexpr (K == FieldKind::Int32) {
    return intValue(value);
  } else if constexpr (K == FieldKind::Int32List) {
    return listValue(value);
  } else if constexpr (K == FieldKind::Bool) {
    return boolValue(value);
  } else if constexpr (K == FieldKind::AccType) {
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t acc, accTypeValue(value));
    return intValue(acc);
  } else if constexpr (K == FieldKind::NanMode) {
    return nanValue(value);  // TOSA's default for an unset nan_mode is PROPAGATE
  } else if constexpr (K == FieldKind::ResizeMode) {
    if (value != ResizeMode::Nearest && value != ResizeMode::Bilinear) {
      return invalidInput("mode: expected NEAREST or BILINEAR, got {}", toString(value));
    }
    return intValue(static_cast<std::int64_t>(value));
  } else if constexpr (K == FieldKind::RoundingMode) {
    return intValue(static_cast<std::int64_t>(value));
  } else if constexpr (K == FieldKind::ElementBytes) {
    return elementValue(value, elementType);
  } else {
    return unsupported("{}: expected an operator of TOSA.001000.1", toString(op));
  }
}

}  // namespace

Result<Attributes> attributesFromOperands(Op op, const NamedAttributes& operands) {
  Reader reader(op, operands);
  auto attrs = detail::visitLayout(detail::attrLayout(op), [&](auto layout) -> Result<Attributes> {
    detail::LayoutStruct<decltype(layout)::value> out{};
    Status status;
    detail::forEachField<decltype(layout)::value>(out, [&](auto kind, std::string_view name, std::uint16_t, auto& field) {
      if (!status) return;
      auto value = readField<decltype(kind)::value>(op, reader, name);
      if (value) field = std::move(*value);
      else status = Unexpected(std::move(value).error());
    });
    OPENVGF_TRY(status);
    return Attributes{std::move(out)};
  });
  if (!attrs) return attrs;
  OPENVGF_TRY(reader.finish());
  return attrs;
}

Result<NamedAttributes> attributesToOperands(Op op, const Attributes& attrs, DType elementType) {
  return detail::visitLayout(detail::attrLayout(op), [&](auto layout) -> Result<NamedAttributes> {
    const auto* in = std::get_if<detail::LayoutStruct<decltype(layout)::value>>(&attrs);
    if (in == nullptr) return internalError("{}: attributes of the wrong kind for the op", toString(op));
    NamedAttributes out;
    Status status;
    detail::forEachField<decltype(layout)::value>(*in, [&](auto kind, std::string_view name, std::uint16_t, const auto& field) {
      if (!status) return;
      auto value = fieldOperand<decltype(kind)::value>(op, field, elementType);
      if (value) out.emplace_back(name, std::move(*value));
      else status = Unexpected(std::move(value).error());
    });
    OPENVGF_TRY(status);
    return out;
  });
}

}  // namespace openvgf::tosa::spirv
