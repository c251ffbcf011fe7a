// SPDX-License-Identifier: Apache-2.0
// Command recording objects: a command pool with one primary command buffer, fences,
// timeline semaphores, timestamp query pools and descriptor pools.
#pragma once

#include <cstdint>
#include <vector>

#include "vulkan/api.h"

#include "common/error.h"
#include "vulkan/device.h"

namespace openvgf::vulkan {

/// A command pool owning one primary command buffer, recorded once and submitted many times.
class CommandBuffer {
 public:
  /// A pool for the family of `queue` (see Device::transferFamily()).
  static Result<CommandBuffer> create(const Device& device, Queue queue = Queue::Compute);
  VkCommandBuffer handle() const { return buffer_; }
  Status begin(VkCommandBufferUsageFlags flags = 0) const;
  Status end() const;
  /// Resets the pool, for buffers recorded again before every submission.
  Status reset() const;

 private:
  CommandBuffer() = default;
  DeviceHandle<VkCommandPool, &vkDestroyCommandPool> pool_;
  VkCommandBuffer buffer_ = VK_NULL_HANDLE;  // freed with the pool
};

class Fence {
 public:
  static Result<Fence> create(const Device& device);
  VkFence handle() const { return fence_.get(); }
  Status reset(const Device& device) const;

 private:
  Fence() = default;
  DeviceHandle<VkFence, &vkDestroyFence> fence_;
};

/// Records one global memory barrier (synchronization2).
void recordMemoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags2 srcStage, VkAccessFlags2 srcAccess,
                         VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess);

/// A timeline semaphore (Vulkan 1.2 core, feature timelineSemaphore) starting at 0.
class TimelineSemaphore {
 public:
  static Result<TimelineSemaphore> create(const Device& device);
  VkSemaphore handle() const { return semaphore_.get(); }

 private:
  TimelineSemaphore() = default;
  DeviceHandle<VkSemaphore, &vkDestroySemaphore> semaphore_;
};

/// A pool of `count` timestamp queries.
class TimestampQueries {
 public:
  static Result<TimestampQueries> create(const Device& device, std::uint32_t count);
  VkQueryPool handle() const { return pool_.get(); }
  std::uint32_t count() const { return count_; }
  /// Reads every query (64-bit, waiting for availability) into `out` (resized to count()).
  Status read(const Device& device, std::vector<std::uint64_t>& out) const;

 private:
  TimestampQueries() = default;
  DeviceHandle<VkQueryPool, &vkDestroyQueryPool> pool_;
  std::uint32_t count_ = 0;
};

/// A descriptor pool for `maxSets` sets holding `storageBuffers` storage-buffer descriptors.
class DescriptorPool {
 public:
  static Result<DescriptorPool> create(const Device& device, std::uint32_t maxSets, std::uint32_t storageBuffers);
  Result<VkDescriptorSet> allocate(const Device& device, VkDescriptorSetLayout layout) const;

 private:
  DescriptorPool() = default;
  DeviceHandle<VkDescriptorPool, &vkDestroyDescriptorPool> pool_;
};

}  // namespace openvgf::vulkan
