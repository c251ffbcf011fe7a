// SPDX-License-Identifier: Apache-2.0
// The native target's fast paths. A hand-built Target that claims GL_NV_cooperative_matrix
// converts fp16 / int8 MATMUL and CONV2D into cooperative-matrix modules: the SPIR-V
// validates (spirv-val runs inside the converter), the VGF declares CooperativeMatrixNV and
// SPV_NV_cooperative_matrix where `openvgf inspect` shows them, and the runner asks for
// VK_NV_cooperative_matrix (refusing clearly on a device without it, e.g. lavapipe). Then
// `--target native` probed on this machine's device converts, runs with the validation
// layer and passes the TOSA compliance checker against the reference interpreter.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <span>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <spirv-tools/libspirv.hpp>

#include "common/spirv_words.h"
#include "converter/convert.h"
#include "converter/coopmat_khr.h"
#include "converter/kernels/bf16_split.h"
#include "converter/targets/target.h"
#include "runner/coopmat_view.h"
#include "runner/model.h"
#include "tests/converter/run_util.h"
#include "tosa/builder.h"
#include "tosa/float_types.h"
#include "vgf/decoder.h"
#include "vgf/spirv_coopmat.h"
#include "vgf/spirv_info.h"
#include "vgf/summary.h"
#include "vulkan/snapshot.h"

