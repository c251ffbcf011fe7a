// SPDX-License-Identifier: Apache-2.0
// The scalar GEMM core (include/gemm.glsl) under the tile configs of the tuning table
// (converter/targets/tuning.cpp): 128x128 tiles of 8x8 blocks, none, one or two shared buffers,
// fp32 vec4 loads or not. Each config converts MATMUL and CONV2D at shapes with partial tiles,
// odd M/N/K and K that is not a multiple of the K step, runs them on the default device with
// the validation layer and judges them against the reference interpreter. Then the tile
// choice, run-time shapes (one module for GEMMs of many shapes), the tuning-table overrides
// (OPENVGF_TUNING) and their CLI error.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <utility>
#include <vector>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "converter/convert.h"
#include "converter/kernels/gemm_common.h"
#include "converter/targets/fingerprint.h"
#include "converter/targets/target.h"
#include "tests/converter/run_util.h"
#include "tests/support/cli_runner.h"
#include "tosa/builder.h"
#include "tosa/npy.h"
#include "tosa/writer.h"

namespace openvgf::testing {
namespace {

using converter::GemmTile;
using tosa::DType;
using tosa::HostTensor;
using tosa::Value;

// The portable target with `tile` for every GEMM of the cases below (M, N > 16) and lavapipe's
// 32 KiB of shared memory; split-K only where a case asks for it.
converter::ConvertOptions withTile(const GemmTile& tile, bool splitK) {
  converter::Target target = converter::portableTarget();
  target.tuning.gemm = tile;
  target.caps.maxSharedBytes = 32768;
  // The core without shared memory (stages 0) takes subgroups of one row of BN/TN invocations:
  // lavapipe's 8 lanes, the device these tests run on.
  if (tile.stages == 0) target.caps.subgroupSize = static_cast<std::uint32_t>(tile.bn / tile.tn);
  if (!splitK) target.tuning.gemmSplitKGroups = 0;
  EXPECT_TRUE(converter::verifyTarget(target));
  converter::ConvertOptions options;
  options.customTarget = target;
  return options;
}

struct TileCase {
  std::string name;
  GemmTile tile;
};

class GemmTiles : public ::testing::TestWithParam<TileCase> {
 protected:
  std::mt19937 rng{20261125};

  void expectPass(const tosa::Graph& graph, const std::vector<HostTensor>& inputs, bool splitK = false,
                  std::size_t kernels = 1) {
    RunOutcome outcome = convertRunCheck(graph, inputs, withTile(GetParam().tile, splitK));
    expectAllPass(outcome);
    EXPECT_EQ(outcome.stats.kernels, kernels);
  }

  void matmul(std::int64_t batch, std::int64_t m, std::int64_t k, std::int64_t n, bool splitK = false,
              std::size_t kernels = 1) {
    SCOPED_TRACE(fmt::format("MATMUL {}x{}x{}x{}", batch, m, k, n));
    tosa::Builder b;
    Value x = b.input("a", DType::Fp32, {batch, m, k});
    Value y = b.input("b", DType::Fp32, {batch, k, n});
    b.output(b.matmul(x, y, {}));
    auto graph = b.build();
    ASSERT_TRUE(graph) << graph.error().message();
    expectPass(*graph, {randomFp32({batch, m, k}, rng), randomFp32({batch, k, n}, rng)}, splitK, kernels);
  }

