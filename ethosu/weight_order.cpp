// SPDX-License-Identifier: Apache-2.0
// The weight-order loop nests, each written once as a walk that hands every position to a
// visitor (which builds the order, or counts it with an early stop for bounding).
#include "ethosu/weight_order.h"

#include <algorithm>

namespace openvgf::ethosu {
namespace {

int roundUp(int v, int m) { return (v + m - 1) / m * m; }

/// specs/ethosu.md §3.3, outermost loop first. `visit(index)` returns false to stop.
template <typename Visit>
void walkU55(const WeightLayout& l, Visit&& visit) {
  const bool depthwise = l.traversal == WeightTraversal::Depthwise;
  const bool partKernel = l.traversal == WeightTraversal::PartKernelFirst;
  const bool depthFirst = l.traversal == WeightTraversal::DepthFirst;
  const int ifmBlockDepth = (partKernel || l.ifm16Bit) ? 16 : 32;
  const int decompH = std::max(1, 8 / std::max(1, l.dilationY));
  const int decompW = std::max(1, 8 / std::max(1, l.dilationX));
  const int ofmBlock = std::max(1, std::min(l.ofmBlockDepth, l.ofmDepth));
  const int ifmDepth = depthwise ? 1 : l.ifmDepth;
  const int oub = std::max(1, l.ofmUblockDepth), iub = std::max(1, l.ifmUblockDepth);
  for (int ob = 0; ob < l.ofmDepth; ob += ofmBlock) {
    const int obEnd = std::min(ob + ofmBlock, l.ofmDepth);
    for (int ib = 0; ib < ifmDepth; ib += ifmBlockDepth) {
      const int ibDepth = depthwise ? iub : (partKernel ? std::min(ifmBlockDepth, ifmDepth - ib) : ifmBlockDepth);
      for (int sy = 0; sy < l.kernelHeight; sy += decompH) {
        for (int sx = 0; sx < l.kernelWidth; sx += decompW) {
          const int subH = std::min(decompH, l.kernelHeight - sy);
          const int subW = std::min(decompW, l.kernelWidth - sx);
          int elements = subW * subH;
          if (depthwise || (partKernel && !l.ifm16Bit)) elements = roundUp(elements, 4);
          if (partKernel && l.ifm16Bit) elements = roundUp(elements, 2);
          for (int iuOuter = 0; iuOuter < (partKernel ? ibDepth : 1); iuOuter += (partKernel ? iub : 1)) {
            for (int ou = 0; ou < obEnd - ob; ou += oub) {
              for (int e = 0; e < elements; ++e) {
                const int kx = e % subW, ky = e / subW;
                for (int iuInner = 0; iuInner < (depthFirst ? ibDepth : 1); iuInner += (depthFirst ? iub : 1)) {
                  const int iu = partKernel ? iuOuter : iuInner;
                  for (int oz = 0; oz < oub; ++oz) {
                    for (int iz = 0; iz < (depthwise ? 1 : iub); ++iz) {
                      const int o = ob + ou + oz;
                      const int i = depthwise ? 0 : ib + iu + iz;
                      const bool valid = o < obEnd && i < ifmDepth && ky < subH;
                      const std::int64_t index =
                          valid ? ((static_cast<std::int64_t>(o) * l.kernelHeight + (sy + ky)) * l.kernelWidth + (sx + kx)) *
                                          ifmDepth + i
                                : -1;
                      if (!visit(index)) return;
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

/// Regor's EthosU85WeightOrdering for one stream (= core), dense weights or 2:4 sparse.
template <typename Visit>
void walkU85(const U85WeightLayout& l, int stream, Visit&& visit) {
  constexpr int kInterleave = 4;
  const bool depthwise = l.traversal == WeightTraversal::Depthwise;
  const int streams = std::max(1, l.cores);
  int strideY = std::max(1, l.strideY), strideX = std::max(1, l.strideX);
  int subKernelRound = 1, ifmUblockDepth = std::max(1, l.ifmBlockDepth);
  if (l.traversal == WeightTraversal::PartKernelFirst) {
    subKernelRound = (l.ifm16Bit || l.sparse) ? 10 : 5;
    ifmUblockDepth = l.ifm16Bit && !l.sparse ? 8 : std::max(1, l.ifmBlockDepth);
  } else if (l.traversal == WeightTraversal::DepthFirst) {
    strideY = strideX = 1;
  } else {
    subKernelRound = 10;
    ifmUblockDepth = 1;
  }
  const int decompX = std::max(1, 8 / std::max(1, l.dilationX));
  const int decompY = std::max(1, 8 / std::max(1, l.dilationY));
  const int dwPadding = (!l.ifm16Bit && l.macs <= 256) ? 0 : (l.macs <= 512) ? 2 : 6;
  const int ofmBlockDepth = std::max(1, l.ofmBlockDepth), ifmBlockDepth = std::max(1, l.ifmBlockDepth);
  const int oub = std::max(1, l.ofmUblockDepth);
  const int innerStep = depthwise ? 1 : (l.sparse ? 16 : 8);
  const int ifmDepth = depthwise ? 1 : l.ifmDepth;
  auto zeros = [&](int count) {
    for (int k = 0; k < count; ++k) {
      if (!visit(-1)) return false;
    }
    return true;
  };
  // The IFM blocks are walked forwards for even OFM blocks and backwards for odd ones.
  int ifmStep = -ifmBlockDepth, ifmStart = 0;
  for (int ofmBlockZ = 0; ofmBlockZ < l.ofmDepth; ofmBlockZ += ofmBlockDepth) {
    ifmStep = -ifmStep;
    const int clippedOfm = std::min(ofmBlockDepth, l.ofmDepth - ofmBlockZ);
    for (int ifmBlockZ = ifmStart; ifmBlockZ < ifmDepth && ifmBlockZ >= 0; ifmBlockZ += ifmStep) {
      ifmStart = ifmBlockZ;
      const int clippedIfm = std::min(ifmBlockDepth, ifmDepth - ifmBlockZ);
      for (int subX = 0; subX < l.kernelWidth; subX += decompX) {
        const int subW = std::min(l.kernelWidth - subX, decompX);
        for (int subY = 0; subY < l.kernelHeight; subY += decompY) {
          const int subH = std::min(l.kernelHeight - subY, decompY);
          for (int ifmOuter = 0; ifmOuter < (depthwise ? 1 : clippedIfm); ifmOuter += ifmUblockDepth) {
            for (int ofmOuter = 0; ofmOuter < clippedOfm; ofmOuter += oub) {
              int elements = roundUp(subW * subH, subKernelRound);
              for (int sy = 0; sy < strideY; ++sy) {
                const int phaseH = (subH + strideY - 1 - sy) / strideY;
                for (int sx = 0; sx < strideX; ++sx) {
                  const int phaseW = (subW + strideX - 1 - sx) / strideX;
                  for (int ky = 0; ky < phaseH; ++ky) {
                    for (int kxStep = 0; kxStep < phaseW; ++kxStep) {
                      const int kx = ky % 2 == 0 ? kxStep : phaseW - 1 - kxStep;  // serpentine rows
                      --elements;
                      const int wx = subX + sx + kx * strideX, wy = subY + sy + ky * strideY;
                      for (int ifmInner = 0; ifmInner < ifmUblockDepth; ifmInner += innerStep) {
                        for (int ofmZ = stream * kInterleave; ofmZ < oub; ofmZ += kInterleave * streams) {
                          for (int ofmInner = 0; ofmInner < kInterleave; ++ofmInner) {
                            for (int ifmZ = 0; ifmZ < innerStep; ++ifmZ) {
                              const int i = ifmBlockZ + ifmOuter + ifmInner + ifmZ;
                              const int o = ofmBlockZ + ofmOuter + ofmInner + ofmZ;
                              const std::int64_t index =
                                  (i < ifmDepth && o < l.ofmDepth)
                                      ? ((static_cast<std::int64_t>(o) * l.kernelHeight + wy) * l.kernelWidth + wx) * ifmDepth + i
                                      : -1;
                              if (!visit(index)) return;
                            }
                          }
                        }
                      }
                      if (depthwise && elements % subKernelRound == 0 && !zeros(dwPadding * oub / streams)) return;
                    }
                  }
                }
              }
              if (elements > 0 &&
                  !zeros((elements + (depthwise ? dwPadding : 0)) * ifmUblockDepth * oub / streams)) {
                return;
              }
            }
          }
        }
      }
    }
  }
}

/// Counts positions, stopping once the count passes `limit`.
struct Counter {
  std::uint64_t limit;
  std::uint64_t count = 0;
  bool operator()(std::int64_t) { return ++count <= limit; }
};

}  // namespace

std::vector<std::int64_t> weightStreamOrder(const WeightLayout& layout) {
  std::vector<std::int64_t> order;
  walkU55(layout, [&](std::int64_t index) {
    order.push_back(index);
    return true;
  });
  return order;
}

std::uint64_t weightStreamLength(const WeightLayout& layout, std::uint64_t limit) {
  Counter counter{limit};
  walkU55(layout, counter);
  return counter.count;
}

int u85IfmBlockDepth(WeightTraversal traversal, int ifmBits, int macs, int ofmUblockDepth, bool sparse) {
  if (traversal == WeightTraversal::PartKernelFirst) return 16;
  if (ifmBits == 32 || ((macs == 128 || macs == 256) && ofmUblockDepth == 16 && !sparse)) return 32;
  if (sparse && ifmBits == 8) return 128;
  return 64;
}

std::vector<std::int64_t> u85WeightStreamOrder(const U85WeightLayout& layout, int stream) {
  std::vector<std::int64_t> order;
  walkU85(layout, stream, [&](std::int64_t index) {
    order.push_back(index);
    return true;
  });
  return order;
}

std::uint64_t u85WeightStreamLength(const U85WeightLayout& layout, std::uint64_t limit) {
  Counter counter{limit};
  walkU85(layout, 0, counter);
  return counter.count;
}

std::vector<std::int64_t> u85FastWeightOrder(const U85WeightLayout& layout) {
  const int streams = std::max(1, layout.cores);
  if (streams == 1) return u85WeightStreamOrder(layout, 0);
  // Blocks of one micro-block's worth of weights per core, round robin (Regor
  // EthosU85WeightOrderingFwd).
  const bool partKernel = layout.traversal == WeightTraversal::PartKernelFirst;
  const int ifmUblockDepth = partKernel && layout.ifm16Bit && !layout.sparse ? 8 : layout.ifmBlockDepth;
  const int subKernelRound = partKernel ? (!layout.ifm16Bit && !layout.sparse ? 5 : 10) : 1;
  const std::size_t block =
      static_cast<std::size_t>(std::max(1, layout.ofmUblockDepth * ifmUblockDepth * subKernelRound / streams));
  std::vector<std::vector<std::int64_t>> perStream;
  for (int s = 0; s < streams; ++s) perStream.push_back(u85WeightStreamOrder(layout, s));
  std::vector<std::int64_t> order;
  for (std::size_t at = 0;; at += block) {
    bool any = false;
    for (const auto& s : perStream) {
      for (std::size_t k = at; k < std::min(at + block, s.size()); ++k) {
        order.push_back(s[k]);
        any = true;
      }
    }
    if (!any) break;
  }
  return order;
}

}  // namespace openvgf::ethosu