namespace openvgf::testing {
namespace {

using converter::CoopMatShape;
using converter::CoopMatTypes;
using converter::Precision;
using tosa::DType;
using tosa::HostTensor;
using tosa::Value;

converter::Target coopMatTarget() {
  converter::Target t = converter::portableTarget();
  t.name = "native";
  t.caps.subgroupSize = 32;
  t.caps.maxInvocations = 1024;
  t.caps.maxSharedBytes = 49152;
  t.caps.fp16Arithmetic = true;
  t.caps.cooperativeMatrixNv = true;
  // Shapes of the kind drivers list for VK_NV_cooperative_matrix. int8 needs N a multiple of
  // 16 (one 16-byte chunk), so 16x8x32 is listed but not chosen.
  t.caps.coopMatShapes = {CoopMatShape{16, 16, 16, CoopMatTypes::F16xF16ToF32},
                          CoopMatShape{16, 8, 16, CoopMatTypes::F16xF16ToF16},
                          CoopMatShape{16, 8, 32, CoopMatTypes::S8xS8ToS32},
                          CoopMatShape{16, 16, 32, CoopMatTypes::S8xS8ToS32}};
  return t;
}

HostTensor randomTensor(DType type, tosa::Shape shape, std::mt19937& rng) {
  HostTensor t(type, std::move(shape));
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> ints(-128, 127);
  for (std::int64_t i = 0; i < t.size(); ++i) {
    const auto at = static_cast<std::size_t>(i);
    switch (type) {
      case DType::Fp16: t.as<std::uint16_t>()[at] = tosa::doubleToFp16(real(rng)); break;
      case DType::Fp32: t.as<float>()[at] = static_cast<float>(real(rng)); break;
      case DType::Int8: t.as<std::int8_t>()[at] = static_cast<std::int8_t>(ints(rng)); break;
      case DType::Int4: t.as<std::int8_t>()[at] = static_cast<std::int8_t>(ints(rng) / 16); break;
      default: ADD_FAILURE() << "randomTensor: unexpected type"; break;
    }
  }
  return t;
}

struct TestGraph {
  tosa::Graph graph;
  std::vector<HostTensor> inputs;
};

/// MATMUL [1,m,k] x [1,k,n] of `type` (fp16 -> `out` fp16 or fp32 is the builder's choice).
TestGraph matmulGraph(DType type, std::int64_t m, std::int64_t k, std::int64_t n, std::mt19937& rng,
                      std::int64_t aZp = 0, std::int64_t bZp = 0) {
  TestGraph g;
  tosa::Builder b;
  g.inputs.push_back(randomTensor(type, {1, m, k}, rng));
  g.inputs.push_back(randomTensor(type, {1, k, n}, rng));
  Value x = b.input("a", type, {1, m, k});
  Value y = b.input("b", type, {1, k, n});
  tosa::MatMulParams params;
  params.aZp = aZp;
  params.bZp = bZp;
  b.output(b.matmul(x, y, params));
  auto built = b.build();
  EXPECT_TRUE(built) << (built ? "" : built.error().message());
  if (built) g.graph = std::move(*built);
  return g;
}

/// Stride 1, dilation 1 and a padding of 1 on every side: a 3x3 CONV2D keeps H and W.
tosa::ConvParams samePadding3x3() {
  tosa::ConvParams p;
  p.pad = {1, 1, 1, 1};
  p.stride = {1, 1};
  p.dilation = {1, 1};
  return p;
}

/// CONV2D 3x3, pad 1, NHWC [2,h,w,ic] -> oc channels, then (floats, `clamp`) CLAMP (a fused
/// epilogue).
TestGraph conv2dGraph(DType type, std::int64_t h, std::int64_t w, std::int64_t ic, std::int64_t oc,
                      std::optional<DType> accType, std::mt19937& rng, std::int64_t inputZp = 0,
                      std::optional<DType> weightType = std::nullopt, bool clamp = true) {
  TestGraph g;
  tosa::Builder b;
  g.inputs.push_back(randomTensor(type, {2, h, w, ic}, rng));
  Value x = b.input("x", type, {2, h, w, ic});
  Value wt = b.constant(randomTensor(weightType.value_or(type), {oc, 3, 3, ic}, rng));
  tosa::ConvParams p = samePadding3x3();
  p.accType = accType;
  p.inputZp = inputZp;
  Value y = b.conv2d(x, wt, std::nullopt, p);
  if (type == DType::Int8 || !clamp) {
    b.output(y);
  } else {
    b.output(b.clamp(y, -2.0, 2.0));
  }
  auto built = b.build();
  EXPECT_TRUE(built) << (built ? "" : built.error().message());
  if (built) g.graph = std::move(*built);
  return g;
}

/// An fp16 elementwise chain with broadcasting, a scalar constant and special values
/// (inf, NaN, a subnormal, an overflowing sum): ADD, MUL, CLAMP, ABS, NEGATE, MAXIMUM, SUB.
TestGraph fp16ChainGraph(std::mt19937& rng) {
  TestGraph g;
  tosa::Builder b;
  g.inputs.push_back(randomTensor(DType::Fp16, {3, 7, 40}, rng));
  g.inputs.push_back(randomTensor(DType::Fp16, {3, 7, 40}, rng));
  g.inputs.push_back(randomTensor(DType::Fp16, {1, 1, 40}, rng));
  auto x = g.inputs[0].as<std::uint16_t>();
  auto y = g.inputs[1].as<std::uint16_t>();
  x[0] = 0x7C00;                          // +inf
  x[1] = 0x7E00;                          // NaN
  x[2] = 0x0010;                          // subnormal
  x[3] = tosa::doubleToFp16(60000.0);     // with y[3]: overflows fp16
  y[3] = tosa::doubleToFp16(60000.0);
  x[4] = tosa::doubleToFp16(1.0 / 3.0);   // rounding of the sum
  y[4] = tosa::doubleToFp16(1e-3);
  Value vx = b.input("x", DType::Fp16, {3, 7, 40});
  Value vy = b.input("y", DType::Fp16, {3, 7, 40});
  Value vz = b.input("z", DType::Fp16, {1, 1, 40});
  Value scale = b.constant(DType::Fp16, {1, 1, 1}, std::vector<std::uint16_t>{tosa::doubleToFp16(1.5)});
  Value sum = b.mul(b.add(vx, vy), scale);
  Value clamped = b.clamp(sum, -2.0, 2.0);
  Value m = b.maximum(clamped, b.negate(b.abs(vy)));
  b.output(b.sub(m, vz));
  b.output(sum);
  auto built = b.build();
  EXPECT_TRUE(built) << (built ? "" : built.error().message());
  if (built) g.graph = std::move(*built);
  return g;
}

struct Converted {
  converter::ConvertedModel model;
  vgf::File file;
};

std::optional<Converted> convertWith(const tosa::Graph& graph, const converter::Target& target) {
  converter::ConvertOptions options;
  options.customTarget = target;
  options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
  auto model = converter::convert(graph, options);
  if (!model) {
    ADD_FAILURE() << model.error().message();
    return std::nullopt;
  }
  auto file = vgf::decode(model->vgf);
  if (!file) {
    ADD_FAILURE() << file.error().message();
    return std::nullopt;
  }
  return Converted{std::move(*model), std::move(*file)};
}

/// A device that offers `features`, every subgroup operation and desktop-GPU limits, for
/// Model::checkDevice.
vulkan::DeviceSnapshot fakeGpu(vulkan::FeatureSet features, std::uint32_t sharedBytes) {
  vulkan::DeviceSnapshot device;
  device.name = "Fake GPU";
  device.features = features;
  device.subgroupOperations = 0xFF;
  device.limits.maxStorageBufferRange = 1u << 30;
  device.limits.maxBoundDescriptorSets = 4;
  device.limits.maxComputeWorkGroupCount = {65535, 65535, 65535};
  device.limits.maxComputeWorkGroupSize = {1024, 1024, 64};
  device.limits.maxComputeWorkGroupInvocations = 1024;
  device.limits.maxComputeSharedMemorySize = sharedBytes;
  return device;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

/// The VGF needs cooperative matrices, visibly: conversion stats, inspect's summary and the
/// runner's feature set all say so.
void expectCoopMat(const Converted& c) {
  EXPECT_TRUE(contains(c.model.stats.capabilities, "CooperativeMatrixNV"));
  EXPECT_NE(c.model.stats.target.find("cooperative matrix 16x16x16 f16+f32"), std::string::npos) << c.model.stats.target;
  const std::string summary = vgf::formatSummary(c.file);
  EXPECT_NE(summary.find("CooperativeMatrixNV"), std::string::npos) << summary;
  EXPECT_NE(summary.find("SPV_NV_cooperative_matrix"), std::string::npos) << summary;
  EXPECT_NE(summary.find("device requirements: capabilities"), std::string::npos) << summary;
  auto model = runner::Model::create(c.file, "model.vgf");
  ASSERT_TRUE(model) << model.error().message();
  EXPECT_TRUE(model->requiredFeatures().has(vulkan::Feature::CooperativeMatrixNv));
}

TEST(NativeTargetCoopMat, Fp16MatmulDeclaresCooperativeMatrix) {
  std::mt19937 rng(11);
  // 16-byte vector loads (K and N multiples of 8) and element-wise packing (neither).
  // The last one takes the large tile (Tuning::coopMatTile) and has partial tiles.
  for (auto [m, k, n] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{96, 80, 72}, {96, 81, 70}, {256, 64, 264}}) {
    TestGraph g = matmulGraph(DType::Fp16, m, k, n, rng);
    converter::Target target = coopMatTarget();
    target.tuning.coopMatLargeMinTiles = 1;
    auto c = convertWith(g.graph, target);
    ASSERT_TRUE(c);
    expectCoopMat(*c);
  }
}

TEST(NativeTargetCoopMat, Fp16Conv2dFp32AndFp16AccumulatorsDeclareCooperativeMatrix) {
  std::mt19937 rng(12);
  // IC 24 reads 16-byte chunks (GEMM_VEC_A); IC 3, a stem's, steps through taps (GEMM_RUN_A).
  for (std::int64_t ic : {24, 3}) {
    for (DType acc : {DType::Fp32, DType::Fp16}) {
      TestGraph g = conv2dGraph(DType::Fp16, 9, 10, ic, 40, acc, rng);
      auto c = convertWith(g.graph, coopMatTarget());
      ASSERT_TRUE(c);
      expectCoopMat(*c);
    }
  }
}

// Tuning::coopMatBandEpilogue: MATMUL stages its epilogue a band of fragments at a time in the
// A operand buffers, so its module declares only the operand buffers; CONV2D, and MATMUL
// without the entry, keep one staging fragment per subgroup beside them. The runner validates
// every module with spirv-val (expectCoopMat).
TEST(NativeTargetCoopMat, MatmulStagesItsEpilogueInTheOperandBuffers) {
  std::mt19937 rng(31);
  converter::Target target = coopMatTarget();
  target.tuning.coopMatLargeMinTiles = 1;
  auto sharedBytes = [&](const tosa::Graph& graph, bool band) -> std::uint64_t {
    target.tuning.coopMatBandEpilogue = band;
    auto c = convertWith(graph, target);
    if (!c) return 0;
    expectCoopMat(*c);
    std::uint64_t bytes = 0;  // of the GEMM module (the one with shared memory)
    for (const auto& module : c->file.modules) {
      auto reflected = vgf::reflectSpirv(module.spirv);
      EXPECT_TRUE(reflected) << reflected.error().message();
      for (const auto& entry : reflected ? reflected->entryPoints : std::vector<vgf::SpirvEntryPoint>{}) {
        bytes = std::max(bytes, entry.workgroupBytes);
      }
    }
    return bytes;
  };
  // The common tile: 2x2 subgroups of 64x64 (128x128), K slice 32, 16-byte chunks of 8 fp16.
  // A: two buffers of 128 rows of 32/8 + 1 chunks; B: two of 32 rows of 128/8 + 1 chunks.
  const std::uint64_t operands = (2 * 128 * 5 + 2 * 32 * 17) * 16;
  // fp16 MATMUL accumulates in fp16 on 16x8 fragments; the fp32-accumulating CONV2D on 16x16.
  TestGraph matmul = matmulGraph(DType::Fp16, 256, 64, 264, rng);
  EXPECT_EQ(sharedBytes(matmul.graph, true), operands);
  EXPECT_EQ(sharedBytes(matmul.graph, false), operands + 4 * 16 * 8 * 2);
  TestGraph conv = conv2dGraph(DType::Fp16, 16, 16, 64, 128, DType::Fp32, rng);
  EXPECT_EQ(sharedBytes(conv.graph, true), operands + 4 * 16 * 16 * 4);
}

// One instruction of a module, with the word it starts at.
struct PlacedInstruction {
  std::size_t offset = 0;
  std::uint32_t wordCount = 0, opcode = 0;
  std::span<const std::uint32_t> words;  // all of it, the opcode word included
};

// The instructions of a module the converter wrote, in order (up to a malformed one, if any).
std::vector<PlacedInstruction> instructionsOf(std::span<const std::uint32_t> module) {
  std::vector<PlacedInstruction> out;
  std::size_t i = openvgf::spirv::kHeaderWords;
  while (const auto inst = openvgf::spirv::instructionAt(module, i)) {
    out.push_back({i, inst->wordCount, inst->opcode, module.subspan(i, inst->wordCount)});
    i += inst->wordCount;
  }
  return out;
}

// Cooperative-matrix loads (OpCooperativeMatrixLoadNV) in a SPIR-V module.
int matrixLoads(std::span<const std::uint32_t> spirv) {
  int loads = 0;
  for (const PlacedInstruction& inst : instructionsOf(spirv)) loads += inst.opcode == 5359u ? 1 : 0;
  return loads;
}

// Tuning::coopMatResidualAccumulators: under --precision, a GEMM whose epilogue starts by
// adding an fp32 tensor shaped like the output (and reads no other tensor) loads that tensor
// into its accumulators (matrix loads the kernel without it does not have), under both staging
// schemes and with tiles cut by M and N (whose edge fragments add it in the epilogue). Every
// such module validates (expectCoopMat). A residual read again later in the chain, a SUB, or
// fp16 tensors keep the element-wise read: the module does not change.
TEST(NativeTargetCoopMat, PrecisionResidualAddsStartTheAccumulators) {
  std::mt19937 rng(33);
  enum class Chain { AddClamp, AddThenMul, Sub };
  auto residualGraph = [&](bool matmul, Chain chain, DType type) {
    tosa::Builder b;
    Value y, skip;
    if (matmul) {  // M 90, N 72, K 576: both cut by the 128 x 128 tile
      y = b.matmul(b.input("a", type, {1, 90, 576}), b.constant(randomTensor(type, {1, 576, 72}, rng)));
      skip = b.input("skip", type, {1, 90, 72});
    } else {  // M 180, N 40, K 576
      Value x = b.input("x", type, {2, 9, 10, 64});
      y = b.conv2d(x, b.constant(randomTensor(type, {40, 3, 3, 64}, rng)), std::nullopt, samePadding3x3());
      skip = b.input("skip", type, {2, 9, 10, 40});
    }
    switch (chain) {
      case Chain::AddClamp: b.output(b.clamp(b.add(skip, y), 0.0, 6.0)); break;
      case Chain::AddThenMul: b.output(b.mul(b.add(y, skip), skip)); break;
      case Chain::Sub: b.output(b.sub(y, skip)); break;
    }
    auto built = b.build();
    EXPECT_TRUE(built) << (built ? "" : built.error().message());
    return built ? std::move(*built) : tosa::Graph{};
  };
  struct Case {
    bool matmul;
    Chain chain;
    DType type;
    bool startsFromResidual;
  };
  const Case cases[] = {{false, Chain::AddClamp, DType::Fp32, true},    {true, Chain::AddClamp, DType::Fp32, true},
                        {false, Chain::AddThenMul, DType::Fp32, false}, {false, Chain::Sub, DType::Fp32, false},
                        {false, Chain::AddClamp, DType::Fp16, false}};
  for (const Case& c : cases) {
    const tosa::Graph graph = residualGraph(c.matmul, c.chain, c.type);
    for (bool band : {false, true}) {
      SCOPED_TRACE(fmt::format("{} chain {} {} band {}", c.matmul ? "MATMUL" : "CONV2D", static_cast<int>(c.chain),
                               tosa::toString(c.type), band));
      converter::Target target = coopMatTarget();
      target.tuning.coopMatLargeMinTiles = 1;
      target.tuning.coopMatBandEpilogue = band;
      target.precision = c.type == DType::Fp32 ? Precision::Fp16 : Precision::Fp32;
      target.tuning.fp16OperandsMinDepth = 512;
      target.tuning.gemmSplitKGroups = 0;  // split-K partials have no epilogue
      auto plain = convertWith(graph, target);
      target.tuning.coopMatResidualAccumulators = true;
      auto started = convertWith(graph, target);
      ASSERT_TRUE(plain && started);
      expectCoopMat(*started);
      EXPECT_EQ(started->model.stats.kernels, 1u) << "the chain belongs to the GEMM's epilogue";
      ASSERT_EQ(started->file.modules.size(), 1u);
      EXPECT_EQ(matrixLoads(started->file.modules[0].spirv) > matrixLoads(plain->file.modules[0].spirv),
                c.startsFromResidual);
      EXPECT_EQ(std::ranges::equal(started->file.modules[0].spirv, plain->file.modules[0].spirv), !c.startsFromResidual);
    }
  }
}

// OpFConvert instructions whose result is a cooperative matrix (NV or KHR encoding).
int matrixConversions(std::span<const std::uint32_t> spirv) {
  std::set<std::uint32_t> matrixTypes;
  int conversions = 0;
  for (const PlacedInstruction& inst : instructionsOf(spirv)) {
    const std::uint32_t opcode = inst.opcode, words = inst.wordCount;
    if ((opcode == vgf::coopmat::kOpTypeNV || opcode == vgf::coopmat::kOpTypeKHR) && words > 1) matrixTypes.insert(inst.words[1]);
    if (opcode == 115u && words > 1 && matrixTypes.count(inst.words[1]) != 0) ++conversions;
  }
  return conversions;
}

/// A 3x3 CONV2D (pad 1) of 64 random fp32 filters over x [.., 64].
Value conv3x3x64(tosa::Builder& b, const Value& x, std::mt19937& rng) {
  return b.conv2d(x, b.constant(randomTensor(DType::Fp32, {64, 3, 3, 64}, rng)), std::nullopt, samePadding3x3());
}

/// coopMatTarget with --precision fp16, residual accumulators, every GEMM on the large tile
/// and no split-K (whose partial passes have no epilogue).
converter::Target precisionTarget(bool khr) {
  converter::Target target = coopMatTarget();
  target.tuning.coopMatKhrEncoding = khr;
  target.tuning.coopMatLargeMinTiles = 1;
  target.precision = Precision::Fp16;
  target.tuning.coopMatResidualAccumulators = true;
  target.tuning.gemmSplitKGroups = 0;
  return target;
}

// Tuning::fp16Storage: under --precision fp16, an fp32 tensor that only storage-typed kernels
// read and write (here a CONV2D's result that the next CONV2D reads and adds back) is stored
// as fp16: its VGF resource is fp16 and the second CONV2D loads the residual as fp16 matrices
// and widens them into its accumulators, in both encodings. Model inputs and outputs stay fp32.
TEST(NativeTargetCoopMat, PrecisionFp16StoresIntermediatesAsFp16) {
  std::mt19937 rng(35);
  tosa::Builder b;
  Value r1 = b.clamp(conv3x3x64(b, b.input("x", DType::Fp32, {2, 9, 10, 64}), rng), 0.0, 6.0);
  b.output(b.clamp(b.add(conv3x3x64(b, r1, rng), r1), 0.0, 6.0));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  for (bool khr : {false, true}) {
    SCOPED_TRACE(khr ? "KHR encoding" : "NV encoding");
    converter::Target target = precisionTarget(khr);
    target.tuning.fp16Storage = false;
    auto wide = convertWith(*graph, target);
    target.tuning.fp16Storage = true;
    auto narrow = convertWith(*graph, target);
    ASSERT_TRUE(wide && narrow);
    auto fp16Resources = [](const vgf::File& file) {
      std::vector<std::vector<std::int64_t>> shapes;
      for (const vgf::Resource& r : file.resources) {
        if (r.category == vgf::ResourceCategory::Intermediate &&
            r.vkFormat == static_cast<std::uint32_t>(vgf::VkFormatValue::R16Sfloat)) {
          shapes.push_back(r.shape);
        }
      }
      return shapes;
    };
    EXPECT_TRUE(fp16Resources(wide->file).empty());
    EXPECT_EQ(fp16Resources(narrow->file), (std::vector<std::vector<std::int64_t>>{{2, 9, 10, 64}}));
    ASSERT_EQ(narrow->file.modules.size(), 2u);
    EXPECT_EQ(matrixConversions(wide->file.modules[1].spirv), 0);
    EXPECT_GT(matrixConversions(narrow->file.modules[1].spirv), 0);
    if (!khr) expectCoopMat(*narrow);
  }
  // Weights computed at run time stay fp32: a CONV2D binds only its activations by storage.
  tosa::Builder wb;
  Value wx = wb.input("x", DType::Fp32, {2, 9, 10, 64});
  Value w = wb.abs(wb.input("w", DType::Fp32, {64, 3, 3, 64}));
  wb.output(wb.clamp(wb.conv2d(wb.clamp(wx, 0.0, 6.0), w, std::nullopt, samePadding3x3()), 0.0, 6.0));
  auto weightGraph = wb.build();
  ASSERT_TRUE(weightGraph) << weightGraph.error().message();
  auto runtimeWeights = convertWith(*weightGraph, precisionTarget(false));
  ASSERT_TRUE(runtimeWeights);
  std::vector<std::vector<std::int64_t>> intermediates;
  for (const vgf::Resource& r : runtimeWeights->file.resources) {
    if (r.category != vgf::ResourceCategory::Intermediate) continue;
    const bool fp16 = r.vkFormat == static_cast<std::uint32_t>(vgf::VkFormatValue::R16Sfloat);
    const bool activations = r.shape == std::vector<std::int64_t>{2, 9, 10, 64};
    EXPECT_EQ(fp16, activations) << fmt::format("{}", fmt::join(r.shape, "x"));
    intermediates.push_back(r.shape);
  }
  EXPECT_EQ(intermediates.size(), 2u) << "the clamped input and the run-time weights";
}

// Matrix stores (NV or KHR encoding).
int matrixStores(std::span<const std::uint32_t> spirv) {
  int stores = 0;
  for (const PlacedInstruction& inst : instructionsOf(spirv)) {
    if (inst.opcode == vgf::coopmat::kOpStoreNV || inst.opcode == vgf::coopmat::kOpStoreKHR) ++stores;
  }
  return stores;
}

// Tuning::coopMatDirectStoreMaxDepth: a convolution whose epilogue works per element (a CLAMP; or a
// residual ADD of an fp16-stored tensor, then a CLAMP) stores whole fragments to its output
// besides staging the edge ones (one more matrix store), in both encodings; a per-channel
// epilogue input (a MUL by a constant vector) keeps every fragment staged: the module does not
// change.
TEST(NativeTargetCoopMat, PerElementEpiloguesStoreWholeFragments) {
  std::mt19937 rng(37);
  enum class Chain { Clamp, ResidualClamp, ChannelMul };
  auto graph = [&](Chain chain) {
    tosa::Builder b;
    Value r = b.clamp(conv3x3x64(b, b.input("x", DType::Fp32, {2, 9, 10, 64}), rng), 0.0, 6.0);
    Value y = conv3x3x64(b, r, rng);
    switch (chain) {
      case Chain::Clamp: b.output(b.clamp(y, 0.0, 6.0)); break;
      case Chain::ResidualClamp: b.output(b.clamp(b.add(y, r), 0.0, 6.0)); break;
      case Chain::ChannelMul: b.output(b.mul(y, b.constant(randomTensor(DType::Fp32, {1, 1, 1, 64}, rng)))); break;
    }
    auto built = b.build();
    EXPECT_TRUE(built) << (built ? "" : built.error().message());
    return built ? std::move(*built) : tosa::Graph{};
  };
  for (Chain chain : {Chain::Clamp, Chain::ResidualClamp, Chain::ChannelMul}) {
    const tosa::Graph g = graph(chain);
    for (bool khr : {false, true}) {
      SCOPED_TRACE(fmt::format("chain {} {}", static_cast<int>(chain), khr ? "KHR" : "NV"));
      converter::Target target = precisionTarget(khr);
      auto staged = convertWith(g, target);
      target.tuning.coopMatDirectStoreMaxDepth = 576;
      auto direct = convertWith(g, target);
      ASSERT_TRUE(staged && direct);
      ASSERT_EQ(direct->file.modules.size(), 2u);
      const auto& before = staged->file.modules[1].spirv;
      const auto& after = direct->file.modules[1].spirv;
      EXPECT_EQ(matrixStores(after), matrixStores(before) + (chain == Chain::ChannelMul ? 0 : 1));
      EXPECT_EQ(std::ranges::equal(before, after), chain == Chain::ChannelMul);
      if (!khr) expectCoopMat(*direct);
    }
  }
}

TEST(NativeTargetCoopMat, Int8WithZeroPointsZeroUsesIntegerCooperativeMatrix) {
  std::mt19937 rng(13);
  TestGraph g = matmulGraph(DType::Int8, 64, 64, 48, rng);
  auto c = convertWith(g.graph, coopMatTarget());
  ASSERT_TRUE(c);
  expectCoopMat(*c);
  EXPECT_TRUE(contains(c->model.stats.capabilities, "Int8"));
}

TEST(NativeTargetDot4, Int8WithoutCooperativeMatrixUsesIntegerDotProduct) {
  std::mt19937 rng(16);
  converter::Target target = converter::portableTarget();
  target.name = "native";
  target.caps.integerDotProduct = true;
  TestGraph mm = matmulGraph(DType::Int8, 40, 36, 24, rng, 3, -5);
  TestGraph conv = conv2dGraph(DType::Int8, 6, 7, 12, 20, std::nullopt, rng, -7);
  for (const TestGraph* g : {&mm, &conv}) {
    auto c = convertWith(g->graph, target);
    ASSERT_TRUE(c);
    EXPECT_TRUE(contains(c->model.stats.capabilities, "DotProduct"));
    EXPECT_TRUE(contains(c->model.stats.capabilities, "DotProductInput4x8BitPacked"));
    const std::string summary = vgf::formatSummary(c->file);
    EXPECT_NE(summary.find("DotProductInput4x8BitPacked"), std::string::npos) << summary;
    auto model = runner::Model::create(c->file, "model.vgf");
    ASSERT_TRUE(model) << model.error().message();
    EXPECT_TRUE(model->requiredFeatures().has(vulkan::Feature::ShaderIntegerDotProduct));
  }
  // The portable target never asks for it.
  auto portable = convertWith(mm.graph, converter::portableTarget());
  ASSERT_TRUE(portable);
  EXPECT_FALSE(contains(portable->model.stats.capabilities, "DotProduct"));
}

TEST(NativeTargetFp16, ElementwiseChainsComputeInFp16WithRoundToNearestEven) {
  std::mt19937 rng(17);
  TestGraph g = fp16ChainGraph(rng);
  converter::Target target = converter::portableTarget();
  target.name = "native";
  target.caps.fp16Arithmetic = true;
  target.caps.fp16RoundingRte = true;
  auto c = convertWith(g.graph, target);
  ASSERT_TRUE(c);
  EXPECT_TRUE(contains(c->model.stats.capabilities, "Float16"));
  EXPECT_TRUE(contains(c->model.stats.capabilities, "RoundingModeRTE"));
  EXPECT_NE(vgf::formatSummary(c->file).find("RoundingModeRTE"), std::string::npos);
  auto model = runner::Model::create(c->file, "model.vgf");
  ASSERT_TRUE(model) << model.error().message();
  // A device that does not round fp16 to nearest even is refused by name.
  vulkan::DeviceSnapshot device = fakeGpu(vulkan::FeatureSet{~0u}, 32768);
  Status refused = model->checkDevice(device);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("RoundingModeRTE 16"), std::string::npos) << refused.error().message();
  device.roundingModeRte = vulkan::kFloatWidth16;
  EXPECT_TRUE(model->checkDevice(device));
  // Without the rounding guarantee the chain stays in fp32.
  target.caps.fp16RoundingRte = false;
  auto fp32 = convertWith(g.graph, target);
  ASSERT_TRUE(fp32);
  EXPECT_FALSE(contains(fp32->model.stats.capabilities, "RoundingModeRTE"));
  EXPECT_FALSE(contains(fp32->model.stats.capabilities, "Float16"));
}

TEST(NativeTargetCoopMat, TileConfigsAreVerified) {
  converter::Target target = coopMatTarget();
  EXPECT_TRUE(converter::verifyTarget(target));
  target.tuning.coopMatTile.blockN = 12;
  Status bad = converter::verifyTarget(target);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("cooperative-matrix tile"), std::string::npos) << bad.error().message();
}

