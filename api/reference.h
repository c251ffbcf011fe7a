// SPDX-License-Identifier: Apache-2.0
// `reference` as library calls: read and verify a .tosa graph, bind inputs to its main block
// by name or position, run the CPU reference interpreter.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"
#include "tosa/host_tensor.h"
#include "tosa/reference/reference.h"

namespace openvgf::api {

/// The graph in `path`, read and checked against the spec's ERROR_IF rules (a graph that
/// breaks them has no defined result); `dynamic` accepts EXT-DYNAMIC computed values.
Result<tosa::Graph> readVerifiedGraph(const std::string& path, bool dynamic = false);

/// Runs the main block on `inputs` (graph input order); errors name `path`.
Result<tosa::reference::RunResult> runReference(const tosa::Graph& graph, const std::string& path,
                                                std::span<const tosa::HostTensor> inputs,
                                                const tosa::reference::RunOptions& options);

}  // namespace openvgf::api
