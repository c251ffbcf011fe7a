// SPDX-License-Identifier: Apache-2.0
// Loading and running a packaged Ethos-U model the way ExecuTorch's runtime does: region 0 =
// weight_data, region 1 = a zeroed scratch arena of scratch_size bytes into which inputs are
// copied at their offsets and from which outputs are read back after the stream has run.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "runner/ethosu/command_stream.h"
#include "runner/ethosu/payload.h"
#include "runner/ethosu/simulator.h"

namespace openvgf::runner::ethosu {

struct LoadedModel {
  VelaBinStream stream;  ///< empty I/O lists when loaded from a bare COP1 payload
  bool hasIo = false;    ///< true for a vela_bin_stream
  Cop1Payload payload;
  AcceleratorInfo accelerator;
  std::vector<Command> commands;
};

/// Accepts a vela_bin_stream or a bare COP1 payload and decodes its command stream.
Result<LoadedModel> loadModel(std::span<const std::uint8_t> bytes, std::string_view name);

/// Byte size of one vela I/O tensor (product of its shape times elem_size).
std::uint64_t ioByteSize(const VelaIo& io);

/// Runs the model on raw input tensors (one byte buffer per `inputs` entry, exact size) and
/// returns one byte buffer per output. `stats` receives the simulator's counters.
Result<std::vector<std::vector<std::uint8_t>>> runModel(const LoadedModel& model,
                                                        std::span<const std::vector<std::uint8_t>> inputs,
                                                        SimulatorStats* stats = nullptr);

}  // namespace openvgf::runner::ethosu
