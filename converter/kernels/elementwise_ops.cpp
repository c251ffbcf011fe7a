// SPDX-License-Identifier: Apache-2.0
// Elementwise operators as calls of shaders/include/ew_ops.glsl (see elementwise_ops.h);
// the operator semantics follow specs/tosa.md §2.3 and live in the GLSL.
#include "converter/kernels/elementwise_ops.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "converter/kernels/common.h"
#include "tosa/op_table.h"
#include "tosa/shape_inference.h"

namespace openvgf::converter {

using tosa::DType;
using tosa::Op;
using tosa::opInfo;

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

namespace {

bool isIntLike(DType t) { return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int4; }
bool isNarrowInt(DType t) { return t == DType::Int8 || t == DType::Int16 || t == DType::Int32; }
bool isFloatType(DType t) { return tosa::isFloat(t); }
bool isComputeFloat(DType t) { return t == DType::Fp32 || t == DType::Fp16 || t == DType::Bf16; }

/// "fn(a, b, ...)": a call of a function or macro of the GLSL library.
template <typename... Args>
std::string call(std::string_view fn, const Args&... args) {
  return fmt::format("{}({})", fn, fmt::join(std::vector<std::string>{fmt::format("{}", args)...}, ", "));
}

// Wraps an int compute value to the bit width of an int output type.
std::string wrapTo(DType out, const std::string& e) {
  switch (out) {
    case DType::Int8: return call("ovgf_wrap8", e);
    case DType::Int16: return call("ovgf_wrap16", e);
    default: return e;
  }
}

int typeBits(DType t) { return t == DType::Int8 ? 8 : t == DType::Int16 ? 16 : 32; }

std::string_view nanSuffix(const tosa::Operator& op) {
  const auto* attrs = std::get_if<tosa::NanModeAttrs>(&op.attrs);
  return attrs != nullptr && attrs->nanMode == tosa::NanMode::Ignore ? "i" : "p";
}

}  // namespace

std::string roundToType(DType out, const std::string& expr) {
  switch (out) {
    case DType::Fp16: return call("ovgf_round_fp16", expr);
    case DType::Bf16: return call("ovgf_round_bf16", expr);
    case DType::Fp8E4M3: return call("ovgf_round_fp8e4m3", expr);
    case DType::Fp8E5M2: return call("ovgf_round_fp8e5m2", expr);
    default: return expr;
  }
}

namespace {

/// The types of an operator without a case of its own: an input type its table rows list that
/// the GPU computes in (BOOL, INT8/16/32, FP16/32, BF16; every input of that type), and the
/// output type its shape rule gives.
bool conventionalTypes(const Program& p, const tosa::Operator& op) {
  std::vector<tosa::ValueInfo> inputs;
  for (const auto& name : op.inputs) inputs.push_back({p.find(name)->dtype, p.find(name)->shape, std::nullopt});
  const DType in = inputs[0].dtype;
  const std::array<DType, 1> key{in};
  const auto rows = opInfo(op.op).types;
  if (std::none_of(rows.begin(), rows.end(), [&](const tosa::TypeRow& row) { return row.matches(key); })) return false;
  if (!isNarrowInt(in) && !isComputeFloat(in) && in != DType::Bool) return false;
  for (const tosa::ValueInfo& v : inputs) {
    if (v.dtype != in) return false;
  }
  auto inferred = tosa::inferOutputs(op.op, op.attrs, inputs);
  return inferred && inferred->size() == 1 && (*inferred)[0].dtype == p.find(op.outputs.at(0))->dtype;
}

}  // namespace

Status checkElementwiseTypes(const LoweringContext& ctx, const tosa::Operator& op, std::size_t opIndex) {
  const Program& p = ctx.program();
  auto typeOf = [&](std::size_t i) { return p.find(op.inputs.at(i))->dtype; };
  auto fail = [&]() -> Status { return unsupported("{}: expected a supported type combination", describeOp(p, op, opIndex)); };
  if (op.inputs.empty() || op.outputs.size() != 1) return fail();
  const DType out = p.find(op.outputs.at(0))->dtype;
  const DType in = typeOf(0);
  const auto fp = isComputeFloat;
  const auto ok = [&](bool condition) { return condition ? Status{} : fail(); };
  switch (op.op) {
    case Op::Add: case Op::Sub: case Op::Maximum: case Op::Minimum: case Op::Abs:
      return ok((in == DType::Int32 || fp(in)) && out == in);
    case Op::Mul:
      return ok((fp(in) && out == in) || (isIntLike(in) && in != DType::Int4 && out == DType::Int32));
    case Op::IntDiv:
      return ok(in == DType::Int32 && out == DType::Int32);
    case Op::ArithmeticRightShift: case Op::BitwiseAnd: case Op::BitwiseOr: case Op::BitwiseXor:
    case Op::BitwiseNot: case Op::LogicalLeftShift: case Op::LogicalRightShift:
      return ok(isNarrowInt(in) && out == in);
    case Op::LogicalAnd: case Op::LogicalOr: case Op::LogicalXor: case Op::LogicalNot:
      return ok(in == DType::Bool && out == DType::Bool);
    case Op::Negate:
      return ok((isNarrowInt(in) || fp(in)) && out == in);
    case Op::Clamp:
      return ok((in == DType::Int8 || in == DType::Int16 || fp(in)) && out == in);
    case Op::Select:
      return ok(in == DType::Bool && op.inputs.size() == 3 && typeOf(1) == out && typeOf(2) == out &&
                typeInfo(out).has_value());
    case Op::Equal: case Op::Greater: case Op::GreaterEqual:
      return ok((in == DType::Int32 || fp(in)) && out == DType::Bool);
    case Op::Identity:
      return ok(typeInfo(in) && out == in);
    case Op::Table:
      return ok((in == DType::Int8 && out == DType::Int8) || (in == DType::Int16 && out == DType::Int32));
    case Op::Rescale:
      return ok((isNarrowInt(in) || in == DType::Int48) && isNarrowInt(out));
    case Op::Cast:
      if (in == out) return fail();
      if (in == DType::Bool) return ok(isNarrowInt(out));
      if (out == DType::Bool) return ok(isNarrowInt(in));
      return ok((isNarrowInt(in) || isFloatType(in)) && (isNarrowInt(out) || isFloatType(out)));
    default: return ok(conventionalTypes(p, op));
  }
}

namespace {

/// What the expression of one operator is built from.
struct Operands {
  const LoweringContext& ctx;
  const tosa::Operator& op;
  std::size_t opIndex;
  const std::vector<std::string>& args;
  DType in;   // type of input 0
  DType out;  // type of output 0

