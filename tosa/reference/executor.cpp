// SPDX-License-Identifier: Apache-2.0
// Graph execution for the reference interpreter: binds inputs, walks a block in a
// topological order (serialized order whenever it is valid, so variable reads and writes
// keep their program order), resolves names through enclosing blocks, runs COND_IF /
// WHILE_LOOP bodies, keeps EXT-VARIABLE state, and in precise mode derives the compliance
// rule of every graph output (compliance_rules.cpp).
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include <fmt/ranges.h>

#include "tosa/packing.h"
#include "tosa/reference/rules.h"
#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

namespace {

constexpr int kMaxNesting = 256;  // level "none" MAX_NESTING

struct Scope {
  const Block* block = nullptr;
  const Scope* parent = nullptr;
  std::map<std::string, Value, std::less<>> values;

  const Value* find(std::string_view name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      auto it = s->values.find(name);
      if (it != s->values.end()) return &it->second;
    }
    return nullptr;
  }
  const Tensor* findTensor(std::string_view name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      if (const Tensor* t = s->block->findTensor(name)) return t;
    }
    return nullptr;
  }
};

bool isControlFlow(Op op) { return op == Op::CondIf || op == Op::WhileLoop; }

/// Inputs an operator must have: the serialized counts (opArity), less trailing scalars that
/// default to 0; at least one for CONCAT and COND_IF (the condition). VARIABLE_READ /
/// VARIABLE_WRITE name their variable and are checked where they are executed.
Status checkInputCount(const Operator& op, const Context& ctx) {
  if (op.op == Op::VariableRead || op.op == Op::VariableWrite) return {};
  const OpArity arity = opArity(op.op);
  if (arity.inputs == kVariadic) {
    if ((op.op == Op::Concat || op.op == Op::CondIf) && op.inputs.empty()) {
      return ctx.error("inputs: expected at least 1 input, got none");
    }
    return {};
  }
  const auto most = static_cast<std::size_t>(arity.inputs);
  const auto least = static_cast<std::size_t>(arity.inputs - arity.defaultedInputs);
  if (op.inputs.size() < least || op.inputs.size() > most) {
    if (least == most) return ctx.error("inputs: expected {} inputs, got {}", most, op.inputs.size());
    return ctx.error("inputs: expected {}..{} inputs, got {}", least, most, op.inputs.size());
  }
  return {};
}

/// Outputs of an operator the kernels run (FFT2D and RFFT2D have two).
std::size_t outputCountOf(Op op) {
  const int outputs = opArity(op).outputs;
  return outputs == kVariadic ? 1 : static_cast<std::size_t>(outputs);
}

// The kernel of each operator, from the Reference column of tosa/ops.def; operators whose
// kernel is None are data nodes, variables and control flow, which the executor runs itself
// before it dispatches (evalNone, below, reports any other).
using Kernel = Result<Outputs> (*)(Context&, Inputs);
constexpr Kernel kKernels[] = {
#define OVGF_OP(Name, Number, Spelling, Category, RulesName, Reference, ...) eval##Reference,
#include "tosa/ops.def"
#undef OVGF_OP
};

Result<Outputs> dispatch(Context& ctx, Inputs in) {
  const auto op = static_cast<std::uint32_t>(ctx.op().op);
  return op <= kMaxOp ? kKernels[op](ctx, in) : evalNone(ctx, in);
}

class Executor {
 public:
  Executor(const Graph& graph, const RunOptions& options, VariableState& state, std::vector<Diagnostic>& diags)
      : graph_(graph), options_(options), state_(state), diagnostics_(diags) {}

  /// Runs `block` with positional inputs. When `tracker` is set (main block, precise mode)
  /// the compliance rules of the block's tensors are derived as they are produced.
  Result<std::vector<Value>> runBlock(const Block& block, std::vector<Value> inputs, const Scope* parent, int depth,
                                      RuleTracker* tracker);

 private:
  Result<void> initVariables(const Scope& scope);
  Result<const Value*> resolve(Scope& scope, const std::string& name, std::string_view blockName);
  Result<Outputs> runControlFlow(Context& ctx, const Scope& scope, Inputs in, int depth);
  Result<Value> readVariable(Context& ctx, const std::string& name);
  Result<void> writeVariable(Context& ctx, const std::string& name, const Value& v);
  bool isVariableName(const Scope& scope, std::string_view name) const {
    if (declaredVariables_.contains(std::string(name))) return true;
    const Tensor* t = scope.findTensor(name);
    return t != nullptr && t->variable;
  }

