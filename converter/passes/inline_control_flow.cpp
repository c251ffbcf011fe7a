// SPDX-License-Identifier: Apache-2.0
// inline-control-flow: COND_IF and WHILE_LOOP whose conditions are known at conversion time
// are replaced by the operators of their blocks (Program::blocks). A COND_IF becomes the
// operators of the branch its condition selects; a WHILE_LOOP is unrolled while its
// condition block evaluates to true (at most kMaxUnrolledIterations times). Conditions are
// evaluated with the reference interpreter on the constant operators that produce them, so
// GREATER(CONST, CONST) or a loop counter folds; a condition that depends on a model input
// is Unsupported (the Vulkan backend has no device-side control flow). Nested loops multiply
// their trip counts, so everything inlined together is held to kMaxInlinedNodes operators
// (common/limits.h), refused while unrolling, before the later passes see it. Block tensors get a
// "<block>@<n>/" prefix; the control-flow operator's outputs keep their names through
// IDENTITY nodes (elided later).
//
//   before: c = GREATER(k5, k2); y = COND_IF(c, x) then { t = ADD(x, x) } else { ... }
//   after:  c = GREATER(k5, k2); then@0/t = ADD(x, x); y = IDENTITY(then@0/t)
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/limits.h"
#include "converter/passes/passes.h"
#include "tosa/reference/reference.h"

namespace openvgf::converter::passes {
namespace {

class Inliner {
 public:
  explicit Inliner(Program& program) : program_(program) {}

  Result<bool> run() {
    const bool any = std::any_of(program_.nodes.begin(), program_.nodes.end(), [](const Node& node) {
      return node.op.op == tosa::Op::CondIf || node.op.op == tosa::Op::WhileLoop;
    });
    if (!any) return false;
    std::vector<Node> input = std::move(program_.nodes);
    program_.nodes.clear();
    for (Node& node : input) OPENVGF_TRY(add(std::move(node)));
    return true;
  }

 private:
  // Appends `node` to the program, expanding control flow.
  Status add(Node node) {
    if (node.op.op == tosa::Op::CondIf) return inlineCondIf(node);
    if (node.op.op == tosa::Op::WhileLoop) return unrollWhileLoop(node);
    program_.nodes.push_back(std::move(node));
    return {};
  }

  std::string label(const Node& node) const {
    return fmt::format("operators[{}] {}", node.index, tosa::toString(node.op.op));
  }

  // label() plus the blocks the operator names: operators nested in a block carry the index of
  // the top-level operator that contains them, so the block names tell nested loops apart.
  std::string controlFlowLabel(const Node& node) const {
    if (const auto* loop = std::get_if<tosa::WhileLoopAttrs>(&node.op.attrs))
      return fmt::format("{} (cond_graph '{}', body_graph '{}')", label(node), loop->condGraph, loop->bodyGraph);
    if (const auto* branch = std::get_if<tosa::CondIfAttrs>(&node.op.attrs))
      return fmt::format("{} (then_graph '{}', else_graph '{}')", label(node), branch->thenGraph, branch->elseGraph);
    return label(node);
  }

  Result<const tosa::Block*> block(const Node& node, const std::string& name, std::string_view what) const {
    auto it = program_.blocks.find(name);
    if (it == program_.blocks.end())
      return invalidInput("{}: {} '{}': expected a block of the graph", label(node), what, name);
    return &it->second;
  }

