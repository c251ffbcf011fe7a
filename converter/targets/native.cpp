// SPDX-License-Identifier: Apache-2.0
// The native target: tiles, workgroups and optional shader features for one device, from the
// facts vulkan/ probed of it (DeviceCaps, common/device_caps.h). No Vulkan call here: the
// caller hands in the device that will run the model, so a converted model never targets a
// device other than its own, and tests use fake devices.
#include <algorithm>

#include "converter/targets/target.h"

namespace openvgf::converter {
namespace {

bool isInt8(const CoopMatShape& s) { return s.types == CoopMatTypes::S8xS8ToS32; }
bool isBf16(const CoopMatShape& s) { return s.types == CoopMatTypes::Bf16xBf16ToF32; }

// Cooperative-matrix modules also declare Float16 (fp16 fragments) and VulkanMemoryModel
// (GL_KHR_memory_scope_semantics), and need a known subgroup size.
bool matricesUsable(const DeviceCaps& d) { return d.shaderFloat16 && d.vulkanMemoryModel && d.subgroupSize != 0; }

void addCooperativeMatrices(Capabilities& caps, const DeviceCaps& d) {
  if (d.cooperativeMatrixNv && matricesUsable(d)) {
    // NV lists no bf16 shapes; int8 fragments are stored in shared memory as int8_t (Int8).
    for (const CoopMatShape& s : d.coopMatShapesNv) {
      if (!isBf16(s) && (d.shaderInt8 || !isInt8(s))) caps.coopMatShapes.push_back(s);
    }
    caps.cooperativeMatrixNv = !caps.coopMatShapes.empty();
  }
  // Devices without the NV extension (AMD, Intel, newer drivers) list their shapes through KHR.
  if (!d.cooperativeMatrixKhr || !matricesUsable(d)) return;
  caps.cooperativeMatrixKhr = true;
  if (!caps.cooperativeMatrixNv) {
    for (const CoopMatShape& s : d.coopMatShapesKhr) {
      if ((d.shaderInt8 || !isInt8(s)) && (d.bfloat16Matrices || !isBf16(s))) caps.coopMatShapes.push_back(s);
    }
  } else if (d.bfloat16Matrices) {
    // bf16 shapes come from the KHR query (usable with the KHR encoding, --precision bf16).
    for (const CoopMatShape& s : d.coopMatShapesKhr) {
      if (isBf16(s)) caps.coopMatShapes.push_back(s);
    }
  }
  caps.coopMatWorkgroup = d.coopMatWorkgroup;
}

// What kernels may use of `device`: its limits, clamped to the largest the kernels are sized
// for, and its optional features.
Capabilities capabilitiesOf(const DeviceCaps& device) {
  Capabilities caps;
  caps.subgroupSize = device.subgroupSize;
  caps.maxInvocations =
      static_cast<int>(std::min<std::uint32_t>(device.maxComputeWorkGroupInvocations, 1024));
  caps.maxSharedBytes = static_cast<int>(std::min<std::uint32_t>(device.maxComputeSharedMemorySize, 49152));
  caps.fp16Arithmetic = device.shaderFloat16;
  caps.fp16RoundingRte = device.roundingModeRteFloat16;
  caps.integerDotProduct = device.shaderIntegerDotProduct;
  caps.float64 = device.shaderFloat64;
  addCooperativeMatrices(caps, device);
  return caps;
}

}  // namespace

Target nativeTarget(const DeviceCaps& device) {
  Target t = portableTarget();
  t.name = "native";
  t.deviceName = device.name;
  t.caps = capabilitiesOf(device);
  // A device whose matrices come only through VK_KHR_cooperative_matrix has them only in the
  // KHR encoding (its shapes are then the KHR query's).
  t.tuning.coopMatKhrEncoding =
      !t.caps.cooperativeMatrixNv && t.caps.cooperativeMatrixKhr && !t.caps.coopMatShapes.empty();
  applyTuningTable(t, deviceClass(device.vendorId, device.cpu));
  return t;
}

}  // namespace openvgf::converter