  const Graph& graph_;
  const RunOptions& options_;
  VariableState& state_;
  std::vector<Diagnostic>& diagnostics_;
  std::set<std::string> declaredVariables_;  // names declared by VARIABLE operators
};

Result<void> Executor::initVariables(const Scope& scope) {
  // VARIABLE operators declare their output name as a variable of the declared tensor's
  // type and shape (initial value: the tensor's data, else zeros).
  for (const Operator& op : scope.block->operators) {
    if (op.op == Op::Variable && op.outputs.size() == 1) declaredVariables_.insert(op.outputs[0]);
  }
  for (const Tensor& t : scope.block->tensors) {
    if (!(t.variable || declaredVariables_.contains(t.name)) || state_.contains(t.name)) continue;
    HostTensor init(t.dtype, t.shape);
    if (t.data) {
      if (t.data->size() < init.bytes.size()) {
        return invalidInput("block {}: variable '{}': expected {} bytes of initial value, got {}", scope.block->name,
                            t.name, init.bytes.size(), t.data->size());
      }
      std::copy_n(t.data->begin(), init.bytes.size(), init.bytes.begin());
    }
    state_.set(t.name, std::move(init));
  }
  return {};
}

Result<Value> Executor::readVariable(Context& ctx, const std::string& name) {
  const HostTensor* stored = state_.find(name);
  if (stored == nullptr) return ctx.error("variable '{}': expected a declared variable", name);
  return fromHost(*stored);
}

Result<void> Executor::writeVariable(Context& ctx, const std::string& name, const Value& v) {
  const HostTensor* stored = state_.find(name);
  if (stored == nullptr) return ctx.error("variable '{}': expected a declared variable", name);
  if (stored->dtype != v.dtype || stored->shape != v.shape) {
    return ctx.error("variable '{}': expected {} {}, got {} {}", name, toString(stored->dtype),
                     shapeToString(stored->shape), toString(v.dtype), shapeToString(v.shape));
  }
  state_.set(name, toHost(v));
  return {};
}

Result<const Value*> Executor::resolve(Scope& scope, const std::string& name, std::string_view blockName) {
  if (const Value* v = scope.find(name)) return v;
  // Constants may be referenced from nested blocks without a CONST op in view.
  for (const Scope* s = &scope; s != nullptr; s = s->parent) {
    const Tensor* t = s->block->findTensor(name);
    if (t != nullptr && t->data && !t->variable) {
      HostTensor h = constantValue(*t);
      if (t->data->size() < h.bytes.size()) {
        return invalidInput("block {}: constant '{}': expected {} bytes of data, got {}", blockName, name, h.bytes.size(),
                            t->data->size());
      }
      return &(scope.values[name] = fromHost(h));
    }
  }
  return invalidInput("block {}: tensor '{}': expected a graph input, constant or operator output, got an undefined name",
                      blockName, name);
}

