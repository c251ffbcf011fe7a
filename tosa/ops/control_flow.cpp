// SPDX-License-Identifier: Apache-2.0
// COND_IF and WHILE_LOOP (EXT-CONTROLFLOW): the verify rule checks that the named graphs exist
// and that their inputs and outputs match the operator's; the outputs are the graphs', so
// there is no shape rule.
#include "tosa/ops/rules.h"

namespace openvgf::tosa::ops {
namespace {

Status verifyControlFlow(OpCheck& c) {
  c.addExtensions(kExtControlFlow);
  auto signature = [&](const Block& g, std::string_view role, const std::vector<const Tensor*>& operands,
                       bool checkOutputs) -> Status {
    if (g.inputs.size() != operands.size()) {
      return c.fail("{} graph '{}': expected {} inputs (the operator's input list), got {}", role, g.name,
                    operands.size(), g.inputs.size());
    }
    for (std::size_t i = 0; i < operands.size(); ++i) {
      const Tensor* t = g.findTensor(g.inputs[i]);
      if (t == nullptr)
        return c.fail("{} graph '{}': input '{}' has no tensor declaration", role, g.name, g.inputs[i]);
      if (t->dtype != operands[i]->dtype || t->shape != operands[i]->shape) {
        return c.fail("{} graph '{}': input {} '{}': expected {} like operand '{}', got {}", role, g.name, i,
                      t->name, typeOf(*operands[i]), operands[i]->name, typeOf(*t));
      }
    }
    if (!checkOutputs) return {};
    if (g.outputs.size() != c.outputs().size()) {
      return c.fail("{} graph '{}': expected {} outputs (the operator's output list), got {}", role, g.name,
                    c.outputs().size(), g.outputs.size());
    }
    for (std::size_t i = 0; i < c.outputs().size(); ++i) {
      const Tensor* t = c.scope().find(g, g.outputs[i]);
      if (t == nullptr) return c.fail("{} graph '{}': output '{}' is undefined", role, g.name, g.outputs[i]);
      if (t->dtype != c.outputs()[i]->dtype || t->shape != c.outputs()[i]->shape) {
        return c.fail("{} graph '{}': output {} '{}': expected {} like '{}', got {}", role, g.name, i, t->name,
                      typeOf(*c.outputs()[i]), c.outputs()[i]->name, typeOf(*t));
      }
    }
    return {};
  };
  auto find = [&](const std::string& name, std::string_view role) -> Result<const Block*> {
    const Block* g = c.graph().findGraph(name);
    if (g == nullptr) return c.fail("{}: graph '{}' not found (no region or block of that name)", role, name);
    if (g == &c.block()) return c.fail("{}: graph '{}' is the operator's own block (recursion)", role, name);
    return g;
  };
  if (const auto* a = std::get_if<CondIfAttrs>(&c.operatorRef().attrs)) {
    if (c.inputs().empty()) return c.fail("condition: expected a BOOL input, got no inputs");
    const Tensor& cond = c.in(0);
    auto n = checkedElementCount(cond.shape);
    if (cond.dtype != DType::Bool || !n || *n != 1) {
      return c.fail("condition '{}': expected a BOOL tensor of one element, got {}", cond.name, typeOf(cond));
    }
    std::vector<const Tensor*> operands(c.inputs().begin() + 1, c.inputs().end());
    OPENVGF_ASSIGN_OR_RETURN(const Block* thenGraph, find(a->thenGraph, "then_graph"));
    OPENVGF_ASSIGN_OR_RETURN(const Block* elseGraph, find(a->elseGraph, "else_graph"));
    OPENVGF_TRY(signature(*thenGraph, "then", operands, true));
    OPENVGF_TRY(signature(*elseGraph, "else", operands, true));
    return {};
  }
  if (const auto* a = std::get_if<WhileLoopAttrs>(&c.operatorRef().attrs)) {
    OPENVGF_ASSIGN_OR_RETURN(const Block* condGraph, find(a->condGraph, "cond_graph"));
    OPENVGF_ASSIGN_OR_RETURN(const Block* bodyGraph, find(a->bodyGraph, "body_graph"));
    if (c.outputs().size() != c.inputs().size()) {
      return c.fail("expected as many outputs as inputs (the loop-carried list), got {} and {}",
                    c.outputs().size(), c.inputs().size());
    }
    for (std::size_t i = 0; i < c.inputs().size(); ++i) {
      if (c.in(i).dtype != c.out(i).dtype || c.in(i).shape != c.out(i).shape) {
        return c.fail("output '{}': expected {} like input '{}', got {}", c.out(i).name, typeOf(c.in(i)),
                      c.in(i).name, typeOf(c.out(i)));
      }
    }
    OPENVGF_TRY(signature(*condGraph, "cond", c.inputs(), false));
    OPENVGF_TRY(signature(*bodyGraph, "body", c.inputs(), true));
    if (condGraph->outputs.size() != 1) {
      return c.fail("cond graph '{}': expected one BOOL output, got {} outputs", condGraph->name,
                    condGraph->outputs.size());
    }
    const Tensor* condOut = c.scope().find(*condGraph, condGraph->outputs[0]);
    auto n = condOut ? checkedElementCount(condOut->shape) : std::nullopt;
    if (condOut == nullptr || condOut->dtype != DType::Bool || !n || *n != 1) {
      return c.fail("cond graph '{}': expected its output to be a BOOL tensor of one element, got {}",
                    condGraph->name, condOut ? typeOf(*condOut) : std::string("an undefined tensor"));
    }
    return {};
  }
  return c.fail("expected {} attributes, got another attribute kind", toString(c.op()));
}

}  // namespace

const OpRules kControlFlowRules{verifyControlFlow, nullptr};

}  // namespace openvgf::tosa::ops
