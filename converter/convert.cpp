// SPDX-License-Identifier: Apache-2.0
// convert(): the pipeline driver and the VGF emission (specs/vgf.md, DESIGN.md "The VGF
// that openvgf writes"): one COMPUTE segment per kernel, STORAGE_BUFFER resources with
// exact vk_format and TOSA shape, CONSTANT resources for constants, alias groups from the
// memory plan, model input/output names = TOSA graph input/output names.
#include "converter/convert.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/suggest.h"
#include "converter/kernels/common.h"
#include "converter/kernels/registry.h"
#include "converter/memory_plan.h"
#include "converter/passes/passes.h"
#include "converter/shader_compiler.h"
#include "converter/targets/target.h"
#include "tosa/packing.h"
#include "vgf/spirv_info.h"
#include "vgf/builder.h"

namespace openvgf::converter {

std::vector<std::string> spirvCapabilities(std::span<const std::uint32_t> module) {
  return vgf::spirvRequirements(module).capabilities;
}

namespace {

// Per module, the tensor every kernel that runs it binds to each binding (vk_format and element
// count), recorded in the module for the runner to check segments against
// (vgf::recordBindingExtents). Kernels that share a module but bind tensors of different sizes
// to a binding leave that binding unrecorded: no one extent is the module's.
std::vector<std::vector<vgf::SpirvBindingExtent>> bindingExtents(const Plan& plan, const CompileResult& compiled) {
  std::vector<std::map<std::uint32_t, std::optional<vgf::SpirvBindingExtent>>> seen(compiled.modules.size());
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    const PlanKernel& kernel = plan.kernels[k];
    auto& bindings = seen[compiled.moduleOf[k]];
    for (std::size_t b = 0; b < kernel.bindings.size(); ++b) {
      const PlanTensor& t = plan.tensors[kernel.bindings[b]];
      const vgf::SpirvBindingExtent extent{0, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(vkFormatOf(t.dtype)),
                                           static_cast<std::uint64_t>(tosa::elementCount(t.shape))};
      auto [it, first] = bindings.emplace(extent.binding, extent);
      if (!first && it->second != extent) it->second.reset();
    }
  }
  std::vector<std::vector<vgf::SpirvBindingExtent>> extents(seen.size());
  for (std::size_t m = 0; m < seen.size(); ++m) {
    for (const auto& [binding, extent] : seen[m]) {
      if (extent) extents[m].push_back(*extent);
    }
  }
  return extents;
}

// Per module, the batch grids of the kernels that run it (vgf::recordBatchGrids), one per
// dispatch. Kernels that share a module and a dispatch must agree, a kernel without a grid
// included; otherwise that dispatch gets none: no one record describes its segments.
std::vector<std::vector<vgf::SpirvBatchGrid>> batchGrids(const Plan& plan, const CompileResult& compiled) {
  using Dispatch = std::array<std::uint32_t, 3>;
  std::vector<std::map<Dispatch, std::optional<vgf::SpirvBatchGrid>>> seen(compiled.modules.size());
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    const PlanKernel& kernel = plan.kernels[k];
    auto [it, first] = seen[compiled.moduleOf[k]].emplace(kernel.grid, kernel.batchGrid);
    if (!first && it->second != kernel.batchGrid) it->second.reset();
  }
  std::vector<std::vector<vgf::SpirvBatchGrid>> grids(seen.size());
  for (std::size_t m = 0; m < seen.size(); ++m) {
    for (const auto& [dispatch, grid] : seen[m]) {
      if (grid) grids[m].push_back(*grid);
    }
  }
  return grids;
}

