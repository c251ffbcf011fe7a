// SPDX-License-Identifier: Apache-2.0
// Simulator tests on hand-built command streams. Oracles are direct restatements of the TOSA
// integer semantics (conv/depthwise/pool/elementwise + apply_scale_32) written in the test,
// with pseudo-random data over shapes, strides, paddings, zero points and per-channel scales.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "runner/ethosu/simulator.h"
#include "tests/ethosu/test_util.h"

namespace openvgf::runner::ethosu {
namespace {

using testing::Stream;
using namespace ::openvgf::ethosu;

/// TOSA apply_scale_32 (double_round) / single round, restated.
std::int64_t applyScale32(std::int64_t value, std::int64_t multiplier, int shift, bool doubleRound) {
  std::int64_t round = std::int64_t{1} << (shift - 1);
  if (doubleRound && shift > 31) round += value >= 0 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 30);
  return (value * multiplier + round) >> shift;
}

AcceleratorConfig accelerator(std::string_view name) { return *::openvgf::ethosu::findAccelerator(name); }
AcceleratorConfig u55_128() { return accelerator("ethos-u55-128"); }

struct ConvCase {
  int h = 5, w = 6, cin = 7, cout = 9, kh = 3, kw = 3, sy = 1, sx = 1, dy = 1, dx = 1;
  int padTop = 1, padBottom = 1, padLeft = 1, padRight = 1;
  int ifmZp = -3, ofmZp = 5, actMin = -128, actMax = 127;
  bool depthwise = false;
  bool partKernel = false;
  bool natural = false;
  int blockDepth = 16;
  AcceleratorConfig accel = u55_128();
  bool brickOfm = false;
  std::string expectError;  ///< non-empty: the run must fail with a message containing this
};

void runConvCase(const ConvCase& t, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(-128, 127);
  const int cout = t.depthwise ? t.cin : t.cout;
  const int cinW = t.depthwise ? 1 : t.cin;
  const int khExt = (t.kh - 1) * t.dy + 1, kwExt = (t.kw - 1) * t.dx + 1;
  const int oh = (t.h + t.padTop + t.padBottom - khExt) / t.sy + 1;
  const int ow = (t.w + t.padLeft + t.padRight - kwExt) / t.sx + 1;
  // Hardware extent equation: the bottom/right pads must be exactly what the OFM consumes.
  // (An OFM that does not reach the last IFM rows/columns needs no bottom/right pad.)
  const int padBottom = std::max(0, (oh - 1) * t.sy + khExt - t.padTop - t.h);
  const int padRight = std::max(0, (ow - 1) * t.sx + kwExt - t.padLeft - t.w);
  std::vector<std::int8_t> ifm(static_cast<std::size_t>(t.h * t.w * t.cin));
  for (auto& v : ifm) v = static_cast<std::int8_t>(byte(rng));
  std::vector<std::int16_t> weights(static_cast<std::size_t>(cout * t.kh * t.kw * cinW));
  for (auto& v : weights) v = static_cast<std::int16_t>(byte(rng) * 2 + 1);  // 9-bit range after zp removal
  std::vector<std::int64_t> bias(static_cast<std::size_t>(cout));
  std::vector<std::uint32_t> mult(static_cast<std::size_t>(cout));
  std::vector<int> shift(static_cast<std::size_t>(cout));
  for (int c = 0; c < cout; ++c) {
    bias[static_cast<std::size_t>(c)] = std::uniform_int_distribution<int>(-5000, 5000)(rng);
    mult[static_cast<std::size_t>(c)] = std::uniform_int_distribution<std::uint32_t>(1u << 30, (1u << 31) - 1)(rng);
    shift[static_cast<std::size_t>(c)] = std::uniform_int_distribution<int>(36, 42)(rng);
  }
  // Expected (TOSA CONV2D/DEPTHWISE + RESCALE + CLAMP).
  std::vector<std::int8_t> expected(static_cast<std::size_t>(oh * ow * cout));
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x)
      for (int c = 0; c < cout; ++c) {
        std::int64_t acc = bias[static_cast<std::size_t>(c)];
        for (int ky = 0; ky < t.kh; ++ky)
          for (int kx = 0; kx < t.kw; ++kx) {
            const int iy = y * t.sy - t.padTop + ky * t.dy, ix = x * t.sx - t.padLeft + kx * t.dx;
            if (iy < 0 || iy >= t.h || ix < 0 || ix >= t.w) continue;
            for (int i = 0; i < cinW; ++i) {
              const int ic = t.depthwise ? c : i;
              acc += (ifm[static_cast<std::size_t>((iy * t.w + ix) * t.cin + ic)] - t.ifmZp) *
                     weights[static_cast<std::size_t>(((c * t.kh + ky) * t.kw + kx) * cinW + i)];
            }
          }
        std::int64_t v = applyScale32(acc, mult[static_cast<std::size_t>(c)], shift[static_cast<std::size_t>(c)], !t.natural) + t.ofmZp;
        v = std::clamp<std::int64_t>(v, std::max(-128, t.actMin), std::min(127, t.actMax));
        expected[static_cast<std::size_t>((y * ow + x) * cout + c)] = static_cast<std::int8_t>(v);
      }
  // Build region 0: per core, weights then scales, 16-aligned. With two cores (PARALLEL_MODE 1)
  // core k gets channels k, k+2, ... ordered for half the block depth (Vela's per-core streams).
  const int cores = t.accel.cores;
  std::vector<std::uint8_t> region0;
  std::uint32_t weightBase[2] = {0, 0}, weightLength[2] = {0, 0}, scaleBase[2] = {0, 0}, scaleLength[2] = {0, 0};
  const std::size_t perChannel = static_cast<std::size_t>(t.kh * t.kw * cinW);
  for (int core = 0; core < cores; ++core) {
    const int channels = (cout + cores - 1 - core) / cores;
    if (channels == 0) continue;
    WeightLayout layout;
    layout.ofmDepth = channels;
    layout.kernelHeight = t.kh;
    layout.kernelWidth = t.kw;
    layout.ifmDepth = cinW;
    layout.ofmBlockDepth = t.blockDepth / cores;
    layout.ofmUblockDepth = t.accel.ofmUblock.d;
    layout.ifmUblockDepth = t.accel.ifmUblock.d;
    layout.dilationY = t.dy;
    layout.dilationX = t.dx;
    layout.traversal = t.depthwise ? WeightTraversal::Depthwise
                                   : (t.partKernel ? WeightTraversal::PartKernelFirst : WeightTraversal::DepthFirst);
    std::vector<std::int16_t> coreWeights;
    for (int c = core; c < cout; c += cores) {
      const auto first = weights.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c) * perChannel);
      coreWeights.insert(coreWeights.end(), first, first + static_cast<std::ptrdiff_t>(perChannel));
    }
    const std::vector<std::uint8_t> stream = testing::encodeWeights(coreWeights, layout);
    weightBase[core] = static_cast<std::uint32_t>(region0.size());
    weightLength[core] = static_cast<std::uint32_t>(stream.size());
    region0.insert(region0.end(), stream.begin(), stream.end());
    scaleBase[core] = static_cast<std::uint32_t>(region0.size());
    for (int c = core; c < cout; c += cores)
      testing::appendScaleRecord(region0, bias[static_cast<std::size_t>(c)], mult[static_cast<std::size_t>(c)],
                                 static_cast<unsigned>(shift[static_cast<std::size_t>(c)]));
    scaleLength[core] = static_cast<std::uint32_t>(region0.size()) - scaleBase[core];
    region0.resize((region0.size() + 15) / 16 * 16, 0);
  }
  // Region 1: IFM at 0 (NHWC), OFM after it (NHWC or NHCWB16).
  const std::uint32_t ofmBase = static_cast<std::uint32_t>((ifm.size() + 15) / 16 * 16);
  const int bricks = (cout + 15) / 16;
  const std::size_t ofmBytes = t.brickOfm ? static_cast<std::size_t>(oh * ow * bricks * 16) : expected.size();
  std::vector<std::uint8_t> region1(ofmBase + ofmBytes, 0xAA);
  std::copy(ifm.begin(), ifm.end(), reinterpret_cast<std::int8_t*>(region1.data()));

  Stream s;
  if (cores > 1) s.set0(cmd0::kParallelMode, 1);
  s.set0(cmd0::kIfmRegion, 1).set1(cmd1::kIfmBase0, 0);
  s.set0(cmd0::kIfmHeight0M1, static_cast<std::uint16_t>(t.h - 1)).set0(cmd0::kIfmHeight1M1, static_cast<std::uint16_t>(t.h - 1));
  s.set0(cmd0::kIfmWidth0M1, static_cast<std::uint16_t>(t.w - 1)).set0(cmd0::kIfmDepthM1, static_cast<std::uint16_t>(t.cin - 1));
  s.set1(cmd1::kIfmStrideC, 1).set1(cmd1::kIfmStrideX, static_cast<std::uint32_t>(t.cin));
  s.set1(cmd1::kIfmStrideY, static_cast<std::uint32_t>(t.cin * t.w));
  s.set0(cmd0::kIfmZeroPoint, static_cast<std::uint16_t>(t.ifmZp)).set0(cmd0::kIfmPrecision, 0x0001);
  s.set0(cmd0::kIfmPadTop, static_cast<std::uint16_t>(t.padTop)).set0(cmd0::kIfmPadLeft, static_cast<std::uint16_t>(t.padLeft));
  s.set0(cmd0::kIfmPadBottom, static_cast<std::uint16_t>(padBottom)).set0(cmd0::kIfmPadRight, static_cast<std::uint16_t>(padRight));
  s.set0(cmd0::kOfmRegion, 1).set1(cmd1::kOfmBase0, ofmBase);
  s.set0(cmd0::kOfmHeight0M1, static_cast<std::uint16_t>(oh - 1)).set0(cmd0::kOfmHeight1M1, static_cast<std::uint16_t>(oh - 1));
  s.set0(cmd0::kOfmWidth0M1, static_cast<std::uint16_t>(ow - 1));
  s.set0(cmd0::kOfmHeightM1, static_cast<std::uint16_t>(oh - 1)).set0(cmd0::kOfmWidthM1, static_cast<std::uint16_t>(ow - 1));
  s.set0(cmd0::kOfmDepthM1, static_cast<std::uint16_t>(cout - 1));
  if (t.brickOfm) {
    s.set1(cmd1::kOfmStrideX, 16).set1(cmd1::kOfmStrideC, static_cast<std::uint32_t>(16 * ow));
    s.set1(cmd1::kOfmStrideY, static_cast<std::uint32_t>(ow * bricks * 16));
  } else {
    s.set1(cmd1::kOfmStrideC, 1).set1(cmd1::kOfmStrideX, static_cast<std::uint32_t>(cout));
    s.set1(cmd1::kOfmStrideY, static_cast<std::uint32_t>(cout * ow));
  }
  s.set0(cmd0::kOfmZeroPoint, static_cast<std::uint16_t>(t.ofmZp));
  s.set0(cmd0::kOfmPrecision, static_cast<std::uint16_t>(0x0001 | (t.brickOfm ? 0x40 : 0) | (t.natural ? 0x8000 : 0)));
  s.set0(cmd0::kKernelHeightM1, static_cast<std::uint16_t>(khExt - 1)).set0(cmd0::kKernelWidthM1, static_cast<std::uint16_t>(kwExt - 1));
  const unsigned ks = static_cast<unsigned>(((t.sx - 1) & 1) | (((t.sy - 1) & 1) << 1) | (t.partKernel ? 4 : 0) |
                                            (t.dx == 2 ? 8 : 0) | (t.dy == 2 ? 16 : 0) | (((t.sx - 1) >> 1) << 6) |
                                            (((t.sy - 1) >> 1) << 9));
  s.set0(cmd0::kKernelStride, static_cast<std::uint16_t>(ks));
  s.set0(cmd0::kWeightRegion, 0).set1(cmd1::kWeightBase, weightBase[0]).set1(cmd1::kWeightLength, weightLength[0]);
  s.set0(cmd0::kScaleRegion, 0).set1(cmd1::kScaleBase, scaleBase[0]).set1(cmd1::kScaleLength, scaleLength[0]);
  if (cores > 1) {
    s.set1(cmd1::kWeight1Base, weightBase[1]).set1(cmd1::kWeight1Length, weightLength[1]);
    s.set1(cmd1::kScale1Base, scaleBase[1]).set1(cmd1::kScale1Length, scaleLength[1]);
  }
  s.set0(cmd0::kActivation, 0).set0(cmd0::kActivationMin, static_cast<std::uint16_t>(t.actMin));
  s.set0(cmd0::kActivationMax, static_cast<std::uint16_t>(t.actMax));
  s.set0(cmd0::kOfmBlkDepthM1, static_cast<std::uint16_t>(t.blockDepth - 1));
  s.set0(t.depthwise ? cmd0::kOpDepthwise : cmd0::kOpConv, 0).set0(cmd0::kOpStop, 0xFFFF);

  MemoryRegions regions{};
  regions[0] = region0;
  regions[1] = region1;
  Simulator sim(t.accel);
  Status st = sim.run(s.commands(), regions);
  if (!t.expectError.empty()) {
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().kind(), ErrorKind::Unsupported);
    EXPECT_NE(st.error().message().find(t.expectError), std::string::npos) << st.error().message();
    return;
  }
  ASSERT_TRUE(st) << st.error().message();
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x)
      for (int c = 0; c < cout; ++c) {
        const std::size_t at = t.brickOfm
                                   ? ofmBase + static_cast<std::size_t>(y * ow * bricks * 16 + (c / 16) * 16 * ow + x * 16 + c % 16)
                                   : ofmBase + static_cast<std::size_t>((y * ow + x) * cout + c);
        ASSERT_EQ(static_cast<std::int8_t>(region1[at]), expected[static_cast<std::size_t>((y * ow + x) * cout + c)])
            << "y " << y << " x " << x << " c " << c;
      }
}

