// SPDX-License-Identifier: Apache-2.0
// Validation of a vgf::File for execution (see model.h).
#include "runner/model.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "runner/formats.h"

namespace openvgf::runner {
namespace {

using vgf::ResourceCategory;

std::string_view categoryName(ResourceCategory c) {
  switch (c) {
    case ResourceCategory::Input: return "INPUT";
    case ResourceCategory::Output: return "OUTPUT";
    case ResourceCategory::Intermediate: return "INTERMEDIATE";
    case ResourceCategory::Constant: return "CONSTANT";
  }
  return "UNKNOWN";
}

// Largest tensor accepted before any device limit: keeps every byte count far from overflow.
constexpr std::uint64_t kMaxTensorBytes = 1ull << 48;

Result<ResourceInfo> checkResource(const vgf::Resource& r, std::uint32_t index) {
  ResourceInfo info;
  info.category = r.category;
  info.vkFormat = r.vkFormat;
  info.aliasGroup = r.aliasGroup;
  std::string where = fmt::format("resources[{}]", index);
  if (r.category != ResourceCategory::Constant && r.descriptorType != vgf::kDescriptorTypeStorageBuffer) {
    if (r.descriptorType == vgf::kDescriptorTypeTensorArm) {
      return unsupported("{}: expected a STORAGE_BUFFER resource, got TENSOR_ARM (needs VK_ARM_tensors, which "
                         "openvgf does not use; convert the model with `openvgf convert`)",
                         where);
    }
    return unsupported("{}: expected a STORAGE_BUFFER resource (descriptor type 7), got descriptor type {}", where,
                       r.descriptorType);
  }
  std::uint32_t elementBytes = storageElementBytes(r.vkFormat);
  if (elementBytes == 0) {
    return unsupported("{}: expected a tensor format openvgf knows, got {}", where, formatShortName(r.vkFormat));
  }
  std::uint64_t count = 1;
  for (std::size_t d = 0; d < r.shape.size(); ++d) {
    std::int64_t dim = r.shape[d];
    if (dim < 1) {
      return unsupported("{}: shape[{}]: expected a static dimension >= 1, got {}", where, d,
                         dim == std::numeric_limits<std::int64_t>::min() ? std::string("dynamic")
                                                                         : std::to_string(dim));
    }
    if (static_cast<std::uint64_t>(dim) > kMaxTensorBytes / count) {
      return unsupported("{}: expected at most {} bytes, got a larger shape", where, kMaxTensorBytes);
    }
    count *= static_cast<std::uint64_t>(dim);
  }
  if (count > kMaxTensorBytes / elementBytes) {
    return unsupported("{}: expected at most {} bytes, got a larger shape", where, kMaxTensorBytes);
  }
  info.bytes = count * elementBytes;
  info.shape.assign(r.shape.begin(), r.shape.end());
  if (!r.strides.empty()) {
    // Packed row-major strides are fine; anything else is a layout openvgf does not bind.
    std::int64_t expected = elementBytes;
    for (std::size_t d = r.shape.size(); d-- > 0;) {
      if (d >= r.strides.size() || r.strides[d] != expected) {
        return unsupported("{}: expected packed (empty or row-major) strides, got a different stride at dim {}",
                           where, d);
      }
      expected *= r.shape[d];
    }
  }
  return info;
}

}  // namespace

Result<Model> Model::create(const vgf::File& file, std::string source) {
  Model model;
  model.source_ = std::move(source);
  const std::string& src = model.source_;
  auto fail = [&](Error error) { return Unexpected(std::move(error).addContext(src)); };

  // GRAPH segments first: for a VGF made for Arm's data-graph extension that is the message
  // that explains everything else (its TENSOR_ARM resources, its GRAPH modules).
  for (std::size_t s = 0; s < file.segments.size(); ++s) {
    if (file.segments[s].type != vgf::ModuleType::Compute) {
      return fail(Error(ErrorKind::Unsupported,
                        fmt::format("segments[{}] '{}': expected a COMPUTE segment, got a GRAPH segment: running it "
                                    "needs Arm's data-graph extension VK_ARM_data_graph, which openvgf does not use; "
                                    "convert the TOSA model with `openvgf convert` to get COMPUTE segments",
                                    s, file.segments[s].name)));
    }
  }
  for (std::uint32_t i = 0; i < file.resources.size(); ++i) {
    Result<ResourceInfo> info = checkResource(file.resources[i], i);
    if (!info) return fail(std::move(info).error());
    model.resources_.push_back(std::move(*info));
  }
  const std::uint32_t resourceCount = static_cast<std::uint32_t>(model.resources_.size());

  // Constants: each payload fills exactly one CONSTANT resource.
  for (std::uint32_t c = 0; c < file.constants.size(); ++c) {
    const vgf::Constant& constant = file.constants[c];
    std::string where = fmt::format("constants[{}]", c);
    if (constant.mrtIndex >= resourceCount) {
      return fail(Error(ErrorKind::InvalidInput, fmt::format("{}: mrt_index: expected < {}, got {}", where,
                                                             resourceCount, constant.mrtIndex)));
    }
    ResourceInfo& r = model.resources_[constant.mrtIndex];
    if (r.category != ResourceCategory::Constant) {
      return fail(Error(ErrorKind::InvalidInput,
                        fmt::format("{}: mrt_index {}: expected a CONSTANT resource, got {}", where,
                                    constant.mrtIndex, categoryName(r.category))));
    }
    if (constant.sparsityDimension != -1) {
      return fail(Error(ErrorKind::Unsupported, fmt::format("{}: expected a dense constant (sparsity -1), got "
                                                            "sparsity dimension {}",
                                                            where, constant.sparsityDimension)));
    }
    if (constant.data.size() != r.bytes) {
      return fail(Error(ErrorKind::InvalidInput,
                        fmt::format("{}: expected {} bytes for resources[{}] ({} {}), got {}", where, r.bytes,
                                    constant.mrtIndex, formatShortName(r.vkFormat), tosa::shapeToString(r.shape),
                                    constant.data.size())));
    }
    if (r.constantIndex) {
      return fail(Error(ErrorKind::InvalidInput, fmt::format("{}: resources[{}] already has constants[{}]", where,
                                                             constant.mrtIndex, *r.constantIndex)));
    }
    r.constantIndex = c;
    model.constants_.push_back(constant.data);
  }

  // Model interface.
  auto interface = [&](const std::vector<vgf::BindingSlot>& slots, const std::vector<std::string>& names,
                       const char* kind, ResourceCategory expected,
                       std::vector<TensorInfo>& out) -> Status {
    for (std::size_t i = 0; i < slots.size(); ++i) {
      std::string where = fmt::format("{}s[{}]", kind, i);
      std::uint32_t mrt = slots[i].mrtIndex;
      if (mrt >= resourceCount) {
        return invalidInput("{}: mrt_index: expected < {}, got {}", where, resourceCount, mrt);
      }
      ResourceInfo& r = model.resources_[mrt];
      // An output may also be an intermediate read by later segments; an input must be an INPUT.
      bool ok = r.category == expected ||
                (expected == ResourceCategory::Output && r.category == ResourceCategory::Intermediate);
      if (!ok) {
        return invalidInput("{}: resources[{}]: expected category {}, got {}", where, mrt, categoryName(expected),
                            categoryName(r.category));
      }
      std::optional<tosa::DType> dtype = dtypeForFormat(r.vkFormat);
      if (!dtype) {
        return unsupported("{}: resources[{}]: expected a format with a TOSA type, got {}", where, mrt,
                           formatShortName(r.vkFormat));
      }
      TensorInfo t;
      t.name = i < names.size() && !names[i].empty() ? names[i] : fmt::format("{}_{}", kind, i);
      t.mrtIndex = mrt;
      t.vkFormat = r.vkFormat;
      t.dtype = *dtype;
      t.shape = r.shape;
      t.bytes = r.bytes;
      r.used = true;
      for (const TensorInfo& other : out) {
        if (other.name == t.name) return invalidInput("{}: expected a unique name, got '{}' twice", where, t.name);
      }
      out.push_back(std::move(t));
    }
    return {};
  };
  if (Status s = interface(file.inputs, file.inputNames, "input", ResourceCategory::Input, model.inputs_); !s) {
    return fail(std::move(s).error());
  }
  if (Status s = interface(file.outputs, file.outputNames, "output", ResourceCategory::Output, model.outputs_); !s) {
    return fail(std::move(s).error());
  }
  if (model.outputs_.empty()) {
    return fail(Error(ErrorKind::InvalidInput, "model sequence: expected at least one output, got none"));
  }

  // Segments and the modules they use.
  if (file.segments.empty()) {
    return fail(Error(ErrorKind::InvalidInput, "model sequence: expected at least one segment, got none"));
  }
  model.modules_.resize(file.modules.size());
  std::vector<bool> moduleChecked(file.modules.size(), false);
  for (std::size_t s = 0; s < file.segments.size(); ++s) {
    const vgf::Segment& seg = file.segments[s];
    std::string where = fmt::format("segments[{}] '{}'", s, seg.name);
    auto segFail = [&](ErrorKind kind, std::string message) {
      return fail(Error(kind, fmt::format("{}: {}", where, message)));
    };
    if (seg.moduleIndex >= file.modules.size()) {
      return segFail(ErrorKind::InvalidInput,
                     fmt::format("module_index: expected < {}, got {}", file.modules.size(), seg.moduleIndex));
    }
    const vgf::Module& module = file.modules[seg.moduleIndex];
    if (!moduleChecked[seg.moduleIndex]) {
      std::string mwhere = fmt::format("modules[{}] '{}'", seg.moduleIndex, module.name);
      if (module.type != vgf::ModuleType::Compute) {
        return segFail(ErrorKind::Unsupported, fmt::format("{}: expected a COMPUTE module, got a GRAPH module "
                                                           "(needs VK_ARM_data_graph)",
                                                           mwhere));
      }
      if (!module.hasCode || module.codeKind != vgf::CodeKind::Spirv || module.spirv.empty()) {
        return segFail(ErrorKind::Unsupported,
                       fmt::format("{}: expected embedded SPIR-V code, got {}", mwhere,
                                   !module.hasCode ? "no code"
                                   : module.codeKind == vgf::CodeKind::Glsl ? "GLSL source"
                                   : module.codeKind == vgf::CodeKind::Hlsl ? "HLSL source"
                                                                            : "an empty module"));
      }
      Result<vulkan::FeatureSet> features = vulkan::requiredFeatures(module.spirv);
      if (!features) return segFail(features.error().kind(), fmt::format("{}: {}", mwhere, features.error().message()));
      ModuleInfo& info = model.modules_[seg.moduleIndex];
      info.name = module.name;
      info.entryPoint = module.entryPoint.empty() ? "main" : module.entryPoint;
      info.spirv = module.spirv;
      info.features = *features;
      info.subgroupOperations = *vulkan::requiredSubgroupOperations(module.spirv);
      info.roundingModeRte = *vulkan::requiredRoundingModeRte(module.spirv);
      info.firstSegment = seg.name;
      moduleChecked[seg.moduleIndex] = true;
    }
    SegmentInfo info;
    info.name = seg.name.empty() ? fmt::format("segment_{}", s) : seg.name;
    info.moduleIndex = seg.moduleIndex;
    if (!seg.dispatchShape) {
      return segFail(ErrorKind::InvalidInput, "dispatch_shape: expected workgroup counts, got none");
    }
    for (int d = 0; d < 3; ++d) {
      if ((*seg.dispatchShape)[d] == 0) {
        return segFail(ErrorKind::InvalidInput,
                       fmt::format("dispatch_shape[{}]: expected a workgroup count >= 1, got 0", d));
      }
    }
    info.dispatch = *seg.dispatchShape;
    if (!seg.pushConstantRanges.empty()) {
      return segFail(ErrorKind::Unsupported, "push_constant_ranges: expected none (openvgf compiles parameters into "
                                             "the SPIR-V), got some");
    }
    auto listed = [](const std::vector<vgf::BindingSlot>& slots, std::uint32_t mrt) {
      return std::any_of(slots.begin(), slots.end(), [&](const vgf::BindingSlot& b) { return b.mrtIndex == mrt; });
    };
    for (std::size_t position = 0; position < seg.setInfos.size(); ++position) {
      const vgf::DescriptorSetInfo& set = seg.setInfos[position];
      std::uint32_t setNumber = set.setIndex == vgf::kUnset ? static_cast<std::uint32_t>(position) : set.setIndex;
      if (setNumber >= 32) {
        return segFail(ErrorKind::InvalidInput,
                       fmt::format("set_infos[{}]: expected a set index < 32, got {}", position, setNumber));
      }
      for (std::size_t b = 0; b < set.bindings.size(); ++b) {
        const vgf::BindingSlot& slot = set.bindings[b];
        std::string bwhere = fmt::format("set_infos[{}].bindings[{}]", position, b);
        if (slot.mrtIndex >= resourceCount) {
          return segFail(ErrorKind::InvalidInput,
                         fmt::format("{}: mrt_index: expected < {}, got {}", bwhere, resourceCount, slot.mrtIndex));
        }
        ResourceInfo& r = model.resources_[slot.mrtIndex];
        if (r.category == ResourceCategory::Constant && !r.constantIndex) {
          return segFail(ErrorKind::InvalidInput,
                         fmt::format("{}: resources[{}] is a CONSTANT without a payload in the constant section",
                                     bwhere, slot.mrtIndex));
        }
        bool reads = listed(seg.inputs, slot.mrtIndex);
        bool writes = listed(seg.outputs, slot.mrtIndex);
        if (!reads && !writes) {
          // Not declared either way: constants and model inputs can only be read; anything
          // else is treated as read and written so no hazard is missed.
          bool readOnly = r.category == ResourceCategory::Constant || r.category == ResourceCategory::Input;
          reads = true;
          writes = !readOnly;
        }
        if (writes && (r.category == ResourceCategory::Constant || r.category == ResourceCategory::Input)) {
          return segFail(ErrorKind::InvalidInput,
                         fmt::format("{}: resources[{}]: expected a writable (OUTPUT or INTERMEDIATE) resource "
                                     "for a segment output, got {}",
                                     bwhere, slot.mrtIndex, categoryName(r.category)));
        }
        for (const BindingInfo& other : info.bindings) {
          if (other.set == setNumber && other.binding == slot.binding) {
            return segFail(ErrorKind::InvalidInput, fmt::format("{}: expected a unique (set {}, binding {}), got it "
                                                                "twice",
                                                                bwhere, setNumber, slot.binding));
          }
        }
        r.used = true;
        info.bindings.push_back({setNumber, slot.binding, slot.mrtIndex,
                                 reads && writes ? Access::ReadWrite : writes ? Access::Write : Access::Read});
      }
    }
    std::sort(info.bindings.begin(), info.bindings.end(), [](const BindingInfo& a, const BindingInfo& b) {
      return a.set != b.set ? a.set < b.set : a.binding < b.binding;
    });
    model.segments_.push_back(std::move(info));
  }
  return model;
}

std::optional<std::size_t> Model::findInput(std::string_view name) const {
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> Model::findOutput(std::string_view name) const {
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i].name == name) return i;
  }
  return std::nullopt;
}

