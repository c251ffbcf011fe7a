// SPDX-License-Identifier: Apache-2.0
// Model loading and execution for packaged Ethos-U streams.
#include "runner/ethosu/session.h"

#include <algorithm>
#include <cstring>

namespace openvgf::runner::ethosu {

Result<LoadedModel> loadModel(std::span<const std::uint8_t> bytes, std::string_view name) {
  LoadedModel model;
  std::span<const std::uint8_t> cop = bytes;
  if (bytes.size() >= 16 && std::memcmp(bytes.data(), "vela_bin_stream", 15) == 0) {
    OPENVGF_ASSIGN_OR_RETURN(model.stream, readVelaBinStream(bytes, name));
    model.hasIo = true;
    cop = model.stream.cmdData;
  }
  const std::string copName = model.hasIo ? fmt::format("{}: cmd_data", name) : std::string(name);
  OPENVGF_ASSIGN_OR_RETURN(model.payload, readCop1(cop, copName));
  OPENVGF_ASSIGN_OR_RETURN(model.accelerator, withContext(acceleratorFromConfig(model.payload.config), copName));
  OPENVGF_ASSIGN_OR_RETURN(model.commands,
                           decodeCommandStream(model.payload.commandStream, model.accelerator.product,
                                               fmt::format("{}: command stream", copName)));
  return model;
}

std::uint64_t ioByteSize(const VelaIo& io) {
  std::uint64_t n = static_cast<std::uint64_t>(io.elemSize);
  for (std::int32_t d : io.shape) n *= static_cast<std::uint64_t>(d);
  return n;
}

Result<std::vector<std::vector<std::uint8_t>>> runModel(const LoadedModel& model,
                                                        std::span<const std::vector<std::uint8_t>> inputs,
                                                        SimulatorStats* stats) {
  if (!model.hasIo) return invalidInput("a bare COP1 payload has no input/output placement; run a vela_bin_stream");
  const VelaBinStream& s = model.stream;
  if (inputs.size() != s.inputs.size()) {
    return invalidInput("inputs: expected {} tensors, got {}", s.inputs.size(), inputs.size());
  }
  std::vector<std::uint8_t> weights = s.weightData;
  std::vector<std::uint8_t> scratch(s.scratchSize, 0);
  MemoryRegions regions{};
  regions[0] = weights;
  regions[1] = scratch;
  auto place = [&](const VelaIo& io, const char* what, std::size_t i) -> Result<std::span<std::uint8_t>> {
    if (io.region != 1) return unsupported("{}[{}]: region {}: only scratch (region 1) placement is supported", what, i, io.region);
    const std::uint64_t size = ioByteSize(io);
    const auto offset = static_cast<std::uint64_t>(io.offset);
    if (offset > scratch.size() || size > scratch.size() - offset) {
      return invalidInput("{}[{}]: [{}, +{}) expected within the scratch arena of {} bytes", what, i, offset, size, scratch.size());
    }
    return std::span<std::uint8_t>(scratch).subspan(offset, size);
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    OPENVGF_ASSIGN_OR_RETURN(std::span<std::uint8_t> dst, place(s.inputs[i], "inputs", i));
    if (inputs[i].size() != dst.size()) {
      return invalidInput("inputs[{}]: expected {} bytes, got {}", i, dst.size(), inputs[i].size());
    }
    std::copy(inputs[i].begin(), inputs[i].end(), dst.begin());
  }
  Simulator sim(model.accelerator);
  OPENVGF_TRY(sim.run(model.commands, regions));
  if (stats) *stats = sim.stats();
  std::vector<std::vector<std::uint8_t>> outputs;
  for (std::size_t i = 0; i < s.outputs.size(); ++i) {
    OPENVGF_ASSIGN_OR_RETURN(std::span<std::uint8_t> src, place(s.outputs[i], "outputs", i));
    outputs.emplace_back(src.begin(), src.end());
  }
  return outputs;
}

}  // namespace openvgf::runner::ethosu
