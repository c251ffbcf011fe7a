// SPDX-License-Identifier: Apache-2.0
// The TOSA graphs inside a VGF's GRAPH segments (Arm's encoding: SPIR-V modules with
// SPV_ARM_graph + SPV_ARM_tensors and TOSA.001000.1 instructions, specs/vgf.md §1.8, §3.1),
// decoded with the VGF's model resource table and constants:
//  - each graph input / output is found through its variable's (set, binding) in the segment's
//    descriptor sets, which names the model resource table entry it reads or writes;
//  - graph constants take their payloads from the constant section, through the segment's
//    explicit {graph constant id, constant index} bindings when the file has them, else with
//    graph constant id = constant index (segment.constants);
//  - dynamic dimensions (INT64_MIN in the resource table, or an unshaped SPIR-V type) come from
//    the shapes the caller knows (the --input arrays), everything else is inferred.
// Consecutive GRAPH segments form a run that is decoded into one graph: the tensors they pass
// to each other stay inside it, so the converter sees (and fuses) the whole run.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"
#include "vgf/file.h"

namespace openvgf::converter {

/// Concrete shapes of model resource table entries whose shape is dynamic, by MRT index.
using KnownShapes = std::map<std::uint32_t, tosa::Shape>;

/// One run of consecutive GRAPH segments decoded into a single verified graph.
struct GraphRun {
  std::vector<std::size_t> segments;  // segment indexes, in order
  tosa::Graph graph;
  std::vector<std::uint32_t> inputs;   // MRT index of each graph input
  std::vector<std::uint32_t> outputs;  // MRT index of each graph output (read after the run or a model output)
};

/// The name of a model interface tensor as the runner reports it: the VGF's input/output name,
/// else "input_<i>" / "output_<i>"; other resources are "mrt<i>".
std::string resourceTensorName(const vgf::File& file, std::uint32_t mrtIndex);

/// Decodes the GRAPH segments `segments` (consecutive, in sequence order) of `file` into one
/// graph. `source` names the file in messages. Shapes of the run's inputs come from the
/// resource table, else from `known`; the shapes of its outputs are added to `known`.
Result<GraphRun> decodeGraphRun(const vgf::File& file, std::span<const std::size_t> segments, KnownShapes& known,
                                std::string_view source);

/// Groups the file's segments into maximal runs of consecutive GRAPH segments.
std::vector<std::vector<std::size_t>> graphRuns(const vgf::File& file);

/// The whole model as one graph, for `run --check` and `convert`: every segment must be a
/// GRAPH segment. Inputs and outputs follow the model interface order and names.
Result<GraphRun> decodeGraphModel(const vgf::File& file, const KnownShapes& inputShapes, std::string_view source);

/// `inspect`: the TOSA operators of each GRAPH segment, one line per instruction.
Result<std::string> listGraphSegments(const vgf::File& file, std::string_view source);

}  // namespace openvgf::converter
