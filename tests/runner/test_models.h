// SPDX-License-Identifier: Apache-2.0
// Hand-built VGF models for the runner tests: a small builder over vgf::File plus the models
// the tests share (elementwise per storage type, a chain through aliased intermediates with a
// constant, several inputs/outputs with an output that is also an intermediate).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vgf/file.h"

namespace openvgf::testing {

using vgf::ResourceCategory;
using vgf::VkFormatValue;

struct TestBinding {
  std::uint32_t binding;
  std::uint32_t mrt;
};

/// Builds a vgf::File in memory; payloads are owned here so the File's spans stay valid.
class FileBuilder {
 public:
  std::uint32_t module(std::string name, std::span<const std::uint32_t> spirv) {
    vgf::Module m;
    m.type = vgf::ModuleType::Compute;
    m.name = std::move(name);
    m.entryPoint = "main";
    m.codeKind = vgf::CodeKind::Spirv;
    m.hasCode = true;
    m.spirv = spirv;
    file_.modules.push_back(std::move(m));
    return static_cast<std::uint32_t>(file_.modules.size() - 1);
  }
  std::uint32_t tensor(ResourceCategory category, VkFormatValue format, std::vector<std::int64_t> shape,
                       std::uint32_t aliasGroup = vgf::kUnset) {
    vgf::Resource r;
    r.category = category;
    r.descriptorType = category == ResourceCategory::Constant ? vgf::kNoDescriptorType
                                                              : vgf::kDescriptorTypeStorageBuffer;
    r.vkFormat = static_cast<std::uint32_t>(format);
    r.shape = std::move(shape);
    r.aliasGroup = aliasGroup;
    file_.resources.push_back(std::move(r));
    return static_cast<std::uint32_t>(file_.resources.size() - 1);
  }
  void constant(std::uint32_t mrt, std::vector<std::uint8_t> bytes) {
    payloads_.push_back(std::make_unique<std::vector<std::uint8_t>>(std::move(bytes)));
    vgf::Constant c;
    c.mrtIndex = mrt;
    c.data = *payloads_.back();
    file_.constants.push_back(c);
  }
  void segment(std::string name, std::uint32_t module, std::uint32_t set, std::vector<TestBinding> bindings,
               std::vector<std::uint32_t> reads, std::vector<std::uint32_t> writes, std::uint32_t groups) {
    vgf::Segment s;
    s.type = vgf::ModuleType::Compute;
    s.name = std::move(name);
    s.moduleIndex = module;
    vgf::DescriptorSetInfo info;
    info.setIndex = set;
    for (const TestBinding& b : bindings) info.bindings.push_back({b.binding, b.mrt});
    s.setInfos.push_back(std::move(info));
    for (std::uint32_t r : reads) s.inputs.push_back({0, r});
    for (std::uint32_t w : writes) s.outputs.push_back({0, w});
    s.dispatchShape = std::array<std::uint32_t, 3>{groups, 1, 1};
    file_.segments.push_back(std::move(s));
  }
  void input(std::uint32_t mrt, std::string name) {
    file_.inputs.push_back({static_cast<std::uint32_t>(file_.inputs.size()), mrt});
    file_.inputNames.push_back(std::move(name));
  }
  void output(std::uint32_t mrt, std::string name) {
    file_.outputs.push_back({static_cast<std::uint32_t>(file_.outputs.size()), mrt});
    file_.outputNames.push_back(std::move(name));
  }
  vgf::File& file() { return file_; }

