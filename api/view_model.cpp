// SPDX-License-Identifier: Apache-2.0
// The graph `openvgf view` draws, from each file kind (see view.h):
//  - a .tosa: the main block's operators; constants are listed on the operators that read them.
//    Each operator is annotated with openvgf's Vulkan lowering for the default (portable)
//    target: the passes and kernel selection of `convert` (no shader is compiled), so the page
//    shows which dispatch each operator became and which operators were fused into it;
//  - a .vgf: COMPUTE segments as dispatches (module, grid, bindings, constants), GRAPH segments
//    as their decoded TOSA graphs (one group per segment), joined through the resource table;
//  - a .pte: the VGF and Ethos-U delegates of every execution plan, one group each;
//  - an Ethos-U stream: its NPU operations, joined through the addresses they read and write.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "api/file_kind.h"
#include "api/view.h"
#include "common/file_io.h"
#include "converter/convert.h"
#include "converter/graph_segments.h"
#include "converter/kernels/registry.h"
#include "converter/passes/passes.h"
#include "converter/program.h"
#include "ethosu/disassembler.h"
#include "ethosu/registers.h"
#include "pte/program.h"
#include "runner/ethosu/session.h"
#include "tosa/json.h"
#include "tosa/reader.h"
#include "vgf/decoder.h"

