// SPDX-License-Identifier: Apache-2.0
// SHA-256 (FIPS 180-4) for content hashes: extraction manifests and on-disk cache keys.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace openvgf {

class Sha256 {
 public:
  Sha256();
  Sha256& update(std::span<const std::uint8_t> bytes);
  Sha256& update(std::string_view text);
  /// Finishes the hash; the object must not be updated afterwards.
  std::array<std::uint8_t, 32> digest();
  /// Lower-case hex of digest().
  std::string hexDigest();

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;      // bytes waiting in buffer_
  std::uint64_t totalBytes_ = 0;  // message length so far
};

/// Hex SHA-256 of a byte range.
std::string sha256Hex(std::span<const std::uint8_t> bytes);

}  // namespace openvgf
