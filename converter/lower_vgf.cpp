// SPDX-License-Identifier: Apache-2.0
// GRAPH segments -> COMPUTE segments (see lower_vgf.h). The Splicer copies the parts of the
// input file that stay (model interface, resources the segments pass to each other, COMPUTE
// segments) into a new vgf::Builder and inserts the converter's output for each GRAPH run:
// its model inputs and outputs become the run's resources, its intermediates, constants,
// modules and segments are appended with fresh alias groups.
#include "converter/lower_vgf.h"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "common/cache_dir.h"
#include "common/cache_entry.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "converter/targets/fingerprint.h"
#include "shaders/library.h"
#include "vgf/builder.h"
#include "vgf/decoder.h"
#include "vgf/signless.h"

namespace openvgf::converter {
namespace {

constexpr std::int64_t kDynamic = std::numeric_limits<std::int64_t>::min();

bool isDynamic(const vgf::Resource& r) {
  return !r.hasDescription || std::any_of(r.shape.begin(), r.shape.end(), [](std::int64_t d) { return d == kDynamic; });
}

/// The converter's version for cache keys: its release and every embedded shader source.
std::string converterVersion() {
  static const std::string version = [] {
    Sha256 h;
    h.update(std::string_view(OPENVGF_CONVERTER_VERSION));
    for (const shaders::Source& s : shaders::all()) {
      h.update(s.name);
      h.update(s.text);
    }
    return h.hexDigest();
  }();
  return version;
}

class Splicer {
 public:
  Splicer(const vgf::File& file, const KnownShapes& shapes, std::string_view source)
      : file_(file), shapes_(shapes), source_(source) {}

  Status computeSegment(std::size_t s);
  Status graphRun(const GraphRun& run, const vgf::File& lowered, std::size_t runIndex, std::size_t runCount);
  Result<std::vector<std::uint8_t>> finish();

 private:
  Result<vgf::ResourceId> resource(std::uint32_t mrt);
  Result<vgf::ConstantId> constant(std::uint32_t index);
  std::uint32_t group(std::map<std::uint32_t, std::uint32_t>& groups, std::uint32_t original) {
    if (original == vgf::kUnset) return vgf::kUnset;
    auto [it, inserted] = groups.emplace(original, nextGroup_);
    if (inserted) ++nextGroup_;
    return it->second;
  }
  /// Slots and descriptor sets with every MRT index replaced by `resolve(index)`.
  template <typename Resolve>
  static Result<std::vector<vgf::Slot>> slots(const std::vector<vgf::BindingSlot>& in, Resolve&& resolve) {
    std::vector<vgf::Slot> out;
    for (const vgf::BindingSlot& s : in) {
      OPENVGF_ASSIGN_OR_RETURN(vgf::ResourceId r, resolve(s.mrtIndex));
      out.push_back({s.binding, r});
    }
    return out;
  }
  template <typename Resolve>
  static Result<std::vector<vgf::DescriptorSet>> sets(const std::vector<vgf::DescriptorSetInfo>& in, Resolve&& resolve) {
    std::vector<vgf::DescriptorSet> out;
    for (const vgf::DescriptorSetInfo& info : in) {
      OPENVGF_ASSIGN_OR_RETURN(std::vector<vgf::Slot> bindings, slots(info.bindings, resolve));
      out.push_back({info.setIndex, std::move(bindings)});
    }
    return out;
  }

