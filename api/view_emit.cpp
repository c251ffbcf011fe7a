// SPDX-License-Identifier: Apache-2.0
// Writing a laid-out view graph (view.h): the HTML page (the template of api/view/, embedded at
// build time, with the graph inline as JSON), Model Explorer's graph collection JSON and
// Graphviz DOT; and reading GPU times from a `run --profile` Chrome trace.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "api/view.h"
#include "api/view/template.h"
#include "common/file_io.h"

namespace openvgf::api::view {
namespace {

double rounded(double v) {
  return std::round(v * 10.0) / 10.0;
}

nlohmann::json pageData(const Graph& g) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const Node& n : g.nodes) {
    nlohmann::json attrs = nlohmann::json::array();
    for (const auto& [key, value] : n.attrs) attrs.push_back({key, value});
    nlohmann::json j = {{"id", n.id},        {"label", n.label},         {"name", n.name},
                        {"kind", n.kind},    {"group", n.group},         {"lowering", n.lowering},
                        {"x", rounded(n.x)}, {"y", rounded(n.y)},        {"w", rounded(n.w)},
                        {"h", rounded(n.h)}, {"attrs", std::move(attrs)}};
    if (n.gpuMs >= 0) j["gpuMs"] = n.gpuMs;
    nodes.push_back(std::move(j));
  }
  nlohmann::json edges = nlohmann::json::array();
  for (const Edge& e : g.edges) {
    nlohmann::json points = nlohmann::json::array();
    for (double p : e.points) points.push_back(rounded(p));
    edges.push_back({{"from", e.from},
                     {"to", e.to},
                     {"tensor", e.tensor},
                     {"type", e.type},
                     {"points", std::move(points)}});
  }
  return {{"title", g.title},          {"format", g.format},          {"notes", g.notes},
          {"width", rounded(g.width)}, {"height", rounded(g.height)}, {"nodes", std::move(nodes)},
          {"edges", std::move(edges)}};
}

/// JSON that can sit inside <script>: '<' never appears raw, so no "</script>" or "<!--" in
/// a tensor name can end the block early (names come from the model file, which is untrusted).
std::string scriptSafe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

std::string htmlEscaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string templateFile(std::string_view name) {
  std::optional<std::string_view> text = page::find(name);
  return text ? std::string(*text) : std::string();
}

/// The template with each marker replaced by its value, in one pass over the template alone, so
/// a value (a model's names) that happens to contain a marker is never replaced.
std::string fill(std::string_view text, const std::vector<std::pair<std::string_view, std::string>>& values) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t next = text.find('@', at);
    if (next == std::string_view::npos) break;
    out.append(text.substr(at, next - at));
    at = next;
    auto match = std::find_if(values.begin(), values.end(),
                              [&](const auto& v) { return text.substr(at).starts_with(v.first); });
    if (match == values.end()) {
      out += '@';
      ++at;
      continue;
    }
    out += match->second;
    at += match->first.size();
  }
  out.append(text.substr(at));
  return out;
}

std::string dotQuoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string toHtml(const Graph& g) {
  const std::string data = pageData(g).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return fill(templateFile("page.html"), {{"@OPENVGF_TITLE@", htmlEscaped(g.title)},
                                          {"@OPENVGF_STYLE@", templateFile("page.css")},
                                          {"@OPENVGF_DATA@", scriptSafe(data)},
                                          {"@OPENVGF_SCRIPT@", templateFile("page.js")}});
}

