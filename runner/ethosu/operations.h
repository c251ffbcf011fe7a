// SPDX-License-Identifier: Apache-2.0
// Internals of the simulator shared by its operation files: the register file, feature maps
// as the registers describe them (tiles, NHWC / NHCWB16, U85 chaining and broadcast), the
// output stage (rescale, zero point, clamp, lookup table) and the per-family entry points.
// Private to runner/ethosu.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

#include "runner/ethosu/simulator.h"

namespace openvgf::runner::ethosu {

/// The values the last NPU_SET_* commands wrote.
struct RegisterFile {
  Product product = Product::U55;
  std::array<std::uint16_t, 0x400> cmd0{};
  std::array<std::uint32_t, 0x400> data{};
  std::array<std::uint16_t, 0x400> param{};

  std::uint16_t p(std::uint16_t code) const { return cmd0[code]; }
  std::int64_t signed16(std::uint16_t code) const { return static_cast<std::int16_t>(cmd0[code]); }
  std::uint32_t d(std::uint16_t code) const { return data[code]; }
  std::uint16_t dp(std::uint16_t code) const { return param[code]; }
  /// A cmd1 address, stride or length: bits 39:32 in param[7:0] on U65/U85.
  std::uint64_t address(std::uint16_t code) const {
    return (product == Product::U55 ? 0 : (std::uint64_t{param[code]} & 0xFF) << 32) | data[code];
  }
  bool u85() const { return product == Product::U85; }
};

/// The hardware's chaining buffers hold a few KB; a chained OFM larger than this is corrupt.
inline constexpr std::int64_t kMaxChainElements = std::int64_t{1} << 20;

/// A U85 chaining buffer: an OFM kept inside the NPU for the next operation.
struct ChainBuffer {
  std::int64_t h = 0, w = 0, c = 0;
  std::vector<std::int64_t> values;  // [y][x][c]
};

/// U85 accumulators kept between operations (ACC_FORMAT acc_output DISABLE / acc_input KEEP).
struct Accumulators {
  std::int64_t h = 0, w = 0, c = 0;
  std::vector<std::int64_t> values;  // [y][x][c]
};

/// What an operation may use besides the registers.
struct OpContext {
  const RegisterFile& regs;
  const AcceleratorConfig& config;
  const MemoryRegions& memory;
  std::span<const std::uint8_t> lut;  ///< U55/U65: SHRAM of every core; U85: the LUT RAM
  std::array<ChainBuffer, 8>& chains;
  Accumulators& accumulators;
  SimulatorStats& stats;
  const Limits& limits;

  /// Counts the product of `factors` element operations against Limits::maxWork before they
  /// are done. The product is taken with overflow checks: 16-bit sizes multiply past 2^64,
  /// and a wrapped count would let zero-stride streams run for hours.
  Status chargeWork(std::initializer_list<std::uint64_t> factors) const;
};

/// A feature map as the registers describe it: up to four tiles in one region, or (U85) a
/// chaining buffer, or a scalar.
struct FeatureMap {
  const char* name = "IFM";
  unsigned region = 0;
  std::array<std::uint64_t, 4> base{};
  std::int64_t height0 = 0, height1 = 0, width0 = 0;
  std::int64_t strideX = 0, strideY = 0, strideC = 0;
  unsigned elemBytes = 1;
  bool isSigned = true;
  bool brick = false;     ///< NHCWB16
  bool chained = false;   ///< U85 storage CHAINED: values live in chains[region]
  bool scalar = false;    ///< U85 broadcast SCALAR / U55 IFM2 scalar: every element is `scalarValue`
  std::int64_t scalarValue = 0;
  unsigned broadcast = 0; ///< bit 0 H, bit 1 W, bit 2 C: that coordinate is read as 0
  unsigned reverse = 0;   ///< U85 OFM: 1 H, 2 W, 3 C written in reverse order
  unsigned transpose = 0; ///< U85 OFM: 0 HWC, 1 WHC, 2 HCW, 3 WCH, 6 CHW, 7 CWH in memory

