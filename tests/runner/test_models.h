// SPDX-License-Identifier: Apache-2.0
// Hand-built VGF models for the runner tests, written with vgf::Builder: elementwise ops per
// storage type, a chain through aliased intermediates with a constant, and several
// inputs/outputs where one output is also read by a later segment. Each comes with the
// SPIR-V of small GLSL kernels compiled at build time (tests/runner/shaders).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "vgf/builder.h"
#include "vgf/decoder.h"

namespace openvgf::testing {

using vgf::ResourceCategory;
using vgf::VkFormatValue;

inline std::vector<std::uint32_t> words(std::span<const std::uint32_t> spirv) { return {spirv.begin(), spirv.end()}; }
inline std::uint32_t raw(VkFormatValue f) { return static_cast<std::uint32_t>(f); }

template <typename T>
std::vector<std::uint8_t> bytesOf(const std::vector<T>& values) {
  std::vector<std::uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

/// c = a + b (one COMPUTE segment "add") over [37] elements of `format`.
inline void buildBinary(vgf::Builder& b, VkFormatValue format, std::span<const std::uint32_t> spirv) {
  vgf::ModuleId m = b.addModule("binary", "main", words(spirv));
  vgf::ResourceId a = b.addResource(ResourceCategory::Input, raw(format), {37});
  vgf::ResourceId bb = b.addResource(ResourceCategory::Input, raw(format), {37});
  vgf::ResourceId c = b.addResource(ResourceCategory::Output, raw(format), {37});
  b.addSegment("add", m, {{.setIndex = 0, .bindings = {{0, a}, {1, bb}, {2, c}}}}, {{0, a}, {1, bb}}, {{2, c}}, {},
               {1, 1, 1});
  b.setInputs({{0, a}, {1, bb}}, {"a", "b"});
  b.setOutputs({{2, c}}, {"c"});
}

inline constexpr int kChainN = 1000;
/// x[1,1000] -> t1 = x + c0 -> t2 = 2 t1 -> t3 = t2 + x -> y = t3 - 1, with t1 and t3 in alias
/// group 0 and t2 in group 1 (so t3 reuses t1's memory: a WAR hazard at segment 2), constant
/// c0[i] = i. Expected y = 3x + 2i - 1. Module `add` serves segments 0 and 2 (one pipeline);
/// `scale2` uses descriptor set 1 (set 0 empty).
inline void buildChain(vgf::Builder& b, std::span<const std::uint32_t> add, std::span<const std::uint32_t> scale2Set1,
                       std::span<const std::uint32_t> minus1) {
  vgf::ModuleId mAdd = b.addModule("add_f32", "main", words(add));
  vgf::ModuleId mScale = b.addModule("scale2", "main", words(scale2Set1));
  vgf::ModuleId mMinus = b.addModule("minus1", "main", words(minus1));
  std::uint32_t f32 = raw(VkFormatValue::R32Sfloat);
  vgf::ResourceId x = b.addResource(ResourceCategory::Input, f32, {1, kChainN});
  vgf::ResourceId c0 = b.addResource(ResourceCategory::Constant, f32, {1, kChainN});
  vgf::ResourceId t1 = b.addResource(ResourceCategory::Intermediate, f32, {1, kChainN}, 0);
  vgf::ResourceId t2 = b.addResource(ResourceCategory::Intermediate, f32, {1, kChainN}, 1);
  vgf::ResourceId t3 = b.addResource(ResourceCategory::Intermediate, f32, {1, kChainN}, 0);
  vgf::ResourceId y = b.addResource(ResourceCategory::Output, f32, {1, kChainN});
  std::vector<float> c0Values(kChainN);
  for (int i = 0; i < kChainN; ++i) c0Values[i] = static_cast<float>(i);
  b.addConstant(c0, bytesOf(c0Values));
  std::uint32_t groups = (kChainN + 63) / 64;
  b.addSegment("add_const", mAdd, {{.setIndex = 0, .bindings = {{0, x}, {1, c0}, {2, t1}}}}, {{0, x}, {1, c0}},
               {{2, t1}}, {}, {groups, 1, 1});
  b.addSegment("scale", mScale, {{.setIndex = 1, .bindings = {{0, t1}, {1, t2}}}}, {{0, t1}}, {{1, t2}}, {},
               {groups, 1, 1});
  b.addSegment("add_input", mAdd, {{.setIndex = 0, .bindings = {{0, t2}, {1, x}, {2, t3}}}}, {{0, t2}, {1, x}},
               {{2, t3}}, {}, {groups, 1, 1});
  b.addSegment("minus_one", mMinus, {{.setIndex = 0, .bindings = {{0, t3}, {1, y}}}}, {{0, t3}}, {{1, y}}, {},
               {groups, 1, 1});
  b.setInputs({{0, x}}, {"x"});
  b.setOutputs({{0, y}}, {"y"});
}

/// Inputs a, b [37] f32; sum = a + b is output 0 AND read by the next segment;
/// scaled = 3 sum + 1 is output 1.
inline void buildMultiIo(vgf::Builder& b, std::span<const std::uint32_t> add, std::span<const std::uint32_t> affine) {
  vgf::ModuleId mAdd = b.addModule("add", "main", words(add));
  vgf::ModuleId mAffine = b.addModule("affine", "main", words(affine));
  std::uint32_t f32 = raw(VkFormatValue::R32Sfloat);
  vgf::ResourceId a = b.addResource(ResourceCategory::Input, f32, {37});
  vgf::ResourceId bb = b.addResource(ResourceCategory::Input, f32, {37});
  vgf::ResourceId sum = b.addResource(ResourceCategory::Output, f32, {37});
  vgf::ResourceId scaled = b.addResource(ResourceCategory::Output, f32, {37});
  b.addSegment("sum", mAdd, {{.setIndex = 0, .bindings = {{0, a}, {1, bb}, {2, sum}}}}, {{0, a}, {1, bb}},
               {{2, sum}}, {}, {1, 1, 1});
  b.addSegment("scaled", mAffine, {{.setIndex = 0, .bindings = {{0, sum}, {1, scaled}}}}, {{0, sum}},
               {{1, scaled}}, {}, {1, 1, 1});
  b.setInputs({{0, a}, {1, bb}}, {"a", "b"});
  b.setOutputs({{0, sum}, {1, scaled}}, {"sum", "scaled"});
}

}  // namespace openvgf::testing