  // CONV2D 3x3 (pad 1, `stride`) of [1, h, w, ic] to oc channels, bias and a CLAMP epilogue.
  void conv(std::int64_t h, std::int64_t w, std::int64_t ic, std::int64_t oc, int stride, bool splitK = false,
            std::size_t kernels = 1) {
    SCOPED_TRACE(fmt::format("CONV2D {}x{}x{} -> {}, stride {}", h, w, ic, oc, stride));
    tosa::Builder b;
    Value x = b.input("x", DType::Fp32, {1, h, w, ic});
    tosa::ConvParams cp;
    cp.pad = {1, 1, 1, 1};
    cp.stride = {stride, stride};
    Value c = b.conv2d(x, b.constant(randomFp32({oc, 3, 3, ic}, rng, -0.2f, 0.2f)), b.constant(randomFp32({oc}, rng)),
                       cp);
    b.output(b.clamp(c, -1.0, 6.0));
    auto graph = b.build();
    ASSERT_TRUE(graph) << graph.error().message();
    expectPass(*graph, {randomFp32({1, h, w, ic}, rng)}, splitK, kernels);
  }
};

// Scalar loads: odd N and K (37 is under one 8-deep K step of the last slice).
TEST_P(GemmTiles, MatmulOddSizes) { matmul(2, 130, 37, 131); }

// vec4 loads of A and B (K, N multiples of 4); K = 68 leaves a half K step at the end.
TEST_P(GemmTiles, MatmulVec4Loads) { matmul(1, 136, 68, 260); }

// One tile and a deep K: split-K slices run the same core over K ranges, then a reduction
// (one output per invocation: few outputs).
TEST_P(GemmTiles, MatmulSplitK) { matmul(1, 40, 1000, 44, /*splitK=*/true, /*kernels=*/2); }

// ... also with odd N and two batches; the last workgroup of the reduction is partly idle.
TEST_P(GemmTiles, MatmulSplitKOddWidth) {
  matmul(2, 41, 1000, 45, /*splitK=*/true, /*kernels=*/2);
}

// A split-K convolution with 2^18 outputs (64 x 64 pixels, 64 channels), whose reduction reads
// four outputs' partials per invocation and applies the bias and the CLAMP to each.
TEST_P(GemmTiles, Conv2dSplitKFourOutputsPerInvocation) {
  conv(64, 64, 32, 64, 1, /*splitK=*/true, /*kernels=*/2);
}

// IC 12 and OC 132: vec4 gathers of input channels and of the [K][OC] weights.
TEST_P(GemmTiles, Conv2dVec4Loads) { conv(9, 11, 12, 132, 1); }

// IC 5, OC 70, stride 2: scalar gathers, padding rows and columns in every tile.
TEST_P(GemmTiles, Conv2dOddChannels) { conv(13, 11, 5, 70, 2); }

INSTANTIATE_TEST_SUITE_P(Tiles, GemmTiles,
                         ::testing::Values(TileCase{"b128x128x8_r8x8_double", {128, 128, 8, 8, 8, 2}},
                                           TileCase{"b128x128x16_r8x8_single", {128, 128, 16, 8, 8, 1}},
                                           TileCase{"b128x64x8_r8x4_double", {128, 64, 8, 8, 4, 2}},
                                           TileCase{"b64x64x16_r4x4_double", {64, 64, 16, 4, 4, 2}},
                                           TileCase{"b64x64x16_r4x4_single", {64, 64, 16, 4, 4, 1}},
                                           TileCase{"b64x64x16_r8x8_noshared", {64, 64, 16, 8, 8, 0}}),
                         [](const ::testing::TestParamInfo<TileCase>& p) { return p.param.name; });

HostTensor randomInt8(tosa::Shape shape, std::mt19937& rng) {
  HostTensor t(DType::Int8, std::move(shape));
  std::uniform_int_distribution<int> dist(-128, 127);
  for (std::int8_t& v : t.as<std::int8_t>()) v = static_cast<std::int8_t>(dist(rng));
  return t;
}

HostTensor randomInt32(tosa::Shape shape, std::mt19937& rng) {
  HostTensor t(DType::Int32, std::move(shape));
  std::uniform_int_distribution<int> dist(-5000, 5000);
  for (std::int32_t& v : t.as<std::int32_t>()) v = dist(rng);
  return t;
}

// Run-time shapes (Tuning::runtimeShapes, the tuning table's CPU entry; lavapipe's 8-lane
// subgroups): convolutions that differ in size, channels, filter, stride, dilation, padding and
// zero points share one module per structural variant (general fp32 gather, the 1x1 path,
// int8, MATMUL, each on the full tile or, for N <= 32, the half-width one), small M on the same
// tile, each still judged against the reference interpreter; with compile-time shapes each
// operator has its own module.
TEST(RuntimeShapes, ConvolutionsAndMatmulsOfEveryShapeShareAModule) {
  std::mt19937 rng(36);
  tosa::Builder b;
  std::vector<HostTensor> inputs;
  auto conv = [&](std::int64_t h, std::int64_t w, std::int64_t ic, std::int64_t oc, std::int64_t kh, std::int64_t kw,
                  tosa::ConvParams cp) {
    const std::string name = fmt::format("x{}", inputs.size());
    Value x = b.input(name, DType::Fp32, {1, h, w, ic});
    inputs.push_back(randomFp32({1, h, w, ic}, rng));
    Value c = b.conv2d(x, b.constant(randomFp32({oc, kh, kw, ic}, rng, -0.2f, 0.2f)),
                       b.constant(randomFp32({oc}, rng)), cp);
    b.output(b.clamp(c, -1.0, 6.0));
  };
  conv(9, 11, 12, 20, 3, 3, {.pad = {1, 1, 1, 1}, .stride = {1, 1}, .dilation = {1, 1}});
  conv(14, 10, 8, 36, 3, 3, {.pad = {0, 1, 2, 1}, .stride = {2, 2}, .dilation = {2, 2}});
  conv(12, 17, 4, 24, 5, 3, {.pad = {2, 2, 1, 1}, .stride = {1, 2}, .dilation = {1, 1}});
  conv(10, 7, 16, 40, 1, 1, {.pad = {0, 0, 0, 0}, .stride = {1, 1}, .dilation = {1, 1}});
  conv(6, 9, 24, 28, 1, 1, {.pad = {0, 0, 0, 0}, .stride = {1, 1}, .dilation = {1, 1}});
  conv(7, 9, 8, 12, 3, 3, {.pad = {1, 1, 1, 1}, .stride = {1, 1}, .dilation = {1, 1}});  // N = 12
  auto convInt8 = [&](std::int64_t h, std::int64_t w, std::int64_t ic, std::int64_t oc, tosa::ConvParams cp) {
    const std::string name = fmt::format("x{}", inputs.size());
    Value x = b.input(name, DType::Int8, {1, h, w, ic});
    inputs.push_back(randomInt8({1, h, w, ic}, rng));
    b.output(b.conv2d(x, b.constant(randomInt8({oc, 3, 3, ic}, rng)), b.constant(randomInt32({oc}, rng)), cp));
  };
  convInt8(11, 9, 5, 20, {.pad = {1, 1, 1, 1}, .stride = {1, 1}, .dilation = {1, 1}, .inputZp = -3, .weightZp = 2});
  convInt8(14, 14, 7, 18, {.pad = {1, 0, 0, 1}, .stride = {2, 2}, .dilation = {1, 1}, .inputZp = 4, .weightZp = -1});
  // 16 and 8 input channels: int8 words (GEMM_A64 / GEMM_B64 with GEMM_WORDS_I8), the padding
  // read as the input zero point.
  convInt8(8, 10, 16, 24, {.pad = {1, 1, 1, 1}, .stride = {1, 1}, .dilation = {1, 1}, .inputZp = -5, .weightZp = 3});
  convInt8(6, 7, 8, 40, {.pad = {2, 0, 1, 1}, .stride = {1, 2}, .dilation = {1, 1}, .inputZp = 7, .weightZp = -2});
  auto matmul = [&](std::int64_t batch, std::int64_t m, std::int64_t k, std::int64_t n) {
    Value a = b.input(fmt::format("x{}", inputs.size()), DType::Fp32, {batch, m, k});
    inputs.push_back(randomFp32({batch, m, k}, rng));
    Value c = b.input(fmt::format("x{}", inputs.size()), DType::Fp32, {batch, k, n});
    inputs.push_back(randomFp32({batch, k, n}, rng));
    b.output(b.matmul(a, c, {}));
  };
  matmul(2, 130, 36, 132);
  matmul(1, 40, 20, 44);
  matmul(1, 5, 24, 40);  // M = 5
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();

  // 13 kernels in 11 modules. The fp32 gather: at N = 36 (8 input channels as 64-bit words,
  // GEMM_A64; B by vec4s, 36 % 8 != 0), and at N <= 32 (half width, B as words, GEMM_B64) with
  // IC 12 and 4 (A by vec4s) or IC 8 (A as words). The 1x1 path (A and B as words) at N = 40
  // and N = 28 (half width). int8, half width: B as int8 words (N = 20), neither (N = 18), both
  // (IC 16, N = 24); and both at full width (IC 8, N = 40). MATMUL with C 36, 20 (A by vec4s,
  // W 132, 44: B by vec4s) and with C 24, W 40 (A and B as words).
  expectRuntimeShapesShareModules(*graph, inputs, 13, 11);
}

TEST(TuningOverrides, SetEntriesAndRejectBadSpecs) {
  converter::Target t = converter::portableTarget();
  t.caps.maxSharedBytes = 49152;
  t.caps.maxInvocations = 1024;
  ASSERT_TRUE(converter::applyTuningOverrides(t, "gemm=128x64x8/8x4/2,gemm-min-groups=7,coopmat=2x4/64x32/16,"
                                                 "coopmat-min-tiles=9,gemm-default=32x64x8/4x4/1,gemm-convolutions=0,"
                                                 "fp16-min-depth=256"));
  EXPECT_EQ(t.tuning.fp16OperandsMinDepth, 256);
  EXPECT_EQ(t.tuning.gemm, (GemmTile{32, 64, 8, 4, 4, 1}));
  EXPECT_FALSE(t.tuning.gemmLargeConvolutions);
  EXPECT_EQ(t.tuning.gemmLarge, (GemmTile{128, 64, 8, 8, 4, 2}));
  EXPECT_EQ(t.tuning.gemmLargeMinGroups, 7);
  EXPECT_EQ(t.tuning.coopMatTile, (converter::CoopMatTile{2, 4, 64, 32, 16}));
  EXPECT_EQ(t.tuning.coopMatLargeMinTiles, 9);
  for (const char* bad : {"gemm=128x128x8", "gemm=128x128x8/8x8/x", "gemm-min-groups=0", "coopmat=2x2/64x64",
                          "tile=1", "gemm=128x128x8/8x8/3", "gemm=512x512x16/8x8/2", "gemm-convolutions=2",
                          "gemm=128x128x0/8x8/2", "gemm=64x64x16/8x8/0"}) {
    converter::Target u = t;
    Status s = converter::applyTuningOverrides(u, bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().kind(), ErrorKind::InvalidInput) << bad;
    EXPECT_NE(s.error().message().find("OPENVGF_TUNING"), std::string::npos) << s.error().message();
  }
}

// OPENVGF_TUNING is tuning only: a spec that names every key changes Target::tuning and leaves
// the device's capabilities, the precision and the names as they were.
TEST(TuningOverrides, WriteOnlyTheTuning) {
  converter::Target t = converter::portableTarget();
  t.name = "native";
  t.deviceName = "Fake GPU";
  t.caps.maxSharedBytes = 49152;
  t.caps.maxInvocations = 1024;
  t.caps.subgroupSize = 32;
  t.caps.cooperativeMatrixKhr = true;
  t.caps.coopMatWorkgroup.invocations = 256;
  t.caps.coopMatWorkgroup.invocationCounts = {128, 256};
  t.precision = converter::Precision::Fp16;
  const converter::Target before = t;
  const std::string everyKey =
      "gemm=128x64x8/8x4/2,gemm-default=32x64x8/4x4/1,gemm-convolutions=0,gemm-min-groups=7,"
      "splitk-groups=8/64,coopmat=2x4/64x32/16,coopmat-small=2x2/32x32/16,coopmat-split=2x2/32x64/16/16/256,"
      "coopmat-mid=2x4/32x32/32/392/256,coopmat-min-tiles=9,coopmat-residual=2x2/32x32/32/2000,"
      "coopmat-gather=2x2/32x32/16,coopmat-row-runs=50,coopmat-prefetch=256/8,"
      "coopmat-acc16=2x2/64x128/16/300,coopmat-khr=1,coopmat-fragment=16x8x16,coopmat-wg=256x128x32/64,"
      "coopmat-wg-threads=128,coopmat-band=1,coopmat-residual-acc=1,coopmat-narrow=8x1/16x64/32/32,"
      "coopmat-direct-store=576,fp16-min-depth=256,fp16-storage=0";
  ASSERT_TRUE(converter::applyTuningOverrides(t, everyKey));
  EXPECT_EQ(t.caps, before.caps);
  EXPECT_EQ(t.precision, before.precision);
  EXPECT_EQ(t.name, before.name);
  EXPECT_EQ(t.deviceName, before.deviceName);
  EXPECT_NE(t.tuning, before.tuning);
}

TEST(TuningOverrides, CooperativeMatrixEncodingAndWorkgroupScope) {
  converter::Target t = converter::portableTarget();
  t.caps.maxSharedBytes = 49152;
  t.caps.maxInvocations = 1024;
  // NVIDIA GPUs take the KHR encoding when the device has it, and no workgroup-scope tile.
  converter::Target nvidia = t;
  nvidia.caps.cooperativeMatrixKhr = true;
  converter::applyTuningTable(nvidia, converter::DeviceClass::NvidiaGpu);
  EXPECT_TRUE(nvidia.tuning.coopMatKhrEncoding);
  EXPECT_EQ(nvidia.tuning.coopMatWorkgroupTile.bm, 0);
  converter::Target nvOnly = t;
  converter::applyTuningTable(nvOnly, converter::DeviceClass::NvidiaGpu);
  EXPECT_FALSE(nvOnly.tuning.coopMatKhrEncoding);

  t.caps.cooperativeMatrixKhr = true;
  t.caps.coopMatWorkgroup.invocationCounts = {32, 128, 256};
  ASSERT_TRUE(converter::applyTuningOverrides(t, "coopmat-khr=1,coopmat-wg=256x128x32/64,coopmat-wg-threads=128"));
  EXPECT_TRUE(t.tuning.coopMatKhrEncoding);
  // The workgroup size is the tuning's choice among the device's; the device's facts stay.
  EXPECT_EQ(t.tuning.coopMatWorkgroupTile, (converter::CoopMatWorkgroupTile{256, 128, 32, 64, 128}));
  EXPECT_EQ(t.workgroupMatrixInvocations(), 128);
  EXPECT_EQ(t.caps.coopMatWorkgroup.invocations, 0);
  ASSERT_TRUE(converter::applyTuningOverrides(t, "coopmat-acc16=2x2/64x128/16"));
  EXPECT_EQ(t.tuning.coopMatTileHalfAcc, (converter::CoopMatTile{2, 2, 64, 128, 16}));
  ASSERT_TRUE(converter::applyTuningOverrides(t, "coopmat-acc16=2x2/64x128/16/300"));
  EXPECT_EQ(t.tuning.coopMatHalfAccMinTiles, 300);
  ASSERT_TRUE(converter::applyTuningOverrides(t, "coopmat-fragment=16x8x16"));
  EXPECT_EQ(t.tuning.coopMatFragment, (converter::CoopMatShape{16, 8, 16}));
  ASSERT_TRUE(converter::applyTuningOverrides(t, "coopmat-wg=0,coopmat-khr=0"));
  EXPECT_EQ(t.tuning.coopMatWorkgroupTile.bm, 0);
  EXPECT_FALSE(t.tuning.coopMatKhrEncoding);
  EXPECT_TRUE(nvidia.tuning.coopMatBandEpilogue);
  EXPECT_TRUE(nvidia.tuning.coopMatResidualAccumulators);
  using Narrow = converter::CoopMatNarrowTile;
  EXPECT_EQ(nvidia.tuning.coopMatTilesNarrow,
            (std::vector<Narrow>{{32, {8, 1, 16, 64, 32}}, {64, {4, 2, 32, 32, 32}}}));
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-residual-acc=0,coopmat-narrow=0"));
  EXPECT_FALSE(nvidia.tuning.coopMatResidualAccumulators);
  EXPECT_TRUE(nvidia.tuning.coopMatTilesNarrow.empty());
  // The gather tile and two slices in flight up to 512 deep, 4 chunks; both can be turned off.
  EXPECT_EQ(nvidia.tuning.coopMatTileGather, (converter::CoopMatTile{2, 2, 32, 32, 16}));
  EXPECT_EQ(nvidia.tuning.coopMatPrefetchMaxDepth, 512);
  EXPECT_EQ(nvidia.tuning.coopMatPrefetchMaxChunks, 4);
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-gather=4x1/16x64/32,coopmat-prefetch=256/8"));
  EXPECT_EQ(nvidia.tuning.coopMatTileGather, (converter::CoopMatTile{4, 1, 16, 64, 32}));
  EXPECT_EQ(nvidia.tuning.coopMatPrefetchMaxDepth, 256);
  EXPECT_EQ(nvidia.tuning.coopMatPrefetchMaxChunks, 8);
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-gather=0,coopmat-prefetch=0"));
  EXPECT_EQ(nvidia.tuning.coopMatTileGather.subgroupsM, 0);
  EXPECT_EQ(nvidia.tuning.coopMatPrefetchMaxDepth, 0);
  // Gathered convolutions read filter rows as runs where the padding adds at most 100 % to K.
  EXPECT_EQ(nvidia.tuning.coopMatRowRunsMaxPadding, 100);
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-row-runs=0"));
  EXPECT_EQ(nvidia.tuning.coopMatRowRunsMaxPadding, 0);
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-row-runs=100"));
  EXPECT_EQ(nvidia.tuning.coopMatRowRunsMaxPadding, 100);
  for (const char* bad : {"coopmat-gather=2x2/32x32", "coopmat-gather=2x2/32x32/24", "coopmat-prefetch=512/0",
                          "coopmat-prefetch=1/2/3", "coopmat-row-runs", "coopmat-row-runs=1/2"}) {
    converter::Target u = nvidia;
    EXPECT_FALSE(converter::applyTuningOverrides(u, bad)) << bad;
  }
  EXPECT_EQ(nvidia.tuning.gemmSplitKGroups, 264);
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "splitk-groups=0"));
  EXPECT_EQ(nvidia.tuning.gemmSplitKGroups, 0);
  EXPECT_EQ(nvidia.tuning.gemmSplitKMinDepth, 128);
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "splitk-groups=800/1024"));
  EXPECT_EQ(nvidia.tuning.gemmSplitKGroups, 800);
  EXPECT_EQ(nvidia.tuning.gemmSplitKMinDepth, 1024);
  for (const char* bad : {"splitk-groups=800/0", "splitk-groups=1/2/3", "splitk-groups="}) {
    converter::Target u = nvidia;
    EXPECT_FALSE(converter::applyTuningOverrides(u, bad)) << bad;
  }
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-narrow=4x1/32x64/32"));
  EXPECT_EQ(nvidia.tuning.coopMatTilesNarrow, (std::vector<Narrow>{{64, {4, 1, 32, 64, 32}}}));
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-narrow=8x1/16x64/32/24+2x2/32x32/32"));
  EXPECT_EQ(nvidia.tuning.coopMatTilesNarrow,
            (std::vector<Narrow>{{24, {8, 1, 16, 64, 32}}, {64, {2, 2, 32, 32, 32}}}));
  // The tiles by grid size, and their overrides.
  EXPECT_EQ(nvidia.tuning.coopMatLargeMinTiles, 600);
  using Mid = converter::CoopMatMidTile;
  EXPECT_EQ(nvidia.tuning.coopMatTilesMid,
            (std::vector<Mid>{{{2, 4, 32, 32, 32}, 392, 256}, {{4, 2, 16, 32, 32}, 392, 1}}));
  EXPECT_EQ(nvidia.tuning.coopMatTileResidual, (converter::CoopMatTile{2, 2, 32, 32, 32}));
  ASSERT_TRUE(converter::applyTuningOverrides(
      nvidia,
      "coopmat-mid=4x2/32x32/32/100/256,coopmat-residual=4x2/32x32/32/900,coopmat-small=2x2/32x64/32"));
  EXPECT_EQ(nvidia.tuning.coopMatTilesMid, (std::vector<Mid>{{{4, 2, 32, 32, 32}, 100, 256}}));
  EXPECT_EQ(nvidia.tuning.coopMatTileResidual, (converter::CoopMatTile{4, 2, 32, 32, 32}));
  EXPECT_EQ(nvidia.tuning.coopMatResidualMinTiles, 900);
  EXPECT_EQ(nvidia.tuning.coopMatTileSmall, (converter::CoopMatTile{2, 2, 32, 64, 32}));
  EXPECT_EQ(nvidia.tuning.coopMatTileSplit, (converter::CoopMatTile{2, 2, 32, 32, 32}));
  EXPECT_EQ(nvidia.tuning.coopMatSplitMinTiles, 16);
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-split=4x2/32x32/16"));
  EXPECT_EQ(nvidia.tuning.coopMatTileSplit, (converter::CoopMatTile{4, 2, 32, 32, 16}));
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-split=2x2/32x64/16/50"));
  EXPECT_EQ(nvidia.tuning.coopMatTileSplit, (converter::CoopMatTile{2, 2, 32, 64, 16}));
  EXPECT_EQ(nvidia.tuning.coopMatSplitMinTiles, 50);
  EXPECT_EQ(nvidia.tuning.coopMatSplitMinDepth, 0);
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-split=2x2/32x64/16/50/256"));
  EXPECT_EQ(nvidia.tuning.coopMatSplitMinDepth, 256);
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-mid=0,coopmat-residual=0"));
  EXPECT_TRUE(nvidia.tuning.coopMatTilesMid.empty());
  EXPECT_EQ(nvidia.tuning.coopMatTileResidual.subgroupsM, 0);
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-band=0"));
  EXPECT_FALSE(nvidia.tuning.coopMatBandEpilogue);
  EXPECT_EQ(nvidia.tuning.coopMatDirectStoreMaxDepth, 576);
  EXPECT_TRUE(nvidia.tuning.fp16Storage);
  ASSERT_TRUE(converter::applyTuningOverrides(nvidia, "coopmat-direct-store=0,fp16-storage=0"));
  EXPECT_EQ(nvidia.tuning.coopMatDirectStoreMaxDepth, 0);
  EXPECT_FALSE(nvidia.tuning.fp16Storage);
  // A part that does not divide the tile, a K step off the 16-byte chunks, a workgroup size the
  // device does not list, a device without KHR matrices.
  for (const char* bad :
       {"coopmat-wg=128x128x32/48", "coopmat-wg=128x128x20/64", "coopmat-wg=128x128", "coopmat-wg-threads=64",
        "coopmat-khr=2", "coopmat-fragment=16x8", "coopmat-band=2", "coopmat-residual-acc=2",
        "coopmat-narrow=4x1/32x64", "fp16-storage=2", "coopmat-direct-store=1x2",
        "coopmat-narrow=4x1/32x64/32+", "coopmat-mid=2x4/32x32/32/392", "coopmat-residual=2x2/32x32/32",
        "coopmat-small=2x2/32x32/24", "coopmat-split=2x2/32x64", "coopmat-split=0"}) {
    converter::Target u = t;
    Status s = converter::applyTuningOverrides(u, bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().kind(), ErrorKind::InvalidInput) << bad;
  }
  converter::Target noKhr = converter::portableTarget();
  EXPECT_FALSE(converter::applyTuningOverrides(noKhr, "coopmat-khr=1"));
}

