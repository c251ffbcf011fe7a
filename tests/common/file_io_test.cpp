// SPDX-License-Identifier: Apache-2.0
#include "common/file_io.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace openvgf {
namespace {

TEST(FileIo, AtomicWriteThenMapReadsSameBytes) {
  auto dir = std::filesystem::temp_directory_path() / "openvgf_file_io_test";
  std::filesystem::create_directories(dir);
  auto path = dir / "a.bin";
  std::vector<std::uint8_t> bytes = {1, 2, 3, 250};
  ASSERT_TRUE(writeFileAtomic(path, bytes));
  auto read = readFile(path);
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, bytes);
  // Only the target file is left behind (no temporaries).
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  std::filesystem::remove_all(dir);
}

TEST(FileIo, MissingFileNamesThePath) {
  auto r = MappedFile::open("/nonexistent/x.tosa");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("/nonexistent/x.tosa"), std::string::npos);
  EXPECT_EQ(r.error().exitCode(), 2);
}

TEST(FileIo, WriteIntoMissingFolderFails) {
  auto r = writeFileAtomic("/nonexistent-folder/out.npy", std::string_view("x"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("does not exist"), std::string::npos);
}

}  // namespace
}  // namespace openvgf