namespace openvgf::api::view {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

std::string tosaType(const tosa::Tensor& t) {
  return fmt::format("{}{}", tosa::toString(t.dtype), t.isUnranked ? "[*]" : tosa::shapeToString(t.shape));
}

std::string vgfType(const vgf::Resource& r) {
  std::string format = vgf::formatName(r.vkFormat);
  if (format.starts_with("VK_FORMAT_")) format = format.substr(10);
  std::vector<std::string> dims;
  for (std::int64_t d : r.shape)
    dims.push_back(d == std::numeric_limits<std::int64_t>::min() ? "?" : std::to_string(d));
  return fmt::format("{}[{}]", format, fmt::join(dims, ","));
}

std::string attrText(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

Node makeNode(std::string label, std::string name, std::string kind, std::string group) {
  Node node;
  node.label = std::move(label);
  node.name = std::move(name);
  node.kind = std::move(kind);
  node.group = std::move(group);
  return node;
}

/// Nodes and the tensors between them: a tensor is produced under a key (a TOSA name, a VGF
/// resource) and each reader of that key gets an edge from its producer. A key nobody produced
/// is a model input: it gets an input node of its own.
class Builder {
 public:
  explicit Builder(Graph& graph) : graph_(graph) {}

  std::size_t add(Node node) {
    node.id = fmt::format("n{}", graph_.nodes.size());
    graph_.nodes.push_back(std::move(node));
    return graph_.nodes.size() - 1;
  }
  Node& node(std::size_t index) { return graph_.nodes[index]; }

  bool produced(const std::string& key) const { return producers_.count(key) != 0; }
  void produce(const std::string& key, std::size_t node, std::string tensor, std::string type) {
    producers_[key] = {node, std::move(tensor), std::move(type)};
  }
  void consume(const std::string& key, std::size_t node, const std::string& tensor, const std::string& type,
               const std::string& group) {
    auto it = producers_.find(key);
    if (it == producers_.end()) {
      Node input = makeNode("input", tensor, "input", group);
      input.attrs = {{"tensor", tensor}, {"type", type}};
      produce(key, add(std::move(input)), tensor, type);
      it = producers_.find(key);
    }
    graph_.edges.push_back({it->second.node, node, it->second.tensor, it->second.type, {}});
  }
  void output(const std::string& key, const std::string& tensor, const std::string& type,
              const std::string& group) {
    Node out = makeNode("output", tensor, "output", group);
    out.attrs = {{"tensor", tensor}, {"type", type}};
    const std::size_t n = add(std::move(out));
    consume(key, n, tensor, type, group);
  }
  Graph& graph() { return graph_; }

 private:
  struct Producer {
    std::size_t node = 0;
    std::string tensor, type;
  };
  Graph& graph_;
  std::map<std::string, Producer> producers_;
};

/// Where a TOSA block sits: the prefix of its tensor keys, its group, the keys of tensors that
/// come from or go to the outside (a GRAPH segment's resources), and whether its own inputs and
/// outputs get nodes (a .tosa file) or join the outside through `external`.
struct TosaScope {
  std::string keyPrefix;
  std::string group;
  std::map<std::string, std::string> external;
  bool interfaceNodes = true;

  std::string key(const std::string& tensor) const {
    auto it = external.find(tensor);
    return it != external.end() ? it->second : keyPrefix + tensor;
  }
};

bool isConstantOp(tosa::Op op) {
  return op == tosa::Op::Const || op == tosa::Op::ConstShape;
}

void addOperatorAttributes(Node& node, const tosa::Graph& graph, const tosa::Block& block,
                           const tosa::Operator& op, const nlohmann::json& jsonOp, std::size_t index) {
  node.attrs.emplace_back("operator", fmt::format("operators[{}] {}", index, tosa::toString(op.op)));
  if (jsonOp.contains("attributes")) {
    for (const auto& [name, value] : jsonOp["attributes"].items())
      node.attrs.emplace_back(name, attrText(value));
  }
  for (std::size_t i = 0; i < op.inputs.size(); ++i) {
    const tosa::Tensor* t = graph.findTensor(block, op.inputs[i]);
    if (t == nullptr || !t->data) continue;
    std::string text = fmt::format("{} {}, {} bytes", op.inputs[i], tosaType(*t), t->data->size());
    node.attrs.emplace_back(fmt::format("constant input {}", i), std::move(text));
  }
  if (op.location) node.attrs.emplace_back("location", *op.location);
}

/// The block's operators as nodes (CONST / CONST_SHAPE are not: their tensors are listed as
/// constants on the operators that read them). Returns the node of each operator (kNone for those).
std::vector<std::size_t> addTosaBlock(Builder& b, const tosa::Graph& graph, const tosa::Block& block,
                                      const nlohmann::json& jsonBlock, const TosaScope& scope) {
  auto typeOf = [&](const std::string& name) {
    const tosa::Tensor* t = graph.findTensor(block, name);
    return t != nullptr ? tosaType(*t) : std::string("?");
  };
  if (scope.interfaceNodes) {
    for (const std::string& name : block.inputs) {
      Node input = makeNode("input", name, "input", scope.group);
      input.attrs = {{"tensor", name}, {"type", typeOf(name)}};
      b.produce(scope.key(name), b.add(std::move(input)), name, typeOf(name));
    }
  }
  std::vector<std::size_t> nodes(block.operators.size(), kNone);
  const nlohmann::json jsonOps = jsonBlock.value("operators", nlohmann::json::array());
  for (std::size_t i = 0; i < block.operators.size(); ++i) {
    const tosa::Operator& op = block.operators[i];
    if (isConstantOp(op.op)) continue;
    Node node =
        makeNode(std::string(tosa::toString(op.op)), fmt::format("operators[{}]", i), "op", scope.group);
    addOperatorAttributes(node, graph, block, op, i < jsonOps.size() ? jsonOps[i] : nlohmann::json::object(),
                          i);
    if (!op.outputs.empty()) node.name = op.outputs.front();
    nodes[i] = b.add(std::move(node));
    for (const std::string& in : op.inputs) {
      const tosa::Tensor* t = graph.findTensor(block, in);
      if (t != nullptr && t->data) continue;
      b.consume(scope.key(in), nodes[i], in, typeOf(in), scope.group);
    }
    for (const std::string& out : op.outputs) b.produce(scope.key(out), nodes[i], out, typeOf(out));
  }
  if (scope.interfaceNodes) {
    for (const std::string& name : block.outputs) b.output(scope.key(name), name, typeOf(name), scope.group);
  }
  return nodes;
}

/// The converter names each dispatch after the operator it lowers: "<OP>_<operator index>", with a
/// lowercase suffix for the passes of a multi-pass kernel ("MATMUL_7_partial", "FFT2D_3_w").
std::optional<std::size_t> operatorOfDispatch(std::string_view name) {
  const std::size_t lower = name.find_last_not_of("abcdefghijklmnopqrstuvwxyz");
  if (lower != std::string_view::npos && lower + 1 < name.size() && name[lower] == '_')
    name = name.substr(0, lower);
  const std::size_t underscore = name.rfind('_');
  if (underscore == std::string_view::npos || underscore == 0) return std::nullopt;
  const std::string_view digits = name.substr(underscore + 1);
  std::size_t index = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) return std::nullopt;
  return index;
}

std::string kernelText(const converter::PlanKernel& k) {
  return fmt::format("{} ({}, grid {}x{}x{})", k.name, k.shader.templateName, k.grid[0], k.grid[1],
                     k.grid[2]);
}

/// How openvgf's Vulkan backend lowers each operator (see the file comment). A graph it cannot
/// lower gets a note saying why, and no annotations.
void annotateLowering(Builder& b, const tosa::Graph& graph, const std::vector<std::size_t>& nodes) {
  Result<converter::Program> program = converter::makeProgram(graph);
  Status passed = program ? converter::passes::runPasses(*program) : Status(Unexpected(program.error()));
  Result<converter::Target> target = converter::resolveTarget({});
  Result<converter::Plan> plan = !passed   ? Result<converter::Plan>(Unexpected(passed.error()))
                                 : !target ? Result<converter::Plan>(Unexpected(target.error()))
                                           : converter::lowerProgram(*program, *target);
  if (!plan) {
    b.graph().notes.push_back("not lowered to Vulkan kernels: " + plan.error().message());
    return;
  }
  std::map<std::size_t, std::vector<const converter::PlanKernel*>> kernelsOf;
  for (const converter::PlanKernel& k : plan->kernels) {
    if (std::optional<std::size_t> op = operatorOfDispatch(k.name)) kernelsOf[*op].push_back(&k);
  }
  auto nodeOf = [&](std::size_t op) -> Node* {
    return op < nodes.size() && nodes[op] != kNone ? &b.node(nodes[op]) : nullptr;
  };
  for (const converter::Node& pn : program->nodes) {
    Node* anchor = nodeOf(pn.index);
    if (anchor == nullptr) continue;  // a node the passes made (variables), or a constant
    std::vector<std::string> texts, names;
    for (const converter::PlanKernel* k : kernelsOf[pn.index]) {
      texts.push_back(kernelText(*k));
      names.push_back(k->name);
    }
    anchor->lowering = "kernel";
    anchor->dispatches = names;
    anchor->attrs.emplace_back("kernel", fmt::format("{}", fmt::join(texts, "; ")));
    std::vector<std::string> fused;
    for (const converter::FusedOp& f : pn.epilogue) {
      fused.push_back(fmt::format("operators[{}] {}", f.index, tosa::toString(f.op.op)));
      Node* member = nodeOf(f.index);
      if (member == nullptr) continue;
      member->lowering = "fused";
      member->dispatches = names;
      member->attrs.emplace_back(
          "fused into", fmt::format("operators[{}] {}: {}", pn.index, anchor->label, fmt::join(names, ", ")));
    }
    if (!fused.empty()) anchor->attrs.emplace_back("fused", fmt::format("{}", fmt::join(fused, ", ")));
  }
  const tosa::Block* block = graph.mainBlock();
  for (std::size_t i = 0; i < nodes.size() && block != nullptr; ++i) {
    Node* n = nodeOf(i);
    if (n == nullptr || !n->lowering.empty() || block->operators[i].outputs.empty()) continue;
    const std::string& out = block->operators[i].outputs.front();
    if (program->aliases.count(out) != 0) {
      n->lowering = "elided";
      n->attrs.emplace_back(
          "kernel", fmt::format("none: elided, readers use the buffer of '{}'", program->aliases.at(out)));
    } else if (program->isConstant(out)) {
      n->lowering = "folded";
      n->attrs.emplace_back("kernel", "none: folded into a constant at conversion");
    } else {
      n->lowering = "removed";
      n->attrs.emplace_back("kernel", "none: removed (nothing reads its result)");
    }
  }
}

/// The JSON dump (tosa/json.h, the one spelling of every attribute) of the graph's main block.
nlohmann::json mainBlockJson(const tosa::Graph& graph) {
  const nlohmann::json json = nlohmann::json::parse(tosa::toJson(graph, {.maxValues = 8, .indent = -1}));
  const tosa::Block* main = graph.mainBlock();
  for (std::size_t i = 0; main != nullptr && !graph.regions.empty() && i < graph.regions[0].blocks.size();
       ++i) {
    if (&graph.regions[0].blocks[i] == main) return json["regions"][0]["blocks"][i];
  }
  return nlohmann::json::object();
}

Status addTosaFile(Builder& b, std::span<const std::uint8_t> bytes, const std::string& path) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, tosa::readGraph(bytes, path));
  const tosa::Block* main = graph.mainBlock();
  if (main == nullptr) return invalidInput("{}: expected a main block, got a graph with no blocks", path);
  const tosa::Version& v = graph.version;
  b.graph().format = fmt::format("TOSA flatbuffer {}.{}.{}", v.major, v.minor, v.patch);
  std::vector<std::size_t> nodes = addTosaBlock(b, graph, *main, mainBlockJson(graph), {});
  if (graph.regions.size() > 1 || graph.regions[0].blocks.size() > 1) {
    b.graph().notes.push_back(
        "only the main block is drawn; control-flow blocks are named by their COND_IF / "
        "WHILE_LOOP operators");
  }
  annotateLowering(b, graph, nodes);
  return {};
}

