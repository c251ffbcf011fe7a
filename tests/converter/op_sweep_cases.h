// SPDX-License-Identifier: Apache-2.0
// The operator sweep: every supported operator and type combination of PRO-INT, PRO-FP,
// EXT-INT16, EXT-INT4, EXT-BF16 (and the FP8 variants the kernels cover) as a single-op graph
// built with tosa::Builder from seeded random shapes, parameters and data (with edge values).
// op_sweep_test runs each case on Vulkan against the reference interpreter; vgf_hashes_test
// converts each one and compares the VGF bytes with a recorded list.
#pragma once

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tosa/builder.h"

namespace openvgf::testing {

struct Case {
  std::string name;
  std::function<void(tosa::Builder&, std::vector<tosa::HostTensor>&, std::mt19937&)> build;
};

/// Every case, in a fixed order with unique names.
std::vector<Case> allCases();

/// The seed of a case's random stream (derived from its name).
std::uint32_t caseSeed(const std::string& name);

}  // namespace openvgf::testing
