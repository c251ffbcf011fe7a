// SPDX-License-Identifier: Apache-2.0
// `devices` as a library call: every Vulkan device and the one a model would run on.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/device_caps.h"
#include "common/error.h"
#include "vulkan/snapshot.h"

namespace openvgf::api {

struct DeviceList {
  std::vector<vulkan::DeviceSnapshot> devices;  // enumeration order
  /// Per device: bytes of the largest DEVICE_LOCAL heap with a HOST_VISIBLE memory type (the
  /// BAR window; resizable BAR on a discrete GPU when >= vulkan::kLargeBarHeapBytes), 0 if none.
  std::vector<std::uint64_t> hostVisibleDeviceLocalBytes;
  std::optional<std::size_t> defaultIndex;      // the device chosen without --device
  std::string noDefaultReason;                  // why there is none
};

/// Environment error when no Vulkan loader or driver is installed.
Result<DeviceList> listDevices(bool validate);

/// The facts `--target native` converts for: those of the device `selector` picks among
/// `devices` by the rule the runner opens devices with (vulkan::chooseDevice), so a model is
/// converted for the device that runs it. Pure: tests pass fake snapshots.
Result<DeviceCaps> nativeDeviceCaps(std::span<const vulkan::DeviceSnapshot> devices, std::string_view selector);
/// The same over this machine's devices, snapshotted once per process: the devices do not
/// change while it runs, and some drivers do not survive many instances being created (on an
/// NVIDIA H100 a later vkCreateInstance failed after a few dozen).
Result<DeviceCaps> nativeDeviceCaps(std::string_view selector);

/// OPENVGF_TUNING, the tuning-table overrides of `--target native` (docs/converter-and-targets.md),
/// read where a command or API call starts and passed down; "" when unset.
std::string tuningFromEnvironment();

}  // namespace openvgf::api
