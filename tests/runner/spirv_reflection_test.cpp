// SPDX-License-Identifier: Apache-2.0
// vgf::reflectSpirv on modules glslang compiled at build time (tests/runner/shaders/
// interface.comp, for SPIR-V 1.6 and 1.0): what each block's declaration and the function
// bodies say, checked against the GLSL source by hand.
#include <gtest/gtest.h>

#include "shaders/interface_spv10.h"
#include "shaders/interface_spv16.h"
#include "vgf/spirv_info.h"

namespace openvgf::vgf {
namespace {

const SpirvDescriptor* find(const SpirvEntryPoint& e, std::uint32_t set, std::uint32_t binding) {
  for (const SpirvDescriptor& d : e.descriptors) {
    if (d.set == set && d.binding == binding) return &d;
  }
  return nullptr;
}

void checkInterface(std::span<const std::uint32_t> words, bool localSizeId) {
  Result<SpirvModule> module = reflectSpirv(words);
  ASSERT_TRUE(module) << module.error().message();
  EXPECT_EQ(module->capabilities, std::vector<std::uint32_t>{1});  // Shader
  const SpirvEntryPoint* e = module->findEntryPoint("main");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->executionModel, kSpirvGlCompute);
  EXPECT_EQ(e->localSize, (std::array<std::uint32_t, 3>{8, 4, 2}));
  EXPECT_EQ(e->localSizeId, localSizeId);
  EXPECT_EQ(e->workgroupBytes, 1024u);  // shared float tile[256]
  EXPECT_EQ(module->privateBytes, 48u + 4u + 80u);  // float history[12]; uint i; vec4 taps[5]
  ASSERT_EQ(module->builtinInputs.size(), 1u);      // gl_LocalInvocationIndex
  EXPECT_EQ(module->builtinInputs[0].builtIn, 29u);
  EXPECT_EQ(module->builtinInputs[0].components, 1u);
  EXPECT_EQ(module->builtinInputs[0].bits, 32u);
  EXPECT_TRUE(module->builtinInputs[0].integer);
  EXPECT_FALSE(e->pushConstants);
  ASSERT_EQ(e->descriptors.size(), 4u);

  const SpirvDescriptor* fixed = find(*e, 0, 0);  // readonly buffer Fixed { float a[16]; }
  ASSERT_NE(fixed, nullptr);
  EXPECT_EQ(fixed->kind, SpirvDescriptorKind::StorageBuffer);
  EXPECT_TRUE(fixed->hasBinding);
  EXPECT_EQ(fixed->descriptorCount, 1u);
  EXPECT_TRUE(fixed->nonWritable);
  EXPECT_FALSE(fixed->nonReadable);
  EXPECT_EQ(fixed->staticBytes, 64u);
  EXPECT_EQ(fixed->elementStride, 4u);
  EXPECT_FALSE(fixed->runtimeArray);
  EXPECT_EQ(fixed->componentKind, SpirvScalarKind::Float);
  EXPECT_TRUE(fixed->used && fixed->loads && !fixed->stores && !fixed->escaped);

  const SpirvDescriptor* words16 = find(*e, 0, 1);  // writeonly buffer Words { uvec4 w[]; }
  ASSERT_NE(words16, nullptr);
  EXPECT_TRUE(words16->nonReadable);
  EXPECT_EQ(words16->staticBytes, 0u);
  EXPECT_EQ(words16->elementStride, 16u);
  EXPECT_TRUE(words16->runtimeArray);
  EXPECT_EQ(words16->componentBytes, 4u);
  EXPECT_EQ(words16->componentKind, SpirvScalarKind::UnsignedInt);
  EXPECT_TRUE(words16->stores && !words16->loads);
  EXPECT_TRUE(words16->mayWrite() && !words16->mayRead());

  const SpirvDescriptor* header = find(*e, 1, 3);  // buffer Header { int n; float data[]; }
  ASSERT_NE(header, nullptr);
  EXPECT_FALSE(header->nonWritable || header->nonReadable);
  EXPECT_EQ(header->staticBytes, 4u);  // std430: data starts at offset 4
  EXPECT_TRUE(header->runtimeArray);
  EXPECT_TRUE(header->loads && header->stores);