  // The value of `name` if it is a constant or computed only from constants (evaluated with
  // the reference interpreter on that slice of the program); nullopt otherwise.
  // Values computed for earlier conditions are kept (known_), so a loop counter's next value
  // is one operator away from the last: evaluating trip n costs O(1), not O(n).
  Result<std::optional<tosa::HostTensor>> evaluate(const std::string& name) {
    if (program_.isConstant(name))
      return std::optional<tosa::HostTensor>(tosa::constantValue(*program_.find(name)));
    if (auto it = known_.find(name); it != known_.end()) return std::optional<tosa::HostTensor>(it->second);
    std::set<std::size_t> slice;
    std::set<std::string> constants;
    std::vector<std::string> pending = {name};
    std::set<std::string> seen;
    while (!pending.empty()) {
      std::string t = pending.back();
      pending.pop_back();
      if (!seen.insert(t).second) continue;
      if (program_.isConstant(t) || known_.contains(t)) {
        constants.insert(t);
        continue;
      }
      std::optional<std::size_t> producer;
      for (std::size_t i = program_.nodes.size(); i-- > 0;) {
        const auto& outs = program_.nodes[i].op.outputs;
        if (std::find(outs.begin(), outs.end(), t) != outs.end()) {
          producer = i;
          break;
        }
      }
      if (!producer) return std::optional<tosa::HostTensor>();  // a model input or variable
      slice.insert(*producer);
      for (const auto& in : program_.nodes[*producer].op.inputs) pending.push_back(in);
    }
    tosa::Graph g;
    g.regions.push_back(tosa::Region{"main", {tosa::Block{}}});
    tosa::Block& b = g.regions[0].blocks[0];
    b.name = "main";
    std::set<std::string> tensors(constants.begin(), constants.end());
    for (std::size_t i : slice) {
      for (const auto& n : program_.nodes[i].op.inputs) tensors.insert(n);
      for (const auto& n : program_.nodes[i].op.outputs) tensors.insert(n);
    }
    for (const auto& n : tensors) {
      tosa::Tensor t = *program_.find(n);
      if (auto it = known_.find(n); it != known_.end()) t.data = it->second.bytes;
      b.tensors.push_back(std::move(t));
    }
    for (const auto& n : constants) {
      tosa::Operator c;
      c.op = program_.find(n)->dtype == tosa::DType::Shape ? tosa::Op::ConstShape : tosa::Op::Const;
      c.outputs = {n};
      b.operators.push_back(std::move(c));
    }
    for (std::size_t i : slice) {  // std::set keeps program order
      b.operators.push_back(program_.nodes[i].op);
      for (const auto& n : program_.nodes[i].op.outputs) b.outputs.push_back(n);
    }
    auto result = tosa::reference::run(g, {});
    if (!result) {
      return invalidInput("tensor '{}': expected a condition the reference interpreter can evaluate: {}",
                          name, result.error().message());
    }
    std::optional<tosa::HostTensor> value;
    for (std::size_t i = 0; i < result->outputs.size() && i < b.outputs.size(); ++i) {
      if (b.outputs[i] == name) value = result->outputs[i].value;
      if (result->outputs[i].value.bytes.size() <= kMaxKnownBytes) {
        known_.insert_or_assign(b.outputs[i], std::move(result->outputs[i].value));
      }
    }
    if (!value) return internalError("tensor '{}': the reference interpreter did not return it", name);
    return value;
  }

  Result<bool> condition(const Node& node, const std::string& name) {
    OPENVGF_ASSIGN_OR_RETURN(auto value, evaluate(name));
    if (!value || value->bytes.empty()) {
      return unsupported(
          "{}: expected a condition that is constant at conversion time, got '{}' computed from "
          "model inputs (data-dependent control flow has no Vulkan lowering)",
          label(node), name);
    }
    return value->bytes[0] != 0;
  }

  // Adds the operators of `b` with inputs bound to `args`; returns the names holding the
  // block's outputs.
  Result<std::vector<std::string>> inlineBlock(const Node& at, const tosa::Block& b,
                                               const std::vector<std::string>& args) {
    if (args.size() != b.inputs.size()) {
      return invalidInput("{}: block '{}': expected {} arguments, got {}", label(at), b.name, b.inputs.size(),
                          args.size());
    }
    const std::string prefix = fmt::format("{}@{}/", b.name, counter_++);
    std::map<std::string, std::string> rename;
    for (std::size_t i = 0; i < args.size(); ++i) rename[b.inputs[i]] = args[i];
    for (const tosa::Tensor& t : b.tensors) {
      if (rename.contains(t.name)) continue;
      tosa::Tensor copy = t;
      copy.name = prefix + t.name;
      rename[t.name] = copy.name;
      program_.tensors[copy.name] = std::move(copy);
    }
    auto mapped = [&](const std::string& n) {
      auto it = rename.find(n);
      return it == rename.end() ? n : it->second;  // outer-scope tensors keep their name
    };
    for (const tosa::Operator& op : b.operators) {
      if (op.op == tosa::Op::Const || op.op == tosa::Op::ConstShape) continue;  // payload is on the tensor
      if (program_.nodes.size() >= kMaxInlinedNodes) {
        return unsupported(
            "{}: inlining its block '{}' exceeds the budget of {} operators for inlined control flow "
            "(kMaxInlinedNodes; nested WHILE_LOOPs multiply their trip counts)",
            controlFlowLabel(at), b.name, kMaxInlinedNodes);
      }
      Node node;
      node.index = at.index;
      node.op = op;
      for (auto& n : node.op.inputs) n = mapped(n);
      for (auto& n : node.op.outputs) n = mapped(n);
      OPENVGF_TRY(add(std::move(node)));
    }
    std::vector<std::string> outs;
    for (const auto& n : b.outputs) outs.push_back(mapped(n));
    return outs;
  }

