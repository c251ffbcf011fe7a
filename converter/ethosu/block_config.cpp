// SPDX-License-Identifier: Apache-2.0
// Block configuration. U55/U65: the largest OFM block (in micro-block steps) whose IFM and
// accumulator buffers fit SHRAM by Vela's layout rules (specs/ethosu.md §3.5-3.6); the
// layout registers (IB_END, AB_START, IFM2_IB_START) follow from it.
#include <algorithm>
#include <optional>

#include "converter/ethosu/stages.h"

namespace openvgf::converter::ethosu {
namespace {

struct BlockChoice {
  int w = 0, h = 0, d = 0, ibEnd = 0, abStart = 0, ifm2IbStart = 0;
};

std::optional<BlockChoice> chooseU55Block(const NpuOp& op, const AcceleratorConfig& cfg) {
  const ::openvgf::ethosu::Block3 ub = cfg.ofmUblock;
  const int reservedEnd = cfg.shramBanks > 16 ? 2 : 0;
  const int lutStart = cfg.shramBanks - std::max(op.lutSlot >= 0 ? 2 : 0, reservedEnd);
  const int ofmW = op.ofm.w, ofmH = op.ofm.h, ofmD = op.ofm.c;
  const int maxW = std::min(64, roundUp(ofmW, ub.w)), maxH = std::min(32, roundUp(ofmH, ub.h));
  const int maxD = std::min(128, roundUp(ofmD, ub.d));
  std::optional<BlockChoice> best;
  long bestVolume = -1;
  const bool elementwise = op.kind == Kind::Elementwise;
  const bool weighted = op.kind == Kind::Conv || op.kind == Kind::Depthwise;
  for (int d = maxD; d >= ub.d; d -= ub.d) {
    // Two cores split each block's channels by parity; every core's share of a block must be
    // whole micro-blocks unless one block covers the OFM depth (Vela only makes such blocks).
    if (cfg.cores > 1 && weighted && d < ofmD && (d / cfg.cores) % ub.d != 0) continue;
    for (int h = maxH; h >= ub.h; h -= ub.h) {
      for (int w = maxW; w >= ub.w; w -= ub.w) {
        const long volume = static_cast<long>(w) * h * d;
        if (volume <= bestVolume) continue;
        const int khExt = (op.kh - 1) * op.dy + 1, kwExt = (op.kw - 1) * op.dx + 1;
        int ifmH = elementwise ? h : roundUp((h - 1) * op.sy + std::min(khExt, 8), ub.h);
        int ifmW = elementwise ? w : roundUp((w - 1) * op.sx + std::min(kwExt, 8), ub.w);
        int ifmD = op.kind == Kind::Conv
                       ? roundUp(std::min(op.ifm.c, op.weights.traversal == WeightTraversal::PartKernelFirst ? 16 : 32), cfg.ifmUblock.d)
                       : d;
        const int granule = op.ifm.elem == 4 ? cfg.granuleIfm32 : elementwise ? cfg.granuleIfm8Ew : cfg.granuleIfm8;
        const int ifmBanks = roundUp(((ifmW * ifmH * roundUp(ifmD * op.ifm.elem, 8) + 1023) / 1024) * 2, granule);
        BlockChoice c{w, h, d, 2 + ifmBanks, 0, 0};
        if (elementwise) {
          c.ifm2IbStart = c.ibEnd;
          const int ifm2Banks = op.hasIfm2 ? ifmBanks : 0;
          if (c.ifm2IbStart + ifm2Banks > lutStart) continue;
          c.ibEnd = lutStart;
          c.abStart = lutStart;
        } else {
          const int accBanks = roundUp(((w * h * roundUp(d, 8) * 4 + 1023) / 1024) * 2, cfg.granuleAcc32);
          c.abStart = lutStart - accBanks;
          if (c.ibEnd > c.abStart) continue;
        }
        best = c;
        bestVolume = volume;
      }
    }
  }
  return best;
}

}  // namespace

Status chooseBlocks(std::vector<NpuOp>& ops, const AcceleratorConfig& config) {
  for (NpuOp& op : ops) {
    if (config.product == ::openvgf::ethosu::Product::U85) {
      OPENVGF_TRY(chooseU85Block(op, config));
      continue;
    }
    const std::optional<BlockChoice> choice = chooseU55Block(op, config);
    if (!choice) return unsupported("{}: no block configuration fits in SHRAM", op.what);
    op.blkW = choice->w;
    op.blkH = choice->h;
    op.blkD = choice->d;
    op.ibEnd = choice->ibEnd;
    op.abStart = choice->abStart;
    op.ifm2IbStart = choice->ifm2IbStart;
  }
  return {};
}

}  // namespace openvgf::converter::ethosu
