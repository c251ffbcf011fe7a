// SPDX-License-Identifier: Apache-2.0
// The per-operation reference loops of the Ethos-U functional simulator.
#include "runner/ethosu/simulator.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "runner/ethosu/weights.h"

namespace openvgf::runner::ethosu {
namespace {

__extension__ typedef __int128 Int128;

std::int64_t signExtend16(std::uint16_t v) { return static_cast<std::int16_t>(v); }

std::int64_t wrapSigned(std::int64_t v, unsigned bits) {
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  std::uint64_t u = static_cast<std::uint64_t>(v) & mask;
  if (u & (std::uint64_t{1} << (bits - 1))) u |= ~mask;
  return static_cast<std::int64_t>(u);
}

/// A feature map as the registers describe it: up to four tiles in one region.
struct FeatureMap {
  const char* name = "IFM";
  unsigned region = 0;
  std::array<std::uint64_t, 4> base{};
  std::int64_t height0 = 0, height1 = 0, width0 = 0;
  std::int64_t strideX = 0, strideY = 0, strideC = 0;
  unsigned elemBytes = 1;
  bool isSigned = true;
  bool brick = false;

  std::int64_t minValue() const {
    return isSigned ? -(std::int64_t{1} << (8 * elemBytes - 1)) : 0;
  }
  std::int64_t maxValue() const {
    return isSigned ? (std::int64_t{1} << (8 * elemBytes - 1)) - 1 : (std::int64_t{1} << (8 * elemBytes)) - 1;
  }
};

Result<unsigned> elementBytes(unsigned precision, const char* name) {
  switch (precision) {
    case 0: return 1u;
    case 1: return 2u;
    case 2: return 4u;
    default: return unsupported("{}: 64-bit precision is not supported", name);
  }
}

/// Address and memory view of one element; every access goes through here.
class Accessor {
 public:
  Accessor(const FeatureMap& fm, const MemoryRegions& memory) : fm_(fm), mem_(memory[fm.region]) {}

  Result<std::int64_t> read(std::int64_t y, std::int64_t x, std::int64_t c) const {
    OPENVGF_ASSIGN_OR_RETURN(std::uint64_t addr, address(y, x, c));
    const std::uint8_t* b = mem_.data() + addr;
    std::uint64_t u = 0;
    for (unsigned i = 0; i < fm_.elemBytes; ++i) u |= std::uint64_t{b[i]} << (8 * i);
    if (fm_.isSigned) return wrapSigned(static_cast<std::int64_t>(u), 8 * fm_.elemBytes);
    return static_cast<std::int64_t>(u);
  }

  Status write(std::int64_t y, std::int64_t x, std::int64_t c, std::int64_t value) const {
    OPENVGF_ASSIGN_OR_RETURN(std::uint64_t addr, address(y, x, c));
    std::uint8_t* b = mem_.data() + addr;
    const auto u = static_cast<std::uint64_t>(value);
    for (unsigned i = 0; i < fm_.elemBytes; ++i) b[i] = static_cast<std::uint8_t>(u >> (8 * i));
    return {};
  }

 private:
  Result<std::uint64_t> address(std::int64_t y, std::int64_t x, std::int64_t c) const {
    int tile = 0;
    if (x < fm_.width0) {
      if (y >= fm_.height0) {
        tile = 2;
        y -= fm_.height0;
      }
    } else {
      x -= fm_.width0;
      if (y < fm_.height1) {
        tile = 1;
      } else {
        tile = 3;
        y -= fm_.height1;
      }
    }
    const std::int64_t e = fm_.elemBytes;
    std::int64_t offset = 0;
    if (fm_.brick) {
      offset = y * fm_.strideY + (c / 16) * fm_.strideC + x * 16 * e + (c % 16) * e;
    } else {
      offset = y * fm_.strideY + x * fm_.strideX + c * e;
    }
    const Int128 addr = static_cast<Int128>(fm_.base[tile]) + offset;
    if (addr < 0 || addr + e > static_cast<Int128>(mem_.size())) {
      return invalidInput("{} element (y {}, x {}, c {}) at byte 0x{:x} of region {} (tile {}): expected within the region's {} bytes",
                          fm_.name, y, x, c, static_cast<std::int64_t>(addr), fm_.region, tile, mem_.size());
    }
    return static_cast<std::uint64_t>(addr);
  }

  const FeatureMap& fm_;
  std::span<std::uint8_t> mem_;
};

/// The output stage shared by all block operations.
struct OutputStage {
  std::int64_t zeroPoint = 0;
  std::int64_t actMin = 0, actMax = 0;
  std::int64_t typeMin = 0, typeMax = 0;
  unsigned roundMode = 0;
  bool unscaled32 = false;        // 32-bit OFM: the accumulator is written as is
  std::optional<unsigned> lutSlot;
  bool lutSigned = true;
  std::span<const std::uint8_t> shram;
  std::size_t lutStart = 0;

