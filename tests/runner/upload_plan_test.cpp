// SPDX-License-Identifier: Apache-2.0
// planUploadPieces against hand-written tables: the whole-input path when chunking is off or
// everything fits in one chunk, else every staged input cut at chunk multiples, in order.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "runner/upload_plan.h"

namespace openvgf::runner {
namespace {

using Pieces = std::vector<UploadPiece>;

TEST(UploadPlan, WholeInputPathWhenOffOrWhenOneChunkHoldsEverything) {
  const std::vector<std::uint64_t> staged = {100, 0, 28};
  EXPECT_EQ(planUploadPieces(staged, 0), Pieces{});
  EXPECT_EQ(planUploadPieces(staged, 128), Pieces{});   // exactly one chunk
  EXPECT_EQ(planUploadPieces(staged, 4096), Pieces{});
  EXPECT_EQ(planUploadPieces({}, 4), Pieces{});
  EXPECT_EQ(planUploadPieces(std::vector<std::uint64_t>{0, 0}, 4), Pieces{});  // nothing staged
}

TEST(UploadPlan, StagedInputsCutAtChunkMultiplesInOrder) {
  // Input 1 is not staged (pinned, device-resident or in place): no pieces.
  EXPECT_EQ(planUploadPieces(std::vector<std::uint64_t>{10, 0, 7}, 4),
            (Pieces{{0, 0, 4, 0}, {0, 4, 4, 1}, {0, 8, 2, 2}, {2, 0, 4, 3}, {2, 4, 3, 4}}));
  // Above one chunk in total though each input fits in one: a piece per input.
  EXPECT_EQ(planUploadPieces(std::vector<std::uint64_t>{3, 3}, 4), (Pieces{{0, 0, 3, 0}, {1, 0, 3, 1}}));
  // A batch-32 fp32 224x224x3 input in 2 MiB pieces: 9 whole pieces and the rest.
  const std::uint64_t input = std::uint64_t{32} * 224 * 224 * 3 * 4;
  const std::uint64_t chunk = std::uint64_t{2} << 20;
  Pieces pieces = planUploadPieces(std::vector<std::uint64_t>{input}, chunk);
  ASSERT_EQ(pieces.size(), 10u);
  for (std::size_t k = 0; k < 9; ++k) EXPECT_EQ(pieces[k], (UploadPiece{0, k * chunk, chunk, k}));
  EXPECT_EQ(pieces[9], (UploadPiece{0, 9 * chunk, input - 9 * chunk, 9}));
}

}  // namespace
}  // namespace openvgf::runner