std::string segmentGroup(std::string_view prefix, std::size_t index, const vgf::Segment& s) {
  return fmt::format("{}segment {} '{}' ({})", prefix, index, s.name, vgf::toString(s.type));
}

/// A COMPUTE segment: one dispatch reading and writing model resources.
void addDispatch(Builder& b, const vgf::File& file, std::size_t index, const std::string& keyPrefix,
                 const std::string& group) {
  const vgf::Segment& s = file.segments[index];
  std::string op = s.name;
  while (!op.empty() && (std::isdigit(static_cast<unsigned char>(op.back())) || op.back() == '_'))
    op.pop_back();
  Node node = makeNode(op.empty() ? s.name : op, s.name, "dispatch", group);
  node.dispatches = {s.name};
  node.attrs.emplace_back("segment", fmt::format("{} '{}'", index, s.name));
  if (s.moduleIndex < file.modules.size()) {
    const vgf::Module& m = file.modules[s.moduleIndex];
    node.attrs.emplace_back("module", fmt::format("{} '{}' entry '{}', {} SPIR-V words", s.moduleIndex,
                                                  m.name, m.entryPoint, m.spirv.size()));
  }
  if (s.dispatchShape) {
    node.attrs.emplace_back("workgroups", fmt::format("{}x{}x{}", (*s.dispatchShape)[0],
                                                      (*s.dispatchShape)[1], (*s.dispatchShape)[2]));
  }
  std::map<std::uint32_t, std::size_t> constantOf;
  for (std::size_t c = 0; c < file.constants.size(); ++c) constantOf[file.constants[c].mrtIndex] = c;
  const std::size_t n = b.add(std::move(node));
  auto bind = [&](const vgf::BindingSlot& slot, bool write) {
    if (slot.mrtIndex >= file.resources.size()) return;
    const vgf::Resource& r = file.resources[slot.mrtIndex];
    const std::string tensor = converter::resourceTensorName(file, slot.mrtIndex);
    const std::string key = fmt::format("{}mrt{}", keyPrefix, slot.mrtIndex);
    b.node(n).attrs.emplace_back(fmt::format("binding {}", slot.binding),
                                 fmt::format("{} mrt {} {} {}", write ? "writes" : "reads", slot.mrtIndex,
                                             vgf::toString(r.category), vgfType(r)));
    if (r.category == vgf::ResourceCategory::Constant) {
      auto c = constantOf.find(slot.mrtIndex);
      b.node(n).attrs.emplace_back(
          fmt::format("constant (binding {})", slot.binding),
          fmt::format("constant {}: {}, {} bytes", c == constantOf.end() ? 0 : c->second, vgfType(r),
                      c == constantOf.end() ? 0 : file.constants[c->second].data.size()));
    } else if (write) {
      b.produce(key, n, tensor, vgfType(r));
    } else {
      b.consume(key, n, tensor, vgfType(r), group);
    }
  };
  for (const vgf::BindingSlot& slot : s.inputs) bind(slot, false);
  for (const vgf::BindingSlot& slot : s.outputs) bind(slot, true);
}

