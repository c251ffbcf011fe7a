// SPDX-License-Identifier: Apache-2.0
// Writes the graph IR as a TOSA 1.0 flatbuffer (.tosa) with file identifier "TOSA".
//
// Constant payloads are packed from host layout into the .tosa encoding (INT4 two per byte,
// INT48 six bytes) and zero-padded to a multiple of 8 bytes in 8-byte aligned vectors, as the
// TOSA serializer does. Shape values flagged Tensor::inShapeTable go to TosaBasicBlock.shapes,
// others stay SHAPE-typed tensors. readGraph(writeGraph(g)) == g for every graph the reader
// produces and every graph the Builder produces.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"

namespace openvgf::tosa {

/// Serializes `graph`. Fails (InvalidInput) on things the format cannot hold: invalid enum
/// values, a payload whose size does not match its shape, an attribute tag that cannot carry
/// the op's attributes, or a graph beyond the 2 GB flatbuffer limit.
Result<std::vector<std::uint8_t>> writeGraph(const Graph& graph);

/// writeGraph + an atomic file write (no partial file on failure).
Status writeGraph(const Graph& graph, const std::filesystem::path& path);

}  // namespace openvgf::tosa