  // results[i] = IDENTITY(values[i]): the control-flow operator's outputs keep their names.
  void bindResults(const Node& at, const std::vector<std::string>& values) {
    for (std::size_t i = 0; i < values.size() && i < at.op.outputs.size(); ++i) {
      Node copy;
      copy.index = at.index;
      copy.op.op = tosa::Op::Identity;
      copy.op.inputs = {values[i]};
      copy.op.outputs = {at.op.outputs[i]};
      program_.nodes.push_back(std::move(copy));
    }
  }

  Status inlineCondIf(const Node& node) {
    const auto* attrs = std::get_if<tosa::CondIfAttrs>(&node.op.attrs);
    if (attrs == nullptr || node.op.inputs.empty()) {
      return invalidInput("{}: expected a condition input and a CondIfAttribute", label(node));
    }
    OPENVGF_ASSIGN_OR_RETURN(bool taken, condition(node, node.op.inputs[0]));
    OPENVGF_ASSIGN_OR_RETURN(const tosa::Block* b, block(node, taken ? attrs->thenGraph : attrs->elseGraph,
                                                         taken ? "then_graph" : "else_graph"));
    std::vector<std::string> args(node.op.inputs.begin() + 1, node.op.inputs.end());
    OPENVGF_ASSIGN_OR_RETURN(auto values, inlineBlock(node, *b, args));
    if (values.size() != node.op.outputs.size()) {
      return invalidInput("{}: expected {} block outputs, got {}", label(node), node.op.outputs.size(),
                          values.size());
    }
    bindResults(node, values);
    return {};
  }

  Status unrollWhileLoop(const Node& node) {
    const auto* attrs = std::get_if<tosa::WhileLoopAttrs>(&node.op.attrs);
    if (attrs == nullptr) return invalidInput("{}: expected a WhileLoopAttribute", label(node));
    OPENVGF_ASSIGN_OR_RETURN(const tosa::Block* cond, block(node, attrs->condGraph, "cond_graph"));
    OPENVGF_ASSIGN_OR_RETURN(const tosa::Block* body, block(node, attrs->bodyGraph, "body_graph"));
    std::vector<std::string> current = node.op.inputs;
    for (int iteration = 0;; ++iteration) {
      if (iteration > kMaxUnrolledIterations) {
        return unsupported("{}: expected at most {} iterations known at conversion time", label(node),
                           kMaxUnrolledIterations);
      }
      // The condition block is inlined only to evaluate it; its nodes are dropped again.
      const std::size_t mark = program_.nodes.size();
      OPENVGF_ASSIGN_OR_RETURN(auto condOut, inlineBlock(node, *cond, current));
      if (condOut.size() != 1) return invalidInput("{}: cond_graph: expected one output", label(node));
      auto taken = condition(node, condOut[0]);
      program_.nodes.resize(mark);
      if (!taken) return Unexpected(std::move(taken).error());
      if (!*taken) break;
      OPENVGF_ASSIGN_OR_RETURN(current, inlineBlock(node, *body, current));
      if (current.size() != node.op.outputs.size()) {
        return invalidInput("{}: body_graph: expected {} outputs, got {}", label(node),
                            node.op.outputs.size(), current.size());
      }
    }
    bindResults(node, current);
    return {};
  }

  // Condition values above this size are not kept (a counter or a flag is a few bytes).
  static constexpr std::size_t kMaxKnownBytes = 4096;

  Program& program_;
  int counter_ = 0;
  std::map<std::string, tosa::HostTensor> known_;  // values evaluate() computed, by tensor name
};

}  // namespace

Result<bool> inlineControlFlow(Program& program) { return Inliner(program).run(); }

}  // namespace openvgf::converter::passes