/// A GRAPH segment: its TOSA graph, joined to the other segments through the resource table.
void addGraphSegment(Builder& b, const vgf::File& file, std::size_t index, converter::KnownShapes& known,
                     const std::string& path, const std::string& keyPrefix, const std::string& group) {
  const std::size_t segment[] = {index};
  Result<converter::GraphRun> run = converter::decodeGraphRun(file, segment, known, path);
  if (!run) {
    Node node = makeNode("GRAPH", file.segments[index].name, "dispatch", group);
    node.attrs.emplace_back("not decoded", run.error().message());
    b.add(std::move(node));
    b.graph().notes.push_back(fmt::format("{}: not decoded: {}", group, run.error().message()));
    return;
  }
  const tosa::Block* block = run->graph.mainBlock();
  if (block == nullptr) return;
  TosaScope scope;
  scope.keyPrefix = fmt::format("{}s{}:", keyPrefix, index);
  scope.group = group;
  scope.interfaceNodes = false;
  for (std::size_t i = 0; i < block->inputs.size() && i < run->inputs.size(); ++i) {
    scope.external[block->inputs[i]] = fmt::format("{}mrt{}", keyPrefix, run->inputs[i]);
  }
  for (std::size_t i = 0; i < block->outputs.size() && i < run->outputs.size(); ++i) {
    scope.external[block->outputs[i]] = fmt::format("{}mrt{}", keyPrefix, run->outputs[i]);
  }
  std::vector<std::size_t> nodes = addTosaBlock(b, run->graph, *block, mainBlockJson(run->graph), scope);
  annotateLowering(b, run->graph, nodes);
}

