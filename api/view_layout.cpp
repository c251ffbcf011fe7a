// SPDX-License-Identifier: Apache-2.0
// Layered layout of a view graph (view.h), computed here so the page only draws: ranks by
// longest path, long edges through virtual points, barycentric ordering sweeps against edge
// crossings, then x positions pulled towards each node's neighbours without overlaps. Every
// step is O(items log items) per sweep, so thousands of nodes lay out in milliseconds.
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <queue>
#include <set>

#include "api/view.h"

namespace openvgf::api::view {
namespace {

constexpr double kCharWidth = 7.0;  // px per character of the 12px monospace label
constexpr double kNodeHeight = 40.0;
constexpr double kIoHeight = 30.0;
constexpr double kGap = 24.0;       // between neighbours in a layer
constexpr double kLayerGap = 56.0;  // between layers
constexpr double kMargin = 40.0;
constexpr std::size_t kMaxVirtual = 400000;  // past this many virtual points, long edges go straight
constexpr int kSweeps = 4;

double nodeWidth(const Node& n) {
  const std::size_t chars = std::max<std::size_t>(n.label.size(), std::min<std::size_t>(n.name.size(), 28));
  return std::max(80.0, static_cast<double>(chars) * kCharWidth + 24.0);
}

/// The items being placed: the graph's nodes, then the virtual points of long edges.
struct Items {
  std::vector<int> rank;
  std::vector<double> width;
  std::vector<std::vector<std::size_t>> up, down;  // neighbours one layer above / below
  std::vector<std::vector<std::size_t>> layers;    // items per rank, in order
  std::vector<double> pos;                         // order key, then x centre
  std::vector<std::vector<std::size_t>> route;     // per edge: its virtual items, top to bottom
};

std::vector<int> ranks(const Graph& g) {
  const std::size_t n = g.nodes.size();
  std::vector<std::vector<std::size_t>> succ(n), pred(n);
  std::vector<std::size_t> indegree(n, 0);
  for (const Edge& e : g.edges) {
    if (e.from == e.to) continue;
    succ[e.from].push_back(e.to);
    pred[e.to].push_back(e.from);
    ++indegree[e.to];
  }
  // Kahn's order; a cycle (which no builder makes) leaves nodes behind: they keep rank 0 + what
  // their placed predecessors give.
  std::vector<std::size_t> order;
  std::queue<std::size_t> ready;
  for (std::size_t v = 0; v < n; ++v) {
    if (indegree[v] == 0) ready.push(v);
  }
  while (!ready.empty()) {
    const std::size_t v = ready.front();
    ready.pop();
    order.push_back(v);
    for (std::size_t s : succ[v]) {
      if (--indegree[s] == 0) ready.push(s);
    }
  }
  std::vector<bool> placed(n, false);
  for (std::size_t v : order) placed[v] = true;
  for (std::size_t v = 0; v < n; ++v) {
    if (!placed[v]) order.push_back(v);
  }
  std::vector<int> rank(n, 0);
  std::vector<bool> done(n, false);
  for (std::size_t v : order) {
    for (std::size_t p : pred[v]) {
      if (done[p]) rank[v] = std::max(rank[v], rank[p] + 1);
    }
    done[v] = true;
  }
  // Sources (model inputs) sit just above their first reader, not all on the top row.
  for (std::size_t v = 0; v < n; ++v) {
    if (!pred[v].empty() || succ[v].empty()) continue;
    int first = rank[succ[v].front()];
    for (std::size_t s : succ[v]) first = std::min(first, rank[s]);
    rank[v] = std::max(0, first - 1);
  }
  return rank;
}

Items buildItems(const Graph& g) {
  Items it;
  it.rank = ranks(g);
  for (const Node& n : g.nodes) it.width.push_back(n.w);
  const std::size_t n = g.nodes.size();
  it.up.resize(n);
  it.down.resize(n);
  it.route.resize(g.edges.size());
  std::size_t virtuals = 0;
  for (const Edge& e : g.edges) {
    if (it.rank[e.to] > it.rank[e.from])
      virtuals += static_cast<std::size_t>(it.rank[e.to] - it.rank[e.from] - 1);
  }
  const bool route = virtuals <= kMaxVirtual;
  std::set<std::pair<std::size_t, std::size_t>> linked;
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    const Edge& e = g.edges[i];
    if (e.from == e.to || it.rank[e.to] <= it.rank[e.from]) continue;
    if (!route || it.rank[e.to] == it.rank[e.from] + 1) {
      if (!linked.insert({e.from, e.to}).second) continue;
      it.down[e.from].push_back(e.to);
      it.up[e.to].push_back(e.from);
      continue;
    }
    std::size_t previous = e.from;
    for (int r = it.rank[e.from] + 1; r < it.rank[e.to]; ++r) {
      const std::size_t v = it.rank.size();
      it.rank.push_back(r);
      it.width.push_back(2.0);
      it.up.push_back({previous});
      it.down.push_back({});
      it.down[previous].push_back(v);
      it.route[i].push_back(v);
      previous = v;
    }
    it.down[previous].push_back(e.to);
    it.up[e.to].push_back(previous);
  }
  const int depth = it.rank.empty() ? 0 : *std::max_element(it.rank.begin(), it.rank.end()) + 1;
  it.layers.resize(static_cast<std::size_t>(depth));
  for (std::size_t v = 0; v < it.rank.size(); ++v)
    it.layers[static_cast<std::size_t>(it.rank[v])].push_back(v);
  it.pos.assign(it.rank.size(), 0.0);
  for (const auto& layer : it.layers) {
    for (std::size_t i = 0; i < layer.size(); ++i) it.pos[layer[i]] = static_cast<double>(i);
  }
  return it;
}

double meanOf(const std::vector<std::size_t>& neighbours, const std::vector<double>& pos, double otherwise) {
  if (neighbours.empty()) return otherwise;
  double sum = 0;
  for (std::size_t v : neighbours) sum += pos[v];
  return sum / static_cast<double>(neighbours.size());
}

/// Barycentric ordering: each layer sorted by the mean position of its neighbours in the layer
/// above (downward sweep) or below (upward sweep).
void order(Items& it) {
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    const bool downward = sweep % 2 == 0;
    const std::size_t count = it.layers.size();
    for (std::size_t k = 1; k < count; ++k) {
      auto& layer = it.layers[downward ? k : count - 1 - k];
      std::vector<std::pair<double, std::size_t>> keyed;
      keyed.reserve(layer.size());
      for (std::size_t v : layer)
        keyed.emplace_back(meanOf(downward ? it.up[v] : it.down[v], it.pos, it.pos[v]), v);
      std::stable_sort(keyed.begin(), keyed.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (std::size_t i = 0; i < keyed.size(); ++i) {
        layer[i] = keyed[i].second;
        it.pos[layer[i]] = static_cast<double>(i);
      }
    }
  }
}

/// Places one layer's centres as close to `wanted` as their order and widths allow: a left-to-
/// right pass pushes overlapping items right, a right-to-left pass pushes them left, and the
/// two are averaged (each pass alone would drift the layer to one side).
void placeLayer(const std::vector<std::size_t>& layer, const std::vector<double>& wanted, Items& it) {
  const std::size_t n = layer.size();
  std::vector<double> right(n), left(n);
  for (std::size_t i = 0; i < n; ++i) {
    right[i] = wanted[i];
    if (i > 0)
      right[i] = std::max(right[i], right[i - 1] + (it.width[layer[i - 1]] + it.width[layer[i]]) / 2 + kGap);
  }
  for (std::size_t k = n; k-- > 0;) {
    left[k] = wanted[k];
    if (k + 1 < n)
      left[k] = std::min(left[k], left[k + 1] - (it.width[layer[k + 1]] + it.width[layer[k]]) / 2 - kGap);
  }
  for (std::size_t i = 0; i < n; ++i) it.pos[layer[i]] = (left[i] + right[i]) / 2;
  // The average can overlap where both passes moved; one more push keeps the layer legal.
  for (std::size_t i = 1; i < n; ++i) {
    const double minimum = it.pos[layer[i - 1]] + (it.width[layer[i - 1]] + it.width[layer[i]]) / 2 + kGap;
    it.pos[layer[i]] = std::max(it.pos[layer[i]], minimum);
  }
}

void position(Items& it) {
  for (auto& layer : it.layers) {
    double x = 0;
    for (std::size_t v : layer) {
      it.pos[v] = x + it.width[v] / 2;
      x += it.width[v] + kGap;
    }
  }
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    const bool downward = sweep % 2 == 0;
    const std::size_t count = it.layers.size();
    for (std::size_t k = 0; k < count; ++k) {
      const auto& layer = it.layers[downward ? k : count - 1 - k];
      std::vector<double> wanted;
      wanted.reserve(layer.size());
      for (std::size_t v : layer) {
        const auto& primary = downward ? it.up[v] : it.down[v];
        const auto& secondary = downward ? it.down[v] : it.up[v];
        wanted.push_back(meanOf(primary.empty() ? secondary : primary, it.pos, it.pos[v]));
      }
      placeLayer(layer, wanted, it);
    }
  }
}

}  // namespace