TEST(EthosUSimulator, Conv3x3SamePadding) { runConvCase(ConvCase{}, 1); }

TEST(EthosUSimulator, ConvShapesStridesPaddingsAndTraversals) {
  std::uint32_t seed = 10;
  for (int stride : {1, 2, 3}) {
    for (bool pkf : {false, true}) {
      ConvCase t;
      t.h = 9; t.w = 7; t.cin = 37; t.cout = 21; t.sy = stride; t.sx = stride; t.partKernel = pkf;
      t.padTop = 1; t.padLeft = 0; t.ifmZp = 7; t.ofmZp = -11;
      runConvCase(t, ++seed);
    }
  }
  ConvCase big;  // 1x1 kernel, no padding (fully connected shape), larger depths
  big.h = 1; big.w = 1; big.kh = 1; big.kw = 1; big.cin = 70; big.cout = 40;
  big.padTop = big.padLeft = big.padBottom = big.padRight = 0;
  big.blockDepth = 32;
  runConvCase(big, ++seed);
  ConvCase wide;  // kernel wider than an 8x8 sub-kernel, dilation 2, ReLU6-style clamp, NATURAL
  wide.h = 12; wide.w = 14; wide.kh = 2; wide.kw = 9; wide.dx = 2; wide.dy = 2; wide.cin = 5; wide.cout = 8;
  wide.padTop = 2; wide.padLeft = 8; wide.actMin = 5; wide.actMax = 60; wide.natural = true; wide.blockDepth = 8;
  runConvCase(wide, ++seed);
  ConvCase small;  // U55-32 micro-blocks, NHCWB16 OFM
  small.accel = accelerator("ethos-u55-32");
  small.cout = 20; small.brickOfm = true; small.blockDepth = 8;
  runConvCase(small, ++seed);
}

