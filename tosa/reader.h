// SPDX-License-Identifier: Apache-2.0
// Reads TOSA 1.0 flatbuffers (.tosa) into the graph IR (tosa/graph.h).
//
// Accepted: format 1.0.x and 1.1 drafts (same numbering for everything 1.0 defines); 0.x
// files are refused with a message saying so. The buffer is checked with the flatbuffers
// Verifier before anything is read, then for meaning: known op and dtype numbers, data long
// enough for each constant's shape, shape values in either encoding (TosaBasicBlock.shapes or
// SHAPE-typed tensors). Semantics follow `op`, not the attribute union tag (which is kept in
// Operator::attributeTag). Constant data is converted to host layout (tosa::hostElementBytes).
//
// The reader does not check graph well-formedness (undefined names, cycles, shape rules):
// that is tosa::verify (tosa/verifier.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

#include "common/error.h"
#include "tosa/graph.h"

namespace openvgf::tosa {

/// Parses a whole .tosa file held in memory. `sourceName` (usually the path) prefixes every
/// error message. Errors are InvalidInput (malformed) or Unsupported (0.x format, 1.1 ops).
Result<Graph> readGraph(std::span<const std::uint8_t> bytes, std::string_view sourceName);

/// Maps and parses a .tosa file.
Result<Graph> readGraph(const std::filesystem::path& path);

}  // namespace openvgf::tosa
