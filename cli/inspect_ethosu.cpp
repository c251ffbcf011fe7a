// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect model.ethosu`: the packaging (accelerator, regions, I/O placement) and the
// disassembled command stream of a vela_bin_stream or a bare COP1 payload.
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "ethosu/disassembler.h"
#include "runner/ethosu/session.h"

namespace openvgf::cli {
namespace {

std::string shapeText(const runner::ethosu::VelaIo& io, int rank) {
  std::string s;
  for (int d = 0; d < rank; ++d) s += (s.empty() ? "" : "x") + std::to_string(io.shape[static_cast<std::size_t>(d)]);
  return s;
}

Result<int> inspectEthosU(const InspectOptions& options, std::span<const std::uint8_t> bytes) {
  namespace eu = runner::ethosu;
  namespace fmtu = ::openvgf::ethosu;
  OPENVGF_ASSIGN_OR_RETURN(eu::LoadedModel model, eu::loadModel(bytes, options.path));
  const fmtu::Product product = model.accelerator.product;
  const std::string_view productName = fmtu::productName(product);
  if (options.json) {
    nlohmann::json j;
    j["format"] = model.hasIo ? "vela_bin_stream" : "COP1";
    j["accelerator"] = {{"product", productName},
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
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("{}: Ethos-U command stream ({})\n", options.path, model.hasIo ? "vela_bin_stream" : "COP1 payload");
  fmt::print("accelerator: {} ({}) {} MACs/cycle{}{} (CONFIG 0x{:08x}, ID 0x{:08x})\n", productName, model.accelerator.name,
             model.accelerator.macs,
             product == fmtu::Product::U85 ? std::string() : fmt::format(", {} KB SHRAM", model.payload.shramKb()),
             model.accelerator.cores > 1 ? fmt::format(", {} cores", model.accelerator.cores) : std::string(),
             model.payload.config, model.payload.id);
  if (model.hasIo) {
    fmt::print("weight_data: {} bytes (region 0)\nscratch_size: {} bytes (region 1)\n", model.weightData.size(),
               model.scratchSize);
    if (model.persistentSize) fmt::print("persistent_size: {} bytes (region 5)\n", *model.persistentSize);
    for (std::size_t i = 0; i < model.inputs.size(); ++i) {
      const eu::VelaIo& io = model.inputs[i];
      fmt::print("input {}: shape {} elem_size {} offset {} region {}\n", i, shapeText(io, model.ioRank), io.elementSize,
                 io.offset, io.region);
    }
    for (std::size_t i = 0; i < model.outputs.size(); ++i) {
      const eu::VelaIo& io = model.outputs[i];
      fmt::print("output {}: shape {} elem_size {} offset {} region {}\n", i, shapeText(io, model.ioRank), io.elementSize,
                 io.offset, io.region);
    }
  }
  fmt::print("commands: {} ({} words)\n", model.commands.size(), model.payload.commandStream.size() / 4);
  fmt::print("{}", fmtu::disassemble(model.commands, product));
  return 0;
}

OPENVGF_REGISTER_INSPECT(FileKind::EthosU, inspectEthosU);

}  // namespace
}  // namespace openvgf::cli
