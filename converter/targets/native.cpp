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

void addCooperativeMatrices(Target& t, const DeviceCaps& d) {
  if (d.cooperativeMatrixNv && matricesUsable(d)) {
    // NV lists no bf16 shapes; int8 fragments are stored in shared memory as int8_t (Int8).
    for (const CoopMatShape& s : d.coopMatShapesNv) {
      if (!isBf16(s) && (d.shaderInt8 || !isInt8(s))) t.coopMatShapes.push_back(s);
    }
    t.cooperativeMatrixNv = !t.coopMatShapes.empty();
  }
  // Devices without the NV extension (AMD, Intel, newer drivers) list their shapes through KHR.
  if (!d.cooperativeMatrixKhr || !matricesUsable(d)) return;
  t.cooperativeMatrixKhr = true;
  if (!t.cooperativeMatrixNv) {
    for (const CoopMatShape& s : d.coopMatShapesKhr) {
      if ((d.shaderInt8 || !isInt8(s)) && (d.bfloat16Matrices || !isBf16(s))) t.coopMatShapes.push_back(s);
    }
    t.coopMatKhrEncoding = !t.coopMatShapes.empty();
  } else if (d.bfloat16Matrices) {
    // bf16 shapes come from the KHR query (usable with the KHR encoding, --precision bf16).
    for (const CoopMatShape& s : d.coopMatShapesKhr) {
      if (isBf16(s)) t.coopMatShapes.push_back(s);
    }
  }
  t.coopMatWorkgroup = d.coopMatWorkgroup;
}

}  // namespace

Target nativeTarget(const DeviceCaps& device) {
  Target t = portableTarget();
  t.name = "native";
  t.deviceName = device.name;
  t.subgroupSize = device.subgroupSize;
  t.maxInvocations = static_cast<int>(std::min<std::uint32_t>(device.maxComputeWorkGroupInvocations, 1024));
  t.maxSharedBytes = static_cast<int>(std::min<std::uint32_t>(device.maxComputeSharedMemorySize, 49152));
  t.fp16Arithmetic = device.shaderFloat16;
  t.fp16RoundingRte = device.roundingModeRteFloat16;
  t.integerDotProduct = device.shaderIntegerDotProduct;
  addCooperativeMatrices(t, device);
  applyTuningTable(t, deviceClass(device.vendorId, device.cpu));
  return t;
}

}  // namespace openvgf::converter
