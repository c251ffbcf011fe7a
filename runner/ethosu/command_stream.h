// SPDX-License-Identifier: Apache-2.0
// Ethos-U55/U65 register command stream: opcode numbering, one decoded command per header
// word (+ payload word for cmd1), and the decoder that turns little-endian stream bytes into
// commands. The decoder validates every command against the register's field layout
// (specs/ethosu.md §1.2-1.4) so that later stages (register file, simulator, disassembler)
// can trust opcode and field ranges; every error names the command index and word offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace openvgf::runner::ethosu {

/// Which register map the stream is meant for. U55 and U65 share numbering except for a few
/// U65-only registers (PARALLEL_MODE, DMA0_SKIP0/1) and the 40-bit address high byte.
enum class Product : std::uint8_t { U55 = 0, U65 = 1 };

/// cmd0 opcodes (one-word commands, everything in the 16-bit param).
namespace cmd0 {
inline constexpr std::uint16_t kOpStop = 0x000;
inline constexpr std::uint16_t kOpIrq = 0x001;
inline constexpr std::uint16_t kOpConv = 0x002;
inline constexpr std::uint16_t kOpDepthwise = 0x003;
inline constexpr std::uint16_t kOpPool = 0x005;
inline constexpr std::uint16_t kOpElementwise = 0x006;
inline constexpr std::uint16_t kOpDmaStart = 0x010;
inline constexpr std::uint16_t kOpDmaWait = 0x011;
inline constexpr std::uint16_t kOpKernelWait = 0x012;
inline constexpr std::uint16_t kOpPmuMask = 0x013;
inline constexpr std::uint16_t kIfmPadTop = 0x100;
inline constexpr std::uint16_t kIfmPadLeft = 0x101;
inline constexpr std::uint16_t kIfmPadRight = 0x102;
inline constexpr std::uint16_t kIfmPadBottom = 0x103;
inline constexpr std::uint16_t kIfmDepthM1 = 0x104;
inline constexpr std::uint16_t kIfmPrecision = 0x105;
inline constexpr std::uint16_t kIfmUpscale = 0x107;
inline constexpr std::uint16_t kIfmZeroPoint = 0x109;
inline constexpr std::uint16_t kIfmWidth0M1 = 0x10A;
inline constexpr std::uint16_t kIfmHeight0M1 = 0x10B;
inline constexpr std::uint16_t kIfmHeight1M1 = 0x10C;
inline constexpr std::uint16_t kIfmIbEnd = 0x10D;
inline constexpr std::uint16_t kIfmRegion = 0x10F;
inline constexpr std::uint16_t kOfmWidthM1 = 0x111;
inline constexpr std::uint16_t kOfmHeightM1 = 0x112;
inline constexpr std::uint16_t kOfmDepthM1 = 0x113;
inline constexpr std::uint16_t kOfmPrecision = 0x114;
inline constexpr std::uint16_t kOfmBlkWidthM1 = 0x115;
inline constexpr std::uint16_t kOfmBlkHeightM1 = 0x116;
inline constexpr std::uint16_t kOfmBlkDepthM1 = 0x117;
inline constexpr std::uint16_t kOfmZeroPoint = 0x118;
inline constexpr std::uint16_t kOfmWidth0M1 = 0x11A;
inline constexpr std::uint16_t kOfmHeight0M1 = 0x11B;
inline constexpr std::uint16_t kOfmHeight1M1 = 0x11C;
inline constexpr std::uint16_t kOfmRegion = 0x11F;
inline constexpr std::uint16_t kKernelWidthM1 = 0x120;
inline constexpr std::uint16_t kKernelHeightM1 = 0x121;
inline constexpr std::uint16_t kKernelStride = 0x122;
inline constexpr std::uint16_t kParallelMode = 0x123;
inline constexpr std::uint16_t kAccFormat = 0x124;
inline constexpr std::uint16_t kActivation = 0x125;
inline constexpr std::uint16_t kActivationMin = 0x126;
inline constexpr std::uint16_t kActivationMax = 0x127;
inline constexpr std::uint16_t kWeightRegion = 0x128;
inline constexpr std::uint16_t kScaleRegion = 0x129;
inline constexpr std::uint16_t kAbStart = 0x12D;
inline constexpr std::uint16_t kBlockDep = 0x12F;
inline constexpr std::uint16_t kDmaSrcRegion = 0x130;
inline constexpr std::uint16_t kDmaDstRegion = 0x131;
inline constexpr std::uint16_t kDmaSize0 = 0x132;
inline constexpr std::uint16_t kDmaSize1 = 0x133;
inline constexpr std::uint16_t kIfm2Broadcast = 0x180;
inline constexpr std::uint16_t kIfm2Scalar = 0x181;
inline constexpr std::uint16_t kIfm2Precision = 0x185;
inline constexpr std::uint16_t kIfm2ZeroPoint = 0x189;
inline constexpr std::uint16_t kIfm2Width0M1 = 0x18A;
inline constexpr std::uint16_t kIfm2Height0M1 = 0x18B;
inline constexpr std::uint16_t kIfm2Height1M1 = 0x18C;
inline constexpr std::uint16_t kIfm2IbStart = 0x18D;
inline constexpr std::uint16_t kIfm2Region = 0x18F;
}  // namespace cmd0

