// SPDX-License-Identifier: Apache-2.0
// What `openvgf devices` prints, as installed API (openvgf::describeDevices): every Vulkan
// device with its type, API version, driver, subgroup size, the limits openvgf checks, the
// optional features it may enable and the host I/O facts the runner uses (transfer queue,
// host-memory import, timeline semaphores); the device a model opens by default is marked.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "api/devices.h"
#include "api/public_state.h"
#include "vulkan/memory.h"

namespace openvgf {
namespace {

std::string uuidString(const std::array<std::uint8_t, 16>& uuid) {
  std::string out;
  for (std::uint8_t b : uuid) out += fmt::format("{:02x}", b);
  return out;
}

/// Float widths with shaderRoundingModeRTEFloat<width> (the native target's fp16 chains need 16).
std::vector<int> roundingWidths(std::uint32_t bits) {
  std::vector<int> widths;
  if (bits & vulkan::kFloatWidth16) widths.push_back(16);
  if (bits & vulkan::kFloatWidth32) widths.push_back(32);
  if (bits & vulkan::kFloatWidth64) widths.push_back(64);
  return widths;
}

nlohmann::json toJson(const vulkan::DeviceSnapshot& d, bool isDefault, std::uint64_t barBytes) {
  nlohmann::json features = nlohmann::json::object();
  for (std::uint32_t i = 0; i < vulkan::kFeatureCount; ++i) {
    auto f = static_cast<vulkan::Feature>(1u << i);
    features[std::string(vulkan::featureName(f))] = d.features.has(f);
  }
  const vulkan::DeviceLimits& l = d.limits;
  return {{"index", d.index},
          {"name", d.name},
          {"type", std::string(vulkan::toString(d.type))},
          {"default", isDefault},
          {"api_version", vulkan::apiVersionString(d.apiVersion)},
          {"driver_name", d.driverName},
          {"driver_info", d.driverInfo},
          {"driver_version", d.driverVersion},
          {"vendor_id", d.vendorId},
          {"device_id", d.deviceId},
          {"device_uuid", uuidString(d.deviceUuid)},
          {"driver_uuid", uuidString(d.driverUuid)},
          {"subgroup_size", d.subgroupSize},
          {"min_subgroup_size", d.minSubgroupSize},
          {"max_subgroup_size", d.maxSubgroupSize},
          {"subgroup_operations", d.subgroupOperations},
          {"rounding_mode_rte", roundingWidths(d.roundingModeRte)},
          {"timestamp_valid_bits", d.timestampValidBits},
          {"device_local_bytes", d.deviceLocalBytes},
          {"limits",
           {{"maxStorageBufferRange", l.maxStorageBufferRange},
            {"minStorageBufferOffsetAlignment", l.minStorageBufferOffsetAlignment},
            {"maxMemoryAllocationSize", l.maxMemoryAllocationSize},
            {"maxBufferSize", l.maxBufferSize},
            {"maxComputeWorkGroupCount", l.maxComputeWorkGroupCount},
            {"maxComputeWorkGroupSize", l.maxComputeWorkGroupSize},
            {"maxComputeWorkGroupInvocations", l.maxComputeWorkGroupInvocations},
            {"maxComputeSharedMemorySize", l.maxComputeSharedMemorySize},
            {"maxBoundDescriptorSets", l.maxBoundDescriptorSets},
            {"maxPerStageDescriptorStorageBuffers", l.maxPerStageDescriptorStorageBuffers},
            {"maxPushConstantsSize", l.maxPushConstantsSize},
            {"timestampPeriod", l.timestampPeriod}}},
          {"features", features},
          {"pipeline_statistics", d.pipelineExecutableInfo},
          {"host_io",
           {{"dedicated_transfer_queue", d.dedicatedTransferQueue},
            {"host_visible_device_local_bytes", barBytes},
            {"external_memory_host", d.externalMemoryHost},
            {"min_imported_host_pointer_alignment", d.externalMemoryHost ? d.minImportedHostPointerAlignment : 0},
            {"timeline_semaphore", d.features.has(vulkan::Feature::TimelineSemaphore)}}}};
}

std::string toText(const vulkan::DeviceSnapshot& d, bool isDefault, std::uint64_t barBytes) {
  const vulkan::DeviceLimits& l = d.limits;
  std::string out = fmt::format("{}: {} ({}){}\n", d.index, d.name, vulkan::toString(d.type),
                                isDefault ? "  [default]" : "");
  out += fmt::format("   Vulkan {}, driver {} {}\n", vulkan::apiVersionString(d.apiVersion), d.driverName, d.driverInfo);
  out += fmt::format("   subgroup size {} (min {}, max {}), device-local memory {} MiB, timestamps {}\n",
                     d.subgroupSize, d.minSubgroupSize, d.maxSubgroupSize, d.deviceLocalBytes >> 20,
                     d.timestampValidBits ? fmt::format("{} bits @ {} ns", d.timestampValidBits, l.timestampPeriod)
                                          : std::string("none"));
  out += fmt::format("   maxStorageBufferRange {}, maxComputeWorkGroupInvocations {}, maxComputeSharedMemorySize {}, "
                     "maxComputeWorkGroupCount [{}, {}, {}]\n",
                     l.maxStorageBufferRange, l.maxComputeWorkGroupInvocations, l.maxComputeSharedMemorySize,
                     l.maxComputeWorkGroupCount[0], l.maxComputeWorkGroupCount[1], l.maxComputeWorkGroupCount[2]);
  std::string yes, no;
  for (std::uint32_t i = 0; i < vulkan::kFeatureCount; ++i) {
    auto f = static_cast<vulkan::Feature>(1u << i);
    std::string& list = d.features.has(f) ? yes : no;
    list += fmt::format("{}{}", list.empty() ? "" : " ", vulkan::featureName(f));
  }
  out += fmt::format("   features: {}\n", yes.empty() ? "-" : yes);
  const std::vector<int> rte = roundingWidths(d.roundingModeRte);
  out += fmt::format("   round-to-nearest-even execution mode (shaderRoundingModeRTEFloat*): {}\n",
                     rte.empty() ? "-" : fmt::format("fp{}", fmt::join(rte, " fp")));
  if (!no.empty()) out += fmt::format("   missing:  {}\n", no);
  out += fmt::format("   pipeline statistics (run --pipeline-stats, VK_KHR_pipeline_executable_properties): {}\n",
                     d.pipelineExecutableInfo ? "yes" : "no");
  out += fmt::format("   host I/O: dedicated transfer queue {}, device-local host-visible heap {} MiB{}, "
                     "VK_EXT_external_memory_host {}, timeline semaphores {}\n",
                     d.dedicatedTransferQueue ? "yes" : "no", barBytes >> 20,
                     d.type == vulkan::DeviceType::DiscreteGpu && barBytes >= vulkan::kLargeBarHeapBytes
                         ? " (resizable BAR: uploads are written into it)"
                         : "",
                     d.externalMemoryHost ? fmt::format("yes (import alignment {} bytes)", d.minImportedHostPointerAlignment)
                                          : std::string("no"),
                     d.features.has(vulkan::Feature::TimelineSemaphore) ? "yes" : "no");
  return out;
}

}  // namespace

std::string describeDevices(bool json, bool validate) {
  api::DeviceList devices = unwrap(api::listDevices(validate));
  auto isDefault = [&](const vulkan::DeviceSnapshot& d) { return devices.defaultIndex == d.index; };
  std::string text;
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (std::size_t i = 0; i < devices.devices.size(); ++i) {
      list.push_back(toJson(devices.devices[i], isDefault(devices.devices[i]), devices.hostVisibleDeviceLocalBytes[i]));
    }
    return nlohmann::json{{"devices", list}}.dump(2) + "\n";
  }
  for (std::size_t i = 0; i < devices.devices.size(); ++i) {
    text += toText(devices.devices[i], isDefault(devices.devices[i]), devices.hostVisibleDeviceLocalBytes[i]);
  }
  if (!devices.defaultIndex) text += fmt::format("no usable device: {}\n", devices.noDefaultReason);
  return text;
}

}  // namespace openvgf