/// Every segment of a VGF, its model inputs and outputs; `prefix` names the delegate in a .pte.
void addVgf(Builder& b, const vgf::File& file, const std::string& path, const std::string& prefix) {
  const std::string keyPrefix = prefix;
  auto interfaceType = [&](std::uint32_t mrt) {
    return mrt < file.resources.size() ? vgfType(file.resources[mrt]) : std::string("?");
  };
  for (const vgf::BindingSlot& slot : file.inputs) {
    const std::string tensor = converter::resourceTensorName(file, slot.mrtIndex);
    Node input = makeNode("input", tensor, "input", prefix);
    input.attrs = {{"tensor", tensor},
                   {"type", interfaceType(slot.mrtIndex)},
                   {"resource", std::to_string(slot.mrtIndex)}};
    b.produce(fmt::format("{}mrt{}", keyPrefix, slot.mrtIndex), b.add(std::move(input)), tensor,
              interfaceType(slot.mrtIndex));
  }
  converter::KnownShapes known;
  for (std::size_t s = 0; s < file.segments.size(); ++s) {
    const std::string group = segmentGroup(prefix.empty() ? "" : prefix + " ", s, file.segments[s]);
    if (file.segments[s].type == vgf::ModuleType::Graph) {
      addGraphSegment(b, file, s, known, path, keyPrefix, group);
    } else {
      addDispatch(b, file, s, keyPrefix, file.segments.size() > 1 ? prefix : group);
    }
  }
  for (const vgf::BindingSlot& slot : file.outputs) {
    const std::string tensor = converter::resourceTensorName(file, slot.mrtIndex);
    b.output(fmt::format("{}mrt{}", keyPrefix, slot.mrtIndex), tensor, interfaceType(slot.mrtIndex), prefix);
  }
}

/// Where an NPU operation reads or writes: the region and the address its registers hold, the
/// key that joins a writer to its readers (the stream holds addresses, not tensors).
struct NpuState {
  std::map<std::string, const ethosu::Command*> latest;  // register name -> its last setting