TEST(TuningOverrides, CliRejectsABadSpecWithExitTwo) {
  ScratchDir dir("gemm_tuning_cli");
  tosa::Builder b;
  Value x = b.input("a", DType::Fp32, {1, 32, 32});
  b.output(b.matmul(x, b.input("b", DType::Fp32, {1, 32, 32}), {}));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  Status written = tosa::writeGraph(*graph, dir / "mm.tosa");
  ASSERT_TRUE(written) << written.error().message();
  CommandResult bad = runCli(fmt::format("convert {} --target native -o {}", dir / "mm.tosa", dir / "bad.vgf"),
                             "OPENVGF_TUNING=gemm=1x2");
  if (bad.output.find("cannot load libvulkan") != std::string::npos) GTEST_SKIP() << bad.output;
  EXPECT_EQ(bad.exitCode, 2) << bad.output;
  EXPECT_NE(bad.output.find("OPENVGF_TUNING: entry 'gemm=1x2'"), std::string::npos) << bad.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.vgf"));
  CommandResult good = runCli(fmt::format("convert {} --target native -o {}", dir / "mm.tosa", dir / "good.vgf"),
                              "OPENVGF_TUNING=gemm=64x64x8/8x8/2,gemm-min-groups=1");
  EXPECT_EQ(good.exitCode, 0) << good.output;
}