 private:
  vgf::File file_;
  std::vector<std::unique_ptr<std::vector<std::uint8_t>>> payloads_;
};

template <typename T>
std::vector<std::uint8_t> bytesOf(const std::vector<T>& values) {
  std::vector<std::uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

/// c = a + b (one COMPUTE segment) over [37] elements of `format`.
inline void buildBinary(FileBuilder& b, VkFormatValue format, std::span<const std::uint32_t> spirv) {
  std::uint32_t m = b.module("binary", spirv);
  std::uint32_t a = b.tensor(ResourceCategory::Input, format, {37});
  std::uint32_t bb = b.tensor(ResourceCategory::Input, format, {37});
  std::uint32_t c = b.tensor(ResourceCategory::Output, format, {37});
  b.segment("add", m, 0, {{0, a}, {1, bb}, {2, c}}, {a, bb}, {c}, 1);
  b.input(a, "a");
  b.input(bb, "b");
  b.output(c, "c");
}

inline constexpr int kChainN = 1000;
/// x[1000] -> t1 = x + c0 -> t2 = 2 t1 -> t3 = t2 + x -> y = t3 - 1, with t1 and t3 in alias
/// group 0 and t2 in group 1 (so t3 reuses t1's memory: a WAR hazard on seg 2), c0[i] = i.
/// Expected y = 3x + 2i - 1. `add` is shared by segments 0 and 2 (one pipeline).
inline void buildChain(FileBuilder& b, std::span<const std::uint32_t> add, std::span<const std::uint32_t> scale2Set1,
                       std::span<const std::uint32_t> minus1) {
  std::uint32_t mAdd = b.module("add_f32", add);
  std::uint32_t mScale = b.module("scale2", scale2Set1);
  std::uint32_t mMinus = b.module("minus1", minus1);
  auto f32 = VkFormatValue::R32Sfloat;
  std::uint32_t x = b.tensor(ResourceCategory::Input, f32, {1, kChainN});
  std::uint32_t c0 = b.tensor(ResourceCategory::Constant, f32, {1, kChainN});
  std::uint32_t t1 = b.tensor(ResourceCategory::Intermediate, f32, {1, kChainN}, 0);
  std::uint32_t t2 = b.tensor(ResourceCategory::Intermediate, f32, {1, kChainN}, 1);
  std::uint32_t t3 = b.tensor(ResourceCategory::Intermediate, f32, {1, kChainN}, 0);
  std::uint32_t y = b.tensor(ResourceCategory::Output, f32, {1, kChainN});
  std::vector<float> c0Values(kChainN);
  for (int i = 0; i < kChainN; ++i) c0Values[i] = static_cast<float>(i);
  b.constant(c0, bytesOf(c0Values));
  std::uint32_t groups = (kChainN + 63) / 64;
  b.segment("add_const", mAdd, 0, {{0, x}, {1, c0}, {2, t1}}, {x, c0}, {t1}, groups);
  b.segment("scale", mScale, 1, {{0, t1}, {1, t2}}, {t1}, {t2}, groups);
  b.segment("add_input", mAdd, 0, {{0, t2}, {1, x}, {2, t3}}, {t2, x}, {t3}, groups);
  b.segment("minus_one", mMinus, 0, {{0, t3}, {1, y}}, {t3}, {y}, groups);
  b.input(x, "x");
  b.output(y, "y");
}

/// Inputs a, b [37] f32; sum = a + b is output 0 AND read by the next segment;
/// scaled = 3 sum + 1 is output 1.
inline void buildMultiIo(FileBuilder& b, std::span<const std::uint32_t> add, std::span<const std::uint32_t> affine) {
  std::uint32_t mAdd = b.module("add", add);
  std::uint32_t mAffine = b.module("affine", affine);
  auto f32 = VkFormatValue::R32Sfloat;
  std::uint32_t a = b.tensor(ResourceCategory::Input, f32, {37});
  std::uint32_t bb = b.tensor(ResourceCategory::Input, f32, {37});
  std::uint32_t sum = b.tensor(ResourceCategory::Output, f32, {37});
  std::uint32_t scaled = b.tensor(ResourceCategory::Output, f32, {37});
  b.segment("sum", mAdd, 0, {{0, a}, {1, bb}, {2, sum}}, {a, bb}, {sum}, 1);
  b.segment("scaled", mAffine, 0, {{0, sum}, {1, scaled}}, {sum}, {scaled}, 1);
  b.input(a, "a");
  b.input(bb, "b");
  b.output(sum, "sum");
  b.output(scaled, "scaled");
}

}  // namespace openvgf::testing
