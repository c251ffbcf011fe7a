// SPDX-License-Identifier: Apache-2.0
// Cache entries (see cache_entry.h). Layout, little-endian:
//   8 bytes  "OVGFCE1\n"
//   4 bytes  key length K
//   K bytes  key
//   8 bytes  payload length P
//   32 bytes SHA-256 of (K, key, P, payload) as they are stored
//   P bytes  payload
#include "common/cache_entry.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <string>

#include <spdlog/spdlog.h>

#include "common/file_io.h"
#include "common/sha256.h"

namespace openvgf {
namespace {

constexpr std::array<char, 8> kMagic = {'O', 'V', 'G', 'F', 'C', 'E', '1', '\n'};
constexpr std::size_t kHashBytes = 32;

void putLe(std::vector<std::uint8_t>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

std::uint64_t getLe(std::span<const std::uint8_t> in, std::size_t at, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(in[at + static_cast<std::size_t>(i)]) << (8 * i);
  return value;
}

std::array<std::uint8_t, kHashBytes> entryHash(std::span<const std::uint8_t> lengthsAndKey,
                                               std::span<const std::uint8_t> payload) {
  Sha256 hash;
  hash.update(lengthsAndKey);
  hash.update(payload);
  return hash.digest();
}

// The key and payload lengths with the key between them, as hashed and stored.
std::vector<std::uint8_t> keyBlock(std::string_view key, std::uint64_t payloadSize) {
  std::vector<std::uint8_t> block;
  putLe(block, key.size(), 4);
  block.insert(block.end(), key.begin(), key.end());
  putLe(block, payloadSize, 8);
  return block;
}

// Why `bytes` is not an intact entry for `key`, or "" when it is.
std::string entryProblem(std::span<const std::uint8_t> bytes, std::string_view key) {
  const std::size_t fixed = kMagic.size() + 4 + 8 + kHashBytes;
  if (bytes.size() < fixed || std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    return "not an openvgf cache entry";
  }
  const std::uint64_t keySize = getLe(bytes, kMagic.size(), 4);
  if (keySize > bytes.size() - fixed) return "truncated";
  const std::string_view stored(reinterpret_cast<const char*>(bytes.data()) + kMagic.size() + 4, keySize);
  if (stored != key) return "stored under another key";
  const std::size_t sizeAt = kMagic.size() + 4 + keySize;
  const std::uint64_t payloadSize = getLe(bytes, sizeAt, 8);
  const std::size_t payloadAt = sizeAt + 8 + kHashBytes;
  if (payloadSize != bytes.size() - payloadAt) return "truncated or extended";
  const auto hash = entryHash(bytes.subspan(kMagic.size(), sizeAt + 8 - kMagic.size()), bytes.subspan(payloadAt));
  if (std::memcmp(hash.data(), bytes.data() + sizeAt + 8, kHashBytes) != 0) return "content hash mismatch";
  return "";
}

}  // namespace

std::string untrustedCacheFolder(const std::filesystem::path& folder) {
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) return "";  // absent: created with the user's own umask
  if (st.st_uid != ::geteuid()) return fmt::format("owned by user {}, not by this user", st.st_uid);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
    return "writable by other users (group or others may write, no sticky bit)";
  }
  return "";
}

Status writeCacheEntry(const std::filesystem::path& path, std::string_view key, std::span<const std::uint8_t> payload) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return environmentError("{}: cannot create the cache folder: {}", path.parent_path().string(), ec.message());
  if (std::string why = untrustedCacheFolder(path.parent_path()); !why.empty()) {
    return environmentError("{}: cache folder not used: {}", path.parent_path().string(), why);
  }
  const std::vector<std::uint8_t> block = keyBlock(key, payload.size());
  const auto hash = entryHash(block, payload);
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  out.reserve(out.size() + block.size() + hash.size() + payload.size());
  out.insert(out.end(), block.begin(), block.end());
  out.insert(out.end(), hash.begin(), hash.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return writeFileAtomic(path, std::span<const std::uint8_t>(out));
}

std::optional<std::vector<std::uint8_t>> readCacheEntry(const std::filesystem::path& path, std::string_view key) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  if (std::string why = untrustedCacheFolder(path.parent_path()); !why.empty()) {
    spdlog::warn("{}: cache folder not used: {}", path.parent_path().string(), why);
    return std::nullopt;
  }
  Result<std::vector<std::uint8_t>> bytes = readFile(path);
  if (!bytes) return std::nullopt;
  if (std::string why = entryProblem(*bytes, key); !why.empty()) {
    spdlog::warn("{}: cache entry ignored ({}); it is rebuilt", path.string(), why);
    return std::nullopt;
  }
  const std::size_t payloadAt = kMagic.size() + 4 + key.size() + 8 + kHashBytes;
  return std::vector<std::uint8_t>(bytes->begin() + static_cast<std::ptrdiff_t>(payloadAt), bytes->end());
}

}  // namespace openvgf