  std::int64_t apply(std::int64_t acc, std::uint32_t scale, unsigned shift) const {
    if (unscaled32) return std::clamp(acc, typeMin, typeMax);
    std::int64_t v = rescaleValue(acc, scale, shift, roundMode) + zeroPoint;
    v = std::clamp(v, actMin, actMax);
    v = std::clamp(v, typeMin, typeMax);
    if (lutSlot) {
      const std::size_t index = static_cast<std::size_t>(lutSigned ? v + 128 : v);
      const std::uint8_t entry = shram[lutStart + *lutSlot * 256 + index];
      v = lutSigned ? static_cast<std::int8_t>(entry) : entry;
    }
    return v;
  }
};

}  // namespace

std::int64_t rescaleValue(std::int64_t value, std::uint32_t scale, unsigned shift, unsigned roundMode) {
  const Int128 product = static_cast<Int128>(value) * scale;
  if (shift == 0) return static_cast<std::int64_t>(product);
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
  const Int128 r = (product + round) >> shift;
  if (r > std::numeric_limits<std::int64_t>::max()) return std::numeric_limits<std::int64_t>::max();
  if (r < std::numeric_limits<std::int64_t>::min()) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(r);
}

Result<AcceleratorInfo> acceleratorFromConfig(std::uint32_t configWord) {
  AcceleratorInfo info;
  const unsigned product = (configWord >> 28) & 0xF;
  if (product > 1) return unsupported("CONFIG: product {} is not Ethos-U55 (0) or Ethos-U65 (1)", product);
  info.product = product == 1 ? Product::U65 : Product::U55;
  info.macs = 1u << (configWord & 0xF);
  // Micro-block depths and SHRAM banks per configuration (specs/ethosu.md §3.3 table).
  switch (info.macs) {
    case 32: info.ofmUblockDepth = 4; info.ifmUblockDepth = 8; info.shramBanks = 16; break;
    case 64: info.ofmUblockDepth = 8; info.ifmUblockDepth = 8; info.shramBanks = 16; break;
    case 128: info.ofmUblockDepth = 8; info.ifmUblockDepth = 8; info.shramBanks = 24; break;
    case 256: info.ofmUblockDepth = 8; info.ifmUblockDepth = 8; info.shramBanks = 48; break;
    // Two cores of 256 MACs, 48 banks each; CONFIG holds the totals (Vela driver_actions.py).
    case 512: info.ofmUblockDepth = 8; info.ifmUblockDepth = 8; info.shramBanks = 48; info.cores = 2; break;
    default: return unsupported("CONFIG: {} MACs per cycle is not an Ethos-U55/U65 configuration", info.macs);
  }
  if (info.product == Product::U65 && info.macs < 256) {
    return unsupported("CONFIG: Ethos-U65 with {} MACs per cycle does not exist", info.macs);
  }
  if (info.product == Product::U55 && info.cores > 1) {
    return unsupported("CONFIG: Ethos-U55 with {} MACs per cycle does not exist", info.macs);
  }
  return info;
}

Simulator::Simulator(AcceleratorInfo info) : info_(info) { reset(); }

void Simulator::reset() {
  cmd0_.fill(0);
  cmd1Data_.fill(0);
  cmd1Param_.fill(0);
  shram_.assign(static_cast<std::size_t>(info_.shramBanks) * 1024 * static_cast<std::size_t>(info_.cores), 0);
  stats_ = {};
  steps_ = 0;
}

Status Simulator::run(std::span<const Command> commands, const MemoryRegions& memory) {
  for (const Command& c : commands) {
    if (Status s = validateCommand(c, info_.product); !s) {
      return Unexpected(std::move(s).error().addContext(fmt::format("command {}", c.index)));
    }
    if (c.isCmd1) {
      cmd1Data_[c.code] = c.data;
      cmd1Param_[c.code] = c.param;
      continue;
    }
    if (!isOperation(c)) {
      cmd0_[c.code] = c.param;
      continue;
    }
    if (c.code == cmd0::kOpStop) return {};
    if (Status s = execute(c, memory); !s) {
      return Unexpected(std::move(s).error().addContext(
          fmt::format("command {} ({})", c.index, commandName(c.code, false, info_.product))));
    }
  }
  return {};
}

Status Simulator::execute(const Command& op, const MemoryRegions& memory) {
  const bool kernelOp = op.code == cmd0::kOpConv || op.code == cmd0::kOpDepthwise || op.code == cmd0::kOpPool ||
                        op.code == cmd0::kOpElementwise;
  if (kernelOp && (p(cmd0::kParallelMode) & 1) != 0) {
    if (info_.cores < 2) return invalidInput("PARALLEL_MODE 1: expected a two-core configuration, got {} core", info_.cores);
    // Each core applies a table from its own SHRAM, and which core computes which channel of
    // a pooling or elementwise operation is not documented; identical tables make it moot.
    const unsigned act = p(cmd0::kActivation) & 0x1F;
    if (act >= 16) {
      const std::size_t coreBytes = static_cast<std::size_t>(info_.shramBanks) * 1024;
      const std::size_t slot = coreBytes - 2048 + (act - 16) * 256;
      if (!std::equal(shram_.begin() + static_cast<std::ptrdiff_t>(slot), shram_.begin() + static_cast<std::ptrdiff_t>(slot + 256),
                      shram_.begin() + static_cast<std::ptrdiff_t>(coreBytes + slot))) {
        return unsupported("PARALLEL_MODE 1: ACTIVATION TABLE_{} differs between the two cores' SHRAM (load it with DMA "
                           "core mask 3): which core computes which channel is not modelled",
                           act - 16);
      }
    }
  }
  switch (op.code) {
    case cmd0::kOpConv: ++stats_.operations; return runConvolution(false, memory);
    case cmd0::kOpDepthwise: ++stats_.operations; return runConvolution(true, memory);
    case cmd0::kOpPool: ++stats_.operations; return runPool(op.param & 7, memory);
    case cmd0::kOpElementwise: ++stats_.operations; return runElementwise(op.param & 0x3F, memory);
    case cmd0::kOpDmaStart: return runDma(memory);
    // Synchronisation and interrupts have no functional effect in a sequential model.
    case cmd0::kOpIrq:
    case cmd0::kOpDmaWait:
    case cmd0::kOpKernelWait:
    case cmd0::kOpPmuMask:
      return {};
    default:
      return unsupported("operation 0x{:03x} is not simulated", op.code);
  }
}

namespace {

struct Geometry {
  std::int64_t ofmH = 0, ofmW = 0, ofmD = 0;
};

}  // namespace

namespace {

/// Read-only view of the register file handed to the helpers below.
struct RegisterView {
  const std::array<std::uint16_t, 0x400>& cmd0;
  const std::array<std::uint32_t, 0x400>& data;
  const std::array<std::uint16_t, 0x400>& param;
  Product product;
};

/// Reads one feature-map register group (IFM, IFM2 or OFM), its precision register included
/// (element size at bits `elemShift`+1:`elemShift`, signedness at bit 0, NHCWB16 at 7:6). On
/// U65 cmd1 addresses carry bits 39:32 in param[7:0].
Result<FeatureMap> loadFeatureMap(const RegisterView& r, const char* name, std::uint16_t regionReg, std::uint16_t base0,
                                  std::uint16_t width0, std::uint16_t height0, std::uint16_t height1,
                                  std::uint16_t strideX, std::uint16_t precisionReg, unsigned elemShift) {
  FeatureMap fm;
  fm.name = name;
  fm.region = r.cmd0[regionReg] & 7;
  for (std::uint16_t t = 0; t < 4; ++t) {
    std::uint64_t hi = r.product == Product::U65 ? (r.param[base0 + t] & 0xFFu) : 0;
    fm.base[t] = (hi << 32) | r.data[base0 + t];
  }
  fm.width0 = std::int64_t{r.cmd0[width0]} + 1;
  fm.height0 = std::int64_t{r.cmd0[height0]} + 1;
  fm.height1 = std::int64_t{r.cmd0[height1]} + 1;
  fm.strideX = r.data[strideX];
  fm.strideY = r.data[strideX + 1];
  fm.strideC = r.data[strideX + 2];
  const unsigned precision = r.cmd0[precisionReg];
  OPENVGF_ASSIGN_OR_RETURN(fm.elemBytes, elementBytes((precision >> elemShift) & 3, name));
  fm.isSigned = precision & 1;
  fm.brick = ((precision >> 6) & 3) == 1;
  return fm;
}

Result<FeatureMap> loadIfm(const RegisterView& r) {
  using namespace cmd0;
  using namespace cmd1;
  return loadFeatureMap(r, "IFM", kIfmRegion, kIfmBase0, kIfmWidth0M1, kIfmHeight0M1, kIfmHeight1M1, kIfmStrideX,
                        kIfmPrecision, 2);
}

Result<FeatureMap> loadIfm2(const RegisterView& r) {
  using namespace cmd0;
  using namespace cmd1;
  return loadFeatureMap(r, "IFM2", kIfm2Region, kIfm2Base0, kIfm2Width0M1, kIfm2Height0M1, kIfm2Height1M1,
                        kIfm2StrideX, kIfm2Precision, 2);
}

Result<FeatureMap> loadOfm(const RegisterView& r) {
  using namespace cmd0;
  using namespace cmd1;
  return loadFeatureMap(r, "OFM", kOfmRegion, kOfmBase0, kOfmWidth0M1, kOfmHeight0M1, kOfmHeight1M1, kOfmStrideX,
                        kOfmPrecision, 1);
}

/// Output stage from OFM_PRECISION, zero point, activation and LUT registers.
Result<OutputStage> loadOutputStage(const RegisterView& r, const FeatureMap& ofm, std::span<const std::uint8_t> shram,
                                    int shramBanks) {
  OutputStage stage;
  const unsigned ofmPrec = r.cmd0[cmd0::kOfmPrecision];
  stage.zeroPoint = signExtend16(r.cmd0[cmd0::kOfmZeroPoint]);
  stage.actMin = signExtend16(r.cmd0[cmd0::kActivationMin]);
  stage.actMax = signExtend16(r.cmd0[cmd0::kActivationMax]);
  stage.typeMin = ofm.minValue();
  stage.typeMax = ofm.maxValue();
  stage.roundMode = (ofmPrec >> 14) & 3;
  stage.unscaled32 = ofm.elemBytes == 4;
  const unsigned act = r.cmd0[cmd0::kActivation];
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
  if (stage.actMin > stage.actMax) {
    return invalidInput("ACTIVATION_MIN {} > ACTIVATION_MAX {}: expected min <= max", stage.actMin, stage.actMax);
  }
  if (stage.typeMin > stage.typeMax) {
    return invalidInput("ACTIVATION clip_range {} excludes every value of the OFM type", (act >> 12) & 7);
  }
  if (fn >= 16) {
    if (ofm.elemBytes != 1) return unsupported("ACTIVATION TABLE_{}: only 8-bit table lookups are supported", fn - 16);
    stage.lutSlot = fn - 16;
    stage.lutSigned = ofm.isSigned;
    stage.shram = shram;
    // LUTs occupy the last two 1 KB banks of SHRAM in 256-byte slots (§2.3).
    stage.lutStart = static_cast<std::size_t>(shramBanks - 2) * 1024;
  }
  return stage;
}

}  // namespace

namespace {

Status checkFormat(const FeatureMap& fm) {
  if (fm.brick && (fm.base[0] % 16 != 0 || fm.strideC % 16 != 0 || fm.strideY % 16 != 0)) {
    return invalidInput("{}: NHCWB16: expected 16-byte aligned base and C/Y strides, got base 0x{:x}, stride C {}, stride Y {}",
                        fm.name, fm.base[0], fm.strideC, fm.strideY);
  }
  return {};
}

}  // namespace

Status Simulator::chargeSteps(std::initializer_list<std::int64_t> factors) {
  std::uint64_t steps = 1;
  bool overflow = false;
  for (std::int64_t f : factors) overflow |= __builtin_mul_overflow(steps, static_cast<std::uint64_t>(f), &steps);
  if (overflow || steps > kMaxSimulatorSteps - steps_) {
    return unsupported("{} steps: expected at most {} multiply-accumulate, pooling or element steps per run (the "
                       "simulator's work limit; {} used before this operation)",
                       overflow ? std::string("more than 2^64") : std::to_string(steps), kMaxSimulatorSteps, steps_);
  }
  steps_ += steps;
  return {};
}

Status Simulator::runConvolution(bool depthwise, const MemoryRegions& memory) {
  using namespace cmd0;
  using namespace cmd1;
  const RegisterView regs{cmd0_, cmd1Data_, cmd1Param_, info_.product};
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ifm, loadIfm(regs));
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ofm, loadOfm(regs));
  const unsigned ofmPrec = p(kOfmPrecision);
  OPENVGF_TRY(checkFormat(ifm));
  OPENVGF_TRY(checkFormat(ofm));
  if (ifm.elemBytes == 4) return unsupported("IFM: 32-bit input to a convolution is not supported");
  if (p(kIfmUpscale) != 0) return unsupported("IFM_UPSCALE {} is not supported", p(kIfmUpscale));

  const std::int64_t ofmH = std::int64_t{p(kOfmHeightM1)} + 1;
  const std::int64_t ofmW = std::int64_t{p(kOfmWidthM1)} + 1;
  const std::int64_t ofmD = std::int64_t{p(kOfmDepthM1)} + 1;
  const std::int64_t ifmD = depthwise ? ofmD : std::int64_t{p(kIfmDepthM1)} + 1;
  if (depthwise && std::int64_t{p(kIfmDepthM1)} + 1 != ofmD) {
    return invalidInput("NPU_OP_DEPTHWISE: expected IFM depth = OFM depth {}, got {}", ofmD, p(kIfmDepthM1) + 1);
  }
  const unsigned ks = p(kKernelStride);
  const std::int64_t strideX = ((ks & 1) | (((ks >> 6) & 1) << 1)) + 1;
  const std::int64_t strideY = (((ks >> 1) & 1) | (((ks >> 9) & 1) << 1)) + 1;
  const bool partKernel = (ks >> 2) & 1;
  const std::int64_t dilX = ((ks >> 3) & 1) + 1;
  const std::int64_t dilY = ((ks >> 4) & 1) + 1;
  if ((ks >> 5) & 1) return unsupported("KERNEL_STRIDE: 4x4 sub-kernel decomposition is not supported");
  const std::int64_t kwExtent = std::int64_t{p(kKernelWidthM1)} + 1;
  const std::int64_t khExtent = std::int64_t{p(kKernelHeightM1)} + 1;
  if ((kwExtent - 1) % dilX != 0 || (khExtent - 1) % dilY != 0) {
    return invalidInput("KERNEL_WIDTH/HEIGHT {}x{}: expected a dilated extent (k-1)*d+1 for dilation {}x{}", kwExtent,
                        khExtent, dilX, dilY);
  }
  const std::int64_t kw = (kwExtent - 1) / dilX + 1;
  const std::int64_t kh = (khExtent - 1) / dilY + 1;
  const std::int64_t padTop = p(kIfmPadTop), padLeft = p(kIfmPadLeft);
  const std::int64_t padBottom = p(kIfmPadBottom), padRight = p(kIfmPadRight);
  // The IFM extent is implied by the OFM size, kernel, stride and padding (§2.2).
  const std::int64_t ifmH = (ofmH - 1) * strideY + khExtent - padTop - padBottom;
  const std::int64_t ifmW = (ofmW - 1) * strideX + kwExtent - padLeft - padRight;
  if (ifmH < 1 || ifmW < 1) {
    return invalidInput("IFM extent {}x{} implied by OFM, kernel, stride and padding: expected >= 1", ifmH, ifmW);
  }
  OPENVGF_TRY(chargeSteps({ofmH, ofmW, ofmD, kh, kw, depthwise ? 1 : ifmD}));
  const unsigned acc = p(kAccFormat) & 3;
  if (acc == 2) return unsupported("ACC_FORMAT F16 is not supported");
  const unsigned accBits = acc == 1 ? 40 : 32;

  // Weights and scales. With PARALLEL_MODE 1 (DUAL_CORE_DEPTH) the OFM channels are split
  // between the two cores by parity: core k computes channels k, k+2, ... and reads its own
  // weight stream (WEIGHT_BASE/LENGTH for core 0, WEIGHT1_BASE/LENGTH for core 1), encoded for
  // its channels only with a per-core block depth of (OFM_BLK_DEPTH + 1 - k) / 2, and its own
  // scale stream (SCALE_BASE/LENGTH, SCALE1_BASE/LENGTH). See docs/ethosu-multicore.md.
  const bool globalScale = (ofmPrec >> 8) & 1;
  const bool dualCore = (p(kParallelMode) & 1) != 0;
  const int cores = dualCore ? 2 : 1;
  const int blockDepth = p(kOfmBlkDepthM1) + 1;
  if (dualCore && blockDepth % 2 != 0) {
    return unsupported("PARALLEL_MODE 1: OFM_BLK_DEPTH {}: an odd block depth does not split evenly between the cores "
                       "(the channel order of later blocks is not documented)",
                       blockDepth);
  }
  WeightLayout layout;
  layout.kernelHeight = static_cast<int>(kh);
  layout.kernelWidth = static_cast<int>(kw);
  layout.ifmDepth = static_cast<int>(depthwise ? 1 : ifmD);
  layout.ofmUblockDepth = info_.ofmUblockDepth;
  layout.ifmUblockDepth = info_.ifmUblockDepth;
  layout.dilationX = static_cast<int>(dilX);
  layout.dilationY = static_cast<int>(dilY);
  layout.ifm16Bit = ifm.elemBytes == 2;
  layout.traversal = depthwise ? WeightTraversal::Depthwise
                               : (partKernel ? WeightTraversal::PartKernelFirst : WeightTraversal::DepthFirst);
  std::vector<std::int32_t> weights(static_cast<std::size_t>(ofmD * kh * kw * layout.ifmDepth), 0);
  std::vector<ScaleRecord> scales(static_cast<std::size_t>(ofmD));
  const std::size_t perChannel = static_cast<std::size_t>(kh * kw * layout.ifmDepth);
  for (int core = 0; core < cores; ++core) {
    const int channels = static_cast<int>((ofmD + cores - 1 - core) / cores);
    if (channels == 0) continue;  // one OFM channel: core 1 has nothing to do
    const char* const suffix = core == 0 ? "" : "1";
    layout.ofmDepth = channels;
    layout.ofmBlockDepth = (blockDepth + cores - 1 - core) / cores;
    if (dualCore && channels > layout.ofmBlockDepth && layout.ofmBlockDepth % info_.ofmUblockDepth != 0) {
      return unsupported("PARALLEL_MODE 1: core {} block depth {} is not a multiple of the OFM micro-block depth {}: "
                         "how the hardware orders that core's weights across blocks is not documented",
                         core, layout.ofmBlockDepth, info_.ofmUblockDepth);
    }
    const unsigned weightRegion = p(kWeightRegion) & 7;
    const std::uint64_t weightBase = d(core == 0 ? kWeightBase : kWeight1Base);
    const std::uint64_t weightLength = d(core == 0 ? kWeightLength : kWeight1Length);
    std::span<std::uint8_t> wmem = memory[weightRegion];
    if (weightBase > wmem.size() || weightLength > wmem.size() - weightBase) {
      return invalidInput("WEIGHT{}_BASE/LENGTH [0x{:x}, +{}): expected within region {} of {} bytes", suffix, weightBase,
                          weightLength, weightRegion, wmem.size());
    }
    const std::vector<std::int64_t> order = weightStreamOrder(layout);
    auto decoded = decodeWeightStream(wmem.subspan(weightBase, weightLength), order.size());
    if (!decoded) {
      if (core == 0) return Unexpected(std::move(decoded).error());
      return Unexpected(std::move(decoded).error().addContext("WEIGHT1 (core 1)"));
    }
    if (decoded->size() != order.size()) {
      return invalidInput("WEIGHT{}: expected {} decoded values for OFM depth {}, kernel {}x{}, IFM depth {}, block depth {}, got {}",
                          suffix, order.size(), channels, kh, kw, layout.ifmDepth, layout.ofmBlockDepth, decoded->size());
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i] >= 0) {
        // Core-local channel o is OFM channel o * cores + core.
        const std::size_t local = static_cast<std::size_t>(order[i]);
        const std::size_t channel = (local / perChannel) * static_cast<std::size_t>(cores) + static_cast<std::size_t>(core);
        weights[channel * perChannel + local % perChannel] = (*decoded)[i];
      } else if ((*decoded)[i] != 0) {
        return invalidInput("WEIGHT{}: value {}: expected 0 at a padding position of the weight order, got {}", suffix, i,
                            (*decoded)[i]);
      }
    }
    if (globalScale) continue;
    const unsigned scaleRegion = p(kScaleRegion) & 7;
    const std::uint64_t scaleBase = d(core == 0 ? kScaleBase : kScale1Base);
    const std::uint64_t scaleLength = d(core == 0 ? kScaleLength : kScale1Length);
    std::span<std::uint8_t> smem = memory[scaleRegion];
    if (scaleBase > smem.size() || scaleLength > smem.size() - scaleBase) {
      return invalidInput("SCALE{}_BASE/LENGTH [0x{:x}, +{}): expected within region {} of {} bytes", suffix, scaleBase,
                          scaleLength, scaleRegion, smem.size());
    }
    auto decodedScales = decodeScaleStream(smem.subspan(scaleBase, scaleLength), static_cast<std::size_t>(channels));
    if (!decodedScales) {
      if (core == 0) return Unexpected(std::move(decodedScales).error());
      return Unexpected(std::move(decodedScales).error().addContext("SCALE1 (core 1)"));
    }
    for (int o = 0; o < channels; ++o) {
      scales[static_cast<std::size_t>(o * cores + core)] = (*decodedScales)[static_cast<std::size_t>(o)];
    }
  }
  if (globalScale) {
    scales.assign(static_cast<std::size_t>(ofmD), ScaleRecord{0, d(kOfmScale), static_cast<std::uint8_t>(cmd1Param_[kOfmScale] & 0x3F)});
  }

  OPENVGF_ASSIGN_OR_RETURN(const OutputStage stage, loadOutputStage(regs, ofm, shram_, info_.shramBanks));
  const std::int64_t ifmZp = signExtend16(p(kIfmZeroPoint));
  Accessor in(ifm, memory);
  Accessor out(ofm, memory);
  const std::size_t kwi = static_cast<std::size_t>(kw), kdi = static_cast<std::size_t>(layout.ifmDepth);
  for (std::int64_t y = 0; y < ofmH; ++y) {
    for (std::int64_t x = 0; x < ofmW; ++x) {
      for (std::int64_t c = 0; c < ofmD; ++c) {
        std::int64_t sum = scales[static_cast<std::size_t>(c)].bias;
        for (std::int64_t ky = 0; ky < kh; ++ky) {
          const std::int64_t iy = y * strideY - padTop + ky * dilY;
          if (iy < 0 || iy >= ifmH) continue;
          for (std::int64_t kx = 0; kx < kw; ++kx) {
            const std::int64_t ix = x * strideX - padLeft + kx * dilX;
            if (ix < 0 || ix >= ifmW) continue;
            const std::size_t wrow = ((static_cast<std::size_t>(c) * static_cast<std::size_t>(kh) + static_cast<std::size_t>(ky)) * kwi +
                                      static_cast<std::size_t>(kx)) * kdi;
            if (depthwise) {
              OPENVGF_ASSIGN_OR_RETURN(std::int64_t v, in.read(iy, ix, c));
              sum += (v - ifmZp) * weights[wrow];
            } else {
              for (std::int64_t i = 0; i < ifmD; ++i) {
                OPENVGF_ASSIGN_OR_RETURN(std::int64_t v, in.read(iy, ix, i));
                sum += (v - ifmZp) * weights[wrow + static_cast<std::size_t>(i)];
              }
            }
          }
        }
        sum = wrapSigned(sum, accBits);
        const ScaleRecord& s = scales[static_cast<std::size_t>(c)];
        OPENVGF_TRY(out.write(y, x, c, stage.apply(sum, s.scale, s.shift)));
      }
    }
  }
  stats_.macs += static_cast<std::uint64_t>(ofmH * ofmW * ofmD * kh * kw * (depthwise ? 1 : ifmD));
  return {};
}

