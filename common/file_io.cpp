// SPDX-License-Identifier: Apache-2.0
#include "common/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

namespace openvgf {

namespace {

std::string errnoText() { return std::strerror(errno); }

}  // namespace

Result<std::vector<std::uint8_t>> readFile(const std::filesystem::path& path) {
  OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  auto bytes = file.bytes();
  return std::vector<std::uint8_t>(bytes.begin(), bytes.end());
}

Result<MappedFile> MappedFile::open(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return invalidInput("{}: cannot open: {}", path.string(), errnoText());
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string why = errnoText();
    ::close(fd);
    return invalidInput("{}: cannot stat: {}", path.string(), why);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return invalidInput("{}: not a regular file", path.string());
  }
  MappedFile file;
  file.path_ = path;
  file.size_ = static_cast<std::size_t>(st.st_size);
  if (file.size_ > 0) {
    void* p = ::mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      std::string why = errnoText();
      ::close(fd);
      return environmentError("{}: cannot map: {}", path.string(), why);
    }
    file.data_ = static_cast<const std::uint8_t*>(p);
    file.mapped_ = true;
  }
  ::close(fd);
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)), data_(other.data_), size_(other.size_), mapped_(other.mapped_) {
  other.data_ = nullptr;
  other.size_ = 0;
  other.mapped_ = false;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    data_ = other.data_;
    size_ = other.size_;
    mapped_ = other.mapped_;
    other.data_ = nullptr;
    other.size_ = 0;
    other.mapped_ = false;
  }
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() {
  if (mapped_ && data_ != nullptr) {
    ::munmap(const_cast<std::uint8_t*>(data_), size_);
  }
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
}

Status writeFileAtomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return invalidInput("{}: output folder {} does not exist", path.string(), dir.string());
  }
  std::random_device rd;
  std::filesystem::path tmp = dir / fmt::format(".{}.tmp{:08x}", path.filename().string(), rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return environmentError("{}: cannot create: {}", path.string(), errnoText());
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = errnoText();
      ::close(fd);
      ::unlink(tmp.c_str());
      return environmentError("{}: write failed: {}", path.string(), why);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    std::string why = errnoText();
    ::unlink(tmp.c_str());
    return environmentError("{}: write failed: {}", path.string(), why);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = errnoText();
    ::unlink(tmp.c_str());
    return environmentError("{}: cannot rename into place: {}", path.string(), why);
  }
  return {};
}

Status writeFileAtomic(const std::filesystem::path& path, std::string_view text) {
  return writeFileAtomic(
      path, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

}  // namespace openvgf
