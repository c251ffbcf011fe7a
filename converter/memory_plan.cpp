// SPDX-License-Identifier: Apache-2.0
// Greedy interval packing of intermediate tensors into alias groups. Deterministic: ties
// are broken by tensor id, never by container iteration order.
#include "converter/memory_plan.h"

#include <algorithm>

#include "converter/kernels/common.h"

namespace openvgf::converter {

std::uint64_t tensorBytes(const PlanTensor& tensor) {
  return static_cast<std::uint64_t>(tosa::elementCount(tensor.shape)) * storageBytes(tensor.dtype);
}

MemoryPlan planMemory(const Plan& plan) {
  const std::size_t n = plan.tensors.size();
  MemoryPlan result;
  result.aliasGroup.assign(n, vgf::kUnset);
  constexpr std::size_t kNever = SIZE_MAX;
  std::vector<std::size_t> first(n, kNever), last(n, 0);
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    for (std::size_t id : plan.kernels[k].bindings) {
      if (first[id] == kNever) first[id] = k;
      last[id] = k;
    }
  }
  std::vector<std::size_t> order;
  for (std::size_t id = 0; id < n; ++id) {
    if (plan.tensors[id].category == vgf::ResourceCategory::Intermediate && first[id] != kNever) order.push_back(id);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return first[a] < first[b]; });

  struct Group {
    std::uint64_t bytes = 0;
    std::size_t busyUntil = 0;  // last kernel of the current member
  };
  std::vector<Group> groups;
  for (std::size_t id : order) {
    const std::uint64_t bytes = tensorBytes(plan.tensors[id]);
    result.unaliasedBytes += bytes;
    // Best fit among free groups: the smallest that holds it, else the largest (grows).
    std::size_t best = SIZE_MAX;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].busyUntil >= first[id]) continue;
      if (best == SIZE_MAX) {
        best = g;
        continue;
      }
      const bool fitsG = groups[g].bytes >= bytes, fitsBest = groups[best].bytes >= bytes;
      if (fitsG != fitsBest ? fitsG : (fitsG ? groups[g].bytes < groups[best].bytes : groups[g].bytes > groups[best].bytes)) {
        best = g;
      }
    }
    if (best == SIZE_MAX) {
      groups.push_back(Group{});
      best = groups.size() - 1;
    }
    groups[best].bytes = std::max(groups[best].bytes, bytes);
    groups[best].busyUntil = last[id];
    result.aliasGroup[id] = static_cast<std::uint32_t>(best);
  }
  for (const Group& g : groups) result.plannedBytes += g.bytes;
  result.groups = static_cast<std::uint32_t>(groups.size());
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    std::uint64_t live = 0;
    for (std::size_t id : order) {
      if (first[id] <= k && k <= last[id]) live += tensorBytes(plan.tensors[id]);
    }
    result.peakLiveBytes = std::max(result.peakLiveBytes, live);
  }
  return result;
}

}  // namespace openvgf::converter
