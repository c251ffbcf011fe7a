// SPDX-License-Identifier: Apache-2.0
// `devices` as a library call: every Vulkan device and the one a model would run on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

}  // namespace openvgf::api
