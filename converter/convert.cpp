// SPDX-License-Identifier: Apache-2.0
// convert(): the pipeline driver and the VGF emission (specs/vgf.md, DESIGN.md "The VGF
// that openvgf writes"): one COMPUTE segment per kernel, STORAGE_BUFFER resources with
// exact vk_format and TOSA shape, CONSTANT resources for constants, alias groups from the
// memory plan, model input/output names = TOSA graph input/output names.
#include "converter/convert.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/registry.h"
#include "converter/memory_plan.h"
#include "converter/passes/passes.h"
#include "converter/shader_compiler.h"
#include "converter/targets/target.h"

namespace openvgf::converter {

std::vector<std::string> spirvCapabilities(std::span<const std::uint32_t> module) {
  static const std::map<std::uint32_t, std::string_view> kNames = {
      {1, "Shader"}, {9, "Float16"}, {10, "Float64"}, {11, "Int64"}, {12, "Int64Atomics"}, {22, "Int16"},
      {39, "Int8"}, {61, "GroupNonUniform"}, {62, "GroupNonUniformVote"}, {63, "GroupNonUniformArithmetic"},
      {64, "GroupNonUniformBallot"}, {65, "GroupNonUniformShuffle"}, {66, "GroupNonUniformShuffleRelative"},
      {67, "GroupNonUniformClustered"}, {68, "GroupNonUniformQuad"}, {4433, "StorageBuffer16BitAccess"},
      {4434, "UniformAndStorageBuffer16BitAccess"}, {4448, "StorageBuffer8BitAccess"},
      {4449, "UniformAndStorageBuffer8BitAccess"}, {5345, "VulkanMemoryModel"}, {5357, "CooperativeMatrixNV"},
      {6016, "DotProductInputAll"}, {6017, "DotProductInput4x8Bit"}, {6018, "DotProductInput4x8BitPacked"},
      {6019, "DotProduct"}};
  std::vector<std::string> names;
  std::size_t i = 5;
  while (i < module.size()) {
    const std::uint32_t count = module[i] >> 16, opcode = module[i] & 0xFFFFu;
    if (count == 0 || i + count > module.size()) break;
    if (opcode == 17 && count >= 2) {
      auto it = kNames.find(module[i + 1]);
      names.push_back(it != kNames.end() ? std::string(it->second) : fmt::format("Capability{}", module[i + 1]));
    }
    i += count;
  }
  return names;
}

namespace {

ConvertedModel emit(Plan& plan, const MemoryPlan& memory, CompileResult& compiled, const Program& program) {
  ConvertedModel model;
  vgf::File& file = model.file;
  model.spirv = std::move(compiled.modules);

  // Resources in plan order; constants in first-bound order get CONST00 indexes.
  std::vector<std::uint32_t> constantIndex(plan.tensors.size(), vgf::kUnset);
  for (std::size_t id = 0; id < plan.tensors.size(); ++id) {
    PlanTensor& t = plan.tensors[id];
    vgf::Resource r;
    r.category = t.category;
    r.vkFormat = vkFormatOf(t.dtype);
    r.shape = t.shape;
    if (t.category == vgf::ResourceCategory::Constant) {
      r.descriptorType = vgf::kNoDescriptorType;
      constantIndex[id] = static_cast<std::uint32_t>(model.constants.size());
      model.stats.constantBytes += t.data.size();
      model.constants.push_back(std::move(t.data));
    } else {
      r.descriptorType = vgf::kDescriptorTypeStorageBuffer;
      r.aliasGroup = memory.aliasGroup[id];
    }
    file.resources.push_back(std::move(r));
  }
  for (std::size_t c = 0; c < model.constants.size(); ++c) {
    auto it = std::find(constantIndex.begin(), constantIndex.end(), static_cast<std::uint32_t>(c));
    vgf::Constant constant;
    constant.mrtIndex = static_cast<std::uint32_t>(it - constantIndex.begin());
    constant.data = model.constants[c];
    file.constants.push_back(constant);
  }
  std::set<std::string> capabilities;
  for (std::size_t m = 0; m < model.spirv.size(); ++m) {
    vgf::Module module;
    module.type = vgf::ModuleType::Compute;
    module.entryPoint = "main";
    module.codeKind = vgf::CodeKind::Spirv;
    module.hasCode = true;
    module.spirv = model.spirv[m];
    for (auto& cap : spirvCapabilities(model.spirv[m])) capabilities.insert(cap);
    file.modules.push_back(std::move(module));
  }
  // Module names from the first kernel that uses each module.
  std::vector<bool> named(file.modules.size(), false);
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    const std::size_t m = compiled.moduleOf[k];
    if (!named[m]) {
      std::string stem = plan.kernels[k].shader.templateName.substr(0, plan.kernels[k].shader.templateName.find('.'));
      file.modules[m].name = fmt::format("{}_{}", stem, m);
      named[m] = true;
    }
  }
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    const PlanKernel& kernel = plan.kernels[k];
    vgf::Segment seg;
    seg.type = vgf::ModuleType::Compute;
    seg.name = kernel.name;
    seg.moduleIndex = static_cast<std::uint32_t>(compiled.moduleOf[k]);
    vgf::DescriptorSetInfo set;
    set.setIndex = 0;
    for (std::size_t b = 0; b < kernel.bindings.size(); ++b) {
      const std::size_t id = kernel.bindings[b];
      vgf::BindingSlot slot{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(id)};
      set.bindings.push_back(slot);
      if (kernel.writes[b]) {
        seg.outputs.push_back(slot);
      } else {
        seg.inputs.push_back(slot);
      }
      if (constantIndex[id] != vgf::kUnset &&
          std::find(seg.constants.begin(), seg.constants.end(), constantIndex[id]) == seg.constants.end()) {
        seg.constants.push_back(constantIndex[id]);
      }
    }
    seg.setInfos.push_back(std::move(set));
    seg.dispatchShape = kernel.grid;
    file.segments.push_back(std::move(seg));
  }
  for (std::size_t i = 0; i < plan.inputs.size(); ++i) {
    file.inputs.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(plan.inputs[i])});
    file.inputNames.push_back(program.inputs[i]);
  }
  for (std::size_t i = 0; i < plan.outputs.size(); ++i) {
    file.outputs.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(plan.outputs[i])});
    file.outputNames.push_back(program.outputs[i]);
  }
  model.stats.kernels = plan.kernels.size();
  model.stats.uniqueModules = model.spirv.size();
  model.stats.peakLiveBytes = memory.peakLiveBytes;
  model.stats.unaliasedBytes = memory.unaliasedBytes;
  model.stats.plannedBytes = memory.plannedBytes;
  model.stats.aliasGroups = memory.groups;
  model.stats.cacheHits = compiled.cacheHits;
  model.stats.capabilities.assign(capabilities.begin(), capabilities.end());
  return model;
}

}  // namespace

Result<ConvertedModel> convert(const tosa::Graph& graph, const ConvertOptions& options) {
  OPENVGF_ASSIGN_OR_RETURN(Target target, targetByName(options.target));
  OPENVGF_ASSIGN_OR_RETURN(Program program, makeProgram(graph));
  OPENVGF_TRY(passes::runPasses(program));
  OPENVGF_ASSIGN_OR_RETURN(Plan plan, lowerProgram(program, target));
  std::vector<ShaderInstance> instances;
  instances.reserve(plan.kernels.size());
  for (const PlanKernel& k : plan.kernels) instances.push_back(k.shader);
  CompileOptions compileOptions;
  compileOptions.useCache = options.useCache;
  compileOptions.cacheDir = options.cacheDir;
  compileOptions.threads = options.threads;
  compileOptions.progress = options.progress;
  OPENVGF_ASSIGN_OR_RETURN(CompileResult compiled, compileShaders(instances, compileOptions));
  MemoryPlan memory = planMemory(plan);
  return emit(plan, memory, compiled, program);
}

}  // namespace openvgf::converter
