// SPDX-License-Identifier: Apache-2.0
// What the converter may know of the Vulkan device a model will run on, as plain data. vulkan/
// is the only library that probes a device: it records these facts in its DeviceSnapshot and
// maps a snapshot to DeviceCaps (vulkan::deviceCaps). The converter sizes `--target native`
// kernels from DeviceCaps alone, so the model is converted for the device that runs it
// (run/bench/the API: the device they opened; convert: --device), and tests drive it with
// fake devices. The header is in common/ because both sides use it and neither may depend on
// the other.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace openvgf {

/// Operand / accumulator types of a cooperative-matrix shape (A and B share a type, C = D).
// Bf16xBf16ToF32 only through VK_KHR_cooperative_matrix with VK_KHR_shader_bfloat16.
enum class CoopMatTypes { F16xF16ToF32, F16xF16ToF16, S8xS8ToS32, Bf16xBf16ToF32 };

/// One subgroup-scope shape a device lists: A is m x k, B is k x n, C/D are m x n.
struct CoopMatShape {
  int m = 0, n = 0, k = 0;
  CoopMatTypes types = CoopMatTypes::F16xF16ToF32;
  bool operator==(const CoopMatShape&) const = default;
};

/// What VK_NV_cooperative_matrix2 offers for fp16 x fp16 -> fp32 matrices at workgroup scope
/// (vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV); invocations = 0: nothing.
struct CoopMatWorkgroupLimits {
  int granularityM = 0, granularityN = 0, granularityK = 0;
  int invocations = 0;     // the workgroup size such matrices need (the largest listed)
  int maxDimension = 0;    // cooperativeMatrixFlexibleDimensionsMaxDimension
  int reservedShared = 0;  // cooperativeMatrixWorkgroupScopeReservedSharedMemory
  bool fp16Accumulators = false;      // an fp16 -> fp16 entry of that size too
  std::vector<int> invocationCounts;  // every workgroup size listed
  bool operator==(const CoopMatWorkgroupLimits&) const = default;
};

/// The device facts `--target native` decides from.
struct DeviceCaps {
  std::string name;
  std::uint32_t vendorId = 0;
  bool cpu = false;  // VK_PHYSICAL_DEVICE_TYPE_CPU (lavapipe, SwiftShader)
  std::uint32_t subgroupSize = 0;
  std::uint32_t maxComputeWorkGroupInvocations = 0;
  std::uint32_t maxComputeSharedMemorySize = 0;  // bytes
  bool shaderFloat16 = false;
  bool roundingModeRteFloat16 = false;  // shaderRoundingModeRTEFloat16
  bool shaderIntegerDotProduct = false;
  bool shaderInt8 = false;
  bool shaderFloat64 = false;
  bool vulkanMemoryModel = false;
  bool cooperativeMatrixNv = false;   // VK_NV_cooperative_matrix, feature on
  bool cooperativeMatrixKhr = false;  // VK_KHR_cooperative_matrix, feature on
  bool bfloat16Matrices = false;      // VK_KHR_shader_bfloat16: the type and cooperative matrices of it
  std::vector<CoopMatShape> coopMatShapesNv;   // subgroup-scope shapes of the kinds openvgf uses, NV query
  std::vector<CoopMatShape> coopMatShapesKhr;  // the same from the KHR query
  CoopMatWorkgroupLimits coopMatWorkgroup;     // VK_NV_cooperative_matrix2 workgroup scope with flexible dimensions
  bool operator==(const DeviceCaps&) const = default;
};

}  // namespace openvgf
