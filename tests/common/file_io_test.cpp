// SPDX-License-Identifier: Apache-2.0
#include "common/file_io.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

namespace openvgf {
namespace {

TEST(FileIo, AtomicWriteThenMapReadsSameBytes) {
  auto dir = testing::processTempDir("openvgf_file_io_test");
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

// A fresh folder per test, removed afterwards.
class OutputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("openvgf_outputs_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string text(const std::filesystem::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::filesystem::path dir_;
};

TEST_F(OutputFiles, AReplacedFileKeepsItsPermissions) {
  auto path = dir_ / "model.vgf";
  ASSERT_TRUE(writeFileAtomic(path, std::string_view("old")));
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  ASSERT_TRUE(writeFileAtomic(path, std::string_view("new")));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(text(path), "new");
}

TEST_F(OutputFiles, ASymlinkIsWrittenThroughAndKept) {
  auto target = dir_ / "real.bin";
  auto link = dir_ / "link.bin";
  ASSERT_TRUE(writeFileAtomic(target, std::string_view("old")));
  std::filesystem::create_symlink(target, link);
  ASSERT_TRUE(writeFileAtomic(link, std::string_view("new")));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(text(target), "new");
  // A dangling link creates the file it names.
  auto dangling = dir_ / "dangling.bin";
  std::filesystem::create_symlink(dir_ / "created.bin", dangling);
  ASSERT_TRUE(writeFileAtomic(dangling, std::string_view("made")));
  EXPECT_TRUE(std::filesystem::is_symlink(dangling));
  EXPECT_EQ(text(dir_ / "created.bin"), "made");
}

TEST_F(OutputFiles, DevNullIsWrittenNotReplaced) {
  ASSERT_TRUE(checkOutputPath("/dev/null", "-o"));
  ASSERT_TRUE(writeFileAtomic("/dev/null", std::string_view("discarded")));
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(OutputFiles, AFifoIsWrittenThrough) {
  auto fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = text(fifo); });
  ASSERT_TRUE(checkOutputPath(fifo, "-o"));
  Status written = writeFileAtomic(fifo, std::string_view("through the pipe"));
  reader.join();
  ASSERT_TRUE(written) << written.error().message();
  EXPECT_EQ(received, "through the pipe");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(OutputFiles, FoldersAndMissingFoldersAreRefusedUpFront) {
  Status folder = checkOutputPath(dir_, "--output");
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().message(), "--output " + dir_.string() + ": expected a file path, got a folder");
  EXPECT_FALSE(writeFileAtomic(dir_, std::string_view("x")));
  Status missing = checkOutputPath(dir_ / "absent" / "y.npy", "--output");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().exitCode(), 2);
  EXPECT_NE(missing.error().message().find("does not exist"), std::string::npos);
  EXPECT_TRUE(checkOutputFolder(dir_ / "new" / "deeper", "--output-dir"));
  ASSERT_TRUE(writeFileAtomic(dir_ / "file", std::string_view("x")));
  Status underFile = checkOutputFolder(dir_ / "file" / "sub", "--output-dir");
  ASSERT_FALSE(underFile);
  EXPECT_NE(underFile.error().message().find("expected a folder, got a file"), std::string::npos);
}

TEST_F(OutputFiles, AFolderIsWrittenWholeOrNotAtAll) {
  const std::string a = "payload", m = "manifest";
  std::vector<FolderEntry> entries = {{"a.bin", std::span(reinterpret_cast<const std::uint8_t*>(a.data()), a.size())},
                                      {"manifest.json",
                                       std::span(reinterpret_cast<const std::uint8_t*>(m.data()), m.size())}};
  ASSERT_TRUE(writeFolderAtomic(dir_ / "out", entries));
  EXPECT_EQ(text(dir_ / "out" / "a.bin"), a);
  EXPECT_EQ(text(dir_ / "out" / "manifest.json"), m);
  // Into an existing folder with other files: they stay, ours are replaced.
  ASSERT_TRUE(writeFileAtomic(dir_ / "out" / "mine.txt", std::string_view("keep")));
  ASSERT_TRUE(writeFolderAtomic(dir_ / "out", entries));
  EXPECT_EQ(text(dir_ / "out" / "mine.txt"), "keep");
  // A failure part-way (the second entry cannot be written) leaves no folder and no temporary.
  std::vector<FolderEntry> broken = {entries[0], {"bad/name", entries[1].bytes}};
  EXPECT_FALSE(writeFolderAtomic(dir_ / "never", broken));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "never"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);  // only out/
}

}  // namespace
}  // namespace openvgf
