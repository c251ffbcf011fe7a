// SPDX-License-Identifier: Apache-2.0
// Functional simulator of Ethos-U55/U65/U85 command streams. It replays a decoded stream
// against a register file and, at every NPU_OP_*, computes the operation's output with the
// arithmetic of specs/ethosu.md §4 (accumulators, bias/scale/shift records, rounding modes,
// zero points, activation clamp, lookup tables), reading and writing NHWC or NHCWB16 feature
// maps in the memory regions the host provides. The arithmetic here is written independently
// of the compiler (converter/ethosu), which it checks; both share only the format library
// (ethosu/: register fields, weight order and codecs). Every access is bounds-checked before
// any work is done and every error names the command. Timing (BLOCKDEP, waits, SHRAM layout)
// is not modelled.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/error.h"
#include "ethosu/accelerator.h"
#include "ethosu/command_stream.h"

namespace openvgf::runner::ethosu {

using ::openvgf::ethosu::AcceleratorConfig;
using ::openvgf::ethosu::Command;
using ::openvgf::ethosu::Product;

/// The host's base-pointer table: region i is memory[i]; absent regions are empty spans.
using MemoryRegions = std::array<std::span<std::uint8_t>, 8>;

/// Counters gathered while running (for reports and tests).
struct SimulatorStats {
  std::uint64_t operations = 0;
  std::uint64_t macs = 0;      ///< multiply-accumulates of CONV/DEPTHWISE
  std::uint64_t dmaBytes = 0;
  std::uint64_t work = 0;      ///< element operations, counted against Limits::maxWork
};

/// Bounds on what one run may claim, checked before anything is allocated or computed.
struct Limits {
  /// Decoded weights of one operation's stream (the order and weight arrays are this large).
  std::uint64_t maxWeights = std::uint64_t{1} << 26;
  /// Element operations (MACs, window elements, elementwise results) of the whole run.
  std::uint64_t maxWork = std::uint64_t{1} << 34;
  /// Commands executed (U85 branches can loop).
  std::uint64_t maxCommands = std::uint64_t{1} << 24;
};

class Simulator {
 public:
  explicit Simulator(AcceleratorConfig config, Limits limits = {});
  ~Simulator();
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;

  /// Runs the commands in order until NPU_OP_STOP (or the end of the list). Registers keep
  /// their values between calls; call reset() to start from power-on state.
  Status run(std::span<const Command> commands, const MemoryRegions& memory);
  void reset();

  const SimulatorStats& stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The U55 output-stage rescale: (v·scale + round) >> shift with rounding modes 0 DBL,
/// 1 TRUNCATE, 2 NATURAL; exact for 48-bit values and 32-bit scales.
std::int64_t rescaleValue(std::int64_t value, std::uint32_t scale, unsigned shift, unsigned roundMode);

/// The U85 rescale with OFM_SCALE's round modes (0 DOUBLE_SYMMETRIC, 1 NATURAL,
/// 2 DOUBLE_ASYMMETRIC, 3 SYMMETRIC, 4 TRUNCATE_TO_ZERO, 5 TRUNCATE_TO_LOWER) and the double
/// rounding shift `dblRnd` (specs §4.2), for values up to 64 bits.
std::int64_t rescaleU85(std::int64_t value, std::uint32_t scale, unsigned shift, unsigned roundMode, unsigned dblRnd);

}  // namespace openvgf::runner::ethosu
