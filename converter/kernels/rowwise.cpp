// SPDX-License-Identifier: Apache-2.0
// Row-wise chains (see rowwise.h): the chain becomes straight-line GLSL over per-invocation
// arrays. Invocation `tid` of a workgroup of T holds columns tid, tid + T, ... of its row;
// a whole-row value is an array of those columns, a per-row value a scalar every
// invocation holds. Reductions combine the invocations' partial results through subgroup
// arithmetic (sum, product) or a shared-memory tree (max, min: subgroup min/max leave NaN
// handling undefined), after which every invocation holds the row's result.
#include "converter/kernels/rowwise.h"

#include <algorithm>
#include <bit>
#include <map>
#include <set>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "tosa/op_table.h"

namespace openvgf::converter {
namespace {

using tosa::DType;
using tosa::Op;

// Tensor inputs one chain may bind besides its output and parameter buffer.
constexpr std::size_t kMaxRowInputs = 6;

bool isReduction(Op op) { return op == Op::ReduceSum || op == Op::ReduceProduct || op == Op::ReduceMax || op == Op::ReduceMin; }
bool isFloatType(DType t) { return t == DType::Fp32 || t == DType::Fp16 || t == DType::Bf16; }

// The chain's rows: whole-row values are shaped `full` ([..., N]), per-row values `row`.
struct RowShapes {
  tosa::Shape full, row;
  std::int64_t n = 0;
};

RowShapes shapesOf(const Program& program, const Node& chain) {
  RowShapes s;
  s.full = program.find(chain.op.inputs.at(0))->shape;
  s.row = s.full;
  s.row.back() = 1;
  s.n = s.full.back();
  return s;
}

// How a tensor from outside the chain is read.
enum class Operand { None, Whole, PerRow, PerColumn, Scalar };

Operand externalOperand(const Program& program, const std::string& name, const RowShapes& shapes) {
  const tosa::Tensor* t = program.find(name);
  if (t == nullptr || !isFloatType(t->dtype)) return Operand::None;
  if (t->shape == shapes.full) return Operand::Whole;
  if (t->shape == shapes.row) return Operand::PerRow;
  if (program.isConstant(name) && tosa::elementCount(t->shape) == 1) return Operand::Scalar;
  if (t->shape.size() == shapes.full.size() && t->shape.back() == shapes.n && tosa::elementCount(t->shape) == shapes.n) {
    return Operand::PerColumn;
  }
  return Operand::None;
}

// Results of the chain: name -> whether it holds a whole row.
std::map<std::string, bool> chainResults(const Program& program, const Node& chain, const RowShapes& shapes) {
  std::map<std::string, bool> results;
  auto add = [&](const tosa::Operator& op) {
    const tosa::Tensor* t = program.find(op.outputs.at(0));
    results[op.outputs[0]] = t != nullptr && t->shape == shapes.full;
  };
  add(chain.op);
  for (const FusedOp& f : chain.epilogue) add(f.op);
  return results;
}

// Adds the tensors from outside the chain (`results`) that `op` reads and that need a binding:
// all but scalar constants.
void addBoundInputs(const Program& program, const tosa::Operator& op, const std::map<std::string, bool>& results,
                    const RowShapes& shapes, std::set<std::string>& names) {
  for (std::size_t i : dataInputs(op)) {
    const std::string& name = op.inputs[i];
    if (results.count(name) == 0 && externalOperand(program, name, shapes) != Operand::Scalar) names.insert(name);
  }
}

bool lastAxisReduction(const Program& program, const tosa::Operator& op) {
  const auto* attrs = std::get_if<tosa::AxisAttrs>(&op.attrs);
  if (!isReduction(op.op) || attrs == nullptr || op.inputs.empty() || op.outputs.size() != 1) return false;
  const tosa::Tensor* in = program.find(op.inputs[0]);
  const tosa::Tensor* out = program.find(op.outputs[0]);
  return in != nullptr && out != nullptr && !in->shape.empty() &&
         attrs->axis == static_cast<std::int32_t>(in->shape.size()) - 1 && isFloatType(in->dtype) &&
         in->dtype == out->dtype;
}

}  // namespace

bool rowChainSeed(const Program& program, const Node& node) {
  if (!node.epilogue.empty() || !lastAxisReduction(program, node.op)) return false;
  const std::int64_t n = program.find(node.op.inputs[0])->shape.back();
  return n >= 2 && n <= kMaxRowLength;
}

bool rowStepFusable(const Program& program, const Node& chain, const FusedOp& next) {
  const tosa::Operator& op = next.op;
  if (op.outputs.size() != 1 || next.chainInput >= op.inputs.size() || op.inputs[next.chainInput] != chain.output()) {
    return false;
  }
  const tosa::Tensor* out = program.find(op.outputs[0]);
  if (out == nullptr || !isFloatType(out->dtype)) return false;
  const RowShapes shapes = shapesOf(program, chain);
  const auto results = chainResults(program, chain, shapes);
  if (isReduction(op.op)) {
    const auto in = results.find(op.inputs[0]);
    return next.chainInput == 0 && lastAxisReduction(program, op) && in != results.end() && in->second &&
           out->shape == shapes.row;
  }
  if (!tosa::isElementwise(op.op) || (out->shape != shapes.full && out->shape != shapes.row)) return false;
  const bool wholeRow = out->shape == shapes.full;
  for (std::size_t i : dataInputs(op)) {
    const std::string& name = op.inputs.at(i);
    if (auto r = results.find(name); r != results.end()) {
      if (r->second && !wholeRow) return false;
      continue;
    }
    const Operand how = externalOperand(program, name, shapes);
    if (how == Operand::None || (!wholeRow && (how == Operand::Whole || how == Operand::PerColumn))) return false;
  }
  std::set<std::string> bound{chain.op.inputs.at(0)};
  for (const FusedOp& f : chain.epilogue) addBoundInputs(program, f.op, results, shapes, bound);
  addBoundInputs(program, op, results, shapes, bound);
  return bound.size() <= kMaxRowInputs;
}

namespace {

// GLSL of one chain, built step by step.
class RowChainWriter {
 public:
  RowChainWriter(LoweringContext& ctx, const RowShapes& shapes, int threads)
      : ctx_(ctx), shapes_(shapes), threads_(threads),
        perThread_(static_cast<int>((shapes.n + threads - 1) / threads)) {}

