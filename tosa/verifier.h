// SPDX-License-Identifier: Apache-2.0
// Checks a graph against the TOSA 1.0 rules before anything runs it:
//  - graph well-formedness: every name an operator uses is defined (in its block or, for
//    nested blocks, a parent block), each tensor is defined once, operators form no cycle,
//    every block output is produced, control-flow graphs exist and match their operands;
//  - per operator: input/output counts, the ERROR_IF shape rules (via tosa/shape_inference.h:
//    conv/pool output sizes, broadcasting, RESIZE, ...), attribute ranges, zero points, the
//    type combinations of the profile/extension tables (specs/tosa.md §2.2) and compile-time
//    constant (CTC) inputs.
// Every failure names the block, the operator (index and op), the tensor and the rule:
//   "regions[0].blocks[0] 'main': operators[4] CONV2D: input 'x': expected rank 4, got 3"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"

namespace openvgf::tosa {

struct VerifyOptions {
  /// EXT-DYNAMIC: CTC inputs (zero points, shifts, shapes, ...) may be computed values.
  bool allowDynamic = false;
};

/// The first problem found, or success. InvalidInput for rule violations; Unsupported for
/// type combinations that no TOSA 1.0 profile or extension defines.
Status verify(const Graph& graph, const VerifyOptions& options = {});

/// Every problem found (empty = valid), in graph order.
std::vector<Error> verifyAll(const Graph& graph, const VerifyOptions& options = {});

/// Checks one operator of `block` (which must belong to `graph`): counts, shapes, types,
/// attributes and CTC inputs, but not graph-level properties.
Status verifyOperator(const Graph& graph, const Block& block, std::size_t operatorIndex,
                      const VerifyOptions& options = {});

/// Profiles and extensions a graph needs, spelled as in the spec ("PRO-INT", "PRO-FP",
/// "EXT-INT16", "EXT-CONTROLFLOW", ...), each list sorted. Operators whose types several
/// profiles support count towards a profile that the graph needs anyway.
struct Requirements {
  std::vector<std::string> profiles;
  std::vector<std::string> extensions;
  bool operator==(const Requirements&) const = default;
};
Requirements requirements(const Graph& graph);

}  // namespace openvgf::tosa
