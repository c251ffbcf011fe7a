// SPDX-License-Identifier: Apache-2.0
#include "api/devices.h"

#include "vulkan/instance.h"

namespace openvgf::api {

Result<DeviceList> listDevices(bool validate) {
  OPENVGF_ASSIGN_OR_RETURN(vulkan::Instance instance, vulkan::Instance::create({.validate = validate}));
  DeviceList list;
  list.devices = instance.devices();
  Result<std::size_t> chosen = vulkan::chooseDevice(list.devices, "");
  if (chosen) {
    list.defaultIndex = *chosen;
  } else {
    list.noDefaultReason = chosen.error().message();
  }
  return list;
}

}  // namespace openvgf::api
