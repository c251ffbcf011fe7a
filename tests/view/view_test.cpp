// SPDX-License-Identifier: Apache-2.0
// `openvgf view` below the browser (api/view.h): the graph built from real files against what
// `inspect` lists and the fixture's known structure, the layout's geometric properties, the
// bound on long-edge routing, the emitters' escaping, and GPU times from a Chrome trace.
#include "api/view.h"
#include "tests/support/temp_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

namespace openvgf::api::view {
namespace {

using ::testing::HasSubstr;

const std::string kData = OPENVGF_TEST_DATA;

std::size_t countKind(const Graph& g, std::string_view kind) {
  return static_cast<std::size_t>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.kind == kind; }));
}

const Node* findNode(const Graph& g, std::string_view label) {
  for (const Node& n : g.nodes) {
    if (n.label == label) return &n;
  }
  return nullptr;
}

std::string attr(const Node& n, std::string_view key) {
  for (const auto& [k, v] : n.attrs) {
    if (k == key) return v;
  }
  return {};
}

bool overlap(const Node& a, const Node& b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/// Every edge goes downwards from its producer's bottom centre to its reader's top centre, and
/// no two nodes overlap.
void expectValidLayout(const Graph& g) {
  for (const Edge& e : g.edges) {
    const Node& a = g.nodes[e.from];
    const Node& b = g.nodes[e.to];
    EXPECT_GT(b.y, a.y + a.h) << a.id << " -> " << b.id;
    ASSERT_GE(e.points.size(), 4u);
    EXPECT_DOUBLE_EQ(e.points[0], a.x + a.w / 2);
    EXPECT_DOUBLE_EQ(e.points[1], a.y + a.h);
    EXPECT_DOUBLE_EQ(e.points[e.points.size() - 2], b.x + b.w / 2);
    EXPECT_DOUBLE_EQ(e.points.back(), b.y);
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    for (std::size_t j = i + 1; j < g.nodes.size(); ++j) {
      EXPECT_FALSE(overlap(g.nodes[i], g.nodes[j])) << g.nodes[i].id << " and " << g.nodes[j].id;
    }
    EXPECT_GE(g.nodes[i].x, 0);
    EXPECT_LE(g.nodes[i].x + g.nodes[i].w, g.width);
    EXPECT_LE(g.nodes[i].y + g.nodes[i].h, g.height);
  }
}

Graph randomDag(std::size_t nodes, unsigned seed) {
  Graph g;
  std::mt19937 random(seed);
  for (std::size_t i = 0; i < nodes; ++i) {
    Node n;
    n.id = "n" + std::to_string(i);
    n.label = i % 3 == 0 ? "CONV2D" : "ADD";
    n.name = "t" + std::to_string(i);
    n.kind = "op";
    g.nodes.push_back(n);
    for (int k = 0; i > 0 && k < 2; ++k) {
      const std::size_t from = i - 1 - random() % std::min<std::size_t>(i, 12);
      g.edges.push_back({from, i, "t" + std::to_string(from), "FP32[1]", {}});
    }
  }
  return g;
}

TEST(ViewLayout, EdgesPointDownAndNodesDoNotOverlap) {
  Graph g = randomDag(300, 7);
  layout(g);
  expectValidLayout(g);
  // Long edges are routed through the layers between their ends.
  EXPECT_TRUE(std::any_of(g.edges.begin(), g.edges.end(), [](const Edge& e) { return e.points.size() > 4; }));
}

TEST(ViewLayout, LongEdgesPastTheRoutingBudgetAreDrawnStraight) {
  // A 1,500-long chain with one source read by every node: about 1.1 million layer crossings,
  // past the 400,000 virtual points the layout routes (docs/limits.md).
  Graph g;
  for (std::size_t i = 0; i < 1501; ++i) {
    Node n;
    n.id = "n" + std::to_string(i);
    n.label = "OP";
    n.kind = "op";
    g.nodes.push_back(n);
    if (i >= 2) g.edges.push_back({i - 1, i, "chain", "", {}});
    if (i >= 1) g.edges.push_back({0, i, "source", "", {}});
  }
  layout(g);
  for (const Edge& e : g.edges) EXPECT_EQ(e.points.size(), 4u);
  for (const Edge& e : g.edges) EXPECT_GT(g.nodes[e.to].y, g.nodes[e.from].y);
}

TEST(ViewModel, ArmGraphVgfShowsItsTosaOperatorsInOneSegment) {
  // The fixture's GRAPH segment, as `inspect` lists it: RESCALE, CONV2D, RESCALE, RESCALE in a
  // chain from the input to the output, the CONV2D reading graph constant 0 ([4,3,3,4] int8).
  Result<Graph> g = buildGraph(kData + "/vgf-graph/simple_conv2d_rescale_graph.vgf");
  ASSERT_TRUE(g) << g.error().message();
  EXPECT_EQ(countKind(*g, "op"), 4u);
  EXPECT_EQ(countKind(*g, "input"), 1u);
  EXPECT_EQ(countKind(*g, "output"), 1u);
  EXPECT_EQ(g->edges.size(), 5u);
  const Node* conv = findNode(*g, "CONV2D");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->group, "segment 0 'graph_segment_0' (GRAPH)");
  bool constant = false;
  for (const auto& [key, value] : conv->attrs)
    constant |= key.starts_with("constant input") && value.find("[4,3,3,4]") != std::string::npos;
  EXPECT_TRUE(constant) << "the CONV2D's weights are listed with their shape";
  // openvgf lowers the segment: the CONV2D becomes a dispatch named after it.
  EXPECT_EQ(conv->lowering, "kernel");
  const std::string op = attr(*conv, "operator");  // "operators[N] CONV2D"
  ASSERT_THAT(op, ::testing::StartsWith("operators["));
  const std::string index = op.substr(10, op.find(']') - 10);
  EXPECT_THAT(attr(*conv, "kernel"), ::testing::StartsWith("CONV2D_" + index + " (conv2d.comp"));
  // The RESCALE after it is part of its dispatch.
  std::size_t fused = 0;
  for (const Node& n : g->nodes)
    fused += n.lowering == "fused" && attr(n, "fused into").find("CONV2D_" + index) != std::string::npos;
  EXPECT_GE(fused, 1u);
  for (const Edge& e : g->edges) EXPECT_FALSE(e.type.empty());
}