TEST(NativeTargetCoopMat, PortableAndSmallProblemsStayScalar) {
  std::mt19937 rng(14);
  TestGraph big = matmulGraph(DType::Fp16, 96, 80, 72, rng);
  auto portable = convertWith(big.graph, converter::portableTarget());
  ASSERT_TRUE(portable);
  EXPECT_FALSE(contains(portable->model.stats.capabilities, "CooperativeMatrixNV"));
  EXPECT_EQ(vgf::formatSummary(portable->file).find("SPV_NV_cooperative_matrix"), std::string::npos);
  // fp32 has no cooperative-matrix shape; a 16-row GEMM is below the tile size.
  TestGraph fp32 = matmulGraph(DType::Fp32, 96, 80, 72, rng);
  TestGraph thin = matmulGraph(DType::Fp16, 16, 80, 72, rng);
  for (const TestGraph* g : {&fp32, &thin}) {
    auto c = convertWith(g->graph, coopMatTarget());
    ASSERT_TRUE(c);
    EXPECT_FALSE(contains(c->model.stats.capabilities, "CooperativeMatrixNV"));
  }
}

// --precision fp16: fp32 MATMUL and CONV2D at least Tuning::fp16OperandsMinDepth deep (vector
// loads and element-wise packing alike) take fp16 fragments with fp32 accumulators, shallower
// ones stay scalar; a target without fp16 fragments refuses the option, and an unknown
// precision is invalid input.
TEST(NativeTargetCoopMat, PrecisionFp16PutsDeepFp32GemmsOnCooperativeMatrices) {
  std::mt19937 rng(15);
  converter::Target target = coopMatTarget();
  target.tuning.fp16OperandsMinDepth = 512;  // the H100 entry of the tuning table
  const std::int64_t deep = target.tuning.fp16OperandsMinDepth;
  TestGraph matmuls[] = {matmulGraph(DType::Fp32, 96, deep, 72, rng), matmulGraph(DType::Fp32, 96, deep + 3, 70, rng),
                         matmulGraph(DType::Fp32, 96, deep - 8, 72, rng)};
  TestGraph conv = conv2dGraph(DType::Fp32, 9, 10, 64, 40, std::nullopt, rng);  // K = 576
  for (const TestGraph* g : {&matmuls[0], &matmuls[1], &conv, &matmuls[2]}) {
    converter::ConvertOptions options;
    options.customTarget = target;
    options.precision = "fp16";
    options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
    auto model = converter::convert(g->graph, options);
    ASSERT_TRUE(model) << model.error().message();
    EXPECT_EQ(contains(model->stats.capabilities, "CooperativeMatrixNV"), g != &matmuls[2]);
    EXPECT_NE(model->stats.target.find("fp16 GEMM operands"), std::string::npos) << model->stats.target;
  }
  converter::ConvertOptions portable;
  portable.precision = "fp16";
  auto refused = converter::convert(matmuls[0].graph, portable);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind(), ErrorKind::Unsupported);
  EXPECT_NE(refused.error().message().find("expected a target with fp16 cooperative matrices"), std::string::npos)
      << refused.error().message();
  converter::ConvertOptions unknown;
  unknown.precision = "fp8";
  auto invalid = converter::convert(matmuls[0].graph, unknown);
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().kind(), ErrorKind::InvalidInput);
}

// Tuning::coopMatTilesNarrow: GEMMs no wider than a tile's maxN take the first such tile (here
// 8 subgroups of 16 x 64, 256 invocations, up to N 40; 2 x 1 subgroups of 32 x 64, 64
// invocations, up to 64), wider ones the common tile (2 x 2 subgroups, 128 invocations).
TEST(NativeTargetCoopMat, NarrowGemmsTakeTheNarrowTile) {
  std::mt19937 rng(41);
  converter::Target target = coopMatTarget();
  target.tuning.coopMatLargeMinTiles = 1;
  target.tuning.coopMatTilesNarrow = {{40, converter::CoopMatTile{8, 1, 16, 64, 32}},
                                      {64, converter::CoopMatTile{2, 1, 32, 64, 32}}};
  for (auto [oc, invocations] :
       {std::pair<std::int64_t, std::uint32_t>{40, 256}, {48, 64}, {64, 64}, {72, 128}}) {
    auto c = convertWith(conv2dGraph(DType::Fp16, 9, 10, 16, oc, DType::Fp32, rng).graph, target);
    ASSERT_TRUE(c);
    expectCoopMat(*c);
    auto reflected = vgf::reflectSpirv(c->file.modules.at(0).spirv);
    ASSERT_TRUE(reflected) << reflected.error().message();
    EXPECT_EQ(reflected->entryPoints.at(0).localSize[0], invocations) << "N " << oc;
  }
}