std::vector<std::uint8_t> fileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A 32x32 by 32x32 fp32 MATMUL written to `dir`/mm.tosa, and the two tunings the cache tests
// convert it with: they differ only in the large tile's stages, which gemm-min-groups=1 makes
// every MATMUL take.
void writeMatmul(const ScratchDir& dir) {
  tosa::Builder b;
  Value x = b.input("a", DType::Fp32, {1, 32, 32});
  b.output(b.matmul(x, b.input("b", DType::Fp32, {1, 32, 32}), {}));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  ASSERT_TRUE(tosa::writeGraph(*graph, dir / "mm.tosa"));
}
const std::string kTuningOne = "OPENVGF_TUNING=gemm=64x64x16/8x8/1,gemm-min-groups=1";
const std::string kTuningTwo = "OPENVGF_TUNING=gemm=64x64x16/8x8/2,gemm-min-groups=1";

// Tuning::spirvOptimizer: off for CPU devices only (the tuning table, and
// ConvertOptions::forCpuDevice for the portable target), and part of the cache key.
TEST(TuningTable, SpirvOptimizerOffForCpuDevicesOnly) {
  EXPECT_TRUE(converter::portableTarget().tuning.spirvOptimizer);
  for (auto [device, expected] : {std::pair{converter::DeviceClass::Cpu, false},
                                  std::pair{converter::DeviceClass::NvidiaGpu, true},
                                  std::pair{converter::DeviceClass::OtherGpu, true}}) {
    converter::Target target = converter::portableTarget();
    converter::applyTuningTable(target, device);
    EXPECT_EQ(target.tuning.spirvOptimizer, expected) << static_cast<int>(device);
  }
  converter::ConvertOptions options;
  Result<converter::Target> gpu = converter::resolveTarget(options);
  options.forCpuDevice = true;
  Result<converter::Target> cpu = converter::resolveTarget(options);
  ASSERT_TRUE(gpu && cpu);
  EXPECT_TRUE(gpu->tuning.spirvOptimizer);
  EXPECT_FALSE(cpu->tuning.spirvOptimizer);
  EXPECT_NE(converter::fingerprint(*gpu), converter::fingerprint(*cpu));
}

