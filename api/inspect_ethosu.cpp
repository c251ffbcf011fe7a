// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect model.ethosu` (openvgf::inspect): the packaging (accelerator, regions, I/O
// placement) and the disassembled command stream of a vela_bin_stream or a bare COP1 payload.
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/inspect.h"
#include "ethosu/disassembler.h"
#include "runner/ethosu/session.h"

namespace openvgf::api {
namespace {

namespace eu = runner::ethosu;
namespace fmtu = ::openvgf::ethosu;

std::string shapeText(const eu::VelaIo& io, int rank) {
  std::string s;
  for (int d = 0; d < rank; ++d) s += (s.empty() ? "" : "x") + std::to_string(io.shape[static_cast<std::size_t>(d)]);
  return s;
}

std::string ethosUJson(const eu::LoadedModel& model) {
  const fmtu::Product product = model.accelerator.product;
  nlohmann::json j;
  j["format"] = model.hasIo ? "vela_bin_stream" : "COP1";
  j["accelerator"] = {{"product", fmtu::productName(product)},
                      {"configuration", model.accelerator.name},
                      {"macs_per_cycle", model.accelerator.macs},
                      {"cores", model.accelerator.cores},
                      {"config", model.payload.config},
                      {"id", model.payload.id}};
  if (product != fmtu::Product::U85) j["accelerator"]["shram_kb"] = model.payload.shramKb();
  if (model.hasIo) {
    j["weight_bytes"] = model.weightData.size();
    j["scratch_size"] = model.scratchSize;
    auto io = [](const std::vector<eu::VelaIo>& list) {
      nlohmann::json a = nlohmann::json::array();
      for (const eu::VelaIo& x : list) {
        a.push_back({{"shape", x.shape}, {"elem_size", x.elementSize}, {"offset", x.offset}, {"region", x.region}});
      }
      return a;
    };
    j["inputs"] = io(model.inputs);
    j["outputs"] = io(model.outputs);
  }
  nlohmann::json commands = nlohmann::json::array();
  for (const eu::Command& c : model.commands) {
    nlohmann::json cj = {{"index", c.index},
                         {"offset", c.wordOffset * 4},
                         {"name", fmtu::commandName(product, c.code, c.isCmd1)},
                         {"param", c.param},
                         {"fields", fmtu::commandFields(c, product)},
                         {"text", fmtu::disassembleCommand(c, product)}};
    if (c.isCmd1) cj["data"] = c.data;
    commands.push_back(std::move(cj));
  }
  j["commands"] = std::move(commands);
  return j.dump(2) + "\n";
}

std::string ethosUText(const eu::LoadedModel& model, const std::string& path) {
  const fmtu::Product product = model.accelerator.product;
  std::string out;
  auto line = std::back_inserter(out);
  fmt::format_to(line, "{}: Ethos-U command stream ({})\n", path, model.hasIo ? "vela_bin_stream" : "COP1 payload");
  fmt::format_to(line, "accelerator: {} ({}) {} MACs/cycle{}{} (CONFIG 0x{:08x}, ID 0x{:08x})\n",
                 fmtu::productName(product), model.accelerator.name, model.accelerator.macs,
                 product == fmtu::Product::U85 ? std::string() : fmt::format(", {} KB SHRAM", model.payload.shramKb()),
                 model.accelerator.cores > 1 ? fmt::format(", {} cores", model.accelerator.cores) : std::string(),
                 model.payload.config, model.payload.id);
  if (model.hasIo) {
    fmt::format_to(line, "weight_data: {} bytes (region 0)\nscratch_size: {} bytes (region 1)\n", model.weightData.size(),
                   model.scratchSize);
    if (model.persistentSize) fmt::format_to(line, "persistent_size: {} bytes (region 5)\n", *model.persistentSize);
    for (auto [list, role] : {std::pair{&model.inputs, "input"}, std::pair{&model.outputs, "output"}}) {
      for (std::size_t i = 0; i < list->size(); ++i) {
        const eu::VelaIo& io = (*list)[i];
        fmt::format_to(line, "{} {}: shape {} elem_size {} offset {} region {}\n", role, i, shapeText(io, model.ioRank),
                       io.elementSize, io.offset, io.region);
      }
    }
  }
  fmt::format_to(line, "commands: {} ({} words)\n", model.commands.size(), model.payload.commandStream.size() / 4);
  out += fmtu::disassemble(model.commands, product);
  return out;
}

}  // namespace

Result<Inspection> inspectEthosU(std::span<const std::uint8_t> bytes, const std::string& path, bool json) {
  OPENVGF_ASSIGN_OR_RETURN(eu::LoadedModel model, eu::loadModel(bytes, path));
  Inspection inspection;
  inspection.text = json ? ethosUJson(model) : ethosUText(model, path);
  return inspection;
}

}  // namespace openvgf::api