  std::optional<std::string> key(std::string_view regionRegister, std::string_view baseRegister) const {
    auto region = latest.find(std::string(regionRegister));
    auto base = latest.find(std::string(baseRegister));
    if (region == latest.end() || base == latest.end()) return std::nullopt;
    const std::uint64_t address = (std::uint64_t{base->second->param} << 32) | base->second->data;
    return fmt::format("region {} @ {:#x}", region->second->param & 7u, address);
  }
  std::string extent(std::string_view prefix) const {
    std::vector<std::string> dims;
    for (const char* dim : {"HEIGHT0_M1", "WIDTH0_M1", "DEPTH_M1"}) {
      auto it = latest.find(fmt::format("NPU_SET_{}_{}", prefix, dim));
      if (it != latest.end()) dims.push_back(std::to_string(it->second->param + 1u));
    }
    return dims.empty() ? std::string() : fmt::format("{} {}", prefix, fmt::join(dims, "x"));
  }
};

/// An Ethos-U command stream: one node per NPU operation (NPU_OP_*) with the register settings
/// it runs with. Tensors are where operations read and write: an operation's IFM (and a binary
/// elementwise operation's IFM2) is joined to the operation or model input that last wrote that
/// region and address, its OFM and a DMA's destination are written there.
Status addEthosU(Builder& b, std::span<const std::uint8_t> bytes, const std::string& path,
                 const std::string& group) {
  OPENVGF_ASSIGN_OR_RETURN(runner::ethosu::LoadedModel model, runner::ethosu::loadModel(bytes, path));
  const ethosu::Product product = model.accelerator.product;
  const std::string keyPrefix = group + ":";
  auto ioKey = [&](const runner::ethosu::VelaIo& io) {
    return fmt::format("region {} @ {:#x}", io.region & 7u, io.offset);
  };
  auto ioType = [](const runner::ethosu::VelaIo& io) {
    return fmt::format("{}, {} byte elements", fmt::join(io.shape, "x"), io.elementSize);
  };
  for (std::size_t i = 0; i < model.inputs.size(); ++i) {
    Node input = makeNode("input", fmt::format("input {}", i), "input", group);
    input.attrs = {{"shape", ioType(model.inputs[i])}, {"placed at", ioKey(model.inputs[i])}};
    b.produce(keyPrefix + ioKey(model.inputs[i]), b.add(std::move(input)), ioKey(model.inputs[i]),
              ioType(model.inputs[i]));
  }
  NpuState state;
  std::vector<std::pair<std::string, std::string>> settings;
  for (const auto& c : model.commands) {
    const std::string name(ethosu::commandName(product, c.code, c.isCmd1));
    if (!name.starts_with("NPU_OP_")) {
      settings.emplace_back(name, ethosu::disassembleCommand(c, product));
      state.latest[name] = &c;
      continue;
    }
    if (name == "NPU_OP_STOP") continue;
    const std::string op = name.substr(7);
    const std::string text = ethosu::disassembleCommand(c, product);
    Node node = makeNode(op, fmt::format("command {}", c.index), "npu", group);
    node.attrs.emplace_back("command", text);
    node.attrs.emplace_back("accelerator", std::string(model.accelerator.name));
    for (auto& setting : settings) node.attrs.push_back(std::move(setting));
    settings.clear();
    const std::size_t n = b.add(std::move(node));
    auto read = [&](std::string_view region, std::string_view base, std::string_view extent) {
      if (std::optional<std::string> at = state.key(region, base)) {
        b.consume(keyPrefix + *at, n, *at, state.extent(extent), group);
      }
    };
    if (op == "CONV" || op == "DEPTHWISE" || op == "POOL" || op == "ELEMENTWISE") {
      read("NPU_SET_IFM_REGION", "NPU_SET_IFM_BASE0", "IFM");
      const bool unary = text.find("mode=LRELU") != std::string::npos ||
                         text.find("mode=ABS") != std::string::npos ||
                         text.find("mode=CLZ") != std::string::npos;
      if (op == "ELEMENTWISE" && !unary) read("NPU_SET_IFM2_REGION", "NPU_SET_IFM2_BASE0", "IFM2");
      if (std::optional<std::string> at = state.key("NPU_SET_OFM_REGION", "NPU_SET_OFM_BASE0")) {
        b.produce(keyPrefix + *at, n, *at, state.extent("OFM"));
      }
    } else if (op == "DMA_START") {
      std::optional<std::string> src = state.key("NPU_SET_DMA0_SRC_REGION", "NPU_SET_DMA0_SRC");
      if (src && b.produced(keyPrefix + *src)) b.consume(keyPrefix + *src, n, *src, "", group);
      if (std::optional<std::string> dst = state.key("NPU_SET_DMA0_DST_REGION", "NPU_SET_DMA0_DST")) {
        b.produce(keyPrefix + *dst, n, *dst, "");
      }
    }
  }
  for (std::size_t i = 0; i < model.outputs.size(); ++i) {
    b.output(keyPrefix + ioKey(model.outputs[i]), fmt::format("output {}", i), ioType(model.outputs[i]),
             group);
  }
  b.graph().notes.push_back(
      fmt::format("{}Ethos-U command stream ({}): NPU operations joined through the "
                  "addresses they read and write",
                  group.empty() ? "" : group + ": ", model.accelerator.name));
  return {};
}

