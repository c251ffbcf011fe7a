// SPDX-License-Identifier: Apache-2.0
// Shader instantiation and compilation: defines formatting, dedup of identical instances,
// deterministic module order, the on-disk cache, and failures that carry the source.
#include <filesystem>

#include <gtest/gtest.h>

#include "converter/shader_compiler.h"
#include "converter/shader_defines.h"
#include "shaders/library.h"
#include "tests/support/temp_dir.h"

namespace openvgf::converter {
namespace {

TEST(ShaderDefines, SortedExactLiterals) {
  ShaderDefines d;
  d.set("B", -3).set("A", std::int64_t{1} << 40).setFloat("C", -0.0f).setFloat("D", 2.0f).set("E", INT32_MIN);
  EXPECT_EQ(d.preamble(),
            "#define A int64_t(1099511627776l)\n#define B (-3)\n#define C uintBitsToFloat(0x80000000u)\n"
            "#define D 2.0\n#define E (-2147483647 - 1)\n");
}

TEST(ShaderLibrary, EveryTemplateIsEmbedded) {
  for (const char* name : {"elementwise.comp", "conv2d.comp", "matmul.comp", "depthwise_conv2d.comp", "pool2d.comp",
                           "reduce.comp", "data_layout.comp", "gather.comp", "argmax.comp", "include/common.glsl"}) {
    EXPECT_TRUE(shaders::find(name).has_value()) << name;
  }
  EXPECT_FALSE(shaders::find("nope.comp").has_value());
}

ShaderInstance addKernel(int total) {
  ShaderDefines d;
  d.set("NUM_IN", 2).set("TOTAL", total).set("WG_X", 64).set("IN0_CONTIG", 1).set("IN1_CONTIG", 1);
  d.setCode("IN0_STYPE", "float").setCode("IN0_LD", "ld_f32").setCode("IN0_CT", "float");
  d.setCode("IN1_STYPE", "float").setCode("IN1_LD", "ld_f32").setCode("IN1_CT", "float");
  d.setCode("OUT_STYPE", "float").setCode("OUT_ST", "st_f32").setCode("OUT_CT", "float");
  d.setCode("EW_BODY", "r = a0 + a1;");
  return {"elementwise.comp", d};
}

TEST(ShaderCompiler, DedupsAndKeepsFirstUseOrder) {
  CompileOptions options;
  options.useCache = false;
  options.threads = 2;
  auto result = compileShaders({addKernel(100), addKernel(200), addKernel(100)}, options);
  ASSERT_TRUE(result) << result.error().message();
  EXPECT_EQ(result->modules.size(), 2u);
  EXPECT_EQ(result->moduleOf, (std::vector<std::size_t>{0, 1, 0}));
  EXPECT_EQ(result->modules[0][0], 0x07230203u);
  // SPIR-V 1.6 header.
  EXPECT_EQ(result->modules[0][1], 0x00010600u);
}

TEST(ShaderCompiler, CacheHitsGiveIdenticalWords) {
  auto dir = testing::processTempDir("openvgf-shader-cache-test");
  std::filesystem::remove_all(dir);
  CompileOptions options;
  options.cacheDir = dir;
  auto first = compileShaders({addKernel(64)}, options);
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_EQ(first->cacheHits, 0u);
  auto second = compileShaders({addKernel(64)}, options);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->cacheHits, 1u);
  EXPECT_EQ(first->modules, second->modules);
  auto key1 = cacheKey(addKernel(64), true);
  auto key2 = cacheKey(addKernel(64), false);
  ASSERT_TRUE(key1 && key2);
  EXPECT_NE(*key1, *key2);  // optimiser flags are part of the key
  std::filesystem::remove_all(dir);
}

TEST(ShaderCompiler, FailureShowsInstantiatedSource) {
  ShaderInstance broken = addKernel(64);
  broken.defines.setCode("EW_BODY", "r = a0 + undefined_name;");
  auto result = compileShader(broken);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind(), ErrorKind::Internal);
  EXPECT_NE(result.error().message().find("undefined_name"), std::string::npos);
  EXPECT_NE(result.error().message().find("#define EW_BODY r = a0 + undefined_name;"), std::string::npos);
}

}  // namespace
}  // namespace openvgf::converter