AcceleratorConfig u65_512() { return accelerator("ethos-u65-512"); }

TEST(EthosUSimulator, TwoCoreConvAndDepthwiseReadPerCoreStreams) {
  std::uint32_t seed = 500;
  for (int cout : {16, 21, 1, 40}) {
    for (bool pkf : {false, true}) {
      ConvCase t;
      t.accel = u65_512();
      t.cin = 11; t.cout = cout; t.partKernel = pkf;
      t.blockDepth = 16;  // 8 channels per core and block
      runConvCase(t, ++seed);
    }
  }
  ConvCase deep;  // several 32-deep blocks: 16 channels per core and block
  deep.accel = u65_512();
  deep.h = 3; deep.w = 4; deep.cin = 20; deep.cout = 70; deep.blockDepth = 32;
  runConvCase(deep, ++seed);
  ConvCase brick;
  brick.accel = u65_512();
  brick.cout = 20; brick.brickOfm = true;
  runConvCase(brick, ++seed);
  for (int channels : {19, 8, 1}) {
    ConvCase t;
    t.accel = u65_512();
    t.depthwise = true; t.h = 6; t.w = 7; t.cin = channels; t.sy = 2; t.sx = 2;
    runConvCase(t, ++seed);
  }
}

TEST(EthosUSimulator, TwoCoreSplitsThatAreNotDocumentedAreRefused) {
  ConvCase odd;  // an odd block depth cannot be halved
  odd.accel = u65_512();
  odd.cout = 8; odd.blockDepth = 7;
  odd.expectError = "OFM_BLK_DEPTH 7: an odd block depth";
  runConvCase(odd, 1);
  ConvCase partial;  // 4 channels per core and block, then more blocks: order not documented
  partial.accel = u65_512();
  partial.cout = 21; partial.blockDepth = 8;
  partial.expectError = "core 0 block depth 4 is not a multiple of the OFM micro-block depth 8";
  runConvCase(partial, 2);
}

