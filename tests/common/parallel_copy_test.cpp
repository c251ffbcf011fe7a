// SPDX-License-Identifier: Apache-2.0
// parallelCopy against the bytes it was given: sizes below and above the threshold, odd
// sizes whose parts do not divide evenly, unaligned ends, and concurrent callers.
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

}  // namespace
}  // namespace openvgf
