// SPDX-License-Identifier: Apache-2.0
// The Vulkan API as openvgf calls it: the loader (libvulkan.so.1) is opened at run time, not
// linked, so `openvgf` starts (and converts, inspects, extracts) on machines without Vulkan
// and `run` can say what to install. Every entry point used is a function pointer named like
// the Vulkan function, in namespace openvgf, so call sites read as plain Vulkan.
// Include this header, never <vulkan/vulkan.h> directly (VK_NO_PROTOTYPES is set).
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include "common/error.h"

#define OPENVGF_VULKAN_FUNCTIONS(X)                                                                   \
  X(vkGetInstanceProcAddr) X(vkEnumerateInstanceVersion) X(vkEnumerateInstanceLayerProperties)        \
  X(vkCreateInstance) X(vkDestroyInstance) X(vkEnumeratePhysicalDevices)                               \
  X(vkGetPhysicalDeviceProperties) X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceFeatures2)   \
  X(vkGetPhysicalDeviceMemoryProperties) X(vkGetPhysicalDeviceQueueFamilyProperties)                   \
  X(vkEnumerateDeviceExtensionProperties)                                                             \
  X(vkCreateDevice) X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkDeviceWaitIdle) X(vkQueueSubmit2)      \
  X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory)            \
  X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory)                                                 \
  X(vkCreateFence) X(vkDestroyFence) X(vkResetFences) X(vkWaitForFences) X(vkGetFenceStatus)         \
  X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers)                           \
  X(vkBeginCommandBuffer) X(vkEndCommandBuffer)                                                        \
  X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) X(vkCmdDispatch) X(vkCmdDispatchBase) X(vkCmdCopyBuffer) X(vkCmdFillBuffer) \
  X(vkCmdPushConstants)                                                                                \
  X(vkCmdPipelineBarrier2) X(vkCmdResetQueryPool) X(vkCmdWriteTimestamp2)                             \
  X(vkCreateQueryPool) X(vkDestroyQueryPool) X(vkGetQueryPoolResults)                                  \
  X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets)                     \
  X(vkUpdateDescriptorSets) X(vkCreateDescriptorSetLayout) X(vkDestroyDescriptorSetLayout)            \
  X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout) X(vkCreateShaderModule) X(vkDestroyShaderModule) \
  X(vkCreatePipelineCache) X(vkDestroyPipelineCache) X(vkGetPipelineCacheData)                        \
  X(vkCreateComputePipelines) X(vkDestroyPipeline)                                                      \
  X(vkGetDeviceProcAddr) X(vkCreateSemaphore) X(vkDestroySemaphore) X(vkWaitSemaphores) X(vkResetCommandPool)

namespace openvgf {

#define OPENVGF_DECLARE_VULKAN_FUNCTION(name) extern PFN_##name name;
OPENVGF_VULKAN_FUNCTIONS(OPENVGF_DECLARE_VULKAN_FUNCTION)
#undef OPENVGF_DECLARE_VULKAN_FUNCTION

namespace vulkan {

/// Opens the loader (libvulkan.so.1, or $OPENVGF_VULKAN_LIBRARY) once and resolves every
/// function above. Environment error naming the package (libvulkan1) when it is missing.
/// Thread-safe; later calls return the first call's result.
Status loadVulkanLibrary();

}  // namespace vulkan
}  // namespace openvgf
