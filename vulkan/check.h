// SPDX-License-Identifier: Apache-2.0
// Turning VkResult codes into openvgf Errors. OPENVGF_VK_TRY names the failing call so the
// message says which Vulkan entry point failed and how.
#pragma once

#include "vulkan/api.h"

#include "common/error.h"

namespace openvgf::vulkan {

/// A zero-initialised Vulkan struct with its sType set (avoids -Wmissing-field-initializers).
template <typename T>
T vkStruct(VkStructureType type) {
  T value{};
  value.sType = type;
  return value;
}

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc.
const char* resultName(VkResult result);

/// The error for a failed call: out-of-memory and device-lost are runtime failures,
/// missing drivers/features/layers are environment failures.
Error vkError(VkResult result, const char* call);

}  // namespace openvgf::vulkan

/// Evaluates a Vulkan call and returns an Error naming it unless it returned VK_SUCCESS.
#define OPENVGF_VK_TRY(call)                                                              \
  do {                                                                                    \
    VkResult openvgf_vk_result_ = (call);                                                 \
    if (openvgf_vk_result_ != VK_SUCCESS)                                                 \
      return ::openvgf::Unexpected(::openvgf::vulkan::vkError(openvgf_vk_result_, #call)); \
  } while (false)
