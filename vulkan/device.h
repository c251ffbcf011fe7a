// SPDX-License-Identifier: Apache-2.0
// The logical device: one compute queue (plus a queue of a dedicated transfer family when the
// device has one, so copies overlap compute), exactly the optional features asked for,
// VK_EXT_external_memory_host when offered, and the memory-type facts the allocator needs. Also DeviceHandle, the move-only owner used for
// every child object (fences, pools, pipelines, ...).
#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vulkan/api.h"

#include "common/error.h"
#include "vulkan/instance.h"
#include "vulkan/snapshot.h"

namespace openvgf::vulkan {

/// Owns one handle created from a VkDevice; destroyed with `*Destroy` when it goes away.
/// `Destroy` is the address of the loaded function pointer (see api.h).
template <typename H, void (VKAPI_PTR** Destroy)(VkDevice, H, const VkAllocationCallbacks*)>
class DeviceHandle {
 public:
  DeviceHandle() = default;
  DeviceHandle(VkDevice device, H handle) : device_(device), handle_(handle) {}
  DeviceHandle(DeviceHandle&& other) noexcept
      : device_(other.device_), handle_(std::exchange(other.handle_, static_cast<H>(VK_NULL_HANDLE))) {}
  DeviceHandle& operator=(DeviceHandle&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, static_cast<H>(VK_NULL_HANDLE));
    }
    return *this;
  }
  DeviceHandle(const DeviceHandle&) = delete;
  DeviceHandle& operator=(const DeviceHandle&) = delete;
  ~DeviceHandle() { reset(); }

  H get() const { return handle_; }
  VkDevice device() const { return device_; }
  explicit operator bool() const { return handle_ != static_cast<H>(VK_NULL_HANDLE); }
  void reset() {
    if (handle_ != static_cast<H>(VK_NULL_HANDLE)) (*Destroy)(device_, handle_, nullptr);
    handle_ = static_cast<H>(VK_NULL_HANDLE);
  }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  H handle_ = static_cast<H>(VK_NULL_HANDLE);
};

struct DeviceOptions {
  FeatureSet features;  // optional features to enable; must be a subset of the snapshot's
  /// Enable VK_KHR_pipeline_executable_properties, so that pipelines keep the driver's
  /// statistics of their compiled code (ComputePipeline::statistics). Unsupported when the
  /// device lacks it.
  bool pipelineStatistics = false;
};

/// One statistic of a compiled pipeline executable (VK_KHR_pipeline_executable_properties),
/// named and valued as the driver reports it, e.g. {"Compute", "Register Count", ..., "128"}.
struct PipelineStatistic {
  std::string executable;  // the executable's name (one per shader stage the driver compiled)
  std::string name;
  std::string description;
  std::string value;  // the number as text (booleans as true/false)
};

/// Which of the device's queues a submission goes to.
enum class Queue { Compute, Transfer };

class Device {
 public:
  /// Creates the logical device on `instance.physicalDevice(index)`. Fails naming the feature
  /// when one asked for is not supported.
  static Result<Device> create(const Instance& instance, std::size_t index, const DeviceOptions& options);

  Device(Device&& other) noexcept;
  Device& operator=(Device&& other) noexcept;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  ~Device();

  VkDevice handle() const { return device_; }
  VkPhysicalDevice physical() const { return physical_; }
  const DeviceSnapshot& snapshot() const { return snapshot_; }
  FeatureSet enabledFeatures() const { return enabled_; }
  /// Shaders' storage-buffer accesses are bounds-checked (robustBufferAccess): on CPU devices,
  /// where an access past a buffer would reach the process's heap (vulkan/device.cpp).
  bool robustBufferAccess() const { return robustBufferAccess_; }
  std::uint32_t queueFamily() const { return queueFamily_; }
  /// Family of Queue::Transfer: a dedicated transfer family, or the compute family when the
  /// device has none (then both names are the one compute queue).
  std::uint32_t transferFamily() const { return transferFamily_; }
  bool hasTransferQueue() const { return transferQueue_ != queue_; }
  /// The distinct families of the queues (buffers used on both are created CONCURRENT).
  std::span<const std::uint32_t> queueFamilies() const { return {families_.data(), hasTransferQueue() ? 2u : 1u}; }
  const VkPhysicalDeviceMemoryProperties& memoryProperties() const { return memory_; }
  /// VK_EXT_external_memory_host is enabled: host allocations can be imported.
  bool canImportHostMemory() const { return getHostPointerProperties_ != nullptr; }
  /// Memory types that can import `pointer` (0 when none or when imports are unavailable).
  std::uint32_t hostPointerMemoryTypes(const void* pointer) const;
  /// DeviceOptions::pipelineStatistics was asked for (and the extension is enabled).
  bool capturesPipelineStatistics() const { return getExecutableStatistics_ != nullptr; }
  /// What the driver reports of the code it compiled for `pipeline` (created while
  /// capturesPipelineStatistics()), every executable's statistics in the driver's order.
  Result<std::vector<PipelineStatistic>> pipelineStatistics(VkPipeline pipeline) const;

  /// Submits to a queue. VkQueue access must be externally synchronized (Vulkan spec
  /// §3.6 "Threading Behavior"), so concurrent sessions serialize here, for the submit only.
  Status submit(const VkSubmitInfo2& info, VkFence fence, Queue queue = Queue::Compute) const;
  /// Several batches in one vkQueueSubmit2 (the fence signals when all have completed).
  Status submit(std::span<const VkSubmitInfo2> infos, VkFence fence, Queue queue = Queue::Compute) const;
  /// Waits for a fence, turning a timeout or a lost device into an error. With `spin` above
  /// zero it first polls the fence for up to that long: a driver's blocking wait sleeps and is
  /// woken tens of microseconds after the GPU finishes, which dominates short runs.
  Status wait(VkFence fence, std::chrono::nanoseconds spin = {}) const;
  /// Waits until a timeline semaphore reaches `value` (same error handling as wait()).
  Status wait(VkSemaphore timeline, std::uint64_t value) const;

 private:
  Device() = default;
  void destroy();

  VkDevice device_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkQueue transferQueue_ = VK_NULL_HANDLE;  // == queue_ without a dedicated transfer family
  std::uint32_t queueFamily_ = 0;
  std::uint32_t transferFamily_ = 0;
  std::array<std::uint32_t, 2> families_{};  // compute, then transfer family
  bool robustBufferAccess_ = false;
  PFN_vkGetMemoryHostPointerPropertiesEXT getHostPointerProperties_ = nullptr;
  PFN_vkGetPipelineExecutablePropertiesKHR getExecutableProperties_ = nullptr;
  PFN_vkGetPipelineExecutableStatisticsKHR getExecutableStatistics_ = nullptr;
  DeviceSnapshot snapshot_;
  FeatureSet enabled_;
  VkPhysicalDeviceMemoryProperties memory_{};
  std::unique_ptr<std::mutex> queueMutex_ = std::make_unique<std::mutex>();
  std::unique_ptr<std::mutex> transferMutex_ = std::make_unique<std::mutex>();
};

}  // namespace openvgf::vulkan