Result<Outputs> Executor::runControlFlow(Context& ctx, const Scope& scope, Inputs in, int depth) {
  const Operator& op = ctx.op();
  auto findBlock = [&](const std::string& name, const char* what) -> Result<const Block*> {
    const Block* b = graph_.findGraph(name);
    if (b == nullptr) return ctx.error("{} '{}': expected the name of a region or block, got an unknown name", what, name);
    return b;
  };
  auto checkSignature = [&](const Block& b, std::span<const Value> values, bool inputsSide,
                            const char* what) -> Result<void> {
    const auto& names = inputsSide ? b.inputs : b.outputs;
    if (names.size() != values.size()) {
      return ctx.error("{} '{}': expected {} {}, got {}", what, b.name, values.size(),
                       inputsSide ? "inputs" : "outputs", names.size());
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      const Tensor* t = b.findTensor(names[i]);
      if (t == nullptr) continue;
      if (t->dtype != values[i].dtype || (!t->isUnranked && t->shape != values[i].shape)) {
        return ctx.error("{} '{}' {} {} '{}': expected {} {}, got {} {}", what, b.name,
                         inputsSide ? "input" : "output", i, names[i], toString(values[i].dtype),
                         shapeToString(values[i].shape), toString(t->dtype), shapeToString(t->shape));
      }
    }
    return {};
  };
  if (depth + 1 > kMaxNesting) return ctx.error("nesting depth: expected <= {} (MAX_NESTING)", kMaxNesting);
  if (op.op == Op::CondIf) {
    const auto* attrs = attrsAs<CondIfAttrs>(op);
    if (attrs == nullptr) return ctx.error("attribute: expected a CondIfAttribute");
    const Value& cond = *in[0];
    if (cond.dtype != DType::Bool || cond.size() != 1) {
      return ctx.error("condition: expected a BOOL tensor of one element, got {} {}", toString(cond.dtype),
                       shapeToString(cond.shape));
    }
    std::vector<Value> args;
    for (std::size_t i = 1; i < in.size(); ++i) args.push_back(*in[i]);
    OPENVGF_ASSIGN_OR_RETURN(const Block* thenB, findBlock(attrs->thenGraph, "then_graph"));
    OPENVGF_ASSIGN_OR_RETURN(const Block* elseB, findBlock(attrs->elseGraph, "else_graph"));
    OPENVGF_TRY(checkSignature(*thenB, args, true, "then_graph"));
    OPENVGF_TRY(checkSignature(*elseB, args, true, "else_graph"));
    const Block* chosen = cond.ints[0] != 0 ? thenB : elseB;
    OPENVGF_ASSIGN_OR_RETURN(std::vector<Value> results, runBlock(*chosen, std::move(args), &scope, depth + 1, nullptr));
    if (results.size() != op.outputs.size()) {
      return ctx.error("outputs: expected {} (the branch's outputs), got {}", results.size(), op.outputs.size());
    }
    return results;
  }
  const auto* attrs = attrsAs<WhileLoopAttrs>(op);
  if (attrs == nullptr) return ctx.error("attribute: expected a WhileLoopAttribute");
  OPENVGF_ASSIGN_OR_RETURN(const Block* condB, findBlock(attrs->condGraph, "cond_graph"));
  OPENVGF_ASSIGN_OR_RETURN(const Block* bodyB, findBlock(attrs->bodyGraph, "body_graph"));
  std::vector<Value> list;
  for (const Value* v : in) list.push_back(*v);
  if (op.outputs.size() != list.size()) {
    return ctx.error("outputs: expected {} (one per loop input), got {}", list.size(), op.outputs.size());
  }
  OPENVGF_TRY(checkSignature(*condB, list, true, "cond_graph"));
  OPENVGF_TRY(checkSignature(*bodyB, list, true, "body_graph"));
  OPENVGF_TRY(checkSignature(*bodyB, list, false, "body_graph"));
  for (std::int64_t iteration = 0;; ++iteration) {
    if (iteration >= options_.maxLoopIterations) {
      return runtimeError("{}: WHILE_LOOP did not finish after {} iterations", ctx.where(), iteration);
    }
    OPENVGF_ASSIGN_OR_RETURN(std::vector<Value> c, runBlock(*condB, list, &scope, depth + 1, nullptr));
    if (c.size() != 1 || c[0].dtype != DType::Bool || c[0].size() != 1) {
      return ctx.error("cond_graph '{}': expected one BOOL output of one element", condB->name);
    }
    if (c[0].ints[0] == 0) break;
    OPENVGF_ASSIGN_OR_RETURN(std::vector<Value> next, runBlock(*bodyB, std::move(list), &scope, depth + 1, nullptr));
    list = std::move(next);
    OPENVGF_TRY(checkSignature(*bodyB, list, false, "body_graph"));
  }
  return list;
}