  // Statement over every column this invocation holds (`c`, its `e`-th).
  std::string forColumns(const std::string& statement) const {
    return fmt::format("for (uint e = 0u; e < {}u; ++e) {{ uint c = tid + e * {}u; {} }} ", perThread_, threads_,
                       statement);
  }

  // The expression of data input `name` inside the column loop (whole-row values) or outside.
  std::string operand(const std::string& name) {
    if (auto v = values_.find(name); v != values_.end()) return v->second.wholeRow ? v->second.var + "[e]" : v->second.var;
    const tosa::Tensor& t = ctx_.tensor(name);
    const auto info = *typeInfo(t.dtype);
    switch (externalOperand(ctx_.program(), name, shapes_)) {
      case Operand::Scalar: return glslFloat(static_cast<float>(constFloat(tosa::constantValue(t), 0)));
      case Operand::PerColumn:
        return fmt::format("{}(in{}[min(c, {}u)])", info.load, slot(name), shapes_.n - 1);
      case Operand::PerRow: {
        const std::size_t s = slot(name);
        if (loaded_.insert(name).second) body_ += fmt::format("float x{} = {}(in{}[row]); ", s, info.load, s);
        return fmt::format("x{}", s);
      }
      case Operand::Whole: {
        const std::size_t s = slot(name);
        if (loaded_.insert(name).second) {
          body_ += fmt::format("float x{}[{}]; ", s, perThread_);
          body_ += forColumns(fmt::format("x{}[e] = c < {}u ? {}(in{}[row * {}u + c]) : 0.0;", s, shapes_.n, info.load, s,
                                          shapes_.n));
        }
        return fmt::format("x{}[e]", s);
      }
      case Operand::None: break;
    }
    return {};
  }