// The portable target converted for a CPU device takes the tuning table's CPU entry (8x8
// register blocks for every GEMM, no split-K), and with a device whose subgroups are 8 lanes
// (lavapipe on 256-bit vectors) the core without shared memory; its capabilities otherwise stay
// portable. For a GPU nothing changes.
TEST(TuningTable, PortableTargetForCpuDevicesTakesTheCpuEntry) {
  converter::ConvertOptions options;
  Result<converter::Target> gpu = converter::resolveTarget(options);
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->tuning, converter::portableTarget().tuning);
  options.forCpuDevice = true;
  Result<converter::Target> cpuUnknown = converter::resolveTarget(options);
  DeviceCaps lavapipe;
  lavapipe.cpu = true;
  lavapipe.subgroupSize = 8;
  lavapipe.shaderFloat64 = true;
  options.device = lavapipe;
  Result<converter::Target> cpu = converter::resolveTarget(options);
  ASSERT_TRUE(cpuUnknown && cpu);
  EXPECT_EQ(cpu->name, "portable");
  for (const converter::Target* t : {&*cpuUnknown, &*cpu}) {
    EXPECT_EQ(t->tuning.gemmLargeMinGroups, 1);
    EXPECT_EQ(t->tuning.gemmSplitKGroups, 0);
    EXPECT_EQ(t->tuning.gemmLarge.tm, 8);
  }
  EXPECT_EQ(cpuUnknown->tuning.gemmLarge.stages, 1) << "no subgroup size: the shared-memory core";
  EXPECT_EQ(cpu->tuning.gemmLarge.stages, 0);
  converter::Capabilities expected = converter::portableTarget().caps;
  expected.subgroupSize = 8;
  expected.float64 = true;  // the CPU GEMM core's A words move between lanes as doubles
  EXPECT_EQ(cpu->caps, expected);
  EXPECT_NE(converter::fingerprint(*cpu), converter::fingerprint(*cpuUnknown));
}