TEST(ViewModel, TosaAddHasItsInputsOutputAndKernel) {
  Result<Graph> g = buildGraph(kData + "/tosa/test_add_1x4x4x4_f32/model.tosa");
  ASSERT_TRUE(g) << g.error().message();
  EXPECT_EQ(countKind(*g, "op"), 1u);
  EXPECT_EQ(countKind(*g, "input"), 2u);
  EXPECT_EQ(countKind(*g, "output"), 1u);
  const Node* add = findNode(*g, "ADD");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->dispatches, std::vector<std::string>{"ADD_0"});
  // As `inspect` lists them: TosaInput_0 FP32 [1,4,4,1] (broadcast), the rest [1,4,4,4].
  std::map<std::string, std::string> types;
  for (const Edge& e : g->edges) types[e.tensor] = e.type;
  EXPECT_EQ(types, (std::map<std::string, std::string>{{"TosaInput_0", "FP32[1,4,4,1]"},
                                                       {"TosaInput_1", "FP32[1,4,4,4]"},
                                                       {"TosaOutput_0", "FP32[1,4,4,4]"}}));
}

TEST(ViewModel, AFileOfAnotherKindIsRefusedNamingIt) {
  const std::filesystem::path path = testing::processTempDir("openvgf_view_test.npy");
  std::ofstream(path, std::ios::binary)
      << "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  Result<Graph> g = buildGraph(path.string());
  ASSERT_FALSE(g);
  EXPECT_THAT(g.error().message(), HasSubstr(path.string()));
  EXPECT_THAT(g.error().message(), HasSubstr("expected a .tosa, .vgf, .pte or Ethos-U command stream"));
  std::filesystem::remove(path);
}

