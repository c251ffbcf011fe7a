// SPDX-License-Identifier: Apache-2.0
// Validation of a vgf::File for execution (see model.h).
#include "runner/model.h"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <spirv-tools/libspirv.hpp>

#include "runner/coopmat_view.h"
#include "runner/formats.h"
#include "vgf/signless.h"

namespace openvgf::runner {
namespace {

using vgf::ResourceCategory;

// Private memory (Private and Function variables) one invocation of a module may declare: 100
// times what openvgf's kernels use, far below what would make a driver reserve gigabytes.
constexpr std::uint64_t kMaxPrivateBytes = std::uint64_t{64} << 10;

std::string_view categoryName(ResourceCategory c) {
  switch (c) {
    case ResourceCategory::Input: return "INPUT";
    case ResourceCategory::Output: return "OUTPUT";
    case ResourceCategory::Intermediate: return "INTERMEDIATE";
    case ResourceCategory::Constant: return "CONSTANT";
  }
  return "UNKNOWN";
}

std::uint64_t roundUp4(std::uint64_t bytes) { return (bytes + 3) & ~std::uint64_t{3}; }

bool isFloatFormat(std::uint32_t vkFormat) {
  return vkFormat == static_cast<std::uint32_t>(vgf::VkFormatValue::R16Sfloat) ||
         vkFormat == static_cast<std::uint32_t>(vgf::VkFormatValue::R32Sfloat);
}

std::string_view scalarKindName(vgf::SpirvScalarKind kind) {
  switch (kind) {
    case vgf::SpirvScalarKind::SignedInt: return "int";
    case vgf::SpirvScalarKind::UnsignedInt: return "uint";
    case vgf::SpirvScalarKind::Float: return "float";
    case vgf::SpirvScalarKind::Other: break;
  }
  return "other";
}

// Whether a shader's view of a buffer (its trailing array's element) fits a tensor of this
// format: the element itself, a vector of it (vec2 twiddles over R32_SFLOAT), or 32-bit
// unsigned words of packed 8/16-bit data (uvec4 loads of int8 tensors). A float view needs a
// float tensor of its width; integer views of float data (bit patterns) are allowed.
bool elementsCompatible(const vgf::SpirvDescriptor& d, std::uint32_t vkFormat) {
  const std::uint32_t stride = d.elementStride, bytes = storageElementBytes(vkFormat);
  if (stride == 0) return true;  // no array: only the static size matters
  if (d.componentKind == vgf::SpirvScalarKind::Float && (!isFloatFormat(vkFormat) || d.componentBytes != bytes)) {
    return false;
  }
  if (stride == bytes) return true;
  if (stride % bytes == 0 && d.componentBytes == bytes) return true;
  // Unsigned-integer components are raw bits: a 32-bit word of narrower elements (packed 8- and
  // 16-bit tensors), or a 64-bit word of two 32-bit ones (the CPU GEMM core's 8-float loads).
  return d.componentKind == vgf::SpirvScalarKind::UnsignedInt && d.componentBytes >= 4 && d.componentBytes > bytes &&
         d.componentBytes % bytes == 0 && stride % d.componentBytes == 0;
}

// The compute built-ins' types, which Vulkan fixes (spec §15.9) and Debian's spirv-val does
// not check for every one: a fuzzed module that declared its uvec3 GlobalInvocationId
// variable as LocalInvocationIndex passed spirv-val and crashed lavapipe's compiler
// (tests/data/vgf/fuzz_builtin_vector_as_index.vgf).
Status checkBuiltinInputs(const vgf::SpirvModule& reflected) {
  struct Shape {
    std::string_view name;
    std::uint32_t components;
  };
  static const std::map<std::uint32_t, Shape> kShapes = {
      {24, {"NumWorkgroups", 3}},      {25, {"WorkgroupSize", 3}},
      {26, {"WorkgroupId", 3}},        {27, {"LocalInvocationId", 3}},
      {28, {"GlobalInvocationId", 3}}, {29, {"LocalInvocationIndex", 1}},
      {36, {"SubgroupSize", 1}},       {38, {"NumSubgroups", 1}},
      {40, {"SubgroupId", 1}},         {41, {"SubgroupLocalInvocationId", 1}},
      {4416, {"SubgroupEqMask", 4}},   {4417, {"SubgroupGeMask", 4}},
      {4418, {"SubgroupGtMask", 4}},   {4419, {"SubgroupLeMask", 4}},
      {4420, {"SubgroupLtMask", 4}},
  };
  for (const vgf::SpirvBuiltinInput& b : reflected.builtinInputs) {
    auto it = kShapes.find(b.builtIn);
    if (it == kShapes.end()) continue;  // spirv-val's and the driver's to judge
    const Shape& want = it->second;
    if (b.components != want.components || b.bits != 32 || !b.integer) {
      const std::string got = b.components == 0 ? std::string("an array or aggregate")
                              : b.components == 1
                                  ? fmt::format("a {}-bit {} scalar", b.bits, b.integer ? "integer" : "float")
                                  : fmt::format("a {}-component {}-bit {} vector", b.components, b.bits,
                                                b.integer ? "integer" : "float");
      const std::string expected = want.components == 1
                                       ? std::string("a 32-bit integer scalar")
                                       : fmt::format("a {}-component 32-bit integer vector", want.components);
      return invalidInput("variable %{}: BuiltIn {}: expected {}, got {}", b.id, want.name, expected, got);
    }
  }
  return {};
}

// spirv-val with the environment the runner targets (Vulkan 1.3, its minimum device version).
// Debian's SPIRV-Tools (2023.1) predates SPV_KHR_cooperative_matrix and rejects its capability,
// so such a module is validated through its NV encoding (runner/coopmat_view.h), and one that
// uses what NV cannot say is refused rather than passed to the driver unchecked.
Status validateSpirv(std::span<const std::uint32_t> words, const vgf::SpirvModule& reflected) {
  constexpr std::uint32_t kCapabilityCooperativeMatrixKhr = 6022;
  std::optional<std::vector<std::uint32_t>> view;
  const bool khr = std::find(reflected.capabilities.begin(), reflected.capabilities.end(),
                             kCapabilityCooperativeMatrixKhr) != reflected.capabilities.end();
  if (khr) {
    view = cooperativeMatrixNvView(words);
    if (!view) {
      return unsupported("expected KHR cooperative matrices this runner can validate (row- or column-major "
                         "loads and stores with a stride, no saturating accumulation), got others");
    }
  }
  std::span<const std::uint32_t> checked = view ? std::span<const std::uint32_t>(*view) : words;
  std::string first;
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_3);
  tools.SetMessageConsumer([&first](spv_message_level_t, const char*, const spv_position_t& position,
                                    const char* message) {
    if (first.empty()) first = fmt::format("{} (word {})", message, position.index);
  });
  if (!tools.Validate(checked.data(), checked.size())) {
    return invalidInput("expected SPIR-V that spirv-val accepts for Vulkan 1.3{}, got: {}",
                        view ? " (KHR cooperative matrices checked in their NV encoding)" : "",
                        first.empty() ? std::string("an invalid module") : first);
  }
  // spirv-val leaves the header's reserved schema word alone; drivers refuse a module whose
  // schema is not 0 (lavapipe: VK_ERROR_UNKNOWN at pipeline creation).
  if (words[4] != 0) return invalidInput("header word 4 (schema): expected 0, got {}", words[4]);
  OPENVGF_TRY(checkBuiltinInputs(reflected));
  return {};
}

// Invocations of a workgroup share memory only through barriers that make their stores
// visible: Workgroup or Subgroup execution, a memory scope at least as wide, and semantics that
// order WorkgroupMemory. spirv-val accepts a barrier that orders none of it; lavapipe then lets
// invocations read shared memory before others wrote it, so outputs depend on what the memory
// held (the mutation campaign's one silent wrong answer, tests/data/vgf/fuzz_barrier_orders_no_shared_memory.vgf).
Status checkBarriers(const vgf::SpirvModule& spirv, const vgf::SpirvEntryPoint& entry) {
  if (!entry.workgroupVariables) return {};
  auto shown = [](const std::optional<std::uint32_t>& v, bool hex) {
    return !v ? std::string("not a constant") : hex ? fmt::format("{:#x}", *v) : std::to_string(*v);
  };
  for (const vgf::SpirvControlBarrier& b : spirv.controlBarriers) {
    // spirv-val (Vulkan) already limits the execution scope to Workgroup or Subgroup.
    const bool memory = b.memoryScope && (*b.memoryScope == vgf::kSpirvScopeCrossDevice ||
                                          *b.memoryScope == vgf::kSpirvScopeDevice ||
                                          *b.memoryScope == vgf::kSpirvScopeWorkgroup ||
                                          *b.memoryScope == vgf::kSpirvScopeQueueFamily ||
                                          (*b.memoryScope == vgf::kSpirvScopeSubgroup &&
                                           b.executionScope == vgf::kSpirvScopeSubgroup));
    const bool semantics = b.semantics && (*b.semantics & vgf::kSpirvSemanticsWorkgroupMemory) != 0 &&
                           (*b.semantics & vgf::kSpirvSemanticsOrdering) != 0;
    if (!memory || !semantics) {
      return invalidInput(
          "OpControlBarrier at word {}: expected a barrier that makes shared memory visible to the workgroup "
          "(Workgroup or Subgroup execution scope, a memory scope at least as wide, semantics with WorkgroupMemory "
          "and an ordering), got execution scope {}, memory scope {}, semantics {}; entry point '{}' declares "
          "Workgroup variables",
          b.word, shown(b.executionScope, false), shown(b.memoryScope, false), shown(b.semantics, true), entry.name);
    }
  }
  return {};
}

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
    if (static_cast<std::uint64_t>(dim) > vgf::kMaxTensorBytes / count) {
      return unsupported("{}: shape {}: expected at most {} bytes per tensor, got more", where,
                         tosa::shapeToString(r.shape), vgf::kMaxTensorBytes);
    }
    count *= static_cast<std::uint64_t>(dim);
  }
  if (count > vgf::kMaxTensorBytes / elementBytes) {
    return unsupported("{}: shape {}: expected at most {} bytes per tensor, got {} elements of {} bytes", where,
                       tosa::shapeToString(r.shape), vgf::kMaxTensorBytes, count, elementBytes);
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


// Drivers reserve private memory for every invocation they may keep resident, lavapipe for
// every invocation of a workgroup as it builds the pipeline: a fuzzed array length (int
// [35332][35332] in a Function variable) made it take 24 GB and 50 s for one pipeline.
// openvgf's own kernels use at most 640 bytes (the zoo, portable and native).
Status checkBarriersAndPrivateMemory(const vgf::SpirvModule& spirv, const vgf::SpirvEntryPoint& entry) {
  OPENVGF_TRY(checkBarriers(spirv, entry));
  if (spirv.privateBytes > kMaxPrivateBytes) {
    return unsupported(
        "expected at most {} bytes of private memory per invocation (Private and Function "
        "variables), got {}",
        kMaxPrivateBytes, spirv.privateBytes);
  }
  return {};
}

}  // namespace