// The model cache keys on every Target member (converter/targets/fingerprint.h): two tunings
// that differ only in the large tile's stages (a member the hand-written key once missed; with
// gemm-min-groups=1 every MATMUL takes that tile) run through one cache folder get an entry
// each, and the second run's entry holds the VGF that a conversion with that tuning and no
// cache writes, not the first run's.
TEST(TuningOverrides, ModelCacheKeepsTuningsApart) {
  ScratchDir dir("gemm_tuning_cache");
  ASSERT_NO_FATAL_FAILURE(writeMatmul(dir));
  std::mt19937 rng(7);
  for (const char* name : {"a", "b"}) {
    ASSERT_TRUE(tosa::npy::writeTensor(dir / (std::string(name) + ".npy"), randomFp32({1, 32, 32}, rng)));
  }
  const std::string& one = kTuningOne;
  const std::string& two = kTuningTwo;
  // What each tuning converts to, with no cache involved: two different VGFs.
  for (const auto& [tuning, out] : {std::pair{one, "one.vgf"}, std::pair{two, "two.vgf"}}) {
    CommandResult converted =
        runCli(fmt::format("convert {} --target native --no-cache -o {}", dir / "mm.tosa", dir / out),
               fmt::format("XDG_CACHE_HOME={} {}", dir / "empty-cache", tuning));
    if (converted.output.find("cannot load libvulkan") != std::string::npos) GTEST_SKIP() << converted.output;
    ASSERT_EQ(converted.exitCode, 0) << converted.output;
  }
  const std::vector<std::uint8_t> expectedTwo = fileBytes(dir / "two.vgf");
  ASSERT_NE(fileBytes(dir / "one.vgf"), expectedTwo) << "the two tunings must convert differently";

  const std::string shared = fmt::format("XDG_CACHE_HOME={} ", dir / "cache");
  const std::string run = fmt::format("run {} --target native -i {} -i {}", dir / "mm.tosa", dir / "a.npy", dir / "b.npy");
  CommandResult first = runCli(run, shared + one);
  ASSERT_EQ(first.exitCode, 0) << first.output;
  const std::filesystem::path models = dir.path() / "cache" / "openvgf" / "models";
  ASSERT_EQ(std::distance(std::filesystem::directory_iterator(models), {}), 1);
  const std::filesystem::path firstEntry = std::filesystem::directory_iterator(models)->path();
  CommandResult second = runCli(run, shared + two);
  ASSERT_EQ(second.exitCode, 0) << second.output;
  std::vector<std::filesystem::path> entries;
  for (const auto& e : std::filesystem::directory_iterator(models)) entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 2u) << "the second tuning was served the first one's converted model";
  const std::filesystem::path secondEntry = entries[0] == firstEntry ? entries[1] : entries[0];
  // An entry is a header (common/cache_entry.h) and then the payload: the VGF.
  const std::vector<std::uint8_t> cached = fileBytes(secondEntry);
  ASSERT_GE(cached.size(), expectedTwo.size());
  EXPECT_TRUE(std::equal(expectedTwo.begin(), expectedTwo.end(), cached.end() - static_cast<std::ptrdiff_t>(expectedTwo.size())));
}

