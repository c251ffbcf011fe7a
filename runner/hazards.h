// SPDX-License-Identifier: Apache-2.0
// Barrier planning from data dependencies (STYLE.md item 15). Each command declares which
// memory regions it reads and writes at which pipeline stage; the tracker answers with the one
// global memory barrier needed before it (RAW, WAW: make the write available and visible;
// WAR: execution dependency only), or none. Pure bookkeeping: no Vulkan calls.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "vulkan/api.h"

namespace openvgf::runner {

struct RegionUse {
  std::uint32_t region = 0;
  VkPipelineStageFlags2 stage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;  // exactly one of COMPUTE, COPY, HOST
  bool read = false;
  bool write = false;
};

class HazardTracker {
 public:
  explicit HazardTracker(std::size_t regions) : states_(regions) {}

  /// The barrier to record before a command with these uses (nullopt: none needed). The state
  /// is updated as if that barrier and then the command were executed.
  std::optional<VkMemoryBarrier2> use(std::span<const RegionUse> uses);

 private:
  struct State {
    VkPipelineStageFlags2 writeStage = 0;        // stage of the last write not yet synchronized for all
    VkAccessFlags2 writeAccess = 0;
    VkPipelineStageFlags2 visibleTo = 0;         // stages the last write is available+visible to
    VkPipelineStageFlags2 readStages = 0;        // stages that read since the last write
    VkPipelineStageFlags2 readsOrderedBefore = 0;  // stages those reads are ordered before
  };
  std::vector<State> states_;
};

}  // namespace openvgf::runner