TEST(EthosUSimulator, Depthwise) {
  std::uint32_t seed = 100;
  for (int stride : {1, 2}) {
    ConvCase t;
    t.depthwise = true; t.h = 8; t.w = 10; t.cin = 19; t.sy = stride; t.sx = stride;
    runConvCase(t, ++seed);
  }
}

/// A 1-tile NHWC feature map's registers.
void setFeatureMap(Stream& s, bool ofm, std::uint32_t base, int h, int w, int c, std::uint16_t precision) {
  if (ofm) {
    s.set0(cmd0::kOfmRegion, 1).set1(cmd1::kOfmBase0, base);
    s.set0(cmd0::kOfmHeight0M1, static_cast<std::uint16_t>(h - 1)).set0(cmd0::kOfmHeight1M1, static_cast<std::uint16_t>(h - 1));
    s.set0(cmd0::kOfmWidth0M1, static_cast<std::uint16_t>(w - 1)).set0(cmd0::kOfmHeightM1, static_cast<std::uint16_t>(h - 1));
    s.set0(cmd0::kOfmWidthM1, static_cast<std::uint16_t>(w - 1)).set0(cmd0::kOfmDepthM1, static_cast<std::uint16_t>(c - 1));
    s.set1(cmd1::kOfmStrideC, 1).set1(cmd1::kOfmStrideX, static_cast<std::uint32_t>(c)).set1(cmd1::kOfmStrideY, static_cast<std::uint32_t>(c * w));
    s.set0(cmd0::kOfmPrecision, precision);
  } else {
    s.set0(cmd0::kIfmRegion, 1).set1(cmd1::kIfmBase0, base);
    s.set0(cmd0::kIfmHeight0M1, static_cast<std::uint16_t>(h - 1)).set0(cmd0::kIfmHeight1M1, static_cast<std::uint16_t>(h - 1));
    s.set0(cmd0::kIfmWidth0M1, static_cast<std::uint16_t>(w - 1)).set0(cmd0::kIfmDepthM1, static_cast<std::uint16_t>(c - 1));
    s.set1(cmd1::kIfmStrideC, 1).set1(cmd1::kIfmStrideX, static_cast<std::uint32_t>(c)).set1(cmd1::kIfmStrideY, static_cast<std::uint32_t>(c * w));
    s.set0(cmd0::kIfmPrecision, precision);
  }
}

TEST(EthosUSimulator, MaxAndAveragePool) {
  // IFM 4x4x2 int8, values y*16 + x*4 + c - 30.
  const int h = 4, w = 4, c = 2;
  std::vector<std::uint8_t> mem(256, 0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) mem[static_cast<std::size_t>((y * w + x) * c + k)] = static_cast<std::uint8_t>(y * 16 + x * 4 + k - 30);
  // MAX 3x3 stride 2, SAME padding (1 top/left, 0... OFM 2x2: (2-1)*2+3-1-pb = 4 -> pb = 0).
  Stream s;
  setFeatureMap(s, false, 0, h, w, c, 0x0001);
  setFeatureMap(s, true, 64, 2, 2, c, 0x0001);
  s.set0(cmd0::kIfmPadTop, 1).set0(cmd0::kIfmPadLeft, 1).set0(cmd0::kIfmPadBottom, 0).set0(cmd0::kIfmPadRight, 0);
  s.set0(cmd0::kKernelHeightM1, 2).set0(cmd0::kKernelWidthM1, 2).set0(cmd0::kKernelStride, 3);
  s.set0(cmd0::kActivationMin, static_cast<std::uint16_t>(-128)).set0(cmd0::kActivationMax, 127);
  s.set0(cmd0::kOpPool, 0);
  // AVERAGE 2x2 stride 2 no padding, TOSA reciprocal for k = 4: b = 32 - clz(3) = 2,
  // m = ((1<<30)+1) << 2 / 4 = 0x40000001, s = 32, NATURAL; ifm zp -2, ofm zp 3.
  setFeatureMap(s, true, 128, 2, 2, c, 0x8101);
  s.set0(cmd0::kIfmPadTop, 0).set0(cmd0::kIfmPadLeft, 0);
  s.set0(cmd0::kKernelHeightM1, 1).set0(cmd0::kKernelWidthM1, 1).set0(cmd0::kKernelStride, 3);
  s.set0(cmd0::kIfmZeroPoint, static_cast<std::uint16_t>(-2)).set0(cmd0::kOfmZeroPoint, 3);
  s.set1(cmd1::kOfmScale, 0x40000001u, 32);
  s.set0(cmd0::kOpPool, 1).set0(cmd0::kOpStop, 0xFFFF);
  MemoryRegions regions{};
  regions[1] = mem;
  Simulator sim(u55_128());
  Status st = sim.run(s.commands(), regions);
  ASSERT_TRUE(st) << st.error().message();
  auto at = [&](std::uint32_t base, int y, int x, int k) { return static_cast<int>(static_cast<std::int8_t>(mem[base + static_cast<std::size_t>((y * 2 + x) * c + k)])); };
  auto in = [&](int y, int x, int k) { return y * 16 + x * 4 + k - 30; };
  // MAX windows: rows {-1,0,1} / {1,2,3}; largest is the bottom-right valid element.
  EXPECT_EQ(at(64, 0, 0, 0), in(1, 1, 0));
  EXPECT_EQ(at(64, 0, 1, 1), in(1, 3, 1));
  EXPECT_EQ(at(64, 1, 1, 0), in(3, 3, 0));
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 2; ++x)
      for (int k = 0; k < c; ++k) {
        std::int64_t sum = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) sum += in(2 * y + dy, 2 * x + dx, k) + 2;
        const std::int64_t expect = std::clamp<std::int64_t>(applyScale32(sum, 0x40000001, 32, false) + 3, -128, 127);
        EXPECT_EQ(at(128, y, x, k), expect) << y << x << k;
      }
}