  const vgf::File& file_;
  const KnownShapes& shapes_;
  std::string_view source_;
  vgf::Builder b_;
  std::map<std::uint32_t, vgf::ResourceId> resources_;   // original MRT index -> new
  std::map<std::uint32_t, vgf::ConstantId> constants_;   // original constant index -> new
  std::map<std::uint32_t, vgf::ModuleId> modules_;       // original module index -> new
  std::map<std::uint32_t, std::uint32_t> groups_;        // original alias group -> new
  std::uint32_t nextGroup_ = 0;
};

Result<vgf::ResourceId> Splicer::resource(std::uint32_t mrt) {
  if (auto it = resources_.find(mrt); it != resources_.end()) return it->second;
  const vgf::Resource& r = file_.resources[mrt];
  std::vector<std::int64_t> shape = r.shape;
  if (isDynamic(r)) {
    auto known = shapes_.find(mrt);
    if (known == shapes_.end()) {
      return invalidInput("{}: resources[{}]: expected its dynamic shape {} to follow from the inputs, got no shape", source_, mrt,
                          tosa::shapeToString(r.shape));
    }
    shape = known->second;
  }
  vgf::ResourceId id;
  if (r.category == vgf::ResourceCategory::Constant) {
    id = b_.addResource(r.category, r.vkFormat, shape);
  } else {
    const bool tensor = r.descriptorType == vgf::kDescriptorTypeTensorArm;
    // The model's inputs and outputs keep the format the file declares (R8_UINT stays R8_UINT,
    // so the values stay unsigned for whoever reads the lowered file); the tensors between
    // segments are the converter's signless ones.
    const bool interface = r.category == vgf::ResourceCategory::Input || r.category == vgf::ResourceCategory::Output;
    id = b_.addResource(r.category, interface ? r.vkFormat : vgf::signlessFormat(r.vkFormat), shape,
                        r.category == vgf::ResourceCategory::Intermediate ? group(groups_, r.aliasGroup) : vgf::kUnset,
                        tensor ? vgf::kDescriptorTypeStorageBuffer : r.descriptorType);
    if (!r.strides.empty() && !tensor) b_.setStrides(id, r.strides);
  }
  resources_[mrt] = id;
  return id;
}

Result<vgf::ConstantId> Splicer::constant(std::uint32_t index) {
  if (auto it = constants_.find(index); it != constants_.end()) return it->second;
  const vgf::Constant& c = file_.constants[index];
  OPENVGF_ASSIGN_OR_RETURN(vgf::ResourceId r, resource(c.mrtIndex));
  const vgf::ConstantId id = b_.addConstant(r, c.data, c.sparsityDimension);
  constants_[index] = id;
  return id;
}

Status Splicer::computeSegment(std::size_t s) {
  const vgf::Segment& seg = file_.segments[s];
  if (modules_.count(seg.moduleIndex) == 0) {
    const vgf::Module& m = file_.modules[seg.moduleIndex];
    if (m.codeKind == vgf::CodeKind::Glsl || m.codeKind == vgf::CodeKind::Hlsl) {
      modules_[seg.moduleIndex] = b_.addSourceModule(m.name, m.entryPoint, m.codeKind, m.source);
    } else {
      modules_[seg.moduleIndex] = b_.addModule(m.name, m.entryPoint,
                                               m.hasCode ? std::vector<std::uint32_t>(m.spirv.begin(), m.spirv.end())
                                                         : std::vector<std::uint32_t>{});
    }
  }
  auto resolve = [this](std::uint32_t mrt) { return resource(mrt); };
  OPENVGF_ASSIGN_OR_RETURN(std::vector<vgf::DescriptorSet> descriptorSets, sets(seg.setInfos, resolve));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<vgf::Slot> inputs, slots(seg.inputs, resolve));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<vgf::Slot> outputs, slots(seg.outputs, resolve));
  std::vector<vgf::ConstantId> constants;
  for (std::uint32_t c : seg.constants) {
    OPENVGF_ASSIGN_OR_RETURN(vgf::ConstantId id, constant(c));
    constants.push_back(id);
  }
  const vgf::SegmentId id = b_.addSegment(seg.name, modules_.at(seg.moduleIndex), std::move(descriptorSets), std::move(inputs),
                                          std::move(outputs), std::move(constants),
                                          seg.dispatchShape.value_or(std::array<std::uint32_t, 3>{0, 0, 0}));
  if (!seg.pushConstantRanges.empty()) b_.setPushConstantRanges(id, seg.pushConstantRanges);
  return {};
}

