// SPDX-License-Identifier: Apache-2.0
// U55/U65 register emission (specs/ethosu.md §1.4-1.7, in Vela's register order), and the
// cycle estimate the --stats report prints.
#include "converter/ethosu/stages.h"
#include "ethosu/command_stream.h"

namespace openvgf::converter::ethosu {
namespace {

using namespace ::openvgf::ethosu;

void emitLutLoad(Emitter& e, const NpuOp& op, const AcceleratorConfig& config) {
  const std::uint32_t lutStart = static_cast<std::uint32_t>(config.shramBanks - 2) * 1024;
  // Wait for earlier kernels before replacing the table, then for the DMA before using it.
  e.op(cmd0::kOpKernelWait, 0);
  e.cmd0(cmd0::kDmaSrcRegion, 0);
  e.cmd1(cmd1::kDmaSrc, op.lutOffset);
  // INTERNAL destination; bits 2:0 are the core mask: every core's SHRAM gets the table.
  e.cmd0(cmd0::kDmaDstRegion, static_cast<std::uint16_t>(0x100 | ((1u << config.cores) - 1)));
  e.cmd1(cmd1::kDmaDst, lutStart + static_cast<std::uint32_t>(op.lutSlot) * 256);
  e.cmd1(cmd1::kDmaLen, 256);
  e.op(cmd0::kOpDmaStart, 0);
  e.op(cmd0::kOpDmaWait, 0);
}

void emitWeights(Emitter& e, const NpuOp& op, const AcceleratorConfig& config) {
  e.cmd0(cmd0::kWeightRegion, 0);
  e.cmd1(cmd1::kWeightBase, op.weightOffset[0]);
  e.cmd1(cmd1::kWeightLength, op.weightLength[0]);
  if (config.cores > 1) {
    e.cmd1(cmd1::kWeight1Base, op.weightOffset[1]);
    e.cmd1(cmd1::kWeight1Length, op.weightLength[1]);
  }
  e.cmd0(cmd0::kScaleRegion, 0);
  e.cmd1(cmd1::kScaleBase, op.scaleOffset[0]);
  e.cmd1(cmd1::kScaleLength, op.scaleLength[0]);
  if (config.cores > 1) {
    e.cmd1(cmd1::kScale1Base, op.scaleOffset[1]);
    e.cmd1(cmd1::kScale1Length, op.scaleLength[1]);
  }
}

/// Round mode field of the U55/U65 precision registers: 0 DBL, 2 NATURAL.
unsigned roundCode(bool doubleRound) { return doubleRound ? 0u : 2u; }

void emitOperation(Emitter& e, const NpuOp& op, const AcceleratorConfig& config, const AddressOf& address) {
  const bool elementwise = op.kind == Kind::Elementwise;
  if (op.lutSlot >= 0) emitLutLoad(e, op, config);
  if (elementwise) {
    e.cmd1(cmd1::kOpaScale, op.opaScale, static_cast<std::uint16_t>(op.opaShift));
    e.cmd1(cmd1::kOpbScale, op.opbScale);
    e.cmd1(cmd1::kOfmScale, op.ofmScale, static_cast<std::uint16_t>(op.ofmShift));
  }
  emitFeatureMap(e, op.ifm, address(op.ifm), cmd0::kIfmRegion, cmd1::kIfmBase0, cmd0::kIfmHeight0M1, cmd0::kIfmHeight1M1,
                 cmd0::kIfmWidth0M1, cmd1::kIfmStrideX);
  e.cmd0(cmd0::kIfmDepthM1, static_cast<std::uint16_t>(op.ifm.c - 1));
  e.cmd0(cmd0::kIfmZeroPoint, static_cast<std::uint16_t>(op.ifmZp));
  e.cmd0(cmd0::kIfmPrecision, static_cast<std::uint16_t>(0x0001 | (precisionCode(op.ifm) << 2) | (op.ifmScaleMode << 8) |
                                                         (roundCode(op.ifmDoubleRound) << 14)));
  emitPaddingAndOfm(e, op, address(op.ofm), elementwise);
  e.cmd0(cmd0::kOfmPrecision, static_cast<std::uint16_t>(0x0001 | (precisionCode(op.ofm) << 1) |
                                                         (op.globalScale || elementwise ? 0x100 : 0) |
                                                         (roundCode(op.doubleRound) << 14)));
  if (!elementwise) emitKernel(e, op);
  if (op.kind == Kind::Conv || op.kind == Kind::Depthwise) {
    emitWeights(e, op, config);
  } else if (op.kind == Kind::Pool && op.globalScale) {
    e.cmd1(cmd1::kOfmScale, op.ofmScale, static_cast<std::uint16_t>(op.ofmShift));
  }
  e.cmd0(cmd0::kActivation, static_cast<std::uint16_t>(op.lutSlot >= 0 ? 16 + op.lutSlot : 0));
  e.cmd0(cmd0::kActivationMin, static_cast<std::uint16_t>(op.actMin));
  e.cmd0(cmd0::kActivationMax, static_cast<std::uint16_t>(op.actMax));
  e.cmd0(cmd0::kOfmBlkHeightM1, static_cast<std::uint16_t>(op.blkH - 1));
  e.cmd0(cmd0::kOfmBlkWidthM1, static_cast<std::uint16_t>(op.blkW - 1));
  e.cmd0(cmd0::kOfmBlkDepthM1, static_cast<std::uint16_t>(op.blkD - 1));
  e.cmd0(cmd0::kIfmIbEnd, static_cast<std::uint16_t>(op.ibEnd));
  e.cmd0(cmd0::kAbStart, static_cast<std::uint16_t>(op.abStart));
  if (elementwise) e.cmd0(cmd0::kIfm2IbStart, static_cast<std::uint16_t>(op.ifm2IbStart));
  e.cmd0(cmd0::kAccFormat, 0);
  if (elementwise) {
    if (op.ifm2Scalar) {
      e.cmd0(cmd0::kIfm2Scalar, static_cast<std::uint16_t>(op.ifm2ScalarValue));
    } else {
      emitFeatureMap(e, op.ifm2, address(op.ifm2), cmd0::kIfm2Region, cmd1::kIfm2Base0, cmd0::kIfm2Height0M1,
                     cmd0::kIfm2Height1M1, cmd0::kIfm2Width0M1, cmd1::kIfm2StrideX);
    }
    // IFM2 precision must match the IFM's.
    e.cmd0(cmd0::kIfm2Precision, static_cast<std::uint16_t>(0x0001 | (precisionCode(op.ifm) << 2)));
    e.cmd0(cmd0::kIfm2ZeroPoint, static_cast<std::uint16_t>(op.ifm2Zp));
    e.cmd0(cmd0::kIfm2Broadcast, static_cast<std::uint16_t>(op.broadcast | (op.swapOperands ? 0x40u : 0u) |
                                                            (op.ifm2Scalar ? 0x80u : 0u)));
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

void emitPaddingAndOfm(Emitter& e, const NpuOp& op, std::uint32_t ofmAddress, bool elementwise) {
  e.cmd0(cmd0::kIfmUpscale, 0);
  if (!elementwise) {
    e.cmd0(cmd0::kIfmPadTop, static_cast<std::uint16_t>(op.padTop));
    e.cmd0(cmd0::kIfmPadLeft, static_cast<std::uint16_t>(op.padLeft));
    e.cmd0(cmd0::kIfmPadBottom, static_cast<std::uint16_t>(op.padBottom));
    e.cmd0(cmd0::kIfmPadRight, static_cast<std::uint16_t>(op.padRight));
  }
  emitFeatureMap(e, op.ofm, ofmAddress, cmd0::kOfmRegion, cmd1::kOfmBase0, cmd0::kOfmHeight0M1, cmd0::kOfmHeight1M1,
                 cmd0::kOfmWidth0M1, cmd1::kOfmStrideX);
  e.cmd0(cmd0::kOfmHeightM1, static_cast<std::uint16_t>(op.ofm.h - 1));
  e.cmd0(cmd0::kOfmWidthM1, static_cast<std::uint16_t>(op.ofm.w - 1));
  e.cmd0(cmd0::kOfmDepthM1, static_cast<std::uint16_t>(op.ofm.c - 1));
  e.cmd0(cmd0::kOfmZeroPoint, static_cast<std::uint16_t>(op.ofmZp));
}

std::vector<std::uint32_t> emitOperations(Emitter& e, const std::vector<NpuOp>& ops, const AcceleratorConfig& config,
                                          const AddressOf& address, CompileStats& stats, EmitOperation emitOne) {
  for (const NpuOp& op : ops) {
    emitOne(e, op, config, address);
    ++stats.npuOperations;
    stats.macs += op.macs;
    stats.cycles += estimateCycles(op, config);
  }
  e.op(cmd0::kOpStop, 0xFFFF);
  stats.commands = e.commandCount();
  return e.words();
}

/// IFM, IFM2 or OFM registers of one view: region, single-tile bases and sizes, strides.
void emitFeatureMap(Emitter& e, const View& v, std::uint32_t address, std::uint16_t regionReg, std::uint16_t base0,
                    std::uint16_t height0, std::uint16_t height1, std::uint16_t width0, std::uint16_t strideX) {
  e.cmd0(regionReg, static_cast<std::uint16_t>(v.region));
  e.cmd1(base0, address);
  e.cmd1(static_cast<std::uint16_t>(base0 + 1), 0);
  e.cmd1(static_cast<std::uint16_t>(base0 + 2), 0);
  e.cmd1(static_cast<std::uint16_t>(base0 + 3), 0);
  e.cmd0(height0, static_cast<std::uint16_t>(v.h - 1));
  e.cmd0(height1, static_cast<std::uint16_t>(v.h - 1));
  e.cmd0(width0, static_cast<std::uint16_t>(v.w - 1));
  e.cmd1(static_cast<std::uint16_t>(strideX + 2), static_cast<std::uint32_t>(v.elem));
  e.cmd1(static_cast<std::uint16_t>(strideX + 1), v.strideY);
  e.cmd1(strideX, v.strideX);
}

void emitKernel(Emitter& e, const NpuOp& op) {
  const int khExt = (op.kh - 1) * op.dy + 1, kwExt = (op.kw - 1) * op.dx + 1;
  e.cmd0(cmd0::kKernelHeightM1, static_cast<std::uint16_t>(khExt - 1));
  e.cmd0(cmd0::kKernelWidthM1, static_cast<std::uint16_t>(kwExt - 1));
  const unsigned sx = static_cast<unsigned>(op.sx - 1), sy = static_cast<unsigned>(op.sy - 1);
  const bool partKernel = op.weights.traversal == WeightTraversal::PartKernelFirst && op.kind == Kind::Conv;
  e.cmd0(cmd0::kKernelStride, static_cast<std::uint16_t>((sx & 1) | ((sy & 1) << 1) | (partKernel ? 4u : 0u) |
                                                         (op.dx == 2 ? 8u : 0u) | (op.dy == 2 ? 16u : 0u) |
                                                         ((sx >> 1) << 6) | ((sy >> 1) << 9)));
}

std::uint64_t estimateCycles(const NpuOp& op, const AcceleratorConfig& config) {
  const Block3 u = config.ofmUblock;
  const std::uint64_t ublock = static_cast<std::uint64_t>(u.w) * u.h * u.d * static_cast<std::uint64_t>(config.cores);
  const auto macs = static_cast<std::uint64_t>(config.macs);
  const std::uint64_t elements = static_cast<std::uint64_t>(op.ofm.h) * op.ofm.w * op.ofm.c;
  return op.macs > 0 ? (op.macs + macs - 1) / macs : (elements * static_cast<std::uint64_t>(op.kh * op.kw) + ublock - 1) / ublock;
}

std::vector<std::uint32_t> emitU55(const std::vector<NpuOp>& ops, const AcceleratorConfig& config, const AddressOf& address,
                                   CompileStats& stats) {
  Emitter e;
  // Every Ethos-U65 stream starts by selecting single-core or dual-core (depth split) mode.
  if (config.product == Product::U65) e.cmd0(cmd0::kParallelMode, static_cast<std::uint16_t>(config.cores - 1));
  return emitOperations(e, ops, config, address, stats, emitOperation);
}

}  // namespace openvgf::converter::ethosu
