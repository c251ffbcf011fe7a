// SPDX-License-Identifier: Apache-2.0
// Consumer-into-epilogue fusion (see fusion.h).
#include "converter/passes/fusion.h"

#include <algorithm>
#include <map>
#include <set>

#include "converter/kernels/common.h"
#include "converter/kernels/registry.h"
#include "tosa/op_table.h"

namespace openvgf::converter::passes {
namespace {

// Tensors that exist before the node being fused into runs: model inputs, constants and
// outputs of earlier nodes (including their epilogues). Kept as the scan advances, so a chain of
// n fusions costs O(n log n), not O(n^2) (unrolled loops make chains of thousands).
class AvailableBefore {
 public:
  explicit AvailableBefore(const Program& program) : names_(program.inputs.begin(), program.inputs.end()) {}
  void add(const Node& n) {
    names_.insert(n.op.outputs.begin(), n.op.outputs.end());
    for (const FusedOp& f : n.epilogue) names_.insert(f.op.outputs.begin(), f.op.outputs.end());
  }
  bool contains(const std::string& name) const { return names_.count(name) != 0; }

 private:
  std::set<std::string> names_;
};

// How many operators read each tensor; fusing moves a reader into an epilogue, where it still
// counts (Program::useCount counts both), so the counts hold for the whole pass.
std::map<std::string, std::size_t> useCounts(const Program& program) {
  std::map<std::string, std::size_t> counts;
  for (const Node& node : program.nodes) {
    for (const auto& n : node.op.inputs) ++counts[n];
    for (const FusedOp& f : node.epilogue) {
      for (const auto& n : f.op.inputs) ++counts[n];
    }
  }
  return counts;
}

bool aliased(const Program& program, const std::string& name) {
  return std::any_of(program.aliases.begin(), program.aliases.end(), [&](const auto& a) { return a.second == name; });
}

}  // namespace

bool fuseConsumers(Program& program, bool (*isAnchor)(const Node&)) {
  bool changed = false;
  AvailableBefore available(program);
  const std::map<std::string, std::size_t> uses = useCounts(program);
  auto useCount = [&](const std::string& name) {
    auto it = uses.find(name);
    return it == uses.end() ? std::size_t{0} : it->second;
  };
  for (std::size_t i = 0; i < program.nodes.size(); available.add(program.nodes[i++])) {
    while (true) {
      Node& anchor = program.nodes[i];
      if (!isAnchor(anchor)) break;
      const KernelSpec* spec = findKernel(anchor.op.op);
      if (spec == nullptr || spec->acceptsEpilogue == nullptr) break;
      const std::string out = anchor.output();
      if (program.isOutput(out) || useCount(out) != 1 || aliased(program, out)) break;
      auto consumer = std::find_if(program.nodes.begin() + static_cast<std::ptrdiff_t>(i) + 1, program.nodes.end(),
                                   [&](const Node& n) {
                                     return std::find(n.op.inputs.begin(), n.op.inputs.end(), out) != n.op.inputs.end();
                                   });
      if (consumer == program.nodes.end() || !consumer->epilogue.empty() || !tosa::isElementwise(consumer->op.op) ||
          consumer->op.outputs.size() != 1) {
        break;
      }
      const auto dataIdx = dataInputs(consumer->op);
      std::size_t chainInput = SIZE_MAX;
      for (std::size_t k : dataIdx) {
        if (k < consumer->op.inputs.size() && consumer->op.inputs[k] == out) chainInput = k;
      }
      if (chainInput == SIZE_MAX) break;
      bool ready = true;
      for (std::size_t k = 0; k < consumer->op.inputs.size(); ++k) {
        const std::string& name = consumer->op.inputs[k];
        if (k == chainInput || program.isConstant(program.bufferOf(name))) continue;
        if (!available.contains(program.bufferOf(name)) && !available.contains(name)) ready = false;
      }
      if (!ready) break;
      FusedOp fused{consumer->op, consumer->index, chainInput};
      if (!spec->acceptsEpilogue(program, anchor, fused)) break;
      anchor.epilogue.push_back(std::move(fused));
      program.nodes.erase(consumer);
      changed = true;
    }
  }
  return changed;
}

}  // namespace openvgf::converter::passes