// Tiles by grid size: a GEMM with fewer common tiles than coopMatLargeMinTiles takes the first
// tile of Tuning::coopMatTilesMid it is as wide and deep as and has enough workgroups of (here
// 2 x 4 subgroups, 256 invocations, from K 512; then 2 x 1 subgroups of 32 x 32, 64
// invocations, from 24 workgroups), else the small tile (2 x 2, 128); one whose accumulators start from a
// residual takes coopMatTileResidual (1 x 2, 64) however deep.
TEST(NativeTargetCoopMat, TilesFollowTheGridSize) {
  std::mt19937 rng(43);
  converter::Target target = precisionTarget(false);
  target.tuning.coopMatLargeMinTiles = 1000;
  // M 512 / 64 x N 128 / 128 tiles of 64 x 128; of the second's 64 x 32, 8 x 4 for N 128,
  // 8 x 3 for N 96 and 8 x 2 for N 40.
  target.tuning.coopMatTilesMid = {{converter::CoopMatTile{2, 4, 32, 32, 32}, 8, 512},
                                   {converter::CoopMatTile{2, 1, 32, 32, 32}, 24, 1}};
  target.tuning.coopMatTileResidual = converter::CoopMatTile{1, 2, 32, 32, 32};
  target.tuning.coopMatResidualMinTiles = 1000;
  struct Case {
    std::int64_t ic, oc;
    bool residual;
    std::uint32_t invocations;
  };
  for (const Case& c : {Case{64, 128, false, 256}, Case{32, 128, false, 64}, Case{64, 96, false, 64},
                        Case{32, 40, false, 128}, Case{64, 128, true, 64}}) {
    SCOPED_TRACE(fmt::format("K {} N {} residual {}", 9 * c.ic, c.oc, c.residual));
    tosa::Builder b;
    Value x = b.input("x", DType::Fp32, {2, 16, 16, c.ic});
    Value y = b.conv2d(x, b.constant(randomTensor(DType::Fp32, {c.oc, 3, 3, c.ic}, rng)), std::nullopt,
                       samePadding3x3());
    b.output(b.clamp(c.residual ? b.add(b.input("skip", DType::Fp32, {2, 16, 16, c.oc}), y) : y, 0.0, 6.0));
    auto graph = b.build();
    ASSERT_TRUE(graph) << graph.error().message();
    auto converted = convertWith(*graph, target);
    ASSERT_TRUE(converted);
    expectCoopMat(*converted);
    auto reflected = vgf::reflectSpirv(converted->file.modules.at(0).spirv);
    ASSERT_TRUE(reflected) << reflected.error().message();
    EXPECT_EQ(reflected->entryPoints.at(0).localSize[0], c.invocations);
  }
}

// Tuning::coopMatTileGather: a convolution whose input channels are not a multiple of the
// 16-byte chunk (3 here, a stem) gathers A element by element and takes that tile (4 x 1
// subgroups of 16 x 64) before any other, if it is at least as wide (64); 16 channels, or 48
// outputs, keep the common tile (2 x 2 subgroups of 64 x 64). Both have 128 invocations, so
// the workgroup count along M tells them apart.
TEST(NativeTargetCoopMat, GatheredConvolutionsTakeTheGatherTile) {
  std::mt19937 rng(47);
  converter::Target target = coopMatTarget();
  target.tuning.coopMatLargeMinTiles = 1;
  target.tuning.coopMatTileGather = converter::CoopMatTile{4, 1, 16, 64, 32};
  // M = 2 x 16 x 16 = 512 rows: 8 workgroups of the gather tile's 64, 4 of the common 128.
  for (auto [ic, oc, rowGroups] :
       {std::tuple<std::int64_t, std::int64_t, std::uint32_t>{3, 64, 8}, {16, 64, 4}, {3, 48, 4}}) {
    SCOPED_TRACE(fmt::format("IC {} OC {}", ic, oc));
    auto c = convertWith(conv2dGraph(DType::Fp16, 16, 16, ic, oc, DType::Fp32, rng).graph, target);
    ASSERT_TRUE(c);
    expectCoopMat(*c);
    auto reflected = vgf::reflectSpirv(c->file.modules.at(0).spirv);
    ASSERT_TRUE(reflected) << reflected.error().message();
    EXPECT_EQ(reflected->entryPoints.at(0).localSize[0], 128u);
    const auto& dispatch = c->file.segments.at(0).dispatchShape;
    ASSERT_TRUE(dispatch);
    EXPECT_EQ((*dispatch)[1], rowGroups);
  }
}

// Tuning::coopMatRowRunsMaxPadding: a gathered convolution with constant weights reads each
// filter row's KW x IC operands as one run of the input row (GEMM_ROW_A), so its weights are
// stored as KH runs padded with zero rows to whole chunks of 8: a 7x7 stride-2 stem over 3
// channels goes from K = 147 to 7 x 24 = 168 (14 % more), a 3x3 one from 27 to 3 x 16 = 48
// (78 %). Where the padding would add more than the limit (one channel: 9 -> 24, 167 %), where
// the limit is 0, or with a column dilation, the weights keep their rows. Every module passes
// spirv-val (expectCoopMat).
TEST(NativeTargetCoopMat, GatheredConvolutionsReadFilterRowsAsRuns) {
  std::mt19937 rng(59);
  struct Case {
    std::string name;
    std::int64_t kernel;
    std::int64_t channels;
    int dilationX;
    int maxPadding;
    std::int64_t rowsStored;  // of the [K][OC] weights
  };
  const std::int64_t oc = 64;
  for (const Case& c : {Case{"7x7 stem", 7, 3, 1, 100, 7 * 24}, Case{"7x7 stem, limit 0", 7, 3, 1, 0, 147},
                        Case{"7x7 stem, column dilation 2", 7, 3, 2, 100, 147}, Case{"3x3 stem", 3, 3, 1, 100, 3 * 16},
                        Case{"3x3 stem, limit 50", 3, 3, 1, 50, 27}, Case{"3x3, one channel", 3, 1, 1, 100, 9},
                        Case{"3x3, one channel, limit 200", 3, 1, 1, 200, 3 * 8}}) {
    SCOPED_TRACE(c.name);
    tosa::Builder b;
    HostTensor w = randomTensor(DType::Fp16, {oc, c.kernel, c.kernel, c.channels}, rng);
    Value x = b.input("x", DType::Fp16, {2, 40, 40, c.channels});
    tosa::ConvParams p;
    const int before = static_cast<int>(c.kernel / 2), after = before - 1;  // 40 / 2 rows and columns out
    p.pad = {before, after, before, after};
    p.stride = {2, 2};
    p.dilation = {1, c.dilationX};
    p.accType = DType::Fp32;
    b.output(b.conv2d(x, b.constant(w), std::nullopt, p));
    auto graph = b.build();
    ASSERT_TRUE(graph) << graph.error().message();
    converter::Target target = coopMatTarget();
    target.tuning.coopMatLargeMinTiles = 1;
    target.tuning.gemmSplitKGroups = 0;
    target.tuning.coopMatRowRunsMaxPadding = c.maxPadding;
    auto converted = convertWith(*graph, target);
    ASSERT_TRUE(converted);
    expectCoopMat(*converted);
    const vgf::Constant* weights = nullptr;
    for (const vgf::Constant& constant : converted->file.constants) {
      const auto& shape = converted->file.resources.at(constant.mrtIndex).shape;
      if (shape.size() == 2 && shape[1] == oc) weights = &constant;
    }
    ASSERT_NE(weights, nullptr);
    ASSERT_EQ(converted->file.resources.at(weights->mrtIndex).shape[0], c.rowsStored);
    ASSERT_EQ(weights->data.size(), static_cast<std::size_t>(c.rowsStored * oc) * 2);
    // Row r of the stored weights holds filter operand (ky, j) = (r / stride, r % stride),
    // j = kx * IC + ic, or zeros past the row's KW x IC operands.
    const std::int64_t run = c.kernel * c.channels;
    const std::int64_t stride = c.rowsStored / c.kernel;
    const auto source = w.as<std::uint16_t>();
    int mismatches = 0;
    for (std::int64_t r = 0; r < c.rowsStored; ++r) {
      const std::int64_t ky = r / stride, j = r % stride;
      for (std::int64_t o = 0; o < oc; ++o) {
        std::uint16_t stored = 0;
        std::memcpy(&stored, weights->data.data() + static_cast<std::size_t>(r * oc + o) * 2, 2);
        const std::uint16_t expected =
            j < run ? source[static_cast<std::size_t>((o * c.kernel + ky) * run + j)] : std::uint16_t{0};
        mismatches += stored != expected;
      }
    }
    EXPECT_EQ(mismatches, 0);
  }
}

// Tuning::coopMatPrefetchMaxDepth: a GEMM at most that deep keeps two K slices in flight (a
// loop unrolled by two, so a module of its own, which compiles and validates for odd and even
// slice counts and for fp32 operands rounded in the core) when A is read in 16-byte chunks,
// the operands are not split (fp16x3) and an invocation fetches at most
// coopMatPrefetchMaxChunks chunks per slice (the common tile here: 4 of A and 4 of B). Other
// GEMMs keep the module of one slice in flight.
TEST(NativeTargetCoopMat, ShallowGemmsKeepTwoSlicesInFlight) {
  std::mt19937 rng(53);
  auto module = [&](const tosa::Graph& graph, int maxDepth, int maxChunks, bool precision) {
    converter::Target target = coopMatTarget();
    target.tuning.coopMatLargeMinTiles = 1;
    target.tuning.gemmSplitKGroups = 0;
    target.precision = precision ? Precision::Fp16 : Precision::Fp32;
    target.tuning.fp16Storage = false;
    target.tuning.coopMatPrefetchMaxDepth = maxDepth;
    target.tuning.coopMatPrefetchMaxChunks = maxChunks;
    auto c = convertWith(graph, target);
    if (!c) return std::vector<std::uint32_t>{};
    expectCoopMat(*c);
    const auto& spirv = c->file.modules.at(0).spirv;
    return std::vector<std::uint32_t>(spirv.begin(), spirv.end());
  };
  struct Case {
    std::string name;
    tosa::Graph graph;
    bool precision = false;
    int maxDepth = 512, maxChunks = 8;
    bool twoSlices = true;
  };
  std::vector<Case> cases;
  cases.push_back({"fp16 MATMUL, 3 slices", matmulGraph(DType::Fp16, 64, 96, 64, rng).graph});
  cases.push_back({"fp16 MATMUL, 4 slices", matmulGraph(DType::Fp16, 64, 128, 64, rng).graph});
  cases.push_back(
      {"fp16 CONV2D, 16 channels", conv2dGraph(DType::Fp16, 8, 8, 16, 32, DType::Fp32, rng).graph});
  cases.push_back(
      {"fp32 CONV2D rounded to fp16", conv2dGraph(DType::Fp32, 8, 8, 16, 32, std::nullopt, rng).graph, true});
  cases.push_back({"deeper than the limit", matmulGraph(DType::Fp16, 64, 128, 64, rng).graph, false, 96});
  cases.push_back(
      {"more chunks than the limit", matmulGraph(DType::Fp16, 64, 128, 64, rng).graph, false, 512, 4});
  cases.push_back(
      {"gathered CONV2D, 3 channels", conv2dGraph(DType::Fp16, 8, 8, 3, 32, DType::Fp32, rng).graph});
  for (Case& c : cases)
    c.twoSlices = c.name.find("limit") == std::string::npos && c.name.find("gathered") == std::string::npos;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto one = module(c.graph, 0, c.maxChunks, c.precision);
    const auto maybeTwo = module(c.graph, c.maxDepth, c.maxChunks, c.precision);
    ASSERT_FALSE(one.empty());
    EXPECT_EQ(one != maybeTwo, c.twoSlices);
  }
  // fp16x3 splits its operands: one slice in flight whatever the limits.
  converter::Target split = coopMatTarget();
  split.tuning.coopMatLargeMinTiles = 1;
  split.tuning.gemmSplitKGroups = 0;
  split.precision = Precision::Fp16x3;
  split.tuning.coopMatPrefetchMaxChunks = 64;
  const tosa::Graph fp32 = matmulGraph(DType::Fp32, 64, 96, 64, rng).graph;
  auto plain = convertWith(fp32, split);
  split.tuning.coopMatPrefetchMaxDepth = 512;
  auto limited = convertWith(fp32, split);
  ASSERT_TRUE(plain && limited);
  expectCoopMat(*plain);
  EXPECT_TRUE(std::ranges::equal(plain->file.modules.at(0).spirv, limited->file.modules.at(0).spirv));
}

// A deep K under a one-tile grid: the cooperative-matrix core runs as split-K partials (each
// slice a whole number of its BK steps) plus a reduction, fp16 and int8 alike.
TEST(NativeTargetCoopMat, DeepKSplitsIntoPartialAndReductionKernels) {
  std::mt19937 rng(17);
  for (DType type : {DType::Fp16, DType::Int8}) {
    TestGraph g = matmulGraph(type, 40, 1024, 48, rng);
    auto c = convertWith(g.graph, coopMatTarget());
    ASSERT_TRUE(c);
    expectCoopMat(*c);
    EXPECT_EQ(c->model.stats.kernels, 2u);
    converter::Target whole = coopMatTarget();
    whole.tuning.gemmSplitKGroups = 0;
    auto unsplit = convertWith(g.graph, whole);
    ASSERT_TRUE(unsplit);
    EXPECT_EQ(unsplit->model.stats.kernels, 1u);
  }
}