void layout(Graph& g) {
  for (Node& n : g.nodes) {
    n.w = nodeWidth(n);
    n.h = n.kind == "input" || n.kind == "output" ? kIoHeight : kNodeHeight;
  }
  Items it = buildItems(g);
  order(it);
  position(it);
  double minX = 0;
  bool first = true;
  for (std::size_t v = 0; v < it.pos.size(); ++v) {
    minX = first ? it.pos[v] - it.width[v] / 2 : std::min(minX, it.pos[v] - it.width[v] / 2);
    first = false;
  }
  std::vector<double> layerY(it.layers.size() + 1, kMargin);
  for (std::size_t r = 0; r < it.layers.size(); ++r) {
    double height = 0;
    for (std::size_t v : it.layers[r]) height = std::max(height, v < g.nodes.size() ? g.nodes[v].h : 0.0);
    layerY[r + 1] = layerY[r] + height + kLayerGap;
  }
  g.width = 0;
  for (std::size_t v = 0; v < g.nodes.size(); ++v) {
    Node& n = g.nodes[v];
    const std::size_t r = static_cast<std::size_t>(it.rank[v]);
    const double layerHeight = layerY[r + 1] - layerY[r] - kLayerGap;
    n.x = it.pos[v] - minX - n.w / 2 + kMargin;
    n.y = layerY[r] + (layerHeight - n.h) / 2;
    g.width = std::max(g.width, n.x + n.w + kMargin);
  }
  g.height = layerY.back() + kMargin - kLayerGap;
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    Edge& e = g.edges[i];
    const Node& a = g.nodes[e.from];
    const Node& b = g.nodes[e.to];
    e.points = {a.x + a.w / 2, a.y + a.h};
    for (std::size_t v : it.route[i]) {
      const std::size_t r = static_cast<std::size_t>(it.rank[v]);
      const double x = it.pos[v] - minX + kMargin;
      e.points.insert(e.points.end(), {x, layerY[r], x, layerY[r + 1] - kLayerGap});
    }
    e.points.insert(e.points.end(), {b.x + b.w / 2, b.y});
  }
}

}  // namespace openvgf::api::view
