// SPDX-License-Identifier: Apache-2.0
// Elementwise family (shaders/elementwise.comp): unary, binary, ternary, comparison,
// CAST, CLAMP, RESCALE, TABLE and IDENTITY, with broadcasting, plus any chain of them the
// fusion pass attached as an epilogue: one kernel, one pass over memory.
#include <algorithm>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/int_division.h"
#include "converter/kernels/registry.h"
#include "tosa/op_table.h"

namespace openvgf::converter {
namespace {

constexpr std::size_t kMaxInputs = 4;
constexpr std::size_t kMaxRank = 6;

// Run-time shapes (Tuning::runtimeShapes, CPU devices): the first entries of the parameter
// buffer hold what the other targets compile in (shaders/elementwise.comp, EW_RUNTIME): the
// element count, the last dim and its division pair, each merged output dim with its division
// pair, and each input's strides along them. A fixed size, so that the offsets the operators'
// expressions name after it are the same for every shape.
constexpr std::size_t kRuntimeDimsAt = 4;
constexpr std::size_t kRuntimeStridesAt = kRuntimeDimsAt + 3 * kMaxRank;
constexpr std::size_t kRuntimeHeader = kRuntimeStridesAt + kMaxInputs * kMaxRank;

std::string scalarLiteral(const tosa::Tensor& t) {
  tosa::HostTensor v = tosa::constantValue(t);
  if (t.dtype == tosa::DType::Bool) return constInt(v, 0) != 0 ? "true" : "false";
  if (tosa::isFloat(t.dtype)) return glslFloat(static_cast<float>(constFloat(v, 0)));
  if (t.dtype == tosa::DType::Int48) return fmt::format("int64_t({})", glslInt(constInt(v, 0)));
  return glslInt(constInt(v, 0));
}

std::vector<const tosa::Operator*> chainOf(const Node& node) {
  std::vector<const tosa::Operator*> ops{&node.op};
  for (const FusedOp& f : node.epilogue) ops.push_back(&f.op);
  return ops;
}

/// fp16 arithmetic (native target, shaderFloat16 + RTE rounding for fp16): a chain whose
/// tensors are all fp16 and whose operators are exactly representable as IEEE fp16 operations
/// computes in float16_t. ADD/SUB/MUL rounded to nearest even give TOSA's correctly rounded
/// fp16 result (bit-identical to computing in fp32 and rounding once, since fp32 carries more
/// than 2*11+1 bits); MAX/MIN/ABS/NEGATE/CLAMP/IDENTITY are exact. Subnormal results may be
/// flushed, which TOSA's compliance rules allow for fp16.
bool fp16MathChain(const LoweringContext& ctx, const std::vector<const tosa::Operator*>& ops) {
  using tosa::Op;
  const Target& target = ctx.target();
  if (!target.caps.fp16Arithmetic || !target.caps.fp16RoundingRte) return false;
  for (const tosa::Operator* op : ops) {
    switch (op->op) {
      case Op::Add: case Op::Sub: case Op::Mul: case Op::Maximum: case Op::Minimum: case Op::Abs:
      case Op::Negate: case Op::Clamp: case Op::Identity: break;
      default: return false;
    }
    if (ctx.tensor(op->outputs.at(0)).dtype != tosa::DType::Fp16) return false;
    for (std::size_t i : dataInputs(*op)) {
      if (ctx.tensor(op->inputs.at(i)).dtype != tosa::DType::Fp16) return false;
    }
  }
  return true;
}

/// One operator of an fp16 chain (fp16MathChain) as a float16_t expression (the fp16
/// overloads of shaders/include/ew_ops.glsl and clamp.glsl).
Result<std::string> fp16Expression(const LoweringContext& ctx, const tosa::Operator& op, std::size_t opIndex,
                                   const std::vector<std::string>& args) {
  using tosa::Op;
  auto arg = [&](std::size_t i) { return i < args.size() ? args[i] : std::string("float16_t(0)"); };
  const bool ignoreNan = std::holds_alternative<tosa::NanModeAttrs>(op.attrs) &&
                         std::get<tosa::NanModeAttrs>(op.attrs).nanMode == tosa::NanMode::Ignore;
  switch (op.op) {
    case Op::Add: return fmt::format("ovgf_add({}, {})", arg(0), arg(1));
    case Op::Sub: return fmt::format("ovgf_sub({}, {})", arg(0), arg(1));
    case Op::Mul: return fmt::format("ovgf_mul({}, {})", arg(0), arg(1));
    case Op::Maximum: return fmt::format("ovgf_max_{}({}, {})", ignoreNan ? "i" : "p", arg(0), arg(1));
    case Op::Minimum: return fmt::format("ovgf_min_{}({}, {})", ignoreNan ? "i" : "p", arg(0), arg(1));
    case Op::Abs: return fmt::format("abs({})", arg(0));
    case Op::Negate: return fmt::format("ovgf_negate({})", arg(0));
    case Op::Identity: return arg(0);
    case Op::Clamp: {
      if (!std::holds_alternative<tosa::ClampAttrs>(op.attrs)) {
        return invalidInput("{}: expected a ClampAttribute", describeOp(ctx.program(), op, opIndex));
      }
      const auto& attrs = std::get<tosa::ClampAttrs>(op.attrs);
      if (attrs.minVal.size() < 2 || attrs.maxVal.size() < 2) {
        return invalidInput("{}: min_val/max_val: expected 2 bytes each", describeOp(ctx.program(), op, opIndex));
      }
      tosa::HostTensor lo(tosa::DType::Fp16, {1}), hi(tosa::DType::Fp16, {1});
      std::memcpy(lo.bytes.data(), attrs.minVal.data(), 2);
      std::memcpy(hi.bytes.data(), attrs.maxVal.data(), 2);
      // fp16 bounds are exact in fp32 literals, so the float16_t conversion is exact too.
      return fmt::format("ovgf_clamp_{}({}, float16_t({}), float16_t({}))",
                         attrs.nanMode == tosa::NanMode::Ignore ? "i" : "p", arg(0),
                         glslFloat(static_cast<float>(constFloat(lo, 0))), glslFloat(static_cast<float>(constFloat(hi, 0))));
    }
    default: break;
  }
  return internalError("{}: not an fp16-arithmetic operator", describeOp(ctx.program(), op, opIndex));
}

/// The output dims after merging the dims that are contiguous for every input, and each
/// input's element stride along them (0 = broadcast).
struct MergedDims {
  std::vector<std::int64_t> dims;
  std::vector<std::vector<std::int64_t>> strides;  // per input
};

Result<MergedDims> mergeDims(const LoweringContext& ctx, const Node& node, const std::vector<std::string>& inputNames,
                             const tosa::Shape& outShape) {
  const std::size_t rank = outShape.size();
  std::vector<std::vector<std::int64_t>> strides;
  for (const auto& name : inputNames) {
    const tosa::Tensor& t = ctx.tensor(name);
    tosa::Shape s = t.shape.empty() ? tosa::Shape(rank, 1) : t.shape;
    if (s.size() != rank) {
      return invalidInput("{}: input '{}': expected rank {}, got shape {}", nodeLabel(node), name, rank,
                          tosa::shapeToString(t.shape));
    }
    std::vector<std::int64_t> st(rank, 0);
    std::int64_t acc = 1;
    for (std::size_t d = rank; d-- > 0;) {
      if (s[d] != outShape[d] && s[d] != 1) {
        return invalidInput("{}: input '{}': expected a shape that broadcasts to {}, got {}", nodeLabel(node), name,
                            tosa::shapeToString(outShape), tosa::shapeToString(t.shape));
      }
      st[d] = s[d] == 1 && outShape[d] != 1 ? 0 : acc;
      acc *= s[d];
    }
    strides.push_back(std::move(st));
  }
  MergedDims m;
  std::vector<std::int64_t>& dims = m.dims;
  std::vector<std::vector<std::int64_t>>& merged = m.strides;
  dims.push_back(outShape[0]);
  for (auto& st : strides) merged.push_back({st[0]});
  for (std::size_t d = 1; d < rank; ++d) {
    bool mergeable = true;
    for (std::size_t i = 0; i < strides.size(); ++i) {
      if (merged[i].back() != strides[i][d] * outShape[d]) mergeable = false;
    }
    if (mergeable) {
      dims.back() *= outShape[d];
      for (std::size_t i = 0; i < strides.size(); ++i) merged[i].back() = strides[i][d];
    } else {
      dims.push_back(outShape[d]);
      for (std::size_t i = 0; i < strides.size(); ++i) merged[i].push_back(strides[i][d]);
    }
  }
  return m;
}

/// An element count, dim or stride (0..2^32-1): the shader uses it as a uint, and
/// ShaderDefines would write one of 2^31 or more as an int64_t literal, which elementwise.comp
/// does not enable.
void setIndex(ShaderDefines& defines, const std::string& name, std::int64_t value) {
  if (value < std::int64_t{kMagicDivideLimit}) {
    defines.set(name, value);
  } else {
    defines.setCode(name, fmt::format("{}u", value));
  }
}

void pushDivisor(std::int32_t* at, std::int64_t d) {
  const DivMagic magic = divMagic(static_cast<std::uint32_t>(d));
  at[0] = static_cast<std::int32_t>(d);
  at[1] = static_cast<std::int32_t>(magic.multiplier);
  at[2] = static_cast<std::int32_t>(magic.shift);
}

/// The run-time header (kRuntimeHeader entries) at the start of `params`.
void fillRuntimeHeader(std::vector<std::int32_t>& params, const MergedDims& m, std::int64_t total, std::int64_t lastDim) {
  params[0] = static_cast<std::int32_t>(total);
  pushDivisor(&params[1], lastDim);
  for (std::size_t d = 0; d < m.dims.size(); ++d) pushDivisor(&params[kRuntimeDimsAt + 3 * d], m.dims[d]);
  for (std::size_t i = 0; i < m.strides.size(); ++i) {
    for (std::size_t d = 0; d < m.dims.size(); ++d) {
      params[kRuntimeStridesAt + kMaxRank * i + d] = static_cast<std::int32_t>(m.strides[i][d]);
    }
  }
}

Status check(const LoweringContext& ctx, const Node& node) {
  OPENVGF_TRY(checkElementwiseTypes(ctx, node.op, node.index));
  for (const FusedOp& f : node.epilogue) OPENVGF_TRY(checkElementwiseTypes(ctx, f.op, f.index));
  return {};
}

Status lower(LoweringContext& ctx, const Node& node) {
  const Program& p = ctx.program();
  const tosa::Tensor& outT = ctx.tensor(node.output());
  tosa::Shape outShape = outT.shape.empty() ? tosa::Shape{1} : outT.shape;
  const std::size_t rank = outShape.size();
  if (rank > kMaxRank) {
    return unsupported("{}: output rank: expected <= {}, got {}", nodeLabel(node), kMaxRank, rank);
  }

  ShaderDefines defines;
  PlanKernel kernel;
  kernel.name = fmt::format("{}_{}", tosa::toString(node.op.op), node.index);
  std::vector<std::string> inputNames;  // kernel inputs, binding order
  std::string decls, body;
  // ovgf_udiv divides exactly below 2^31 (int_division.h): larger outputs keep compile-time shapes.
  const bool runtimeShapes =
      ctx.target().tuning.runtimeShapes && tosa::elementCount(outShape) < std::int64_t{kMagicDivideLimit};
  std::vector<std::int32_t> params(runtimeShapes ? kRuntimeHeader : 0, 0);  // fillRuntimeHeader
  ParamTables tables;  // per-channel RESCALE scales, after the rest (runtimeShapes)
  std::string prev;
  int uid = 0;
  const auto ops = chainOf(node);
  const bool fp16Math = fp16MathChain(ctx, ops);
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const tosa::Operator& op = *ops[k];
    const std::size_t opIndex = k == 0 ? node.index : node.epilogue[k - 1].index;
    const std::size_t chainInput = k == 0 ? SIZE_MAX : node.epilogue[k - 1].chainInput;
    std::vector<std::string> args;
    for (std::size_t i : dataInputs(op)) {
      if (i == chainInput) {
        args.push_back(prev);
        continue;
      }
      const std::string& name = op.inputs.at(i);
      const tosa::Tensor& t = ctx.tensor(name);
      if (p.isConstant(name) && tosa::elementCount(t.shape) == 1) {
        args.push_back(fp16Math ? fmt::format("float16_t({})", scalarLiteral(t)) : scalarLiteral(t));
        continue;
      }
      auto it = std::find(inputNames.begin(), inputNames.end(), name);
      std::size_t slot = static_cast<std::size_t>(it - inputNames.begin());
      if (it == inputNames.end()) {
        if (inputNames.size() == kMaxInputs) {
          return unsupported("{}: expected at most {} tensor inputs in one elementwise kernel", nodeLabel(node), kMaxInputs);
        }
        inputNames.push_back(name);
      }
      args.push_back(fmt::format("a{}", slot));
    }
    std::string expr;
    if (fp16Math) {
      OPENVGF_ASSIGN_OR_RETURN(expr, fp16Expression(ctx, op, opIndex, args));
    } else {
      OPENVGF_ASSIGN_OR_RETURN(expr, elementwiseExpression(ctx, op, opIndex, args, decls, params, uid++,
                                                             runtimeShapes ? &tables : nullptr, runtimeShapes));
    }
    auto info = typeInfo(ctx.tensor(op.outputs.at(0)).dtype);
    std::string var = fmt::format("t{}", k);
    body += fmt::format("{} {} = {}; ", fp16Math ? "float16_t" : info->compute, var, expr);
    prev = var;
  }
  body += fmt::format("r = {};", prev);