Graph hostileNames() {
  Graph g;
  g.title = "</script><script>alert(1)</script>";
  for (int i = 0; i < 2; ++i) {
    Node n;
    n.id = "n" + std::to_string(i);
    n.label = "ADD";
    n.name = "</script><script>alert(2)</script> \"quoted\" @OPENVGF_SCRIPT@";
    n.kind = "op";
    n.group = "a/b";
    g.nodes.push_back(n);
  }
  g.edges.push_back({0, 1, "<!-- t -->", "FP32[1]", {}});
  return g;
}

TEST(ViewEmit, NamesFromTheModelCannotEndTheScriptOrFillMarkers) {
  Graph g = hostileNames();
  layout(g);
  const std::string html = toHtml(g);
  // The template's own two </script> (data block, script) and nothing from the names.
  std::size_t closings = 0;
  for (std::size_t at = html.find("</script>"); at != std::string::npos; at = html.find("</script>", at + 1))
    ++closings;
  EXPECT_EQ(closings, 2u);
  EXPECT_EQ(html.find("<!-- t -->"), std::string::npos);
  EXPECT_THAT(html, HasSubstr("&lt;/script&gt;&lt;script&gt;alert(1)"));  // the <title>
  EXPECT_THAT(html, HasSubstr("default-src 'none'"));
  EXPECT_THAT(html, HasSubstr("@OPENVGF_SCRIPT@"));  // the name's copy of the marker stays as it is
  EXPECT_THAT(html, HasSubstr("function make("));    // and the real one became the script
}

TEST(ViewEmit, ModelExplorerJsonAndDotNameEveryNodeAndEdge) {
  Graph g = randomDag(40, 3);
  g.nodes[5].group = "segment 1/x";
  const nlohmann::json me = nlohmann::json::parse(toModelExplorerJson(g));
  ASSERT_EQ(me["graphs"].size(), 1u);
  const nlohmann::json& nodes = me["graphs"][0]["nodes"];
  ASSERT_EQ(nodes.size(), g.nodes.size());
  std::size_t edges = 0;
  std::set<std::string> ids;
  for (const auto& n : nodes) ids.insert(n["id"].get<std::string>());
  for (const auto& n : nodes) {
    for (const auto& e : n["incomingEdges"]) {
      EXPECT_TRUE(ids.count(e["sourceNodeId"].get<std::string>()));
      ++edges;
    }
  }
  EXPECT_EQ(edges, g.edges.size());
  EXPECT_EQ(nodes[5]["namespace"], "segment 1_x");  // '/' would nest one level deeper
  const std::string dot = toDot(hostileNames());
  EXPECT_THAT(dot, HasSubstr("\\\"quoted\\\""));
  EXPECT_THAT(dot, HasSubstr("n0 -> n1"));
  EXPECT_THAT(dot, HasSubstr("subgraph cluster_0"));
}

TEST(ViewProfile, NodesGetTheMedianOfTheirDispatchesAndBadTracesAreRefused) {
  Result<Graph> g = buildGraph(kData + "/tosa/test_add_1x4x4x4_f32/model.tosa");
  ASSERT_TRUE(g) << g.error().message();
  const std::filesystem::path trace = testing::processTempDir("openvgf_view_trace.json");
  std::ofstream(trace) << R"({"traceEvents": [
    {"name": "ADD_0", "ph": "X", "ts": 0, "dur": 1000}, {"name": "ADD_0", "ph": "X", "ts": 5, "dur": 3000},
    {"name": "ADD_0", "ph": "X", "ts": 9, "dur": 2000}, {"name": "other", "ph": "X", "ts": 9, "dur": 9000}]})";
  ASSERT_TRUE(applyProfile(*g, trace.string()));
  const Node* add = findNode(*g, "ADD");
  ASSERT_NE(add, nullptr);
  EXPECT_DOUBLE_EQ(add->gpuMs, 2.0);  // median of 1, 3, 2 ms
  EXPECT_THAT(toHtml(*g), HasSubstr("\"gpuMs\":2.0"));
  std::ofstream(trace) << "[1, 2]";
  Status refused = applyProfile(*g, trace.string());
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message(), HasSubstr("expected a Chrome trace"));
  std::filesystem::remove(trace);
}

}  // namespace
}  // namespace openvgf::api::view
