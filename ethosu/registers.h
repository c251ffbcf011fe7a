// SPDX-License-Identifier: Apache-2.0
// Ethos-U55/U65/U85 command opcodes and, per product, one table that describes every
// register: its name, the fields of its 16-bit param (and of the payload word for cmd1
// commands), their enumerated values and limits (specs/ethosu.md §1.2-1.5; U85 from
// ethosu85_interface.h, arch 2.0.0). The decoder validates against the table and the
// disassembler prints from it, so a field is described in one place only.
//
// Several codes mean different things on different products (0x12D AB_START on U55/U65 is
// RESIZE_Y_OFFSET on U85, cmd1 0x092 SCALE1_BASE is WEIGHT2_BASE, 0x025 OPA_SCALE is
// IFM_SCALE ...): every lookup takes the product.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ethosu/accelerator.h"

namespace openvgf::ethosu {

/// cmd0 opcodes (one-word commands, everything in the 16-bit param).
namespace cmd0 {
inline constexpr std::uint16_t kOpStop = 0x000, kOpIrq = 0x001, kOpConv = 0x002, kOpDepthwise = 0x003, kOpPool = 0x005,
                               kOpElementwise = 0x006, kOpResize = 0x007 /* U85 */, kOpDmaStart = 0x010,
                               kOpDmaWait = 0x011, kOpKernelWait = 0x012, kOpPmuMask = 0x013;
inline constexpr std::uint16_t kIfmPadTop = 0x100, kIfmPadLeft = 0x101, kIfmPadRight = 0x102, kIfmPadBottom = 0x103,
                               kIfmDepthM1 = 0x104, kIfmPrecision = 0x105, kIfmUpscale = 0x107,
                               kIfmBroadcast = 0x108 /* U85 */, kIfmZeroPoint = 0x109, kIfmWidth0M1 = 0x10A,
                               kIfmHeight0M1 = 0x10B, kIfmHeight1M1 = 0x10C, kIfmIbEnd = 0x10D /* U55/U65 */,
                               kIfmRegion = 0x10F;
inline constexpr std::uint16_t kOfmWidthM1 = 0x111, kOfmHeightM1 = 0x112, kOfmDepthM1 = 0x113, kOfmPrecision = 0x114,
                               kOfmBlkWidthM1 = 0x115, kOfmBlkHeightM1 = 0x116, kOfmBlkDepthM1 = 0x117,
                               kOfmZeroPoint = 0x118, kOfmWidth0M1 = 0x11A, kOfmHeight0M1 = 0x11B, kOfmHeight1M1 = 0x11C,
                               kOfmRegion = 0x11F;
inline constexpr std::uint16_t kKernelWidthM1 = 0x120, kKernelHeightM1 = 0x121, kKernelStride = 0x122,
                               kParallelMode = 0x123 /* U65 */, kAccFormat = 0x124, kActivation = 0x125,
                               kActivationMin = 0x126, kActivationMax = 0x127, kWeightRegion = 0x128,
                               kScaleRegion = 0x129;
// U85 resize registers; 0x12D is AB_START on U55/U65.
inline constexpr std::uint16_t kResizeXScaleNM1 = 0x12A, kResizeYScaleNM1 = 0x12B, kResizeXOffset = 0x12C,
                               kResizeYOffset = 0x12D, kAbStart = 0x12D, kWeightFormat = 0x12E /* U85 */,
                               kBlockDep = 0x12F;
inline constexpr std::uint16_t kDmaSrcRegion = 0x130, kDmaDstRegion = 0x131, kDmaSize0 = 0x132, kDmaSize1 = 0x133,
                               kDmaIdxRegion = 0x134 /* U85 */;
inline constexpr std::uint16_t kIfm2Broadcast = 0x180, kIfm2Scalar = 0x181 /* U55/U65 */, kIfm2Precision = 0x185,
                               kIfm2ZeroPoint = 0x189, kIfm2Width0M1 = 0x18A, kIfm2Height0M1 = 0x18B,
                               kIfm2Height1M1 = 0x18C, kIfm2IbStart = 0x18D /* U55/U65 */, kIfm2Region = 0x18F;
}  // namespace cmd0

/// cmd1 opcodes (header word 0x4000 | code, then a 32-bit payload word).
namespace cmd1 {
inline constexpr std::uint16_t kIfmBase0 = 0x000 /* ..0x003 */, kIfmStrideX = 0x004, kIfmStrideY = 0x005,
                               kIfmStrideC = 0x006;
inline constexpr std::uint16_t kOfmBase0 = 0x010 /* ..0x013 */, kOfmStrideX = 0x014, kOfmStrideY = 0x015,
                               kOfmStrideC = 0x016;
inline constexpr std::uint16_t kWeightBase = 0x020, kWeightLength = 0x021, kScaleBase = 0x022, kScaleLength = 0x023,
                               kOfmScale = 0x024;
// U55/U65 OPA/OPB scales are the U85 IFM/IFM2 scales; OP_SCALAR is U85 only.
inline constexpr std::uint16_t kOpaScale = 0x025, kIfmScale = 0x025, kOpbScale = 0x026, kIfm2Scale = 0x026,
                               kOpScalar = 0x027;
inline constexpr std::uint16_t kDmaSrc = 0x030, kDmaDst = 0x031, kDmaLen = 0x032;
// U65 skips are the U85 source strides; the rest is U85 only.
inline constexpr std::uint16_t kDmaSkip0 = 0x033, kDmaSkip1 = 0x034, kDmaSrcStride0 = 0x033, kDmaSrcStride1 = 0x034,
                               kDmaDstStride0 = 0x035, kDmaDstStride1 = 0x036, kDmaIdx = 0x037, kDmaIdxMax = 0x038,
                               kDmaIdxSkip1 = 0x039;
inline constexpr std::uint16_t kIfm2Base0 = 0x080 /* ..0x083 */, kIfm2StrideX = 0x084, kIfm2StrideY = 0x085,
                               kIfm2StrideC = 0x086;
// Per-core weight streams: U65 has WEIGHT1 and SCALE1; U85 reuses 0x092/0x093 as WEIGHT2.
inline constexpr std::uint16_t kWeight1Base = 0x090, kWeight1Length = 0x091, kScale1Base = 0x092,
                               kScale1Length = 0x093, kWeight2Base = 0x092, kWeight2Length = 0x093,
                               kWeight3Base = 0x094, kWeight3Length = 0x095;
inline constexpr std::uint16_t kResizeX = 0x096, kResizeY = 0x097;   // U85 step registers
inline constexpr std::uint16_t kUserDefined0 = 0x0A0;                // ..0x0A7, U55 arch 1.1 only
inline constexpr std::uint16_t kOpBranch = 0x100;                    // U85: a cmd1 operation
}  // namespace cmd1

/// One named value of an enumerated field.
struct FieldValue {
  unsigned value;
  std::string_view name;
};

/// How a field's value is shown and checked.
enum class FieldKind : std::uint8_t {
  Unsigned,  ///< a number, at most `max` (0 = no limit beyond the width)
  Signed,    ///< two's complement of the field width
  SizeM1,    ///< stored minus one: shown as "v (v+1)"
  Enum,      ///< one of `values`; anything else is refused by the decoder
  Flag,      ///< one bit shown as its name when set
};

/// A bit field of a command's 48-bit value: the param in bits 0..15 and, for cmd1, the
/// payload word in bits 16..47.
struct FieldInfo {
  std::string_view name;
  std::uint8_t lsb = 0, bits = 0;
  FieldKind kind = FieldKind::Unsigned;
  std::span<const FieldValue> values{};
  std::uint32_t max = 0;
};

/// How a cmd1 payload is read: a byte address / stride / length (with param[7:0] holding
/// bits 39:32 on U65/U85), or by its fields.
enum class PayloadKind : std::uint8_t { None, Address, Fields };

struct RegisterInfo {
  std::uint16_t code = 0;
  bool isCmd1 = false;
  std::string_view name;
  std::span<const FieldInfo> fields{};
  PayloadKind payload = PayloadKind::None;
};

/// The register a command code names on `product`; null when it is not a register there.
const RegisterInfo* findRegister(Product product, std::uint16_t code, bool isCmd1);

/// Register name ("NPU_SET_IFM_REGION"); empty for a code that is not a register there.
std::string_view commandName(Product product, std::uint16_t code, bool isCmd1);

/// The bits of a field in a command value (param | data << 16).
inline std::uint64_t fieldBits(std::uint64_t value, const FieldInfo& f) {
  return (value >> f.lsb) & ((std::uint64_t{1} << f.bits) - 1);
}

/// True for the commands that start work (NPU_OP_*: cmd0 codes below 0x100, and the U85's
/// cmd1 NPU_OP_BRANCH) as opposed to register writes.
bool isOperationCode(std::uint16_t code, bool isCmd1);

/// The U85 table (registers_u85.cpp); findRegister picks it for Product::U85.
const RegisterInfo* findU85Register(std::uint16_t code, bool isCmd1);

}  // namespace openvgf::ethosu