Status Simulator::runPool(unsigned mode, const MemoryRegions& memory) {
  using namespace cmd0;
  using namespace cmd1;
  const RegisterView regs{cmd0_, cmd1Data_, cmd1Param_, info_.product};
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ifm, loadIfm(regs));
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ofm, loadOfm(regs));
  const unsigned ofmPrec = p(kOfmPrecision);
  OPENVGF_TRY(checkFormat(ifm));
  OPENVGF_TRY(checkFormat(ofm));
  if (p(kIfmUpscale) != 0) return unsupported("IFM_UPSCALE {} is not supported", p(kIfmUpscale));
  const std::int64_t ofmH = std::int64_t{p(kOfmHeightM1)} + 1;
  const std::int64_t ofmW = std::int64_t{p(kOfmWidthM1)} + 1;
  const std::int64_t ofmD = std::int64_t{p(kOfmDepthM1)} + 1;
  const unsigned ks = p(kKernelStride);
  if (((ks >> 3) & 3) != 0) return unsupported("KERNEL_STRIDE: dilation is not supported for pooling");
  const std::int64_t strideX = ((ks & 1) | (((ks >> 6) & 1) << 1)) + 1;
  const std::int64_t strideY = (((ks >> 1) & 1) | (((ks >> 9) & 1) << 1)) + 1;
  const std::int64_t kw = std::int64_t{p(kKernelWidthM1)} + 1;
  const std::int64_t kh = std::int64_t{p(kKernelHeightM1)} + 1;
  const std::int64_t padTop = p(kIfmPadTop), padLeft = p(kIfmPadLeft);
  const std::int64_t padBottom = p(kIfmPadBottom), padRight = p(kIfmPadRight);
  const std::int64_t ifmH = (ofmH - 1) * strideY + kh - padTop - padBottom;
  const std::int64_t ifmW = (ofmW - 1) * strideX + kw - padLeft - padRight;
  if (ifmH < 1 || ifmW < 1) {
    return invalidInput("IFM extent {}x{} implied by OFM, kernel, stride and padding: expected >= 1", ifmH, ifmW);
  }
  OPENVGF_TRY(chargeSteps({ofmH, ofmW, ofmD, kh, kw}));
  const bool globalScale = (ofmPrec >> 8) & 1;
  const bool padded = padTop + padLeft + padBottom + padRight > 0;
  if (mode == 1 && !globalScale) {
    return unsupported("AVERAGE pool with hardware division (per-channel scale mode, no scale stream{}) is not modelled",
                       padded ? ", padded" : "");
  }
  OPENVGF_ASSIGN_OR_RETURN(const OutputStage stage, loadOutputStage(regs, ofm, shram_, info_.shramBanks));
  // Per-channel mode without a scale stream passes values through unscaled (Vela's MAX pool).
  const std::uint32_t scale = globalScale ? d(kOfmScale) : 1;
  const unsigned shift = globalScale ? (cmd1Param_[kOfmScale] & 0x3F) : 0;
  const std::int64_t ifmZp = signExtend16(p(kIfmZeroPoint));
  Accessor in(ifm, memory);
  Accessor out(ofm, memory);
  for (std::int64_t y = 0; y < ofmH; ++y) {
    for (std::int64_t x = 0; x < ofmW; ++x) {
      for (std::int64_t c = 0; c < ofmD; ++c) {
        std::int64_t value = 0;
        bool any = false;
        for (std::int64_t ky = 0; ky < kh; ++ky) {
          const std::int64_t iy = y * strideY - padTop + ky;
          if (iy < 0 || iy >= ifmH) continue;
          for (std::int64_t kx = 0; kx < kw; ++kx) {
            const std::int64_t ix = x * strideX - padLeft + kx;
            if (ix < 0 || ix >= ifmW) continue;
            OPENVGF_ASSIGN_OR_RETURN(std::int64_t v, in.read(iy, ix, c));
            if (mode == 0) {
              value = any ? std::max(value, v) : v;
            } else {
              value += v - ifmZp;
            }
            any = true;
          }
        }
        if (!any) {
          return invalidInput("OFM (y {}, x {}): expected a pooling window with at least one IFM element, got only padding", y, x);
        }
        if (mode == 0) value -= ifmZp;
        OPENVGF_TRY(out.write(y, x, c, stage.apply(value, scale, shift)));
      }
    }
  }
  return {};
}

