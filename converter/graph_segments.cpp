// SPDX-License-Identifier: Apache-2.0
// GRAPH segments of a VGF -> tosa::Graph (see graph_segments.h). Each segment's module is
// decoded by tosa/spirv with its interface tensors named "mrt<i>" after the resource they bind,
// so consecutive segments join by name; tensors private to a segment get a "s<k>_" prefix.
#include "converter/graph_segments.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "tosa/spirv/decoder.h"
#include "tosa/verifier.h"

namespace openvgf::converter {
namespace {

constexpr std::int64_t kDynamic = std::numeric_limits<std::int64_t>::min();

std::string mrtName(std::uint32_t mrt) { return fmt::format("mrt{}", mrt); }

/// Does a resource of this format hold tensors of `dtype`? Unsigned formats hold the signless
/// TOSA types of their width (TOSA marks unsignedness on RESCALE, not on tensors).
bool formatHolds(std::uint32_t vkFormat, tosa::DType dtype) {
  using F = vgf::VkFormatValue;
  if (vkFormat == vkFormatOf(dtype)) return true;
  switch (static_cast<F>(vkFormat)) {
    case F::R8Uint: return dtype == tosa::DType::Int8;
    case F::R16Uint: return dtype == tosa::DType::Int16;
    case F::R32Uint: return dtype == tosa::DType::Int32;
    default: return false;
  }
}

void renameTensor(tosa::Block& block, const std::string& from, const std::string& to) {
  for (tosa::Tensor& t : block.tensors) {
    if (t.name == from) t.name = to;
  }
  for (tosa::Operator& op : block.operators) {
    std::replace(op.inputs.begin(), op.inputs.end(), from, to);
    std::replace(op.outputs.begin(), op.outputs.end(), from, to);
  }
  std::replace(block.inputs.begin(), block.inputs.end(), from, to);
  std::replace(block.outputs.begin(), block.outputs.end(), from, to);
}

/// The payload of constant `index` as a host tensor of the graph constant's declared type.
Result<tosa::HostTensor> constantPayload(const vgf::File& file, std::uint32_t index, const tosa::spirv::GraphConstantRef& ref) {
  if (index >= file.constants.size()) {
    return invalidInput("graph constant {}: expected a constant index below {}, got {}", ref.id, file.constants.size(), index);
  }
  const vgf::Constant& c = file.constants[index];
  const vgf::Resource& r = file.resources[c.mrtIndex];
  const std::string where = fmt::format("graph constant {} (constants[{}], resources[{}])", ref.id, index, c.mrtIndex);
  if (!formatHolds(r.vkFormat, ref.dtype)) {
    return invalidInput("{}: expected a format holding {}, got {}", where, tosa::toString(ref.dtype), vgf::formatName(r.vkFormat));
  }
  if (r.shape != ref.shape) {
    return invalidInput("{}: expected the module's shape {}, got {}", where, tosa::shapeToString(ref.shape),
                        tosa::shapeToString(r.shape));
  }
  // Sparse constants (sparsity_dimension >= 0) are stored dense; the dimension is a hint for
  // hardware with 2:4 sparsity, the values are the same.
  tosa::HostTensor out(ref.dtype, ref.shape);
  if (c.data.size() != out.bytes.size()) {
    return invalidInput("{}: expected {} payload bytes for {}{}, got {}", where, out.bytes.size(), tosa::toString(ref.dtype),
                        tosa::shapeToString(ref.shape), c.data.size());
  }
  std::memcpy(out.bytes.data(), c.data.data(), out.bytes.size());
  if (ref.dtype == tosa::DType::Bool) {
    for (std::uint8_t& b : out.bytes) b = b != 0 ? 1 : 0;  // model-converter widens true to 0xFF
  }
  return out;
}

/// The MRT entry bound at (set, binding) in the segment's descriptor sets.
std::optional<std::uint32_t> boundResource(const vgf::Segment& seg, std::uint32_t set, std::uint32_t binding) {
  for (std::size_t k = 0; k < seg.setInfos.size(); ++k) {
    const vgf::DescriptorSetInfo& info = seg.setInfos[k];
    const std::uint32_t number = info.setIndex == vgf::kUnset ? static_cast<std::uint32_t>(k) : info.setIndex;
    if (number != set) continue;
    for (const vgf::BindingSlot& slot : info.bindings) {
      if (slot.binding == binding) return slot.mrtIndex;
    }
  }
  return std::nullopt;
}

/// One decoded segment: its graph (interface tensors named "mrt<i>") and the MRT entries.
struct SegmentGraph {
  tosa::Graph graph;
  std::vector<std::uint32_t> inputs, outputs;
};

Result<SegmentGraph> decodeSegment(const vgf::File& file, std::size_t s, const KnownShapes& known, std::string_view source) {
  const vgf::Segment& seg = file.segments[s];
  const std::string segWhere = fmt::format("{}: segments[{}] '{}'", source, s, seg.name);
  const vgf::Module& module = file.modules[seg.moduleIndex];
  if (module.type != vgf::ModuleType::Graph || !module.hasCode || module.codeKind != vgf::CodeKind::Spirv ||
      module.spirv.size() < 5) {
    return invalidInput("{}: modules[{}] '{}': expected a GRAPH module with SPIR-V code", segWhere, seg.moduleIndex, module.name);
  }
  const std::string moduleWhere = fmt::format("{}: modules[{}] '{}'", source, seg.moduleIndex, module.name);
  OPENVGF_ASSIGN_OR_RETURN(tosa::spirv::Module m, tosa::spirv::parseModule(module.spirv, moduleWhere));
  auto sig = tosa::spirv::graphSignature(m, module.entryPoint);
  if (!sig && m.entryPoints.size() == 1) sig = tosa::spirv::graphSignature(m);
  if (!sig) return Unexpected(std::move(sig).error());

  SegmentGraph out;
  tosa::spirv::DecodeInputs in;
  auto resolve = [&](const tosa::spirv::InterfaceTensor& t, bool isInput) -> Result<std::uint32_t> {
    const std::string what = fmt::format("{} {}", isInput ? "input" : "output", t.index);
    std::optional<std::uint32_t> mrt;
    if (t.binding) {
      mrt = boundResource(seg, t.descriptorSet.value_or(0), *t.binding);
      if (!mrt) {
        return invalidInput("{}: graph {}: expected set {} binding {} in the segment's descriptor sets, got none", segWhere, what,
                            t.descriptorSet.value_or(0), *t.binding);
      }
    } else {
      const auto& slots = isInput ? seg.inputs : seg.outputs;
      if (t.index >= slots.size()) {
        return invalidInput("{}: graph {}: expected a Binding decoration or a segment {} slot", segWhere, what,
                            isInput ? "input" : "output");
      }
      mrt = slots[t.index].mrtIndex;
    }
    const vgf::Resource& r = file.resources[*mrt];
    if (!formatHolds(r.vkFormat, t.dtype)) {
      return invalidInput("{}: graph {} (resources[{}]): expected a format holding {}, got {}", segWhere, what, *mrt,
                          tosa::toString(t.dtype), vgf::formatName(r.vkFormat));
    }
    if (t.rank && r.hasDescription && r.shape.size() != *t.rank) {
      return invalidInput("{}: graph {} (resources[{}]): expected rank {}, got shape of rank {}", segWhere, what, *mrt, *t.rank,
                          r.shape.size());
    }
    return *mrt;
  };
  for (const tosa::spirv::InterfaceTensor& t : sig->inputs) {
    OPENVGF_ASSIGN_OR_RETURN(std::uint32_t mrt, resolve(t, true));
    const vgf::Resource& r = file.resources[mrt];
    tosa::Shape shape = r.shape;
    const bool dynamic = !r.hasDescription || std::any_of(shape.begin(), shape.end(), [](std::int64_t d) { return d == kDynamic; });
    if (dynamic) {
      auto it = known.find(mrt);
      if (it == known.end()) {
        return invalidInput("{}: graph input {} (resources[{}] {}): its shape {} is dynamic; expected it from the input "
                            "array (--input)", segWhere, t.index, mrt, resourceTensorName(file, mrt),
                            r.hasDescription ? tosa::shapeToString(shape) : std::string("(none)"));
      }
      if (r.hasDescription) {
        bool fits = it->second.size() == shape.size();
        for (std::size_t d = 0; fits && d < shape.size(); ++d) fits = shape[d] == kDynamic || shape[d] == it->second[d];
        if (!fits) {
          return invalidInput("{}: graph input {} (resources[{}]): expected a shape matching {} (-: any), got {}", segWhere, t.index,
                              mrt, tosa::shapeToString(shape), tosa::shapeToString(it->second));
        }
      }
      shape = it->second;
    }
    in.inputShapes.push_back(std::move(shape));
    in.inputNames.push_back(mrtName(mrt));
    out.inputs.push_back(mrt);
  }
  for (const tosa::spirv::InterfaceTensor& t : sig->outputs) {
    OPENVGF_ASSIGN_OR_RETURN(std::uint32_t mrt, resolve(t, false));
    in.outputNames.push_back(mrtName(mrt));
    out.outputs.push_back(mrt);
  }
  in.graphConstant = [&](const tosa::spirv::GraphConstantRef& ref) -> Result<tosa::HostTensor> {
    for (const vgf::ConstantBinding& b : seg.constantBindings) {
      if (b.graphConstantId == ref.id) return withContext(constantPayload(file, b.constantIndex, ref), segWhere);
    }
    return invalidInput("{}: graph constant {} (word {}): expected a constant of the segment with this id, got none", segWhere,
                        ref.id, ref.offset);
  };
  OPENVGF_ASSIGN_OR_RETURN(out.graph, tosa::spirv::decodeGraph(m, *sig, in));
  // Check the decoded output shapes against the resource table.
  const tosa::Block& block = *out.graph.mainBlock();
  for (std::size_t o = 0; o < out.outputs.size(); ++o) {
    const vgf::Resource& r = file.resources[out.outputs[o]];
    const tosa::Tensor* t = block.findTensor(block.outputs[o]);
    bool fits = !r.hasDescription || r.shape.size() == t->shape.size();
    for (std::size_t d = 0; fits && r.hasDescription && d < r.shape.size(); ++d) fits = r.shape[d] == kDynamic || r.shape[d] == t->shape[d];
    if (!fits) {
      return invalidInput("{}: graph output {} (resources[{}]): expected the decoded shape {} to match {}", segWhere, o,
                          out.outputs[o], tosa::shapeToString(t->shape), tosa::shapeToString(r.shape));
    }
  }
  return out;
}

}  // namespace

std::string resourceTensorName(const vgf::File& file, std::uint32_t mrtIndex) {
  for (std::size_t i = 0; i < file.inputs.size(); ++i) {
    if (file.inputs[i].mrtIndex != mrtIndex) continue;
    return i < file.inputNames.size() && !file.inputNames[i].empty() ? file.inputNames[i] : fmt::format("input_{}", i);
  }
  for (std::size_t i = 0; i < file.outputs.size(); ++i) {
    if (file.outputs[i].mrtIndex != mrtIndex) continue;
    return i < file.outputNames.size() && !file.outputNames[i].empty() ? file.outputNames[i] : fmt::format("output_{}", i);
  }
  return mrtName(mrtIndex);
}

std::vector<std::vector<std::size_t>> graphRuns(const vgf::File& file) {
  std::vector<std::vector<std::size_t>> runs;
  for (std::size_t s = 0; s < file.segments.size(); ++s) {
    if (file.segments[s].type != vgf::ModuleType::Graph) continue;
    if (runs.empty() || runs.back().back() + 1 != s) runs.emplace_back();
    runs.back().push_back(s);
  }
  return runs;
}

Result<GraphRun> decodeGraphRun(const vgf::File& file, std::span<const std::size_t> segments, KnownShapes& known,
                                std::string_view source) {
  GraphRun run;
  run.segments.assign(segments.begin(), segments.end());
  tosa::Block merged;
  merged.name = "main";
  std::set<std::uint32_t> produced;
  for (std::size_t s : segments) {
    OPENVGF_ASSIGN_OR_RETURN(SegmentGraph sg, decodeSegment(file, s, known, source));
    tosa::Block& block = sg.graph.regions[0].blocks[0];
    std::set<std::string> interface;
    for (std::uint32_t mrt : sg.inputs) interface.insert(mrtName(mrt));
    for (std::uint32_t mrt : sg.outputs) interface.insert(mrtName(mrt));
    std::vector<std::string> names;
    for (const tosa::Tensor& t : block.tensors) names.push_back(t.name);
    for (const std::string& n : names) {
      if (interface.count(n) == 0) renameTensor(block, n, fmt::format("s{}_{}", s, n));
    }
    for (std::uint32_t mrt : sg.inputs) {
      const bool inside = produced.count(mrt) != 0;
      const bool listed = std::find(run.inputs.begin(), run.inputs.end(), mrt) != run.inputs.end();
      if (!inside && !listed) {
        run.inputs.push_back(mrt);
        merged.inputs.push_back(mrtName(mrt));
        merged.tensors.push_back(*block.findTensor(mrtName(mrt)));
      }
    }
    for (std::size_t o = 0; o < sg.outputs.size(); ++o) {
      const std::uint32_t mrt = sg.outputs[o];
      if (!produced.insert(mrt).second || std::find(run.inputs.begin(), run.inputs.end(), mrt) != run.inputs.end()) {
        return invalidInput("{}: segments[{}] '{}': resources[{}]: expected a resource written once and not read before, got "
                            "one written again", source, s, file.segments[s].name, mrt);
      }
      const vgf::Resource& r = file.resources[mrt];
      if (!r.hasDescription || std::any_of(r.shape.begin(), r.shape.end(), [](std::int64_t d) { return d == kDynamic; })) {
        known[mrt] = block.findTensor(block.outputs[o])->shape;
      }
    }
    for (tosa::Tensor& t : block.tensors) {
      const bool isRunInput = std::find(merged.inputs.begin(), merged.inputs.end(), t.name) != merged.inputs.end();
      if (!isRunInput && !merged.findTensor(t.name)) merged.tensors.push_back(std::move(t));
    }
    for (tosa::Operator& op : block.operators) merged.operators.push_back(std::move(op));
  }
  // What the run hands on: model outputs and resources read by a segment outside the run,
  // directly or through another resource of the same alias group (a TENSOR_ARM view and a
  // buffer view of one value).
  std::set<std::uint32_t> readOutside;
  for (std::size_t s = 0; s < file.segments.size(); ++s) {
    if (std::find(segments.begin(), segments.end(), s) != segments.end()) continue;
    for (const vgf::DescriptorSetInfo& info : file.segments[s].setInfos) {
      for (const vgf::BindingSlot& slot : info.bindings) readOutside.insert(slot.mrtIndex);
    }
  }
  for (const vgf::BindingSlot& slot : file.outputs) readOutside.insert(slot.mrtIndex);
  std::set<std::uint32_t> groupsReadOutside;
  for (std::uint32_t mrt : readOutside) {
    if (file.resources[mrt].aliasGroup != vgf::kUnset) groupsReadOutside.insert(file.resources[mrt].aliasGroup);
  }
  for (std::uint32_t mrt : produced) {
    if (readOutside.count(mrt) != 0 || groupsReadOutside.count(file.resources[mrt].aliasGroup) != 0) {
      run.outputs.push_back(mrt);
      merged.outputs.push_back(mrtName(mrt));
    }
  }
  if (run.outputs.empty()) {
    return invalidInput("{}: segments[{}..{}]: expected a GRAPH segment run whose results someone reads, got none", source,
                        segments.front(), segments.back());
  }
  // Model inputs and outputs carry the names the runner reports.
  std::set<std::string> taken;
  for (const tosa::Tensor& t : merged.tensors) taken.insert(t.name);
  tosa::Graph graph;
  graph.regions.push_back(tosa::Region{"main", {std::move(merged)}});
  tosa::Block& block = graph.regions[0].blocks[0];
  for (std::uint32_t mrt : run.inputs) {
    const std::string name = resourceTensorName(file, mrt);
    if (name != mrtName(mrt) && taken.insert(name).second) renameTensor(block, mrtName(mrt), name);
  }
  for (std::uint32_t mrt : run.outputs) {
    const std::string name = resourceTensorName(file, mrt);
    if (name != mrtName(mrt) && taken.insert(name).second) renameTensor(block, mrtName(mrt), name);
  }
  if (Status s = tosa::verify(graph); !s) {
    return Unexpected(Error(s.error().kind(), fmt::format("{}: segments[{}..{}]: decoded graph: {}", source, segments.front(),
                                                          segments.back(), s.error().message())));
  }
  run.graph = std::move(graph);
  return run;
}

Result<GraphRun> decodeGraphModel(const vgf::File& file, const KnownShapes& inputShapes, std::string_view source) {
  if (file.segments.empty()) return invalidInput("{}: expected at least one segment, got none", source);
  std::vector<std::size_t> all;
  for (std::size_t s = 0; s < file.segments.size(); ++s) {
    if (file.segments[s].type != vgf::ModuleType::Graph) {
      return unsupported("{}: segments[{}] '{}': expected only GRAPH segments to build the reference graph, got a COMPUTE "
                         "segment; check against the model's .tosa instead (--check MODEL.tosa)",
                         source, s, file.segments[s].name);
    }
    all.push_back(s);
  }
  KnownShapes known = inputShapes;
  OPENVGF_ASSIGN_OR_RETURN(GraphRun run, decodeGraphRun(file, all, known, source));
  tosa::Block& block = run.graph.regions[0].blocks[0];
  std::vector<std::string> inputs, outputs;
  std::vector<std::uint32_t> inputMrt, outputMrt;
  for (const vgf::BindingSlot& slot : file.inputs) {
    const std::string name = resourceTensorName(file, slot.mrtIndex);
    if (block.findTensor(name) == nullptr) {
      return unsupported("{}: model input '{}' (resources[{}]): expected a GRAPH segment to read it, got none", source, name,
                         slot.mrtIndex);
    }
    inputs.push_back(name);
    inputMrt.push_back(slot.mrtIndex);
  }
  for (const vgf::BindingSlot& slot : file.outputs) {
    const std::string name = resourceTensorName(file, slot.mrtIndex);
    if (std::find(block.outputs.begin(), block.outputs.end(), name) == block.outputs.end()) {
      return invalidInput("{}: model output '{}' (resources[{}]): expected a GRAPH segment to write it, got none", source, name,
                          slot.mrtIndex);
    }
    outputs.push_back(name);
    outputMrt.push_back(slot.mrtIndex);
  }
  if (inputs.size() != block.inputs.size()) {
    return invalidInput("{}: expected the GRAPH segments to read only model inputs, got {} inputs for {} model inputs", source,
                        block.inputs.size(), inputs.size());
  }
  block.inputs = std::move(inputs);
  block.outputs = std::move(outputs);
  run.inputs = std::move(inputMrt);
  run.outputs = std::move(outputMrt);
  return run;
}

Result<std::string> listGraphSegments(const vgf::File& file, std::string_view source) {
  std::string out;
  for (std::size_t s = 0; s < file.segments.size(); ++s) {
    const vgf::Segment& seg = file.segments[s];
    if (seg.type != vgf::ModuleType::Graph) continue;
    const vgf::Module& module = file.modules[seg.moduleIndex];
    if (!module.hasCode || module.codeKind != vgf::CodeKind::Spirv) {
      out += fmt::format("segments[{}] '{}': no SPIR-V code to decode\n", s, seg.name);
      continue;
    }
    auto m = tosa::spirv::parseModule(module.spirv, fmt::format("{}: modules[{}] '{}'", source, seg.moduleIndex, module.name));
    if (!m) {
      out += fmt::format("segments[{}] '{}': {}\n", s, seg.name, m.error().message());
      continue;
    }
    auto sig = tosa::spirv::graphSignature(*m, module.entryPoint);
    if (!sig && m->entryPoints.size() == 1) sig = tosa::spirv::graphSignature(*m);
    if (!sig) {
      out += fmt::format("segments[{}] '{}': {}\n", s, seg.name, sig.error().message());
      continue;
    }
    out += fmt::format("segments[{}] '{}': TOSA graph '{}' ({} inputs, {} outputs, {} graph constants)\n", s, seg.name,
                       sig->entryPoint, sig->inputs.size(), sig->outputs.size(), sig->constants.size());
    out += tosa::spirv::listGraph(*m, *sig);
  }
  return out;
}

}  // namespace openvgf::converter
