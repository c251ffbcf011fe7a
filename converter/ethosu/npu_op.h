// SPDX-License-Identifier: Apache-2.0
// The Ethos-U backend's intermediate form: one NpuOp per NPU operation the lowering produces,
// with its feature-map views (where each operand lives in the scratch arena or the read-only
// data), the arithmetic it needs (weights, per-channel or global scales, operand scaling,
// clamp, table) and, once chosen, its block configuration and encoded weight streams. The
// emitters (emit.cpp, emit_u85.cpp) turn it into registers.
#pragma once

#include <array>
#include <optional>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "ethosu/weight_order.h"

namespace openvgf::converter::ethosu {

using ::openvgf::ethosu::WeightTraversal;

/// Where a feature map lives: a buffer of the scratch arena (region 1) or read-only data
/// (region 0), with NHWC strides that may be larger than dense (slices, concatenation).
struct View {
  int region = 1;
  int buffer = -1;           ///< region 1: index into the buffers; region 0: -1
  std::uint32_t offset = 0;  ///< within the buffer (region 1) or the read-only blob (region 0)
  int h = 1, w = 1, c = 1;
  std::uint32_t strideY = 0, strideX = 0;  ///< bytes
  int elem = 1;                            ///< bytes per element: 1, 2 or 4
  bool isSigned = true;

  bool dense() const {
    return strideX == static_cast<std::uint32_t>(c * elem) && strideY == static_cast<std::uint32_t>(c * w * elem);
  }
};

View denseView(int buffer, int h, int w, int c, int elem = 1);

/// The precision field value of an element size: 0 8-bit, 1 16-bit, 2 32-bit.
unsigned precisionCode(const View& v);

int roundUp(int v, int m);

/// A scratch-arena buffer and the operations that use it.
struct Buffer {
  std::uint32_t size = 0;
  int first = INT_MAX;
  int last = -1;
  std::uint32_t address = 0;
};

/// Convolution weights in OHWI order (depthwise: O = channels, I = 1), already zero-point
/// corrected to the signed 9-bit range, plus what decides their order in the stream.
struct WeightVolume {
  int ofmDepth = 0, kernelHeight = 0, kernelWidth = 0, ifmDepth = 0;
  std::vector<std::int16_t> values;
  WeightTraversal traversal = WeightTraversal::DepthFirst;
};

enum class Kind { Conv, Depthwise, Pool, Elementwise };

/// Pool modes and elementwise modes as the hardware numbers them.
namespace mode {
inline constexpr unsigned kMax = 0, kAverage = 1;
inline constexpr unsigned kMul = 0, kAdd = 1, kSub = 2;
}  // namespace mode

struct NpuOp {
  Kind kind = Kind::Pool;
  unsigned mode = 0;
  std::string what;  ///< the TOSA operator(s) it implements, for messages
  View ifm, ifm2, ofm;
  bool hasIfm2 = false;
  int ifmZp = 0, ifm2Zp = 0, ofmZp = 0;
  int kh = 1, kw = 1, sy = 1, sx = 1, dy = 1, dx = 1;
  int padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  // Convolution weights and per-channel output stage.
  WeightVolume weights;
  std::vector<std::int64_t> bias;
  std::vector<std::uint32_t> scales;
  std::vector<std::uint8_t> shifts;
  bool perChannel = false;
  bool globalScale = false;
  std::uint32_t ofmScale = 1;
  unsigned ofmShift = 0;
  bool doubleRound = true;  ///< TOSA DOUBLE_ROUND (hardware DBL / DOUBLE_SYMMETRIC), else single rounding
  // Elementwise operand scaling (U55/U65 register semantics, specs §4.4).
  unsigned ifmScaleMode = 0;  ///< 0 OPA_OPB_16, 1 OPA_32 (IFM rescaled), 2 OPB_32 (IFM2 rescaled)
  std::uint32_t opaScale = 0;
  unsigned opaShift = 0;
  std::uint32_t opbScale = 0;
  bool ifmDoubleRound = true;
  /// U85 elementwise: IFM_SCALE and IFM2_SCALE (TOSA's input RESCALEs as they are), set by
  /// the lowering for U85 targets instead of the U55/U65 operand scaling above; unset means
  /// unit scales.
  struct InputScale {
    std::uint32_t scale = 1;
    unsigned shift = 0;
    bool doubleRound = true;
  };
  std::optional<std::array<InputScale, 2>> inputScales;
  bool ifm2Scalar = false;  ///< IFM2 is the scalar `ifm2ScalarValue`
  int ifm2ScalarValue = 0;
  bool swapOperands = false;
  unsigned broadcast = 0;   ///< IFM2 broadcast: bit 0 H, bit 1 W, bit 2 C
  int actMin = -128, actMax = 127;
  int lutSlot = -1;
  std::uint32_t lutOffset = 0;
  std::uint64_t macs = 0;
  // Filled by the block search and the weight encoding.
  int blkW = 1, blkH = 1, blkD = 8;
  int ibEnd = 0, abStart = 0, ifm2IbStart = 0;  ///< U55/U65 SHRAM layout
  unsigned microblock = 0;                       ///< U85 ACC_FORMAT micro-block code
  std::array<std::uint32_t, 4> weightOffset{}, weightLength{};  ///< one stream per core
  std::array<std::uint32_t, 2> scaleOffset{}, scaleLength{};
};

struct Dims3 {
  int h = 1, w = 1, c = 1;
};

}  // namespace openvgf::converter::ethosu
