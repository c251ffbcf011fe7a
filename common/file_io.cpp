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
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever before fstat
  // could refuse it; on a regular file the flag changes nothing.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
    return invalidInput("{}: expected a regular file, got {}", path.string(),
                        S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a folder" : "a device or other special file");
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

namespace {

namespace fs = std::filesystem;

Status writeAll(int fd, const fs::path& path, std::span<const std::uint8_t> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return environmentError("{}: write failed: {}", path.string(), errnoText());
    }
    done += static_cast<std::size_t>(n);
  }
  return {};
}

fs::path folderOf(const fs::path& path) {
  fs::path dir = path.parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

std::string randomSuffix() {
  static thread_local std::random_device rd;
  return fmt::format("{:08x}", rd());
}

// ".<name>.tmp<random>" beside `target`, with the name cut to 64 bytes: a target whose own
// name is near the file system's limit (255 bytes) must still get a temporary that fits.
std::string temporaryName(const fs::path& target) {
  return fmt::format(".{}.tmp{}", target.filename().string().substr(0, 64), randomSuffix());
}

// Best effort: makes a rename durable. A failure here loses nothing already written.
void syncFolder(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

// A character device or FIFO: opened and written, never replaced.
Status writeThrough(const fs::path& path, std::span<const std::uint8_t> bytes, int extraFlags) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | extraFlags, 0666);
  if (fd < 0) return environmentError("{}: cannot open for writing: {}", path.string(), errnoText());
  Status written = writeAll(fd, path, bytes);
  if (::close(fd) != 0 && written) return environmentError("{}: write failed: {}", path.string(), errnoText());
  return written;
}

// `target` is new (existing == nullptr) or a regular file: a temporary file beside it, flushed,
// given the replaced file's mode (and owner, for root), renamed over it.
Status replaceAtomically(const fs::path& target, std::span<const std::uint8_t> bytes, const struct stat* existing) {
  const fs::path dir = folderOf(target);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return invalidInput("{}: output folder {} does not exist", target.string(), dir.string());
  }
  const fs::path tmp = dir / temporaryName(target);
  // New files get 0666 less the umask, as any program's output would.
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, existing ? 0600 : 0666);
  if (fd < 0) return environmentError("{}: cannot create: {}", target.string(), errnoText());
  auto fail = [&](std::string why) -> Status {
    ::close(fd);
    ::unlink(tmp.c_str());
    return environmentError("{}: {}", target.string(), why);
  };
  if (existing != nullptr) {
    if (::geteuid() == 0 && ::fchown(fd, existing->st_uid, existing->st_gid) != 0) {
      return fail(fmt::format("cannot keep the owner of the replaced file: {}", errnoText()));
    }
    if (::fchmod(fd, existing->st_mode & 07777) != 0) {
      return fail(fmt::format("cannot keep the permissions of the replaced file: {}", errnoText()));
    }
  }
  if (Status written = writeAll(fd, target, bytes); !written) return fail(written.error().message());
  if (::fsync(fd) != 0) return fail(fmt::format("cannot flush to disk: {}", errnoText()));
  if (::close(fd) != 0) {
    std::string why = errnoText();
    ::unlink(tmp.c_str());
    return environmentError("{}: write failed: {}", target.string(), why);
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    std::string why = errnoText();
    ::unlink(tmp.c_str());
    return environmentError("{}: cannot rename into place: {}", target.string(), why);
  }
  syncFolder(dir);
  return {};
}

bool writtenThrough(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode); }

}  // namespace

Status writeFileAtomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT) return environmentError("{}: cannot stat: {}", path.string(), errnoText());
    return replaceAtomically(path, bytes, nullptr);
  }
  struct stat st = link;
  if (S_ISLNK(link.st_mode) && ::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return environmentError("{}: cannot stat: {}", path.string(), errnoText());
    // A dangling link: create what it names, through it.
    return writeThrough(path, bytes, O_CREAT | O_TRUNC);
  }
  if (writtenThrough(st.st_mode)) return writeThrough(path, bytes, 0);
  if (S_ISDIR(st.st_mode)) return invalidInput("{}: expected a file path, got a folder", path.string());
  if (!S_ISREG(st.st_mode)) {
    return invalidInput("{}: expected a regular file, character device or FIFO, got another kind of file",
                        path.string());
  }
  if (!S_ISLNK(link.st_mode)) return replaceAtomically(path, bytes, &st);
  // A link to a regular file: replace the file it names and keep the link.
  std::error_code ec;
  fs::path target = fs::canonical(path, ec);
  if (ec) return environmentError("{}: cannot resolve the symbolic link: {}", path.string(), ec.message());
  return replaceAtomically(target, bytes, &st);
}

