// SPDX-License-Identifier: Apache-2.0
// Reference-interpreter entry points (see reference.h).
#include "api/reference.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "tosa/reader.h"
#include "tosa/verifier.h"

namespace openvgf::api {

Result<tosa::Graph> readVerifiedGraph(const std::string& path, bool dynamic) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, tosa::readGraph(std::filesystem::path(path)));
  if (Status valid = tosa::verify(graph, tosa::VerifyOptions{dynamic}); !valid) {
    return Unexpected(std::move(valid).error().addContext(path));
  }
  if (graph.mainBlock() == nullptr) return invalidInput("{}: expected a main block, got an empty graph", path);
  OPENVGF_TRY(withContext(tosa::reference::checkLimits(graph), path));
  return graph;
}

Result<tosa::reference::RunResult> runReference(const tosa::Graph& graph, const std::string& path,
                                                std::span<const tosa::HostTensor> inputs,
                                                const tosa::reference::RunOptions& options) {
  Result<tosa::reference::RunResult> result = tosa::reference::run(graph, inputs, options);
  if (!result) return Unexpected(std::move(result).error().addContext(path));
  return result;
}

}  // namespace openvgf::api
