// SPDX-License-Identifier: Apache-2.0
// The Ethos-U85 register table (specs/ethosu.md §1.2-1.5, U85 columns; field layouts of the
// core driver's ethosu85_interface.h, architecture 2.0.0).
#include "ethosu/register_fields.h"

namespace openvgf::ethosu {
namespace {

using namespace tables;
using namespace cmd0;
using namespace cmd1;

constexpr std::array kPoolMode = {FieldValue{0, "MAX"},  FieldValue{1, "AVERAGE"}, FieldValue{2, "REDUCE_SUM"},
                                  FieldValue{3, "SUM"},  FieldValue{4, "NONE"},    FieldValue{5, "MIN"},
                                  FieldValue{6, "ARGMAX_X"}, FieldValue{7, "ARGMAX_Y"}};
constexpr std::array kElementwiseMode = {
    FieldValue{0, "MUL"},     FieldValue{1, "ADD"},     FieldValue{2, "SUB"},     FieldValue{3, "MIN"},
    FieldValue{4, "MAX"},     FieldValue{5, "LRELU"},   FieldValue{6, "ABS"},     FieldValue{7, "CLZ"},
    FieldValue{8, "SHR"},     FieldValue{9, "SHL"},     FieldValue{10, "LSR"},    FieldValue{11, "DIV"},
    FieldValue{16, "CMP_EQ"}, FieldValue{17, "CMP_NE"}, FieldValue{18, "CMP_GE"}, FieldValue{19, "CMP_GT"},
    FieldValue{33, "AND"},    FieldValue{34, "OR"},     FieldValue{35, "XOR"},    FieldValue{36, "NOT"},
    FieldValue{42, "AND_NOT"}};
constexpr std::array kResizeMode = {FieldValue{0, "BILINEAR"}, FieldValue{1, "REPLICATE"}, FieldValue{2, "NEAREST"}};
constexpr std::array kStorage = {FieldValue{0, "TILE2X2"}, FieldValue{1, "TILE3X1"}, FieldValue{2, "CHAINED"},
                                 FieldValue{3, "NONE"}};
constexpr std::array kBroadcastMode = {FieldValue{0, "NONE"}, FieldValue{1, "H"},   FieldValue{2, "W"},
                                       FieldValue{3, "HW"},   FieldValue{4, "C"},   FieldValue{5, "CH"},
                                       FieldValue{6, "CW"},   FieldValue{7, "CWH"}, FieldValue{8, "SCALAR"}};
constexpr std::array kReverse = {FieldValue{0, "NONE"}, FieldValue{1, "H"}, FieldValue{2, "W"}, FieldValue{3, "C"}};
constexpr std::array kTranspose = {FieldValue{0, "HWC"}, FieldValue{1, "WHC"}, FieldValue{2, "HCW"},
                                   FieldValue{3, "WCH"}, FieldValue{6, "CHW"}, FieldValue{7, "CWH"}};
constexpr std::array kAccFormatValues = {FieldValue{0, "I32"}, FieldValue{1, "I48"}};
constexpr std::array kAccInput = {FieldValue{0, "RESET"}, FieldValue{1, "KEEP"}, FieldValue{2, "IFM2"}};
constexpr std::array kAccOutput = {FieldValue{0, "ENABLE"}, FieldValue{1, "DISABLE"}};
constexpr std::array kMicroblock = {FieldValue{0, "U1X1"}, FieldValue{1, "U1X2"}, FieldValue{2, "U1X4"},
                                    FieldValue{3, "U2X2"}, FieldValue{4, "U2X4"}, FieldValue{5, "U4X4"}};
constexpr std::array kLut = {FieldValue{0, "LUT_NONE"},    FieldValue{1, "LUT_U8_U8"},    FieldValue{4, "LUT_S8_S8"},
                             FieldValue{5, "LUT_S8_S16"},  FieldValue{7, "LUT_S8_S32"},   FieldValue{8, "LUT_S16_S16"},
                             FieldValue{9, "LUT_S16_S32"}, FieldValue{10, "LUT_TANH"},    FieldValue{11, "LUT_SIGMOID"}};
constexpr std::array kClipRange = {FieldValue{0, "B16"}, FieldValue{1, "NONE"}};
constexpr std::array kWeightFormatValues = {FieldValue{0, "SWD"}, FieldValue{1, "FWD"}};
constexpr std::array kSparsity = {FieldValue{0, "NONE"}, FieldValue{1, "SPARSE_2_4"}};
constexpr std::array kIdxMode = {FieldValue{0, "DISABLED"}, FieldValue{1, "ENABLED"}};
constexpr std::array kOfmRound = {FieldValue{0, "DOUBLE_SYMMETRIC"},  FieldValue{1, "NATURAL"},
                                  FieldValue{2, "DOUBLE_ASYMMETRIC"}, FieldValue{3, "SYMMETRIC"},
                                  FieldValue{4, "TRUNCATE_TO_ZERO"},  FieldValue{5, "TRUNCATE_TO_LOWER"}};
constexpr std::array kIfmRound = {FieldValue{0, "DOUBLE_SYMMETRIC"}, FieldValue{1, "NATURAL"}};
constexpr std::array kBranchCond = {FieldValue{0, "ALWAYS"}, FieldValue{1, "RF_TRUE"}};

constexpr std::array kConv = {field("weights_ifm2", 0, 1, FieldKind::Flag)};
constexpr std::array kPool = {enumField("mode", 0, 3, kPoolMode)};
constexpr std::array kElementwise = {enumField("mode", 0, 6, kElementwiseMode)};
constexpr std::array kResize = {enumField("mode", 0, 2, kResizeMode)};
constexpr std::array kDmaWait = {field("k", 0, 2)};
constexpr std::array kKernelWait = {field("n", 0, 1)};
constexpr std::array kPmuMask = {field("enable", 0, 1)};
constexpr std::array kIfmPrecisionFields = {enumField("type", 0, 1, kSignedness), enumField("precision", 2, 2, kPrecision),
                                      enumField("format", 6, 2, kFormat), enumField("storage", 14, 2, kStorage)};
constexpr std::array kOfmPrecisionFields = {enumField("type", 0, 1, kSignedness),   enumField("precision", 1, 2, kPrecision),
                                      enumField("format", 6, 2, kFormat),     enumField("scale_mode", 8, 1, kOfmScaleMode),
                                      enumField("reverse", 9, 2, kReverse),   enumField("transpose", 11, 3, kTranspose),
                                      enumField("storage", 14, 2, kStorage)};
constexpr std::array kUpscaleFields = {enumField("mode", 0, 2, kUpscale)};
constexpr std::array kBroadcast = {enumField("mode", 0, 4, kBroadcastMode)};
constexpr std::array kRegion = {field("region", 0, 3)};
constexpr std::array kBlkWidthHeight = {field("value", 0, 7, FieldKind::SizeM1)};
constexpr std::array kBlkDepth = {field("value", 0, 10, FieldKind::SizeM1)};
constexpr std::array kAcc = {enumField("format", 0, 2, kAccFormatValues), enumField("input", 4, 2, kAccInput),
                             enumField("output", 6, 1, kAccOutput), enumField("microblock", 8, 3, kMicroblock)};
constexpr std::array kActivationFields = {enumField("function", 0, 5, kLut), field("table", 5, 3),
                                          enumField("clip_range", 12, 1, kClipRange)};
constexpr std::array kResizeScale = {field("value", 0, 11, FieldKind::SizeM1)};
constexpr std::array kResizeOffset = {field("value", 0, 12, FieldKind::Signed)};
constexpr std::array kWeightFormatFields = {enumField("format", 0, 1, kWeightFormatValues),
                                            enumField("sparsity", 4, 1, kSparsity)};
constexpr std::array kBlockDepFields = {field("value", 0, 3)};
constexpr std::array kDmaSrcRegionFields = {field("region", 0, 3), enumField("region_mode", 8, 1, kRegionMode),
                                            enumField("stride_mode", 9, 2, kStrideMode),
                                            enumField("idx_mode", 11, 1, kIdxMode)};
constexpr std::array kDmaDstRegionFields = {field("region", 0, 3), enumField("region_mode", 8, 1, kRegionMode),
                                            enumField("idx_mode", 11, 1, kIdxMode)};
constexpr std::array kSize16 = {field("value", 0, 16)};
constexpr std::array kOfmScaleFields = {field("shift", 0, 6), field("dbl_rnd", 6, 5), enumField("round_mode", 13, 3, kOfmRound),
                                  field("scale", 16, 31)};
constexpr std::array kIfmScaleFields = {field("shift", 0, 6), field("dbl_rnd", 6, 5), enumField("round_mode", 13, 1, kIfmRound),
                                  field("scale", 16, 31)};
constexpr std::array kScalar = {field("value", 16, 32, FieldKind::Signed)};
constexpr std::array kIdxMax = {field("value", 16, 31)};
constexpr std::array kResizeStep = {field("one_step_int", 0, 4), field("blk_step_int", 4, 11),
                                    field("one_step_mod", 16, 11), field("blk_step_mod", 32, 11)};
constexpr std::array kBranch = {enumField("cond", 0, 1, kBranchCond), field("target", 16, 32)};

// clang-format off
constexpr std::array kU85 = {
    reg0(kOpStop, "NPU_OP_STOP", kMask16), reg0(kOpIrq, "NPU_OP_IRQ", kMask16), reg0(kOpConv, "NPU_OP_CONV", kConv),
    reg0(kOpDepthwise, "NPU_OP_DEPTHWISE", kNoFields), reg0(kOpPool, "NPU_OP_POOL", kPool),
    reg0(kOpElementwise, "NPU_OP_ELEMENTWISE", kElementwise), reg0(kOpResize, "NPU_OP_RESIZE", kResize),
    reg0(kOpDmaStart, "NPU_OP_DMA_START", kNoFields), reg0(kOpDmaWait, "NPU_OP_DMA_WAIT", kDmaWait),
    reg0(kOpKernelWait, "NPU_OP_KERNEL_WAIT", kKernelWait), reg0(kOpPmuMask, "NPU_OP_PMU_MASK", kPmuMask),
    reg0(kIfmPadTop, "NPU_SET_IFM_PAD_TOP", kPadSmall), reg0(kIfmPadLeft, "NPU_SET_IFM_PAD_LEFT", kPadSmall),
    reg0(kIfmPadRight, "NPU_SET_IFM_PAD_RIGHT", kPadLarge), reg0(kIfmPadBottom, "NPU_SET_IFM_PAD_BOTTOM", kPadLarge),
    reg0(kIfmDepthM1, "NPU_SET_IFM_DEPTH_M1", kSizeM1), reg0(kIfmPrecision, "NPU_SET_IFM_PRECISION", kIfmPrecisionFields),
    reg0(kIfmUpscale, "NPU_SET_IFM_UPSCALE", kUpscaleFields), reg0(kIfmBroadcast, "NPU_SET_IFM_BROADCAST", kBroadcast),
    reg0(kIfmZeroPoint, "NPU_SET_IFM_ZERO_POINT", kSigned16),
    reg0(kIfmWidth0M1, "NPU_SET_IFM_WIDTH0_M1", kSizeM1), reg0(kIfmHeight0M1, "NPU_SET_IFM_HEIGHT0_M1", kSizeM1),
    reg0(kIfmHeight1M1, "NPU_SET_IFM_HEIGHT1_M1", kSizeM1), reg0(kIfmRegion, "NPU_SET_IFM_REGION", kRegion),
    reg0(kOfmWidthM1, "NPU_SET_OFM_WIDTH_M1", kSizeM1), reg0(kOfmHeightM1, "NPU_SET_OFM_HEIGHT_M1", kSizeM1),
    reg0(kOfmDepthM1, "NPU_SET_OFM_DEPTH_M1", kSizeM1), reg0(kOfmPrecision, "NPU_SET_OFM_PRECISION", kOfmPrecisionFields),
    reg0(kOfmBlkWidthM1, "NPU_SET_OFM_BLK_WIDTH_M1", kBlkWidthHeight),
    reg0(kOfmBlkHeightM1, "NPU_SET_OFM_BLK_HEIGHT_M1", kBlkWidthHeight),
    reg0(kOfmBlkDepthM1, "NPU_SET_OFM_BLK_DEPTH_M1", kBlkDepth), reg0(kOfmZeroPoint, "NPU_SET_OFM_ZERO_POINT", kSigned16),
    reg0(kOfmWidth0M1, "NPU_SET_OFM_WIDTH0_M1", kSizeM1), reg0(kOfmHeight0M1, "NPU_SET_OFM_HEIGHT0_M1", kSizeM1),
    reg0(kOfmHeight1M1, "NPU_SET_OFM_HEIGHT1_M1", kSizeM1), reg0(kOfmRegion, "NPU_SET_OFM_REGION", kRegion),
    reg0(kKernelWidthM1, "NPU_SET_KERNEL_WIDTH_M1", kSizeM1), reg0(kKernelHeightM1, "NPU_SET_KERNEL_HEIGHT_M1", kSizeM1),
    reg0(kKernelStride, "NPU_SET_KERNEL_STRIDE", kKernelStrideFields), reg0(kAccFormat, "NPU_SET_ACC_FORMAT", kAcc),
    reg0(kActivation, "NPU_SET_ACTIVATION", kActivationFields),
    reg0(kActivationMin, "NPU_SET_ACTIVATION_MIN", kSigned16), reg0(kActivationMax, "NPU_SET_ACTIVATION_MAX", kSigned16),
    reg0(kWeightRegion, "NPU_SET_WEIGHT_REGION", kRegion), reg0(kScaleRegion, "NPU_SET_SCALE_REGION", kRegion),
    reg0(kResizeXScaleNM1, "NPU_SET_RESIZE_X_SCALE_N_M1", kResizeScale),
    reg0(kResizeYScaleNM1, "NPU_SET_RESIZE_Y_SCALE_N_M1", kResizeScale),
    reg0(kResizeXOffset, "NPU_SET_RESIZE_X_OFFSET", kResizeOffset),
    reg0(kResizeYOffset, "NPU_SET_RESIZE_Y_OFFSET", kResizeOffset),
    reg0(kWeightFormat, "NPU_SET_WEIGHT_FORMAT", kWeightFormatFields), reg0(kBlockDep, "NPU_SET_BLOCKDEP", kBlockDepFields),
    reg0(kDmaSrcRegion, "NPU_SET_DMA0_SRC_REGION", kDmaSrcRegionFields),
    reg0(kDmaDstRegion, "NPU_SET_DMA0_DST_REGION", kDmaDstRegionFields),
    reg0(kDmaSize0, "NPU_SET_DMA0_SIZE0", kSize16), reg0(kDmaSize1, "NPU_SET_DMA0_SIZE1", kSize16),
    reg0(kDmaIdxRegion, "NPU_SET_DMA0_IDX_REGION", kRegion),
    reg0(kIfm2Broadcast, "NPU_SET_IFM2_BROADCAST", kBroadcast),
    reg0(kIfm2Precision, "NPU_SET_IFM2_PRECISION", kIfmPrecisionFields),
    reg0(kIfm2ZeroPoint, "NPU_SET_IFM2_ZERO_POINT", kSigned16),
    reg0(kIfm2Width0M1, "NPU_SET_IFM2_WIDTH0_M1", kSizeM1), reg0(kIfm2Height0M1, "NPU_SET_IFM2_HEIGHT0_M1", kSizeM1),
    reg0(kIfm2Height1M1, "NPU_SET_IFM2_HEIGHT1_M1", kSizeM1), reg0(kIfm2Region, "NPU_SET_IFM2_REGION", kRegion),
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
    reg1(kOfmScale, "NPU_SET_OFM_SCALE", kOfmScaleFields), reg1(kIfmScale, "NPU_SET_IFM_SCALE", kIfmScaleFields),
    reg1(kIfm2Scale, "NPU_SET_IFM2_SCALE", kIfmScaleFields), reg1(kOpScalar, "NPU_SET_OP_SCALAR", kScalar),
    address(kDmaSrc, "NPU_SET_DMA0_SRC"), address(kDmaDst, "NPU_SET_DMA0_DST"), address(kDmaLen, "NPU_SET_DMA0_LEN"),
    address(kDmaSrcStride0, "NPU_SET_DMA0_SRC_STRIDE0"), address(kDmaSrcStride1, "NPU_SET_DMA0_SRC_STRIDE1"),
    address(kDmaDstStride0, "NPU_SET_DMA0_DST_STRIDE0"), address(kDmaDstStride1, "NPU_SET_DMA0_DST_STRIDE1"),
    address(kDmaIdx, "NPU_SET_DMA0_IDX"), reg1(kDmaIdxMax, "NPU_SET_DMA0_IDX_MAX", kIdxMax),
    address(kDmaIdxSkip1, "NPU_SET_DMA0_IDX_SKIP1"),
    address(kIfm2Base0, "NPU_SET_IFM2_BASE0"), address(kIfm2Base0 + 1, "NPU_SET_IFM2_BASE1"),
    address(kIfm2Base0 + 2, "NPU_SET_IFM2_BASE2"), address(kIfm2Base0 + 3, "NPU_SET_IFM2_BASE3"),
    address(kIfm2StrideX, "NPU_SET_IFM2_STRIDE_X"), address(kIfm2StrideY, "NPU_SET_IFM2_STRIDE_Y"),
    address(kIfm2StrideC, "NPU_SET_IFM2_STRIDE_C"),
    address(kWeight1Base, "NPU_SET_WEIGHT1_BASE"), reg1(kWeight1Length, "NPU_SET_WEIGHT1_LENGTH", kLength32),
    address(kWeight2Base, "NPU_SET_WEIGHT2_BASE"), reg1(kWeight2Length, "NPU_SET_WEIGHT2_LENGTH", kLength32),
    address(kWeight3Base, "NPU_SET_WEIGHT3_BASE"), reg1(kWeight3Length, "NPU_SET_WEIGHT3_LENGTH", kLength32),
    reg1(kResizeX, "NPU_SET_RESIZE_X", kResizeStep), reg1(kResizeY, "NPU_SET_RESIZE_Y", kResizeStep),
    reg1(kOpBranch, "NPU_OP_BRANCH", kBranch),
};
// clang-format on

}  // namespace

const RegisterInfo* findU85Register(std::uint16_t code, bool isCmd1) {
  for (const RegisterInfo& info : kU85) {
    if (info.code == code && info.isCmd1 == isCmd1) return &info;
  }
  return nullptr;
}

}  // namespace openvgf::ethosu