// Split-K partial passes with fp32 accumulators and N a multiple of 8 store whole fragments to
// the partial tensor with a matrix store of their own (CM_PARTIAL_STORE), beside the staging
// store that fragments at the edges take; N = 44 leaves only the staging store. The reduction
// pass has no matrix stores.
TEST(NativeTargetCoopMat, SplitPartialsStoreWholeFragments) {
  std::mt19937 rng(59);
  auto matrixStores = [](std::span<const std::uint32_t> spirv) {
    int stores = 0;
    for (const PlacedInstruction& inst : instructionsOf(spirv)) {
      if (inst.opcode == 5360u) ++stores;  // OpCooperativeMatrixStoreNV
    }
    return stores;
  };
  for (auto [oc, partialStores] : {std::pair<std::int64_t, int>{48, 2}, {44, 1}}) {
    SCOPED_TRACE(fmt::format("N {}", oc));
    // M = 2 x 4 x 4 = 32, K = 9 x 128: one tile, split along K.
    auto c = convertWith(conv2dGraph(DType::Fp16, 4, 4, 128, oc, DType::Fp32, rng).graph, coopMatTarget());
    ASSERT_TRUE(c);
    expectCoopMat(*c);
    ASSERT_EQ(c->file.segments.size(), 2u);
    EXPECT_NE(c->file.segments[0].name.find("_partial"), std::string::npos);
    EXPECT_EQ(matrixStores(c->file.modules.at(c->file.segments[0].moduleIndex).spirv), partialStores);
    EXPECT_EQ(matrixStores(c->file.modules.at(c->file.segments[1].moduleIndex).spirv), 0);
  }
}

TEST(NativeTargetCoopMat, RunnerRefusesDeviceWithoutTheExtension) {
  std::mt19937 rng(15);
  TestGraph g = matmulGraph(DType::Fp16, 96, 80, 72, rng);
  auto c = convertWith(g.graph, coopMatTarget());
  ASSERT_TRUE(c);
  auto model = runner::Model::create(c->file, "model.vgf");
  ASSERT_TRUE(model) << model.error().message();
  runner::ContextOptions options;
  options.pipelineCache = false;
  auto context = runner::Context::create(options, *model);
  if (!context && context.error().kind() == ErrorKind::Environment) GTEST_SKIP() << context.error().message();
  if (context) GTEST_SKIP() << "this device has VK_NV_cooperative_matrix";
  EXPECT_EQ(context.error().kind(), ErrorKind::Unsupported);
  EXPECT_NE(context.error().message().find("VK_NV_cooperative_matrix"), std::string::npos)
      << context.error().message();
}

// ---- KHR encoding (converter/coopmat_khr.h) ----

/// What the KHR matrices of a module look like: every OpTypeCooperativeMatrixKHR (scope and
/// Use constant values) and, per OpCooperativeMatrixMulAddKHR, the Use of its operand types and
/// its signedness operands. Counts of NV instructions left over.
struct KhrMatrices {
  std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> types;  // id -> (scope, use)
  std::vector<std::array<std::uint32_t, 4>> mulAdds;                        // uses of A, B, C; operands mask
  int loads = 0, stores = 0, nvInstructions = 0;
};

KhrMatrices khrMatrices(std::span<const std::uint32_t> words) {
  KhrMatrices out;
  std::map<std::uint32_t, std::uint32_t> constants, typeOf;
  for (const PlacedInstruction& inst : instructionsOf(words)) {
    const std::uint32_t count = inst.wordCount, opcode = inst.opcode;
    const auto w = inst.words;
    if (opcode == 43 && count >= 4) constants[w[2]] = w[3];  // OpConstant
    if (opcode == 4456) out.types[w[1]] = {constants[w[3]], constants[w[6]]};
    // Instructions that can produce a matrix value: result type in word 1, result in word 2.
    if (opcode == 4457 || opcode == 4459 || opcode == 61 || opcode == 245 || opcode == 83 || opcode == 81) {
      typeOf[w[2]] = w[1];
    }
    if (opcode == 4457) ++out.loads;
    if (opcode == 4458) ++out.stores;
    if (opcode == 4459) {
      auto use = [&](std::uint32_t type) {
        auto it = out.types.find(type);
        return it == out.types.end() ? 99u : it->second.second;
      };
      const std::uint32_t mask = count > 6 ? w[6] : 0;
      out.mulAdds.push_back({use(typeOf[w[3]]), use(typeOf[w[4]]), use(w[1]), mask});
    }
    if (opcode >= 5358 && opcode <= 5362) ++out.nvInstructions;
  }
  return out;
}

converter::Target khrTarget() {
  converter::Target t = coopMatTarget();
  t.caps.cooperativeMatrixNv = false;
  t.caps.cooperativeMatrixKhr = true;
  t.tuning.coopMatKhrEncoding = true;
  t.caps.coopMatShapes.push_back(CoopMatShape{16, 8, 16, CoopMatTypes::F16xF16ToF32});
  t.caps.coopMatShapes.push_back(CoopMatShape{16, 16, 16, CoopMatTypes::F16xF16ToF16});
  return t;
}

/// Every compute module with matrices is KHR-encoded at `scope`, with the operands' Uses right.
void expectKhr(const Converted& c, std::uint32_t scope, std::uint32_t signedness = 0) {
  EXPECT_TRUE(contains(c.model.stats.capabilities, "CooperativeMatrixKHR"));
  EXPECT_FALSE(contains(c.model.stats.capabilities, "CooperativeMatrixNV"));
  const std::string summary = vgf::formatSummary(c.file);
  EXPECT_NE(summary.find("SPV_KHR_cooperative_matrix"), std::string::npos) << summary;
  int multiplies = 0;
  for (const vgf::Module& m : c.file.modules) {
    const KhrMatrices k = khrMatrices(m.spirv);
    EXPECT_EQ(k.nvInstructions, 0) << m.name;
    for (const auto& [id, scopeAndUse] : k.types) EXPECT_EQ(scopeAndUse.first, scope) << m.name << " type " << id;
    for (const auto& mulAdd : k.mulAdds) {
      EXPECT_EQ(mulAdd, (std::array<std::uint32_t, 4>{0, 1, 2, signedness})) << m.name;
    }
    multiplies += static_cast<int>(k.mulAdds.size());
  }
  EXPECT_GT(multiplies, 0);
  auto model = runner::Model::create(c.file, "model.vgf");
  ASSERT_TRUE(model) << model.error().message();
  EXPECT_TRUE(model->requiredFeatures().has(vulkan::Feature::CooperativeMatrixKhr));
  EXPECT_FALSE(model->requiredFeatures().has(vulkan::Feature::CooperativeMatrixNv));
  EXPECT_EQ(model->requiredFeatures().has(vulkan::Feature::CooperativeMatrixWorkgroupScope), scope == 2);
}

TEST(NativeTargetCoopMatKhr, SubgroupCoresAreReencodedWithOneTypePerUse) {
  std::mt19937 rng(21);
  // Square 16x16x16 fragments make A, B and the fp16 accumulator one NV type, which the
  // encoding splits through the core's fragment variables; 16x8x16 fragments (the tuning
  // override) do not need it. fp32 and fp16 accumulators, vector and element-wise loads,
  // MATMUL and CONV2D.
  TestGraph mm = matmulGraph(DType::Fp16, 96, 80, 72, rng);
  TestGraph mmOdd = matmulGraph(DType::Fp16, 96, 81, 70, rng);
  TestGraph conv32 = conv2dGraph(DType::Fp16, 9, 10, 24, 40, DType::Fp32, rng);
  TestGraph conv16 = conv2dGraph(DType::Fp16, 9, 10, 24, 40, DType::Fp16, rng);
  converter::Target target = khrTarget();
  converter::Target narrow = khrTarget();
  narrow.tuning.coopMatFragment = CoopMatShape{16, 8, 16};
  for (const TestGraph* g : {&mm, &mmOdd, &conv32, &conv16}) {
    for (const converter::Target* t : {&target, &narrow}) {
      auto c = convertWith(g->graph, *t);
      ASSERT_TRUE(c);
      expectKhr(*c, 3);
      EXPECT_NE(c->model.stats.target.find("cooperative matrix"), std::string::npos);
    }
  }
  // Encoded as NV, the same graph and fragments give as many loads and multiplies.
  auto nv = convertWith(mm.graph, coopMatTarget());
  auto khr = convertWith(mm.graph, narrow);
  ASSERT_TRUE(nv && khr);
  ASSERT_EQ(nv->file.modules.size(), khr->file.modules.size());
  for (std::size_t i = 0; i < nv->file.modules.size(); ++i) {
    auto count = [](std::span<const std::uint32_t> words, std::uint32_t opcode) {
      int n = 0;
      for (const PlacedInstruction& inst : instructionsOf(words)) n += inst.opcode == opcode ? 1 : 0;
      return n;
    };
    const KhrMatrices k = khrMatrices(khr->file.modules[i].spirv);
    EXPECT_EQ(count(nv->file.modules[i].spirv, 5359), k.loads);
    EXPECT_EQ(count(nv->file.modules[i].spirv, 5360), k.stores);
    EXPECT_EQ(count(nv->file.modules[i].spirv, 5361), static_cast<int>(k.mulAdds.size()));
  }
}

TEST(NativeTargetCoopMat, Fp16AccumulatorsTakeTheirOwnLargeTile) {
  std::mt19937 rng(27);
  // MATMUL fp16 -> fp16 accumulates in fp16: 2x2 subgroups of 64x128 make 128x256 tiles.
  TestGraph g = matmulGraph(DType::Fp16, 256, 64, 512, rng);
  converter::Target target = coopMatTarget();
  target.caps.coopMatShapes.push_back(CoopMatShape{16, 16, 16, CoopMatTypes::F16xF16ToF16});
  target.tuning.coopMatLargeMinTiles = 1;
  auto grid = [&](const converter::Target& t) {
    auto c = convertWith(g.graph, t);
    EXPECT_TRUE(c);
    return c ? c->file.segments.at(0).dispatchShape.value_or(std::array<std::uint32_t, 3>{}) : std::array<std::uint32_t, 3>{};
  };
  EXPECT_EQ(grid(target), (std::array<std::uint32_t, 3>{4, 2, 1}));  // the 128x128 tile
  target.tuning.coopMatTileHalfAcc = converter::CoopMatTile{2, 2, 64, 128, 16};
  EXPECT_EQ(grid(target), (std::array<std::uint32_t, 3>{2, 2, 1}));
  // Too few of the larger tiles (4 < 5): the common tile (8 of them) before the small one.
  target.tuning.coopMatLargeMinTiles = 5;
  EXPECT_EQ(grid(target), (std::array<std::uint32_t, 3>{4, 2, 1}));
  target.tuning.coopMatLargeMinTiles = 9;
  EXPECT_EQ(grid(target), (std::array<std::uint32_t, 3>{8, 4, 1}));  // 2x2 subgroups of 32x32
  target.tuning.coopMatLargeMinTiles = 1;
  // fp32 accumulators keep the common tile.
  target.caps.coopMatShapes = {CoopMatShape{16, 16, 16, CoopMatTypes::F16xF16ToF32}};
  EXPECT_EQ(grid(target), (std::array<std::uint32_t, 3>{4, 2, 1}));
}

TEST(NativeTargetCoopMatKhr, Int8MultipliesDeclareSignedComponents) {
  std::mt19937 rng(22);
  TestGraph g = matmulGraph(DType::Int8, 64, 64, 48, rng);
  auto c = convertWith(g.graph, khrTarget());
  ASSERT_TRUE(c);
  expectKhr(*c, 3, 0xF);
}

