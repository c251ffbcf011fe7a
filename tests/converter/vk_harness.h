// SPDX-License-Identifier: Apache-2.0
// A minimal Vulkan executor for converter tests: runs every segment of a vgf::File in
// order on the first Vulkan device (lavapipe in CI) with the validation layer on, one
// buffer per alias group, a full barrier between dispatches. Independent of runner/ so the
// converter is checked on its own; any validation message is reported as a failure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "vgf/file.h"

namespace openvgf::testing {

struct HarnessRun {
  std::vector<std::vector<std::uint8_t>> outputs;  // model outputs in order
  std::vector<std::string> validationMessages;     // warnings and errors of the layer
};

/// Inputs are the model inputs in order, as tightly packed storage bytes.
Result<HarnessRun> runVgf(const vgf::File& file, const std::vector<std::vector<std::uint8_t>>& inputs);

/// True if a Vulkan device can be created (tests skip otherwise).
bool vulkanAvailable();

}  // namespace openvgf::testing