  Status reduction(const tosa::Operator& op, std::size_t index) {
    const std::string in = operand(op.inputs.at(0));
    const std::string& name = op.outputs.at(0);
    const DType type = ctx_.tensor(name).dtype;
    const bool ignoreNan = std::get<tosa::AxisAttrs>(op.attrs).nanMode == tosa::NanMode::Ignore;
    std::string init, combine, subgroupOp;
    switch (op.op) {
      case Op::ReduceSum: init = "0.0"; combine = "a + b"; subgroupOp = "subgroupAdd"; break;
      case Op::ReduceProduct: init = "1.0"; combine = "a * b"; subgroupOp = "subgroupMul"; break;
      case Op::ReduceMax:
        init = ignoreNan ? "kOvgfNan" : "(-kOvgfInf)";
        combine = fmt::format("ovgf_max_{}(a, b)", ignoreNan ? "i" : "p");
        break;
      case Op::ReduceMin:
        init = ignoreNan ? "kOvgfNan" : "kOvgfInf";
        combine = fmt::format("ovgf_min_{}(a, b)", ignoreNan ? "i" : "p");
        break;
      default: return internalError("row chain: operator {} is not a reduction", index);
    }
    const std::size_t k = values_.size();
    const std::string v = fmt::format("r{}", k), fn = fmt::format("ovgf_row_combine{}", k),
                      partial = fmt::format("ovgf_row_partial{}", k);
    decls_ += fmt::format("float {}(float a, float b) {{ return {}; }} ", fn, roundToType(type, combine));
    shared_ += fmt::format("shared float {}[{}]; ", partial, threads_);
    body_ += fmt::format("float {} = {}; ", v, init);
    body_ += forColumns(fmt::format("if (c < {}u) {} = {}({}, {});", shapes_.n, v, fn, v, in));
    if (!subgroupOp.empty()) {
      body_ += fmt::format("{} = {}; ", v, roundToType(type, fmt::format("{}({})", subgroupOp, v)));
      body_ += fmt::format("if (subgroupElect()) {}[gl_SubgroupID] = {}; barrier(); {} = {}[0]; ", partial, v, v, partial);
      body_ += fmt::format("for (uint g = 1u; g < gl_NumSubgroups; ++g) {} = {}({}, {}[g]); ", v, fn, v, partial);
    } else {
      body_ += fmt::format("{}[tid] = {}; barrier(); ", partial, v);
      body_ += fmt::format("for (uint h = {}u; h > 0u; h >>= 1u) {{ if (tid < h) {}[tid] = {}({}[tid], {}[tid + h]); "
                           "barrier(); }} {} = {}[0]; ",
                           threads_ / 2, partial, fn, partial, partial, v, partial);
    }
    values_[name] = Value{v, false};
    return {};
  }

  Status elementwise(const tosa::Operator& op, std::size_t index) {
    OPENVGF_TRY(checkElementwiseTypes(ctx_, op, index));
    const std::string& name = op.outputs.at(0);
    const bool wholeRow = ctx_.tensor(name).shape == shapes_.full;
    std::vector<std::string> args;
    for (std::size_t i : dataInputs(op)) args.push_back(operand(op.inputs.at(i)));
    const std::size_t k = values_.size();
    OPENVGF_ASSIGN_OR_RETURN(std::string expr,
                             elementwiseExpression(ctx_, op, index, args, decls_, params_, static_cast<int>(k)));
    const std::string v = fmt::format("r{}", k);
    if (wholeRow) {
      body_ += fmt::format("float {}[{}]; ", v, perThread_);
      body_ += forColumns(fmt::format("{}[e] = {};", v, expr));
    } else {
      body_ += fmt::format("float {} = {}; ", v, expr);
    }
    values_[name] = Value{v, wholeRow};
    return {};
  }

  void store(const std::string& name) {
    const auto info = *typeInfo(ctx_.tensor(name).dtype);
    const Value& value = values_.at(name);
    if (value.wholeRow) {
      body_ += forColumns(fmt::format("if (c < {}u) out0[row * {}u + c] = {}({}[e]);", shapes_.n, shapes_.n, info.store,
                                      value.var));
    } else {
      body_ += fmt::format("if (tid == 0u) out0[row] = {}({}); ", info.store, value.var);
    }
  }