Status Splicer::graphRun(const GraphRun& run, const vgf::File& lowered, std::size_t runIndex, std::size_t runCount) {
  const tosa::Block& block = *run.graph.mainBlock();
  std::map<std::uint32_t, vgf::ResourceId> map;  // lowered MRT index -> new
  auto bindInterface = [&](const std::vector<vgf::BindingSlot>& interface, const std::vector<std::string>& names,
                           const std::vector<std::string>& graphNames, const std::vector<std::uint32_t>& mrts) -> Status {
    for (std::size_t j = 0; j < interface.size(); ++j) {
      const auto at = std::find(graphNames.begin(), graphNames.end(), j < names.size() ? names[j] : std::string());
      if (at == graphNames.end()) return internalError("lowered VGF: interface tensor {} is not a graph input or output", j);
      OPENVGF_ASSIGN_OR_RETURN(vgf::ResourceId r, resource(mrts[static_cast<std::size_t>(at - graphNames.begin())]));
      map[interface[j].mrtIndex] = r;
    }
    return {};
  };
  OPENVGF_TRY(bindInterface(lowered.inputs, lowered.inputNames, block.inputs, run.inputs));
  OPENVGF_TRY(bindInterface(lowered.outputs, lowered.outputNames, block.outputs, run.outputs));
  std::map<std::uint32_t, std::uint32_t> groups;
  for (std::uint32_t i = 0; i < lowered.resources.size(); ++i) {
    if (map.count(i) != 0) continue;
    const vgf::Resource& r = lowered.resources[i];
    map[i] = b_.addResource(r.category, r.vkFormat, r.shape,
                            r.category == vgf::ResourceCategory::Intermediate ? group(groups, r.aliasGroup) : vgf::kUnset,
                            r.descriptorType);
  }
  std::vector<vgf::ConstantId> constants;
  for (const vgf::Constant& c : lowered.constants) constants.push_back(b_.addConstant(map.at(c.mrtIndex), c.data, c.sparsityDimension));
  std::vector<vgf::ModuleId> modules;
  for (const vgf::Module& m : lowered.modules) {
    modules.push_back(b_.addModule(m.name, m.entryPoint, std::vector<std::uint32_t>(m.spirv.begin(), m.spirv.end())));
  }
  auto resolve = [&map](std::uint32_t mrt) -> Result<vgf::ResourceId> { return map.at(mrt); };
  for (const vgf::Segment& seg : lowered.segments) {
    OPENVGF_ASSIGN_OR_RETURN(std::vector<vgf::DescriptorSet> descriptorSets, sets(seg.setInfos, resolve));
    OPENVGF_ASSIGN_OR_RETURN(std::vector<vgf::Slot> inputs, slots(seg.inputs, resolve));
    OPENVGF_ASSIGN_OR_RETURN(std::vector<vgf::Slot> outputs, slots(seg.outputs, resolve));
    std::vector<vgf::ConstantId> used;
    for (std::uint32_t c : seg.constants) used.push_back(constants.at(c));
    b_.addSegment(runCount > 1 ? fmt::format("graph{}_{}", runIndex, seg.name) : seg.name, modules.at(seg.moduleIndex),
                  std::move(descriptorSets), std::move(inputs), std::move(outputs), std::move(used),
                  seg.dispatchShape.value_or(std::array<std::uint32_t, 3>{1, 1, 1}));
  }
  return {};
}

Result<std::vector<std::uint8_t>> Splicer::finish() {
  auto resolve = [this](std::uint32_t mrt) { return resource(mrt); };
  OPENVGF_ASSIGN_OR_RETURN(std::vector<vgf::Slot> inputs, slots(file_.inputs, resolve));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<vgf::Slot> outputs, slots(file_.outputs, resolve));
  b_.setInputs(std::move(inputs), file_.inputNames);
  b_.setOutputs(std::move(outputs), file_.outputNames);
  auto bytes = b_.finish();
  if (!bytes) return Unexpected(std::move(bytes).error().addContext(fmt::format("{}: lowered VGF", source_)));
  return bytes;
}

Result<std::string> cacheKey(std::span<const std::uint8_t> bytes, const vgf::File& file, const KnownShapes& shapes,
                             const ConvertOptions& options) {
  OPENVGF_ASSIGN_OR_RETURN(Target target, resolveTarget(options));
  Sha256 h;
  h.update(std::string_view("openvgf lowered VGF 2\n"));  // 2: the model interface keeps R8/R16/R32_UINT
  h.update(bytes);
  for (const vgf::BindingSlot& s : file.inputs) {
    auto it = shapes.find(s.mrtIndex);
    h.update(fmt::format("\ninput {} {}", s.mrtIndex, it != shapes.end() ? tosa::shapeToString(it->second) : std::string("static")));
  }
  h.update("\ntarget " + fingerprint(target));
  if (options.passes) {
    for (const std::string& p : *options.passes) h.update("\npass " + p);
  }
  h.update("\nconverter " + converterVersion());
  return h.hexDigest();
}

}  // namespace

bool hasGraphSegments(const vgf::File& file) {
  return std::any_of(file.segments.begin(), file.segments.end(),
                     [](const vgf::Segment& s) { return s.type == vgf::ModuleType::Graph; });
}

