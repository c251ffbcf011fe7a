// SPDX-License-Identifier: Apache-2.0
// parallelCopy against the bytes it was given: sizes below and above the threshold, odd
// sizes whose parts do not divide evenly, unaligned ends, and concurrent callers; pipelinedCopy:
// each piece complete (and every earlier one) when its call comes, calls in order.
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/parallel_copy.h"

namespace openvgf {
namespace {

std::vector<std::uint8_t> pattern(std::size_t bytes, std::uint32_t seed) {
  std::vector<std::uint8_t> v(bytes);
  std::uint32_t x = seed;
  for (std::uint8_t& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::uint8_t>(x >> 24);
  }
  return v;
}

TEST(ParallelCopy, CopiesEverySizeExactly) {
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, kParallelCopyMinBytes - 1,
                            kParallelCopyMinBytes, (std::size_t{9} << 20) + 13, (std::size_t{33} << 20) + 4097}) {
    std::vector<std::uint8_t> source = pattern(bytes + 3, static_cast<std::uint32_t>(bytes));
    std::vector<std::uint8_t> target(bytes + 8, 0xAB);
    // Odd offsets on both sides: parts need not be aligned.
    parallelCopy(target.data() + 5, source.data() + 3, bytes);
    ASSERT_TRUE(std::equal(source.begin() + 3, source.begin() + 3 + static_cast<std::ptrdiff_t>(bytes),
                           target.begin() + 5))
        << bytes << " bytes";
    for (std::size_t i : {std::size_t{0}, std::size_t{4}}) EXPECT_EQ(target[i], 0xAB) << "byte before, " << bytes;
    for (std::size_t i = bytes + 5; i < target.size(); ++i) EXPECT_EQ(target[i], 0xAB) << "byte after, " << bytes;
  }
}

TEST(ParallelCopy, ConcurrentCallersShareThePool) {
  constexpr std::size_t kBytes = (std::size_t{12} << 20) + 7;
  std::vector<std::uint8_t> a = pattern(kBytes, 1), b = pattern(kBytes, 2);
  std::vector<std::uint8_t> ta(kBytes), tb(kBytes);
  std::thread other([&] {
    for (int i = 0; i < 4; ++i) parallelCopy(tb.data(), b.data(), kBytes);
  });
  for (int i = 0; i < 4; ++i) parallelCopy(ta.data(), a.data(), kBytes, 3);
  other.join();
  EXPECT_EQ(ta, a);
  EXPECT_EQ(tb, b);
}

TEST(ParallelCopy, ThreadsFromTheEnvironmentOrAtMostEight) {
  EXPECT_EQ(copyThreads(nullptr, 16), 8u);
  EXPECT_EQ(copyThreads(nullptr, 2), 2u);
  EXPECT_EQ(copyThreads(nullptr, 0), 1u);  // hardware_concurrency() unknown
  EXPECT_EQ(copyThreads("", 4), 4u);
  EXPECT_EQ(copyThreads("16", 4), 16u);
  EXPECT_EQ(copyThreads("1", 16), 1u);
  EXPECT_EQ(copyThreads("64", 16), 64u);
  for (const char* refused : {"0", "65", "-3", "8x", "x", " 4", "99999999999999999999"}) {
    EXPECT_EQ(copyThreads(refused, 16), 8u) << refused;
  }
}

TEST(PipelinedCopy, CallsBackInOrderOnceEachPieceAndTheOnesBeforeAreCopied) {
  const std::size_t sizes[] = {0, 1, 4096, (std::size_t{300} << 10) + 3, (std::size_t{5} << 20) + 11, 0,
                               std::size_t{2} << 20, 7};
  std::vector<std::vector<std::uint8_t>> sources, targets;
  std::vector<CopyPiece> pieces;
  for (std::size_t k = 0; k < std::size(sizes); ++k) {
    sources.push_back(pattern(sizes[k] + 1, static_cast<std::uint32_t>(k + 7)));
    targets.emplace_back(sizes[k] + 2, 0xAB);
  }
  for (std::size_t k = 0; k < std::size(sizes); ++k) {
    // Odd source offsets: pieces need not be aligned.
    pieces.push_back({targets[k].data(), sources[k].data() + 1, sizes[k]});
  }
  std::vector<std::size_t> calls;
  pipelinedCopy(pieces, [&](std::size_t k) {
    calls.push_back(k);
    for (std::size_t j = 0; j <= k; ++j) {
      ASSERT_TRUE(std::equal(sources[j].begin() + 1, sources[j].end(), targets[j].begin())) << "piece " << j;
    }
  });
  ASSERT_EQ(calls.size(), std::size(sizes));
  for (std::size_t k = 0; k < calls.size(); ++k) EXPECT_EQ(calls[k], k);
  for (std::size_t k = 0; k < std::size(sizes); ++k) {
    // Nothing written past a piece.
    EXPECT_EQ(targets[k][sizes[k]], 0xAB) << "piece " << k;
    EXPECT_EQ(targets[k][sizes[k] + 1], 0xAB) << "piece " << k;
  }
  calls.clear();
  pipelinedCopy({}, [&](std::size_t k) { calls.push_back(k); });
  EXPECT_TRUE(calls.empty());
}

}  // namespace
}  // namespace openvgf