Result<ConvertedModel> emit(const Plan& plan, const MemoryPlan& memory, CompileResult& compiled, const Program& program) {
  ConvertedModel model;
  vgf::Builder builder;

  std::set<std::string> capabilities;
  std::vector<vgf::ModuleId> modules;
  std::vector<std::string> moduleNames(compiled.modules.size());
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    const std::size_t m = compiled.moduleOf[k];
    if (moduleNames[m].empty()) {
      const std::string& tmpl = plan.kernels[k].shader.templateName;
      moduleNames[m] = fmt::format("{}_{}", tmpl.substr(0, tmpl.find('.')), m);
    }
  }
  const auto extents = bindingExtents(plan, compiled);
  const auto grids = batchGrids(plan, compiled);
  for (std::size_t m = 0; m < compiled.modules.size(); ++m) {
    for (auto& cap : spirvCapabilities(compiled.modules[m])) capabilities.insert(cap);
    modules.push_back(builder.addModule(
        moduleNames[m], "main",
        vgf::recordBatchGrids(vgf::recordBindingExtents(compiled.modules[m], extents[m]), grids[m])));
  }
  // Resources in plan order; every constant gets its CONST00 payload.
  std::vector<vgf::ResourceId> resources;
  std::vector<std::optional<vgf::ConstantId>> constants(plan.tensors.size());
  for (std::size_t id = 0; id < plan.tensors.size(); ++id) {
    const PlanTensor& t = plan.tensors[id];
    const bool isConstant = t.category == vgf::ResourceCategory::Constant;
    resources.push_back(builder.addResource(t.category, vkFormatOf(t.dtype), t.shape,
                                            isConstant ? vgf::kUnset : memory.aliasGroup[id]));
    if (isConstant) {
      model.stats.constantBytes += t.data.size();
      constants[id] = builder.addConstant(resources.back(), std::span<const std::uint8_t>(t.data));
    }
  }
  std::map<std::string, int> nameUses;  // segment names stay unique (inlined branches repeat indexes)
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    const PlanKernel& kernel = plan.kernels[k];
    const int use = nameUses[kernel.name]++;
    std::string segmentName = use == 0 ? kernel.name : fmt::format("{}_{}", kernel.name, use);
    vgf::DescriptorSet set;
    set.setIndex = 0;
    std::vector<vgf::Slot> reads, writes;
    std::vector<vgf::ConstantId> used;
    for (std::size_t b = 0; b < kernel.bindings.size(); ++b) {
      const std::size_t id = kernel.bindings[b];
      vgf::Slot slot{static_cast<std::uint32_t>(b), resources[id]};
      set.bindings.push_back(slot);
      (kernel.writes[b] ? writes : reads).push_back(slot);
      if (constants[id] && std::find(used.begin(), used.end(), *constants[id]) == used.end()) used.push_back(*constants[id]);
    }
    builder.addSegment(std::move(segmentName), modules[compiled.moduleOf[k]], {std::move(set)}, std::move(reads), std::move(writes),
                       std::move(used), kernel.grid);
  }
  std::vector<vgf::Slot> inputs, outputs;
  for (std::size_t i = 0; i < plan.inputs.size(); ++i) inputs.push_back({static_cast<std::uint32_t>(i), resources[plan.inputs[i]]});
  for (std::size_t i = 0; i < plan.outputs.size(); ++i) outputs.push_back({static_cast<std::uint32_t>(i), resources[plan.outputs[i]]});
  builder.setInputs(std::move(inputs), program.inputs);
  builder.setOutputs(std::move(outputs), program.outputNames);
  OPENVGF_ASSIGN_OR_RETURN(model.vgf, builder.finish());

  model.stats.kernels = plan.kernels.size();
  model.stats.splitKGemms = static_cast<std::size_t>(
      std::count_if(plan.kernels.begin(), plan.kernels.end(), [](const PlanKernel& k) { return k.splitKPartial; }));
  model.stats.uniqueModules = modules.size();
  model.stats.peakLiveBytes = memory.peakLiveBytes;
  model.stats.unaliasedBytes = memory.unaliasedBytes;
  model.stats.plannedBytes = memory.plannedBytes;
  model.stats.aliasGroups = memory.groups;
  model.stats.cacheHits = compiled.cacheHits;
  model.stats.capabilities.assign(capabilities.begin(), capabilities.end());
  return model;
}

}  // namespace

namespace {

// Every tensor must fit one Vulkan storage buffer (vgf::kMaxTensorBytes): the shaders index
// with 32-bit integers and no device binds more. Checked on the graph before any work, and on
// the plan, whose split-K partial sums may be larger than any graph tensor.
Status checkTensorSize(std::string_view what, tosa::DType dtype, const tosa::Shape& shape) {
  std::optional<std::int64_t> count = tosa::checkedElementCount(shape);
  const std::uint64_t elementBytes = tosa::hostElementBytes(dtype);
  if (!count || static_cast<std::uint64_t>(*count) > vgf::kMaxTensorBytes / std::max<std::uint64_t>(elementBytes, 1)) {
    return unsupported("{} {} {}: {} elements of {} bytes: expected at most {} bytes per tensor (one Vulkan storage "
                       "buffer)",
                       what, tosa::toString(dtype), tosa::shapeToString(shape),
                       count ? std::to_string(*count) : std::string("more than 2^63"), elementBytes,
                       vgf::kMaxTensorBytes);
  }
  return {};
}

}  // namespace

namespace {

// ConvertOptions::precision on the chosen target.
Status applyPrecision(Target& target, const std::string& precision) {
  static const std::vector<std::pair<std::string, Precision>> kValues{
      {"fp16", Precision::Fp16},     {"bf16", Precision::Bf16},         {"fp16x3", Precision::Fp16x3},
      {"bf16x3", Precision::Bf16x3}, {"fp32-bf16", Precision::Fp32Bf16}};
  if (precision == "fp32") return {};
  const auto value = std::find_if(kValues.begin(), kValues.end(), [&](const auto& v) { return v.first == precision; });
  if (value == kValues.end()) {
    return invalidInput("--precision: expected fp32, fp16, bf16, fp16x3, bf16x3 or fp32-bf16, got '{}'{}", precision,
                        didYouMean(precision, {"fp32", "fp16", "bf16", "fp16x3", "bf16x3", "fp32-bf16"}));
  }
  const Precision chosen = value->second;
  const bool bf16 = chosen == Precision::Bf16 || chosen == Precision::Bf16x3 || chosen == Precision::Fp32Bf16;
  const CoopMatTypes wanted = bf16 ? CoopMatTypes::Bf16xBf16ToF32 : CoopMatTypes::F16xF16ToF32;
  // bf16 matrices exist only in the KHR encoding.
  const bool encodable = bf16 ? target.tuning.coopMatKhrEncoding : target.subgroupMatrices();
  const bool fragments =
      encodable && std::any_of(target.caps.coopMatShapes.begin(), target.caps.coopMatShapes.end(),
                               [&](const CoopMatShape& s) { return s.types == wanted; });
  if (!fragments) {
    return unsupported("--precision {}: expected a target with {} cooperative matrices (--target native on a GPU that "
                       "has {}), got {}",
                       precision, bf16 ? "bf16" : "fp16",
                       bf16 ? "VK_KHR_cooperative_matrix and VK_KHR_shader_bfloat16"
                            : "VK_NV_cooperative_matrix or VK_KHR_cooperative_matrix",
                       describeTarget(target));
  }
  target.precision = chosen;
  return {};
}

}  // namespace

