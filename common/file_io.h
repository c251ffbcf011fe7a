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

/// Writes bytes to `path` through a temporary file in the same folder renamed into place,
/// so readers never observe a partial file and a failure leaves nothing behind.
Status writeFileAtomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);
Status writeFileAtomic(const std::filesystem::path& path, std::string_view text);

}  // namespace openvgf
