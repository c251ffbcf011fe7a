// SPDX-License-Identifier: Apache-2.0
// Little-endian integers in byte buffers: the one reader and writer of the fixed-width fields
// of the file formats openvgf parses and writes (VGF headers and constant records, flatbuffer
// scalars, vela_bin_stream blocks, COP1 payloads, Ethos-U command words, .npy header lengths).
// Fields may sit at any alignment and the host's byte order is not assumed, so bytes are
// assembled, never reinterpreted. Callers check bounds before they read.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace openvgf {

/// The `T` stored little-endian at `p` (sizeof(T) readable bytes).
template <std::integral T>
T loadLe(const std::uint8_t* p) {
  using U = std::make_unsigned_t<T>;
  U value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) value = static_cast<U>(value | (static_cast<U>(p[i]) << (8 * i)));
  return std::bit_cast<T>(value);
}

/// The `T` stored little-endian at `bytes[offset]`.
template <std::integral T>
T loadLe(std::span<const std::uint8_t> bytes, std::size_t offset) {
  return loadLe<T>(bytes.data() + offset);
}

/// Writes `value` little-endian at `p` (sizeof(T) writable bytes).
template <std::integral T>
void storeLe(std::uint8_t* p, T value) {
  const auto bits = std::bit_cast<std::make_unsigned_t<T>>(value);
  for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<std::uint8_t>(bits >> (8 * i));
}

/// Appends `value` little-endian.
template <std::integral T>
void appendLe(std::vector<std::uint8_t>& out, T value) {
  const auto bits = std::bit_cast<std::make_unsigned_t<T>>(value);
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
}

}  // namespace openvgf