  OPENVGF_ASSIGN_OR_RETURN(MergedDims m, mergeDims(ctx, node, inputNames, outShape));
  const std::vector<std::int64_t>& dims = m.dims;
  const std::vector<std::vector<std::int64_t>>& merged = m.strides;
  const std::int64_t total = tosa::elementCount(outShape);
  defines.set("NUM_IN", static_cast<std::int64_t>(inputNames.size()))
      .set("RANK", static_cast<std::int64_t>(dims.size()))
      .set("WG_X", ctx.target().tuning.elementwiseWg)
      .set("EPT", ctx.target().tuning.elementsPerInvocation)
      .setCode("EW_BODY", body);
  if (!decls.empty()) defines.setCode("EW_DECLS", decls);
  if (runtimeShapes) {
    defines.set("EW_RUNTIME", 1);
    fillRuntimeHeader(params, m, total, outShape.back());
  } else {
    setIndex(defines, "TOTAL", total);
    setIndex(defines, "LAST_DIM", outShape.back());
    for (std::size_t d = 0; d < dims.size(); ++d) setIndex(defines, fmt::format("OUT_D{}", d), dims[d]);
  }
  for (std::size_t i = 0; i < inputNames.size(); ++i) {
    setBufferType(defines, fmt::format("IN{}", i), ctx.storedType(inputNames[i]));
    bool contiguous = tosa::elementCount(ctx.tensor(inputNames[i]).shape) == total;
    if (contiguous) {
      defines.set(fmt::format("IN{}_CONTIG", i), 1);
    } else if (!runtimeShapes) {
      for (std::size_t d = 0; d < kMaxRank; ++d) {
        setIndex(defines, fmt::format("IN{}_S{}", i, d), d < dims.size() ? merged[i][d] : 0);
      }
    }
    kernel.bindings.push_back(ctx.tensorId(inputNames[i]));
    kernel.writes.push_back(false);
  }
  setBufferType(defines, "OUT", ctx.storedType(node.output()));
  if (fp16Math) {
    defines.set("FP16_MATH", 1).setCode("OUT_ST", "st_f16_math").setCode("OUT_CT", "float16_t");
    for (std::size_t i = 0; i < inputNames.size(); ++i) {
      defines.setCode(fmt::format("IN{}_LD", i), "ld_f16_math").setCode(fmt::format("IN{}_CT", i), "float16_t");
    }
  }
  kernel.bindings.push_back(ctx.tensorId(node.output()));
  kernel.writes.push_back(true);
  if (runtimeShapes) placeTables(params, tables);
  bindParams(ctx, std::move(params), defines, kernel);
  const std::uint64_t perGroup = static_cast<std::uint64_t>(ctx.target().tuning.elementwiseWg) *
                                 static_cast<std::uint64_t>(ctx.target().tuning.elementsPerInvocation);
  // Run-time shapes fold the grid with gl_NumWorkGroups instead of a GRID_X the code names.
  ShaderDefines unnamedGrid;
  kernel.grid = linearGrid((static_cast<std::uint64_t>(total) + perGroup - 1) / perGroup,
                           runtimeShapes ? unnamedGrid : defines);
  kernel.shader = ShaderInstance{"elementwise.comp", std::move(defines)};
  ctx.addKernel(std::move(kernel));
  return {};
}

bool accepts(const Program& program, const Node& node, const FusedOp& next) {
  if (!tosa::isElementwise(next.op.op)) return false;
  // The chain shares one index space: every op's output must have the final shape, and
  // the number of distinct tensor inputs stays within the kernel's bindings.
  const tosa::Tensor* prevOut = program.find(node.output());
  const tosa::Tensor* nextOut = program.find(next.op.outputs.at(0));
  if (prevOut == nullptr || nextOut == nullptr || prevOut->shape != nextOut->shape) return false;
  std::vector<std::string> names;
  auto collect = [&](const tosa::Operator& op, std::size_t chainInput) {
    for (std::size_t i : dataInputs(op)) {
      if (i == chainInput) continue;
      const std::string& n = op.inputs[i];
      const tosa::Tensor* t = program.find(n);
      if (program.isConstant(n) && t != nullptr && tosa::elementCount(t->shape) == 1) continue;
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  };
  collect(node.op, SIZE_MAX);
  for (const FusedOp& f : node.epilogue) collect(f.op, f.chainInput);
  collect(next.op, next.chainInput);
  return names.size() <= kMaxInputs;
}

}  // namespace

KernelSpec elementwiseKernel() {
  std::vector<tosa::Op> ops;
  for (const tosa::OpInfo& info : tosa::opTable()) {
    if (tosa::isElementwise(info.op)) ops.push_back(info.op);
  }
  return KernelSpec{"elementwise", std::move(ops), check, lower, accepts, KernelSpec::Storage::AllInputs};
}

}  // namespace openvgf::converter