TEST(NativeTargetCoopMatKhr, WholeTileFp16MatmulsUseWorkgroupScopeMatrices) {
  std::mt19937 rng(23);
  converter::Target target = khrTarget();
  target.caps.coopMatWorkgroup = converter::CoopMatWorkgroupLimits{16, 16, 16, 256, 256, 0, false, {256}};
  target.tuning.coopMatWorkgroupTile = converter::CoopMatWorkgroupTile{128, 128, 32, 64};
  // 256 x 128 x 96 is whole 128x128x32 tiles; 96 x 80 x 72 is not and keeps subgroup scope.
  TestGraph whole = matmulGraph(DType::Fp16, 256, 96, 128, rng);
  auto c = convertWith(whole.graph, target);
  ASSERT_TRUE(c);
  expectKhr(*c, 2);
  EXPECT_NE(c->model.stats.target.find("workgroup-scope matrices"), std::string::npos) << c->model.stats.target;
  TestGraph partial = matmulGraph(DType::Fp16, 96, 80, 72, rng);
  auto p = convertWith(partial.graph, target);
  ASSERT_TRUE(p);
  expectKhr(*p, 3);
  // 32-row parts of a 64x32x32 tile make A and B one NV type, split by the encoding.
  target.tuning.coopMatWorkgroupTile = converter::CoopMatWorkgroupTile{64, 32, 32, 32};
  auto square = convertWith(whole.graph, target);
  ASSERT_TRUE(square);
  expectKhr(*square, 2);
  // Off through the tuning table's tile.
  target.tuning.coopMatWorkgroupTile.bm = 0;
  auto off = convertWith(whole.graph, target);
  ASSERT_TRUE(off);
  expectKhr(*off, 3);
}

TEST(NativeTargetCoopMatKhr, RunnerRefusesDeviceWithoutTheExtensions) {
  std::mt19937 rng(26);
  converter::Target target = khrTarget();
  target.caps.coopMatWorkgroup = converter::CoopMatWorkgroupLimits{16, 16, 16, 256, 256, 0, false, {256}};
  target.tuning.coopMatWorkgroupTile = converter::CoopMatWorkgroupTile{128, 128, 32, 64};
  // A device with every feature but workgroup-scope matrices refuses the workgroup-scope VGF
  // only, by its extension.
  vulkan::DeviceSnapshot device = fakeGpu(
      vulkan::FeatureSet{~0u & ~static_cast<std::uint32_t>(vulkan::Feature::CooperativeMatrixWorkgroupScope)}, 49152);
  device.roundingModeRte = vulkan::kFloatWidth16 | vulkan::kFloatWidth32;
  for (std::int64_t m : {96, 256}) {
    TestGraph g = matmulGraph(DType::Fp16, m, 128, 128, rng);
    auto c = convertWith(g.graph, target);
    ASSERT_TRUE(c);
    auto model = runner::Model::create(c->file, "model.vgf");
    ASSERT_TRUE(model) << model.error().message();
    Status checked = model->checkDevice(device);
    if (m == 96) {
      EXPECT_TRUE(checked) << checked.error().message();
    } else {
      ASSERT_FALSE(checked);
      EXPECT_NE(checked.error().message().find("VK_NV_cooperative_matrix2"), std::string::npos)
          << checked.error().message();
    }
    // This machine's device (lavapipe in CI) has neither extension.
    runner::ContextOptions options;
    options.pipelineCache = false;
    auto context = runner::Context::create(options, *model);
    if (!context && context.error().kind() == ErrorKind::Environment) continue;
    if (context) continue;  // a GPU with both
    EXPECT_EQ(context.error().kind(), ErrorKind::Unsupported);
    EXPECT_NE(context.error().message().find("VK_KHR_cooperative_matrix"), std::string::npos)
        << context.error().message();
  }
}

/// The components of a KHR module's matrix types by use ("bf16", "f16", "f32", ...).
std::map<std::uint32_t, std::set<std::string>> componentsByUse(std::span<const std::uint32_t> words) {
  std::map<std::uint32_t, std::string> floats;       // OpTypeFloat id -> name
  std::map<std::uint32_t, std::uint32_t> constants;  // OpConstant id -> value
  std::map<std::uint32_t, std::set<std::string>> out;
  for (const PlacedInstruction& inst : instructionsOf(words)) {
    const std::uint32_t count = inst.wordCount, opcode = inst.opcode;
    const auto w = inst.words;
    if (opcode == 22) floats[w[1]] = count == 4 && w[3] == 0 ? "bf16" : fmt::format("f{}", w[2]);
    if (opcode == 43 && count == 4) constants[w[2]] = w[3];
    if (opcode == 4456) out[constants[w[6]]].insert(floats.count(w[2]) ? floats[w[2]] : "int");
  }
  return out;
}

// --precision bf16: deep fp32 GEMMs take bf16 A and B matrices (KHR encoding only, with the
// SPV_KHR_bfloat16 capabilities), which the runner validates through its NV view and names
// VK_KHR_shader_bfloat16 for; targets without bf16 matrices, or with NV encoding only, refuse it.
TEST(NativeTargetCoopMatKhr, PrecisionBf16UsesBf16Matrices) {
  std::mt19937 rng(29);
  converter::Target target = khrTarget();
  target.tuning.fp16OperandsMinDepth = 512;
  target.caps.coopMatShapes.push_back(CoopMatShape{16, 16, 16, CoopMatTypes::Bf16xBf16ToF32});
  target.caps.coopMatShapes.push_back(CoopMatShape{16, 8, 16, CoopMatTypes::Bf16xBf16ToF32});
  TestGraph deep = matmulGraph(DType::Fp32, 96, 512, 72, rng);
  TestGraph odd = matmulGraph(DType::Fp32, 96, 515, 70, rng);  // element-wise packing
  TestGraph conv = conv2dGraph(DType::Fp32, 9, 10, 64, 40, std::nullopt, rng);  // K = 576
  TestGraph shallow = matmulGraph(DType::Fp32, 96, 256, 72, rng);
  auto convert = [&](const TestGraph& g, const converter::Target& t) {
    converter::ConvertOptions options;
    options.customTarget = t;
    options.precision = "bf16";
    options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
    return converter::convert(g.graph, options);
  };
  for (const TestGraph* g : {&deep, &odd, &conv, &shallow}) {
    auto model = convert(*g, target);
    ASSERT_TRUE(model) << model.error().message();
    EXPECT_NE(model->stats.target.find("bf16 GEMM operands"), std::string::npos) << model->stats.target;
    auto file = vgf::decode(model->vgf);
    ASSERT_TRUE(file);
    bool matrices = false;
    for (const vgf::Module& m : file->modules) {
      const auto uses = componentsByUse(m.spirv);
      if (uses.empty()) continue;
      matrices = true;
      EXPECT_EQ(uses.at(vgf::coopmat::kUseA), std::set<std::string>{"bf16"}) << m.name;
      EXPECT_EQ(uses.at(vgf::coopmat::kUseB), std::set<std::string>{"bf16"}) << m.name;
      EXPECT_EQ(uses.at(vgf::coopmat::kUseAccumulator), std::set<std::string>{"f32"}) << m.name;
    }
    EXPECT_EQ(matrices, g != &shallow);
    auto runnable = runner::Model::create(*file, "model.vgf");
    ASSERT_TRUE(runnable) << runnable.error().message();
    EXPECT_EQ(runnable->requiredFeatures().has(vulkan::Feature::CooperativeMatrixBfloat16), g != &shallow);
    if (g == &shallow) continue;
    vulkan::DeviceSnapshot device = fakeGpu(
        vulkan::FeatureSet{~0u & ~static_cast<std::uint32_t>(vulkan::Feature::CooperativeMatrixBfloat16)}, 49152);
    device.roundingModeRte = vulkan::kFloatWidth16 | vulkan::kFloatWidth32;
    Status checked = runnable->checkDevice(device);
    ASSERT_FALSE(checked);
    EXPECT_NE(checked.error().message().find("VK_KHR_shader_bfloat16"), std::string::npos) << checked.error().message();
    device.features.add(vulkan::Feature::CooperativeMatrixBfloat16);
    EXPECT_TRUE(runnable->checkDevice(device));
  }
  // Refused without bf16 shapes, and where only the NV encoding is used.
  converter::Target nvOnly = coopMatTarget();
  nvOnly.caps.coopMatShapes.push_back(CoopMatShape{16, 16, 16, CoopMatTypes::Bf16xBf16ToF32});
  for (const converter::Target& t : {khrTarget(), nvOnly}) {
    auto refused = convert(deep, t);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().kind(), ErrorKind::Unsupported);
    EXPECT_NE(refused.error().message().find("--precision bf16: expected a target with bf16 cooperative matrices"),
              std::string::npos)
        << refused.error().message();
  }
}

// --precision bf16x3 / fp32-bf16: fp32 GEMMs split into bf16 parts on bf16 matrices (KHR
// only). bf16x3 takes three products whatever the depth; fp32-bf16 takes as many as
// bf16SplitProducts gives for the GEMM's KS (converter/kernels/bf16_split.h): none below 326
// (the FMA core), six from there (a third part, so a third operand buffer per operand),
// three from 11920646. fp32 weights stay fp32 (each is split as the core stages it).
// Both are refused where the target has no bf16 matrices, or only the NV encoding.
TEST(NativeTargetCoopMatKhr, PrecisionBf16SplitChoosesProductsByDepth) {
  std::mt19937 rng(43);
  converter::Target target = khrTarget();
  target.caps.coopMatShapes.push_back(CoopMatShape{16, 16, 16, CoopMatTypes::Bf16xBf16ToF32});
  auto convert = [&](const tosa::Graph& g, const converter::Target& t, const std::string& precision) {
    converter::ConvertOptions options;
    options.customTarget = t;
    options.precision = precision;
    options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
    return converter::convert(g, options);
  };
  // Workgroup-memory variables of the modules that use matrices (0: none): the split cores
  // declare hi and mid buffers per operand, six products a lo buffer per operand too.
  auto sharedVariables = [](const vgf::File& file) {
    std::size_t count = 0;
    for (const vgf::Module& m : file.modules) {
      if (componentsByUse(m.spirv).empty()) continue;
      EXPECT_EQ(componentsByUse(m.spirv).at(vgf::coopmat::kUseA), std::set<std::string>{"bf16"}) << m.name;
      for (const PlacedInstruction& inst : instructionsOf(m.spirv)) {
        count += inst.opcode == 59 && inst.words.size() > 3 && inst.words[3] == 4 ? 1 : 0;  // OpVariable Workgroup
      }
    }
    return count;
  };
  ASSERT_EQ(converter::bf16SplitProducts(325), 0);
  ASSERT_EQ(converter::bf16SplitProducts(326), 6);
  TestGraph shallow = matmulGraph(DType::Fp32, 96, 325, 72, rng);
  TestGraph deep = matmulGraph(DType::Fp32, 96, 326, 72, rng);
  TestGraph conv = conv2dGraph(DType::Fp32, 9, 10, 64, 40, std::nullopt, rng);  // KS = 3 * 3 * 64 = 576
  for (const TestGraph* g : {&shallow, &deep, &conv}) {
    SCOPED_TRACE(g == &shallow ? "K 325" : g == &deep ? "K 326" : "conv");
    auto three = convert(g->graph, target, "bf16x3");
    ASSERT_TRUE(three) << three.error().message();
    EXPECT_NE(three->stats.target.find("bf16 parts, 3 products (--precision bf16x3)"), std::string::npos);
    auto tosaBound = convert(g->graph, target, "fp32-bf16");
    ASSERT_TRUE(tosaBound) << tosaBound.error().message();
    EXPECT_NE(tosaBound->stats.target.find("3 or 6 products within TOSA's bound"), std::string::npos);
    auto threeFile = vgf::decode(three->vgf);
    auto boundFile = vgf::decode(tosaBound->vgf);
    ASSERT_TRUE(threeFile && boundFile);
    const std::size_t threeParts = sharedVariables(*threeFile);
    EXPECT_GT(threeParts, 0u);
    EXPECT_EQ(sharedVariables(*boundFile), g == &shallow ? 0u : threeParts + 2);
    for (const vgf::File* file : {&*threeFile, &*boundFile}) {
      auto runnable = runner::Model::create(*file, "model.vgf");
      ASSERT_TRUE(runnable) << runnable.error().message();
      for (const vgf::Constant& c : file->constants) {
        EXPECT_EQ(c.data.size() % 4, 0u);  // fp32 weights, never narrowed to bf16
        if (file->resources.at(c.mrtIndex).shape == std::vector<std::int64_t>{576, 40}) {
          EXPECT_EQ(c.data.size(), static_cast<std::size_t>(576 * 40 * 4));
        }
      }
    }
  }
  converter::Target nvOnly = coopMatTarget();
  nvOnly.caps.coopMatShapes.push_back(CoopMatShape{16, 16, 16, CoopMatTypes::Bf16xBf16ToF32});
  for (const std::string precision : {"bf16x3", "fp32-bf16"}) {
    for (const converter::Target& t : {khrTarget(), nvOnly}) {
      auto refused = convert(deep.graph, t, precision);
      ASSERT_FALSE(refused);
      EXPECT_EQ(refused.error().kind(), ErrorKind::Unsupported);
      EXPECT_NE(refused.error().message().find("--precision " + precision +
                                               ": expected a target with bf16 cooperative matrices"),
                std::string::npos)
          << refused.error().message();
    }
  }
}

