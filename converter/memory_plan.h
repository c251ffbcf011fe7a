// SPDX-License-Identifier: Apache-2.0
// The memory plan: lifetimes of intermediate tensors over the kernel order, greedily
// packed into alias groups (tensors of one group are never live at the same time and
// share one buffer range of the group's largest member).
#pragma once

#include <cstdint>
#include <vector>

#include "converter/plan.h"

namespace openvgf::converter {

struct MemoryPlan {
  std::vector<std::uint32_t> aliasGroup;  // per plan tensor; vgf::kUnset for non-intermediates
  std::uint64_t peakLiveBytes = 0;        // max over kernels of bytes of live intermediates
  std::uint64_t unaliasedBytes = 0;       // sum of all intermediate sizes
  std::uint64_t plannedBytes = 0;         // sum over groups of the largest member
  std::uint32_t groups = 0;
};

/// Bytes of a plan tensor in GPU storage.
std::uint64_t tensorBytes(const PlanTensor& tensor);

MemoryPlan planMemory(const Plan& plan);

}  // namespace openvgf::converter
