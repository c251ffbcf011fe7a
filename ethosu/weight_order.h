// SPDX-License-Identifier: Apache-2.0
// The order in which the NPU consumes convolution weights: for every position of a decoded
// weight stream, the OHWI index of the weight it carries, or -1 for a padding position that
// must hold zero. U55/U65: the loop nest of specs/ethosu.md §3.3. U85: Regor's
// EthosU85WeightOrdering (interleave depth 4 across cores, serpentine IFM blocks and kernel
// rows, stride phases for part-kernel-first and depthwise). Encoders write weights in this
// order; the simulator uses it to put decoded values back. Written once, used by both.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace openvgf::ethosu {

enum class WeightTraversal : std::uint8_t { DepthFirst, PartKernelFirst, Depthwise };

/// Everything that decides a U55/U65 weight order.
struct WeightLayout {
  int ofmDepth = 0;       ///< O
  int kernelHeight = 0;   ///< undilated kernel rows
  int kernelWidth = 0;
  int ifmDepth = 0;       ///< I (1 for depthwise)
  int ofmBlockDepth = 0;  ///< OFM_BLK_DEPTH used by the op (clipped to O here)
  int ofmUblockDepth = 8;
  int ifmUblockDepth = 8;
  int dilationY = 1;
  int dilationX = 1;
  bool ifm16Bit = false;
  WeightTraversal traversal = WeightTraversal::DepthFirst;
};

/// Everything that decides a U85 weight order (ethosu/weight_order.cpp explains the rules).
struct U85WeightLayout {
  int ofmDepth = 0, kernelHeight = 0, kernelWidth = 0, ifmDepth = 0;
  int ofmBlockDepth = 0;   ///< OFM_BLK_DEPTH
  int ifmBlockDepth = 0;   ///< see u85IfmBlockDepth
  int ofmUblockDepth = 0;  ///< depth of the ACC_FORMAT micro-block
  int strideY = 1, strideX = 1, dilationY = 1, dilationX = 1;
  bool ifm16Bit = false;
  bool sparse = false;     ///< WEIGHT_FORMAT sparsity 2:4
  int macs = 256;          ///< whole NPU
  int cores = 1;
  WeightTraversal traversal = WeightTraversal::DepthFirst;
};

/// Positions of a U55/U65 stream, in order.
std::vector<std::int64_t> weightStreamOrder(const WeightLayout& layout);
/// Its length without building it, counted up to `limit` + 1 (for refusing a stream that
/// claims more weights than a bound before allocating anything).
std::uint64_t weightStreamLength(const WeightLayout& layout, std::uint64_t limit);

/// The U85 IFM block depth the hardware reads weights in for a convolution: 16 for
/// part-kernel-first, 32 for 32-bit IFMs and for 128/256-MAC NPUs running a 16-deep micro-block
/// (dense weights), 128 for 2:4 sparse 8-bit weights, else 64.
int u85IfmBlockDepth(WeightTraversal traversal, int ifmBits, int macs, int ofmUblockDepth, bool sparse);

/// Positions of U85 standard-decoder (SWD) stream `stream` (one per core).
std::vector<std::int64_t> u85WeightStreamOrder(const U85WeightLayout& layout, int stream);
/// Positions of the one U85 fast-decoder (FWD) stream: with several cores, the cores' orders
/// interleaved in blocks.
std::vector<std::int64_t> u85FastWeightOrder(const U85WeightLayout& layout);
/// Length of one SWD stream without building it (all streams have the same length), counted
/// up to `limit` + 1.
std::uint64_t u85WeightStreamLength(const U85WeightLayout& layout, std::uint64_t limit);

}  // namespace openvgf::ethosu