  const SpirvDescriptor* unused = find(*e, 0, 2);
  ASSERT_NE(unused, nullptr);
  EXPECT_FALSE(unused->used);
  EXPECT_FALSE(unused->mayWrite() || unused->mayRead());
}

TEST(SpirvReflection, Spirv16InterfaceWithLocalSizeId) {
  checkInterface(k_interface_spv16, true);
}
TEST(SpirvReflection, Spirv10ModuleWithLiteralLocalSize) {
  checkInterface(k_interface_spv10, false);
}

// The converter's per-binding records (OpModuleProcessed strings) read back as written, leave
// the module's interface as it was, and a record openvgf could not have written is an error.
TEST(SpirvReflection, BindingExtentsReadBackAsRecorded) {
  const std::vector<SpirvBindingExtent> extents = {{0, 0, 100, 16}, {0, 1, 98, 4294967296ull}};
  const std::vector<std::uint32_t> recorded = recordBindingExtents(k_interface_spv16, extents);
  Result<SpirvModule> module = reflectSpirv(recorded);
  ASSERT_TRUE(module) << module.error().message();
  ASSERT_EQ(module->processes.size(), 2u);
  EXPECT_EQ(module->processes[1], "openvgf.binding set=0 binding=1 vk_format=98 elements=4294967296");
  auto read = bindingExtents(*module);
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(*read, extents);
  checkInterface(recorded, true);
  Result<SpirvModule> plain = reflectSpirv(k_interface_spv16);
  ASSERT_TRUE(plain);
  EXPECT_TRUE(bindingExtents(*plain)->empty());  // not converted by openvgf: nothing to check

  module->processes = {"openvgf.binding set=0 binding=1 vk_format=98"};
  EXPECT_NE(bindingExtents(*module).error().message().find("expected \"openvgf.binding set=S binding=B"),
            std::string::npos);
  module->processes = {"openvgf.binding set=0 binding=1 vk_format=98 elements=4",
                       "openvgf.binding set=0 binding=1 vk_format=100 elements=4"};
  EXPECT_NE(bindingExtents(*module).error().message().find("got set 0 binding 1 twice"), std::string::npos);
}

// Batch grids (vgf::SpirvBatchGrid) read back as recorded, one per dispatch, after the
// binding records; malformed or repeated ones are errors naming the string.
TEST(SpirvReflection, BatchGridsReadBackAsRecorded) {
  // 32 images of 12544 rows in groups of 64: 6272 groups along y.
  const SpirvBatchGrid conv{{2, 6272, 1}, 1, 32, 12544, 64, {0, 3}};
  const SpirvBatchGrid pool{{1, 1, 1792}, 2, 32, 56, 1, {0, 1}};
  const std::vector<SpirvBindingExtent> extents = {{0, 0, 100, 16}};
  const std::vector<SpirvBatchGrid> grids = {conv, pool};
  const std::vector<std::uint32_t> recorded = recordBatchGrids(recordBindingExtents(k_interface_spv16, extents), grids);
  Result<SpirvModule> module = reflectSpirv(recorded);
  ASSERT_TRUE(module) << module.error().message();
  ASSERT_EQ(module->processes.size(), 3u);
  EXPECT_EQ(module->processes[1],
            "openvgf.batch-grid dispatch=2,6272,1 axis=y images=32 per-image=12544 per-group=64 bindings=0,3");
  EXPECT_EQ(*batchGrids(*module), grids);
  EXPECT_EQ(*bindingExtents(*module), extents);
  checkInterface(recorded, true);
  EXPECT_EQ(conv.firstGroupOf(16), 3136u);
  EXPECT_EQ(conv.firstGroupOf(32), 6272u);
  const SpirvBatchGrid straddling{{1, 7, 1}, 1, 3, 9, 4, {0}};  // 27 rows in groups of 4
  EXPECT_EQ(straddling.groups(), 7u);
  EXPECT_FALSE(straddling.firstGroupOf(1).has_value());  // row 9 is inside group 2
  EXPECT_EQ(straddling.firstGroupOf(3), 7u);

  for (const char* bad : {"openvgf.batch-grid dispatch=2,6272,1 axis=w images=32 per-image=12544 per-group=64 bindings=0",
                          "openvgf.batch-grid dispatch=2,6271,1 axis=y images=32 per-image=12544 per-group=64 bindings=0",
                          "openvgf.batch-grid dispatch=2,6272,1 axis=y images=32 per-image=12544 per-group=64 bindings=3,0",
                          "openvgf.batch-grid dispatch=2,6272,1 axis=y images=32 per-image=12544 per-group=64 bindings=",
                          "openvgf.batch-grid dispatch=1,1,1 axis=x images=0 per-image=1 per-group=1 bindings=0"}) {
    module->processes = {bad};
    EXPECT_NE(batchGrids(*module).error().message().find("expected \"openvgf.batch-grid dispatch=X,Y,Z"),
              std::string::npos)
        << bad;
  }
  module->processes = {"openvgf.batch-grid dispatch=1,1,1 axis=x images=1 per-image=1 per-group=1 bindings=0",
                       "openvgf.batch-grid dispatch=1,1,1 axis=z images=1 per-image=1 per-group=1 bindings=1"};
  EXPECT_NE(batchGrids(*module).error().message().find("got 1,1,1 twice"), std::string::npos);
}

TEST(SpirvReflection, EveryPrefixAndEveryWordFlipGivesAResultOrAnError) {
  // Not a fuzzer: a cheap sweep that any out-of-bounds read would turn into a sanitizer report.
  std::vector<std::uint32_t> words(std::begin(k_interface_spv16), std::end(k_interface_spv16));
  for (std::size_t n = 0; n <= words.size(); ++n) (void)reflectSpirv(std::span(words).first(n));
  for (std::size_t i = 0; i < words.size(); ++i) {
    for (std::uint32_t flip : {0xFFFFFFFFu, 0x00010000u, 0x7FFFFFFFu}) {
      std::vector<std::uint32_t> damaged = words;
      damaged[i] ^= flip;
      (void)reflectSpirv(damaged);
    }
  }
  words[0] = 0x12345678;
  EXPECT_EQ(reflectSpirv(words).error().message(),
            "SPIR-V module: expected magic 0x07230203, got 0x12345678");
}

// A malformed module whose Private struct contains itself sixteen times (and an int), and a
// second pair of structs that contain each other: types that only a damaged file has. Each
// type is sized once; a member that is the type being sized counts 0 bytes. A fuzzed VGF of
// this kind ran for minutes (sizes recomputed per member, to the depth limit, 16^32 times).
TEST(SpirvReflection, TypesThatContainThemselvesAreSizedOnce) {
  auto op = [](std::uint32_t opcode, std::vector<std::uint32_t> operands) {
    operands.insert(operands.begin(), static_cast<std::uint32_t>(operands.size() + 1) << 16 | opcode);
    return operands;
  };
  // ids: 1 main, 2 int, 3 struct S, 4 pointer to S, 5 variable, 6 void, 7 fn type, 8 label,
  // 9 / 10 structs A and B, 11 pointer to A, 12 variable.
  std::vector<std::vector<std::uint32_t>> code = {
      op(17, {1}),                                                     // OpCapability Shader
      op(14, {0, 1}),                                                  // OpMemoryModel Logical GLSL450
      op(15, {5, 1, 0x6E69616D, 0}),                                   // OpEntryPoint GLCompute %1 "main"
      op(16, {1, 17, 1, 1, 1}),                                        // OpExecutionMode %1 LocalSize 1 1 1
      op(21, {2, 32, 0}),                                              // %2 = OpTypeInt 32 0
      op(30, {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2}),  // %3 = OpTypeStruct %3 x16 %2
      op(32, {4, 6, 3}),                                               // %4 = OpTypePointer Private %3
      op(59, {4, 5, 6}),                                               // %5 = OpVariable %4 Private
      op(30, {9, 10, 10, 10, 10, 10, 10, 10, 10, 2}),                  // %9 = OpTypeStruct %10 x8 %2
      op(30, {10, 9, 9, 9, 9, 9, 9, 9, 9, 2, 2}),                      // %10 = OpTypeStruct %9 x8 %2 %2
      op(32, {11, 6, 9}),                                              // %11 = OpTypePointer Private %9
      op(59, {11, 12, 6}),                                             // %12 = OpVariable %11 Private
      op(19, {6}),                                                     // %6 = OpTypeVoid
      op(33, {7, 6}),                                                  // %7 = OpTypeFunction %6
      op(54, {6, 1, 0, 7}),                                            // %1 = OpFunction %6 None %7
      op(248, {8}),                                                    // %8 = OpLabel
      op(253, {}),                                                     // OpReturn
      op(56, {}),                                                      // OpFunctionEnd
  };
  std::vector<std::uint32_t> words = {0x07230203, 0x00010000, 0, 13, 0};
  for (const auto& instruction : code) words.insert(words.end(), instruction.begin(), instruction.end());
  Result<SpirvModule> module = reflectSpirv(words);
  ASSERT_TRUE(module) << module.error().message();
  // S: 16 x 0 + 4. A: 8 x B + 4 where B (sized inside A) is 8 x 0 + 4 + 4 = 8, so 68.
  EXPECT_EQ(module->privateBytes, 4u + 68u);
}

}  // namespace
}  // namespace openvgf::vgf