TEST(EthosUSimulator, ElementwiseAddMulSubWithBroadcastAndScalar) {
  const int h = 2, w = 3, c = 4;
  const int n = h * w * c;
  std::vector<std::uint8_t> mem(512, 0);
  for (int i = 0; i < n; ++i) mem[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i * 11 - 100);
  for (int k = 0; k < c; ++k) mem[static_cast<std::size_t>(64 + k)] = static_cast<std::uint8_t>(k * 30 - 50);  // IFM2 1x1xC
  Stream s;
  setFeatureMap(s, false, 0, h, w, c, 0x0101);  // OPA_32 scale mode
  setFeatureMap(s, true, 128, h, w, c, 0x0101);  // global scale
  s.set0(cmd0::kIfm2Region, 1).set1(cmd1::kIfm2Base0, 64);
  s.set1(cmd1::kIfm2StrideC, 1).set1(cmd1::kIfm2StrideX, static_cast<std::uint32_t>(c)).set1(cmd1::kIfm2StrideY, static_cast<std::uint32_t>(c));
  s.set0(cmd0::kIfm2Height0M1, 0).set0(cmd0::kIfm2Width0M1, 0).set0(cmd0::kIfm2Height1M1, 0).set0(cmd0::kIfm2Precision, 1);
  s.set0(cmd0::kIfm2Broadcast, 3);  // broadcast H and W
  s.set0(cmd0::kIfmZeroPoint, 4).set0(cmd0::kIfm2ZeroPoint, static_cast<std::uint16_t>(-6)).set0(cmd0::kOfmZeroPoint, 2);
  s.set0(cmd0::kActivationMin, static_cast<std::uint16_t>(-128)).set0(cmd0::kActivationMax, 127);
  // Spec §1.7 ADD example: OPA shift 12 scale 0x55555555, OFM shift 50 scale 0x4ccccccd.
  s.set1(cmd1::kOpaScale, 0x55555555u, 12).set1(cmd1::kOfmScale, 0x4ccccccdu, 50);
  s.set0(cmd0::kOpElementwise, 1);
  // MUL with a scalar IFM2 = 3 (zp 0), OFM scale 1/2 (0x40000000, 31).
  setFeatureMap(s, true, 192, h, w, c, 0x0101);
  s.set0(cmd0::kIfm2Broadcast, 0x80).set0(cmd0::kIfm2Scalar, 3).set0(cmd0::kIfm2ZeroPoint, 0);
  s.set1(cmd1::kOfmScale, 0x40000000u, 31);
  s.set0(cmd0::kOpElementwise, 0);
  // SUB with operand order swapped: scalar - ifm, OPA_OPB_16 both 2^15, OFM 2*1/2^16 -> (1<<30, 45).
  setFeatureMap(s, false, 0, h, w, c, 0x0001);
  setFeatureMap(s, true, 256, h, w, c, 0x0101);
  s.set0(cmd0::kIfm2Broadcast, 0xC0).set1(cmd1::kOpaScale, 0x8000, 0).set1(cmd1::kOpbScale, 0x8000);
  s.set1(cmd1::kOfmScale, 1u << 30, 45);
  s.set0(cmd0::kOpElementwise, 2).set0(cmd0::kOpStop, 0);
  MemoryRegions regions{};
  regions[1] = mem;
  Simulator sim(u55_128());
  Status st = sim.run(s.commands(), regions);
  ASSERT_TRUE(st) << st.error().message();
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) {
        const int i = (y * w + x) * c + k;
        const std::int64_t a = static_cast<std::int8_t>(mem[static_cast<std::size_t>(i)]) - 4;
        const std::int64_t b = static_cast<std::int8_t>(mem[static_cast<std::size_t>(64 + k)]) + 6;
        const std::int64_t r = applyScale32(a, 0x55555555, 12, true) + (b << 19);
        const std::int64_t add = std::clamp<std::int64_t>(applyScale32(r, 0x4ccccccd, 50, true) + 2, -128, 127);
        EXPECT_EQ(static_cast<std::int8_t>(mem[static_cast<std::size_t>(128 + i)]), add) << i;
        const std::int64_t mul = std::clamp<std::int64_t>(applyScale32(a * 3, 0x40000000, 31, true) + 2, -128, 127);
        EXPECT_EQ(static_cast<std::int8_t>(mem[static_cast<std::size_t>(192 + i)]), mul) << i;
        const std::int64_t sub = std::clamp<std::int64_t>(applyScale32(3 * 32768 - (a * 32768), 1 << 30, 45, true) + 2, -128, 127);
        EXPECT_EQ(static_cast<std::int8_t>(mem[static_cast<std::size_t>(256 + i)]), sub) << i;
      }
}

