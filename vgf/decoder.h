// SPDX-License-Identifier: Apache-2.0
// VGF decoder: turns the bytes of a .vgf (format 0.3.x and 0.4.0-0.4.3, either magic) into
// a vgf::File without copying SPIR-V code or constant payloads.
//
// Every header offset and size, every flatbuffer section (flatbuffers::Verifier) and every
// cross reference is checked before use, so hostile input yields an InvalidInput error that
// names the section, the entry and the field, never an out-of-bounds read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/error.h"
#include "vgf/file.h"

namespace openvgf::vgf {

inline constexpr std::size_t kHeaderSize = 128;

/// Decodes a whole VGF file. The File views `bytes` (SPIR-V words, constant payloads),
/// which must outlive it and must start 4-byte aligned (a MappedFile or std::vector is).
/// Errors do not name the file; callers add it with addContext().
Result<File> decode(std::span<const std::uint8_t> bytes);

/// The cross-reference checks decode() runs after parsing (also run by the encoder):
/// binding-slot MRT indexes, segment module indexes, segment constant indexes and graph
/// constant bindings, constant MRT entries (in range, category CONSTANT), sparsity >= -1.
Status validate(const File& file);

}  // namespace openvgf::vgf