  const std::vector<std::string>& inputs() const { return inputs_; }
  std::string& decls() { return decls_; }
  std::vector<std::int32_t>& params() { return params_; }
  const std::string& body() const { return body_; }
  const std::string& shared() const { return shared_; }

 private:
  std::size_t slot(const std::string& name) {
    auto it = std::find(inputs_.begin(), inputs_.end(), name);
    if (it != inputs_.end()) return static_cast<std::size_t>(it - inputs_.begin());
    inputs_.push_back(name);
    return inputs_.size() - 1;
  }

  LoweringContext& ctx_;
  const RowShapes& shapes_;
  int threads_, perThread_;
  struct Value {
    std::string var;  // GLSL variable: an array of this invocation's columns, or a scalar
    bool wholeRow = false;
  };
  std::map<std::string, Value> values_;  // chain results by tensor name
  std::set<std::string> loaded_;
  std::vector<std::string> inputs_;
  std::string body_, decls_, shared_;
  std::vector<std::int32_t> params_;
};

}  // namespace

Status lowerRowChain(LoweringContext& ctx, const Node& node) {
  const Program& p = ctx.program();
  if (!lastAxisReduction(p, node.op)) return internalError("{}: a row chain must start with a last-axis reduction", nodeLabel(node));
  const RowShapes shapes = shapesOf(p, node);
  if (shapes.n < 2 || shapes.n > kMaxRowLength) {
    return internalError("{}: row of {} elements: expected 2 to {}", nodeLabel(node), shapes.n, kMaxRowLength);
  }
  const std::int64_t rows = tosa::elementCount(shapes.full) / shapes.n;
  // About four columns per invocation, at least one subgroup's worth of invocations.
  const int threads = static_cast<int>(
      std::clamp<std::uint64_t>(std::bit_ceil(static_cast<std::uint64_t>((shapes.n + 3) / 4)), 32,
                                static_cast<std::uint64_t>(ctx.target().tuning.reduceThreads)));
  RowChainWriter writer(ctx, shapes, threads);
  OPENVGF_TRY(writer.reduction(node.op, node.index));
  for (const FusedOp& f : node.epilogue) {
    if (isReduction(f.op.op)) {
      OPENVGF_TRY(writer.reduction(f.op, f.index));
    } else {
      OPENVGF_TRY(writer.elementwise(f.op, f.index));
    }
  }
  writer.store(node.output());

  ShaderDefines d;
  PlanKernel kernel;
  kernel.name = fmt::format("ROWWISE_{}", node.index);
  std::string buffers;
  for (std::size_t i = 0; i < writer.inputs().size(); ++i) {
    buffers += fmt::format("layout(set = 0, binding = {}) readonly buffer In{} {{ {} in{}[]; }}; ", i, i,
                           typeInfo(ctx.tensor(writer.inputs()[i]).dtype)->storage, i);
    kernel.bindings.push_back(ctx.tensorId(writer.inputs()[i]));
    kernel.writes.push_back(false);
  }
  buffers += fmt::format("layout(set = 0, binding = {}) writeonly buffer Out {{ {} out0[]; }}; ", kernel.bindings.size(),
                         typeInfo(ctx.tensor(node.output()).dtype)->storage);
  kernel.bindings.push_back(ctx.tensorId(node.output()));
  kernel.writes.push_back(true);
  bindParams(ctx, std::move(writer.params()), d, kernel);
  d.set("ROWS", rows).set("ROW_THREADS", threads).setCode("ROW_BUFFERS", buffers).setCode("ROW_SHARED", writer.shared());
  d.setCode("ROW_BODY", writer.body());
  if (!writer.decls().empty()) d.setCode("EW_DECLS", writer.decls());
  kernel.grid = linearGrid(static_cast<std::uint64_t>(rows), d);
  kernel.shader = ShaderInstance{"rowwise.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
  return {};
}

}  // namespace openvgf::converter