Status checkComputeModule(std::span<const std::uint32_t> words, const vgf::SpirvModule& reflected,
                          const vgf::SpirvEntryPoint& entry) {
  OPENVGF_TRY(validateSpirv(words, reflected));
  return checkBarriersAndPrivateMemory(reflected, entry);
}

Result<Model> Model::create(const vgf::File& file, std::string source) {
  Model model;
  model.source_ = std::move(source);
  auto fail = [&](Error error) { return Unexpected(std::move(error).addContext(model.source_)); };
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
  if (Status s = model.checkResources(file); !s) return fail(std::move(s).error());
  if (Status s = model.attachConstants(file); !s) return fail(std::move(s).error());
  if (Status s = model.checkInterface(file); !s) return fail(std::move(s).error());
  if (file.segments.empty()) {
    return fail(Error(ErrorKind::InvalidInput, "model sequence: expected at least one segment, got none"));
  }
  model.modules_.resize(file.modules.size());
  model.moduleDescriptors_.resize(file.modules.size());
  model.moduleExtents_.resize(file.modules.size());
  model.moduleGrids_.resize(file.modules.size());
  for (std::size_t s = 0; s < file.segments.size(); ++s) {
    if (Status status = model.checkSegment(file, s); !status) return fail(std::move(status).error());
  }
  if (Status s = model.checkDataflow(); !s) return fail(std::move(s).error());
  if (Status s = model.checkRunWork(); !s) return fail(std::move(s).error());
  return model;
}

