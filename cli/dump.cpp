// SPDX-License-Identifier: Apache-2.0
// `openvgf run --dump DIR` (see debug.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <set>

#include "debug.h"

namespace openvgf::cli {

std::size_t graphOutputCount(const Model& model) {
  return static_cast<std::size_t>(std::count_if(model.outputs().begin(), model.outputs().end(),
                                                [](const TensorInfo& t) { return !t.intermediate; }));
}

void writeDump(const std::string& dir, const Model& model, const std::vector<Tensor>& outputs) {
  const std::vector<TensorInfo>& infos = model.outputs();
  // Operator order (the graph's own outputs come first in the model's output list).
  std::vector<std::size_t> order(infos.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return infos[a].producerIndex < infos[b].producerIndex;
  });
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail(ErrorCode::Environment, fmt::format("{}: --dump: cannot create the folder: {}", dir, ec.message()));
  std::set<std::string> taken;
  std::string index = fmt::format("{{\n  \"model\": {},\n  \"tensors\": [", jsonString(model.path()));
  for (std::size_t k = 0; k < order.size(); ++k) {
    const TensorInfo& info = infos[order[k]];
    const std::string stem = sanitizeFileName(info.name);
    std::string file = stem + ".npy";
    for (int n = 2; !taken.insert(file).second; ++n) file = fmt::format("{}_{}.npy", stem, n);
    writeNpy((std::filesystem::path(dir) / file).string(), outputs[order[k]], info.isUnsigned);
    index += fmt::format(
        "{}\n    {{\"file\": {}, \"tensor\": {}, \"shape\": [{}], \"dtype\": {}, \"operator\": {}, "
        "\"operatorIndex\": {}, \"graphOutput\": {}}}",
        k == 0 ? "" : ",", jsonString(file), jsonString(info.name), fmt::join(info.shape, ", "),
        jsonString(toString(info.dtype)), jsonString(info.producer), info.producerIndex,
        info.intermediate ? "false" : "true");
  }
  index += "\n  ]\n}\n";
  writeFile((std::filesystem::path(dir) / "index.json").string(), index);
}

}  // namespace openvgf::cli