Status Simulator::runElementwise(unsigned mode, const MemoryRegions& memory) {
  using namespace cmd0;
  using namespace cmd1;
  if (!(mode <= 4 || mode == 6)) {
    static constexpr const char* kNames[] = {"MUL", "ADD", "SUB", "MIN", "MAX", "LRELU", "ABS", "CLZ", "SHR", "SHL"};
    return unsupported("elementwise mode {} ({}) is not supported", mode, kNames[mode < 10 ? mode : 0]);
  }
  const bool unary = mode == 6;
  const RegisterView regs{cmd0_, cmd1Data_, cmd1Param_, info_.product};
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ifm, loadIfm(regs));
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ifm2, loadIfm2(regs));
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ofm, loadOfm(regs));
  const unsigned ifmPrec = p(kIfmPrecision);
  const unsigned ofmPrec = p(kOfmPrecision);
  OPENVGF_TRY(checkFormat(ifm));
  OPENVGF_TRY(checkFormat(ofm));
  const unsigned bc = p(kIfm2Broadcast);
  const bool scalar = (bc >> 7) & 1;
  if (!unary && !scalar) OPENVGF_TRY(checkFormat(ifm2));
  const bool swapped = (bc >> 6) & 1;
  const std::int64_t ofmH = std::int64_t{p(kOfmHeightM1)} + 1;
  const std::int64_t ofmW = std::int64_t{p(kOfmWidthM1)} + 1;
  const std::int64_t ofmD = std::int64_t{p(kOfmDepthM1)} + 1;
  OPENVGF_TRY(chargeSteps({ofmH, ofmW, ofmD}));
  const bool globalScale = (ofmPrec >> 8) & 1;
  OPENVGF_ASSIGN_OR_RETURN(const OutputStage stage, loadOutputStage(regs, ofm, shram_, info_.shramBanks));
  const std::uint32_t ofmScale = globalScale ? d(kOfmScale) : 1;
  const unsigned ofmShift = globalScale ? (cmd1Param_[kOfmScale] & 0x3F) : 0;
  const unsigned scaleMode = (ifmPrec >> 8) & 3;
  const unsigned ifmRound = (ifmPrec >> 14) & 3;
  const std::uint32_t opaScale = d(kOpaScale);
  const unsigned opaShift = cmd1Param_[kOpaScale] & 0x3F;
  const std::uint32_t opbScale = d(kOpbScale) & 0xFFFF;
  if (!unary && ifm2.elemBytes != ifm.elemBytes) {
    return invalidInput("IFM2_PRECISION: expected the IFM's {}-bit precision, got {}-bit", 8 * ifm.elemBytes, 8 * ifm2.elemBytes);
  }
  if ((mode == 1 || mode == 2) && scaleMode != 0 && ifm.elemBytes == 4) {
    // The fixed left shift of the unscaled operand is only known for 8-bit (19) and 16-bit (14) inputs.
    return unsupported("IFM_PRECISION: scale mode {} with a 32-bit IFM is not modelled (only OPA_OPB_16)", scaleMode);
  }
  const unsigned implicitShift = ifm.elemBytes == 1 ? 19 : 14;
  const std::int64_t ifmZp = signExtend16(p(kIfmZeroPoint));
  const std::int64_t ifm2Zp = signExtend16(p(kIfm2ZeroPoint));
  const std::int64_t scalarValue = ifm2.isSigned ? signExtend16(p(kIfm2Scalar)) : std::int64_t{p(kIfm2Scalar)};
  Accessor in(ifm, memory);
  Accessor in2(ifm2, memory);
  Accessor out(ofm, memory);
  for (std::int64_t y = 0; y < ofmH; ++y) {
    for (std::int64_t x = 0; x < ofmW; ++x) {
      for (std::int64_t c = 0; c < ofmD; ++c) {
        OPENVGF_ASSIGN_OR_RETURN(std::int64_t av, in.read(y, x, c));
        const std::int64_t a = av - ifmZp;
        std::int64_t b = 0;
        if (!unary) {
          if (scalar) {
            b = scalarValue - ifm2Zp;
          } else {
            OPENVGF_ASSIGN_OR_RETURN(std::int64_t bv, in2.read((bc & 1) ? 0 : y, (bc & 2) ? 0 : x, (bc & 4) ? 0 : c));
            b = bv - ifm2Zp;
          }
        }
        std::int64_t r = 0;
        switch (mode) {
          case 0: r = a * b; break;
          case 1:
          case 2: {
            std::int64_t sa = 0, sb = 0;
            if (scaleMode == 0) {
              sa = a * (opaScale & 0xFFFF);
              sb = b * opbScale;
            } else if (scaleMode == 1) {
              sa = rescaleValue(a, opaScale, opaShift, ifmRound);
              sb = b * (std::int64_t{1} << implicitShift);
            } else {
              sa = a * (std::int64_t{1} << implicitShift);
              sb = rescaleValue(b, opaScale, opaShift, ifmRound);
            }
            if (mode == 1) r = sa + sb;
            else r = swapped ? sb - sa : sa - sb;
            break;
          }
          case 3: r = std::min(a, b); break;
          case 4: r = std::max(a, b); break;
          default: r = a < 0 ? -a : a; break;
        }
        OPENVGF_TRY(out.write(y, x, c, stage.apply(r, ofmScale, ofmShift)));
      }
    }
  }
  return {};
}