Result<std::vector<Value>> Executor::runBlock(const Block& block, std::vector<Value> inputs, const Scope* parent,
                                              int depth, RuleTracker* tracker) {
  auto owned = std::make_unique<Scope>();
  Scope& scope = *owned;
  scope.block = &block;
  scope.parent = parent;
  OPENVGF_TRY(initVariables(scope));
  if (inputs.size() != block.inputs.size()) {
    return invalidInput("block {}: expected {} inputs, got {}", block.name, block.inputs.size(), inputs.size());
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) scope.values[block.inputs[i]] = std::move(inputs[i]);

  // Which names an operator of this block produces (undefined-name and cycle detection).
  std::map<std::string, std::size_t, std::less<>> producer;
  for (std::size_t i = 0; i < block.operators.size(); ++i) {
    for (const std::string& out : block.operators[i].outputs) {
      if (isVariableName(scope, out)) continue;
      if (!producer.emplace(out, i).second) {
        return invalidInput("block {}: tensor '{}': expected one producer, got operators {} and {}", block.name, out,
                            producer[out], i);
      }
    }
  }
  std::vector<bool> done(block.operators.size(), false);
  std::size_t remaining = block.operators.size();
  auto ready = [&](std::size_t i) {
    for (const std::string& name : block.operators[i].inputs) {
      if (scope.find(name) != nullptr || isVariableName(scope, name)) continue;
      auto it = producer.find(name);
      if (it != producer.end() && !done[it->second]) return false;
    }
    return true;
  };
  while (remaining > 0) {
    std::size_t next = block.operators.size();
    for (std::size_t i = 0; i < block.operators.size(); ++i) {
      if (!done[i] && ready(i)) {
        next = i;
        break;
      }
    }
    if (next == block.operators.size()) {
      for (std::size_t i = 0; i < block.operators.size(); ++i) {
        if (!done[i]) {
          return invalidInput("block {}: operator {} ({}): expected an acyclic graph, got a cycle through its inputs",
                              block.name, i, toString(block.operators[i].op));
        }
      }
    }
    const Operator& op = block.operators[next];
    done[next] = true;
    --remaining;
    Context ctx(op, next, block.name, options_.precise, diagnostics_, options_.strict);
    OPENVGF_TRY(checkInputCount(op, ctx));
    // Declared output types and shapes.
    for (const std::string& out : op.outputs) {
      const Tensor* t = scope.findTensor(out);
      if (t == nullptr) return ctx.error("output '{}': expected a tensor declared in the block", out);
      ctx.outTypes.push_back(t->dtype);
      ctx.outShapes.push_back(t->shape);
      ctx.outShapeKnown.push_back(!t->isUnranked);
    }
    // Data nodes.
    if (op.op == Op::Const || op.op == Op::ConstShape) {
      if (op.outputs.size() != 1) return ctx.error("outputs: expected 1, got {}", op.outputs.size());
      const Tensor* t = scope.findTensor(op.outputs[0]);
      if (!t->data) return ctx.error("output '{}': expected constant data", op.outputs[0]);
      HostTensor h = constantValue(*t);
      if (t->data->size() < h.bytes.size()) {
        return ctx.error("output '{}': expected {} bytes of data, got {}", op.outputs[0], h.bytes.size(), t->data->size());
      }
      scope.values[op.outputs[0]] = fromHost(h);
      if (tracker != nullptr) tracker->onConstant(op.outputs[0]);
      continue;
    }
    if (op.op == Op::Variable) continue;  // declared through the variable tensor; state made in initVariables
    const bool variableRead = (op.op == Op::VariableRead) ||
                              (op.op == Op::Identity && !op.inputs.empty() && isVariableName(scope, op.inputs[0]));
    const bool variableWrite = (op.op == Op::VariableWrite) ||
                               (op.op == Op::Identity && !op.outputs.empty() && isVariableName(scope, op.outputs[0]));
    if (variableRead || variableWrite) {
      if (op.outputs.size() != 1) return ctx.error("outputs: expected 1, got {}", op.outputs.size());
      if (variableRead && op.inputs.size() != 1) return ctx.error("inputs: expected the variable's name");
      Value v;
      if (variableRead) {
        OPENVGF_ASSIGN_OR_RETURN(v, readVariable(ctx, op.inputs[0]));
      } else {
        OPENVGF_ASSIGN_OR_RETURN(const Value* src, resolve(scope, op.inputs[0], block.name));
        v = *src;
      }
      if (variableWrite) {
        OPENVGF_TRY(writeVariable(ctx, op.outputs[0], v));
      } else {
        scope.values[op.outputs[0]] = std::move(v);
        if (tracker != nullptr) tracker->onConstant(op.outputs[0]);
      }
      continue;
    }
    if (!isControlFlow(op.op) && op.outputs.size() != outputCountOf(op.op)) {
      return ctx.error("outputs: expected {}, got {}", outputCountOf(op.op), op.outputs.size());
    }
    std::vector<const Value*> in;
    for (const std::string& name : op.inputs) {
      OPENVGF_ASSIGN_OR_RETURN(const Value* v, resolve(scope, name, block.name));
      in.push_back(v);
    }
    Result<Outputs> produced = isControlFlow(op.op) ? runControlFlow(ctx, scope, in, depth) : dispatch(ctx, in);
    if (!produced) return Unexpected(std::move(produced).error());
    if (ctx.strictFailure()) {
      return runtimeError("{}: {} (strict mode)", ctx.where(),
                          diagnostics_.empty() ? std::string("REQUIRE failed") : diagnostics_.back().message);
    }
    Outputs outs = std::move(*produced);
    if (outs.size() != op.outputs.size()) {
      return ctx.error("outputs: expected {}, got {}", outs.size(), op.outputs.size());
    }
    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
      if (outs[k].dtype != ctx.outTypes[k]) {
        return ctx.error("output '{}': expected type {} from the inputs, got declared {}", op.outputs[k],
                         toString(outs[k].dtype), toString(ctx.outTypes[k]));
      }
      if (ctx.outShapeKnown[k] && outs[k].shape != ctx.outShapes[k]) {
        return ctx.error("output '{}': expected shape {} from the inputs and attributes, got declared {}",
                         op.outputs[k], shapeToString(outs[k].shape), shapeToString(ctx.outShapes[k]));
      }
    }
    if (tracker != nullptr) {
      OPENVGF_TRY(tracker->onOperator(ctx, in, outs, [&](Context& boundsCtx, Inputs boundsIn) {
        return dispatch(boundsCtx, boundsIn);
      }));
    }
    for (std::size_t k = 0; k < op.outputs.size(); ++k) scope.values[op.outputs[k]] = std::move(outs[k]);
  }
  std::vector<Value> results;
  for (const std::string& name : block.outputs) {
    OPENVGF_ASSIGN_OR_RETURN(const Value* v, resolve(scope, name, block.name));
    results.push_back(*v);
  }
  return results;
}

}  // namespace

