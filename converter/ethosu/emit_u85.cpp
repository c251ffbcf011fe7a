// SPDX-License-Identifier: Apache-2.0
// The Ethos-U85 back end of compile(): micro-block and OFM block choice, weight and scale
// streams, and register emission (specs/ethosu.md, U85 columns; register layouts of the
// format library's U85 table). What differs from U55/U65:
// * no SHRAM layout registers; ACC_FORMAT names the accumulator type and the micro-block,
//   which each operation family may only use in the combinations the format library lists;
// * OFM_SCALE carries the rounding mode for every operation (per-channel ones too);
//   elementwise operands are rescaled by IFM_SCALE / IFM2_SCALE (TOSA's input RESCALEs as
//   they are), so an int8 ADD/SUB is one operation; IFM and IFM2 may both broadcast;
// * one weight stream per weight decoder (WEIGHT, WEIGHT1..3) in the U85 weight order, one
//   scale stream of 32-bit-accumulator records for all channels, padded to 16 channels;
// * tables are typed (LUT_S8_S8) and live in the 2 KB LUT RAM, loaded by DMA.
#include <algorithm>

#include "converter/ethosu/stages.h"
#include "ethosu/scale_stream.h"
#include "ethosu/weight_codec.h"
#include "ethosu/weight_order.h"

