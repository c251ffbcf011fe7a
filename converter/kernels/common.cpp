// SPDX-License-Identifier: Apache-2.0
// Shared kernel helpers; the elementwise expression table follows specs/tosa.md §2.3.
#include "converter/kernels/common.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tosa/float_types.h"

namespace openvgf::converter {

using tosa::DType;
using tosa::Op;

std::optional<TypeInfo> typeInfo(DType type) {
  switch (type) {
    case DType::Bool: return TypeInfo{"uint8_t", "ld_bool", "st_bool", "bool", "uint8_t"};
    case DType::Int4:
    case DType::Int8: return TypeInfo{"int8_t", "ld_i8", "st_i8", "int", "uint8_t"};
    case DType::Int16: return TypeInfo{"int16_t", "ld_i16", "st_i16", "int", "uint16_t"};
    case DType::Int32: return TypeInfo{"int", "ld_i32", "st_i32", "int", "uint"};
    case DType::Int48: return TypeInfo{"int64_t", "ld_i48", "st_i48", "int64_t", "uint64_t"};
    case DType::Fp32: return TypeInfo{"float", "ld_f32", "st_f32", "float", "uint"};
    case DType::Fp16: return TypeInfo{"float16_t", "ld_f16", "st_f16", "float", "uint16_t"};
    case DType::Bf16: return TypeInfo{"uint16_t", "ld_bf16", "st_bf16", "float", "uint16_t"};
    case DType::Fp8E4M3: return TypeInfo{"uint8_t", "ld_fp8e4m3", "st_fp8e4m3", "float", "uint8_t"};
    case DType::Fp8E5M2: return TypeInfo{"uint8_t", "ld_fp8e5m2", "st_fp8e5m2", "float", "uint8_t"};
    default: return std::nullopt;
  }
}

std::size_t storageBytes(DType type) {
  switch (type) {
    case DType::Bool:
    case DType::Int4:
    case DType::Int8:
    case DType::Fp8E4M3:
    case DType::Fp8E5M2: return 1;
    case DType::Int16:
    case DType::Fp16:
    case DType::Bf16: return 2;
    case DType::Int32:
    case DType::Fp32: return 4;
    case DType::Int48:
    case DType::Shape: return 8;
    default: return 0;
  }
}

std::uint32_t vkFormatOf(DType type) {
  using F = vgf::VkFormatValue;
  F f = F::Undefined;
  switch (type) {
    case DType::Bool: f = F::R8BoolArm; break;
    case DType::Int4:
    case DType::Int8: f = F::R8Sint; break;
    case DType::Int16: f = F::R16Sint; break;
    case DType::Int32: f = F::R32Sint; break;
    case DType::Int48:
    case DType::Shape: f = F::R64Sint; break;
    case DType::Fp32: f = F::R32Sfloat; break;
    case DType::Fp16: f = F::R16Sfloat; break;
    case DType::Bf16: f = F::R16SfloatBfloat16Arm; break;
    case DType::Fp8E4M3: f = F::R8SfloatFloat8E4M3Arm; break;
    case DType::Fp8E5M2: f = F::R8SfloatFloat8E5M2Arm; break;
    default: break;
  }
  return static_cast<std::uint32_t>(f);
}

void setBufferType(ShaderDefines& defines, const std::string& prefix, DType type) {
  auto info = typeInfo(type);
  if (!info) return;
  defines.setCode(prefix + "_STYPE", info->storage)
      .setCode(prefix + "_LD", info->load)
      .setCode(prefix + "_ST", info->store)
      .setCode(prefix + "_CT", info->compute);
}

std::pair<std::int64_t, std::int64_t> intRange(DType type) {
  switch (type) {
    case DType::Bool: return {0, 1};
    case DType::Int4: return {-8, 7};
    case DType::Int8: return {-128, 127};
    case DType::Int16: return {-32768, 32767};
    case DType::Int32: return {INT32_MIN, INT32_MAX};
    case DType::Int48: return {-(std::int64_t{1} << 47), (std::int64_t{1} << 47) - 1};
    default: return {INT64_MIN, INT64_MAX};
  }
}

std::int64_t constInt(const tosa::HostTensor& t, std::size_t i) {
  const std::uint8_t* p = t.bytes.data() + i * tosa::hostElementBytes(t.dtype);
  switch (t.dtype) {
    case DType::Bool: return *p != 0;
    case DType::Int4:
    case DType::Int8: return static_cast<std::int8_t>(*p);
    case DType::Int16: { std::int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::Int32: { std::int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::Int48:
    case DType::Shape: { std::int64_t v; std::memcpy(&v, p, 8); return v; }
    default: return static_cast<std::int64_t>(constFloat(t, i));
  }
}

float decodeFloat(DType type, const std::uint8_t* p) {
  if (type == DType::Fp32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  const tosa::FloatFormat* format = tosa::floatFormatOf(type);
  if (format == nullptr) return 0.0f;
  std::uint32_t bits = p[0];
  if (tosa::hostElementBytes(type) == 2) {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    bits = h;
  }
  // Every narrow value is exact in float, so this cast does not round.
  return static_cast<float>(tosa::decodeFloat(bits, *format));
}

double constFloat(const tosa::HostTensor& t, std::size_t i) {
  if (tosa::isFloat(t.dtype)) return decodeFloat(t.dtype, t.bytes.data() + i * tosa::hostElementBytes(t.dtype));
  return static_cast<double>(constInt(t, i));
}

std::uint32_t ceilDiv(std::uint64_t a, std::uint64_t b) { return static_cast<std::uint32_t>((a + b - 1) / b); }

std::array<std::uint32_t, 3> linearGrid(std::uint64_t groups, ShaderDefines& defines) {
  groups = std::max<std::uint64_t>(groups, 1);
  std::uint32_t x = static_cast<std::uint32_t>(std::min<std::uint64_t>(groups, 65535));
  std::uint32_t y = ceilDiv(groups, x);
  defines.set("GRID_X", static_cast<std::int64_t>(x));
  return {x, y, 1};
}

std::vector<std::size_t> dataInputs(const tosa::Operator& op) {
  switch (op.op) {
    case Op::Mul: return {0, 1};
    case Op::Negate:
    case Op::Rescale:
    case Op::Table: return {0};
    default: {
      std::vector<std::size_t> all(op.inputs.size());
      for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
      return all;
    }
  }
}

bool isElementwiseOp(Op op) {
  switch (op) {
    case Op::Clamp: case Op::Erf: case Op::Sigmoid: case Op::Tanh: case Op::Add:
    case Op::ArithmeticRightShift: case Op::BitwiseAnd: case Op::BitwiseOr: case Op::BitwiseXor:
    case Op::IntDiv: case Op::LogicalAnd: case Op::LogicalLeftShift: case Op::LogicalRightShift:
    case Op::LogicalOr: case Op::LogicalXor: case Op::Maximum: case Op::Minimum: case Op::Mul:
    case Op::Pow: case Op::Sub: case Op::Table: case Op::Abs: case Op::BitwiseNot: case Op::Ceil:
    case Op::Clz: case Op::Cos: case Op::Exp: case Op::Floor: case Op::Log: case Op::LogicalNot:
    case Op::Negate: case Op::Reciprocal: case Op::Rsqrt: case Op::Sin: case Op::Select:
    case Op::Equal: case Op::Greater: case Op::GreaterEqual: case Op::Cast: case Op::Rescale:
    case Op::Identity:
      return true;
    default: return false;
  }
}

std::string describeOp(const Program& program, const tosa::Operator& op, std::size_t index) {
  std::vector<std::string> in, out;
  for (const auto& n : op.inputs) {
    const tosa::Tensor* t = program.find(n);
    in.emplace_back(t ? tosa::toString(t->dtype) : "?");
  }
  for (const auto& n : op.outputs) {
    const tosa::Tensor* t = program.find(n);
    out.emplace_back(t ? tosa::toString(t->dtype) : "?");
  }
  return fmt::format("operators[{}] {} ({} -> {})", index, tosa::toString(op.op), fmt::join(in, ", "),
                     fmt::join(out, ", "));
}

namespace {

bool isIntLike(DType t) { return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int4; }
bool isFloatType(DType t) { return tosa::isFloat(t); }

// Re-rounds an fp32 compute value to a narrower float output type, so a fused chain sees
// the same intermediate values as an unfused one.
std::string roundTo(DType out, const std::string& e) {
  switch (out) {
    case DType::Fp16: return fmt::format("float(float16_t({}))", e);
    case DType::Bf16: return fmt::format("ld_bf16(st_bf16({}))", e);
    case DType::Fp8E4M3: return fmt::format("ld_fp8e4m3(st_fp8e4m3({}))", e);
    case DType::Fp8E5M2: return fmt::format("ld_fp8e5m2(st_fp8e5m2({}))", e);
    default: return e;
  }
}

// Wraps an int compute value to the bit width of an int output type.
std::string wrapTo(DType out, const std::string& e) {
  switch (out) {
    case DType::Int8: return fmt::format("ovgf_wrap8({})", e);
    case DType::Int16: return fmt::format("ovgf_wrap16({})", e);
    default: return e;
  }
}

int typeBits(DType t) { return t == DType::Int8 ? 8 : t == DType::Int16 ? 16 : 32; }

}  // namespace

Status checkElementwiseTypes(const LoweringContext& ctx, const tosa::Operator& op, std::size_t opIndex) {
  const Program& p = ctx.program();
  auto typeOf = [&](std::size_t i) { return p.find(op.inputs.at(i))->dtype; };
  DType out = p.find(op.outputs.at(0))->dtype;
  auto fail = [&]() -> Status { return unsupported("{}: expected a supported type combination", describeOp(p, op, opIndex)); };
  if (op.inputs.empty() || op.outputs.size() != 1) return fail();
  DType in = typeOf(0);
  auto fp = [](DType t) { return t == DType::Fp32 || t == DType::Fp16 || t == DType::Bf16; };
  switch (op.op) {
    case Op::Add: case Op::Sub:
      return (in == DType::Int32 || fp(in)) && out == in ? Status{} : fail();
    case Op::Maximum: case Op::Minimum:
      return (in == DType::Int32 || fp(in)) && out == in ? Status{} : fail();
    case Op::Mul:
      if (fp(in) && out == in) return {};
      return isIntLike(in) && in != DType::Int4 && out == DType::Int32 ? Status{} : fail();
    case Op::IntDiv: case Op::Clz:
      return in == DType::Int32 && out == DType::Int32 ? Status{} : fail();
    case Op::ArithmeticRightShift: case Op::BitwiseAnd: case Op::BitwiseOr: case Op::BitwiseXor:
    case Op::BitwiseNot: case Op::LogicalLeftShift: case Op::LogicalRightShift:
      return (in == DType::Int8 || in == DType::Int16 || in == DType::Int32) && out == in ? Status{} : fail();
    case Op::LogicalAnd: case Op::LogicalOr: case Op::LogicalXor: case Op::LogicalNot:
      return in == DType::Bool && out == DType::Bool ? Status{} : fail();
    case Op::Pow: case Op::Erf: case Op::Sigmoid: case Op::Tanh: case Op::Ceil: case Op::Cos: case Op::Exp:
    case Op::Floor: case Op::Log: case Op::Reciprocal: case Op::Rsqrt: case Op::Sin:
      return fp(in) && out == in ? Status{} : fail();
    case Op::Abs:
      return (in == DType::Int32 || fp(in)) && out == in ? Status{} : fail();
    case Op::Negate:
      return ((in == DType::Int8 || in == DType::Int16 || in == DType::Int32) || fp(in)) && out == in ? Status{} : fail();
    case Op::Clamp:
      return (in == DType::Int8 || in == DType::Int16 || fp(in)) && out == in ? Status{} : fail();
    case Op::Select:
      return in == DType::Bool && op.inputs.size() == 3 && typeOf(1) == out && typeOf(2) == out && typeInfo(out)
                 ? Status{} : fail();
    case Op::Equal: case Op::Greater: case Op::GreaterEqual:
      return (in == DType::Int32 || fp(in)) && out == DType::Bool ? Status{} : fail();
    case Op::Identity:
      return typeInfo(in) && out == in ? Status{} : fail();
    case Op::Table:
      return (in == DType::Int8 && out == DType::Int8) || (in == DType::Int16 && out == DType::Int32) ? Status{}
                                                                                                    : fail();
    case Op::Rescale: {
      bool inOk = in == DType::Int8 || in == DType::Int16 || in == DType::Int32 || in == DType::Int48;
      bool outOk = out == DType::Int8 || out == DType::Int16 || out == DType::Int32;
      return inOk && outOk ? Status{} : fail();
    }
    case Op::Cast: {
      if (in == out) return fail();
      bool inInt = in == DType::Int8 || in == DType::Int16 || in == DType::Int32;
      bool outInt = out == DType::Int8 || out == DType::Int16 || out == DType::Int32;
      if (in == DType::Bool) return outInt ? Status{} : fail();
      if (out == DType::Bool) return inInt ? Status{} : fail();
      if (inInt && (outInt || isFloatType(out))) return {};
      if (isFloatType(in) && (outInt || isFloatType(out))) return {};
      return fail();
    }
    default: return fail();
  }
}

Result<std::string> elementwiseExpression(const LoweringContext& ctx, const tosa::Operator& op, std::size_t opIndex,
                                          const std::vector<std::string>& args, std::string& decls,
                                          std::vector<std::int32_t>& params, int uid) {
  const Program& p = ctx.program();
  DType in = p.find(op.inputs.at(0))->dtype;
  DType out = p.find(op.outputs.at(0))->dtype;
  const std::string& a = args.at(0);
  auto arg = [&](std::size_t i) -> const std::string& { return args.at(i); };
  auto ctc = [&](std::size_t i) -> Result<tosa::HostTensor> {
    const tosa::Tensor* t = p.find(op.inputs.at(i));
    if (t == nullptr || !t->data || t->variable) {
      return unsupported("{}: input {}: expected a compile-time constant, got a run-time tensor",
                         describeOp(p, op, opIndex), i);
    }
    return tosa::constantValue(*t);
  };
  const bool fpIn = isFloatType(in);
  switch (op.op) {
    case Op::Identity: return a;
    case Op::Add: return fpIn ? roundTo(out, fmt::format("({} + {})", a, arg(1))) : fmt::format("({} + {})", a, arg(1));
    case Op::Sub: return fpIn ? roundTo(out, fmt::format("({} - {})", a, arg(1))) : fmt::format("({} - {})", a, arg(1));
    case Op::Mul: {
      if (fpIn) return roundTo(out, fmt::format("({} * {})", a, arg(1)));
      std::int64_t shift = 0;
      if (op.inputs.size() > 2) {
        OPENVGF_ASSIGN_OR_RETURN(auto s, ctc(2));
        if (s.size() > 0) shift = constInt(s, 0);
      }
      // (a * b + 2^(shift-1)) >> shift with a 64-bit intermediate is apply_scale_32 without
      // double rounding; the helper does it in 32-bit halves (no Int64 arithmetic).
      if (in == DType::Int32 && shift > 0) return fmt::format("apply_scale_32({}, {}, {}, false)", a, arg(1), shift);
      return fmt::format("({} * {})", a, arg(1));
    }
    case Op::IntDiv: return fmt::format("({} / {})", a, arg(1));
    case Op::Maximum:
    case Op::Minimum: {
      const char* fn = op.op == Op::Maximum ? "max" : "min";
      if (!fpIn) return fmt::format("{}({}, {})", fn, a, arg(1));
      bool ignore = std::holds_alternative<tosa::NanModeAttrs>(op.attrs) &&
                    std::get<tosa::NanModeAttrs>(op.attrs).nanMode == tosa::NanMode::Ignore;
      return fmt::format("ovgf_{}_{}({}, {})", fn, ignore ? "i" : "p", a, arg(1));
    }
    case Op::Pow: return roundTo(out, fmt::format("pow({}, {})", a, arg(1)));
    case Op::ArithmeticRightShift: {
      bool round = std::holds_alternative<tosa::ArithmeticRightShiftAttrs>(op.attrs) &&
                   std::get<tosa::ArithmeticRightShiftAttrs>(op.attrs).round;
      return fmt::format("ovgf_ashr({}, {}, {})", a, arg(1), round ? "true" : "false");
    }
    case Op::BitwiseAnd: return fmt::format("({} & {})", a, arg(1));
    case Op::BitwiseOr: return fmt::format("({} | {})", a, arg(1));
    case Op::BitwiseXor: return fmt::format("({} ^ {})", a, arg(1));
    case Op::BitwiseNot: return fmt::format("(~{})", a);
    case Op::LogicalAnd: return fmt::format("({} && {})", a, arg(1));
    case Op::LogicalOr: return fmt::format("({} || {})", a, arg(1));
    case Op::LogicalXor: return fmt::format("({} != {})", a, arg(1));
    case Op::LogicalNot: return fmt::format("(!{})", a);
    case Op::LogicalLeftShift: return wrapTo(out, fmt::format("({} << {})", a, arg(1)));
    case Op::LogicalRightShift: return fmt::format("ovgf_lshr({}, {}, {})", a, arg(1), typeBits(in));
    case Op::Abs: return fpIn ? fmt::format("abs({})", a) : fmt::format("abs({})", a);
    case Op::Ceil: return fmt::format("ceil({})", a);
    case Op::Floor: return fmt::format("floor({})", a);
    case Op::Clz: return fmt::format("ovgf_clz({})", a);
    case Op::Cos: return roundTo(out, fmt::format("cos({})", a));
    case Op::Sin: return roundTo(out, fmt::format("sin({})", a));
    case Op::Exp: return roundTo(out, fmt::format("exp({})", a));
    case Op::Log: return roundTo(out, fmt::format("ovgf_log({})", a));
    case Op::Reciprocal: return roundTo(out, fmt::format("ovgf_reciprocal({})", a));
    case Op::Rsqrt: return roundTo(out, fmt::format("ovgf_rsqrt({})", a));
    case Op::Erf: return roundTo(out, fmt::format("ovgf_erf({})", a));
    case Op::Sigmoid: return roundTo(out, fmt::format("ovgf_sigmoid({})", a));
    case Op::Tanh: return roundTo(out, fmt::format("ovgf_tanh({})", a));
    case Op::Negate: {
      if (fpIn) return fmt::format("(-{})", a);
      std::int64_t zpIn = 0, zpOut = 0;
      if (op.inputs.size() > 2) {
        OPENVGF_ASSIGN_OR_RETURN(auto z1, ctc(1));
        OPENVGF_ASSIGN_OR_RETURN(auto z2, ctc(2));
        zpIn = z1.size() > 0 ? constInt(z1, 0) : 0;
        zpOut = z2.size() > 0 ? constInt(z2, 0) : 0;
      }
      auto [lo, hi] = intRange(out);
      return fmt::format("ovgf_clip(-({} - {}) + {}, {}, {})", a, glslInt(zpIn), glslInt(zpOut), glslInt(lo), glslInt(hi));
    }
    case Op::Select: return fmt::format("({} ? {} : {})", a, arg(1), arg(2));
    case Op::Equal: return fmt::format("({} == {})", a, arg(1));
    case Op::Greater: return fmt::format("({} > {})", a, arg(1));
    case Op::GreaterEqual: return fmt::format("({} >= {})", a, arg(1));
    case Op::Clamp: {
      if (!std::holds_alternative<tosa::ClampAttrs>(op.attrs)) {
        return invalidInput("{}: expected a ClampAttribute", describeOp(p, op, opIndex));
      }
      const auto& attrs = std::get<tosa::ClampAttrs>(op.attrs);
      std::size_t bytes = tosa::hostElementBytes(in);
      if (attrs.minVal.size() < bytes || attrs.maxVal.size() < bytes) {
        return invalidInput("{}: min_val/max_val: expected {} bytes each, got {} and {}", describeOp(p, op, opIndex), bytes,
                            attrs.minVal.size(), attrs.maxVal.size());
      }
      tosa::HostTensor lo(in, {1}), hi(in, {1});
      std::memcpy(lo.bytes.data(), attrs.minVal.data(), bytes);
      std::memcpy(hi.bytes.data(), attrs.maxVal.data(), bytes);
      if (fpIn) {
        return fmt::format("ovgf_clamp_{}({}, {}, {})", attrs.nanMode == tosa::NanMode::Ignore ? "i" : "p", a,
                           glslFloat(static_cast<float>(constFloat(lo, 0))), glslFloat(static_cast<float>(constFloat(hi, 0))));
      }
      return fmt::format("ovgf_clip({}, {}, {})", a, glslInt(constInt(lo, 0)), glslInt(constInt(hi, 0)));
    }
    case Op::Cast: {
      if (in == DType::Bool) return fmt::format("({} ? 1 : 0)", a);
      if (out == DType::Bool) return fmt::format("({} != 0)", a);
      if (!fpIn && !isFloatType(out)) return wrapTo(out, a);            // int -> int: truncate
      if (!fpIn) return roundTo(out, fmt::format("float({})", a));        // int -> fp
      if (isFloatType(out)) return roundTo(out, a);                       // fp -> fp
      auto [lo, hi] = intRange(out);                                      // fp -> int: RNE, saturate
      return fmt::format("ovgf_f2i({}, {}, {})", a, glslInt(lo), glslInt(hi));
    }
    case Op::Table: {
      OPENVGF_ASSIGN_OR_RETURN(auto table, ctc(1));
      std::vector<std::int64_t> values;
      for (std::int64_t i = 0; i < table.size(); ++i) values.push_back(constInt(table, static_cast<std::size_t>(i)));
      const std::size_t offset = params.size();
      for (std::int64_t v : values) params.push_back(static_cast<std::int32_t>(v));
      if (in == DType::Int8) {
        if (values.size() != 256) return invalidInput("{}: table: expected 256 entries, got {}", describeOp(p, op, opIndex), values.size());
        return fmt::format("ovgf_params[{} + {}]", offset + 128, a);
      }
      if (values.size() != 513) return invalidInput("{}: table: expected 513 entries, got {}", describeOp(p, op, opIndex), values.size());
      decls += fmt::format("int table{0}(int x) {{ int v = clamp(x, -32768, 32767) + 32768; int i = {1} + (v >> 7); "
                           "int f = v & 0x7F; int base = ovgf_params[i]; return (base << 7) + (ovgf_params[i + 1] - base) * f; }} ",
                           uid, offset);
      return fmt::format("table{}({})", uid, a);
    }
    case Op::Rescale: {
      if (!std::holds_alternative<tosa::RescaleAttrs>(op.attrs)) {
        return invalidInput("{}: expected a RescaleAttribute", describeOp(p, op, opIndex));
      }
      const auto& attrs = std::get<tosa::RescaleAttrs>(op.attrs);
      OPENVGF_ASSIGN_OR_RETURN(auto mult, ctc(1));
      OPENVGF_ASSIGN_OR_RETURN(auto shift, ctc(2));
      OPENVGF_ASSIGN_OR_RETURN(auto izp, ctc(3));
      OPENVGF_ASSIGN_OR_RETURN(auto ozp, ctc(4));
      std::size_t nc = static_cast<std::size_t>(mult.size());
      if (nc == 0 || shift.size() != mult.size()) {
        return invalidInput("{}: multiplier/shift: expected equal non-zero lengths, got {} and {}",
                            describeOp(p, op, opIndex), mult.size(), shift.size());
      }
      std::vector<std::int64_t> m, s;
      for (std::size_t i = 0; i < nc; ++i) {
        m.push_back(constInt(mult, i));
        std::int64_t sh = constInt(shift, i);
        if (sh < 2 || sh > 62) {
          return invalidInput("{}: shift[{}]: expected 2 <= shift <= 62, got {}", describeOp(p, op, opIndex), i, sh);
        }
        s.push_back(sh);
      }
      auto maskOf = [](DType t) -> std::int64_t { return t == DType::Int8 ? 0xFF : 0xFFFF; };
      std::int64_t inZp = izp.size() > 0 ? constInt(izp, 0) : 0;
      std::int64_t outZp = ozp.size() > 0 ? constInt(ozp, 0) : 0;
      if (attrs.inputUnsigned) inZp &= maskOf(in);
      if (attrs.outputUnsigned) outZp &= maskOf(out);
      std::int64_t lo, hi;
      if (attrs.outputUnsigned) {
        lo = 0;
        hi = maskOf(out);
      } else {
        std::tie(lo, hi) = intRange(out);
      }
      // 64-bit arithmetic only where the value itself needs it (INT48 input, or a 16-bit scale
      // of an INT32 input whose zero point could overflow 32 bits); everything else uses
      // the 32-bit-halves apply_scale_32, which is exact for 32-bit values (scale16 included:
      // without double rounding the two definitions agree).
      const bool wide = in == DType::Int48 || (in == DType::Int32 && !attrs.scale32 && inZp != 0);
      std::string multiplier, shiftAmount;
      if (attrs.perChannel && nc > 1) {
        const std::size_t offset = params.size();
        for (std::int64_t v : m) params.push_back(static_cast<std::int32_t>(v));
        for (std::int64_t v : s) params.push_back(static_cast<std::int32_t>(v));
        multiplier = fmt::format("ovgf_params[{} + ch]", offset);
        shiftAmount = fmt::format("ovgf_params[{} + ch]", offset + nc);
      } else {
        multiplier = glslInt(m[0]);
        shiftAmount = glslInt(s[0]);
      }
      const char* doubleRound = attrs.scale32 && attrs.roundingMode == tosa::RoundingMode::DoubleRound ? "true" : "false";
      if (wide) {
        std::string value = attrs.inputUnsigned ? fmt::format("(int64_t(x) & int64_t({}))", maskOf(in)) : "int64_t(x)";
        std::string scale = attrs.scale32 ? fmt::format("apply_scale_32(int(v), {}, {}, {})", multiplier, shiftAmount, doubleRound)
                                          : fmt::format("apply_scale_16(v, {}, {})", multiplier, shiftAmount);
        decls += fmt::format("int rescale{0}(int64_t x, uint ch) {{ int64_t v = {1} - int64_t({2}); int r = {3}; "
                             "r = r + {4}; return clamp(r, {5}, {6}); }} ",
                             uid, value, glslInt(inZp), scale, glslInt(outZp), glslInt(lo), glslInt(hi));
      } else {
        std::string value = attrs.inputUnsigned ? fmt::format("(x & {})", maskOf(in)) : "x";
        decls += fmt::format("int rescale{0}(int x, uint ch) {{ int v = {1} - {2}; int r = apply_scale_32(v, {3}, {4}, {5}); "
                             "r = r + {6}; return clamp(r, {7}, {8}); }} ",
                             uid, value, glslInt(inZp), multiplier, shiftAmount, doubleRound, glslInt(outZp),
                             glslInt(lo), glslInt(hi));
      }
      return fmt::format("rescale{}({}, ch)", uid, a);
    }
    default:
      return unsupported("{}: not an elementwise operator", describeOp(p, op, opIndex));
  }
}

}  // namespace openvgf::converter

namespace openvgf::converter {
namespace {

constexpr std::size_t kMaxEpilogueInputs = 2;

// How an extra epilogue input is indexed: like the output, or per channel (last dim).
enum class EpiIndex { None, Output, Channel, Scalar };

EpiIndex epilogueIndexing(const Program& program, const std::string& name, const tosa::Shape& outShape) {
  const tosa::Tensor* t = program.find(name);
  if (t == nullptr) return EpiIndex::None;
  if (program.isConstant(name) && tosa::elementCount(t->shape) == 1) return EpiIndex::Scalar;
  if (t->shape == outShape) return EpiIndex::Output;
  if (!outShape.empty() && t->shape.size() == outShape.size() && t->shape.back() == outShape.back() &&
      tosa::elementCount(t->shape) == outShape.back()) {
    return EpiIndex::Channel;
  }
  return EpiIndex::None;
}

}  // namespace

bool epilogueFusable(const Program& program, const Node& node, const FusedOp& next) {
  if (!isElementwiseOp(next.op.op) || next.op.op == tosa::Op::Identity) return false;
  const tosa::Tensor* prevOut = program.find(node.output());
  const tosa::Tensor* nextOut = program.find(next.op.outputs.at(0));
  if (prevOut == nullptr || nextOut == nullptr || prevOut->shape != nextOut->shape) return false;
  std::vector<std::string> extra;
  auto collect = [&](const tosa::Operator& op, std::size_t chainInput) -> bool {
    for (std::size_t i : dataInputs(op)) {
      if (i == chainInput) continue;
      EpiIndex how = epilogueIndexing(program, op.inputs[i], nextOut->shape);
      if (how == EpiIndex::None) return false;
      if (how == EpiIndex::Scalar) continue;
      if (std::find(extra.begin(), extra.end(), op.inputs[i]) == extra.end()) extra.push_back(op.inputs[i]);
    }
    return true;
  };
  for (const FusedOp& f : node.epilogue) {
    if (!collect(f.op, f.chainInput)) return false;
  }
  if (!collect(next.op, next.chainInput)) return false;
  return extra.size() <= kMaxEpilogueInputs;
}

Status buildEpilogue(LoweringContext& ctx, const Node& node, const std::string& accCompute, ShaderDefines& defines,
                     PlanKernel& kernel) {
  const Program& p = ctx.program();
  const tosa::Tensor& anchorOut = ctx.tensor(node.op.outputs.at(0));
  const tosa::Tensor& finalOut = ctx.tensor(node.output());
  auto anchorInfo = typeInfo(anchorOut.dtype);
  if (!anchorInfo) return unsupported("{}: output type {} has no storage", nodeLabel(node), tosa::toString(anchorOut.dtype));
  std::string body;
  std::string first = fmt::format("{}(v)", anchorInfo->compute);
  if (tosa::isFloat(anchorOut.dtype)) first = roundTo(anchorOut.dtype, first);
  body += fmt::format("{} t0 = {}; ", anchorInfo->compute, first);
  std::string prev = "t0";
  std::string decls;
  std::vector<std::int32_t> params;
  std::vector<std::string> extra;
  for (std::size_t k = 0; k < node.epilogue.size(); ++k) {
    const FusedOp& f = node.epilogue[k];
    OPENVGF_TRY(checkElementwiseTypes(ctx, f.op, f.index));
    std::vector<std::string> args;
    for (std::size_t i : dataInputs(f.op)) {
      if (i == f.chainInput) {
        args.push_back(prev);
        continue;
      }
      const std::string& name = f.op.inputs[i];
      EpiIndex how = epilogueIndexing(p, name, finalOut.shape);
      if (how == EpiIndex::Scalar) {
        const tosa::Tensor& t = ctx.tensor(name);
        tosa::HostTensor v = tosa::constantValue(t);
        args.push_back(tosa::isFloat(t.dtype) ? glslFloat(static_cast<float>(constFloat(v, 0)))
                       : t.dtype == tosa::DType::Bool ? (constInt(v, 0) != 0 ? "true" : "false")
                                                      : glslInt(constInt(v, 0)));
        continue;
      }
      if (how == EpiIndex::None) return internalError("{}: epilogue input '{}' is not fusable", nodeLabel(node), name);
      auto it = std::find(extra.begin(), extra.end(), name);
      std::size_t slot = static_cast<std::size_t>(it - extra.begin());
      if (it == extra.end()) {
        extra.push_back(name);
        if (how == EpiIndex::Channel) defines.setCode(fmt::format("EPI{}_INDEX", slot), "ch");
      }
      args.push_back(fmt::format("e{}", slot));
    }
    OPENVGF_ASSIGN_OR_RETURN(std::string expr,
                             elementwiseExpression(ctx, f.op, f.index, args, decls, params, static_cast<int>(k)));
    auto info = typeInfo(ctx.tensor(f.op.outputs.at(0)).dtype);
    body += fmt::format("{} t{} = {}; ", info->compute, k + 1, expr);
    prev = fmt::format("t{}", k + 1);
  }
  body += fmt::format("r = {};", prev);
  (void)accCompute;
  defines.setCode("EPI_BODY", body).set("NUM_EPI", static_cast<std::int64_t>(extra.size()));
  if (!decls.empty()) defines.setCode("EW_DECLS", decls);
  for (std::size_t i = 0; i < extra.size(); ++i) {
    setBufferType(defines, fmt::format("EPI{}", i), ctx.tensor(extra[i]).dtype);
    defines.set(fmt::format("EPI{}_BINDING", i), static_cast<std::int64_t>(kernel.bindings.size()));
    kernel.bindings.push_back(ctx.tensorId(extra[i]));
    kernel.writes.push_back(false);
  }
  setBufferType(defines, "OUT", finalOut.dtype);
  defines.set("OUT_BINDING", static_cast<std::int64_t>(kernel.bindings.size()));
  kernel.bindings.push_back(ctx.tensorId(node.output()));
  kernel.writes.push_back(true);
  bindParams(ctx, std::move(params), defines, kernel);
  return {};
}

void bindParams(LoweringContext& ctx, std::vector<std::int32_t> params, ShaderDefines& defines, PlanKernel& kernel) {
  if (params.empty()) return;
  std::vector<std::uint8_t> bytes(params.size() * sizeof(std::int32_t));
  std::memcpy(bytes.data(), params.data(), bytes.size());
  defines.set("PARAMS_BINDING", static_cast<std::int64_t>(kernel.bindings.size()));
  kernel.bindings.push_back(ctx.addConstant(DType::Int32, {static_cast<std::int64_t>(params.size())}, std::move(bytes)));
  kernel.writes.push_back(false);
}

}  // namespace openvgf::converter