vulkan::FeatureSet Model::requiredFeatures() const {
  vulkan::FeatureSet set;
  for (const ModuleInfo& m : modules_) set |= m.features;
  return set;
}

std::string Model::describeTensor(std::uint32_t mrtIndex) const {
  for (const TensorInfo& t : inputs_) {
    if (t.mrtIndex == mrtIndex) return fmt::format("input '{}' (resources[{}])", t.name, mrtIndex);
  }
  for (const TensorInfo& t : outputs_) {
    if (t.mrtIndex == mrtIndex) return fmt::format("output '{}' (resources[{}])", t.name, mrtIndex);
  }
  const ResourceInfo& r = resources_[mrtIndex];
  return fmt::format("{} tensor resources[{}] {} {}",
                     r.category == vgf::ResourceCategory::Constant ? "constant" : "intermediate", mrtIndex,
                     formatShortName(r.vkFormat), tosa::shapeToString(r.shape));
}

Status Model::checkDevice(const vulkan::DeviceSnapshot& device) const {
  for (std::size_t m = 0; m < modules_.size(); ++m) {
    const ModuleInfo& module = modules_[m];
    if (module.spirv.empty()) continue;
    vulkan::FeatureSet missing = module.features.minus(device.features);
    if (!missing.empty()) {
      vulkan::Feature first = vulkan::features(missing).front();
      // Extension features come from `--target native` on another device; say how to get a VGF
      // that runs anywhere.
      std::string_view extension = vulkan::featureExtension(first);
      std::string feature = extension.empty() ? std::string(vulkan::featureName(first))
                                              : fmt::format("{} of {}", vulkan::featureName(first), extension);
      return unsupported("{}: modules[{}] '{}' (segment '{}'): needs SPIR-V capability {} (device feature {}), "
                         "expected {} to support it{}",
                         source_, m, module.name, module.firstSegment, vulkan::capabilityForFeature(first), feature,
                         device.name, extension.empty() ? "" : " (convert with --target portable for any device)");
    }
    std::uint32_t missingOps = module.subgroupOperations & ~device.subgroupOperations;
    if (missingOps != 0) {
      return unsupported("{}: modules[{}] '{}' (segment '{}'): needs subgroup operations {:#x} in compute shaders, "
                         "expected {} to support them (it supports {:#x})",
                         source_, m, module.name, module.firstSegment, missingOps, device.name,
                         device.subgroupOperations);
    }
    std::uint32_t missingRte = module.roundingModeRte & ~device.roundingModeRte;
    if (missingRte != 0) {
      const int width = (missingRte & vulkan::kFloatWidth16) != 0 ? 16 : (missingRte & vulkan::kFloatWidth32) != 0 ? 32 : 64;
      return unsupported("{}: modules[{}] '{}' (segment '{}'): needs execution mode RoundingModeRTE {} (property "
                         "shaderRoundingModeRTEFloat{}), expected {} to support it (convert with --target portable "
                         "for any device)",
                         source_, m, module.name, module.firstSegment, width, width, device.name);
    }
  }
  for (const SegmentInfo& seg : segments_) {
    std::uint32_t sets = seg.bindings.empty() ? 0 : seg.bindings.back().set + 1;
    if (sets > device.limits.maxBoundDescriptorSets) {
      return unsupported("{}: segment '{}': expected at most maxBoundDescriptorSets = {} sets on {}, got {}",
                         source_, seg.name, device.limits.maxBoundDescriptorSets, device.name, sets);
    }
    for (int d = 0; d < 3; ++d) {
      if (seg.dispatch[d] > device.limits.maxComputeWorkGroupCount[d]) {
        return unsupported("{}: segment '{}': dispatch_shape[{}]: expected at most maxComputeWorkGroupCount[{}] = {} "
                           "on {}, got {}",
                           source_, seg.name, d, d, device.limits.maxComputeWorkGroupCount[d], device.name,
                           seg.dispatch[d]);
      }
    }
  }
  for (std::uint32_t i = 0; i < resources_.size(); ++i) {
    const ResourceInfo& r = resources_[i];
    if (!r.used) continue;
    std::uint64_t range = (r.bytes + 3) & ~std::uint64_t{3};
    if (range > device.limits.maxStorageBufferRange) {
      return unsupported("{}: {}: expected at most maxStorageBufferRange = {} bytes per tensor on {}, got {} bytes",
                         source_, describeTensor(i), device.limits.maxStorageBufferRange, device.name, r.bytes);
    }
  }
  return {};
}

Status checkTensor(const TensorInfo& info, tosa::DType dtype, const tosa::Shape& shape, std::size_t bytes) {
  if (dtype != info.dtype) {
    return invalidInput("input '{}': expected dtype {}, got {}", info.name, tosa::toString(info.dtype),
                        tosa::toString(dtype));
  }
  if (shape != info.shape) {
    return invalidInput("input '{}': expected shape {}, got {}", info.name, tosa::shapeToString(info.shape),
                        tosa::shapeToString(shape));
  }
  if (bytes != info.bytes) {
    return invalidInput("input '{}': expected {} bytes of data, got {}", info.name, info.bytes, bytes);
  }
  return {};
}

}  // namespace openvgf::runner
