// SPDX-License-Identifier: Apache-2.0
// `devices` as a library call: every Vulkan device and the one a model would run on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "vulkan/snapshot.h"

namespace openvgf::api {

struct DeviceList {
  std::vector<vulkan::DeviceSnapshot> devices;  // enumeration order
  std::optional<std::size_t> defaultIndex;      // the device chosen without --device
  std::string noDefaultReason;                  // why there is none
};

/// Environment error when no Vulkan loader or driver is installed.
Result<DeviceList> listDevices(bool validate);

}  // namespace openvgf::api