TEST(EthosUSimulator, Int32ElementwiseOperands) {
  // ADD of a scalar 0 with OPA_32 writes the rescaled IFM as int32 (no OFM scaling); then two
  // int32 maps are added with unit OPA_OPB_16 scales and scaled to int8.
  const int h = 2, w = 3, c = 5;
  const int n = h * w * c;
  std::vector<std::uint8_t> mem(1024, 0);
  for (int i = 0; i < n; ++i) mem[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i * 37 - 120);
  for (int i = 0; i < n; ++i) mem[static_cast<std::size_t>(32 + i)] = static_cast<std::uint8_t>(90 - i * 23);
  auto int32Ofm = [&](Stream& s, std::uint32_t base) {
    setFeatureMap(s, true, base, h, w, c, 0x0105);  // signed, 32-bit, global scale
    s.set1(cmd1::kOfmStrideC, 4).set1(cmd1::kOfmStrideX, 4u * c).set1(cmd1::kOfmStrideY, 4u * c * w);
  };
  Stream s;
  s.set0(cmd0::kIfm2Broadcast, 0x80).set0(cmd0::kIfm2Scalar, 0).set0(cmd0::kIfm2ZeroPoint, 0).set0(cmd0::kIfm2Precision, 1);
  s.set0(cmd0::kActivationMin, static_cast<std::uint16_t>(-32768)).set0(cmd0::kActivationMax, 32767);
  setFeatureMap(s, false, 0, h, w, c, 0x0101);  // OPA_32, DBL
  s.set0(cmd0::kIfmZeroPoint, static_cast<std::uint16_t>(-7)).set1(cmd1::kOpaScale, 2093009312u, 21);
  int32Ofm(s, 128);
  s.set0(cmd0::kOpElementwise, 1);
  setFeatureMap(s, false, 32, h, w, c, 0x8101);  // OPA_32, NATURAL
  s.set0(cmd0::kIfmZeroPoint, 9).set1(cmd1::kOpaScale, 1518500250u, 33);
  int32Ofm(s, 256);
  s.set0(cmd0::kOpElementwise, 1);
  setFeatureMap(s, false, 128, h, w, c, 0x0009);  // signed 32-bit, OPA_OPB_16
  s.set1(cmd1::kIfmStrideC, 4).set1(cmd1::kIfmStrideX, 4u * c).set1(cmd1::kIfmStrideY, 4u * c * w);
  s.set0(cmd0::kIfmZeroPoint, 0).set1(cmd1::kOpaScale, 1, 0).set1(cmd1::kOpbScale, 1);
  s.set0(cmd0::kIfm2Region, 1).set1(cmd1::kIfm2Base0, 256).set0(cmd0::kIfm2Broadcast, 0).set0(cmd0::kIfm2Precision, 9);
  s.set1(cmd1::kIfm2StrideC, 4).set1(cmd1::kIfm2StrideX, 4u * c).set1(cmd1::kIfm2StrideY, 4u * c * w);
  s.set0(cmd0::kIfm2Height0M1, h - 1).set0(cmd0::kIfm2Width0M1, w - 1).set0(cmd0::kIfm2Height1M1, h - 1);
  setFeatureMap(s, true, 512, h, w, c, 0x0101);
  s.set0(cmd0::kOfmZeroPoint, 3).set0(cmd0::kActivationMin, static_cast<std::uint16_t>(-128)).set0(cmd0::kActivationMax, 127);
  s.set1(cmd1::kOfmScale, 1288490189u, 41);
  s.set0(cmd0::kOpElementwise, 2).set0(cmd0::kOpStop, 0);
  MemoryRegions regions{};
  regions[1] = mem;
  Simulator sim(u55_128());
  Status st = sim.run(s.commands(), regions);
  ASSERT_TRUE(st) << st.error().message();
  auto int32At = [&](std::size_t at) {
    std::uint32_t u = 0;
    for (int k = 0; k < 4; ++k) u |= std::uint32_t{mem[at + static_cast<std::size_t>(k)]} << (8 * k);
    return static_cast<std::int64_t>(static_cast<std::int32_t>(u));
  };
  for (int i = 0; i < n; ++i) {
    const std::int64_t a = applyScale32(static_cast<std::int8_t>(mem[static_cast<std::size_t>(i)]) + 7, 2093009312, 21, true);
    const std::int64_t b = applyScale32(static_cast<std::int8_t>(mem[static_cast<std::size_t>(32 + i)]) - 9, 1518500250, 33, false);
    EXPECT_EQ(int32At(128 + 4 * static_cast<std::size_t>(i)), a) << i;
    EXPECT_EQ(int32At(256 + 4 * static_cast<std::size_t>(i)), b) << i;
    const std::int64_t out = std::clamp<std::int64_t>(applyScale32(a - b, 1288490189, 41, true) + 3, -128, 127);
    EXPECT_EQ(static_cast<std::int8_t>(mem[512 + static_cast<std::size_t>(i)]), out) << i;
  }
  // Refused rather than guessed: OPA_32 with a 32-bit IFM (its operand shift is unknown),
  // IFM2 precision different from the IFM's, and PARALLEL_MODE 1 on a one-core configuration.
  Stream opa32 = s;
  opa32.commands().pop_back();
  opa32.commands().pop_back();
  opa32.set0(cmd0::kIfmPrecision, 0x0109).set0(cmd0::kOpElementwise, 1);
  st = sim.run(opa32.commands(), regions);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("scale mode 1 with a 32-bit IFM"), std::string::npos) << st.error().message();
  Stream mixed = s;
  mixed.commands().pop_back();
  mixed.commands().pop_back();
  mixed.set0(cmd0::kIfm2Precision, 1).set0(cmd0::kOpElementwise, 1);
  st = sim.run(mixed.commands(), regions);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("IFM2_PRECISION: expected the IFM's 32-bit precision, got 8-bit"), std::string::npos)
      << st.error().message();
  Simulator twoCores(accelerator("ethos-u65-256"));
  Stream parallel = s;
  parallel.commands().insert(parallel.commands().begin(), Command{0, 0, cmd0::kParallelMode, false, 1, 0});
  st = twoCores.run(parallel.commands(), regions);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("PARALLEL_MODE 1: expected a two-core configuration"), std::string::npos)
      << st.error().message();
}

