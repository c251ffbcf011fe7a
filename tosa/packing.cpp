// SPDX-License-Identifier: Apache-2.0
// Packed (.tosa) <-> host element encodings. All reads go through memcpy or byte arithmetic:
// constant data in real files is not reliably aligned.
#include "tosa/packing.h"

#include <cstring>
#include <limits>

namespace openvgf::tosa {

std::optional<std::uint64_t> packedByteSize(DType type, std::uint64_t count) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  switch (type) {
    case DType::Int4: return count / 2 + count % 2;
    case DType::Int48:
      if (count > kMax / 6) return std::nullopt;
      return count * 6;
    case DType::Unknown: return std::nullopt;
    default: {
      std::uint64_t bytes = hostElementBytes(type);
      if (count > kMax / bytes) return std::nullopt;
      return count * bytes;
    }
  }
}

std::optional<std::int64_t> checkedElementCount(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

std::vector<std::uint8_t> unpackToHost(DType type, std::uint64_t count,
                                       std::span<const std::uint8_t> packed) {
  std::optional<std::uint64_t> need = packedByteSize(type, count);
  if (!need || *need > packed.size()) return {};
  std::size_t n = static_cast<std::size_t>(count);
  std::vector<std::uint8_t> host(n * hostElementBytes(type));
  switch (type) {
    case DType::Bool:
      for (std::size_t i = 0; i < n; ++i) host[i] = packed[i] != 0 ? 1 : 0;
      break;
    case DType::Int4:
      for (std::size_t i = 0; i < n; ++i) {
        unsigned nibble = (packed[i / 2] >> ((i % 2) * 4)) & 0xF;
        auto value =
            static_cast<std::int8_t>(nibble >= 8 ? static_cast<int>(nibble) - 16 : static_cast<int>(nibble));
        std::memcpy(&host[i], &value, 1);
      }
      break;
    case DType::Int48:
      for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t bits = 0;
        for (std::size_t b = 0; b < 6; ++b) bits |= static_cast<std::uint64_t>(packed[i * 6 + b]) << (8 * b);
        if (bits & (std::uint64_t{1} << 47)) bits |= 0xFFFF000000000000ULL;
        std::memcpy(&host[i * 8], &bits, 8);
      }
      break;
    default:
      if (!host.empty()) std::memcpy(host.data(), packed.data(), host.size());
      break;
  }
  return host;
}

std::vector<std::uint8_t> packFromHost(DType type, std::span<const std::uint8_t> host) {
  std::size_t elementBytes = hostElementBytes(type);
  if (elementBytes == 0) return {};
  std::size_t n = host.size() / elementBytes;
  switch (type) {
    case DType::Bool: {
      std::vector<std::uint8_t> out(n);
      for (std::size_t i = 0; i < n; ++i) out[i] = host[i] != 0 ? 1 : 0;
      return out;
    }
    case DType::Int4: {
      std::vector<std::uint8_t> out(n / 2 + n % 2, 0);
      for (std::size_t i = 0; i < n; ++i)
        out[i / 2] |= static_cast<std::uint8_t>((host[i] & 0xF) << ((i % 2) * 4));
      return out;
    }
    case DType::Int48: {
      std::vector<std::uint8_t> out(n * 6);
      for (std::size_t i = 0; i < n; ++i) std::memcpy(&out[i * 6], &host[i * 8], 6);
      return out;
    }
    default: return {host.begin(), host.begin() + static_cast<std::ptrdiff_t>(n * elementBytes)};
  }
}

}  // namespace openvgf::tosa