// --precision: constant fp32 CONV2D weights that the core reads in 16-byte chunks (OC a
// multiple of 8) are stored in the fragments' type, rounded to nearest even, in the
// transposed [K][OC] layout, so the core loads them as they are; other OC keep fp32 weights.
TEST(NativeTargetCoopMatKhr, PrecisionStoresConvWeightsInTheOperandType) {
  std::mt19937 rng(37);
  converter::Target target = khrTarget();
  target.tuning.fp16OperandsMinDepth = 512;
  target.caps.coopMatShapes.push_back(CoopMatShape{16, 16, 16, CoopMatTypes::Bf16xBf16ToF32});
  const std::int64_t k = 3 * 3 * 64;
  for (const std::string precision : {"fp16", "bf16"}) {
    for (const std::int64_t oc : {40, 36}) {
      SCOPED_TRACE(fmt::format("--precision {}, OC {}", precision, oc));
      tosa::Builder b;
      HostTensor w = randomTensor(DType::Fp32, {oc, 3, 3, 64}, rng);
      Value x = b.input("x", DType::Fp32, {2, 9, 10, 64});
      b.output(b.conv2d(x, b.constant(w), std::nullopt, samePadding3x3()));
      auto graph = b.build();
      ASSERT_TRUE(graph) << graph.error().message();
      converter::ConvertOptions options;
      options.customTarget = target;
      options.precision = precision;
      options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
      auto model = converter::convert(*graph, options);
      ASSERT_TRUE(model) << model.error().message();
      auto file = vgf::decode(model->vgf);
      ASSERT_TRUE(file);
      auto runnable = runner::Model::create(*file, "model.vgf");
      ASSERT_TRUE(runnable) << runnable.error().message();
      const vgf::Constant* weights = nullptr;
      for (const vgf::Constant& c : file->constants) {
        if (file->resources.at(c.mrtIndex).shape == std::vector<std::int64_t>{k, oc}) weights = &c;
      }
      ASSERT_NE(weights, nullptr);
      const bool narrow = oc % 8 == 0;
      ASSERT_EQ(weights->data.size(), static_cast<std::size_t>(k * oc) * (narrow ? 2 : 4));
      const auto source = w.as<float>();
      int mismatches = 0;
      for (std::int64_t j = 0; j < k; ++j) {
        for (std::int64_t o = 0; o < oc; ++o) {
          const float v = source[static_cast<std::size_t>(o * k + j)];
          const std::size_t at = static_cast<std::size_t>(j * oc + o);
          if (narrow) {
            std::uint16_t stored = 0;
            std::memcpy(&stored, weights->data.data() + at * 2, 2);
            const std::uint16_t expected = precision == "fp16" ? tosa::floatToFp16(v) : tosa::floatToBf16(v);
            mismatches += stored != expected;
          } else {
            float stored = 0;
            std::memcpy(&stored, weights->data.data() + at * 4, 4);
            mismatches += stored != v;
          }
        }
      }
      EXPECT_EQ(mismatches, 0);
    }
  }
}

// --precision fp16x3: fp32 GEMMs, whatever their grid, run on the split tile
// (Tuning::coopMatTileSplit, here 4 x 2 subgroups: 256 invocations) with fp16 x fp16 -> fp32
// matrices in both encodings, and fp32 weights stay fp32 (each is split as the core stages
// it). Refused, like fp16, where the target has no fp16 matrices.
TEST(NativeTargetCoopMatKhr, PrecisionFp16x3SplitsFp32OperandsOnTheSplitTile) {
  std::mt19937 rng(41);
  const std::int64_t k = 3 * 3 * 64;
  tosa::Builder b;
  HostTensor w = randomTensor(DType::Fp32, {40, 3, 3, 64}, rng);
  Value x = b.input("x", DType::Fp32, {2, 9, 10, 64});
  Value y = b.conv2d(x, b.constant(w), std::nullopt, samePadding3x3());
  b.output(b.clamp(b.add(y, b.input("skip", DType::Fp32, {2, 9, 10, 40})), 0.0, 6.0));
  auto convGraph = b.build();
  ASSERT_TRUE(convGraph) << convGraph.error().message();
  TestGraph wide = matmulGraph(DType::Fp32, 256, 512, 256, rng);
  TestGraph odd = matmulGraph(DType::Fp32, 96, 515, 70, rng);  // element-wise packing
  for (const bool khr : {false, true}) {
    converter::Target target = khr ? khrTarget() : coopMatTarget();
    target.tuning.coopMatResidualAccumulators = true;
    target.tuning.coopMatDirectStoreMaxDepth = 1024;
    target.tuning.coopMatTileSplit = converter::CoopMatTile{4, 2, 32, 32, 16};
    for (const tosa::Graph* graph : {&*convGraph, &wide.graph, &odd.graph}) {
      SCOPED_TRACE(fmt::format("khr {}, graph {}", khr,
                               graph == &*convGraph   ? "conv"
                               : graph == &wide.graph ? "wide"
                                                      : "odd"));
      converter::ConvertOptions options;
      options.customTarget = target;
      options.precision = "fp16x3";
      options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
      auto model = converter::convert(*graph, options);
      ASSERT_TRUE(model) << model.error().message();
      EXPECT_NE(model->stats.target.find("fp32 GEMM operands as fp16 pairs"), std::string::npos)
          << model->stats.target;
      auto file = vgf::decode(model->vgf);
      ASSERT_TRUE(file);
      auto runnable = runner::Model::create(*file, "model.vgf");
      ASSERT_TRUE(runnable) << runnable.error().message();
      std::size_t gemms = 0;
      for (const vgf::Module& m : file->modules) {
        // OpTypeCooperativeMatrixNV / OpTypeCooperativeMatrixKHR.
        bool matrices = false;
        for (const PlacedInstruction& inst : instructionsOf(m.spirv)) {
          matrices = matrices || inst.opcode == 5358 || inst.opcode == 4456;
        }
        if (!matrices) continue;
        ++gemms;
        if (khr) {
          const auto uses = componentsByUse(m.spirv);
          EXPECT_EQ(uses.at(vgf::coopmat::kUseA), std::set<std::string>{"f16"}) << m.name;
          EXPECT_EQ(uses.at(vgf::coopmat::kUseAccumulator), std::set<std::string>{"f32"}) << m.name;
        }
        auto reflected = vgf::reflectSpirv(m.spirv);
        ASSERT_TRUE(reflected) << reflected.error().message();
        EXPECT_EQ(reflected->entryPoints.at(0).localSize[0], 256u) << m.name;
      }
      EXPECT_GE(gemms, 1u);
      for (const vgf::Constant& c : file->constants) {
        if (file->resources.at(c.mrtIndex).shape == std::vector<std::int64_t>{k, 40}) {
          EXPECT_EQ(c.data.size(), static_cast<std::size_t>(k * 40 * 4));  // fp32
        }
      }
    }
  }
  // Below coopMatSplitMinTiles of the split tile's workgroups (the wide MATMUL has 2 x 4) or
  // coopMatSplitMinDepth (it is 512 deep) a GEMM stays on the scalar core.
  converter::Target fewTiles = khrTarget();
  fewTiles.tuning.coopMatTileSplit = converter::CoopMatTile{4, 2, 32, 32, 16};
  for (const auto& [minTiles, minDepth] : {std::pair{8, 512}, std::pair{9, 512}, std::pair{8, 513}}) {
    fewTiles.tuning.coopMatSplitMinTiles = minTiles;
    fewTiles.tuning.coopMatSplitMinDepth = minDepth;
    converter::ConvertOptions options;
    options.customTarget = fewTiles;
    options.precision = "fp16x3";
    options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
    auto model = converter::convert(wide.graph, options);
    ASSERT_TRUE(model) << model.error().message();
    EXPECT_EQ(contains(model->stats.capabilities, "CooperativeMatrixKHR"), minTiles == 8 && minDepth == 512)
        << minTiles << " tiles, K " << minDepth;
  }
  converter::ConvertOptions portable;
  portable.precision = "fp16x3";
  auto refused = converter::convert(wide.graph, portable);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind(), ErrorKind::Unsupported);
  EXPECT_NE(
      refused.error().message().find("--precision fp16x3: expected a target with fp16 cooperative matrices"),
      std::string::npos)
      << refused.error().message();
}

TEST(NativeTargetCoopMatKhr, RunnerValidatesKhrModulesThroughTheirNvEncoding) {
  std::mt19937 rng(28);
  TestGraph g = matmulGraph(DType::Fp16, 96, 80, 72, rng);
  converter::Target target = khrTarget();
  target.caps.coopMatShapes.push_back(CoopMatShape{16, 16, 16, CoopMatTypes::F16xF16ToF16});
  auto c = convertWith(g.graph, target);
  ASSERT_TRUE(c);
  std::vector<std::uint32_t> words(c->file.modules[0].spirv.begin(), c->file.modules[0].spirv.end());
  // The view exists, has no KHR instruction left, and spirv-val accepts it (the 16x16x16 types
  // split per use are merged back).
  auto view = runner::cooperativeMatrixNvView(words);
  ASSERT_TRUE(view);
  for (const PlacedInstruction& inst : instructionsOf(*view)) {
    const std::uint32_t opcode = inst.opcode;
    EXPECT_FALSE(opcode >= 4456 && opcode <= 4460) << "opcode " << opcode;
  }
  std::string message;
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_3);
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&, const char* m) { message = m; });
  EXPECT_TRUE(tools.Validate(*view)) << message;

  // A multiply whose A and B are swapped (16x8 times 16x16 fragments) is refused through the view.
  converter::Target narrow = khrTarget();
  narrow.tuning.coopMatFragment = CoopMatShape{16, 8, 16};
  c = convertWith(g.graph, narrow);
  ASSERT_TRUE(c);
  words.assign(c->file.modules[0].spirv.begin(), c->file.modules[0].spirv.end());
  bool swapped = false;
  for (const PlacedInstruction& inst : instructionsOf(words)) {
    if (inst.opcode == 4459) {
      std::swap(words[inst.offset + 3], words[inst.offset + 4]);
      swapped = true;
      break;
    }
  }
  ASSERT_TRUE(swapped);
  vgf::File broken = c->file;
  broken.modules[0].spirv = words;
  auto model = runner::Model::create(broken, "broken.vgf");
  ASSERT_FALSE(model);
  EXPECT_EQ(model.error().kind(), ErrorKind::InvalidInput);
  EXPECT_NE(model.error().message().find("checked in their NV encoding"), std::string::npos) << model.error().message();

  // Workgroup-scope matrices are viewed at subgroup scope, and validate too.
  target.caps.coopMatWorkgroup = converter::CoopMatWorkgroupLimits{16, 16, 16, 256, 256, 0, false, {256}};
  target.tuning.coopMatWorkgroupTile = converter::CoopMatWorkgroupTile{128, 128, 32, 64};
  TestGraph whole = matmulGraph(DType::Fp16, 256, 96, 128, rng);
  auto wg = convertWith(whole.graph, target);
  ASSERT_TRUE(wg);
  auto wgView = runner::cooperativeMatrixNvView(wg->file.modules[0].spirv);
  ASSERT_TRUE(wgView);
  EXPECT_TRUE(tools.Validate(*wgView)) << message;

  // A layout NV cannot say (3, not row or column major) is refused, not passed on unchecked.
  words.assign(c->file.modules[0].spirv.begin(), c->file.modules[0].spirv.end());
  bool relaid = false;
  std::uint32_t bound = words[3];
  for (const PlacedInstruction& inst : instructionsOf(words)) {
    if (inst.opcode == 4457) {
      // Point the load's layout at a new constant 3 of the scope constants' type.
      words[inst.offset + 4] = bound;
      relaid = true;
      break;
    }
  }
  ASSERT_TRUE(relaid);
  std::map<std::uint32_t, std::uint32_t> constantType;  // OpConstant id -> its type, before the first matrix type
  for (const PlacedInstruction& inst : instructionsOf(words)) {
    if (inst.opcode == 43) constantType[inst.words[2]] = inst.words[1];
    if (inst.opcode == 4456) {
      const std::uint32_t intType = constantType[inst.words[3]];  // the type of the matrix's scope
      ASSERT_NE(intType, 0u);
      words.insert(words.begin() + static_cast<std::ptrdiff_t>(inst.offset),
                   {openvgf::spirv::firstWord(4, 43), intType, bound, 3u});
      break;
    }
  }
  words[3] = bound + 1;
  broken.modules[0].spirv = words;
  auto relaidModel = runner::Model::create(broken, "broken.vgf");
  ASSERT_FALSE(relaidModel);
  EXPECT_EQ(relaidModel.error().kind(), ErrorKind::Unsupported);
  EXPECT_NE(relaidModel.error().message().find("can validate"), std::string::npos) << relaidModel.error().message();
}