Status Simulator::runDma(const MemoryRegions& memory) {
  using namespace cmd0;
  using namespace cmd1;
  const unsigned srcReg = p(kDmaSrcRegion);
  const unsigned dstReg = p(kDmaDstRegion);
  if (((srcReg >> 9) & 3) != 0 || ((dstReg >> 9) & 3) != 0) return unsupported("DMA: only 1D transfers are supported");
  const std::uint64_t length = d(kDmaLen);
  const std::uint64_t src = d(kDmaSrc);
  const std::uint64_t dst = d(kDmaDst);
  // INTERNAL addresses are in SHRAM; for a destination, region bits 2:0 are a core mask
  // (bit k = core k) on multi-core configurations. A source is read from core 0.
  const std::size_t coreBytes = static_cast<std::size_t>(info_.shramBanks) * 1024;
  auto view = [&](unsigned reg, int core) -> std::span<std::uint8_t> {
    if ((reg >> 8) & 1) return std::span<std::uint8_t>(shram_).subspan(static_cast<std::size_t>(core) * coreBytes, coreBytes);
    return memory[reg & 7];
  };
  const std::span<std::uint8_t> from = view(srcReg, 0);
  const std::span<std::uint8_t> to = view(dstReg, 0);
  if (src > from.size() || length > from.size() - src) {
    return invalidInput("DMA source [0x{:x}, +{}) in {}: expected within {} bytes", src, length,
                        (srcReg >> 8) & 1 ? std::string("SHRAM") : fmt::format("region {}", srcReg & 7), from.size());
  }
  if (dst > to.size() || length > to.size() - dst) {
    return invalidInput("DMA destination [0x{:x}, +{}) in {}: expected within {} bytes", dst, length,
                        (dstReg >> 8) & 1 ? std::string("SHRAM") : fmt::format("region {}", dstReg & 7), to.size());
  }
  if (((dstReg >> 8) & 1) && info_.cores > 1) {
    if ((dstReg & 3) == 0) return invalidInput("DMA destination SHRAM: core mask: expected 1..3, got 0");
    for (int core = 0; core < info_.cores; ++core) {
      if ((dstReg >> core) & 1) {
        std::copy_n(from.begin() + static_cast<std::ptrdiff_t>(src), length,
                    view(dstReg, core).begin() + static_cast<std::ptrdiff_t>(dst));
      }
    }
    stats_.dmaBytes += length;
    return {};
  }
  std::copy_n(from.begin() + static_cast<std::ptrdiff_t>(src), length, to.begin() + static_cast<std::ptrdiff_t>(dst));
  stats_.dmaBytes += length;
  return {};
}

}  // namespace openvgf::runner::ethosu
