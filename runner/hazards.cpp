// SPDX-License-Identifier: Apache-2.0
// HazardTracker: RAW/WAW/WAR detection per memory region, one global barrier per command.
#include "runner/hazards.h"

namespace openvgf::runner {
namespace {

VkAccessFlags2 readAccess(VkPipelineStageFlags2 stage) {
  VkAccessFlags2 access = 0;
  if (stage & VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT) access |= VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
  if (stage & VK_PIPELINE_STAGE_2_COPY_BIT) access |= VK_ACCESS_2_TRANSFER_READ_BIT;
  if (stage & VK_PIPELINE_STAGE_2_HOST_BIT) access |= VK_ACCESS_2_HOST_READ_BIT;
  return access;
}

VkAccessFlags2 writeAccess(VkPipelineStageFlags2 stage) {
  VkAccessFlags2 access = 0;
  if (stage & VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT) access |= VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
  if (stage & VK_PIPELINE_STAGE_2_COPY_BIT) access |= VK_ACCESS_2_TRANSFER_WRITE_BIT;
  if (stage & VK_PIPELINE_STAGE_2_HOST_BIT) access |= VK_ACCESS_2_HOST_WRITE_BIT;
  return access;
}

}  // namespace

std::optional<VkMemoryBarrier2> HazardTracker::use(std::span<const RegionUse> uses) {
  VkPipelineStageFlags2 src = 0, dst = 0;
  VkAccessFlags2 srcAccess = 0;
  for (const RegionUse& u : uses) {
    const State& s = states_[u.region];
    // RAW / WAW: the last write must be made available and visible to this stage.
    if (s.writeStage != 0 && !(s.visibleTo & u.stage) && (u.read || u.write)) {
      src |= s.writeStage;
      srcAccess |= s.writeAccess;
      dst |= u.stage;
    }
    // WAR: earlier reads must finish before this write starts (no memory dependency needed).
    if (u.write && s.readStages != 0 && !(s.readsOrderedBefore & u.stage)) {
      src |= s.readStages;
      dst |= u.stage;
    }
  }
  std::optional<VkMemoryBarrier2> barrier;
  if (dst != 0) {
    VkMemoryBarrier2 b{};
    b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2;
    b.srcStageMask = src;
    b.srcAccessMask = srcAccess;
    b.dstStageMask = dst;
    // Writes become visible to both reads and writes of the destination stages, so one barrier
    // settles RAW and WAW for every region it covers.
    b.dstAccessMask = srcAccess != 0 ? (readAccess(dst) | writeAccess(dst)) : 0;
    barrier = b;
    // A global barrier covers every region whose pending accesses lie in its source scope.
    for (State& s : states_) {
      if (s.writeStage != 0 && (s.writeStage & ~src) == 0 && (s.writeAccess & ~srcAccess) == 0) s.visibleTo |= dst;
      if (s.readStages != 0 && (s.readStages & ~src) == 0) s.readsOrderedBefore |= dst;
    }
  }
  for (const RegionUse& u : uses) {
    State& s = states_[u.region];
    if (u.write) {
      s = State{};
      s.writeStage = u.stage;
      s.writeAccess = writeAccess(u.stage);
    } else if (u.read) {
      s.readStages |= u.stage;
      s.readsOrderedBefore = 0;
    }
  }
  return barrier;
}

}  // namespace openvgf::runner