TEST(NativeTargetCoopMatKhr, ModulesWithoutMatricesComeBackUnchanged) {
  std::mt19937 rng(24);
  TestGraph g = matmulGraph(DType::Fp32, 40, 36, 24, rng);
  auto c = convertWith(g.graph, converter::portableTarget());
  ASSERT_TRUE(c);
  const auto words = c->file.modules[0].spirv;
  auto same = converter::cooperativeMatrixNvToKhr(words, converter::CoopMatScope::Subgroup);
  ASSERT_TRUE(same) << same.error().message();
  EXPECT_TRUE(std::equal(same->begin(), same->end(), words.begin(), words.end()));
  auto truncated = converter::cooperativeMatrixNvToKhr(words.first(3), converter::CoopMatScope::Subgroup);
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().kind(), ErrorKind::Internal);
}

TEST(NativeTargetCoopMatKhr, SplitKReductionPassesKeepNoMatrices) {
  std::mt19937 rng(25);
  // Few tiles and a deep K: a partial pass with matrices and a reduction pass without.
  TestGraph g = matmulGraph(DType::Fp16, 64, 2048, 64, rng);
  auto c = convertWith(g.graph, khrTarget());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->model.stats.kernels, 2u);
  expectKhr(*c, 3);
}

const char* typesName(CoopMatTypes t) {
  switch (t) {
    case CoopMatTypes::F16xF16ToF32: return "f16*f16+f32";
    case CoopMatTypes::F16xF16ToF16: return "f16*f16+f16";
    case CoopMatTypes::S8xS8ToS32: return "s8*s8+s32";
    case CoopMatTypes::Bf16xBf16ToF32: return "bf16*bf16+f32";
  }
  return "?";
}

TEST(NativeTargetProbe, RecordsWhatTheDeviceOffers) {
  const std::optional<DeviceCaps> device = localDeviceCaps();
  if (!device) GTEST_SKIP() << "no Vulkan device";
  const converter::Target target = converter::nativeTarget(*device);
  std::string shapes;
  for (const CoopMatShape& s : target.caps.coopMatShapes) {
    shapes += fmt::format("{}{}x{}x{} {}", shapes.empty() ? "" : ", ", s.m, s.n, s.k, typesName(s.types));
  }
  // Shown in the test log: what `--target native` will use on this device.
  std::printf("device %s: subgroup %u, fp16 %d, integer dot %d, cooperative matrix %d [%s]\n",
              target.deviceName.c_str(), target.caps.subgroupSize, target.caps.fp16Arithmetic ? 1 : 0,
              target.caps.integerDotProduct ? 1 : 0, target.caps.cooperativeMatrixNv ? 1 : 0, shapes.c_str());
  EXPECT_EQ(target.deviceName, device->name);
  EXPECT_EQ(target.caps.cooperativeMatrixNv,
            !target.caps.coopMatShapes.empty() && !target.tuning.coopMatKhrEncoding);
  EXPECT_NE(target.caps.subgroupSize, 0u);
}

/// `--target native` on this machine's device (lavapipe in CI; a GPU runs the
/// cooperative-matrix kernels), judged by the compliance checker.
class NativeTargetRun : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::optional<DeviceCaps> device = localDeviceCaps();
    if (!device) GTEST_SKIP() << "no Vulkan device";
    target_ = converter::nativeTarget(*device);
  }
  RunOutcome expectPasses(const TestGraph& g) {
    converter::ConvertOptions options;
    options.target = "native";
    RunOutcome outcome = convertRunCheck(g.graph, g.inputs, options);
    expectAllPass(outcome);
    // int8 GEMMs take a fast path wherever the device has one.
    if (g.inputs.front().dtype == DType::Int8 &&
        (target_.caps.integerDotProduct || target_.caps.cooperativeMatrixNv)) {
      EXPECT_TRUE(contains(outcome.stats.capabilities, "DotProduct") ||
                  contains(outcome.stats.capabilities, "CooperativeMatrixNV"));
    }
    return outcome;
  }
  converter::Target target_;
};

// Tuning::fp16Storage on this machine's kernels (lavapipe: the scalar cores): CONV2D, CLAMP,
// MAX_POOL2D, DEPTHWISE_CONV2D, a residual ADD and an elementwise node pass fp16-stored
// tensors between them. The outputs stay within fp16 rounding of the same model with fp32
// storage (which, without cooperative matrices, passes the fp32 compliance check) and differ
// from it, so the tensors were rounded.
TEST_F(NativeTargetRun, Fp16StorageStaysWithinFp16Rounding) {
  std::mt19937 rng(36);
  TestGraph g;
  tosa::Builder b;
  g.inputs.push_back(randomTensor(DType::Fp32, {2, 12, 12, 16}, rng));
  Value x = b.input("x", DType::Fp32, {2, 12, 12, 16});
  Value c1 = b.clamp(b.conv2d(x, b.constant(randomTensor(DType::Fp32, {32, 3, 3, 16}, rng)), std::nullopt,
                              samePadding3x3()),
                     0.0, 6.0);
  tosa::MaxPoolParams pool;
  pool.kernel = {2, 2};
  Value p1 = b.maxPool2d(c1, pool);
  Value d1 = b.clamp(b.depthwiseConv2d(p1, b.constant(randomTensor(DType::Fp32, {3, 3, 32, 1}, rng)), std::nullopt,
                                       samePadding3x3()),
                     -3.0, 3.0);
  Value c2 = b.conv2d(d1, b.constant(randomTensor(DType::Fp32, {32, 1, 1, 32}, rng)), std::nullopt, [] {
    tosa::ConvParams p;
    p.pad = {0, 0, 0, 0};
    p.stride = {1, 1};
    p.dilation = {1, 1};
    return p;
  }());
  Value sum = b.add(c2, p1);
  b.output(b.mul(b.sub(sum, d1), b.abs(sum)));
  auto built = b.build();
  ASSERT_TRUE(built) << built.error().message();
  g.graph = std::move(*built);

  converter::ConvertOptions options;
  converter::Target target = target_;
  target.precision = Precision::Fp16;
  target.tuning.fp16Storage = false;
  options.customTarget = target;
  RunOutcome wide = convertRunCheck(g.graph, g.inputs, options);
  target.tuning.fp16Storage = true;
  options.customTarget = target;
  RunOutcome narrow = convertRunCheck(g.graph, g.inputs, options);
  ASSERT_TRUE(wide.ran && narrow.ran);
  if (!target_.caps.cooperativeMatrixNv && !target_.tuning.coopMatKhrEncoding) expectAllPass(wide);
  ASSERT_EQ(wide.outputs.size(), 1u);
  ASSERT_EQ(narrow.outputs.size(), 1u);
  const auto a = wide.outputs[0].as<float>();
  const auto n = narrow.outputs[0].as<float>();
  ASSERT_EQ(a.size(), n.size());
  double largest = 0, worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    largest = std::max(largest, std::abs(static_cast<double>(a[i])));
    worst = std::max(worst, std::abs(static_cast<double>(a[i]) - n[i]));
  }
  EXPECT_GT(worst, 0.0) << "fp16 storage left every output as fp32 storage computes it";
  EXPECT_LT(worst, 1e-2 * largest) << "largest output " << largest;
}

// Shapes with and without 16-byte aligned rows (vector loads vs element-wise packing on the
// cooperative-matrix path) and with partial tiles.
TEST_F(NativeTargetRun, Fp16Matmul) {
  std::mt19937 rng(21);
  expectPasses(matmulGraph(DType::Fp16, 70, 96, 136, rng));
  expectPasses(matmulGraph(DType::Fp16, 70, 83, 50, rng));
}

TEST_F(NativeTargetRun, Fp16Conv2dWithClamp) {
  std::mt19937 rng(22);
  expectPasses(conv2dGraph(DType::Fp16, 7, 9, 20, 36, DType::Fp32, rng));
  // fp16 accumulators over KS 180: TOSA's bound (about 15 here) is wider than a CLAMP to +-2,
  // so the clamped output could not be judged (INCONCLUSIVE, tosa/compliance.h); the
  // convolution's own output is, under its dot-product rule (with the statistical part).
  expectPasses(conv2dGraph(DType::Fp16, 7, 9, 20, 36, DType::Fp16, rng, 0, std::nullopt, false));
  expectPasses(conv2dGraph(DType::Fp16, 6, 8, 32, 64, DType::Fp32, rng));
}

TEST_F(NativeTargetRun, Fp16ElementwiseChain) {
  std::mt19937 rng(24);
  TestGraph g = fp16ChainGraph(rng);
  RunOutcome outcome = expectPasses(g);
  if (target_.caps.fp16Arithmetic && target_.caps.fp16RoundingRte) {
    EXPECT_TRUE(contains(outcome.stats.capabilities, "RoundingModeRTE"));
  }
}

// Deep K under a small grid: split-K on GPUs (cooperative-matrix, dot-product and scalar
// cores); a CPU device keeps each GEMM whole.
TEST_F(NativeTargetRun, DeepKGemms) {
  std::mt19937 rng(25);
  expectPasses(matmulGraph(DType::Fp16, 40, 1024, 48, rng));
  expectPasses(conv2dGraph(DType::Fp16, 5, 4, 128, 48, DType::Fp32, rng));
  expectPasses(matmulGraph(DType::Int8, 48, 1040, 32, rng));
  expectPasses(matmulGraph(DType::Int8, 48, 1000, 32, rng, 5, -3));
  expectPasses(matmulGraph(DType::Fp32, 40, 900, 48, rng));
}

// The native target's tiles (on lavapipe 8x8 register blocks for every GEMM; on a GPU its
// own large tile) with partial tiles in M and N: fp32, and int8 with zero points.
TEST_F(NativeTargetRun, MatmulPartialTilesFp32AndInt8WithZeroPoints) {
  std::mt19937 rng(26);
  expectPasses(matmulGraph(DType::Fp32, 70, 37, 131, rng));
  expectPasses(matmulGraph(DType::Int8, 70, 37, 131, rng, -5, 7));
}

TEST_F(NativeTargetRun, Int8MatmulAndConv2dBitExact) {
  std::mt19937 rng(23);
  expectPasses(matmulGraph(DType::Int8, 40, 72, 56, rng));
  expectPasses(matmulGraph(DType::Int8, 48, 64, 32, rng));
  expectPasses(conv2dGraph(DType::Int8, 6, 7, 16, 24, std::nullopt, rng));
  // Zero points (taken out of the packed dot products exactly) with padding and K not a
  // multiple of the tile.
  expectPasses(matmulGraph(DType::Int8, 40, 37, 24, rng, 3, -5));
  expectPasses(matmulGraph(DType::Int8, 40, 36, 24, rng, -128, 127));
  expectPasses(conv2dGraph(DType::Int8, 6, 7, 12, 20, std::nullopt, rng, -7));
  expectPasses(conv2dGraph(DType::Int8, 5, 6, 8, 12, std::nullopt, rng, 4, DType::Int4));
}

}  // namespace
}  // namespace openvgf::testing
