// SPDX-License-Identifier: Apache-2.0
// `openvgf devices [--json]`: prints openvgf::describeDevices (the devices, their limits, the
// optional features openvgf uses and host I/O facts; the default device marked).
#include <cstdio>
#include <memory>

#include "command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

void setup(CLI::App& sub, Action& action) {
  auto json = std::make_shared<bool>(false);
  auto validate = std::make_shared<bool>(false);
  sub.add_flag("--json", *json, "Print JSON");
  sub.add_flag("--validate", *validate, "Enable the Vulkan validation layer");
  action = [json, validate]() -> int {
    std::fputs(describeDevices(*json, *validate).c_str(), stdout);
    return 0;
  };
}

OPENVGF_REGISTER_COMMAND({"devices", "List Vulkan devices, their limits and the optional features openvgf uses", 50,
                          setup});

}  // namespace
}  // namespace openvgf::cli
