// SPDX-License-Identifier: Apache-2.0
// Decoding and validation of Ethos-U55/U65 command words. The register table below is the
// single description of every register this simulator knows: its name, which param bits it
// may use and which enumerated values are legal; anything else is refused.
#include "runner/ethosu/command_stream.h"

#include <algorithm>
#include <array>

namespace openvgf::runner::ethosu {
namespace {

enum class Check : std::uint8_t {
  None,
  PoolMode,
  ElementwiseMode,
  PadMax128,
  IfmPrecision,
  OfmPrecision,
  Ifm2Precision,
  Upscale,
  AccFormat,
  Activation,
  DmaRegion,
};

struct RegisterInfo {
  std::uint16_t code;
  bool isCmd1;
  std::string_view name;
  std::uint16_t paramMask;   // bits of param that may be set
  std::uint32_t dataMask;    // bits of the payload that may be set (cmd1)
  bool u65Only = false;
  bool address = false;      // cmd1 address: param[7:0] holds address bits 39:32 on U65
  Check check = Check::None;
};

constexpr std::uint32_t kAll = 0xFFFFFFFFu;

// clang-format off
constexpr std::array kRegisters = {
    RegisterInfo{cmd0::kOpStop, false, "NPU_OP_STOP", 0xFFFF, 0},
    RegisterInfo{cmd0::kOpIrq, false, "NPU_OP_IRQ", 0xFFFF, 0},
    RegisterInfo{cmd0::kOpConv, false, "NPU_OP_CONV", 0x0000, 0},
    RegisterInfo{cmd0::kOpDepthwise, false, "NPU_OP_DEPTHWISE", 0x0000, 0},
    RegisterInfo{cmd0::kOpPool, false, "NPU_OP_POOL", 0x0007, 0, false, false, Check::PoolMode},
    RegisterInfo{cmd0::kOpElementwise, false, "NPU_OP_ELEMENTWISE", 0x003F, 0, false, false, Check::ElementwiseMode},
    RegisterInfo{cmd0::kOpDmaStart, false, "NPU_OP_DMA_START", 0x0000, 0},
    RegisterInfo{cmd0::kOpDmaWait, false, "NPU_OP_DMA_WAIT", 0x000F, 0},
    RegisterInfo{cmd0::kOpKernelWait, false, "NPU_OP_KERNEL_WAIT", 0x0003, 0},
    RegisterInfo{cmd0::kOpPmuMask, false, "NPU_OP_PMU_MASK", 0x0001, 0},
    RegisterInfo{cmd0::kIfmPadTop, false, "NPU_SET_IFM_PAD_TOP", 0x007F, 0},
    RegisterInfo{cmd0::kIfmPadLeft, false, "NPU_SET_IFM_PAD_LEFT", 0x007F, 0},
    RegisterInfo{cmd0::kIfmPadRight, false, "NPU_SET_IFM_PAD_RIGHT", 0x00FF, 0, false, false, Check::PadMax128},
    RegisterInfo{cmd0::kIfmPadBottom, false, "NPU_SET_IFM_PAD_BOTTOM", 0x00FF, 0, false, false, Check::PadMax128},
    RegisterInfo{cmd0::kIfmDepthM1, false, "NPU_SET_IFM_DEPTH_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kIfmPrecision, false, "NPU_SET_IFM_PRECISION", 0xC3CD, 0, false, false, Check::IfmPrecision},
    RegisterInfo{cmd0::kIfmUpscale, false, "NPU_SET_IFM_UPSCALE", 0x0003, 0, false, false, Check::Upscale},
    RegisterInfo{cmd0::kIfmZeroPoint, false, "NPU_SET_IFM_ZERO_POINT", 0xFFFF, 0},
    RegisterInfo{cmd0::kIfmWidth0M1, false, "NPU_SET_IFM_WIDTH0_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kIfmHeight0M1, false, "NPU_SET_IFM_HEIGHT0_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kIfmHeight1M1, false, "NPU_SET_IFM_HEIGHT1_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kIfmIbEnd, false, "NPU_SET_IFM_IB_END", 0x003F, 0},
    RegisterInfo{cmd0::kIfmRegion, false, "NPU_SET_IFM_REGION", 0x8007, 0},
    RegisterInfo{cmd0::kOfmWidthM1, false, "NPU_SET_OFM_WIDTH_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kOfmHeightM1, false, "NPU_SET_OFM_HEIGHT_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kOfmDepthM1, false, "NPU_SET_OFM_DEPTH_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kOfmPrecision, false, "NPU_SET_OFM_PRECISION", 0xC1C7, 0, false, false, Check::OfmPrecision},
    RegisterInfo{cmd0::kOfmBlkWidthM1, false, "NPU_SET_OFM_BLK_WIDTH_M1", 0x003F, 0},
    RegisterInfo{cmd0::kOfmBlkHeightM1, false, "NPU_SET_OFM_BLK_HEIGHT_M1", 0x001F, 0},
    RegisterInfo{cmd0::kOfmBlkDepthM1, false, "NPU_SET_OFM_BLK_DEPTH_M1", 0x007F, 0},
    RegisterInfo{cmd0::kOfmZeroPoint, false, "NPU_SET_OFM_ZERO_POINT", 0xFFFF, 0},
    RegisterInfo{cmd0::kOfmWidth0M1, false, "NPU_SET_OFM_WIDTH0_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kOfmHeight0M1, false, "NPU_SET_OFM_HEIGHT0_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kOfmHeight1M1, false, "NPU_SET_OFM_HEIGHT1_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kOfmRegion, false, "NPU_SET_OFM_REGION", 0x8007, 0},
    RegisterInfo{cmd0::kKernelWidthM1, false, "NPU_SET_KERNEL_WIDTH_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kKernelHeightM1, false, "NPU_SET_KERNEL_HEIGHT_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kKernelStride, false, "NPU_SET_KERNEL_STRIDE", 0x027F, 0},
    RegisterInfo{cmd0::kParallelMode, false, "NPU_SET_PARALLEL_MODE", 0x0001, 0, true},
    RegisterInfo{cmd0::kAccFormat, false, "NPU_SET_ACC_FORMAT", 0x0003, 0, false, false, Check::AccFormat},
    RegisterInfo{cmd0::kActivation, false, "NPU_SET_ACTIVATION", 0x701F, 0, false, false, Check::Activation},
    RegisterInfo{cmd0::kActivationMin, false, "NPU_SET_ACTIVATION_MIN", 0xFFFF, 0},
    RegisterInfo{cmd0::kActivationMax, false, "NPU_SET_ACTIVATION_MAX", 0xFFFF, 0},
    RegisterInfo{cmd0::kWeightRegion, false, "NPU_SET_WEIGHT_REGION", 0x8007, 0},
    RegisterInfo{cmd0::kScaleRegion, false, "NPU_SET_SCALE_REGION", 0x8007, 0},
    RegisterInfo{cmd0::kAbStart, false, "NPU_SET_AB_START", 0x003F, 0},
    RegisterInfo{cmd0::kBlockDep, false, "NPU_SET_BLOCKDEP", 0x0003, 0},
    RegisterInfo{cmd0::kDmaSrcRegion, false, "NPU_SET_DMA0_SRC_REGION", 0x0707, 0, false, false, Check::DmaRegion},
    RegisterInfo{cmd0::kDmaDstRegion, false, "NPU_SET_DMA0_DST_REGION", 0x0707, 0, false, false, Check::DmaRegion},
    RegisterInfo{cmd0::kDmaSize0, false, "NPU_SET_DMA0_SIZE0", 0xFFFF, 0},
    RegisterInfo{cmd0::kDmaSize1, false, "NPU_SET_DMA0_SIZE1", 0xFFFF, 0},
    RegisterInfo{cmd0::kIfm2Broadcast, false, "NPU_SET_IFM2_BROADCAST", 0x00C7, 0},
    RegisterInfo{cmd0::kIfm2Scalar, false, "NPU_SET_IFM2_SCALAR", 0xFFFF, 0},
    RegisterInfo{cmd0::kIfm2Precision, false, "NPU_SET_IFM2_PRECISION", 0x00CD, 0, false, false, Check::Ifm2Precision},
    RegisterInfo{cmd0::kIfm2ZeroPoint, false, "NPU_SET_IFM2_ZERO_POINT", 0xFFFF, 0},
    RegisterInfo{cmd0::kIfm2Width0M1, false, "NPU_SET_IFM2_WIDTH0_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kIfm2Height0M1, false, "NPU_SET_IFM2_HEIGHT0_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kIfm2Height1M1, false, "NPU_SET_IFM2_HEIGHT1_M1", 0xFFFF, 0},
    RegisterInfo{cmd0::kIfm2IbStart, false, "NPU_SET_IFM2_IB_START", 0x003F, 0},
    RegisterInfo{cmd0::kIfm2Region, false, "NPU_SET_IFM2_REGION", 0x8007, 0},
    RegisterInfo{cmd1::kIfmBase0 + 0, true, "NPU_SET_IFM_BASE0", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfmBase0 + 1, true, "NPU_SET_IFM_BASE1", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfmBase0 + 2, true, "NPU_SET_IFM_BASE2", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfmBase0 + 3, true, "NPU_SET_IFM_BASE3", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfmStrideX, true, "NPU_SET_IFM_STRIDE_X", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfmStrideY, true, "NPU_SET_IFM_STRIDE_Y", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfmStrideC, true, "NPU_SET_IFM_STRIDE_C", 0, kAll, false, true},
    RegisterInfo{cmd1::kOfmBase0 + 0, true, "NPU_SET_OFM_BASE0", 0, kAll, false, true},
    RegisterInfo{cmd1::kOfmBase0 + 1, true, "NPU_SET_OFM_BASE1", 0, kAll, false, true},
    RegisterInfo{cmd1::kOfmBase0 + 2, true, "NPU_SET_OFM_BASE2", 0, kAll, false, true},
    RegisterInfo{cmd1::kOfmBase0 + 3, true, "NPU_SET_OFM_BASE3", 0, kAll, false, true},
    RegisterInfo{cmd1::kOfmStrideX, true, "NPU_SET_OFM_STRIDE_X", 0, kAll, false, true},
    RegisterInfo{cmd1::kOfmStrideY, true, "NPU_SET_OFM_STRIDE_Y", 0, kAll, false, true},
    RegisterInfo{cmd1::kOfmStrideC, true, "NPU_SET_OFM_STRIDE_C", 0, kAll, false, true},
    RegisterInfo{cmd1::kWeightBase, true, "NPU_SET_WEIGHT_BASE", 0, kAll, false, true},
    RegisterInfo{cmd1::kWeightLength, true, "NPU_SET_WEIGHT_LENGTH", 0, kAll},
    RegisterInfo{cmd1::kScaleBase, true, "NPU_SET_SCALE_BASE", 0, kAll, false, true},
    RegisterInfo{cmd1::kScaleLength, true, "NPU_SET_SCALE_LENGTH", 0, 0x000FFFFF},
    RegisterInfo{cmd1::kOfmScale, true, "NPU_SET_OFM_SCALE", 0x003F, kAll},
    RegisterInfo{cmd1::kOpaScale, true, "NPU_SET_OPA_SCALE", 0x003F, kAll},
    RegisterInfo{cmd1::kOpbScale, true, "NPU_SET_OPB_SCALE", 0, 0x0000FFFF},
    RegisterInfo{cmd1::kDmaSrc, true, "NPU_SET_DMA0_SRC", 0, kAll, false, true},
    RegisterInfo{cmd1::kDmaDst, true, "NPU_SET_DMA0_DST", 0, kAll, false, true},
    RegisterInfo{cmd1::kDmaLen, true, "NPU_SET_DMA0_LEN", 0, kAll, false, true},
    RegisterInfo{cmd1::kDmaSkip0, true, "NPU_SET_DMA0_SKIP0", 0, kAll, true, true},
    RegisterInfo{cmd1::kDmaSkip1, true, "NPU_SET_DMA0_SKIP1", 0, kAll, true, true},
    RegisterInfo{cmd1::kIfm2Base0 + 0, true, "NPU_SET_IFM2_BASE0", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfm2Base0 + 1, true, "NPU_SET_IFM2_BASE1", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfm2Base0 + 2, true, "NPU_SET_IFM2_BASE2", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfm2Base0 + 3, true, "NPU_SET_IFM2_BASE3", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfm2StrideX, true, "NPU_SET_IFM2_STRIDE_X", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfm2StrideY, true, "NPU_SET_IFM2_STRIDE_Y", 0, kAll, false, true},
    RegisterInfo{cmd1::kIfm2StrideC, true, "NPU_SET_IFM2_STRIDE_C", 0, kAll, false, true},
    RegisterInfo{cmd1::kWeight1Base, true, "NPU_SET_WEIGHT1_BASE", 0, kAll, true, true},
    RegisterInfo{cmd1::kWeight1Length, true, "NPU_SET_WEIGHT1_LENGTH", 0, kAll, true},
    RegisterInfo{cmd1::kScale1Base, true, "NPU_SET_SCALE1_BASE", 0, kAll, true, true},
    RegisterInfo{cmd1::kScale1Length, true, "NPU_SET_SCALE1_LENGTH", 0, 0x000FFFFF, true},
    RegisterInfo{cmd1::kUserDefined0 + 0, true, "NPU_SET_USER_DEFINED0", 0, kAll},
    RegisterInfo{cmd1::kUserDefined0 + 1, true, "NPU_SET_USER_DEFINED1", 0, kAll},
    RegisterInfo{cmd1::kUserDefined0 + 2, true, "NPU_SET_USER_DEFINED2", 0, kAll},
    RegisterInfo{cmd1::kUserDefined0 + 3, true, "NPU_SET_USER_DEFINED3", 0, kAll},
    RegisterInfo{cmd1::kUserDefined0 + 4, true, "NPU_SET_USER_DEFINED4", 0, kAll},
    RegisterInfo{cmd1::kUserDefined0 + 5, true, "NPU_SET_USER_DEFINED5", 0, kAll},
    RegisterInfo{cmd1::kUserDefined0 + 6, true, "NPU_SET_USER_DEFINED6", 0, kAll},
    RegisterInfo{cmd1::kUserDefined0 + 7, true, "NPU_SET_USER_DEFINED7", 0, kAll},
};
// clang-format on

const RegisterInfo* findRegister(std::uint16_t code, bool isCmd1, Product product) {
  for (const RegisterInfo& info : kRegisters) {
    if (info.code == code && info.isCmd1 == isCmd1) {
      if (info.u65Only && product != Product::U65) return nullptr;
      return &info;
    }
  }
  return nullptr;
}

std::string_view productName(Product product) { return product == Product::U65 ? "Ethos-U65" : "Ethos-U55"; }

Status checkFields(const RegisterInfo& info, const Command& c, Product product) {
  const unsigned p = c.param;
  auto bad = [&](std::string_view field, unsigned value, std::string_view rule) -> Status {
    return invalidInput("{}: field {}: expected {}, got {}", info.name, field, rule, value);
  };
  switch (info.check) {
    case Check::None:
      return {};
    case Check::PoolMode:
      if (p > 2) return bad("pooling_mode", p, "0 (MAX), 1 (AVERAGE) or 2 (REDUCE_SUM)");
      return {};
    case Check::ElementwiseMode:
      if (p > 9) return bad("elementwise_mode", p, "0..9 (MUL..SHL)");
      return {};
    case Check::PadMax128:
      if (p > 128) return bad("pad", p, "at most 128");
      return {};
    case Check::IfmPrecision:
      if (((p >> 6) & 3) > 1) return bad("format", (p >> 6) & 3, "0 (NHWC) or 1 (NHCWB16)");
      if (((p >> 8) & 3) > 2) return bad("scale_mode", (p >> 8) & 3, "0..2");
      if (((p >> 14) & 3) > 2) return bad("round_mode", (p >> 14) & 3, "0 (DBL), 1 (TRUNCATE) or 2 (NATURAL)");
      return {};
    case Check::OfmPrecision:
      if (((p >> 6) & 3) > 1) return bad("format", (p >> 6) & 3, "0 (NHWC) or 1 (NHCWB16)");
      if (((p >> 14) & 3) > 2) return bad("round_mode", (p >> 14) & 3, "0 (DBL), 1 (TRUNCATE) or 2 (NATURAL)");
      return {};
    case Check::Ifm2Precision:
      if (((p >> 6) & 3) > 1) return bad("format", (p >> 6) & 3, "0 (NHWC) or 1 (NHCWB16)");
      return {};
    case Check::Upscale:
      if (p > 2) return bad("mode", p, "0 (NONE), 1 (NEAREST) or 2 (ZEROS)");
      return {};
    case Check::AccFormat:
      if (p > 2) return bad("acc_format", p, "0 (I32), 1 (I40) or 2 (F16)");
      return {};
    case Check::Activation: {
      unsigned fn = p & 0x1F;
      unsigned clip = (p >> 12) & 7;
      if (!(fn == 0 || fn == 3 || fn == 4 || (fn >= 16 && fn <= 23)))
        return bad("activation_function", fn, "0 (NONE), 3 (TANH), 4 (SIGMOID) or 16..23 (TABLE_0..7)");
      if (!(clip == 0 || clip == 2 || clip == 3 || clip == 5)) return bad("clip_range", clip, "0, 2, 3 or 5");
      return {};
    }
    case Check::DmaRegion: {
      unsigned strideMode = (p >> 9) & 3;
      unsigned maxMode = product == Product::U65 ? 2 : 0;
      if (strideMode > maxMode)
        return bad("stride_mode", strideMode, product == Product::U65 ? "0..2" : "0 (1D) on Ethos-U55");
      return {};
    }
  }
  return {};
}

}  // namespace

std::string_view commandName(std::uint16_t code, bool isCmd1, Product product) {
  const RegisterInfo* info = findRegister(code, isCmd1, product);
  return info ? info->name : std::string_view{};
}

bool isOperation(const Command& command) { return !command.isCmd1 && command.code < 0x100; }

Status validateCommand(const Command& c, Product product) {
  const RegisterInfo* info = findRegister(c.code, c.isCmd1, product);
  if (!info) {
    return invalidInput("expected a known {} {} opcode, got 0x{:03x}", productName(product),
                        c.isCmd1 ? "cmd1" : "cmd0", c.code);
  }
  std::uint16_t paramMask = info->paramMask;
  if (info->address && product == Product::U65) paramMask |= 0x00FF;
  if ((c.param & ~paramMask) != 0) {
    return invalidInput("{}: expected param bits within 0x{:04x}, got 0x{:04x}", info->name, paramMask, c.param);
  }
  if (c.isCmd1 && (c.data & ~info->dataMask) != 0) {
    return invalidInput("{}: expected data bits within 0x{:08x}, got 0x{:08x}", info->name, info->dataMask, c.data);
  }
  return checkFields(*info, c, product);
}

Result<std::vector<Command>> decodeCommandStream(std::span<const std::uint8_t> bytes, Product product,
                                                 std::string_view name) {
  if (bytes.size() % 4 != 0) {
    return invalidInput("{}: expected a size that is a multiple of 4 bytes, got {}", name, bytes.size());
  }
  const std::size_t wordCount = bytes.size() / 4;
  auto word = [&](std::size_t i) {
    const std::uint8_t* b = bytes.data() + i * 4;
    return std::uint32_t{b[0]} | (std::uint32_t{b[1]} << 8) | (std::uint32_t{b[2]} << 16) |
           (std::uint32_t{b[3]} << 24);
  };
  std::vector<Command> commands;
  std::size_t i = 0;
  while (i < wordCount) {
    const std::uint32_t w0 = word(i);
    Command c;
    c.index = static_cast<std::uint32_t>(commands.size());
    c.wordOffset = static_cast<std::uint32_t>(i);
    c.code = static_cast<std::uint16_t>(w0 & 0x3FF);
    c.param = static_cast<std::uint16_t>(w0 >> 16);
    const unsigned reserved = (w0 >> 10) & 0xF;
    const unsigned control = (w0 >> 14) & 3;
    if (reserved != 0 || control > 1) {
      return invalidInput("{}: command {} (word {}): expected reserved bits 10..13 = 0 and control 0 or 1, got header 0x{:08x}",
                          name, c.index, i, w0);
    }
    c.isCmd1 = control == 1;
    if (c.isCmd1) {
      if (i + 1 >= wordCount) {
        return invalidInput("{}: command {} (word {}): expected a payload word after cmd1 header 0x{:08x}, got end of stream",
                            name, c.index, i, w0);
      }
      c.data = word(i + 1);
      i += 2;
    } else {
      i += 1;
    }
    if (Status s = validateCommand(c, product); !s) {
      return Unexpected(std::move(s).error().addContext(fmt::format("{}: command {} (word {})", name, c.index, c.wordOffset)));
    }
    commands.push_back(c);
  }
  return commands;
}

std::vector<std::uint32_t> encodeCommands(std::span<const Command> commands) {
  std::vector<std::uint32_t> words;
  words.reserve(commands.size() * 2);
  for (const Command& c : commands) {
    words.push_back(std::uint32_t{c.code} | (c.isCmd1 ? 0x4000u : 0u) | (std::uint32_t{c.param} << 16));
    if (c.isCmd1) words.push_back(c.data);
  }
  return words;
}

}  // namespace openvgf::runner::ethosu