// The GRAPH-lowering cache keys on every Target member too: an Arm GRAPH VGF lowered with one
// tuning and then, through the same cache folder, with another is lowered again, and writes
// what it writes with an empty cache.
TEST(TuningOverrides, LoweringCacheKeepsTuningsApart) {
  ScratchDir dir("gemm_tuning_lowering");
  ASSERT_NO_FATAL_FAILURE(writeMatmul(dir));
  CommandResult arm = runCli(fmt::format("convert {} --format arm-graph -o {}", dir / "mm.tosa", dir / "arm.vgf"));
  ASSERT_EQ(arm.exitCode, 0) << arm.output;
  const std::string& one = kTuningOne;
  const std::string& two = kTuningTwo;
  auto lower = [&](const std::string& cache, const std::string& tuning, const char* out) {
    return runCli(fmt::format("convert {} --target native --stats -o {}", dir / "arm.vgf", dir / out),
                  fmt::format("XDG_CACHE_HOME={} {}", dir / cache, tuning));
  };
  CommandResult fresh = lower("empty-cache", two, "fresh.vgf");
  if (fresh.output.find("cannot load libvulkan") != std::string::npos) GTEST_SKIP() << fresh.output;
  ASSERT_EQ(fresh.exitCode, 0) << fresh.output;
  CommandResult first = lower("cache", one, "one.vgf");
  ASSERT_EQ(first.exitCode, 0) << first.output;
  ASSERT_NE(fileBytes(dir / "one.vgf"), fileBytes(dir / "fresh.vgf")) << "the two tunings must lower differently";
  CommandResult second = lower("cache", two, "two.vgf");
  ASSERT_EQ(second.exitCode, 0) << second.output;
  EXPECT_EQ(second.output.find("from the cache"), std::string::npos) << second.output;
  EXPECT_EQ(fileBytes(dir / "two.vgf"), fileBytes(dir / "fresh.vgf"));
  // The same tuning again is served from the cache (the key is stable).
  CommandResult again = lower("cache", two, "again.vgf");
  ASSERT_EQ(again.exitCode, 0) << again.output;
  EXPECT_NE(again.output.find("lowered VGF from the cache"), std::string::npos) << again.output;
  EXPECT_EQ(fileBytes(dir / "again.vgf"), fileBytes(dir / "fresh.vgf"));
}

}  // namespace
}  // namespace openvgf::testing