// The VGF interface names each model input and output once: a block that lists one twice
// would make a file the runner refuses.
Status checkInterfaceNames(const tosa::Graph& graph) {
  const tosa::Block* main = graph.mainBlock();
  if (main == nullptr) return {};
  for (const auto* list : {&main->inputs, &main->outputs}) {
    std::set<std::string> seen;
    for (const std::string& name : *list) {
      if (!seen.insert(name).second) {
        return invalidInput("main block: {} '{}' is listed twice; a model's inputs and outputs need distinct names",
                            list == &main->inputs ? "input" : "output", name);
      }
    }
  }
  return {};
}

Result<Target> resolveTarget(const ConvertOptions& options) {
  Target target;
  if (options.customTarget) {
    target = *options.customTarget;
    OPENVGF_TRY(verifyTarget(target));
  } else {
    OPENVGF_ASSIGN_OR_RETURN(target, targetByName(options.target, options.device ? &*options.device : nullptr,
                                                  options.tuning));
  }
  OPENVGF_TRY(applyPrecision(target, options.precision));
  // The portable target converted for a CPU device takes the CPU entry of the tuning table
  // (register blocks and split-K as llvmpipe runs them fastest, no spirv-opt): its features
  // stay portable, only speed choices change, and only where the model runs on a CPU. The
  // native target has its device's entry already (and maybe OPENVGF_TUNING overrides on it).
  if (options.forCpuDevice && target.name == "portable") {
    // The CPU entry's core without shared memory needs the device's subgroup size, and moves
    // 64-bit words between its lanes as doubles where the device has them.
    if (options.device) {
      target.caps.subgroupSize = options.device->subgroupSize;
      target.caps.float64 = options.device->shaderFloat64;
    }
    applyTuningTable(target, DeviceClass::Cpu);
  }
  if (options.forCpuDevice) target.tuning.spirvOptimizer = false;
  return target;
}

Result<ConvertedModel> convert(const tosa::Graph& graph, const ConvertOptions& options) {
  OPENVGF_TRY(checkInterfaceNames(graph));
  for (const tosa::Region& region : graph.regions) {
    for (const tosa::Block& block : region.blocks) {
      for (const tosa::Tensor& t : block.tensors) {
        if (t.dtype == tosa::DType::Shape || t.isUnranked) continue;
        OPENVGF_TRY(checkTensorSize(fmt::format("tensor '{}'", t.name), t.dtype, t.shape));
      }
    }
  }
  OPENVGF_ASSIGN_OR_RETURN(Target target, resolveTarget(options));
  OPENVGF_ASSIGN_OR_RETURN(Program program, makeProgram(graph));
  passes::PassOptions passOptions;
  passOptions.enabled = options.passes;
  passOptions.verifyEach = passes::kVerifyEachByDefault || options.verifyEach;
  passOptions.afterPass = options.afterPass;
  OPENVGF_TRY(passes::runPasses(program, passOptions));
  OPENVGF_ASSIGN_OR_RETURN(Plan plan, lowerProgram(program, target));
  for (std::size_t id = 0; id < plan.tensors.size(); ++id) {
    const PlanTensor& t = plan.tensors[id];
    OPENVGF_TRY(checkTensorSize(t.name.empty() ? fmt::format("converter tensor {}", id) : fmt::format("tensor '{}'", t.name),
                                t.dtype, t.shape));
  }
  std::vector<ShaderInstance> instances;
  instances.reserve(plan.kernels.size());
  for (const PlanKernel& k : plan.kernels) instances.push_back(k.shader);
  CompileOptions compileOptions;
  compileOptions.useCache = options.useCache;
  compileOptions.cacheDir = options.cacheDir;
  compileOptions.threads = options.threads;
  compileOptions.optimize = target.tuning.spirvOptimizer;
  compileOptions.progress = options.progress;
  OPENVGF_ASSIGN_OR_RETURN(CompileResult compiled, compileShaders(instances, compileOptions));
  MemoryPlan memory = planMemory(plan);
  OPENVGF_ASSIGN_OR_RETURN(ConvertedModel model, emit(plan, memory, compiled, program));
  model.stats.target = describeTarget(target);
  return model;
}

}  // namespace openvgf::converter
