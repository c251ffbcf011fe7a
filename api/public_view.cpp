// SPDX-License-Identifier: Apache-2.0
// openvgf::viewReport (openvgf.hpp) over api/view.h.
#include "api/public_state.h"
#include "api/view.h"
#include "openvgf/openvgf.hpp"

namespace openvgf {

std::string viewReport(const std::string& path, const ViewOptions& options) {
  api::view::Graph graph = unwrap(api::view::buildGraph(path));
  if (!options.profile.empty()) unwrap(api::view::applyProfile(graph, options.profile));
  switch (options.format) {
    case ViewFormat::Json: return api::view::toModelExplorerJson(graph);
    case ViewFormat::Dot: return api::view::toDot(graph);
    case ViewFormat::Html: break;
  }
  api::view::layout(graph);
  return api::view::toHtml(graph);
}

}  // namespace openvgf