  const std::string& arg(std::size_t i) const { return args.at(i); }
  std::string describe() const { return describeOp(ctx.program(), op, opIndex); }
  /// Input i as a compile-time constant (CTC operands: zero points, shifts, tables, ...).
  Result<tosa::HostTensor> constant(std::size_t i) const {
    const tosa::Tensor* t = ctx.program().find(op.inputs.at(i));
    if (t == nullptr || !t->data || t->variable) {
      return unsupported("{}: input {}: expected a compile-time constant, got a run-time tensor", describe(), i);
    }
    return tosa::constantValue(*t);
  }
};

/// An elementwise operator with no case of its own calls `ovgf_<spelling in lower case>` of
/// shaders/include/ew_ops.glsl on its data inputs (LOGICAL_NOT would be ovgf_logical_not),
/// and its result is rounded or wrapped to the output type like every other operator's.
std::string conventionalExpression(const Operands& o) {
  std::string fn = "ovgf_";
  for (char ch : toString(o.op.op)) fn += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const std::string expr = fmt::format("{}({})", fn, fmt::join(o.args, ", "));
  return isFloatType(o.out) ? roundToType(o.out, expr) : wrapTo(o.out, expr);
}

/// Operators whose expression depends only on the operator and the input/output types.
std::optional<std::string> simpleExpression(const Operands& o) {
  const std::string& a = o.arg(0);
  const DType out = o.out;
  const bool fpIn = isFloatType(o.in);
  switch (o.op.op) {
    case Op::Identity: return a;
    case Op::Add: return fpIn ? roundToType(out, call("ovgf_add", a, o.arg(1))) : call("ovgf_add", a, o.arg(1));
    case Op::Sub: return fpIn ? roundToType(out, call("ovgf_sub", a, o.arg(1))) : call("ovgf_sub", a, o.arg(1));
    case Op::IntDiv: return call("ovgf_intdiv", a, o.arg(1));
    case Op::Maximum:
    case Op::Minimum: {
      const std::string_view fn = o.op.op == Op::Maximum ? "max" : "min";
      if (!fpIn) return call(fn, a, o.arg(1));
      return call(fmt::format("ovgf_{}_{}", fn, nanSuffix(o.op)), a, o.arg(1));
    }
    case Op::Pow: return roundToType(out, call("pow", a, o.arg(1)));
    case Op::ArithmeticRightShift: {
      const auto* attrs = std::get_if<tosa::ArithmeticRightShiftAttrs>(&o.op.attrs);
      return call("ovgf_ashr", a, o.arg(1), attrs != nullptr && attrs->round ? "true" : "false");
    }
    case Op::BitwiseAnd: return call("ovgf_bitwise_and", a, o.arg(1));
    case Op::BitwiseOr: return call("ovgf_bitwise_or", a, o.arg(1));
    case Op::BitwiseXor: return call("ovgf_bitwise_xor", a, o.arg(1));
    case Op::BitwiseNot: return call("ovgf_bitwise_not", a);
    case Op::LogicalAnd: return call("ovgf_logical_and", a, o.arg(1));
    case Op::LogicalOr: return call("ovgf_logical_or", a, o.arg(1));
    case Op::LogicalXor: return call("ovgf_logical_xor", a, o.arg(1));
    case Op::LogicalNot: return call("ovgf_logical_not", a);
    case Op::LogicalLeftShift: return wrapTo(out, call("ovgf_shl", a, o.arg(1)));
    case Op::LogicalRightShift: return call("ovgf_lshr", a, o.arg(1), typeBits(o.in));
    case Op::Abs: return call("abs", a);
    case Op::Ceil: return call("ceil", a);
    case Op::Floor: return call("floor", a);
    case Op::Cos: return roundToType(out, call("cos", a));
    case Op::Sin: return roundToType(out, call("ovgf_sin", a));
    case Op::Exp: return roundToType(out, call("exp", a));
    case Op::Select: return call("ovgf_select", a, o.arg(1), o.arg(2));
    case Op::Equal: return call("ovgf_equal", a, o.arg(1));
    case Op::Greater: return call("ovgf_greater", a, o.arg(1));
    case Op::GreaterEqual: return call("ovgf_greater_equal", a, o.arg(1));
    default: return std::nullopt;
  }
}

Result<std::string> mulExpression(const Operands& o) {
  if (isFloatType(o.in)) return roundToType(o.out, call("ovgf_mul", o.arg(0), o.arg(1)));
  std::int64_t shift = 0;
  if (o.op.inputs.size() > 2) {
    OPENVGF_ASSIGN_OR_RETURN(auto s, o.constant(2));
    if (s.size() > 0) shift = constInt(s, 0);
  }
  if (o.in == DType::Int32 && shift > 0) return call("ovgf_mul_shift", o.arg(0), o.arg(1), shift);
  return call("ovgf_mul", o.arg(0), o.arg(1));
}

Result<std::string> negateExpression(const Operands& o) {
  if (isFloatType(o.in)) return call("ovgf_negate", o.arg(0));
  std::int64_t zpIn = 0, zpOut = 0;
  if (o.op.inputs.size() > 2) {
    OPENVGF_ASSIGN_OR_RETURN(auto z1, o.constant(1));
    OPENVGF_ASSIGN_OR_RETURN(auto z2, o.constant(2));
    zpIn = z1.size() > 0 ? constInt(z1, 0) : 0;
    zpOut = z2.size() > 0 ? constInt(z2, 0) : 0;
  }
  auto [lo, hi] = intRange(o.out);
  return call("ovgf_negate_zp", o.arg(0), glslInt(zpIn), glslInt(zpOut), glslInt(lo), glslInt(hi));
}

Result<std::string> clampExpression(const Operands& o) {
  const auto* attrs = std::get_if<tosa::ClampAttrs>(&o.op.attrs);
  if (attrs == nullptr) return invalidInput("{}: expected a ClampAttribute", o.describe());
  const std::size_t bytes = tosa::hostElementBytes(o.in);
  if (attrs->minVal.size() < bytes || attrs->maxVal.size() < bytes) {
    return invalidInput("{}: min_val/max_val: expected {} bytes each, got {} and {}", o.describe(), bytes,
                        attrs->minVal.size(), attrs->maxVal.size());
  }
  tosa::HostTensor lo(o.in, {1}), hi(o.in, {1});
  std::memcpy(lo.bytes.data(), attrs->minVal.data(), bytes);
  std::memcpy(hi.bytes.data(), attrs->maxVal.data(), bytes);
  if (isFloatType(o.in)) {
    return call(attrs->nanMode == tosa::NanMode::Ignore ? "ovgf_clamp_i" : "ovgf_clamp_p", o.arg(0),
                glslFloat(static_cast<float>(constFloat(lo, 0))), glslFloat(static_cast<float>(constFloat(hi, 0))));
  }
  return call("ovgf_clip", o.arg(0), glslInt(constInt(lo, 0)), glslInt(constInt(hi, 0)));
}

std::string castExpression(const Operands& o) {
  const std::string& a = o.arg(0);
  const bool fpIn = isFloatType(o.in), fpOut = isFloatType(o.out);
  if (o.in == DType::Bool) return call("ovgf_cast_from_bool", a);
  if (o.out == DType::Bool) return call("ovgf_cast_to_bool", a);
  if (!fpIn && !fpOut) return wrapTo(o.out, a);                                  // int -> int: truncate
  if (!fpIn) return roundToType(o.out, call("ovgf_cast_to_float", a));           // int -> fp
  if (fpOut) return roundToType(o.out, a);                                       // fp -> fp
  auto [lo, hi] = intRange(o.out);                                               // fp -> int: RNE, saturate
  return call("ovgf_f2i", a, glslInt(lo), glslInt(hi));
}

Result<std::string> tableExpression(const Operands& o, std::string& decls, std::vector<std::int32_t>& params,
                                    int uid) {
  OPENVGF_ASSIGN_OR_RETURN(auto table, o.constant(1));
  const std::size_t offset = params.size();
  const auto entries = static_cast<std::size_t>(table.size());
  for (std::size_t i = 0; i < entries; ++i) params.push_back(static_cast<std::int32_t>(constInt(table, i)));
  if (o.in == DType::Int8) {
    if (entries != 256) return invalidInput("{}: table: expected 256 entries, got {}", o.describe(), entries);
    return call("ovgf_table8", offset, o.arg(0));
  }
  if (entries != 513) return invalidInput("{}: table: expected 513 entries, got {}", o.describe(), entries);
  const std::string name = fmt::format("table{}", uid);
  decls += call("OVGF_DEFINE_TABLE16", name, offset) + " ";
  return call(name, o.arg(0));
}

Result<std::string> rescaleExpression(const Operands& o, std::string& decls, std::vector<std::int32_t>& params,
                                      int uid, ParamTables* tables, bool runtimeZeroPoints) {
  const auto* attrs = std::get_if<tosa::RescaleAttrs>(&o.op.attrs);
  if (attrs == nullptr) return invalidInput("{}: expected a RescaleAttribute", o.describe());
  OPENVGF_ASSIGN_OR_RETURN(auto mult, o.constant(1));
  OPENVGF_ASSIGN_OR_RETURN(auto shift, o.constant(2));
  OPENVGF_ASSIGN_OR_RETURN(auto izp, o.constant(3));
  OPENVGF_ASSIGN_OR_RETURN(auto ozp, o.constant(4));
  const auto nc = static_cast<std::size_t>(mult.size());
  if (nc == 0 || shift.size() != mult.size()) {
    return invalidInput("{}: multiplier/shift: expected equal non-zero lengths, got {} and {}", o.describe(),
                        mult.size(), shift.size());
  }
  std::vector<std::int64_t> m, s;
  for (std::size_t i = 0; i < nc; ++i) {
    m.push_back(constInt(mult, i));
    const std::int64_t sh = constInt(shift, i);
    if (sh < 2 || sh > 62) return invalidInput("{}: shift[{}]: expected 2 <= shift <= 62, got {}", o.describe(), i, sh);
    s.push_back(sh);
  }
  // input_unsigned / output_unsigned reinterpret the low 8 (INT8) or 16 bits.
  const bool in8 = o.in == DType::Int8, out8 = o.out == DType::Int8;
  std::int64_t inZp = izp.size() > 0 ? constInt(izp, 0) : 0;
  std::int64_t outZp = ozp.size() > 0 ? constInt(ozp, 0) : 0;
  if (attrs->inputUnsigned) inZp &= in8 ? 0xFF : 0xFFFF;
  if (attrs->outputUnsigned) outZp &= out8 ? 0xFF : 0xFFFF;
  auto [lo, hi] = attrs->outputUnsigned ? std::pair<std::int64_t, std::int64_t>{0, out8 ? 0xFF : 0xFFFF}
                                        : intRange(o.out);
  std::string multiplier = glslInt(m[0]), shiftAmount = glslInt(s[0]);
  if (o.ctx.target().tuning.runtimeShapes) {
    // Run-time shapes (Tuning::runtimeShapes): the scales always come from the parameter
    // buffer, per channel as pairs, so that the code names neither a per-tensor scale nor a
    // channel count, and kernels that differ in these share a module.
    const bool perChannel = attrs->perChannel && nc > 1;
    const std::size_t offset = params.size();
    std::vector<std::int32_t>& into = perChannel && tables != nullptr ? tables->data : params;
    if (perChannel && tables != nullptr) {
      tables->slots.push_back(offset);
      params.push_back(static_cast<std::int32_t>(tables->data.size()));
    }
    for (std::size_t i = 0; i < (perChannel ? nc : 1); ++i) {
      into.push_back(static_cast<std::int32_t>(m[i]));
      into.push_back(static_cast<std::int32_t>(s[i]));
    }
    const char* at = !perChannel ? "ovgf_param_pair" : tables != nullptr ? "ovgf_channel_pair_at" : "ovgf_channel_pair";
    multiplier = call(at, offset, 0);
    shiftAmount = call(at, offset, 1);
  } else if (attrs->perChannel && nc > 1) {
    const std::size_t offset = params.size();
    for (std::int64_t v : m) params.push_back(static_cast<std::int32_t>(v));
    for (std::int64_t v : s) params.push_back(static_cast<std::int32_t>(v));
    multiplier = call("ovgf_channel_param", offset);
    shiftAmount = call("ovgf_channel_param", offset + nc);
  }
  std::string inZpCode = glslInt(inZp), outZpCode = glslInt(outZp);
  if (runtimeZeroPoints) {
    inZpCode = fmt::format("ovgf_params[{}]", params.size());
    params.push_back(static_cast<std::int32_t>(inZp));
    outZpCode = fmt::format("ovgf_params[{}]", params.size());
    params.push_back(static_cast<std::int32_t>(outZp));
  }
  const char* doubleRound = attrs->scale32 && attrs->roundingMode == tosa::RoundingMode::DoubleRound ? "true" : "false";
  const std::string name = fmt::format("rescale{}", uid);
  // 64-bit arithmetic only where the value itself needs it (INT48 input, or a 16-bit scale
  // of an INT32 input whose zero point could overflow 32 bits).
  const bool wide = o.in == DType::Int48 || (o.in == DType::Int32 && !attrs->scale32 && inZp != 0);
  if (wide) {
    const char* value = !attrs->inputUnsigned ? "ovgf_rescale_in64" : in8 ? "ovgf_rescale_in64_u8" : "ovgf_rescale_in64_u16";
    decls += call("OVGF_DEFINE_RESCALE_WIDE", name, value, inZpCode,
                  attrs->scale32 ? "ovgf_rescale_scale32" : "ovgf_rescale_scale16", multiplier, shiftAmount,
                  doubleRound, outZpCode, glslInt(lo), glslInt(hi));
  } else {
    const char* value = !attrs->inputUnsigned ? "ovgf_rescale_in" : in8 ? "ovgf_rescale_in_u8" : "ovgf_rescale_in_u16";
    decls += call("OVGF_DEFINE_RESCALE", name, value, inZpCode, multiplier, shiftAmount, doubleRound, outZpCode,
                  glslInt(lo), glslInt(hi));
  }
  decls += " ";
  return call(name, o.arg(0), "ch");
}

}  // namespace

void placeTables(std::vector<std::int32_t>& params, const ParamTables& tables) {
  for (std::size_t slot : tables.slots) params[slot] += static_cast<std::int32_t>(params.size());
  params.insert(params.end(), tables.data.begin(), tables.data.end());
}

Result<std::string> elementwiseExpression(const LoweringContext& ctx, const tosa::Operator& op, std::size_t opIndex,
                                          const std::vector<std::string>& args, std::string& decls,
                                          std::vector<std::int32_t>& params, int uid, ParamTables* tables,
                                          bool runtimeZeroPoints) {
  const Program& p = ctx.program();
  const Operands o{ctx, op, opIndex, args, p.find(op.inputs.at(0))->dtype, p.find(op.outputs.at(0))->dtype};
  if (auto simple = simpleExpression(o)) return *simple;
  switch (op.op) {
    case Op::Mul: return mulExpression(o);
    case Op::Negate: return negateExpression(o);
    case Op::Clamp: return clampExpression(o);
    case Op::Cast: return castExpression(o);
    case Op::Table: return tableExpression(o, decls, params, uid);
    case Op::Rescale: return rescaleExpression(o, decls, params, uid, tables, runtimeZeroPoints);
    default:
      if (!tosa::isElementwise(op.op)) return unsupported("{}: not an elementwise operator", describeOp(p, op, opIndex));
      return conventionalExpression(o);
  }
}

}  // namespace openvgf::converter