TEST(EthosUSimulator, DmaLoadsALutThatAPoolAppliesAfterScaling) {
  // LUT in region 0 (256 bytes): out = 127 - index. Copy it to slot 1 of SHRAM.
  std::vector<std::uint8_t> region0(256);
  for (int i = 0; i < 256; ++i) region0[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(127 - i);
  std::vector<std::uint8_t> region1(64, 0);
  for (int i = 0; i < 8; ++i) region1[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i * 30 - 100);
  const AcceleratorConfig info = u55_128();
  const std::uint32_t lutStart = static_cast<std::uint32_t>((info.shramBanks - 2) * 1024);
  Stream s;
  s.set0(cmd0::kDmaSrcRegion, 0).set1(cmd1::kDmaSrc, 0);
  s.set0(cmd0::kDmaDstRegion, 0x100).set1(cmd1::kDmaDst, lutStart + 256).set1(cmd1::kDmaLen, 256);
  s.set0(cmd0::kOpDmaStart, 0).set0(cmd0::kOpDmaWait, 0);
  setFeatureMap(s, false, 0, 1, 8, 1, 0x0001);
  setFeatureMap(s, true, 32, 1, 8, 1, 0x0101);
  s.set0(cmd0::kKernelHeightM1, 0).set0(cmd0::kKernelWidthM1, 0).set0(cmd0::kKernelStride, 0);
  s.set1(cmd1::kOfmScale, 1, 0);
  s.set0(cmd0::kActivation, 17).set0(cmd0::kActivationMin, static_cast<std::uint16_t>(-128)).set0(cmd0::kActivationMax, 127);
  s.set0(cmd0::kOpPool, 1).set0(cmd0::kOpStop, 0);
  MemoryRegions regions{};
  regions[0] = region0;
  regions[1] = region1;
  Simulator sim(info);
  Status st = sim.run(s.commands(), regions);
  ASSERT_TRUE(st) << st.error().message();
  for (int i = 0; i < 8; ++i) {
    const int v = i * 30 - 100;
    EXPECT_EQ(static_cast<std::int8_t>(region1[static_cast<std::size_t>(32 + i)]), 127 - (v + 128));
  }
  EXPECT_EQ(sim.stats().dmaBytes, 256u);
}

TEST(EthosUSimulator, TwoCoreTablesMustBeLoadedIntoBothCores) {
  // PARALLEL_MODE 1 pool with TABLE_1: the table DMA'd with core mask 3 works; with mask 1
  // (core 0 only) the cores' tables differ and the operation is refused.
  std::vector<std::uint8_t> region0(256);
  for (int i = 0; i < 256; ++i) region0[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(127 - i);
  const AcceleratorConfig info = u65_512();
  const std::uint32_t lutStart = static_cast<std::uint32_t>((info.shramBanks - 2) * 1024);
  for (std::uint16_t mask : {3, 1}) {
    std::vector<std::uint8_t> region1(64, 0);
    for (int i = 0; i < 8; ++i) region1[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i * 30 - 100);
    Stream s;
    s.set0(cmd0::kParallelMode, 1);
    s.set0(cmd0::kDmaSrcRegion, 0).set1(cmd1::kDmaSrc, 0);
    s.set0(cmd0::kDmaDstRegion, static_cast<std::uint16_t>(0x100 | mask)).set1(cmd1::kDmaDst, lutStart + 256).set1(cmd1::kDmaLen, 256);
    s.set0(cmd0::kOpDmaStart, 0).set0(cmd0::kOpDmaWait, 0);
    setFeatureMap(s, false, 0, 1, 4, 2, 0x0001);
    setFeatureMap(s, true, 32, 1, 4, 2, 0x0101);
    s.set0(cmd0::kKernelHeightM1, 0).set0(cmd0::kKernelWidthM1, 0).set0(cmd0::kKernelStride, 0);
    s.set1(cmd1::kOfmScale, 1, 0);
    s.set0(cmd0::kActivation, 17).set0(cmd0::kActivationMin, static_cast<std::uint16_t>(-128)).set0(cmd0::kActivationMax, 127);
    s.set0(cmd0::kOpPool, 1).set0(cmd0::kOpStop, 0);
    MemoryRegions regions{};
    regions[0] = region0;
    regions[1] = region1;
    Simulator sim(info);
    Status st = sim.run(s.commands(), regions);
    if (mask == 1) {
      ASSERT_FALSE(st);
      EXPECT_NE(st.error().message().find("TABLE_1 differs between the two cores"), std::string::npos) << st.error().message();
      continue;
    }
    ASSERT_TRUE(st) << st.error().message();
    for (int i = 0; i < 8; ++i) {
      const int v = i * 30 - 100;
      EXPECT_EQ(static_cast<std::int8_t>(region1[static_cast<std::size_t>(32 + i)]), 127 - (v + 128));
    }
  }
}

TEST(EthosUSimulator, FourTileBrickIfmIsReadWithTileRelativeCoordinates) {
  // IFM 4x4x20 in NHCWB16, split into four tiles: width0 = 2, height0 = 3 (left column),
  // height1 = 1 (right column). Each tile holds 2 columns, 2 bricks of 16 channels.
  const int h = 4, w = 4, c = 20;
  const std::uint32_t strideC = 16 * 2, strideY = 2 * strideC;
  const std::uint32_t bases[4] = {0, 192, 384, 576};
  std::vector<std::uint8_t> mem(2048, 0);
  auto value = [](int y, int x, int k) { return (y * 4 + x) * 3 + k - 60; };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k) {
        int tile = 0, ty = y, tx = x;
        if (x < 2) {
          if (y >= 3) { tile = 2; ty = y - 3; }
        } else {
          tx = x - 2;
          if (y >= 1) { tile = 3; ty = y - 1; } else { tile = 1; }
        }
        const std::uint32_t at = bases[tile] + static_cast<std::uint32_t>(ty) * strideY + static_cast<std::uint32_t>(k / 16) * strideC +
                                 static_cast<std::uint32_t>(tx * 16 + k % 16);
        mem[at] = static_cast<std::uint8_t>(value(y, x, k));
      }
  Stream s;
  s.set0(cmd0::kIfmRegion, 1);
  for (std::uint16_t t = 0; t < 4; ++t) s.set1(static_cast<std::uint16_t>(cmd1::kIfmBase0 + t), bases[t]);
  s.set0(cmd0::kIfmWidth0M1, 1).set0(cmd0::kIfmHeight0M1, 2).set0(cmd0::kIfmHeight1M1, 0).set0(cmd0::kIfmDepthM1, c - 1);
  s.set1(cmd1::kIfmStrideX, 16).set1(cmd1::kIfmStrideC, strideC).set1(cmd1::kIfmStrideY, strideY);
  s.set0(cmd0::kIfmPrecision, 0x0041);  // signed 8-bit NHCWB16
  setFeatureMap(s, true, 1024, h, w, c, 0x0001);
  s.set0(cmd0::kKernelHeightM1, 0).set0(cmd0::kKernelWidthM1, 0).set0(cmd0::kKernelStride, 0);
  s.set0(cmd0::kActivationMin, static_cast<std::uint16_t>(-128)).set0(cmd0::kActivationMax, 127);
  s.set0(cmd0::kOpPool, 0).set0(cmd0::kOpStop, 0);
  MemoryRegions regions{};
  regions[1] = mem;
  Simulator sim(u55_128());
  Status st = sim.run(s.commands(), regions);
  ASSERT_TRUE(st) << st.error().message();
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < c; ++k)
        ASSERT_EQ(static_cast<std::int8_t>(mem[static_cast<std::size_t>(1024 + (y * w + x) * c + k)]), value(y, x, k))
            << y << " " << x << " " << k;
}