Status Model::checkResources(const vgf::File& file) {
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < file.resources.size(); ++i) {
    OPENVGF_ASSIGN_OR_RETURN(ResourceInfo info, checkResource(file.resources[i], i));
    total += info.bytes;  // at most 2^32 per tensor and far fewer than 2^31 tensors: no overflow
    if (total > kMaxModelBytes) {
      return unsupported("resources[{}]: expected at most {} bytes of tensors in a model, got more", i,
                         kMaxModelBytes);
    }
    resources_.push_back(std::move(info));
  }
  return {};
}

// Constants: each payload fills exactly one CONSTANT resource.
Status Model::attachConstants(const vgf::File& file) {
  const std::size_t resourceCount = resources_.size();
  for (std::uint32_t c = 0; c < file.constants.size(); ++c) {
    const vgf::Constant& constant = file.constants[c];
    std::string where = fmt::format("constants[{}]", c);
    if (constant.mrtIndex >= resourceCount) {
      return invalidInput("{}: mrt_index: expected < {}, got {}", where, resourceCount, constant.mrtIndex);
    }
    ResourceInfo& r = resources_[constant.mrtIndex];
    if (r.category != ResourceCategory::Constant) {
      return invalidInput("{}: mrt_index {}: expected a CONSTANT resource, got {}", where, constant.mrtIndex,
                          categoryName(r.category));
    }
    if (constant.sparsityDimension != -1) {
      return unsupported("{}: expected a dense constant (sparsity -1), got sparsity dimension {}", where,
                         constant.sparsityDimension);
    }
    if (constant.data.size() != r.bytes) {
      return invalidInput("{}: expected {} bytes for resources[{}] ({} {}), got {}", where, r.bytes,
                          constant.mrtIndex, formatShortName(r.vkFormat), tosa::shapeToString(r.shape),
                          constant.data.size());
    }
    if (r.constantIndex) {
      return invalidInput("{}: resources[{}] already has constants[{}]", where, constant.mrtIndex, *r.constantIndex);
    }
    r.constantIndex = c;
    constants_.push_back(constant.data);
  }
  return {};
}

