// SPDX-License-Identifier: Apache-2.0
// chooseGemm (converter/kernels/gemm_choice.cpp), the one GEMM choice, as a table: targets
// from the tuning table's device classes and a fake NVIDIA device's facts, GEMM shapes, and
// the tile, cooperative-matrix plan, split-K and dot-product choice each must get. Every
// expected value is worked out by hand from the rules (the comment of each row says how).
// No GPU.
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "converter/kernels/gemm_common.h"
#include "converter/targets/target.h"

namespace openvgf::testing {
namespace {

using converter::CoopMatShape;
using converter::CoopMatTypes;
using converter::GemmKind;
using converter::GemmShape;
using converter::GemmTile;
using converter::Precision;
using tosa::DType;

converter::Target portable() { return converter::portableTarget(); }

converter::Target tableFor(converter::DeviceClass device) {
  converter::Target t = converter::portableTarget();
  converter::applyTuningTable(t, device);
  return t;
}

// An NVIDIA GPU as vulkan/ would describe it: subgroups of 32, NV cooperative matrices of
// fp16 (16x16x16, 16x8x16) and int8 (16x16x32, 16x8x32), integer dot products.
converter::Target nvidia() {
  DeviceCaps d;
  d.name = "Fake NVIDIA";
  d.vendorId = 0x10DE;
  d.subgroupSize = 32;
  d.maxComputeWorkGroupInvocations = 1024;
  d.maxComputeSharedMemorySize = 49152;
  d.shaderFloat16 = d.roundingModeRteFloat16 = d.shaderIntegerDotProduct = d.shaderInt8 = d.vulkanMemoryModel = true;
  d.cooperativeMatrixNv = true;
  d.coopMatShapesNv = {{16, 16, 16, CoopMatTypes::F16xF16ToF32}, {16, 8, 16, CoopMatTypes::F16xF16ToF32},
                       {16, 16, 32, CoopMatTypes::S8xS8ToS32}, {16, 8, 32, CoopMatTypes::S8xS8ToS32}};
  return converter::nativeTarget(d);
}

GemmShape gemm(GemmKind kind, DType type, std::int64_t m, std::int64_t n, std::int64_t k, bool fastCores = true) {
  const DType out = type == DType::Int8 ? DType::Int32 : type;
  // The families with the fast cores (MATMUL, CONV2D) take run-time shapes too.
  return GemmShape{.kind = kind, .in = type, .weight = type, .out = out, .acc = out, .m = m, .n = n, .k = k,
                   .fastCores = fastCores, .runtimeShapes = fastCores};
}

struct Expected {
  std::optional<GemmTile> scalarTile{};      // the scalar core's tile (no cooperative matrices)
  std::optional<CoopMatShape> fragment{};    // the cooperative-matrix fragment
  int bm = 0, bn = 0;                        // ... and its workgroup tile
  bool workgroupScope = false;
  int slices = 1;
  std::int64_t sliceDepth = 0;               // checked when slices > 1
  bool dot4 = false;
  converter::KRuns runs{};
  std::int64_t depth = 0;                    // 0: K
  bool runtimeShapes = false;
};

struct Case {
  std::string name;
  converter::Target target;
  GemmShape shape;
  Expected want;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  const GemmTile portableTile{64, 64, 16, 4, 4};
  const GemmTile nvidiaTile{64, 64, 16, 4, 4, 2}, nvidiaLarge{128, 128, 8, 8, 8, 2};
  // Portable: ResNet-50's last 3x3 conv at batch 1: 8 tiles of 64x64 under 128 workgroups
  // -> ceil(128/8) = 16 slices, K/16 = 288 deep (>= 128, whole BK steps).
  c.push_back({"portable_conv_49x512x4608_splits_16x288", portable(),
               gemm(GemmKind::Convolution, DType::Fp32, 49, 512, 4608), {.scalarTile = portableTile, .slices = 16, .sliceDepth = 288}});
  // 49 x 1 tiles, K 576: min(ceil(128/49) = 3, 576/128 = 4) = 3 slices of 192.
  c.push_back({"portable_conv_3136x64x576_splits_3", portable(),
               gemm(GemmKind::Convolution, DType::Fp32, 3136, 64, 576), {.scalarTile = portableTile, .slices = 3, .sliceDepth = 192}});
  converter::Target fourOrMore = portable();
  fourOrMore.tuning.gemmSplitKMinSlices = 4;
  c.push_back({"fewer_slices_than_the_minimum_stay_whole", fourOrMore,
               gemm(GemmKind::Convolution, DType::Fp32, 3136, 64, 576), {.scalarTile = portableTile}});
  // INT16 x INT8 accumulates in int64, which the split's partial sums cannot hold.
  GemmShape int16 = gemm(GemmKind::Convolution, DType::Int16, 49, 512, 4608);
  int16.weight = DType::Int8;
  int16.out = int16.acc = DType::Int48;
  c.push_back({"int64_accumulators_are_never_split", portable(), int16, {.scalarTile = portableTile}});
  // TRANSPOSE_CONV2D's grid z is its stride phases: no split.
  GemmShape phases = gemm(GemmKind::Convolution, DType::Fp32, 49, 512, 4608, false);
  phases.splitK = false;
  c.push_back({"no_split_where_the_family_has_none", portable(), phases, {.scalarTile = portableTile}});
  // M or N <= 16: the flat small tile, transposed when N is the small one.
  c.push_back({"small_m_takes_the_small_tile", nvidia(), gemm(GemmKind::Matmul, DType::Fp16, 8, 4096, 64),
               {.scalarTile = GemmTile{16, 64, 16, 4, 4}}});
  c.push_back({"small_n_takes_it_transposed", nvidia(), gemm(GemmKind::Matmul, DType::Fp16, 4096, 8, 64),
               {.scalarTile = GemmTile{64, 16, 16, 4, 4}}});
  // NVIDIA, fp32 without --precision: the scalar core; 32 x 32 = 1024 >= 264 large tiles for a
  // MATMUL, the default tile for a convolution (gemmLargeConvolutions off).
  c.push_back({"nvidia_fp32_matmul_takes_the_large_tile", nvidia(), gemm(GemmKind::Matmul, DType::Fp32, 4096, 4096, 64),
               {.scalarTile = nvidiaLarge}});
  c.push_back({"nvidia_fp32_conv_keeps_the_default_tile", nvidia(),
               gemm(GemmKind::Convolution, DType::Fp32, 4096, 4096, 64), {.scalarTile = nvidiaTile}});
  // N = 64 under a 128-wide tile would double the padded area; 1568 x 512 gives 52 < 264 tiles.
  c.push_back({"narrow_n_keeps_the_default_tile", nvidia(), gemm(GemmKind::Matmul, DType::Fp32, 100352, 64, 64),
               {.scalarTile = nvidiaTile}});
  c.push_back({"too_few_large_tiles_keep_the_default", nvidia(), gemm(GemmKind::Matmul, DType::Fp32, 1568, 512, 64),
               {.scalarTile = nvidiaTile}});
  // A CPU device: 8x8 register blocks for any grid, no split-K, the shape at run time
  // (Tuning::runtimeShapes) on the scalar core, also on the small tile.
  c.push_back({"cpu_takes_8x8_blocks_and_no_split", tableFor(converter::DeviceClass::Cpu),
               gemm(GemmKind::Convolution, DType::Fp32, 64, 64, 4096),
               {.scalarTile = GemmTile{64, 64, 16, 8, 8}, .runtimeShapes = true}});
  c.push_back({"cpu_small_n_takes_runtime_shapes_too", tableFor(converter::DeviceClass::Cpu),
               gemm(GemmKind::Matmul, DType::Fp32, 4096, 8, 64),
               {.scalarTile = GemmTile{64, 16, 16, 4, 4}, .runtimeShapes = true}});
  // ... and with 8-lane subgroups (lavapipe), the core without shared memory on the large tile
  // for every GEMM, a classifier's M = 1 too: one module fewer per small tile.
  converter::Target lavapipe = converter::portableTarget();
  lavapipe.caps.subgroupSize = 8;
  converter::applyTuningTable(lavapipe, converter::DeviceClass::Cpu);
  c.push_back({"cpu_8_lanes_small_m_takes_the_large_tile", lavapipe,
               gemm(GemmKind::Convolution, DType::Fp32, 1, 1000, 1280),
               {.scalarTile = GemmTile{64, 64, 16, 8, 8, 0}, .runtimeShapes = true}});
  // At most half the tile wide: the tile at half width with the same 8 lanes (8x4 blocks).
  c.push_back({"cpu_8_lanes_narrow_n_takes_the_half_width_tile", lavapipe,
               gemm(GemmKind::Convolution, DType::Fp32, 12544, 32, 16),
               {.scalarTile = GemmTile{64, 32, 16, 8, 4, 0}, .runtimeShapes = true}});
  c.push_back({"cpu_8_lanes_n_past_half_keeps_the_full_tile", lavapipe,
               gemm(GemmKind::Convolution, DType::Fp32, 12544, 33, 16),
               {.scalarTile = GemmTile{64, 64, 16, 8, 8, 0}, .runtimeShapes = true}});
  // K of 2^31 or more would overflow ovgf_udiv's dividends: compile-time shapes.
  c.push_back({"cpu_8_lanes_k_of_2_31_keeps_compile_time_shapes", lavapipe,
               gemm(GemmKind::Matmul, DType::Fp32, 64, 64, std::int64_t{1} << 31),
               {.scalarTile = GemmTile{64, 64, 16, 8, 8, 0}}});
  // A family without run-time shapes (CONV3D) keeps the small tile there: no module to save.
  c.push_back({"cpu_8_lanes_small_m_without_runtime_shapes_keeps_the_small_tile", lavapipe,
               gemm(GemmKind::Convolution, DType::Fp32, 1, 1000, 1280, false),
               {.scalarTile = GemmTile{16, 64, 16, 4, 4}}});
  // ... but packed dot products (a CPU device that has them, as lavapipe's native target)
  // keep compile-time shapes: gemm_dot4.glsl tests its zero points in the preprocessor.
  converter::Target cpuDot4 = tableFor(converter::DeviceClass::Cpu);
  cpuDot4.caps.integerDotProduct = true;
  c.push_back({"cpu_dot4_keeps_compile_time_shapes", cpuDot4, gemm(GemmKind::Matmul, DType::Int8, 512, 512, 64),
               {.scalarTile = GemmTile{64, 64, 16, 8, 8}, .dot4 = true}});
  // fp16 4096^3: the common cooperative-matrix tile (2x2 subgroups of 64x64 = 128x128, 1024
  // >= 600 tiles), the largest fragment that divides it (16x16x16), no split (full grid).
  c.push_back({"nvidia_fp16_matmul_common_coopmat_tile", nvidia(),
               gemm(GemmKind::Matmul, DType::Fp16, 4096, 4096, 4096),
               {.fragment = CoopMatShape{16, 16, 16, CoopMatTypes::F16xF16ToF32}, .bm = 128, .bn = 128}});
  // 256 x 256 x 4096: 4 common tiles, the mid tiles need 392: the small 2x2 of 32x32 (64x64),
  // 16 tiles -> min(ceil(264/16) = 17, 4096/128 = 32) = 17 -> 256 deep, 16 slices.
  c.push_back({"nvidia_fp16_small_grid_small_tile_split", nvidia(),
               gemm(GemmKind::Matmul, DType::Fp16, 256, 256, 4096),
               {.fragment = CoopMatShape{16, 16, 16, CoopMatTypes::F16xF16ToF32}, .bm = 64, .bn = 64, .slices = 16,
                .sliceDepth = 256}});
  // The same GEMM where the family has no cooperative-matrix core (CONV3D): the scalar core.
  c.push_back({"no_coopmat_where_the_family_has_none", nvidia(),
               gemm(GemmKind::Convolution, DType::Fp16, 4096, 4096, 64, false), {.scalarTile = nvidiaTile}});
  // int8 without zero points: 16x16x32 fragments (16x8x32's N is not a whole 16-byte chunk of
  // int8) on the small tile (512^2 gives 16 common tiles; the first mid tile wants K >= 256,
  // the second 392 tiles).
  c.push_back({"nvidia_int8_coopmat_without_zero_points", nvidia(), gemm(GemmKind::Matmul, DType::Int8, 512, 512, 64),
               {.fragment = CoopMatShape{16, 16, 32, CoopMatTypes::S8xS8ToS32}, .bm = 64, .bn = 64}});
  // ... with zero points: packed dot products on the default tile; 64 tiles, K 512 ->
  // min(ceil(264/64) = 5, 512/128 = 4) = 4 slices of 128.
  GemmShape zp = gemm(GemmKind::Matmul, DType::Int8, 512, 512, 512);
  zp.zeroPointA = -5;
  zp.zeroPointB = 7;
  c.push_back({"nvidia_int8_zero_points_dot4_split", nvidia(), zp, {.scalarTile = nvidiaTile, .slices = 4, .sliceDepth = 128, .dot4 = true}});
  // A zero point outside int8 cannot be packed: the scalar core.
  zp.zeroPointA = 200;
  c.push_back({"zero_point_outside_int8_no_dot4", nvidia(), zp, {.scalarTile = nvidiaTile, .slices = 4, .sliceDepth = 128}});
  // --precision fp16, MobileNetV2's stem (12544 x 32, K = 3x3x3): A is gathered (3 input
  // channels); N = 32 is too narrow for the gather tile (64), the narrow tiles need 600, so
  // the small tile. Filter rows of 9 operands padded to 16: 3 x 7 = 21 <= 100 % of 27, so K
  // becomes 3 runs of 16 = 48.
  converter::Target fp16 = nvidia();
  fp16.precision = Precision::Fp16;
  fp16.tuning.fp16OperandsMinDepth = 0;
  GemmShape stem = gemm(GemmKind::Convolution, DType::Fp32, 12544, 32, 27);
  stem.runA = 3;
  stem.rowRun = 9;
  c.push_back({"stem_reads_filter_rows_as_padded_runs", fp16, stem,
               {.fragment = CoopMatShape{16, 16, 16, CoopMatTypes::F16xF16ToF32}, .bm = 64, .bn = 64, .runs = {9, 16},
                .depth = 48}});
  stem.rowRun = 0;
  c.push_back({"stem_without_row_runs_keeps_k", fp16, stem,
               {.fragment = CoopMatShape{16, 16, 16, CoopMatTypes::F16xF16ToF32}, .bm = 64, .bn = 64}});
  // Workgroup-scope matrices (a tile set by OPENVGF_TUNING): 128x128x32 tiles of plain fp16
  // operands, 64-row accumulators at a 32x32x16 granularity; 64 x 128 x 4 bytes of staging
  // fit in 48 KiB less the 8 KiB reserved; MATMUL fp16 -> fp16 accumulates in fp16, which
  // the device offers at that size.
  converter::Target wg = nvidia();
  wg.caps.coopMatWorkgroup = {32, 32, 16, 256, 1024, 8192, true, {256}};
  wg.tuning.coopMatWorkgroupTile = {128, 128, 32, 64};
  GemmShape plain = gemm(GemmKind::Matmul, DType::Fp16, 4096, 4096, 4096);
  plain.plainOperands = true;
  c.push_back({"plain_fp16_operands_take_workgroup_scope", wg, plain,
               {.fragment = CoopMatShape{64, 128, 32, CoopMatTypes::F16xF16ToF16}, .bm = 128, .bn = 128,
                .workgroupScope = true}});
  // Not plain: subgroup scope; no fp16-accumulator fragments listed, so fp32 ones.
  plain.plainOperands = false;
  c.push_back({"other_operands_keep_subgroup_scope", wg, plain,
               {.fragment = CoopMatShape{16, 16, 16, CoopMatTypes::F16xF16ToF32}, .bm = 128, .bn = 128}});
  return c;
}

class GemmChoice : public ::testing::TestWithParam<Case> {};

TEST_P(GemmChoice, MatchesTheRules) {
  const Case& c = GetParam();
  const converter::GemmConfig got = converter::chooseGemm(c.target, c.shape);
  const Expected& want = c.want;
  ASSERT_EQ(got.coopMat.has_value(), want.fragment.has_value());
  if (want.fragment) {
    EXPECT_EQ(got.coopMat->shape, *want.fragment);
    EXPECT_EQ(got.coopMat->bm, want.bm);
    EXPECT_EQ(got.coopMat->bn, want.bn);
    EXPECT_EQ(got.coopMat->workgroupScope, want.workgroupScope);
    EXPECT_EQ(got.tile, got.coopMat->tile());
    // MATMUL's epilogue takes the target's band staging; convolutions never do.
    EXPECT_EQ(got.coopMat->bandEpilogue,
              c.shape.kind == GemmKind::Matmul && c.target.tuning.coopMatBandEpilogue);
  } else {
    EXPECT_EQ(got.tile, *want.scalarTile);
  }
  EXPECT_EQ(got.dot4, want.dot4);
  EXPECT_EQ(got.runtimeShapes, want.runtimeShapes);
  EXPECT_EQ(got.split.slices, want.slices);
  if (want.slices > 1) {
    EXPECT_EQ(got.split.depth, want.sliceDepth);
  }
  EXPECT_EQ(got.runs.run, want.runs.run);
  EXPECT_EQ(got.runs.padded, want.runs.padded);
  EXPECT_EQ(got.depth, want.depth != 0 ? want.depth : c.shape.k);
}

INSTANTIATE_TEST_SUITE_P(Table, GemmChoice, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& row) { return row.param.name; });

}  // namespace
}  // namespace openvgf::testing
