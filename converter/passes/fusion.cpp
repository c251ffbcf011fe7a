// SPDX-License-Identifier: Apache-2.0
// Consumer-into-epilogue fusion (see fusion.h).
#include "converter/passes/fusion.h"

#include <algorithm>
#include <set>

#include "converter/kernels/common.h"
#include "converter/kernels/registry.h"
#include "tosa/op_table.h"

namespace openvgf::converter::passes {
namespace {

// Tensors that exist before node `position` runs: model inputs, constants and outputs of
// earlier nodes (including their epilogues).
std::set<std::string> availableBefore(const Program& program, std::size_t position) {
  std::set<std::string> names(program.inputs.begin(), program.inputs.end());
  for (std::size_t k = 0; k < position; ++k) {
    const Node& n = program.nodes[k];
    names.insert(n.op.outputs.begin(), n.op.outputs.end());
    for (const FusedOp& f : n.epilogue) names.insert(f.op.outputs.begin(), f.op.outputs.end());
  }
  return names;
}

bool aliased(const Program& program, const std::string& name) {
  return std::any_of(program.aliases.begin(), program.aliases.end(), [&](const auto& a) { return a.second == name; });
}

}  // namespace

bool fuseConsumers(Program& program, bool (*isAnchor)(const Node&)) {
  bool changed = false;
  for (std::size_t i = 0; i < program.nodes.size(); ++i) {
    while (true) {
      Node& anchor = program.nodes[i];
      if (!isAnchor(anchor)) break;
      const KernelSpec* spec = findKernel(anchor.op.op);
      if (spec == nullptr || spec->acceptsEpilogue == nullptr) break;
      const std::string out = anchor.output();
      if (program.isOutput(out) || program.useCount(out) != 1 || aliased(program, out)) break;
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
      const auto available = availableBefore(program, i);
      bool ready = true;
      for (std::size_t k = 0; k < consumer->op.inputs.size(); ++k) {
        const std::string& name = consumer->op.inputs[k];
        if (k == chainInput || program.isConstant(program.bufferOf(name))) continue;
        if (available.count(program.bufferOf(name)) == 0 && available.count(name) == 0) ready = false;
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
