// SPDX-License-Identifier: Apache-2.0
// fuse-rows: a reduction over the last axis and the nodes right after it that work on the
// same rows (elementwise operators on whole rows or on one value per row, further
// last-axis reductions) become one node, when only the last of their results is read
// outside. Softmax and layer norm are the cases: 5 and 7 kernels, each a pass over memory,
// become one kernel that reads the rows once (kernels/rowwise.h).
//
//   before: m = REDUCE_MAX(x); d = SUB(x, m) |> EXP; s = REDUCE_SUM(d); r = RECIPROCAL(s);
//           y = MUL(d, r)
//   after:  y = REDUCE_MAX(x) |> SUB(x, .) |> EXP |> REDUCE_SUM |> RECIPROCAL |> MUL(d, .)
#include <algorithm>

#include "converter/kernels/rowwise.h"
#include "converter/passes/passes.h"

namespace openvgf::converter::passes {
namespace {

// `chain` extended by the operators of `next` (its anchor, which must read the chain's last
// result, then its epilogue), or nullopt if one of them cannot join.
std::optional<Node> extend(const Program& program, const Node& chain, const Node& next) {
  const auto& in = next.op.inputs;
  auto reads = std::find(in.begin(), in.end(), chain.output());
  if (reads == in.end()) return std::nullopt;
  Node extended = chain;
  std::vector<FusedOp> steps{FusedOp{next.op, next.index, static_cast<std::size_t>(reads - in.begin())}};
  steps.insert(steps.end(), next.epilogue.begin(), next.epilogue.end());
  for (FusedOp& step : steps) {
    if (!rowStepFusable(program, extended, step)) return std::nullopt;
    extended.epilogue.push_back(std::move(step));
  }
  return extended;
}

// Whether the results of `chain` (made of nodes [first, last)) other than its final one are
// read only inside it: no other node, alias or model output sees them.
bool onlyFinalResultEscapes(const Program& program, const Node& chain, std::size_t first, std::size_t last) {
  std::vector<std::string> inner{chain.op.outputs.at(0)};
  for (const FusedOp& f : chain.epilogue) inner.push_back(f.op.outputs.at(0));
  inner.pop_back();
  for (const std::string& name : inner) {
    if (program.isOutput(name)) return false;
    for (const auto& alias : program.aliases) {
      if (alias.second == name) return false;
    }
    for (std::size_t k = 0; k < program.nodes.size(); ++k) {
      if (k >= first && k < last) continue;
      const Node& node = program.nodes[k];
      auto readsIt = [&](const tosa::Operator& op) {
        return std::find(op.inputs.begin(), op.inputs.end(), name) != op.inputs.end();
      };
      if (readsIt(node.op) || std::any_of(node.epilogue.begin(), node.epilogue.end(),
                                          [&](const FusedOp& f) { return readsIt(f.op); })) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

Result<bool> fuseRows(Program& program) {
  bool changed = false;
  for (std::size_t first = 0; first < program.nodes.size(); ++first) {
    if (!rowChainSeed(program, program.nodes[first])) continue;
    // Grow over the nodes that follow, then give back nodes from the end until the chain's
    // inner results stay inside it.
    std::vector<Node> chains{program.nodes[first]};
    for (std::size_t next = first + 1; next < program.nodes.size(); ++next) {
      std::optional<Node> extended = extend(program, chains.back(), program.nodes[next]);
      if (!extended) break;
      chains.push_back(std::move(*extended));
    }
    while (chains.size() > 1 && !onlyFinalResultEscapes(program, chains.back(), first, first + chains.size())) {
      chains.pop_back();
    }
    if (chains.size() == 1) continue;
    const std::size_t last = first + chains.size();
    program.nodes[first] = std::move(chains.back());
    program.nodes.erase(program.nodes.begin() + static_cast<std::ptrdiff_t>(first) + 1,
                        program.nodes.begin() + static_cast<std::ptrdiff_t>(last));
    changed = true;
  }
  return changed;
}

}  // namespace openvgf::converter::passes