TEST(EthosUSimulator, RegionOverflowNamesTheCommand) {
  std::vector<std::uint8_t> mem(40, 0);
  Stream s;
  setFeatureMap(s, false, 0, 1, 8, 1, 0x0001);
  setFeatureMap(s, true, 36, 1, 8, 1, 0x0101);  // OFM runs past the 40-byte region
  s.set0(cmd0::kKernelHeightM1, 0).set0(cmd0::kKernelWidthM1, 0);
  s.set1(cmd1::kOfmScale, 1, 0);
  s.set0(cmd0::kActivationMin, static_cast<std::uint16_t>(-128)).set0(cmd0::kActivationMax, 127);
  s.set0(cmd0::kOpPool, 0);
  MemoryRegions regions{};
  regions[1] = mem;
  Simulator sim(u55_128());
  Status st = sim.run(s.commands(), regions);
  ASSERT_FALSE(st);
  const std::string& msg = st.error().message();
  EXPECT_NE(msg.find(fmt::format("command {} (NPU_OP_POOL)", s.commands().size() - 1)), std::string::npos) << msg;
  EXPECT_NE(msg.find("OFM element (y 0, x 7, c 0) at byte 0x2b of region 1"), std::string::npos) << msg;
  // Inverted activation bounds are refused rather than guessed.
  Stream inverted;
  setFeatureMap(inverted, true, 0, 1, 8, 1, 0x0101);
  inverted.set0(cmd0::kActivationMin, 10).set0(cmd0::kActivationMax, 3).set0(cmd0::kOpPool, 0);
  st = sim.run(inverted.commands(), regions);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("ACTIVATION_MIN 10 > ACTIVATION_MAX 3"), std::string::npos) << st.error().message();
  // DMA out of range, and a region that was never given.
  Stream dma;
  dma.set0(cmd0::kDmaSrcRegion, 3).set1(cmd1::kDmaSrc, 0).set0(cmd0::kDmaDstRegion, 1).set1(cmd1::kDmaDst, 0);
  dma.set1(cmd1::kDmaLen, 16).set0(cmd0::kOpDmaStart, 0);
  st = sim.run(dma.commands(), regions);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("command 5 (NPU_OP_DMA_START): DMA source [0x0, +16 x 1 x 1) in region 3: expected within 0 bytes"),
            std::string::npos) << st.error().message();
}

}  // namespace
}  // namespace openvgf::runner::ethosu