// The model's inputs and outputs.
Status Model::checkInterface(const vgf::File& file) {
  const std::size_t resourceCount = resources_.size();
  auto side = [&](const std::vector<vgf::BindingSlot>& slots, const std::vector<std::string>& names, const char* kind,
                  ResourceCategory expected, std::vector<TensorInfo>& out) -> Status {
    for (std::size_t i = 0; i < slots.size(); ++i) {
      std::string where = fmt::format("{}s[{}]", kind, i);
      std::uint32_t mrt = slots[i].mrtIndex;
      if (mrt >= resourceCount) return invalidInput("{}: mrt_index: expected < {}, got {}", where, resourceCount, mrt);
      ResourceInfo& r = resources_[mrt];
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
  OPENVGF_TRY(side(file.inputs, file.inputNames, "input", ResourceCategory::Input, inputs_));
  OPENVGF_TRY(side(file.outputs, file.outputNames, "output", ResourceCategory::Output, outputs_));
  if (outputs_.empty()) return invalidInput("model sequence: expected at least one output, got none");
  // Each INPUT and OUTPUT resource is the model's, exactly once: a slot pointed elsewhere would
  // otherwise leave the real output unread (or an input unwritten) and return another tensor.
  std::vector<int> named(resourceCount, 0);
  for (const TensorInfo& t : inputs_) ++named[t.mrtIndex];
  for (const TensorInfo& t : outputs_) ++named[t.mrtIndex];
  for (std::size_t i = 0; i < resourceCount; ++i) {
    const ResourceCategory c = resources_[i].category;
    if (named[i] > 1) {
      return invalidInput("model sequence: resources[{}] is named by {} input/output slots; expected one", i, named[i]);
    }
    if ((c == ResourceCategory::Input || c == ResourceCategory::Output) && named[i] == 0) {
      return invalidInput("resources[{}]: an {} resource that no model {} slot names", i, categoryName(c),
                          c == ResourceCategory::Input ? "input" : "output");
    }
  }
  return {};
}

Status Model::checkModule(const vgf::File& file, std::uint32_t index, const std::string& segmentName) {
  const vgf::Module& module = file.modules[index];
  if (module.type != vgf::ModuleType::Compute) {
    return unsupported("expected a COMPUTE module, got a GRAPH module (needs VK_ARM_data_graph)");
  }
  if (!module.hasCode || module.codeKind != vgf::CodeKind::Spirv || module.spirv.empty()) {
    return unsupported("expected embedded SPIR-V code, got {}",
                       !module.hasCode                          ? "no code"
                       : module.codeKind == vgf::CodeKind::Glsl ? "GLSL source"
                       : module.codeKind == vgf::CodeKind::Hlsl ? "HLSL source"
                                                                : "an empty module");
  }
  OPENVGF_ASSIGN_OR_RETURN(vgf::SpirvModule spirv, vgf::reflectSpirv(module.spirv));
  OPENVGF_TRY(validateSpirv(module.spirv, spirv));
  const std::string entryName = module.entryPoint.empty() ? "main" : module.entryPoint;
  const vgf::SpirvEntryPoint* entry = spirv.findEntryPoint(entryName);
  if (entry == nullptr || entry->executionModel != vgf::kSpirvGlCompute) {
    return invalidInput("entry_point: expected a GLCompute entry point '{}' in the SPIR-V, got {}", entryName,
                        entry == nullptr ? "none of that name" : "another execution model");
  }
  const auto& size = entry->localSize;
  if (size[0] == 0 || size[1] == 0 || size[2] == 0) {
    return invalidInput("entry point '{}': expected a workgroup size of at least 1x1x1 (LocalSize, LocalSizeId or "
                        "WorkgroupSize), got {}x{}x{}",
                        entryName, size[0], size[1], size[2]);
  }
  OPENVGF_TRY(checkBarriersAndPrivateMemory(spirv, *entry));
  if (entry->pushConstants) {
    return unsupported("entry point '{}': expected no push constants (openvgf compiles parameters into the SPIR-V), "
                       "got a PushConstant variable",
                       entryName);
  }
  for (const vgf::SpirvDescriptor& d : entry->descriptors) {
    if (!d.hasBinding) {
      return invalidInput("variable %{}: expected DescriptorSet and Binding decorations, got none", d.id);
    }
    std::string what = fmt::format("set {} binding {} (variable %{})", d.set, d.binding, d.id);
    if (d.kind != vgf::SpirvDescriptorKind::StorageBuffer) {
      return unsupported("{}: expected a storage buffer (openvgf binds every tensor as STORAGE_BUFFER), got {}", what,
                         d.kind == vgf::SpirvDescriptorKind::UniformBuffer ? "a uniform buffer"
                                                                           : "another kind of descriptor");
    }
    if (d.descriptorCount != 1) {
      return unsupported("{}: expected one descriptor, got an array of {}", what,
                         d.descriptorCount == 0 ? std::string("runtime size") : std::to_string(d.descriptorCount));
    }
  }
  // The bit values of vgf's and vulkan's float-width masks are the same (16, 32, 64 -> bit 0, 1, 2).
  static_assert(vgf::kSpirvWidth16 == vulkan::kFloatWidth16 && vgf::kSpirvWidth64 == vulkan::kFloatWidth64);
  OPENVGF_ASSIGN_OR_RETURN(vulkan::ShaderNeeds needs,
                           vulkan::shaderNeeds({.capabilities = spirv.capabilities,
                                                .localSizeId = entry->localSizeId,
                                                .roundingModeRte = entry->roundingModeRteWidths,
                                                .workgroupScopeMatrices = spirv.workgroupScopeMatrices}));
  ModuleInfo& info = modules_[index];
  info.name = module.name;
  info.entryPoint = entryName;
  info.spirv = module.spirv;
  info.features = needs.features;
  info.subgroupOperations = needs.subgroupOperations;
  info.roundingModeRte = needs.roundingModeRte;
  info.localSize = size;
  info.sharedMemoryBytes = entry->workgroupBytes;
  info.firstSegment = segmentName;
  moduleDescriptors_[index] = entry->descriptors;
  OPENVGF_ASSIGN_OR_RETURN(moduleExtents_[index], vgf::bindingExtents(spirv));
  OPENVGF_ASSIGN_OR_RETURN(moduleGrids_[index], vgf::batchGrids(spirv));
  return {};
}

Status Model::checkSegment(const vgf::File& file, std::size_t s) {
  const vgf::Segment& seg = file.segments[s];
  SegmentInfo info;
  info.name = seg.name.empty() ? fmt::format("segment_{}", s) : seg.name;
  auto fail = [&](Error error) { return Unexpected(std::move(error).addContext(fmt::format("segments[{}] '{}'", s, seg.name))); };
  if (seg.moduleIndex >= file.modules.size()) {
    return fail(Error(ErrorKind::InvalidInput, fmt::format("module_index: expected < {}, got {}", file.modules.size(),
                                                           seg.moduleIndex)));
  }
  const std::string moduleWhere = fmt::format("modules[{}] '{}'", seg.moduleIndex, file.modules[seg.moduleIndex].name);
  if (modules_[seg.moduleIndex].spirv.empty()) {
    if (Status status = checkModule(file, seg.moduleIndex, info.name); !status) {
      return fail(std::move(status).error().addContext(moduleWhere));
    }
  }
  info.moduleIndex = seg.moduleIndex;
  if (!seg.dispatchShape) {
    return fail(Error(ErrorKind::InvalidInput, "dispatch_shape: expected workgroup counts, got none"));
  }
  for (int d = 0; d < 3; ++d) {
    if ((*seg.dispatchShape)[d] == 0) {
      return fail(Error(ErrorKind::InvalidInput,
                        fmt::format("dispatch_shape[{}]: expected a workgroup count >= 1, got 0", d)));
    }
  }
  info.dispatch = *seg.dispatchShape;
  if (!seg.pushConstantRanges.empty()) {
    return fail(Error(ErrorKind::Unsupported, "push_constant_ranges: expected none (openvgf compiles parameters into "
                                              "the SPIR-V), got some"));
  }
  if (Status status = collectBindings(seg, info.bindings); !status) return fail(std::move(status).error());
  const std::vector<vgf::SpirvDescriptor>& declared = moduleDescriptors_[seg.moduleIndex];
  for (BindingInfo& b : info.bindings) {
    b.used = std::any_of(declared.begin(), declared.end(), [&](const vgf::SpirvDescriptor& d) {
      return d.used && d.set == b.set && d.binding == b.binding;
    });
  }
  if (Status status = matchInterface(declared, info.bindings, moduleWhere);
      !status) {
    return fail(std::move(status).error());
  }
  if (Status status = checkExtents(seg.moduleIndex, info.bindings, moduleWhere); !status) {
    return fail(std::move(status).error());
  }
  if (Status status = checkWork(info); !status) return fail(std::move(status).error());
  if (Status status = checkBatchGrid(info); !status) return fail(std::move(status).error().addContext(moduleWhere));
  segments_.push_back(std::move(info));
  return {};
}

// The segment's binding slots, each with the access the segment declares for it.
Status Model::collectBindings(const vgf::Segment& seg, std::vector<BindingInfo>& bindings) {
  auto isListed = [](const std::vector<vgf::BindingSlot>& slots, std::uint32_t mrt) {
    return std::any_of(slots.begin(), slots.end(), [&](const vgf::BindingSlot& b) { return b.mrtIndex == mrt; });
  };
  const std::size_t resourceCount = resources_.size();
  for (std::size_t position = 0; position < seg.setInfos.size(); ++position) {
    const vgf::DescriptorSetInfo& set = seg.setInfos[position];
    std::uint32_t setNumber = set.setIndex == vgf::kUnset ? static_cast<std::uint32_t>(position) : set.setIndex;
    if (setNumber >= 32) return invalidInput("set_infos[{}]: expected a set index < 32, got {}", position, setNumber);
    for (std::size_t b = 0; b < set.bindings.size(); ++b) {
      const vgf::BindingSlot& slot = set.bindings[b];
      std::string where = fmt::format("set_infos[{}].bindings[{}]", position, b);
      if (slot.mrtIndex >= resourceCount) {
        return invalidInput("{}: mrt_index: expected < {}, got {}", where, resourceCount, slot.mrtIndex);
      }
      ResourceInfo& r = resources_[slot.mrtIndex];
      if (r.category == ResourceCategory::Constant && !r.constantIndex) {
        return invalidInput("{}: resources[{}] is a CONSTANT without a payload in the constant section", where,
                            slot.mrtIndex);
      }
      bool reads = isListed(seg.inputs, slot.mrtIndex);
      bool writes = isListed(seg.outputs, slot.mrtIndex);
      const bool listed = reads || writes;
      const bool readOnly = r.category == ResourceCategory::Constant || r.category == ResourceCategory::Input;
      if (!listed) {
        // Not declared either way: constants and model inputs can only be read; anything
        // else is treated as read and written so no hazard is missed.
        reads = true;
        writes = !readOnly;
      }
      if (writes && readOnly) {
        return invalidInput("{}: resources[{}]: expected a writable (OUTPUT or INTERMEDIATE) resource for a segment "
                            "output, got {}",
                            where, slot.mrtIndex, categoryName(r.category));
      }
      for (const BindingInfo& other : bindings) {
        if (other.set == setNumber && other.binding == slot.binding) {
          return invalidInput("{}: expected a unique (set {}, binding {}), got it twice", where, setNumber,
                              slot.binding);
        }
      }
      r.used = true;
      bindings.push_back({setNumber, slot.binding, slot.mrtIndex,
                          reads && writes ? Access::ReadWrite : writes ? Access::Write : Access::Read, listed});
    }
  }
  std::sort(bindings.begin(), bindings.end(), [](const BindingInfo& a, const BindingInfo& b) {
    return a.set != b.set ? a.set < b.set : a.binding < b.binding;
  });
  return {};
}

// Work is bounded by data. A compute shader does something useful only where it touches a
// tensor element, and every kernel the converter emits (tiled, split-K partial sums, one
// invocation per element) covers its largest tensor with at most one workgroup per element.
// A dispatch with more workgroups than that can only repeat or skip work; left unchecked a
// 64-element ADD dispatched [65535, 65535, 1] keeps the device busy for half an hour. The
// invocations of the whole run are summed against kMaxRunInvocations in Model::create.
Status Model::checkWork(const SegmentInfo& segment) const {
  // Three 32-bit counts can exceed 64 bits; anything past 2^63 is refused all the same.
  std::uint64_t workgroups = 1;
  for (std::uint32_t count : segment.dispatch) {
    workgroups = workgroups > (std::uint64_t{1} << 63) / count ? std::uint64_t{1} << 63 : workgroups * count;
  }
  std::uint64_t reach = 1;
  std::string largest = "no tensor";
  for (const BindingInfo& b : segment.bindings) {
    if (!b.used) continue;
    const ResourceInfo& r = resources_[b.mrtIndex];
    const std::uint32_t elementBytes = storageElementBytes(r.vkFormat);
    const std::uint64_t elements = elementBytes == 0 ? r.bytes : r.bytes / elementBytes;
    if (elements >= reach) {
      reach = elements;
      largest = describeTensor(b.mrtIndex);
    }
  }
  if (workgroups > reach) {
    return invalidInput("dispatch_shape [{}, {}, {}]: expected at most {} workgroups (one per element of the "
                        "largest tensor the segment binds: {}), got {}",
                        segment.dispatch[0], segment.dispatch[1], segment.dispatch[2], reach, largest, workgroups);
  }
  return {};
}

// The sum over segments of workgroups x workgroup size. Each term is below 2^63 x 2^32 only in
// theory: checkWork holds workgroups to tensor elements (< 2^40), so saturating is enough.
Status Model::checkRunWork() const {
  std::uint64_t total = 0;
  for (const SegmentInfo& seg : segments_) {
    const ModuleInfo& module = modules_[seg.moduleIndex];
    std::uint64_t invocations = std::uint64_t{seg.dispatch[0]} * seg.dispatch[1];
    for (std::uint64_t factor : {std::uint64_t{seg.dispatch[2]}, std::uint64_t{module.localSize[0]},
                                 std::uint64_t{module.localSize[1]}, std::uint64_t{module.localSize[2]}}) {
      invocations = factor != 0 && invocations > kMaxRunInvocations / factor ? kMaxRunInvocations + 1
                                                                             : invocations * factor;
    }
    total = std::min(total + invocations, kMaxRunInvocations + 1);
  }
  if (total > kMaxRunInvocations) {
    return unsupported("segments: expected at most {} shader invocations per run (workgroups x workgroup size, "
                       "summed over segments), got more",
                       kMaxRunInvocations);
  }
  return {};
}

// The module's batch grid for this dispatch, if it has one, becomes the segment's: a runner
// that dispatches a piece of the batch at a time relies on it, so each binding it lists must
// be bound in set 0 to a tensor of as many images (its first dimension), and every binding it
// does not list must only be read.
Status Model::checkBatchGrid(SegmentInfo& segment) const {
  for (const vgf::SpirvBatchGrid& grid : moduleGrids_[segment.moduleIndex]) {
    if (grid.dispatch != segment.dispatch) continue;
    for (std::uint32_t listed : grid.bindings) {
      auto bound = std::find_if(segment.bindings.begin(), segment.bindings.end(),
                                [&](const BindingInfo& b) { return b.set == 0 && b.binding == listed; });
      if (bound == segment.bindings.end()) {
        return invalidInput("batch grid: binding {} is read per image, but the segment does not bind it", listed);
      }
      const ResourceInfo& r = resources_[bound->mrtIndex];
      if (r.shape.empty() || r.shape[0] < 0 || static_cast<std::uint64_t>(r.shape[0]) != grid.images ||
          r.bytes % grid.images != 0) {
        return invalidInput("batch grid: binding {} ({}): expected a tensor of {} images, got shape {}", listed,
                            describeTensor(bound->mrtIndex), grid.images, tosa::shapeToString(r.shape));
      }
    }
    for (const BindingInfo& b : segment.bindings) {
      const bool listed = b.set == 0 && std::binary_search(grid.bindings.begin(), grid.bindings.end(), b.binding);
      if (!listed && b.access != Access::Read) {
        return invalidInput("batch grid: set {} binding {} ({}) is written but not listed as read per image", b.set,
                            b.binding, describeTensor(b.mrtIndex));
      }
    }
    segment.batchGrid = grid;
  }
  return {};
}

// Storage buffers are runtime arrays, so a shader's reach is the sizes compiled into it, which
// the converter records per binding (vgf::bindingExtents). A resource of another size or format
// (a shrunk intermediate, swapped weight and bias bindings, a grown or shrunk output) would
// be read or written out of bounds where robustBufferAccess is off, and computed wrong
// everywhere: each bound tensor must be the one the module was compiled for.
Status Model::checkExtents(std::uint32_t moduleIndex, const std::vector<BindingInfo>& bindings,
                           const std::string& moduleWhere) const {
  for (const vgf::SpirvBindingExtent& e : moduleExtents_[moduleIndex]) {
    auto bound = std::find_if(bindings.begin(), bindings.end(),
                              [&](const BindingInfo& b) { return b.set == e.set && b.binding == e.binding; });
    if (bound == bindings.end()) continue;  // unbound: matchInterface refuses it where the module uses it
    const ResourceInfo& r = resources_[bound->mrtIndex];
    const std::uint32_t elementBytes = storageElementBytes(r.vkFormat);
    const std::uint64_t elements = elementBytes == 0 ? 0 : r.bytes / elementBytes;
    // An unsigned model input or output holds the bytes of the signless tensor the kernel reads.
    if (vgf::signlessFormat(r.vkFormat) != vgf::signlessFormat(e.vkFormat) || elements != e.elements) {
      return invalidInput("set {} binding {} ({}): expected the {} tensor of {} elements that {} was converted for, "
                          "got {} of {} elements",
                          e.set, e.binding, describeTensor(bound->mrtIndex), formatShortName(e.vkFormat), e.elements,
                          moduleWhere, formatShortName(r.vkFormat), elements);
    }
  }
  return {};
}

// Every storage buffer the entry point statically uses is bound, to a resource whose access,
// element size and size the declaration allows. A used variable left unbound is undefined
// behaviour in the driver (a crash at pipeline creation on some); a mismatch of access runs
// without the barriers the data needs; a mismatch of size or format runs with wrong results.
// Bindings the module does not use are ignored, as Vulkan ignores them.
Status Model::matchInterface(const std::vector<vgf::SpirvDescriptor>& declared, const std::vector<BindingInfo>& bindings,
                             const std::string& moduleWhere) const {
  for (const vgf::SpirvDescriptor& d : declared) {
    if (!d.used) continue;
    auto bound = std::find_if(bindings.begin(), bindings.end(),
                              [&](const BindingInfo& b) { return b.set == d.set && b.binding == d.binding; });
    if (bound == bindings.end()) {
      return invalidInput("set {} binding {}: {} uses a storage buffer there (variable %{}), expected the segment to "
                          "bind a tensor to it, got no binding",
                          d.set, d.binding, moduleWhere, d.id);
    }
  }
  for (const BindingInfo& b : bindings) {
    const std::string where = fmt::format("set {} binding {} ({})", b.set, b.binding, describeTensor(b.mrtIndex));
    bool moduleWrites = false, moduleReads = false;
    const ResourceInfo& r = resources_[b.mrtIndex];
    const std::uint32_t elementBytes = storageElementBytes(r.vkFormat);
    const std::uint64_t range = roundUp4(r.bytes);
    for (const vgf::SpirvDescriptor& d : declared) {
      if (d.set != b.set || d.binding != b.binding || !d.used) continue;
      moduleWrites = moduleWrites || d.mayWrite();
      moduleReads = moduleReads || d.mayRead();
      if (!elementsCompatible(d, r.vkFormat)) {
        return invalidInput("{}: expected {} to access {}-byte {} elements ({}), got {}-byte array elements of {}-byte "
                            "{} (variable %{})",
                            where, moduleWhere, elementBytes, isFloatFormat(r.vkFormat) ? "floating-point" : "integer",
                            formatShortName(r.vkFormat), d.elementStride, d.componentBytes,
                            scalarKindName(d.componentKind), d.id);
      }
      if (d.staticBytes > range) {
        return invalidInput("{}: expected a tensor of at least the {} bytes {} declares for its block (variable %{}), "
                            "got {} bytes",
                            where, d.staticBytes, moduleWhere, d.id, r.bytes);
      }
    }
    if (moduleWrites && b.access == Access::Read) {
      const bool readOnly = r.category == ResourceCategory::Constant || r.category == ResourceCategory::Input;
      return invalidInput("{}: expected {} not to write it, {}, got a module that stores to it", where, moduleWhere,
                          readOnly ? "as model inputs and constants are read-only"
                                   : "as the segment lists it in inputs only");
    }
    if (b.listed && b.access != Access::Read && !moduleWrites) {
      return invalidInput("{}: expected {} to write a tensor the segment lists in outputs, got a module that never "
                          "stores to it",
                          where, moduleWhere);
    }
    if (b.listed && b.access == Access::Write && moduleReads) {
      return invalidInput("{}: expected the segment to list a tensor {} loads from in its inputs too, got it in outputs "
                          "only",
                          where, moduleWhere);
    }
  }
  return {};
}

// Data flow over the segment order, per tensor: intermediates are written before they are
// read, outputs are written, and tensors of one alias group are never live at the same time
// (the runner gives each group one memory range, so an overlap would silently corrupt a live
// tensor). A write to another tensor of the same group does not count: the memory plan reuses
// a group's range for unrelated values, so a VGF with the writer of one tensor removed would
// otherwise read whatever an earlier tensor of the group left there.
//
// One exception, for VGFs lowered from Arm's mixed files: two resources of one group that are
// two views of one value (a GRAPH segment's tensor and a COMPUTE segment's buffer). They are
// recognised by what only views do: the read tensor is never written itself, the tensor of the
// group written last is never read itself, and both have the same bytes.
Status Model::checkDataflow() const {
  const std::size_t n = resources_.size();
  std::vector<std::int64_t> first(n, -1), last(n, -1);
  std::vector<bool> written(n, false), io(n, false), everWritten(n, false), everRead(n, false);
  for (const TensorInfo& t : inputs_) io[t.mrtIndex] = true;
  for (const TensorInfo& t : outputs_) io[t.mrtIndex] = true;
  for (const SegmentInfo& segment : segments_) {
    for (const BindingInfo& b : segment.bindings) {
      if (!b.used) continue;
      if (b.access != Access::Read) everWritten[b.mrtIndex] = true;
      if (b.access != Access::Write) everRead[b.mrtIndex] = true;
    }
  }
  std::map<std::uint32_t, std::uint32_t> lastWriter;  // alias group -> the member written last
  auto viewOfWritten = [&](std::uint32_t index) -> bool {
    const auto it = lastWriter.find(resources_[index].aliasGroup);
    if (it == lastWriter.end() || everWritten[index]) return false;
    return !everRead[it->second] && resources_[it->second].bytes == resources_[index].bytes;
  };
  for (std::size_t s = 0; s < segments_.size(); ++s) {
    for (const BindingInfo& b : segments_[s].bindings) {
      if (!b.used) continue;  // bound but never accessed (e.g. the output of a split-K partial pass)
      const ResourceInfo& r = resources_[b.mrtIndex];
      if (first[b.mrtIndex] < 0) first[b.mrtIndex] = static_cast<std::int64_t>(s);
      if (r.category == ResourceCategory::Intermediate && !io[b.mrtIndex] && b.access == Access::Read &&
          !written[b.mrtIndex] && !viewOfWritten(b.mrtIndex)) {
        const auto writer = lastWriter.find(r.aliasGroup);
        return invalidInput("segments[{}] '{}': set {} binding {}: expected {} to be written by an earlier segment "
                            "before it is read, got a read first{}",
                            s, segments_[s].name, b.set, b.binding, describeTensor(b.mrtIndex),
                            writer == lastWriter.end()
                                ? std::string()
                                : fmt::format(" (its alias group {} holds resources[{}], another tensor, at that point)",
                                              r.aliasGroup, writer->second));
      }
      last[b.mrtIndex] = static_cast<std::int64_t>(s);
      if (b.access != Access::Read) {
        written[b.mrtIndex] = true;
        if (r.aliasGroup != vgf::kUnset) lastWriter[r.aliasGroup] = b.mrtIndex;
      }
    }
  }
  for (const TensorInfo& t : outputs_) {
    if (!written[t.mrtIndex]) {
      return invalidInput("{}: expected a segment to write it, got none", describeTensor(t.mrtIndex));
    }
  }
  std::map<std::uint32_t, std::vector<std::uint32_t>> groups;
  for (std::uint32_t i = 0; i < n; ++i) {
    const ResourceInfo& r = resources_[i];
    if (r.category == ResourceCategory::Intermediate && r.aliasGroup != vgf::kUnset && !io[i] && first[i] >= 0) {
      groups[r.aliasGroup].push_back(i);
    }
  }
  for (auto& [group, members] : groups) {
    std::sort(members.begin(), members.end(), [&](std::uint32_t a, std::uint32_t b) { return first[a] < first[b]; });
    std::uint32_t holder = members.front();  // the member live longest so far
    for (std::size_t k = 1; k < members.size(); ++k) {
      const std::uint32_t m = members[k];
      if (first[m] <= last[holder]) {
        return invalidInput("alias group {}: resources[{}] and resources[{}] are both live at segments[{}] '{}': "
                            "expected tensors of one alias group to have disjoint lifetimes",
                            group, holder, m, first[m], segments_[static_cast<std::size_t>(first[m])].name);
      }
      if (last[m] > last[holder]) holder = m;
    }
  }
  return {};
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
  for (std::size_t m = 0; m < modules_.size(); ++m) {
    const ModuleInfo& module = modules_[m];
    if (module.spirv.empty()) continue;
    std::uint64_t invocations = 1;
    for (int d = 0; d < 3; ++d) {
      if (module.localSize[d] > device.limits.maxComputeWorkGroupSize[d]) {
        return unsupported("{}: modules[{}] '{}' (segment '{}'): workgroup size[{}]: expected at most "
                           "maxComputeWorkGroupSize[{}] = {} on {}, got {}",
                           source_, m, module.name, module.firstSegment, d, d,
                           device.limits.maxComputeWorkGroupSize[d], device.name, module.localSize[d]);
      }
      // Saturate above any 32-bit limit so three 32-bit factors cannot wrap.
      invocations = std::min<std::uint64_t>(invocations * module.localSize[d], std::uint64_t{1} << 33);
    }
    if (invocations > device.limits.maxComputeWorkGroupInvocations) {
      return unsupported("{}: modules[{}] '{}' (segment '{}'): expected at most maxComputeWorkGroupInvocations = {} "
                         "invocations per workgroup on {}, got {}",
                         source_, m, module.name, module.firstSegment, device.limits.maxComputeWorkGroupInvocations,
                         device.name, invocations);
    }
    if (module.sharedMemoryBytes > device.limits.maxComputeSharedMemorySize) {
      return unsupported("{}: modules[{}] '{}' (segment '{}'): expected at most maxComputeSharedMemorySize = {} bytes "
                         "of shared memory on {}, got at least {}",
                         source_, m, module.name, module.firstSegment, device.limits.maxComputeSharedMemorySize,
                         device.name, module.sharedMemoryBytes);
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