/// cmd1 opcodes (header word 0x4000 | code, then a 32-bit payload word).
namespace cmd1 {
inline constexpr std::uint16_t kIfmBase0 = 0x000;  // ..0x003
inline constexpr std::uint16_t kIfmStrideX = 0x004;
inline constexpr std::uint16_t kIfmStrideY = 0x005;
inline constexpr std::uint16_t kIfmStrideC = 0x006;
inline constexpr std::uint16_t kOfmBase0 = 0x010;  // ..0x013
inline constexpr std::uint16_t kOfmStrideX = 0x014;
inline constexpr std::uint16_t kOfmStrideY = 0x015;
inline constexpr std::uint16_t kOfmStrideC = 0x016;
inline constexpr std::uint16_t kWeightBase = 0x020;
inline constexpr std::uint16_t kWeightLength = 0x021;
inline constexpr std::uint16_t kScaleBase = 0x022;
inline constexpr std::uint16_t kScaleLength = 0x023;
inline constexpr std::uint16_t kOfmScale = 0x024;
inline constexpr std::uint16_t kOpaScale = 0x025;
inline constexpr std::uint16_t kOpbScale = 0x026;
inline constexpr std::uint16_t kDmaSrc = 0x030;
inline constexpr std::uint16_t kDmaDst = 0x031;
inline constexpr std::uint16_t kDmaLen = 0x032;
inline constexpr std::uint16_t kDmaSkip0 = 0x033;
inline constexpr std::uint16_t kDmaSkip1 = 0x034;
inline constexpr std::uint16_t kIfm2Base0 = 0x080;  // ..0x083
inline constexpr std::uint16_t kIfm2StrideX = 0x084;
inline constexpr std::uint16_t kIfm2StrideY = 0x085;
inline constexpr std::uint16_t kIfm2StrideC = 0x086;
inline constexpr std::uint16_t kWeight1Base = 0x090;
inline constexpr std::uint16_t kWeight1Length = 0x091;
inline constexpr std::uint16_t kScale1Base = 0x092;
inline constexpr std::uint16_t kScale1Length = 0x093;
inline constexpr std::uint16_t kUserDefined0 = 0x0A0;  // ..0x0A7
}  // namespace cmd1

/// One command as it appears in the stream.
struct Command {
  std::uint32_t index = 0;       ///< position in the stream (0-based command count)
  std::uint32_t wordOffset = 0;  ///< offset of the header word, in 32-bit words
  std::uint16_t code = 0;        ///< opcode, bits 0..9 of the header
  bool isCmd1 = false;           ///< a payload word follows
  std::uint16_t param = 0;       ///< bits 16..31 of the header
  std::uint32_t data = 0;        ///< payload word (cmd1 only)

  bool operator==(const Command&) const = default;
};

/// Register name ("NPU_SET_IFM_REGION"); empty for a code that is not a register on `product`.
std::string_view commandName(std::uint16_t code, bool isCmd1, Product product);

/// True for the NPU_OP_* commands that start work (as opposed to NPU_SET_* register writes).
bool isOperation(const Command& command);

/// Decodes a stream of 32-bit little-endian words. Rejects a byte count that is not a multiple
/// of 4, a header with reserved bits 10..13 set, an unknown opcode, a truncated cmd1 and any
/// field value outside its register's range. `name` prefixes error messages.
Result<std::vector<Command>> decodeCommandStream(std::span<const std::uint8_t> bytes,
                                                 Product product, std::string_view name = "command stream");

/// Checks one command's param/data against its register's field layout.
Status validateCommand(const Command& command, Product product);

/// Encodes commands back into words (the inverse of decodeCommandStream).
std::vector<std::uint32_t> encodeCommands(std::span<const Command> commands);

}  // namespace openvgf::runner::ethosu
