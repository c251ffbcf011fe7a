// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect model.ethosu`: the packaging (accelerator, regions, I/O placement) and the
// disassembled command stream of a vela_bin_stream or a bare COP1 payload.
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "runner/ethosu/disassembler.h"
#include "runner/ethosu/session.h"

namespace openvgf::cli {
namespace {

std::string shapeText(const runner::ethosu::VelaIo& io) {
  std::string s;
  for (std::int32_t d : io.shape) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

Result<int> inspectEthosU(const InspectOptions& options, std::span<const std::uint8_t> bytes) {
  namespace eu = runner::ethosu;
  OPENVGF_ASSIGN_OR_RETURN(eu::LoadedModel model, eu::loadModel(bytes, options.path));
  const eu::Product product = model.accelerator.product;
  const char* productName = product == eu::Product::U65 ? "Ethos-U65" : "Ethos-U55";
  if (options.json) {
    nlohmann::json j;
    j["format"] = model.hasIo ? "vela_bin_stream" : "COP1";
    j["accelerator"] = {{"product", productName},
                        {"macs_per_cycle", model.accelerator.macs},
                        {"cores", model.accelerator.cores},
                        {"shram_kb", model.payload.shramKb()},
                        {"config", model.payload.config},
                        {"id", model.payload.id}};
    if (model.hasIo) {
      j["weight_bytes"] = model.stream.weightData.size();
      j["scratch_size"] = model.stream.scratchSize;
      auto io = [](const std::vector<eu::VelaIo>& list) {
        nlohmann::json a = nlohmann::json::array();
        for (const eu::VelaIo& x : list) {
          a.push_back({{"shape", x.shape}, {"elem_size", x.elemSize}, {"offset", x.offset}, {"region", x.region}});
        }
        return a;
      };
      j["inputs"] = io(model.stream.inputs);
      j["outputs"] = io(model.stream.outputs);
    }
    nlohmann::json commands = nlohmann::json::array();
    for (const eu::Command& c : model.commands) {
      nlohmann::json cj = {{"index", c.index}, {"offset", c.wordOffset * 4}, {"name", eu::commandName(c.code, c.isCmd1, product)},
                           {"param", c.param}, {"text", eu::disassembleCommand(c, product)}};
      if (c.isCmd1) cj["data"] = c.data;
      commands.push_back(std::move(cj));
    }
    j["commands"] = std::move(commands);
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("{}: Ethos-U command stream ({})\n", options.path, model.hasIo ? "vela_bin_stream" : "COP1 payload");
  fmt::print("accelerator: {} {} MACs/cycle, {} KB SHRAM{} (CONFIG 0x{:08x}, ID 0x{:08x})\n", productName,
             model.accelerator.macs, model.payload.shramKb(),
             model.accelerator.cores > 1 ? fmt::format(", {} cores", model.accelerator.cores) : std::string(),
             model.payload.config, model.payload.id);
  if (model.hasIo) {
    fmt::print("weight_data: {} bytes (region 0)\nscratch_size: {} bytes (region 1)\n", model.stream.weightData.size(),
               model.stream.scratchSize);
    for (std::size_t i = 0; i < model.stream.inputs.size(); ++i) {
      const eu::VelaIo& io = model.stream.inputs[i];
      fmt::print("input {}: shape {} elem_size {} offset {} region {}\n", i, shapeText(io), io.elemSize, io.offset, io.region);
    }
    for (std::size_t i = 0; i < model.stream.outputs.size(); ++i) {
      const eu::VelaIo& io = model.stream.outputs[i];
      fmt::print("output {}: shape {} elem_size {} offset {} region {}\n", i, shapeText(io), io.elemSize, io.offset, io.region);
    }
  }
  fmt::print("commands: {} ({} words)\n", model.commands.size(), model.payload.commandStream.size() / 4);
  fmt::print("{}", eu::disassemble(model.commands, product));
  return 0;
}

OPENVGF_REGISTER_INSPECT(FileKind::EthosU, inspectEthosU);

}  // namespace
}  // namespace openvgf::cli
