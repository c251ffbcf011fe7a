// SPDX-License-Identifier: Apache-2.0
// HazardTracker: barriers only where data dependencies need them, with exact masks.
#include <gtest/gtest.h>

#include "runner/hazards.h"

namespace openvgf::runner {
namespace {

constexpr VkPipelineStageFlags2 kCompute = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags2 kCopy = VK_PIPELINE_STAGE_2_COPY_BIT;
constexpr VkPipelineStageFlags2 kHost = VK_PIPELINE_STAGE_2_HOST_BIT;

RegionUse read(std::uint32_t r, VkPipelineStageFlags2 stage = kCompute) { return {r, stage, true, false}; }
RegionUse write(std::uint32_t r, VkPipelineStageFlags2 stage = kCompute) { return {r, stage, false, true}; }

TEST(Hazards, IndependentDispatchesNeedNoBarrier) {
  HazardTracker t(4);
  RegionUse a[] = {read(0), write(1)};
  RegionUse b[] = {read(0), write(2)};
  EXPECT_FALSE(t.use(a));
  EXPECT_FALSE(t.use(b));
}

TEST(Hazards, ReadAfterWriteMakesTheWriteVisible) {
  HazardTracker t(3);
  RegionUse a[] = {read(0), write(1)};
  RegionUse b[] = {read(1), write(2)};
  EXPECT_FALSE(t.use(a));
  std::optional<VkMemoryBarrier2> barrier = t.use(b);
  ASSERT_TRUE(barrier);
  EXPECT_EQ(barrier->srcStageMask, kCompute);
  EXPECT_EQ(barrier->srcAccessMask, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
  EXPECT_EQ(barrier->dstStageMask, kCompute);
  EXPECT_EQ(barrier->dstAccessMask, VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
  // Region 1 is now visible to compute: a second reader needs nothing.
  RegionUse c[] = {read(1)};
  EXPECT_FALSE(t.use(c));
}

TEST(Hazards, WriteAfterReadNeedsAnExecutionDependencyOnly) {
  HazardTracker t(2);
  RegionUse a[] = {read(0)};
  RegionUse b[] = {write(0)};
  EXPECT_FALSE(t.use(a));
  std::optional<VkMemoryBarrier2> barrier = t.use(b);
  ASSERT_TRUE(barrier);
  EXPECT_EQ(barrier->srcStageMask, kCompute);
  EXPECT_EQ(barrier->srcAccessMask, 0u);
  EXPECT_EQ(barrier->dstAccessMask, 0u);
}

TEST(Hazards, WriteAfterWrite) {
  HazardTracker t(1);
  RegionUse w[] = {write(0)};
  EXPECT_FALSE(t.use(w));
  std::optional<VkMemoryBarrier2> barrier = t.use(w);
  ASSERT_TRUE(barrier);
  EXPECT_EQ(barrier->srcAccessMask, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

TEST(Hazards, OneBarrierCoversEveryPendingRegionInItsScope) {
  HazardTracker t(4);
  RegionUse a[] = {write(0)};
  RegionUse b[] = {write(1)};
  RegionUse c[] = {read(0)};
  RegionUse d[] = {read(1)};
  EXPECT_FALSE(t.use(a));
  EXPECT_FALSE(t.use(b));
  EXPECT_TRUE(t.use(c));   // covers region 1's write as well
  EXPECT_FALSE(t.use(d));
}

TEST(Hazards, CopyAndHostStagesGetTheirOwnMasks) {
  HazardTracker t(3);
  RegionUse upload[] = {read(0, kCopy), write(1, kCopy)};
  RegionUse dispatch[] = {read(1), write(2)};
  RegionUse hostRead[] = {read(2, kHost)};
  EXPECT_FALSE(t.use(upload));
  std::optional<VkMemoryBarrier2> b1 = t.use(dispatch);
  ASSERT_TRUE(b1);
  EXPECT_EQ(b1->srcStageMask, kCopy);
  EXPECT_EQ(b1->srcAccessMask, VK_ACCESS_2_TRANSFER_WRITE_BIT);
  std::optional<VkMemoryBarrier2> b2 = t.use(hostRead);
  ASSERT_TRUE(b2);
  EXPECT_EQ(b2->dstStageMask, kHost);
  EXPECT_EQ(b2->dstAccessMask & VK_ACCESS_2_HOST_READ_BIT, VK_ACCESS_2_HOST_READ_BIT);
}

TEST(Hazards, VisibilityToComputeDoesNotCoverALaterCopy) {
  HazardTracker t(3);
  RegionUse w0[] = {write(0)};
  RegionUse w1[] = {write(1)};
  RegionUse r0[] = {read(0)};
  RegionUse copy1[] = {read(1, kCopy), write(2, kCopy)};
  EXPECT_FALSE(t.use(w0));
  EXPECT_FALSE(t.use(w1));
  EXPECT_TRUE(t.use(r0));     // region 1 made visible to compute only
  EXPECT_TRUE(t.use(copy1));  // the copy still needs its own barrier
}

}  // namespace
}  // namespace openvgf::runner
