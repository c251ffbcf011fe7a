// SPDX-License-Identifier: Apache-2.0
// File access used by every parser and writer: whole-file reads, read-only memory maps and
// atomic writes (a failed command never leaves a partial output file behind).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace openvgf {

/// Reads a whole file. Errors name the path.
Result<std::vector<std::uint8_t>> readFile(const std::filesystem::path& path);

/// A read-only view of a whole file, memory-mapped when possible. Move-only.
class MappedFile {
 public:
  static Result<MappedFile> open(const std::filesystem::path& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const std::uint8_t> bytes() const { return {data_, size_}; }
  const std::filesystem::path& path() const { return path_; }

 private:
  void release();

  std::filesystem::path path_;
  const std::uint8_t* data_ = nullptr;  // mapping (or fallback_.data() for empty files)
  std::size_t size_ = 0;                // bytes in the file
  bool mapped_ = false;                 // true when data_ came from mmap
};

/// Writes bytes to `path`. A new path or an existing regular file (also one a symbolic link
/// names) is replaced atomically: a temporary file in the same folder, flushed to disk and
/// renamed into place, so readers never observe a partial file and a failure leaves nothing
/// behind; a replaced file keeps its permissions (and, for root, its owner). A character device
/// or FIFO (`/dev/null`, `>(cmd)`, also through a symbolic link) is written through, never
/// replaced. Folders and other special files are refused.
Status writeFileAtomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);
Status writeFileAtomic(const std::filesystem::path& path, std::string_view text);

/// Checks, before any work, that writeFileAtomic(path, ...) can succeed as far as the file
/// system tells: the folder exists and is writable, the path is not a folder or a special file
/// other than a character device or FIFO. `what` names the option in messages ("--output").
Status checkOutputPath(const std::filesystem::path& path, std::string_view what);
/// The same for an output folder: an existing writable folder, or a path whose nearest
/// existing ancestor is a writable folder (it is created when written).
Status checkOutputFolder(const std::filesystem::path& path, std::string_view what);

/// One file of writeFolderAtomic.
struct FolderEntry {
  std::string name;                     // file name inside the folder (no separators)
  std::span<const std::uint8_t> bytes;
};
/// Writes `entries` into `folder` so that a failure never leaves part of them: they are
/// written into a temporary folder beside it, which is renamed into place when `folder` does
/// not exist or is empty. Into a non-empty folder they are moved one by one in order (put the
/// file that describes the others, a manifest, last), replacing files of the same name.
Status writeFolderAtomic(const std::filesystem::path& folder, std::span<const FolderEntry> entries);

}  // namespace openvgf