Status checkOutputPath(const std::filesystem::path& path, std::string_view what) {
  struct stat st {};
  fs::path folder = folderOf(path);
  // Refused now, not after the work: a name the file system cannot hold.
  const long nameMax = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  const std::size_t name = path.filename().string().size();
  if (nameMax > 0 && name > static_cast<std::size_t>(nameMax)) {
    return invalidInput("{} {}: the file name is {} bytes; the file system allows at most {}", what, path.string(),
                        name, nameMax);
  }
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return invalidInput("{} {}: expected a file path, got a folder", what, path.string());
    if (writtenThrough(st.st_mode)) {
      if (::access(path.c_str(), W_OK) != 0) {
        return environmentError("{} {}: cannot write: {}", what, path.string(), errnoText());
      }
      return {};
    }
    if (!S_ISREG(st.st_mode)) {
      return invalidInput("{} {}: expected a regular file, character device or FIFO, got another kind of file", what,
                          path.string());
    }
    std::error_code ec;
    fs::path target = fs::canonical(path, ec);
    if (!ec) folder = folderOf(target);
  } else if (errno != ENOENT) {
    return environmentError("{} {}: cannot stat: {}", what, path.string(), errnoText());
  }
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    return invalidInput("{} {}: the output folder {} does not exist", what, path.string(), folder.string());
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    return environmentError("{} {}: cannot write into the folder {}: {}", what, path.string(), folder.string(),
                            errnoText());
  }
  return {};
}

Status checkOutputFolder(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  fs::path existing = path.empty() ? fs::path(".") : path;
  // The nearest existing ancestor decides: missing folders below it are created when written.
  while (!fs::exists(existing, ec) && existing.has_parent_path() && existing != existing.parent_path()) {
    existing = existing.parent_path();
  }
  if (!fs::exists(existing, ec)) existing = ".";
  if (!fs::is_directory(existing, ec)) {
    return invalidInput("{} {}: expected a folder, got a file at {}", what, path.string(), existing.string());
  }
  if (::access(existing.c_str(), W_OK) != 0) {
    return environmentError("{} {}: cannot write into the folder {}: {}", what, path.string(), existing.string(),
                            errnoText());
  }
  return {};
}

Status writeFolderAtomic(const std::filesystem::path& folder, std::span<const FolderEntry> entries) {
  OPENVGF_TRY(checkOutputFolder(folder, "output folder"));
  std::error_code ec;
  fs::path clean = folder.lexically_normal();
  if (clean.filename().empty()) clean = clean.parent_path();  // "out/" names the folder "out"
  const fs::path parent = folderOf(clean);
  fs::create_directories(parent, ec);
  if (ec) return environmentError("{}: cannot create the folder: {}", parent.string(), ec.message());
  fs::path tmp;
  for (int attempt = 0; attempt < 16 && tmp.empty(); ++attempt) {
    fs::path candidate = parent / temporaryName(clean);
    if (::mkdir(candidate.c_str(), 0777) == 0) tmp = candidate;  // the umask applies, as for mkdir(1)
    else if (errno != EEXIST) return environmentError("{}: cannot create: {}", candidate.string(), errnoText());
  }
  if (tmp.empty()) return environmentError("{}: cannot create a temporary folder beside it", clean.string());
  auto cleanup = [&](Error error) -> Status {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    return Unexpected(std::move(error));
  };
  for (const FolderEntry& entry : entries) {
    if (entry.name.empty() || entry.name.find('/') != std::string::npos || entry.name == "." || entry.name == "..") {
      return cleanup(Error(ErrorKind::Internal, fmt::format("{}: invalid file name '{}'", clean.string(), entry.name)));
    }
    if (Status s = replaceAtomically(tmp / entry.name, entry.bytes, nullptr); !s) return cleanup(std::move(s).error());
  }
  struct stat st {};
  const bool exists = ::lstat(clean.c_str(), &st) == 0;
  const bool emptyFolder = exists && S_ISDIR(st.st_mode) && fs::is_empty(clean, ec) && !ec;
  if (!exists || emptyFolder) {
    if (::rename(tmp.c_str(), clean.c_str()) != 0) {
      return cleanup(Error(ErrorKind::Environment,
                           fmt::format("{}: cannot rename into place: {}", clean.string(), errnoText())));
    }
    syncFolder(parent);
    return {};
  }
  // An existing folder (or a link to one) with other files: move the files in, in order.
  for (const FolderEntry& entry : entries) {
    if (::rename((tmp / entry.name).c_str(), (clean / entry.name).c_str()) != 0) {
      return cleanup(Error(ErrorKind::Environment, fmt::format("{}: cannot move {} into place: {}", clean.string(),
                                                                entry.name, errnoText())));
    }
  }
  fs::remove_all(tmp, ec);
  syncFolder(clean);
  return {};
}

Status writeFileAtomic(const std::filesystem::path& path, std::string_view text) {
  return writeFileAtomic(
      path, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

}  // namespace openvgf
