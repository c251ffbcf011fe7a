// SPDX-License-Identifier: Apache-2.0
// Compute pipelines and the on-disk pipeline cache. Every pipeline of a process shares one
// VkPipelineCache (STYLE.md item 16); pipelines are created in parallel because driver
// shader compilation dominates session start-up on large models.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "vulkan/api.h"

#include "common/error.h"
#include "vulkan/device.h"

namespace openvgf::vulkan {

/// $XDG_CACHE_HOME/openvgf, else $HOME/.cache/openvgf; empty when neither variable is set.
std::filesystem::path defaultPipelineCacheDir();

class PipelineCache {
 public:
  /// An empty cache when `directory` is empty (caching off); otherwise loads
  /// `directory/<pipelineCacheFileName>` when it was written for this device and driver.
  static Result<PipelineCache> create(const Device& device, std::filesystem::path directory);

  VkPipelineCache handle() const { return cache_.get(); }
  /// Writes the cache back (atomically) when caching is on; a no-op otherwise.
  Status save() const;
  const std::filesystem::path& path() const { return path_; }
  /// Whether a compatible file was found and loaded.
  bool loadedFromDisk() const { return loaded_; }

 private:
  PipelineCache() = default;
  const Device* device_ = nullptr;
  std::filesystem::path path_;
  bool loaded_ = false;
  DeviceHandle<VkPipelineCache, &vkDestroyPipelineCache> cache_;
};

/// What one compute pipeline is built from. All descriptors are storage buffers.
struct ComputePipelineDesc {
  std::string name;                          // for error messages
  std::span<const std::uint32_t> spirv;      // must outlive the create call
  std::string entryPoint = "main";
  /// Binding numbers per descriptor set, indexed by set number (empty sets allowed).
  std::vector<std::vector<std::uint32_t>> sets;
  /// Bytes of one push-constant range at offset 0 for the compute stage; 0 = none (openvgf's
  /// own kernels compile their parameters in; scenario shaders may take push constants).
  std::uint32_t pushConstantBytes = 0;
  /// Created with VK_PIPELINE_CREATE_DISPATCH_BASE_BIT, for vkCmdDispatchBase (a dispatch
  /// of a range of workgroups: a piece of a batch, runner/piece_plan.h).
  bool dispatchBase = false;
};

class ComputePipeline {
 public:
  static Result<ComputePipeline> create(const Device& device, const PipelineCache& cache,
                                        const ComputePipelineDesc& desc);

  VkPipeline handle() const { return pipeline_.get(); }
  VkPipelineLayout layout() const { return layout_.get(); }
  VkDescriptorSetLayout setLayout(std::size_t set) const { return setLayouts_[set].get(); }
  std::size_t setCount() const { return setLayouts_.size(); }

 private:
  ComputePipeline() = default;
  // Declared in creation order so they are destroyed in reverse.
  std::vector<DeviceHandle<VkDescriptorSetLayout, &vkDestroyDescriptorSetLayout>> setLayouts_;
  DeviceHandle<VkPipelineLayout, &vkDestroyPipelineLayout> layout_;
  DeviceHandle<VkPipeline, &vkDestroyPipeline> pipeline_;
};

/// Creates every pipeline, on up to `threads` threads (0: hardware concurrency). The first
/// error (in `descs` order) is returned.
Result<std::vector<ComputePipeline>> createComputePipelines(const Device& device, const PipelineCache& cache,
                                                            std::span<const ComputePipelineDesc> descs,
                                                            unsigned threads = 0);

}  // namespace openvgf::vulkan