std::string toModelExplorerJson(const Graph& g) {
  std::vector<nlohmann::json> incoming(g.nodes.size(), nlohmann::json::array());
  std::vector<std::map<std::string, std::size_t>> outputSlots(g.nodes.size());
  std::vector<nlohmann::json> outputs(g.nodes.size(), nlohmann::json::array());
  for (const Edge& e : g.edges) {
    auto [slot, added] = outputSlots[e.from].emplace(e.tensor, outputSlots[e.from].size());
    if (added) {
      outputs[e.from].push_back(
          {{"id", std::to_string(slot->second)},
           {"attrs",
            {{{"key", "__tensor_tag"}, {"value", e.tensor}}, {{"key", "tensor_shape"}, {"value", e.type}}}}});
    }
    incoming[e.to].push_back({{"sourceNodeId", g.nodes[e.from].id},
                              {"sourceNodeOutputId", std::to_string(slot->second)},
                              {"targetNodeInputId", std::to_string(incoming[e.to].size())}});
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    nlohmann::json attrs = nlohmann::json::array();
    attrs.push_back({{"key", "name"}, {"value", n.name}});
    for (const auto& [key, value] : n.attrs) attrs.push_back({{"key", key}, {"value", value}});
    if (n.gpuMs >= 0) attrs.push_back({{"key", "gpu_ms"}, {"value", fmt::format("{:.4f}", n.gpuMs)}});
    // Model Explorer nests nodes by '/'-separated namespaces: one level per segment / delegate.
    std::string ns = n.group;
    std::replace(ns.begin(), ns.end(), '/', '_');
    nodes.push_back({{"id", n.id},
                     {"label", n.label},
                     {"namespace", ns},
                     {"attrs", std::move(attrs)},
                     {"incomingEdges", std::move(incoming[i])},
                     {"outputsMetadata", std::move(outputs[i])}});
  }
  nlohmann::json collection = {{"label", g.title},
                               {"graphs", {{{"id", g.title}, {"nodes", std::move(nodes)}}}}};
  return collection.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string toDot(const Graph& g) {
  std::string out = fmt::format(
      "digraph {} {{\n  rankdir=TB;\n  node [shape=box, style=rounded, fontname=\"monospace\"];\n",
      dotQuoted(g.title));
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) groups[g.nodes[i].group].push_back(i);
  std::size_t cluster = 0;
  for (const auto& [group, members] : groups) {
    const bool boxed = !group.empty();
    if (boxed) out += fmt::format("  subgraph cluster_{} {{\n    label={};\n", cluster++, dotQuoted(group));
    for (std::size_t i : members) {
      const Node& n = g.nodes[i];
      std::string label = n.label + "\n" + n.name;
      if (n.gpuMs >= 0) label += fmt::format("\n{:.3f} ms", n.gpuMs);
      out += fmt::format("  {}{} [label={}{}];\n", boxed ? "  " : "", n.id, dotQuoted(label),
                         n.kind == "input" || n.kind == "output" ? ", shape=ellipse" : "");
    }
    if (boxed) out += "  }\n";
  }
  for (const Edge& e : g.edges) {
    out += fmt::format("  {} -> {} [label={}];\n", g.nodes[e.from].id, g.nodes[e.to].id,
                       dotQuoted(e.type.empty() ? e.tensor : e.type));
  }
  return out + "}\n";
}

Status applyProfile(Graph& g, const std::string& tracePath) {
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, readFile(tracePath));
  nlohmann::json trace = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (trace.is_discarded() || !trace.is_object() || !trace.contains("traceEvents") ||
      !trace["traceEvents"].is_array()) {
    return invalidInput(
        "{}: expected a Chrome trace (a JSON object with a traceEvents array) as `openvgf run "
        "--profile` writes",
        tracePath);
  }
  std::map<std::string, std::vector<double>> durations;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (!e.is_object() || e.value("ph", "") != "X" || !e.contains("name") || !e["name"].is_string()) continue;
    if (!e.contains("dur") || !e["dur"].is_number()) continue;
    durations[e["name"].get<std::string>()].push_back(e["dur"].get<double>() / 1000.0);
  }
  std::map<std::string, double> median;
  for (auto& [name, values] : durations) {
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    median[name] = values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  }
  std::size_t matched = 0;
  for (Node& n : g.nodes) {
    double total = 0;
    bool any = false;
    for (const std::string& d : n.dispatches) {
      auto it = median.find(d);
      if (it == median.end()) continue;
      total += it->second;
      any = true;
    }
    if (!any) continue;
    n.gpuMs = total;
    n.attrs.emplace_back("GPU time",
                         fmt::format("{:.4f} ms (median over the runs{})", total,
                                     n.lowering == "fused" ? ", of the dispatch it is fused into" : ""));
    ++matched;
  }
  if (matched == 0) {
    g.notes.push_back(
        fmt::format("{}: no dispatch of the trace matches a node of this model ({} dispatch names in "
                    "the trace)",
                    tracePath, median.size()));
  }
  return {};
}

}  // namespace openvgf::api::view
