// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect model.tosa`: a summary of a TOSA graph (version, graph inputs and outputs,
// operator histogram, constant bytes, profiles and extensions used) or, with --json, the whole
// graph. The graph is verified; a file that cannot be read or that breaks a TOSA rule exits
// with code 2 (after the summary, so the user still sees what the file holds).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <map>

#include "cli/command.h"
#include "tosa/json.h"
#include "tosa/reader.h"
#include "tosa/verifier.h"

namespace openvgf::cli {
namespace {

std::string describe(const tosa::Graph& graph, const tosa::Block& block, const std::string& name) {
  const tosa::Tensor* t = graph.findTensor(block, name);
  if (t == nullptr) return fmt::format("{}  (undefined)", name);
  return fmt::format("{}  {} {}", name, tosa::toString(t->dtype), tosa::shapeToString(t->shape));
}

void printSummary(const std::string& path, const tosa::Graph& graph) {
  const tosa::Block* main = graph.mainBlock();
  std::size_t blocks = 0;
  std::size_t operators = 0;
  std::size_t tensors = 0;
  std::size_t constants = 0;
  std::uint64_t constantBytes = 0;
  std::map<std::string_view, std::size_t> histogram;
  for (const tosa::Region& r : graph.regions) {
    for (const tosa::Block& b : r.blocks) {
      ++blocks;
      operators += b.operators.size();
      tensors += b.tensors.size();
      for (const tosa::Operator& op : b.operators) ++histogram[tosa::toString(op.op)];
      for (const tosa::Tensor& t : b.tensors) {
        if (t.data) {
          ++constants;
          constantBytes += t.data->size();
        }
      }
    }
  }
  const tosa::Version& v = graph.version;
  fmt::print("{}: TOSA flatbuffer, format {}.{}.{}{}\n", path, v.major, v.minor, v.patch,
             v.draft ? " (draft)" : "");
  fmt::print("regions: {}, blocks: {}, operators: {}, tensors: {}\n", graph.regions.size(), blocks, operators,
             tensors);
  if (main != nullptr) {
    fmt::print("inputs ({}):\n", main->inputs.size());
    for (const std::string& name : main->inputs) fmt::print("  {}\n", describe(graph, *main, name));
    fmt::print("outputs ({}):\n", main->outputs.size());
    for (const std::string& name : main->outputs) fmt::print("  {}\n", describe(graph, *main, name));
  }
  fmt::print("operators:\n");
  for (const auto& [op, count] : histogram) fmt::print("  {:<24} {}\n", op, count);
  fmt::print("constants: {} tensors, {} bytes (host layout)\n", constants, constantBytes);
  tosa::Requirements req = tosa::requirements(graph);
  auto list = [](const std::vector<std::string>& items) {
    return items.empty() ? std::string("none") : fmt::format("{}", fmt::join(items, ", "));
  };
  fmt::print("profiles: {}\n", list(req.profiles));
  fmt::print("extensions: {}\n", list(req.extensions));
}

Result<int> inspectTosa(const InspectOptions& options, std::span<const std::uint8_t> bytes) {
  if (options.dumpSpirv || options.dumpConstant) {
    return invalidInput("{}: --dump-spirv and --dump-constant apply to VGF files, not TOSA graphs",
                        options.path);
  }
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, tosa::readGraph(bytes, options.path));
  if (options.json) {
    fmt::print("{}\n", tosa::toJson(graph));
  } else {
    printSummary(options.path, graph);
  }
  std::fflush(stdout);  // the summary before the error message, also through pipes
  Status valid = tosa::verify(graph);
  if (!valid) return Unexpected(std::move(valid).error().addContext(options.path));
  return 0;
}

OPENVGF_REGISTER_INSPECT(FileKind::Tosa, inspectTosa);

}  // namespace
}  // namespace openvgf::cli
