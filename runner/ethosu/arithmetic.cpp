// SPDX-License-Identifier: Apache-2.0
// The output stage of every block operation: rescale with the product's rounding modes
// (specs/ethosu.md §4.2), zero point, activation clamp and lookup table (§4.5; U85 typed
// tables in the LUT RAM), plus the kernel registers that several operations read.
#include <algorithm>
#include <limits>

#include "runner/ethosu/operations.h"

namespace openvgf::runner::ethosu {
namespace {

using namespace ::openvgf::ethosu;

__extension__ typedef __int128 Int128;

std::int64_t saturate64(Int128 r) {
  if (r > std::numeric_limits<std::int64_t>::max()) return std::numeric_limits<std::int64_t>::max();
  if (r < std::numeric_limits<std::int64_t>::min()) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(r);
}

/// Bytes and signedness of a U85 table's entries, and its index type.
struct LutType {
  unsigned indexBits;
  bool indexSigned;
  unsigned entryBytes;
  bool entrySigned;
};

Result<LutType> u85LutType(unsigned function) {
  switch (function) {
    case 1: return LutType{8, false, 1, false};  // LUT_U8_U8
    case 4: return LutType{8, true, 1, true};    // LUT_S8_S8
    case 5: return LutType{8, true, 2, true};    // LUT_S8_S16
    case 7: return LutType{8, true, 4, true};    // LUT_S8_S32
    default:
      return unsupported("ACTIVATION function {}: 16-bit interpolating and built-in TANH/SIGMOID tables are not modelled",
                         function);
  }
}

Status loadU55Activation(OutputStage& stage, const OpContext& ctx, const FeatureMap& ofm) {
  const unsigned act = ctx.regs.p(cmd0::kActivation);
  const unsigned fn = act & 0x1F;
  if (fn == 3 || fn == 4) return unsupported("ACTIVATION: built-in TANH/SIGMOID is not supported");
  std::int64_t lo = stage.typeMin, hi = stage.typeMax;
  switch ((act >> 12) & 7) {
    case 2: lo = 0; hi = 255; break;
    case 3: lo = -128; hi = 127; break;
    case 5: lo = -32768; hi = 32767; break;
    default: break;
  }
  stage.typeMin = std::max(stage.typeMin, lo);
  stage.typeMax = std::min(stage.typeMax, hi);
  if (stage.typeMin > stage.typeMax) {
    return invalidInput("ACTIVATION clip_range {} excludes every value of the OFM type", (act >> 12) & 7);
  }
  if (fn >= 16) {
    // 256 entries of the OFM's size: int8/uint8 -> 8-bit, or int8 -> int32 (an int32 OFM with
    // clip_range FORCE_INT8 bounding the index). int16 interpolating tables are not modelled.
    if (ofm.elemBytes == 2) return unsupported("ACTIVATION TABLE_{}: 16-bit interpolating tables are not modelled", fn - 16);
    stage.lut = true;
    stage.unscaled32 = false;  // with a table the 32-bit OFM goes through the output stage
    stage.lutIndexSigned = ofm.elemBytes == 1 ? ofm.isSigned : true;
    stage.lutEntryBytes = ofm.elemBytes;
    stage.lutEntrySigned = ofm.isSigned;
    // LUTs occupy the last two 1 KB banks of SHRAM in 256-byte slots (§2.3).
    stage.lutBase = static_cast<std::size_t>(ctx.config.shramBanks - 2) * 1024 + (fn - 16) * 256;
    if (stage.lutBase + 256 * stage.lutEntryBytes > static_cast<std::size_t>(ctx.config.shramBanks) * 1024) {
      return invalidInput("ACTIVATION TABLE_{}: a {}-byte table does not fit the LUT banks of SHRAM", fn - 16,
                          256 * stage.lutEntryBytes);
    }
    stage.lutMemory = ctx.lut;
  }
  return {};
}

Status loadU85Activation(OutputStage& stage, const OpContext& ctx) {
  const unsigned act = ctx.regs.p(cmd0::kActivation);
  const unsigned fn = act & 0x1F;
  if (((act >> 12) & 1) != 0) {  // clip_range NONE: only the OFM type bounds the result
    stage.actMin = std::numeric_limits<std::int64_t>::min();
    stage.actMax = std::numeric_limits<std::int64_t>::max();
  }
  if (fn == 0) return {};
  OPENVGF_ASSIGN_OR_RETURN(const LutType type, u85LutType(fn));
  const std::size_t size = (std::size_t{1} << type.indexBits) * type.entryBytes;
  // The table field counts tables of this size, aligned to their size in the LUT RAM.
  const std::size_t base = ((act >> 5) & 7) * size;
  if (base + size > ctx.lut.size()) {
    return invalidInput("ACTIVATION table {}: a {}-byte table at byte {} does not fit the {}-byte LUT RAM", (act >> 5) & 7,
                        size, base, ctx.lut.size());
  }
  stage.lut = true;
  stage.lutIndexBits = type.indexBits;
  stage.lutIndexSigned = type.indexSigned;
  stage.lutEntryBytes = type.entryBytes;
  stage.lutEntrySigned = type.entrySigned;
  stage.lutBase = base;
  stage.lutMemory = ctx.lut;
  return {};
}

}  // namespace

std::int64_t rescaleValue(std::int64_t value, std::uint32_t scale, unsigned shift, unsigned roundMode) {
  const Int128 product = static_cast<Int128>(value) * scale;
  if (shift == 0) return saturate64(product);
  Int128 round = 0;
  switch (roundMode) {
    case 1:  // TRUNCATE toward zero
      round = value >= 0 ? 0 : (static_cast<Int128>(1) << shift) - 1;
      break;
    case 2:  // NATURAL: round half up
      round = static_cast<Int128>(1) << (shift - 1);
      break;
    default:  // DBL: TOSA apply_scale_32 with double_round
      round = static_cast<Int128>(1) << (shift - 1);
      if (shift > 31) round += value >= 0 ? (Int128{1} << 30) : -(Int128{1} << 30);
      break;
  }
  return saturate64((product + round) >> shift);
}

std::int64_t rescaleU85(std::int64_t value, std::uint32_t scale, unsigned shift, unsigned roundMode, unsigned dblRnd) {
  const Int128 product = static_cast<Int128>(value) * scale;
  if (shift == 0) return saturate64(product);
  Int128 round = Int128{1} << (shift - 1);
  const Int128 d = (dblRnd <= 30 && static_cast<int>(shift) > 31 - static_cast<int>(dblRnd)) ? Int128{1} << (30 - dblRnd) : 0;
  switch (roundMode) {
    case 0: round += value >= 0 ? d : -d; break;  // DOUBLE_SYMMETRIC
    case 2: round += d; break;                    // DOUBLE_ASYMMETRIC
    case 3: if (value < 0) round -= 1; break;     // SYMMETRIC: half away from zero
    case 4: round = value >= 0 ? 0 : (Int128{1} << shift) - 1; break;  // TRUNCATE_TO_ZERO
    case 5: round = 0; break;                     // TRUNCATE_TO_LOWER
    default: break;                               // NATURAL: half up
  }
  return saturate64((product + round) >> shift);
}

std::int64_t OutputStage::rescale(std::int64_t acc, std::uint32_t scale, unsigned shift) const {
  return product == Product::U85 ? rescaleU85(acc, scale, shift, roundMode, dblRnd) : rescaleValue(acc, scale, shift, roundMode);
}

std::int64_t OutputStage::finish(std::int64_t scaled) const {
  std::int64_t v = scaled + zeroPoint;
  v = std::clamp(v, actMin, actMax);
  if (!lut) return std::clamp(v, typeMin, typeMax);
  // The table's index type bounds the looked-up value.
  const std::int64_t lo = lutIndexSigned ? -(std::int64_t{1} << (lutIndexBits - 1)) : 0;
  const std::int64_t hi = lutIndexSigned ? (std::int64_t{1} << (lutIndexBits - 1)) - 1 : (std::int64_t{1} << lutIndexBits) - 1;
  v = std::clamp(std::clamp(v, typeMin, typeMax), lo, hi);
  const std::size_t index = static_cast<std::size_t>(v - lo);
  const std::uint8_t* entry = lutMemory.data() + lutBase + index * lutEntryBytes;
  std::uint64_t u = 0;
  for (unsigned i = 0; i < lutEntryBytes; ++i) u |= std::uint64_t{entry[i]} << (8 * i);
  const std::uint64_t sign = std::uint64_t{1} << (8 * lutEntryBytes - 1);
  if (lutEntrySigned && (u & sign)) u |= ~((sign << 1) - 1);
  return std::clamp(static_cast<std::int64_t>(u), outMin, outMax);
}

std::int64_t OutputStage::apply(std::int64_t acc, std::uint32_t scale, unsigned shift) const {
  // A U55/U65 32-bit OFM without a table: the OFM scale's shift (rounded) but not its
  // multiplier, no zero point and no activation clamp. Vela's int8 softmax depends on each:
  // its int32 MULs carry OFM_SCALE (2^30, 31) for round(a*b / 2^31), and its int32 SHR/SUB
  // steps carry the int8 input's zero point and clamps, which must not touch the values.
  if (unscaled32) return std::clamp(rescaleValue(acc, 1, shift, roundMode), typeMin, typeMax);
  return finish(rescale(acc, scale, shift));
}

Result<OutputStage> loadOutputStage(const OpContext& ctx, const FeatureMap& ofm) {
  const RegisterFile& r = ctx.regs;
  OutputStage stage;
  stage.product = r.product;
  stage.zeroPoint = r.signed16(cmd0::kOfmZeroPoint);
  stage.actMin = r.signed16(cmd0::kActivationMin);
  stage.actMax = r.signed16(cmd0::kActivationMax);
  stage.typeMin = stage.outMin = ofm.minValue();
  stage.typeMax = stage.outMax = ofm.maxValue();
  if (r.u85()) {
    stage.roundMode = (r.dp(cmd1::kOfmScale) >> 13) & 7;
    stage.dblRnd = (r.dp(cmd1::kOfmScale) >> 6) & 31;
    if (stage.dblRnd > 30) return invalidInput("OFM_SCALE: dbl_rnd: expected 0..30, got {}", stage.dblRnd);
    OPENVGF_TRY(loadU85Activation(stage, ctx));
  } else {
    stage.roundMode = (r.p(cmd0::kOfmPrecision) >> 14) & 3;
    stage.unscaled32 = ofm.elemBytes == 4;
    OPENVGF_TRY(loadU55Activation(stage, ctx, ofm));
  }
  if (stage.actMin > stage.actMax) {
    return invalidInput("ACTIVATION_MIN {} > ACTIVATION_MAX {}: expected min <= max", stage.actMin, stage.actMax);
  }
  return stage;
}

GlobalScale globalOfmScale(const RegisterFile& regs) {
  // U85 scales are 31-bit; U55/U65 32-bit.
  const std::uint32_t scale = regs.d(cmd1::kOfmScale) & (regs.u85() ? 0x7FFFFFFFu : 0xFFFFFFFFu);
  return GlobalScale{scale, regs.dp(cmd1::kOfmScale) & 0x3Fu};
}

Result<KernelGeometry> loadKernel(const RegisterFile& regs) {
  const unsigned ks = regs.p(cmd0::kKernelStride);
  KernelGeometry k;
  k.strideX = ((ks & 1) | (((ks >> 6) & 1) << 1)) + 1;
  k.strideY = (((ks >> 1) & 1) | (((ks >> 9) & 1) << 1)) + 1;
  k.partKernel = (ks >> 2) & 1;
  k.dilationX = ((ks >> 3) & 1) + 1;
  k.dilationY = ((ks >> 4) & 1) + 1;
  const std::int64_t extentW = std::int64_t{regs.p(cmd0::kKernelWidthM1)} + 1;
  const std::int64_t extentH = std::int64_t{regs.p(cmd0::kKernelHeightM1)} + 1;
  if ((extentW - 1) % k.dilationX != 0 || (extentH - 1) % k.dilationY != 0) {
    return invalidInput("KERNEL_WIDTH/HEIGHT {}x{}: expected a dilated extent (k-1)*d+1 for dilation {}x{}", extentW, extentH,
                        k.dilationX, k.dilationY);
  }
  k.width = (extentW - 1) / k.dilationX + 1;
  k.height = (extentH - 1) / k.dilationY + 1;
  return k;
}

}  // namespace openvgf::runner::ethosu