  std::int64_t minValue() const;
  std::int64_t maxValue() const;
};

enum class MapKind { Ifm, Ifm2, Ofm };
/// Reads the register group of one feature map (region, bases, tile sizes, strides,
/// precision; U85 storage and broadcast), checking the layout fields it depends on.
Result<FeatureMap> loadFeatureMap(const RegisterFile& regs, MapKind kind);

/// Element access with tiles, bounds checks and chaining.
class Accessor {
 public:
  Accessor(const FeatureMap& fm, const OpContext& ctx);
  /// Checks that every element of an h x w x c extent lies inside the map's memory, so that
  /// an operation fails before it computes anything; an OFM's extent also decides where
  /// reversed elements go. Call before read/write.
  Status checkExtent(std::int64_t h, std::int64_t w, std::int64_t c);
  Result<std::int64_t> read(std::int64_t y, std::int64_t x, std::int64_t c) const;
  Status write(std::int64_t y, std::int64_t x, std::int64_t c, std::int64_t value) const;

 private:
  Result<std::uint64_t> address(std::int64_t y, std::int64_t x, std::int64_t c) const;
  /// Memory coordinates of an OFM element after reverse and transpose.
  std::array<std::int64_t, 3> placed(std::int64_t y, std::int64_t x, std::int64_t c) const;
  const FeatureMap& fm_;
  std::array<std::int64_t, 3> extent_{};
  std::span<std::uint8_t> mem_;
  ChainBuffer* chain_ = nullptr;
};

/// Starts writing an OFM: for a chained OFM, sizes its chaining buffer.
Status prepareOutput(const FeatureMap& ofm, std::int64_t h, std::int64_t w, std::int64_t c, const OpContext& ctx);

/// The output stage shared by the block operations: rescale, zero point, clamp, table.
struct OutputStage {
  Product product = Product::U55;
  std::int64_t zeroPoint = 0;
  std::int64_t actMin = 0, actMax = 0;
  std::int64_t typeMin = 0, typeMax = 0;  ///< the OFM type narrowed by a U55/U65 clip_range
  std::int64_t outMin = 0, outMax = 0;    ///< the OFM type (bounds a table's result)
  unsigned roundMode = 0;  ///< U55: OFM_PRECISION round; U85: OFM_SCALE round_mode
  unsigned dblRnd = 0;     ///< U85 OFM_SCALE dbl_rnd
  bool unscaled32 = false; ///< U55 32-bit OFM without a table: shift only (see apply)
  // Lookup table: `lutEntryBytes` per entry at lut[lutBase + index * bytes].
  bool lut = false;
  bool lutIndexSigned = true;
  unsigned lutIndexBits = 8;
  unsigned lutEntryBytes = 1;
  bool lutEntrySigned = true;
  std::size_t lutBase = 0;
  std::span<const std::uint8_t> lutMemory;

  std::int64_t rescale(std::int64_t acc, std::uint32_t scale, unsigned shift) const;
  /// Full output stage of one accumulator value.
  std::int64_t apply(std::int64_t acc, std::uint32_t scale, unsigned shift) const;
  /// The part after rescaling: zero point, clamps and table.
  std::int64_t finish(std::int64_t scaled) const;
};

Result<OutputStage> loadOutputStage(const OpContext& ctx, const FeatureMap& ofm);

/// The global OFM scale (scale, shift) of OFM_SCALE.
struct GlobalScale {
  std::uint32_t scale = 1;
  unsigned shift = 0;
};
GlobalScale globalOfmScale(const RegisterFile& regs);

/// Strides, dilations and sizes from KERNEL_* registers.
struct KernelGeometry {
  std::int64_t strideX = 1, strideY = 1, dilationX = 1, dilationY = 1;
  std::int64_t width = 1, height = 1;  ///< undilated
  bool partKernel = false;
};
Result<KernelGeometry> loadKernel(const RegisterFile& regs);

Status runConvolution(const OpContext& ctx, bool depthwise);
Status runPool(const OpContext& ctx, unsigned mode);
Status runElementwise(const OpContext& ctx, unsigned mode);
Status runResize(const OpContext& ctx, unsigned mode);

}  // namespace openvgf::runner::ethosu