Result<KnownShapes> modelInputShapes(const vgf::File& file, const std::vector<tosa::Shape>& given, std::string_view source) {
  KnownShapes shapes;
  for (std::size_t i = 0; i < file.inputs.size(); ++i) {
    const std::uint32_t mrt = file.inputs[i].mrtIndex;
    const vgf::Resource& r = file.resources[mrt];
    const std::string name = resourceTensorName(file, mrt);
    if (i >= given.size()) {
      if (isDynamic(r)) return invalidInput("{}: input '{}': its shape is dynamic; expected an input array to fix it", source, name);
      continue;
    }
    const tosa::Shape& shape = given[i];
    bool fits = !r.hasDescription || r.shape.size() == shape.size();
    for (std::size_t d = 0; fits && r.hasDescription && d < shape.size(); ++d) fits = r.shape[d] == kDynamic || r.shape[d] == shape[d];
    if (!fits) {
      std::vector<std::string> dims;
      for (std::int64_t d : r.shape) dims.push_back(d == kDynamic ? "?" : std::to_string(d));
      return invalidInput("{}: input '{}': expected shape [{}] (?: any), got {}", source, name, fmt::join(dims, ","),
                          tosa::shapeToString(shape));
    }
    if (isDynamic(r)) shapes[mrt] = shape;
  }
  return shapes;
}

std::vector<bool> unsignedTensors(const vgf::File& file, const std::vector<vgf::BindingSlot>& slots) {
  std::vector<bool> out;
  for (const vgf::BindingSlot& s : slots) {
    const std::uint32_t f = file.resources[s.mrtIndex].vkFormat;
    out.push_back(f != vgf::signlessFormat(f));
  }
  return out;
}

Result<LoweredModel> lowerGraphSegments(std::span<const std::uint8_t> bytes, const vgf::File& file,
                                        const KnownShapes& inputShapes, std::string_view source, const LowerOptions& options) {
  LoweredModel model;
  const std::vector<std::vector<std::size_t>> runs = graphRuns(file);
  model.graphRuns = runs.size();
  // With no cache folder (neither XDG_CACHE_HOME nor HOME set) nothing is cached.
  const std::filesystem::path cacheDir = options.cacheDir.empty() && !cacheRoot().empty() ? cacheRoot() / "lowered"
                                                                                          : options.cacheDir;
  const bool cacheable = options.useCache && !options.convert.customTarget && !cacheDir.empty();
  std::filesystem::path cacheFile;
  if (cacheable) {
    OPENVGF_ASSIGN_OR_RETURN(model.cacheKey, cacheKey(bytes, file, inputShapes, options.convert));
    cacheFile = cacheDir / (model.cacheKey + ".vgf");
    {
      if (auto cached = readCacheEntry(cacheFile, "lowered/" + model.cacheKey)) {
        model.vgf = std::move(*cached);
        if (Result<vgf::File> decoded = vgf::decode(model.vgf)) {
          model.cacheHit = true;
          model.cacheFile = cacheFile;
          model.kernels = decoded->segments.size();
          model.file = std::move(*decoded);
          return model;
        }
        model.vgf.clear();
      }
      // A damaged entry is lowered again and overwritten.
    }
  }
  if (options.cacheOnly) return model;
  KnownShapes shapes = inputShapes;
  Splicer splicer(file, shapes, source);
  std::size_t runIndex = 0;
  for (std::size_t s = 0; s < file.segments.size();) {
    if (file.segments[s].type != vgf::ModuleType::Graph) {
      OPENVGF_TRY(splicer.computeSegment(s));
      ++s;
      continue;
    }
    const std::vector<std::size_t>& segments = runs[runIndex];
    OPENVGF_ASSIGN_OR_RETURN(GraphRun run, decodeGraphRun(file, segments, shapes, source));
    auto converted = convert(run.graph, options.convert);
    if (!converted) {
      return Unexpected(std::move(converted).error().addContext(
          fmt::format("{}: segments[{}..{}] (lowering the TOSA graph)", source, segments.front(), segments.back())));
    }
    auto lowered = vgf::decode(converted->vgf);
    if (!lowered) return Unexpected(std::move(lowered).error().addContext("lowered graph"));
    OPENVGF_TRY(splicer.graphRun(run, *lowered, runIndex, runs.size()));
    s = segments.back() + 1;
    ++runIndex;
  }
  OPENVGF_ASSIGN_OR_RETURN(model.vgf, splicer.finish());
  OPENVGF_ASSIGN_OR_RETURN(model.file, withContext(vgf::decode(model.vgf), "lowered VGF"));
  model.kernels = model.file->segments.size();
  if (cacheable) {
    model.cacheFile = cacheFile;
    // A cache that cannot be written only costs time on the next run.
    (void)writeCacheEntry(cacheFile, "lowered/" + model.cacheKey, model.vgf);
  }
  return model;
}

}  // namespace openvgf::converter
