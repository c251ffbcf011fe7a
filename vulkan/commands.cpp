// SPDX-License-Identifier: Apache-2.0
// Command pools/buffers, fences, timestamp queries and descriptor pools.
#include "vulkan/commands.h"

#include <algorithm>

#include "vulkan/check.h"

namespace openvgf::vulkan {

Result<CommandBuffer> CommandBuffer::create(const Device& device, Queue queue) {
  CommandBuffer out;
  VkCommandPoolCreateInfo info = vkStruct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  info.queueFamilyIndex = queue == Queue::Transfer ? device.transferFamily() : device.queueFamily();
  VkCommandPool pool = VK_NULL_HANDLE;
  OPENVGF_VK_TRY(vkCreateCommandPool(device.handle(), &info, nullptr, &pool));
  out.pool_ = DeviceHandle<VkCommandPool, &vkDestroyCommandPool>(device.handle(), pool);
  VkCommandBufferAllocateInfo allocate = vkStruct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  allocate.commandPool = pool;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  OPENVGF_VK_TRY(vkAllocateCommandBuffers(device.handle(), &allocate, &out.buffer_));
  return out;
}

Status CommandBuffer::begin(VkCommandBufferUsageFlags flags) const {
  VkCommandBufferBeginInfo info = vkStruct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  info.flags = flags;
  OPENVGF_VK_TRY(vkBeginCommandBuffer(buffer_, &info));
  return {};
}

Status CommandBuffer::end() const {
  OPENVGF_VK_TRY(vkEndCommandBuffer(buffer_));
  return {};
}

Status CommandBuffer::reset() const {
  OPENVGF_VK_TRY(vkResetCommandPool(pool_.device(), pool_.get(), 0));
  return {};
}

void recordMemoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags2 srcStage, VkAccessFlags2 srcAccess,
                         VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess) {
  VkMemoryBarrier2 barrier = vkStruct<VkMemoryBarrier2>(VK_STRUCTURE_TYPE_MEMORY_BARRIER_2);
  barrier.srcStageMask = srcStage;
  barrier.srcAccessMask = srcAccess;
  barrier.dstStageMask = dstStage;
  barrier.dstAccessMask = dstAccess;
  VkDependencyInfo dependency = vkStruct<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
  dependency.memoryBarrierCount = 1;
  dependency.pMemoryBarriers = &barrier;
  vkCmdPipelineBarrier2(cmd, &dependency);
}

Result<TimelineSemaphore> TimelineSemaphore::create(const Device& device) {
  TimelineSemaphore out;
  VkSemaphoreTypeCreateInfo type = vkStruct<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  VkSemaphoreCreateInfo info = vkStruct<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
  info.pNext = &type;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  OPENVGF_VK_TRY(vkCreateSemaphore(device.handle(), &info, nullptr, &semaphore));
  out.semaphore_ = DeviceHandle<VkSemaphore, &vkDestroySemaphore>(device.handle(), semaphore);
  return out;
}

Result<Fence> Fence::create(const Device& device) {
  Fence out;
  VkFenceCreateInfo info = vkStruct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  VkFence fence = VK_NULL_HANDLE;
  OPENVGF_VK_TRY(vkCreateFence(device.handle(), &info, nullptr, &fence));
  out.fence_ = DeviceHandle<VkFence, &vkDestroyFence>(device.handle(), fence);
  return out;
}

Status Fence::reset(const Device& device) const {
  VkFence fence = fence_.get();
  OPENVGF_VK_TRY(vkResetFences(device.handle(), 1, &fence));
  return {};
}

Result<TimestampQueries> TimestampQueries::create(const Device& device, std::uint32_t count) {
  if (device.snapshot().timestampValidBits == 0) {
    return unsupported("{}: expected a compute queue with timestamp support for profiling, got timestampValidBits = 0",
                       device.snapshot().name);
  }
  TimestampQueries out;
  VkQueryPoolCreateInfo info = vkStruct<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = std::max(count, 1u);
  VkQueryPool pool = VK_NULL_HANDLE;
  OPENVGF_VK_TRY(vkCreateQueryPool(device.handle(), &info, nullptr, &pool));
  out.pool_ = DeviceHandle<VkQueryPool, &vkDestroyQueryPool>(device.handle(), pool);
  out.count_ = count;
  return out;
}

Status TimestampQueries::read(const Device& device, std::vector<std::uint64_t>& out) const {
  out.resize(count_);
  if (count_ == 0) return {};
  OPENVGF_VK_TRY(vkGetQueryPoolResults(device.handle(), pool_.get(), 0, count_, out.size() * sizeof(std::uint64_t),
                                       out.data(), sizeof(std::uint64_t),
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  // Only timestampValidBits are meaningful (Vulkan spec §18.5).
  std::uint32_t bits = device.snapshot().timestampValidBits;
  if (bits < 64) {
    for (std::uint64_t& v : out) v &= (1ull << bits) - 1;
  }
  return {};
}

Result<DescriptorPool> DescriptorPool::create(const Device& device, std::uint32_t maxSets,
                                              std::uint32_t storageBuffers) {
  DescriptorPool out;
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(storageBuffers, 1u)};
  VkDescriptorPoolCreateInfo info = vkStruct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  info.maxSets = std::max(maxSets, 1u);
  info.poolSizeCount = 1;
  info.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  OPENVGF_VK_TRY(vkCreateDescriptorPool(device.handle(), &info, nullptr, &pool));
  out.pool_ = DeviceHandle<VkDescriptorPool, &vkDestroyDescriptorPool>(device.handle(), pool);
  return out;
}

Result<VkDescriptorSet> DescriptorPool::allocate(const Device& device, VkDescriptorSetLayout layout) const {
  VkDescriptorSetAllocateInfo info = vkStruct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
  info.descriptorPool = pool_.get();
  info.descriptorSetCount = 1;
  info.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  OPENVGF_VK_TRY(vkAllocateDescriptorSets(device.handle(), &info, &set));
  return set;
}

}  // namespace openvgf::vulkan
