// SPDX-License-Identifier: Apache-2.0
// JSON rendering of a graph for `openvgf inspect --json` and for tests and tools that want a
// textual dump: every region, block, tensor (with constant values), operator and attribute,
// spelled with the spec's names ("CONV2D", "INT8", "PROPAGATE").
#pragma once

#include <cstddef>
#include <string>

#include "tosa/graph.h"

namespace openvgf::tosa {

struct JsonOptions {
  /// Constant payloads list at most this many element values (all bytes are still counted).
  std::size_t maxValues = 256;
  int indent = 2;
};

std::string toJson(const Graph& graph, const JsonOptions& options = {});

}  // namespace openvgf::tosa
