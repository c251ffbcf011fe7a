// SPDX-License-Identifier: Apache-2.0
// Cache entries (common/cache_entry.h): a payload comes back only under the key it was stored
// with and only intact; every other file at that path is a miss.
#include "common/cache_entry.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/file_io.h"

namespace openvgf {
namespace {

namespace fs = std::filesystem;

class CacheEntry : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("openvgf-cache-entry-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    file_ = dir_ / "sub" / "entry.bin";
    ASSERT_TRUE(writeCacheEntry(file_, "models/abc", payload_));
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::vector<std::uint8_t> bytes() const { return readFile(file_).value(); }
  void put(const std::vector<std::uint8_t>& b) const { ASSERT_TRUE(writeFileAtomic(file_, std::span(b))); }

  fs::path dir_, file_;
  const std::vector<std::uint8_t> payload_{1, 2, 3, 4, 5, 6, 7, 8, 9};
};

TEST_F(CacheEntry, RoundTripsUnderItsKeyOnly) {
  EXPECT_EQ(readCacheEntry(file_, "models/abc"), payload_);
  EXPECT_FALSE(readCacheEntry(file_, "models/abd"));
  EXPECT_FALSE(readCacheEntry(file_, "models/ab"));
  EXPECT_FALSE(readCacheEntry(dir_ / "sub" / "absent.bin", "models/abc"));
}

TEST_F(CacheEntry, EveryFlippedBitIsAMiss) {
  const std::vector<std::uint8_t> good = bytes();
  for (std::size_t i = 0; i < good.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<std::uint8_t> bad = good;
      bad[i] ^= static_cast<std::uint8_t>(1 << bit);
      put(bad);
      EXPECT_FALSE(readCacheEntry(file_, "models/abc")) << "byte " << i << " bit " << bit;
    }
  }
}

TEST_F(CacheEntry, TruncatedExtendedAndForeignFilesAreMisses) {
  const std::vector<std::uint8_t> good = bytes();
  for (std::size_t n = 0; n < good.size(); ++n) {
    put(std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n)));
    EXPECT_FALSE(readCacheEntry(file_, "models/abc")) << n << " bytes";
  }
  std::vector<std::uint8_t> longer = good;
  longer.push_back(0);
  put(longer);
  EXPECT_FALSE(readCacheEntry(file_, "models/abc"));
  put(payload_);  // an entry of the format before entries had headers
  EXPECT_FALSE(readCacheEntry(file_, "models/abc"));
}

TEST_F(CacheEntry, FolderWritableByOthersIsNeitherReadNorWritten) {
  const fs::path folder = file_.parent_path();
  EXPECT_EQ(untrustedCacheFolder(folder), "");
  ASSERT_EQ(::chmod(folder.c_str(), 0775), 0);
  EXPECT_NE(untrustedCacheFolder(folder), "");
  EXPECT_FALSE(readCacheEntry(file_, "models/abc"));
  EXPECT_FALSE(writeCacheEntry(folder / "other.bin", "models/x", payload_));
  ASSERT_EQ(::chmod(folder.c_str(), 01777), 0);  // sticky, like /tmp: others cannot replace our files
  EXPECT_EQ(untrustedCacheFolder(folder), "");
  EXPECT_EQ(readCacheEntry(file_, "models/abc"), payload_);
}

}  // namespace
}  // namespace openvgf
