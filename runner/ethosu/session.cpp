// SPDX-License-Identifier: Apache-2.0
// Model loading and execution for packaged Ethos-U streams.
#include "runner/ethosu/session.h"

#include <algorithm>
#include <cstring>

#include <fmt/ranges.h>

namespace openvgf::runner::ethosu {

using namespace ::openvgf::ethosu;

namespace {

Status decodePayload(LoadedModel& model, std::span<const std::uint8_t> cop, const std::string& copName) {
  OPENVGF_ASSIGN_OR_RETURN(model.payload, readCop1(cop, copName));
  OPENVGF_ASSIGN_OR_RETURN(model.accelerator, withContext(acceleratorFromConfigWord(model.payload.config), copName));
  OPENVGF_ASSIGN_OR_RETURN(model.commands, decodeCommandStream(model.payload.commandStream, model.accelerator.product,
                                                               fmt::format("{}: command stream", copName)));
  return {};
}

}  // namespace

Result<LoadedModel> loadModel(const VelaStream& stream, std::string_view name) {
  LoadedModel model;
  if (!stream.externalBlocks.empty()) {
    return unsupported("{}: block '{}' is external (named data in a .ptd file), which is not supported", name,
                       stream.externalBlocks.front().block);
  }
  if (stream.commandStreamMagic != "COP1") {
    return unsupported("{}: cmd_data: {} payloads are not supported (only COP1)", name, stream.commandStreamMagic);
  }
  model.hasIo = true;
  model.weightData.assign(stream.weights.begin(), stream.weights.end());
  model.scratchSize = stream.scratchSize.value_or(0);
  model.persistentSize = stream.persistentSize;
  model.persistentInit.assign(stream.persistentInit.begin(), stream.persistentInit.end());
  model.inputs = stream.inputs;
  model.outputs = stream.outputs;
  model.ioRank = stream.ioRank;
  // An I/O tensor lives in the scratch arena, so one larger than the arena's limit is refused
  // here, before its byte count (which can wrap 64 bits) is compared with an input file.
  for (const auto& [list, what] : {std::pair{&model.inputs, "inputs"}, std::pair{&model.outputs, "outputs"}}) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const VelaIo& io = (*list)[i];
      if (ioByteSize(model, io) > kMaxEthosUScratchBytes) {
        return invalidInput("{}: {}[{}]: shape {} of {}-byte elements: expected at most {} bytes (the scratch arena's limit)",
                            name, what, i, fmt::join(std::span(io.shape).first(static_cast<std::size_t>(model.ioRank)), "x"),
                            io.elementSize, kMaxEthosUScratchBytes);
      }
    }
  }
  OPENVGF_TRY(decodePayload(model, stream.commandStream, fmt::format("{}: cmd_data", name)));
  return model;
}

Result<LoadedModel> loadModel(std::span<const std::uint8_t> bytes, std::string_view name) {
  if (bytes.size() >= 16 && std::memcmp(bytes.data(), "vela_bin_stream", 15) == 0) {
    OPENVGF_ASSIGN_OR_RETURN(VelaStream stream, withContext(parseVelaBinStream(bytes), name));
    return loadModel(stream, name);
  }
  LoadedModel model;
  OPENVGF_TRY(decodePayload(model, bytes, std::string(name)));
  return model;
}

std::uint64_t ioByteSize(const LoadedModel& model, const VelaIo& io) {
  const std::optional<std::uint64_t> elements = velaIoElements(io, model.ioRank);
  if (!elements || io.elementSize < 0) return ~std::uint64_t{0};
  const auto size = static_cast<std::uint64_t>(io.elementSize);
  return size != 0 && *elements > ~std::uint64_t{0} / size ? ~std::uint64_t{0} : *elements * size;
}

Result<std::vector<std::vector<std::uint8_t>>> runModel(const LoadedModel& model,
                                                        std::span<const std::vector<std::uint8_t>> inputs,
                                                        std::string_view name, SimulatorStats* stats,
                                                        const RunLimits& limits) {
  if (!model.hasIo) {
    return invalidInput("{}: a bare COP1 payload has no input/output placement; run a vela_bin_stream", name);
  }
  if (inputs.size() != model.inputs.size()) {
    return invalidInput("{}: inputs: expected {} tensors, got {}", name, model.inputs.size(), inputs.size());
  }
  for (const auto& [size, block] : {std::pair{std::uint64_t{model.scratchSize}, "scratch_size"},
                                    std::pair{std::uint64_t{model.persistentSize.value_or(0)}, "persistent_size"}}) {
    if (size > limits.maxScratchBytes) {
      return unsupported("{}: {}: {} bytes exceeds the simulator's limit of {} bytes", name, block, size,
                         limits.maxScratchBytes);
    }
  }
  if (model.persistentInit.size() > model.persistentSize.value_or(0)) {
    return invalidInput("{}: persistent_init: expected at most persistent_size = {} bytes, got {}", name,
                        model.persistentSize.value_or(0), model.persistentInit.size());
  }
  std::vector<std::uint8_t> weights = model.weightData;
  std::vector<std::uint8_t> scratch(model.scratchSize, 0);
  std::vector<std::uint8_t> persistent(model.persistentSize.value_or(0), 0);
  std::copy(model.persistentInit.begin(), model.persistentInit.end(), persistent.begin());
  MemoryRegions regions{};
  regions[0] = weights;
  regions[1] = scratch;
  regions[2] = scratch;
  regions[5] = persistent;
  auto place = [&](const VelaIo& io, const char* what, std::size_t i) -> Result<std::span<std::uint8_t>> {
    if (io.region != 1) {
      return unsupported("{}: {}[{}]: region {}: only scratch (region 1) placement is supported", name, what, i, io.region);
    }
    if (io.elementSize != 1 && io.elementSize != 2 && io.elementSize != 4) {
      return invalidInput("{}: {}[{}]: elem_size: expected 1, 2 or 4, got {}", name, what, i, io.elementSize);
    }
    const std::uint64_t size = ioByteSize(model, io);
    if (io.offset < 0 || static_cast<std::uint64_t>(io.offset) > scratch.size() ||
        size > scratch.size() - static_cast<std::uint64_t>(io.offset)) {
      return invalidInput("{}: {}[{}]: [{}, +{}) expected within the scratch arena of {} bytes", name, what, i, io.offset,
                          size, scratch.size());
    }
    return std::span<std::uint8_t>(scratch).subspan(static_cast<std::size_t>(io.offset), size);
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    OPENVGF_ASSIGN_OR_RETURN(std::span<std::uint8_t> dst, place(model.inputs[i], "inputs", i));
    if (inputs[i].size() != dst.size()) {
      return invalidInput("{}: inputs[{}]: expected {} bytes, got {}", name, i, dst.size(), inputs[i].size());
    }
    std::copy(inputs[i].begin(), inputs[i].end(), dst.begin());
  }
  for (std::size_t i = 0; i < model.outputs.size(); ++i) OPENVGF_TRY(place(model.outputs[i], "outputs", i));
  Simulator sim(model.accelerator, limits.simulator);
  if (Status s = sim.run(model.commands, regions); !s) return Unexpected(std::move(s).error().addContext(name));
  if (stats) *stats = sim.stats();
  std::vector<std::vector<std::uint8_t>> outputs;
  for (std::size_t i = 0; i < model.outputs.size(); ++i) {
    OPENVGF_ASSIGN_OR_RETURN(std::span<std::uint8_t> src, place(model.outputs[i], "outputs", i));
    outputs.emplace_back(src.begin(), src.end());
  }
  return outputs;
}

}  // namespace openvgf::runner::ethosu
