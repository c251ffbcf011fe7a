// SPDX-License-Identifier: Apache-2.0
// `openvgf view` (openvgf::viewReport): a model file as a graph of operators or dispatches
// (nodes) and tensors (edges), laid out here so the page only draws, and written as one
// self-contained HTML page, Model Explorer's graph JSON or Graphviz DOT.
//  - view_model.cpp  builds a ViewGraph from a .tosa, .vgf (COMPUTE and GRAPH segments), .pte
//                    (its delegates) or an Ethos-U stream;
//  - view_layout.cpp places it (layered ranks, barycentric crossing reduction);
//  - view_emit.cpp   writes it, with GPU times from a `run --profile` trace when given.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace openvgf::api::view {

struct Node {
  std::string id;     // unique in the graph: "op12", "s3", "in0" ...
  std::string label;  // what it is: the TOSA operator, the dispatch's operator, "input", NPU_OP_CONV ...
  std::string name;   // which one: "operators[12]", the segment name, the tensor name
  std::string kind;   // "op" (a TOSA operator), "dispatch" (a compute segment), "npu" (an Ethos-U
                      // operation), "input", "output"
  std::string group;  // the segment / delegate it belongs to ("" = none): drawn as a boundary
  std::vector<std::pair<std::string, std::string>> attrs;  // the side panel, in order
  /// Dispatch names a `run --profile` trace may hold for this node (segment names).
  std::vector<std::string> dispatches;
  /// openvgf's Vulkan lowering of a TOSA operator: "kernel" (its own dispatch), "fused" (part of
  /// another operator's dispatch), "folded" / "elided" / "removed" (no dispatch), "" = not lowered.
  std::string lowering;
  double gpuMs = -1;  // median GPU time from the profile (< 0: none)
  // Layout (view_layout.cpp): top-left corner and size, in page pixels.
  double x = 0, y = 0, w = 0, h = 0;
};

struct Edge {
  std::size_t from = 0, to = 0;  // node indexes
  std::string tensor;            // tensor name (or "mrt<i>" for an unnamed VGF resource)
  std::string type;              // "INT8[1,8,8,16]"
  std::vector<double> points;    // x0,y0,x1,y1,... of the drawn polyline (layout)
};

struct Graph {
  std::string title;               // the file
  std::string format;              // "TOSA flatbuffer", "VGF 0.4.3" ...
  std::vector<std::string> notes;  // what the view could not show, and why
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  double width = 0, height = 0;  // layout extent
};

/// The graph of the model file at `path` (kind detected from its content).
Result<Graph> buildGraph(const std::string& path);

/// Node positions and edge polylines: layered top-to-bottom by longest path from the inputs,
/// long edges routed through virtual points, a few barycentric sweeps against crossings.
void layout(Graph& graph);

/// Sets Node::gpuMs from a Chrome trace (`run --profile`): the median duration of the slices
/// named after each node's dispatches, summed over them. InvalidInput when the trace is not
/// one; a note when no slice matches any node.
Status applyProfile(Graph& graph, const std::string& tracePath);

/// The self-contained HTML page (template in api/view/, data inline, no network).
std::string toHtml(const Graph& graph);
/// Model Explorer's graph collection JSON.
std::string toModelExplorerJson(const Graph& graph);
/// Graphviz DOT.
std::string toDot(const Graph& graph);

}  // namespace openvgf::api::view
