// SPDX-License-Identifier: Apache-2.0
// The Vulkan instance: loader check, optional validation layer whose messages go to spdlog
// and are counted (a validation error makes the caller's session fail), and the list of
// physical devices as DeviceSnapshots.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "vulkan/api.h"

#include "common/error.h"
#include "vulkan/snapshot.h"

namespace openvgf::vulkan {

struct InstanceOptions {
  /// Enable VK_LAYER_KHRONOS_validation. Also turned on by the environment variable
  /// OPENVGF_VALIDATE=1.
  bool validate = false;
  /// With validation: also the layer's synchronization validation (hazards between commands,
  /// i.e. missing barriers). Slower; used by the tests and `--validate`.
  bool synchronizationValidation = true;
};

/// Counters written by the debug-messenger callback (from any driver thread).
struct ValidationCounters {
  std::atomic<std::uint64_t> errors{0};
  std::atomic<std::uint64_t> warnings{0};
};

class Instance {
 public:
  static Result<Instance> create(const InstanceOptions& options);

  Instance(Instance&& other) noexcept;
  Instance& operator=(Instance&& other) noexcept;
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  ~Instance();

  VkInstance handle() const { return instance_; }
  bool validationEnabled() const { return messenger_ != VK_NULL_HANDLE; }
  /// Validation-layer messages of severity ERROR seen so far (0 when validation is off).
  std::uint64_t validationErrors() const { return counters_->errors.load(); }
  /// Validation-layer messages of severity WARNING seen so far.
  std::uint64_t validationWarnings() const { return counters_->warnings.load(); }

  /// Every physical device, in enumeration order (index = position).
  const std::vector<DeviceSnapshot>& devices() const { return snapshots_; }
  VkPhysicalDevice physicalDevice(std::size_t index) const { return physicalDevices_[index]; }

 private:
  Instance() = default;
  void destroy();

  std::unique_ptr<ValidationCounters> counters_ = std::make_unique<ValidationCounters>();
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  std::vector<VkPhysicalDevice> physicalDevices_;
  std::vector<DeviceSnapshot> snapshots_;
};

/// Reads everything a DeviceSnapshot holds from a physical device of `instance`.
DeviceSnapshot snapshotDevice(VkInstance instance, VkPhysicalDevice device, std::uint32_t index);
/// Fills the cooperative-matrix shapes of `s` whose features s.features has (coopmat_probe.cpp).
void snapshotCooperativeMatrices(VkInstance instance, VkPhysicalDevice device, DeviceSnapshot& s);

}  // namespace openvgf::vulkan
