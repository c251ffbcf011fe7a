// SPDX-License-Identifier: Apache-2.0
// Conversion between the packed element encoding of .tosa constant data (specs/tosa.md §1.4:
// INT4 two per byte low nibble first, INT48 six bytes) and host layout
// (tosa::hostElementBytes: one C++ scalar per element). Used by the reader, the writer and
// anyone who needs .tosa-encoded bytes (e.g. constant payloads of other formats).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tosa/host_tensor.h"
#include "tosa/types.h"

namespace openvgf::tosa {

/// Bytes `count` elements of `type` occupy in .tosa encoding (INT4: ceil(count/2), INT48:
/// 6*count), without the 8-byte padding. nullopt on overflow or an UNKNOWN type.
std::optional<std::uint64_t> packedByteSize(DType type, std::uint64_t count);

/// Element count of a shape with overflow checks: nullopt if a dimension is negative or the
/// product exceeds int64.
std::optional<std::int64_t> checkedElementCount(const Shape& shape);

/// Decodes `count` elements from `packed` (which must hold packedByteSize(type, count) bytes;
/// extra bytes are padding and ignored) into host layout. INT4 and INT48 are sign-extended,
/// BOOL is normalised to 0/1. Returns an empty vector if `packed` is too short.
std::vector<std::uint8_t> unpackToHost(DType type, std::uint64_t count, std::span<const std::uint8_t> packed);

/// Encodes host-layout elements (count = host.size() / hostElementBytes(type)) in .tosa
/// encoding, without padding. INT4 values are truncated to their low nibble, INT48 to 48 bits.
std::vector<std::uint8_t> packFromHost(DType type, std::span<const std::uint8_t> host);

}  // namespace openvgf::tosa