std::string toString(const Diagnostic& d) {
  return fmt::format("block {}: operator {} ({}): {}", d.block, d.opIndex, tosa::toString(d.op), d.message);
}

const HostTensor* VariableState::find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

Status checkLimits(const Graph& graph) {
  for (const Region& region : graph.regions) {
    for (const Block& block : region.blocks) {
      for (const Tensor& t : block.tensors) {
        if (t.dtype == DType::Shape || t.isUnranked) continue;
        std::optional<std::int64_t> count = checkedElementCount(t.shape);
        if (!count || *count > kMaxElements) {
          return unsupported("tensor '{}' {} {}: expected at most {} elements (the reference interpreter's "
                                  "limit), got {} elements",
                                  t.name, toString(t.dtype), shapeToString(t.shape), kMaxElements,
                                  count ? std::to_string(*count) : std::string("more than 2^63"));
        }
      }
    }
  }
  return {};
}

Result<RunResult> run(const Graph& graph, std::span<const HostTensor> inputs, const RunOptions& options,
                      VariableState* state) {
  OPENVGF_TRY(checkLimits(graph));
  const Block* main = graph.mainBlock();
  if (main == nullptr) return invalidInput("graph: expected a main block, got no regions or blocks");
  if (inputs.size() != main->inputs.size()) {
    return invalidInput("graph: expected {} inputs ({}), got {}", main->inputs.size(),
                        fmt::join(main->inputs, ", "), inputs.size());
  }
  std::vector<Value> bound;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string& name = main->inputs[i];
    const Tensor* t = main->findTensor(name);
    if (t == nullptr) return invalidInput("graph: input {} '{}': expected a tensor declared in the main block", i, name);
    const HostTensor& h = inputs[i];
    if (h.dtype != t->dtype || (!t->isUnranked && h.shape != t->shape)) {
      return invalidInput("input {} '{}': expected {} {}, got {} {}", i, name, toString(t->dtype),
                          shapeToString(t->shape), toString(h.dtype), shapeToString(h.shape));
    }
    for (std::int64_t d : h.shape) {
      if (d < 1) return invalidInput("input {} '{}': expected dimensions >= 1, got {}", i, name, shapeToString(h.shape));
    }
    if (h.bytes.size() != static_cast<std::size_t>(h.size()) * hostElementBytes(h.dtype)) {
      return invalidInput("input {} '{}': expected {} bytes of data, got {}", i, name,
                          static_cast<std::size_t>(h.size()) * hostElementBytes(h.dtype), h.bytes.size());
    }
    bound.push_back(fromHost(h));
  }
  VariableState localState;
  VariableState& vars = state != nullptr ? *state : localState;
  RunResult result;
  Executor executor(graph, options, vars, result.diagnostics);
  RuleTracker tracker;
  tracker.keepRulesFor(std::set<std::string>(main->outputs.begin(), main->outputs.end()));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<Value> outs,
                           executor.runBlock(*main, std::move(bound), nullptr, 0, options.precise ? &tracker : nullptr));
  for (std::size_t i = 0; i < outs.size(); ++i) {
    OutputValue o;
    o.name = main->outputs[i];
    o.value = toHost(outs[i]);
    if (options.precise) {
      if (outs[i].isFloat()) o.precise = outs[i].floats;
      tracker.finish(o.name, outs[i], o.rule, o.bounds);
    }
    result.outputs.push_back(std::move(o));
  }
  return result;
}

Result<Outputs> evalNone(Context& ctx, Inputs) {
  return ctx.notSupported("operator {} is not supported by the reference interpreter", toString(ctx.op().op));
}

}  // namespace openvgf::tosa::reference
