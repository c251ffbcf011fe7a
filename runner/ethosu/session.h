// SPDX-License-Identifier: Apache-2.0
// Loading and running a packaged Ethos-U model the way ExecuTorch's runtime does: region 0 =
// weight_data, region 1 = a zeroed scratch arena of scratch_size bytes into which inputs are
// copied at their offsets and from which outputs are read back after the stream has run,
// region 2 (fast scratch) = the same arena (Vela maps it there unless fast memory was
// configured, and a .tflite's custom operator passes the scratch tensor twice), region 5 =
// the persistent area of persistent_size bytes initialised from persistent_init.
//
// Every size a stream claims is bounded before anything is allocated: scratch and
// persistent areas by RunLimits::maxScratchBytes, weights, work and commands by the
// simulator's Limits.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/limits.h"
#include "ethosu/cop1.h"
#include "ethosu/vela_bin_stream.h"
#include "runner/ethosu/simulator.h"

namespace openvgf::runner::ethosu {

using ::openvgf::ethosu::VelaIo;

struct LoadedModel {
  bool hasIo = false;  ///< false for a bare COP1 payload (no weights, scratch or I/O placement)
  ::openvgf::ethosu::Cop1Payload payload;
  AcceleratorConfig accelerator;
  std::vector<Command> commands;
  // From the vela_bin_stream.
  std::vector<std::uint8_t> weightData;
  std::uint32_t scratchSize = 0;
  std::optional<std::uint32_t> persistentSize;
  std::vector<std::uint8_t> persistentInit;
  std::vector<VelaIo> inputs, outputs;
  int ioRank = 6;
};

/// Accepts a vela_bin_stream or a bare COP1 payload and decodes its command stream. Every
/// error names `name` (the file).
Result<LoadedModel> loadModel(std::span<const std::uint8_t> bytes, std::string_view name);
/// The same for a stream already parsed (a .pte delegate).
Result<LoadedModel> loadModel(const ::openvgf::ethosu::VelaStream& stream, std::string_view name);

/// Byte size of one I/O tensor of the model (product of its shape times the element size).
std::uint64_t ioByteSize(const LoadedModel& model, const VelaIo& io);

struct RunLimits {
  /// The scratch arena and the persistent area a stream may claim: 256 MiB each (the bound
  /// the compiler also keeps, common/limits.h).
  std::uint64_t maxScratchBytes = kMaxEthosUScratchBytes;
  Limits simulator;
};

/// Runs the model on raw input tensors (one byte buffer per input, exact size) and returns
/// one byte buffer per output. `stats` receives the simulator's counters. Errors are prefixed
/// with `name`.
Result<std::vector<std::vector<std::uint8_t>>> runModel(const LoadedModel& model,
                                                        std::span<const std::vector<std::uint8_t>> inputs,
                                                        std::string_view name, SimulatorStats* stats = nullptr,
                                                        const RunLimits& limits = {});

}  // namespace openvgf::runner::ethosu
