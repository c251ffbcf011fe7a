// SPDX-License-Identifier: Apache-2.0
// Functional simulator of the Ethos-U55/U65 command stream. It replays a decoded stream
// against a register file and, at every NPU_OP_*, computes the operation's output with the
// arithmetic of specs/ethosu.md §4 (accumulators, bias/scale/shift records, rounding modes,
// zero points, activation clamp, LUT), reading and writing NHWC or NHCWB16 feature maps in
// the memory regions the host provides. Every access is bounds-checked against its region and
// every error names the command index. Timing (BLOCKDEP, waits, SHRAM layout) is not modelled.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "runner/ethosu/command_stream.h"

namespace openvgf::runner::ethosu {

/// Micro-architecture facts the stream semantics depend on (weight order, LUT placement).
struct AcceleratorInfo {
  Product product = Product::U55;
  unsigned macs = 128;
  int ofmUblockDepth = 8;
  int ifmUblockDepth = 8;
  int shramBanks = 24;  ///< 1 KB banks per core
  int cores = 1;        ///< 2 on Ethos-U65-512 (each core has its own SHRAM)
};

/// The configuration a COP1 CONFIG register image describes (product and MACs/cycle; the
/// MACs count all cores, so 512 is the two-core Ethos-U65-512).
Result<AcceleratorInfo> acceleratorFromConfig(std::uint32_t configWord);

/// The host's base-pointer table: region i is memory[i]; absent regions are empty spans.
using MemoryRegions = std::array<std::span<std::uint8_t>, 8>;

/// Counters gathered while running (for --stats style reports and tests).
struct SimulatorStats {
  std::uint64_t operations = 0;
  std::uint64_t macs = 0;       ///< multiply-accumulates of CONV/DEPTHWISE
  std::uint64_t dmaBytes = 0;
};

/// The most work one Simulator::run may do: multiply-accumulates of CONV/DEPTHWISE, kernel taps
/// of POOL and elements of ELEMENTWISE operations, counted before each operation runs. A few
/// register values can describe 2^64 steps (16-bit sizes, zero strides keep every access in
/// bounds), which would run for days; 2^32 is about a minute of simulation and well above
/// ResNet-50 (4.1 G multiply-accumulates).
inline constexpr std::uint64_t kMaxSimulatorSteps = std::uint64_t{1} << 32;

class Simulator {
 public:
  explicit Simulator(AcceleratorInfo info);

  /// Runs the commands in order until NPU_OP_STOP (or the end of the list). Registers keep
  /// their values between calls; call reset() to start from power-on state.
  Status run(std::span<const Command> commands, const MemoryRegions& memory);
  void reset();

  const SimulatorStats& stats() const { return stats_; }

 private:
  Status execute(const Command& op, const MemoryRegions& memory);
  Status runConvolution(bool depthwise, const MemoryRegions& memory);
  Status runPool(unsigned mode, const MemoryRegions& memory);
  Status runElementwise(unsigned mode, const MemoryRegions& memory);
  Status runDma(const MemoryRegions& memory);
  /// Counts an operation's steps (the product of `factors`) against kMaxSimulatorSteps.
  Status chargeSteps(std::initializer_list<std::int64_t> factors);

  std::uint16_t p(std::uint16_t code) const { return cmd0_[code]; }
  std::uint32_t d(std::uint16_t code) const { return cmd1Data_[code]; }

  AcceleratorInfo info_;
  std::array<std::uint16_t, 0x400> cmd0_{};
  std::array<std::uint32_t, 0x400> cmd1Data_{};
  std::array<std::uint16_t, 0x400> cmd1Param_{};
  std::vector<std::uint8_t> shram_;
  SimulatorStats stats_;
  std::uint64_t steps_ = 0;  ///< since construction or reset()
};

/// The hardware output-stage rescale: (v·scale + round) >> shift with the U55 rounding modes
/// (0 DBL, 1 TRUNCATE, 2 NATURAL), exact for 48-bit values and 32-bit scales.
std::int64_t rescaleValue(std::int64_t value, std::uint32_t scale, unsigned shift, unsigned roundMode);

}  // namespace openvgf::runner::ethosu