namespace openvgf::converter::ethosu {
namespace {

using namespace ::openvgf::ethosu;

constexpr int kAccDepthGranule = 16;  // accumulator depth granule
constexpr int kMaxBlockHW = 128, kMaxBlockDepth = 1024;

U85OpFamily familyOf(const NpuOp& op) {
  switch (op.kind) {
    case Kind::Conv: return U85OpFamily::Convolution;
    case Kind::Depthwise: return U85OpFamily::Depthwise;
    case Kind::Pool: return U85OpFamily::Pooling;
    case Kind::Elementwise: break;
  }
  return U85OpFamily::Elementwise;
}

/// The U85 rounding-mode field for TOSA's rounding: DOUBLE_SYMMETRIC with dbl_rnd 0 is
/// TOSA's double rounding, NATURAL its single rounding.
std::uint16_t scaleParam(unsigned shift, bool doubleRound) {
  return static_cast<std::uint16_t>(shift | ((doubleRound ? 0u : 1u) << 13));
}

std::uint16_t ifmPrecision(const View& v) { return static_cast<std::uint16_t>(0x0001 | (precisionCode(v) << 2)); }

const U85WeightLayout weightLayout(const NpuOp& op, const AcceleratorConfig& config, const Block3& ublock) {
  U85WeightLayout l;
  l.ofmDepth = op.weights.ofmDepth;
  l.kernelHeight = op.weights.kernelHeight;
  l.kernelWidth = op.weights.kernelWidth;
  l.ifmDepth = op.weights.ifmDepth;
  l.ofmBlockDepth = op.blkD;
  l.ofmUblockDepth = ublock.d;
  l.strideY = op.sy;
  l.strideX = op.sx;
  l.dilationY = op.dy;
  l.dilationX = op.dx;
  l.macs = config.macs;
  l.cores = config.cores;
  l.traversal = op.kind == Kind::Depthwise ? WeightTraversal::Depthwise : op.weights.traversal;
  l.ifmBlockDepth = u85IfmBlockDepth(l.traversal, 8 * op.ifm.elem, config.macs, ublock.d, false);
  return l;
}

void emitLutLoad(Emitter& e, const NpuOp& op) {
  e.op(cmd0::kOpKernelWait, 0);
  e.cmd0(cmd0::kDmaSrcRegion, 0);
  e.cmd1(cmd1::kDmaSrc, op.lutOffset);
  e.cmd0(cmd0::kDmaDstRegion, 0x100);  // INTERNAL: the LUT RAM
  e.cmd1(cmd1::kDmaDst, static_cast<std::uint32_t>(op.lutSlot) * 256);
  e.cmd1(cmd1::kDmaLen, 256);
  e.op(cmd0::kOpDmaStart, 0);
  e.op(cmd0::kOpDmaWait, 0);
}

void emitWeights(Emitter& e, const NpuOp& op, const AcceleratorConfig& config) {
  static constexpr std::uint16_t kBase[] = {cmd1::kWeightBase, cmd1::kWeight1Base, cmd1::kWeight2Base, cmd1::kWeight3Base};
  e.cmd0(cmd0::kWeightFormat, 0);  // standard decoder, dense
  e.cmd0(cmd0::kWeightRegion, 0);
  for (int core = 0; core < config.cores; ++core) {
    const auto k = static_cast<std::size_t>(core);
    e.cmd1(kBase[k], op.weightOffset[k]);
    e.cmd1(static_cast<std::uint16_t>(kBase[k] + 1), op.weightLength[k]);
  }
  e.cmd0(cmd0::kScaleRegion, 0);
  e.cmd1(cmd1::kScaleBase, op.scaleOffset[0]);
  e.cmd1(cmd1::kScaleLength, op.scaleLength[0]);
}

/// The elementwise operands in hardware order: with swapped operands (SUB of a broadcast
/// first input) the first TOSA operand becomes the IFM and is the one broadcast.
struct Operands {
  const View* ifm;
  const View* ifm2;
  int ifmZp, ifm2Zp;
  NpuOp::InputScale ifmScale, ifm2Scale;
  unsigned ifmBroadcast, ifm2Broadcast;
};

Operands operandsOf(const NpuOp& op) {
  const std::array<NpuOp::InputScale, 2> scales = op.inputScales.value_or(std::array<NpuOp::InputScale, 2>{});
  if (!op.swapOperands) {
    return {&op.ifm, &op.ifm2, op.ifmZp, op.ifm2Zp, scales[0], scales[1], 0, op.ifm2Scalar ? 8u : op.broadcast};
  }
  return {&op.ifm2, &op.ifm, op.ifm2Zp, op.ifmZp, scales[1], scales[0], op.broadcast, 0};
}

void emitOperation(Emitter& e, const NpuOp& op, const AcceleratorConfig& config, const AddressOf& address) {
  const bool elementwise = op.kind == Kind::Elementwise;
  const bool weighted = op.kind == Kind::Conv || op.kind == Kind::Depthwise;
  const Operands operands = elementwise ? operandsOf(op) : Operands{&op.ifm, nullptr, op.ifmZp, 0, {}, {}, 0, 0};
  if (op.lutSlot >= 0) emitLutLoad(e, op);
  // OFM_SCALE: the global scale, or (per-channel) only the rounding mode.
  const bool global = !weighted || op.globalScale;
  e.cmd1(cmd1::kOfmScale, global ? op.ofmScale : 1, scaleParam(global ? op.ofmShift : 0, op.doubleRound));
  if (elementwise) {
    e.cmd1(cmd1::kIfmScale, operands.ifmScale.scale, scaleParam(operands.ifmScale.shift, operands.ifmScale.doubleRound));
    e.cmd1(cmd1::kIfm2Scale, operands.ifm2Scale.scale, scaleParam(operands.ifm2Scale.shift, operands.ifm2Scale.doubleRound));
  }
  const View& ifm = *operands.ifm;
  emitFeatureMap(e, ifm, address(ifm), cmd0::kIfmRegion, cmd1::kIfmBase0, cmd0::kIfmHeight0M1, cmd0::kIfmHeight1M1,
                 cmd0::kIfmWidth0M1, cmd1::kIfmStrideX);
  e.cmd0(cmd0::kIfmDepthM1, static_cast<std::uint16_t>(ifm.c - 1));
  e.cmd0(cmd0::kIfmZeroPoint, static_cast<std::uint16_t>(operands.ifmZp));
  e.cmd0(cmd0::kIfmPrecision, ifmPrecision(ifm));
  emitPaddingAndOfm(e, op, address(op.ofm), elementwise);
  // Signed, precision, NHWC, scale mode (GLOBAL unless a scale stream), no reverse or
  // transpose, TILE2X2 storage.
  e.cmd0(cmd0::kOfmPrecision, static_cast<std::uint16_t>(0x0001 | (precisionCode(op.ofm) << 1) | (global ? 0x100 : 0)));
  if (!elementwise) emitKernel(e, op);
  if (weighted) emitWeights(e, op, config);
  // Tables: LUT_S8_S8 in slot n; a 32-bit OFM is not clipped to 16 bits.
  const bool wide = op.ofm.elem == 4;
  e.cmd0(cmd0::kActivation, static_cast<std::uint16_t>((op.lutSlot >= 0 ? 4u | (static_cast<unsigned>(op.lutSlot) << 5) : 0u) |
                                                       (wide ? 1u << 12 : 0u)));
  e.cmd0(cmd0::kActivationMin, static_cast<std::uint16_t>(op.actMin));
  e.cmd0(cmd0::kActivationMax, static_cast<std::uint16_t>(op.actMax));
  e.cmd0(cmd0::kOfmBlkHeightM1, static_cast<std::uint16_t>(op.blkH - 1));
  e.cmd0(cmd0::kOfmBlkWidthM1, static_cast<std::uint16_t>(op.blkW - 1));
  e.cmd0(cmd0::kOfmBlkDepthM1, static_cast<std::uint16_t>(op.blkD - 1));
  // 32-bit accumulators, reset, output enabled, the chosen micro-block.
  e.cmd0(cmd0::kAccFormat, static_cast<std::uint16_t>(op.microblock << 8));
  if (elementwise) {
    if (op.ifm2Scalar) {
      e.cmd1(cmd1::kOpScalar, static_cast<std::uint32_t>(op.ifm2ScalarValue));
    } else {
      const View& ifm2 = *operands.ifm2;
      emitFeatureMap(e, ifm2, address(ifm2), cmd0::kIfm2Region, cmd1::kIfm2Base0, cmd0::kIfm2Height0M1,
                     cmd0::kIfm2Height1M1, cmd0::kIfm2Width0M1, cmd1::kIfm2StrideX);
    }
    e.cmd0(cmd0::kIfm2Precision, ifmPrecision(op.ifm2Scalar ? ifm : *operands.ifm2));
    e.cmd0(cmd0::kIfm2ZeroPoint, static_cast<std::uint16_t>(operands.ifm2Zp));
    e.cmd0(cmd0::kIfmBroadcast, static_cast<std::uint16_t>(operands.ifmBroadcast));
    e.cmd0(cmd0::kIfm2Broadcast, static_cast<std::uint16_t>(operands.ifm2Broadcast));
  }
  e.cmd0(cmd0::kBlockDep, 0);
  switch (op.kind) {
    case Kind::Conv: e.op(cmd0::kOpConv); break;
    case Kind::Depthwise: e.op(cmd0::kOpDepthwise); break;
    case Kind::Pool: e.op(cmd0::kOpPool, static_cast<std::uint16_t>(op.mode)); break;
    case Kind::Elementwise: e.op(cmd0::kOpElementwise, static_cast<std::uint16_t>(op.mode)); break;
  }
}

}  // namespace

Status chooseU85Block(NpuOp& op, const AcceleratorConfig& config) {
  const int ifmBits = 8 * op.ifm.elem;
  const bool depthFirst1x1 = op.kind == Kind::Conv && op.kh == 1 && op.kw == 1 &&
                             op.weights.traversal == WeightTraversal::DepthFirst;
  // The micro-block that wastes the fewest elements on the OFM's edges.
  const int oh = op.ofm.h, ow = op.ofm.w, oc = op.ofm.c;
  std::optional<Block3> ublock;
  long bestWaste = 0;
  for (const Block3& ub : config.u85Ublocks()) {
    if (!u85MicroblockSupports(config, ub, familyOf(op), ifmBits, depthFirst1x1)) continue;
    const long waste = static_cast<long>(roundUp(oh, ub.h)) * roundUp(ow, ub.w) * roundUp(oc, ub.d) - static_cast<long>(oh) * ow * oc;
    if (!ublock || waste < bestWaste) {
      ublock = ub;
      bestWaste = waste;
    }
  }
  if (!ublock) return unsupported("{}: no {} micro-block serves this operation with {}-bit input", op.what, config.name, ifmBits);
  op.microblock = *u85MicroblockCode(*ublock);
  // The largest OFM block (micro-block multiples in H and W, 16-channel multiples in depth)
  // whose 32-bit accumulators fit the accumulator RAM and whose IFM block fits the IFM
  // buffer (elementwise: whose inputs fit the output buffer).
  const int accElements = config.accRamBytes / 4;
  const int ibElements = config.ifmRamBytes * 8 / ifmBits;
  const int khExt = std::min((op.kh - 1) * op.dy + 1, 8), kwExt = std::min((op.kw - 1) * op.dx + 1, 8);
  const bool elementwise = op.kind == Kind::Elementwise;
  const int ifmBlockDepth = op.kind == Kind::Conv
                                ? u85IfmBlockDepth(op.weights.traversal, ifmBits, config.macs, ublock->d, false)
                                : 0;
  long bestVolume = 0;
  for (int d = std::min(roundUp(oc, kAccDepthGranule), kMaxBlockDepth); d >= kAccDepthGranule; d -= kAccDepthGranule) {
    for (int h = std::min(roundUp(oh, ublock->h), kMaxBlockHW); h >= ublock->h; h -= ublock->h) {
      for (int w = std::min(roundUp(ow, ublock->w), kMaxBlockHW); w >= ublock->w; w -= ublock->w) {
        const long volume = static_cast<long>(h) * w * d;
        if (volume <= bestVolume) break;  // narrower blocks are smaller still
        if (elementwise) {
          if (volume * op.ifm.elem > config.obRamBytes) continue;
        } else {
          if (volume > accElements) continue;
          const long ifmH = std::min((h - 1) * op.sy + khExt, op.ifm.h + op.padTop + op.padBottom);
          const long ifmW = std::min((w - 1) * op.sx + kwExt, op.ifm.w + op.padLeft + op.padRight);
          const long ifmD = ifmBlockDepth > 0 ? std::min(ifmBlockDepth, roundUp(op.ifm.c, 16)) : d;
          if (ifmH * ifmW * ifmD > ibElements) continue;
        }
        bestVolume = volume;
        op.blkH = h;
        op.blkW = w;
        op.blkD = d;
        break;
      }
    }
  }
  if (bestVolume == 0) return unsupported("{}: no OFM block fits the buffers of {}", op.what, config.name);
  return {};
}

Status encodeU85Weights(NpuOp& op, const AcceleratorConfig& config, std::vector<std::uint8_t>& readOnly, CompileStats& stats) {
  const std::optional<Block3> ublock = u85Microblock(config, op.microblock);
  if (!ublock) return internalError("{}: micro-block {} is not one of {}'s", op.what, op.microblock, config.name);
  const U85WeightLayout layout = weightLayout(op, config, *ublock);
  // One scale stream for every channel, padded with zero records to 16 channels.
  std::vector<ScaleRecord> records(static_cast<std::size_t>(roundUp(op.weights.ofmDepth, 16)));
  for (std::size_t c = 0; c < static_cast<std::size_t>(op.weights.ofmDepth); ++c) {
    records[c] = ScaleRecord{op.bias[c], op.scales[c], op.shifts[c]};
  }
  OPENVGF_ASSIGN_OR_RETURN(const std::vector<std::uint8_t> scales,
                           withContext(encodeScaleStream(records, ScaleFormat::U85Acc32), op.what));
  op.scaleOffset[0] = appendReadOnly(readOnly, scales);
  op.scaleLength[0] = static_cast<std::uint32_t>(scales.size());
  stats.scaleBytes += scales.size();
  for (int core = 0; core < config.cores; ++core) {
    const std::vector<std::uint8_t> stream =
        encodeWeightStream(weightsInOrder(u85WeightStreamOrder(layout, core), op.weights.values));
    const auto k = static_cast<std::size_t>(core);
    op.weightOffset[k] = appendReadOnly(readOnly, stream);
    op.weightLength[k] = static_cast<std::uint32_t>(stream.size());
    stats.weightBytes += stream.size();
  }
  return {};
}

std::vector<std::uint32_t> emitU85(const std::vector<NpuOp>& ops, const AcceleratorConfig& config, const AddressOf& address,
                                   CompileStats& stats) {
  Emitter e;
  return emitOperations(e, ops, config, address, stats, emitOperation);
}

}  // namespace openvgf::converter::ethosu
