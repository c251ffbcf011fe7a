// SPDX-License-Identifier: Apache-2.0
// The Ethos-U55/U65 register table (specs/ethosu.md §1.2-1.4; U55 arch 1.1, U65 arch 1.0.6)
// and the product dispatch of the lookups.
#include "ethosu/registers.h"

#include "ethosu/register_fields.h"

namespace openvgf::ethosu {
namespace {

using namespace tables;
using namespace cmd0;
using namespace cmd1;

constexpr std::array kPoolMode = {FieldValue{0, "MAX"}, FieldValue{1, "AVERAGE"}, FieldValue{2, "REDUCE_SUM"}};
constexpr std::array kElementwiseMode = {FieldValue{0, "MUL"}, FieldValue{1, "ADD"}, FieldValue{2, "SUB"},
                                         FieldValue{3, "MIN"}, FieldValue{4, "MAX"}, FieldValue{5, "LRELU"},
                                         FieldValue{6, "ABS"}, FieldValue{7, "CLZ"}, FieldValue{8, "SHR"},
                                         FieldValue{9, "SHL"}};
constexpr std::array kIfmScaleMode = {FieldValue{0, "OPA_OPB_16"}, FieldValue{1, "OPA_32"}, FieldValue{2, "OPB_32"}};
constexpr std::array kRound = {FieldValue{0, "DBL"}, FieldValue{1, "TRUNCATE"}, FieldValue{2, "NATURAL"}};
constexpr std::array kAccFormatValues = {FieldValue{0, "I32"}, FieldValue{1, "I40"}, FieldValue{2, "F16"}};
constexpr std::array kActivationValues = {
    FieldValue{0, "NONE"},     FieldValue{3, "TANH"},     FieldValue{4, "SIGMOID"},  FieldValue{16, "TABLE_0"},
    FieldValue{17, "TABLE_1"}, FieldValue{18, "TABLE_2"}, FieldValue{19, "TABLE_3"}, FieldValue{20, "TABLE_4"},
    FieldValue{21, "TABLE_5"}, FieldValue{22, "TABLE_6"}, FieldValue{23, "TABLE_7"}};
constexpr std::array kClipRange = {FieldValue{0, "OFM_PRECISION"}, FieldValue{2, "FORCE_UINT8"},
                                   FieldValue{3, "FORCE_INT8"}, FieldValue{5, "FORCE_INT16"}};
constexpr std::array kParallelModeValues = {FieldValue{0, "SINGLE_CORE"}, FieldValue{1, "DUAL_CORE_DEPTH"}};
constexpr std::array kOperandOrder = {FieldValue{0, "IFM_IFM2"}, FieldValue{1, "IFM2_IFM"}};

constexpr std::array kPool = {enumField("mode", 0, 3, kPoolMode)};
constexpr std::array kElementwise = {enumField("mode", 0, 6, kElementwiseMode)};
constexpr std::array kDmaWait = {field("k", 0, 4)};
constexpr std::array kKernelWait = {field("n", 0, 2)};
constexpr std::array kPmuMask = {field("enable", 0, 1)};
constexpr std::array kIfmPrecisionFields = {enumField("type", 0, 1, kSignedness), enumField("precision", 2, 2, kPrecision),
                                      enumField("format", 6, 2, kFormat), enumField("scale_mode", 8, 2, kIfmScaleMode),
                                      enumField("round_mode", 14, 2, kRound)};
constexpr std::array kOfmPrecisionFields = {enumField("type", 0, 1, kSignedness), enumField("precision", 1, 2, kPrecision),
                                      enumField("format", 6, 2, kFormat), enumField("scale_mode", 8, 1, kOfmScaleMode),
                                      enumField("round_mode", 14, 2, kRound)};
constexpr std::array kIfm2PrecisionFields = {enumField("type", 0, 1, kSignedness), enumField("precision", 2, 2, kPrecision),
                                       enumField("format", 6, 2, kFormat)};
constexpr std::array kUpscaleFields = {enumField("mode", 0, 2, kUpscale)};
constexpr std::array kShramKb = {field("kb", 0, 6)};
constexpr std::array kRegion = {field("region", 0, 3), field("custom_dma_cs", 15, 1, FieldKind::Flag)};
constexpr std::array kBlkWidth = {field("value", 0, 6, FieldKind::SizeM1)};
constexpr std::array kBlkHeight = {field("value", 0, 5, FieldKind::SizeM1)};
constexpr std::array kBlkDepth = {field("value", 0, 7, FieldKind::SizeM1)};
constexpr std::array kParallel = {enumField("mode", 0, 1, kParallelModeValues)};
constexpr std::array kAcc = {enumField("format", 0, 2, kAccFormatValues)};
constexpr std::array kActivationFields = {enumField("function", 0, 5, kActivationValues),
                                          enumField("clip_range", 12, 3, kClipRange)};
constexpr std::array kBlockDepFields = {field("value", 0, 2)};
constexpr std::array kDmaRegionU55 = {field("region", 0, 3), enumField("region_mode", 8, 1, kRegionMode),
                                      enumField("stride_mode", 9, 2, kStrideMode1D)};
constexpr std::array kDmaRegionU65 = {field("region", 0, 3), enumField("region_mode", 8, 1, kRegionMode),
                                      enumField("stride_mode", 9, 2, kStrideMode)};
constexpr std::array kSize16 = {field("value", 0, 16)};
constexpr std::array kIfm2BroadcastFields = {field("h", 0, 1), field("w", 1, 1), field("c", 2, 1),
                                       enumField("operand_order", 6, 1, kOperandOrder),
                                       field("scalar", 7, 1, FieldKind::Flag)};
constexpr std::array kScaleShift = {field("shift", 0, 6), field("scale", 16, 32)};
constexpr std::array kOpbScaleFields = {field("scale", 16, 16)};
constexpr std::array kValue32 = {field("value", 16, 32)};

// clang-format off
constexpr std::array kCommon = {
    reg0(kOpStop, "NPU_OP_STOP", kMask16), reg0(kOpIrq, "NPU_OP_IRQ", kMask16),
    reg0(kOpConv, "NPU_OP_CONV", kNoFields), reg0(kOpDepthwise, "NPU_OP_DEPTHWISE", kNoFields),
    reg0(kOpPool, "NPU_OP_POOL", kPool), reg0(kOpElementwise, "NPU_OP_ELEMENTWISE", kElementwise),
    reg0(kOpDmaStart, "NPU_OP_DMA_START", kNoFields), reg0(kOpDmaWait, "NPU_OP_DMA_WAIT", kDmaWait),
    reg0(kOpKernelWait, "NPU_OP_KERNEL_WAIT", kKernelWait), reg0(kOpPmuMask, "NPU_OP_PMU_MASK", kPmuMask),
    reg0(kIfmPadTop, "NPU_SET_IFM_PAD_TOP", kPadSmall), reg0(kIfmPadLeft, "NPU_SET_IFM_PAD_LEFT", kPadSmall),
    reg0(kIfmPadRight, "NPU_SET_IFM_PAD_RIGHT", kPadLarge), reg0(kIfmPadBottom, "NPU_SET_IFM_PAD_BOTTOM", kPadLarge),
    reg0(kIfmDepthM1, "NPU_SET_IFM_DEPTH_M1", kSizeM1), reg0(kIfmPrecision, "NPU_SET_IFM_PRECISION", kIfmPrecisionFields),
    reg0(kIfmUpscale, "NPU_SET_IFM_UPSCALE", kUpscaleFields), reg0(kIfmZeroPoint, "NPU_SET_IFM_ZERO_POINT", kSigned16),
    reg0(kIfmWidth0M1, "NPU_SET_IFM_WIDTH0_M1", kSizeM1), reg0(kIfmHeight0M1, "NPU_SET_IFM_HEIGHT0_M1", kSizeM1),
    reg0(kIfmHeight1M1, "NPU_SET_IFM_HEIGHT1_M1", kSizeM1), reg0(kIfmIbEnd, "NPU_SET_IFM_IB_END", kShramKb),
    reg0(kIfmRegion, "NPU_SET_IFM_REGION", kRegion),
    reg0(kOfmWidthM1, "NPU_SET_OFM_WIDTH_M1", kSizeM1), reg0(kOfmHeightM1, "NPU_SET_OFM_HEIGHT_M1", kSizeM1),
    reg0(kOfmDepthM1, "NPU_SET_OFM_DEPTH_M1", kSizeM1), reg0(kOfmPrecision, "NPU_SET_OFM_PRECISION", kOfmPrecisionFields),
    reg0(kOfmBlkWidthM1, "NPU_SET_OFM_BLK_WIDTH_M1", kBlkWidth),
    reg0(kOfmBlkHeightM1, "NPU_SET_OFM_BLK_HEIGHT_M1", kBlkHeight),
    reg0(kOfmBlkDepthM1, "NPU_SET_OFM_BLK_DEPTH_M1", kBlkDepth), reg0(kOfmZeroPoint, "NPU_SET_OFM_ZERO_POINT", kSigned16),
    reg0(kOfmWidth0M1, "NPU_SET_OFM_WIDTH0_M1", kSizeM1), reg0(kOfmHeight0M1, "NPU_SET_OFM_HEIGHT0_M1", kSizeM1),
    reg0(kOfmHeight1M1, "NPU_SET_OFM_HEIGHT1_M1", kSizeM1), reg0(kOfmRegion, "NPU_SET_OFM_REGION", kRegion),
    reg0(kKernelWidthM1, "NPU_SET_KERNEL_WIDTH_M1", kSizeM1), reg0(kKernelHeightM1, "NPU_SET_KERNEL_HEIGHT_M1", kSizeM1),
    reg0(kKernelStride, "NPU_SET_KERNEL_STRIDE", kKernelStrideFields), reg0(kAccFormat, "NPU_SET_ACC_FORMAT", kAcc),
    reg0(kActivation, "NPU_SET_ACTIVATION", kActivationFields),
    reg0(kActivationMin, "NPU_SET_ACTIVATION_MIN", kSigned16), reg0(kActivationMax, "NPU_SET_ACTIVATION_MAX", kSigned16),
    reg0(kWeightRegion, "NPU_SET_WEIGHT_REGION", kRegion), reg0(kScaleRegion, "NPU_SET_SCALE_REGION", kRegion),
    reg0(kAbStart, "NPU_SET_AB_START", kShramKb), reg0(kBlockDep, "NPU_SET_BLOCKDEP", kBlockDepFields),
    reg0(kDmaSize0, "NPU_SET_DMA0_SIZE0", kSize16), reg0(kDmaSize1, "NPU_SET_DMA0_SIZE1", kSize16),
    reg0(kIfm2Broadcast, "NPU_SET_IFM2_BROADCAST", kIfm2BroadcastFields), reg0(kIfm2Scalar, "NPU_SET_IFM2_SCALAR", kSigned16),
    reg0(kIfm2Precision, "NPU_SET_IFM2_PRECISION", kIfm2PrecisionFields),
    reg0(kIfm2ZeroPoint, "NPU_SET_IFM2_ZERO_POINT", kSigned16),
    reg0(kIfm2Width0M1, "NPU_SET_IFM2_WIDTH0_M1", kSizeM1), reg0(kIfm2Height0M1, "NPU_SET_IFM2_HEIGHT0_M1", kSizeM1),
    reg0(kIfm2Height1M1, "NPU_SET_IFM2_HEIGHT1_M1", kSizeM1), reg0(kIfm2IbStart, "NPU_SET_IFM2_IB_START", kShramKb),
    reg0(kIfm2Region, "NPU_SET_IFM2_REGION", kRegion),
    address(kIfmBase0, "NPU_SET_IFM_BASE0"), address(kIfmBase0 + 1, "NPU_SET_IFM_BASE1"),
    address(kIfmBase0 + 2, "NPU_SET_IFM_BASE2"), address(kIfmBase0 + 3, "NPU_SET_IFM_BASE3"),
    address(kIfmStrideX, "NPU_SET_IFM_STRIDE_X"), address(kIfmStrideY, "NPU_SET_IFM_STRIDE_Y"),
    address(kIfmStrideC, "NPU_SET_IFM_STRIDE_C"),
    address(kOfmBase0, "NPU_SET_OFM_BASE0"), address(kOfmBase0 + 1, "NPU_SET_OFM_BASE1"),
    address(kOfmBase0 + 2, "NPU_SET_OFM_BASE2"), address(kOfmBase0 + 3, "NPU_SET_OFM_BASE3"),
    address(kOfmStrideX, "NPU_SET_OFM_STRIDE_X"), address(kOfmStrideY, "NPU_SET_OFM_STRIDE_Y"),
    address(kOfmStrideC, "NPU_SET_OFM_STRIDE_C"),
    address(kWeightBase, "NPU_SET_WEIGHT_BASE"), reg1(kWeightLength, "NPU_SET_WEIGHT_LENGTH", kLength32),
    address(kScaleBase, "NPU_SET_SCALE_BASE"), reg1(kScaleLength, "NPU_SET_SCALE_LENGTH", kLength20),
    reg1(kOfmScale, "NPU_SET_OFM_SCALE", kScaleShift), reg1(kOpaScale, "NPU_SET_OPA_SCALE", kScaleShift),
    reg1(kOpbScale, "NPU_SET_OPB_SCALE", kOpbScaleFields),
    address(kDmaSrc, "NPU_SET_DMA0_SRC"), address(kDmaDst, "NPU_SET_DMA0_DST"), address(kDmaLen, "NPU_SET_DMA0_LEN"),
    address(kIfm2Base0, "NPU_SET_IFM2_BASE0"), address(kIfm2Base0 + 1, "NPU_SET_IFM2_BASE1"),
    address(kIfm2Base0 + 2, "NPU_SET_IFM2_BASE2"), address(kIfm2Base0 + 3, "NPU_SET_IFM2_BASE3"),
    address(kIfm2StrideX, "NPU_SET_IFM2_STRIDE_X"), address(kIfm2StrideY, "NPU_SET_IFM2_STRIDE_Y"),
    address(kIfm2StrideC, "NPU_SET_IFM2_STRIDE_C"),
    reg1(kUserDefined0 + 0, "NPU_SET_USER_DEFINED0", kValue32), reg1(kUserDefined0 + 1, "NPU_SET_USER_DEFINED1", kValue32),
    reg1(kUserDefined0 + 2, "NPU_SET_USER_DEFINED2", kValue32), reg1(kUserDefined0 + 3, "NPU_SET_USER_DEFINED3", kValue32),
    reg1(kUserDefined0 + 4, "NPU_SET_USER_DEFINED4", kValue32), reg1(kUserDefined0 + 5, "NPU_SET_USER_DEFINED5", kValue32),
    reg1(kUserDefined0 + 6, "NPU_SET_USER_DEFINED6", kValue32), reg1(kUserDefined0 + 7, "NPU_SET_USER_DEFINED7", kValue32),
};
constexpr std::array kU55Only = {
    reg0(kDmaSrcRegion, "NPU_SET_DMA0_SRC_REGION", kDmaRegionU55),
    reg0(kDmaDstRegion, "NPU_SET_DMA0_DST_REGION", kDmaRegionU55),
};
constexpr std::array kU65Only = {
    reg0(kParallelMode, "NPU_SET_PARALLEL_MODE", kParallel),
    reg0(kDmaSrcRegion, "NPU_SET_DMA0_SRC_REGION", kDmaRegionU65),
    reg0(kDmaDstRegion, "NPU_SET_DMA0_DST_REGION", kDmaRegionU65),
    address(kDmaSkip0, "NPU_SET_DMA0_SKIP0"), address(kDmaSkip1, "NPU_SET_DMA0_SKIP1"),
    address(kWeight1Base, "NPU_SET_WEIGHT1_BASE"), reg1(kWeight1Length, "NPU_SET_WEIGHT1_LENGTH", kLength32),
    address(kScale1Base, "NPU_SET_SCALE1_BASE"), reg1(kScale1Length, "NPU_SET_SCALE1_LENGTH", kLength20),
};
// clang-format on

const RegisterInfo* findIn(std::span<const RegisterInfo> table, std::uint16_t code, bool isCmd1) {
  for (const RegisterInfo& info : table) {
    if (info.code == code && info.isCmd1 == isCmd1) return &info;
  }
  return nullptr;
}

}  // namespace

const RegisterInfo* findRegister(Product product, std::uint16_t code, bool isCmd1) {
  if (product == Product::U85) return findU85Register(code, isCmd1);
  const RegisterInfo* info = findIn(product == Product::U65 ? std::span<const RegisterInfo>(kU65Only) : kU55Only, code, isCmd1);
  return info ? info : findIn(kCommon, code, isCmd1);
}

std::string_view commandName(Product product, std::uint16_t code, bool isCmd1) {
  const RegisterInfo* info = findRegister(product, code, isCmd1);
  return info ? info->name : std::string_view{};
}

bool isOperationCode(std::uint16_t code, bool isCmd1) { return isCmd1 ? code == cmd1::kOpBranch : code < 0x100; }

}  // namespace openvgf::ethosu
