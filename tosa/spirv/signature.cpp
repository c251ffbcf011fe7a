// SPDX-License-Identifier: Apache-2.0
// A graph's signature (interface tensors with their bindings, graph constants) and its
// listing for `inspect` (see decoder.h); neither needs input shapes or constant payloads.
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tosa/compliance.h"
#include "tosa/spirv/decoder.h"
#include "tosa/spirv/grammar.h"
#include "tosa/spirv/tensor_types.h"

namespace openvgf::tosa::spirv {

Result<GraphSignature> graphSignature(const Module& module, std::string_view entryPoint) {
  const GraphEntryPoint* entry = nullptr;
  for (const GraphEntryPoint& e : module.entryPoints) {
    if (entryPoint.empty() ? module.entryPoints.size() == 1 : e.name == entryPoint) entry = &e;
  }
  if (entry == nullptr) {
    std::vector<std::string> names;
    for (const GraphEntryPoint& e : module.entryPoints) names.push_back("'" + e.name + "'");
    return invalidInput("{}: expected {} graph entry point, got {}", module.source,
                        entryPoint.empty() ? std::string("exactly one") : fmt::format("the '{}'", entryPoint),
                        names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")));
  }
  GraphSignature sig;
  sig.entryPoint = entry->name;
  sig.graph = entry->graph;
  const GraphDefinition* graph = nullptr;
  for (const GraphDefinition& g : module.graphs) {
    if (g.id == entry->graph) graph = &g;
  }
  const TypeInfo& graphType = module.types.at(graph->type);
  const std::size_t outputCount = graphType.members.size() - graphType.numInputs;
  if (!entry->interface.empty() && entry->interface.size() != graphType.members.size()) {
    return invalidInput("{}: word {} OpGraphEntryPointARM '{}': expected {} interface variables ({} inputs, {} outputs), got {}",
                        module.source, entry->offset, entry->name, graphType.members.size(), graphType.numInputs,
                        outputCount, entry->interface.size());
  }
  for (std::size_t i = 0; i < graphType.members.size(); ++i) {
    InterfaceTensor t;
    const bool isInput = i < graphType.numInputs;
    t.index = static_cast<std::uint32_t>(isInput ? i : i - graphType.numInputs);
    auto declared = declaredTensor(module, graphType.members[i]);
    if (!declared) {
      return Unexpected(std::move(declared).error().addContext(fmt::format(
          "{}: word {} OpTypeGraphARM: {} {}", module.source, graphType.offset, isInput ? "input" : "output", t.index)));
    }
    t.dtype = declared->dtype;
    t.rank = declared->rank;
    t.shape = declared->shape;
    if (!entry->interface.empty()) {
      t.variable = entry->interface[i];
      if (auto b = module.bindings.find(t.variable); b != module.bindings.end()) t.binding = b->second;
      if (auto s = module.descriptorSets.find(t.variable); s != module.descriptorSets.end()) t.descriptorSet = s->second;
      if (auto n = module.names.find(t.variable); n != module.names.end()) t.name = n->second;
    }
    (isInput ? sig.inputs : sig.outputs).push_back(std::move(t));
  }
  // Names and graph constants, in body order.
  std::set<std::uint32_t> seen;
  for (const BodyInstruction& inst : graph->body) {
    if (inst.kind == BodyInstruction::Kind::Input) {
      std::optional<std::int64_t> index = module.intConstant(inst.operands[0]);
      auto n = module.names.find(inst.result);
      if (index && *index >= 0 && static_cast<std::size_t>(*index) < sig.inputs.size() && n != module.names.end()) {
        sig.inputs[static_cast<std::size_t>(*index)].name = n->second;
      }
      continue;
    }
    if (inst.kind != BodyInstruction::Kind::ExtInst) continue;
    for (std::uint32_t id : inst.operands) {
      const ConstantInfo* c = module.constant(id);
      if (c == nullptr || c->kind != ConstantInfo::Kind::GraphConstant || !seen.insert(c->graphConstantId).second) continue;
      auto declared = declaredTensor(module, c->type);
      if (!declared || !declared->shape) {
        return invalidInput("{}: word {} OpGraphConstantARM: expected a shaped tensor type, got type <id> {}", module.source,
                            c->offset, c->type);
      }
      sig.constants.push_back(GraphConstantRef{c->graphConstantId, declared->dtype, *declared->shape, c->offset});
    }
  }
  return sig;
}

std::string listGraph(const Module& module, const GraphSignature& signature) {
  std::string out;
  auto typeOf = [&](std::uint32_t typeId) -> std::string {
    auto t = declaredTensor(module, typeId);
    if (t) return typeText(*t);
    const TypeInfo* s = module.type(typeId);
    if (s != nullptr && s->kind == TypeInfo::Kind::Struct) {
      std::vector<std::string> parts;
      for (std::uint32_t m : s->members) {
        auto mt = declaredTensor(module, m);
        parts.push_back(mt ? typeText(*mt) : std::string("?"));
      }
      return fmt::format("({})", fmt::join(parts, ", "));
    }
    return "?";
  };
  auto operand = [&](std::uint32_t id) {
    const ConstantInfo* c = module.constant(id);
    if (c == nullptr) return fmt::format("%{}", id);
    if (c->kind == ConstantInfo::Kind::GraphConstant) return fmt::format("graph_constant[{}]", c->graphConstantId);
    constexpr std::size_t kShownValues = 16;
    Result<HostTensor> value = constantValue(module, id);
    if (!value || elementCount(value->shape) > static_cast<std::int64_t>(kShownValues)) return fmt::format("const %{}", id);
    Result<std::vector<double>> values = compliance::toDoubles(*value);
    if (!values) return fmt::format("const %{}", id);
    std::vector<std::string> shown;
    for (double v : *values) shown.push_back(isFloat(value->dtype) ? fmt::format("{:.9g}", v) : fmt::format("{:.0f}", v));
    return fmt::format("const %{} = [{}]", id, fmt::join(shown, " "));
  };
  for (const GraphDefinition& g : module.graphs) {
    if (g.id != signature.graph) continue;
    std::size_t index = 0;
    for (const BodyInstruction& inst : g.body) {
      if (inst.kind == BodyInstruction::Kind::ExtInst) {
        const ExtInstruction* ext = findExtInstruction(inst.opcode);
        const std::size_t attrs = ext != nullptr ? attributeCount(*ext) : 0;
        std::vector<std::string> args;
        for (std::size_t i = attrs; i < inst.operands.size(); ++i) args.push_back(operand(inst.operands[i]));
        out += fmt::format("  [{}] %{} = {}({}) : {}\n", index++, inst.result,
                           ext != nullptr ? std::string(ext->name) : fmt::format("instruction {}", inst.opcode),
                           fmt::join(args, ", "), typeOf(inst.resultType));
      } else if (inst.kind == BodyInstruction::Kind::SetOutput) {
        out += fmt::format("  output {} = %{}\n", inst.operands.size() > 1 ? module.intConstant(inst.operands[1]).value_or(-1) : -1,
                           inst.operands[0]);
      }
    }
  }
  return out;
}

}  // namespace openvgf::tosa::spirv
