// SPDX-License-Identifier: Apache-2.0
// Pipeline cache persistence and (parallel) compute pipeline creation.
#include "vulkan/pipeline.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/cache_dir.h"
#include "common/cache_entry.h"
#include "vulkan/check.h"

namespace openvgf::vulkan {

std::filesystem::path defaultPipelineCacheDir() { return cacheRoot(); }

namespace {

// The file name names the device and driver the data is for (pipelineCacheFileName).
std::string cacheKey(const std::filesystem::path& path) { return "pipelines/" + path.filename().string(); }

}  // namespace

Result<PipelineCache> PipelineCache::create(const Device& device, std::filesystem::path directory) {
  PipelineCache cache;
  cache.device_ = &device;
  std::vector<std::uint8_t> bytes;
  std::span<const std::uint8_t> blob;
  if (!directory.empty()) {
    cache.path_ = directory / pipelineCacheFileName(device.snapshot());
    // The driver parses what it is given: only an intact entry of ours reaches it.
    if (std::optional<std::vector<std::uint8_t>> read = readCacheEntry(cache.path_, cacheKey(cache.path_))) {
      bytes = std::move(*read);
      if (auto compatible = compatiblePipelineCache(bytes, device.snapshot())) {
        blob = *compatible;
        cache.loaded_ = true;
      } else {
        spdlog::debug("pipeline cache {}: written for another device or driver, ignored", cache.path_.string());
      }
    }
  }
  VkPipelineCacheCreateInfo info = vkStruct<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
  info.initialDataSize = blob.size();
  info.pInitialData = blob.empty() ? nullptr : blob.data();
  VkPipelineCache handle = VK_NULL_HANDLE;
  VkResult result = vkCreatePipelineCache(device.handle(), &info, nullptr, &handle);
  if (result != VK_SUCCESS && !blob.empty()) {
    // A driver may still reject data it wrote itself; start empty rather than fail.
    info.initialDataSize = 0;
    info.pInitialData = nullptr;
    cache.loaded_ = false;
    result = vkCreatePipelineCache(device.handle(), &info, nullptr, &handle);
  }
  OPENVGF_VK_TRY(result);
  cache.cache_ = DeviceHandle<VkPipelineCache, &vkDestroyPipelineCache>(device.handle(), handle);
  return cache;
}

Status PipelineCache::save() const {
  if (path_.empty()) return {};
  std::size_t size = 0;
  OPENVGF_VK_TRY(vkGetPipelineCacheData(device_->handle(), cache_.get(), &size, nullptr));
  std::vector<std::uint8_t> out = pipelineCacheHeader(device_->snapshot());
  std::size_t header = out.size();
  out.resize(header + size);
  OPENVGF_VK_TRY(vkGetPipelineCacheData(device_->handle(), cache_.get(), &size, out.data() + header));
  out.resize(header + size);
  return writeCacheEntry(path_, cacheKey(path_), std::span<const std::uint8_t>(out));
}

Result<ComputePipeline> ComputePipeline::create(const Device& device, const PipelineCache& cache,
                                                const ComputePipelineDesc& desc) {
  VkDevice vk = device.handle();
  ComputePipeline pipeline;
  std::vector<VkDescriptorSetLayout> layouts;
  for (const std::vector<std::uint32_t>& set : desc.sets) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (std::uint32_t binding : set) {
      VkDescriptorSetLayoutBinding b{};
      b.binding = binding;
      b.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      b.descriptorCount = 1;
      b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
      bindings.push_back(b);
    }
    VkDescriptorSetLayoutCreateInfo info = vkStruct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
    info.bindingCount = static_cast<std::uint32_t>(bindings.size());
    info.pBindings = bindings.data();
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    OPENVGF_VK_TRY(vkCreateDescriptorSetLayout(vk, &info, nullptr, &layout));
    pipeline.setLayouts_.emplace_back(vk, layout);
    layouts.push_back(layout);
  }
  VkPipelineLayoutCreateInfo layoutInfo = vkStruct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  layoutInfo.setLayoutCount = static_cast<std::uint32_t>(layouts.size());
  layoutInfo.pSetLayouts = layouts.data();
  VkPushConstantRange pushRange{VK_SHADER_STAGE_COMPUTE_BIT, 0, desc.pushConstantBytes};
  if (desc.pushConstantBytes > 0) {
    layoutInfo.pushConstantRangeCount = 1;
    layoutInfo.pPushConstantRanges = &pushRange;
  }
  VkPipelineLayout layout = VK_NULL_HANDLE;
  OPENVGF_VK_TRY(vkCreatePipelineLayout(vk, &layoutInfo, nullptr, &layout));
  pipeline.layout_ = DeviceHandle<VkPipelineLayout, &vkDestroyPipelineLayout>(vk, layout);

  VkShaderModuleCreateInfo moduleInfo = vkStruct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  moduleInfo.codeSize = desc.spirv.size_bytes();
  moduleInfo.pCode = desc.spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  OPENVGF_VK_TRY(vkCreateShaderModule(vk, &moduleInfo, nullptr, &module));
  DeviceHandle<VkShaderModule, &vkDestroyShaderModule> moduleOwner(vk, module);

  VkComputePipelineCreateInfo info = vkStruct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = desc.entryPoint.c_str();
  info.layout = layout;
  if (device.capturesPipelineStatistics()) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  if (desc.dispatchBase) info.flags |= VK_PIPELINE_CREATE_DISPATCH_BASE_BIT;
  VkPipeline handle = VK_NULL_HANDLE;
  VkResult result = vkCreateComputePipelines(vk, cache.handle(), 1, &info, nullptr, &handle);
  if (result != VK_SUCCESS) {
    return runtimeError("{}: vkCreateComputePipelines failed: {}", desc.name, resultName(result));
  }
  pipeline.pipeline_ = DeviceHandle<VkPipeline, &vkDestroyPipeline>(vk, handle);
  return pipeline;
}

Result<std::vector<ComputePipeline>> createComputePipelines(const Device& device, const PipelineCache& cache,
                                                            std::span<const ComputePipelineDesc> descs,
                                                            unsigned threads) {
  std::vector<std::optional<Result<ComputePipeline>>> results(descs.size());
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(descs.size()));
  std::atomic<std::size_t> next{0};
  // The pipeline cache is internally synchronized (no EXTERNALLY_SYNCHRONIZED flag), so workers
  // share it; each result slot is written by exactly one worker.
  auto work = [&]() {
    for (std::size_t i = next.fetch_add(1); i < descs.size(); i = next.fetch_add(1)) {
      results[i].emplace(ComputePipeline::create(device, cache, descs[i]));
    }
  };
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::jthread> workers;
    for (unsigned t = 0; t < threads; ++t) workers.emplace_back(work);
  }
  std::vector<ComputePipeline> pipelines;
  pipelines.reserve(descs.size());
  for (std::optional<Result<ComputePipeline>>& result : results) {
    if (!*result) return Unexpected(std::move(*result).error());
    pipelines.push_back(std::move(**result));
  }
  return pipelines;
}

}  // namespace openvgf::vulkan