Status addPte(Builder& b, std::span<const std::uint8_t> bytes, const std::string& path) {
  OPENVGF_ASSIGN_OR_RETURN(pte::Program program, withContext(pte::readProgram(bytes), path));
  b.graph().format = "ExecuTorch program";
  for (std::size_t p = 0; p < program.plans.size(); ++p) {
    const pte::ExecutionPlan& plan = program.plans[p];
    for (std::size_t d = 0; d < plan.delegates.size(); ++d) {
      const pte::Delegate& delegate = plan.delegates[d];
      const std::string group = fmt::format("plan '{}' delegate {} ({})", plan.name, d, delegate.backendId);
      if (delegate.kind == pte::PayloadKind::Vgf) {
        Result<vgf::File> file = vgf::decode(delegate.payload);
        if (file) {
          addVgf(b, *file, path, group);
          continue;
        }
        b.graph().notes.push_back(fmt::format("{}: VGF not decoded: {}", group, file.error().message()));
      } else if (delegate.kind == pte::PayloadKind::VelaBinStream) {
        Status added = addEthosU(b, delegate.payload, path, group);
        if (added) continue;
        b.graph().notes.push_back(
            fmt::format("{}: Ethos-U stream not decoded: {}", group, added.error().message()));
      } else {
        b.graph().notes.push_back(fmt::format("{}: a {} payload of {} bytes, not drawn", group,
                                              pte::toString(delegate.kind), delegate.payload.size()));
      }
    }
  }
  return {};
}

}  // namespace

Result<Graph> buildGraph(const std::string& path) {
  OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  Graph graph;
  graph.title = path;
  Builder b(graph);
  const FileKind kind = detectFileKind(file.bytes());
  switch (kind) {
    case FileKind::Tosa: OPENVGF_TRY(addTosaFile(b, file.bytes(), path)); break;
    case FileKind::Vgf: {
      Result<vgf::File> decoded = withContext(vgf::decode(file.bytes()), path);
      if (!decoded) return Unexpected(std::move(decoded).error());
      graph.format =
          fmt::format("VGF {}.{}.{}", decoded->version.major, decoded->version.minor, decoded->version.patch);
      addVgf(b, *decoded, path, "");
      break;
    }
    case FileKind::Pte: OPENVGF_TRY(addPte(b, file.bytes(), path)); break;
    case FileKind::EthosU:
      graph.format = "Ethos-U command stream";
      OPENVGF_TRY(addEthosU(b, file.bytes(), path, ""));
      break;
    default:
      return invalidInput("{}: expected a .tosa, .vgf, .pte or Ethos-U command stream, got {}", path,
                          describeFile(file.bytes()));
  }
  return graph;
}

}  // namespace openvgf::api::view
