// SPDX-License-Identifier: Apache-2.0
// Field decoding for the disassembly text; field names follow the driver header bitfields.
#include "runner/ethosu/disassembler.h"

#include <array>

namespace openvgf::runner::ethosu {
namespace {

std::string_view pick(std::span<const std::string_view> names, unsigned value) {
  return value < names.size() ? names[value] : std::string_view{"?"};
}

constexpr std::array<std::string_view, 3> kRound = {"DBL", "TRUNCATE", "NATURAL"};
constexpr std::array<std::string_view, 4> kPrecision = {"8b", "16b", "32b", "64b"};
constexpr std::array<std::string_view, 2> kFormat = {"NHWC", "NHCWB16"};

std::string fields(const Command& c) {
  const unsigned p = c.param;
  const auto sgn = [](unsigned v) { return static_cast<int>(static_cast<std::int16_t>(v)); };
  if (c.isCmd1) {
    switch (c.code) {
      case cmd1::kOfmScale:
      case cmd1::kOpaScale:
        return fmt::format("shift={} scale=0x{:08x}", p & 0x3F, c.data);
      case cmd1::kOpbScale:
        return fmt::format("scale=0x{:04x}", c.data & 0xFFFF);
      case cmd1::kWeightLength:
      case cmd1::kScaleLength:
      case cmd1::kWeight1Length:
      case cmd1::kScale1Length:
      case cmd1::kDmaLen:
        return fmt::format("{}", c.data);
      case cmd1::kIfmStrideX: case cmd1::kIfmStrideY: case cmd1::kIfmStrideC:
      case cmd1::kOfmStrideX: case cmd1::kOfmStrideY: case cmd1::kOfmStrideC:
      case cmd1::kIfm2StrideX: case cmd1::kIfm2StrideY: case cmd1::kIfm2StrideC:
        return fmt::format("{}", c.data);
      default:
        if (p != 0) return fmt::format("0x{:02x}{:08x}", p & 0xFF, c.data);
        return fmt::format("0x{:08x}", c.data);
    }
  }
  switch (c.code) {
    case cmd0::kOpStop:
    case cmd0::kOpIrq:
      return fmt::format("mask=0x{:04x}", p);
    case cmd0::kOpPool: {
      constexpr std::array<std::string_view, 3> kModes = {"MAX", "AVERAGE", "REDUCE_SUM"};
      return fmt::format("mode={}", pick(kModes, p));
    }
    case cmd0::kOpElementwise: {
      constexpr std::array<std::string_view, 10> kModes = {"MUL", "ADD", "SUB", "MIN", "MAX",
                                                           "LRELU", "ABS", "CLZ", "SHR", "SHL"};
      return fmt::format("mode={}", pick(kModes, p));
    }
    case cmd0::kOpConv:
    case cmd0::kOpDepthwise:
    case cmd0::kOpDmaStart:
      return {};
    case cmd0::kOpDmaWait:
    case cmd0::kOpKernelWait:
      return fmt::format("n={}", p);
    case cmd0::kIfmPrecision: {
      constexpr std::array<std::string_view, 3> kScale = {"OPA_OPB_16", "OPA_32", "OPB_32"};
      return fmt::format("type={} precision={} format={} scale_mode={} round={}", (p & 1) ? "signed" : "unsigned",
                         pick(kPrecision, (p >> 2) & 3), pick(kFormat, (p >> 6) & 3), pick(kScale, (p >> 8) & 3),
                         pick(kRound, (p >> 14) & 3));
    }
    case cmd0::kOfmPrecision:
      return fmt::format("type={} precision={} format={} scale_mode={} round={}", (p & 1) ? "signed" : "unsigned",
                         pick(kPrecision, (p >> 1) & 3), pick(kFormat, (p >> 6) & 3),
                         ((p >> 8) & 1) ? "GLOBAL" : "PER_CHANNEL", pick(kRound, (p >> 14) & 3));
    case cmd0::kIfm2Precision:
      return fmt::format("type={} precision={} format={}", (p & 1) ? "signed" : "unsigned",
                         pick(kPrecision, (p >> 2) & 3), pick(kFormat, (p >> 6) & 3));
    case cmd0::kIfmUpscale: {
      constexpr std::array<std::string_view, 3> kModes = {"NONE", "NEAREST", "ZEROS"};
      return fmt::format("mode={}", pick(kModes, p));
    }
    case cmd0::kIfmZeroPoint:
    case cmd0::kOfmZeroPoint:
    case cmd0::kIfm2ZeroPoint:
    case cmd0::kActivationMin:
    case cmd0::kActivationMax:
    case cmd0::kIfm2Scalar:
      return fmt::format("{}", sgn(p));
    case cmd0::kIfmRegion:
    case cmd0::kOfmRegion:
    case cmd0::kIfm2Region:
    case cmd0::kWeightRegion:
    case cmd0::kScaleRegion:
      return (p & 0x8000) ? fmt::format("region={} custom_dma_cs", p & 7) : fmt::format("region={}", p & 7);
    case cmd0::kKernelStride:
      return fmt::format("stride_x={} stride_y={} order={} dilation_x={} dilation_y={} decomposition={}",
                         ((p & 1) | (((p >> 6) & 1) << 1)) + 1, (((p >> 1) & 1) | (((p >> 9) & 1) << 1)) + 1,
                         ((p >> 2) & 1) ? "PART_KERNEL_FIRST" : "DEPTH_FIRST", ((p >> 3) & 1) + 1, ((p >> 4) & 1) + 1,
                         ((p >> 5) & 1) ? "4x4" : "8x8");
    case cmd0::kAccFormat: {
      constexpr std::array<std::string_view, 3> kAcc = {"I32", "I40", "F16"};
      return fmt::format("{}", pick(kAcc, p & 3));
    }
    case cmd0::kActivation: {
      const unsigned fn = p & 0x1F;
      std::string name = fn == 0 ? "NONE" : fn == 3 ? "TANH" : fn == 4 ? "SIGMOID" : fmt::format("TABLE_{}", fn - 16);
      return fmt::format("function={} clip_range={}", name, (p >> 12) & 7);
    }
    case cmd0::kDmaSrcRegion:
    case cmd0::kDmaDstRegion:
      return fmt::format("region={} mode={} stride_mode={}", p & 7, ((p >> 8) & 1) ? "INTERNAL" : "EXTERNAL", (p >> 9) & 3);
    case cmd0::kIfm2Broadcast:
      return fmt::format("h={} w={} c={} operand_order={} scalar={}", p & 1, (p >> 1) & 1, (p >> 2) & 1, (p >> 6) & 1,
                         (p >> 7) & 1);
    case cmd0::kParallelMode:
      return fmt::format("{} ({})", p, (p & 1) ? "DUAL_CORE_DEPTH" : "SINGLE_CORE");
    case cmd0::kIfmPadTop:
    case cmd0::kIfmPadLeft:
    case cmd0::kIfmPadRight:
    case cmd0::kIfmPadBottom:
    case cmd0::kBlockDep:
    case cmd0::kIfmIbEnd:
    case cmd0::kAbStart:
    case cmd0::kIfm2IbStart:
    case cmd0::kDmaSize0:
    case cmd0::kDmaSize1:
    case cmd0::kOpPmuMask:
      return fmt::format("{}", p);
    default:
      // *_M1 sizes: show the register value and the size it encodes.
      return fmt::format("{} ({})", p, p + 1);
  }
}

}  // namespace

std::string disassembleCommand(const Command& c, Product product) {
  std::string_view name = commandName(c.code, c.isCmd1, product);
  std::string text = fmt::format("{:04} @0x{:04x} {}", c.index, c.wordOffset * 4,
                                 name.empty() ? fmt::format("UNKNOWN_0x{:03x}", c.code) : std::string(name));
  std::string f = fields(c);
  if (!f.empty()) text += " " + f;
  return text;
}

std::string disassemble(std::span<const Command> commands, Product product) {
  std::string out;
  for (const Command& c : commands) {
    out += disassembleCommand(c, product);
    out += '\n';
  }
  return out;
}

}  // namespace openvgf::runner::ethosu
