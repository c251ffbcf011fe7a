// SPDX-License-Identifier: Apache-2.0
// vgf::spirvRequirements: the OpCapability / OpExtension scan behind `openvgf inspect`'s
// per-module requirements, on hand-assembled modules (words from the SPIR-V spec's
// instruction layout) and on damaged ones.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "vgf/spirv_info.h"

namespace openvgf::vgf {
namespace {

std::vector<std::uint32_t> header() { return {0x07230203u, 0x00010600u, 0, 20, 0}; }

void capability(std::vector<std::uint32_t>& w, std::uint32_t cap) {
  w.push_back((2u << 16) | 17u);
  w.push_back(cap);
}

void extension(std::vector<std::uint32_t>& w, const std::string& name) {
  const std::size_t words = name.size() / 4 + 1;  // nul-terminated, padded to words
  std::vector<std::uint32_t> text(words, 0);
  std::memcpy(text.data(), name.data(), name.size());
  w.push_back(static_cast<std::uint32_t>((words + 1) << 16) | 10u);
  w.insert(w.end(), text.begin(), text.end());
}

TEST(SpirvRequirements, ListsCapabilitiesAndExtensionsInOrder) {
  auto w = header();
  capability(w, 1);
  capability(w, 5357);
  capability(w, 6018);
  capability(w, 4242);
  extension(w, "SPV_NV_cooperative_matrix");
  extension(w, "SPV_KHR");  // 7 characters + nul: exactly two words
  w.push_back((3u << 16) | 54u);  // OpFunction ends the scan
  w.insert(w.end(), {1, 2});
  capability(w, 9);  // after the first function: not read
  SpirvRequirements r = spirvRequirements(w);
  EXPECT_EQ(r.capabilities,
            (std::vector<std::string>{"Shader", "CooperativeMatrixNV", "DotProductInput4x8BitPacked", "Capability4242"}));
  EXPECT_EQ(r.extensions, (std::vector<std::string>{"SPV_NV_cooperative_matrix", "SPV_KHR"}));
}

TEST(SpirvRequirements, DamagedModulesYieldWhatWasReadBeforeTheDamage) {
  auto w = header();
  capability(w, 1);
  w.push_back((0u << 16) | 17u);  // zero word count
  capability(w, 9);
  EXPECT_EQ(spirvRequirements(w).capabilities, std::vector<std::string>{"Shader"});
  auto t = header();
  capability(t, 11);
  t.push_back((40u << 16) | 10u);  // extension running past the end
  t.push_back(0x41414141u);
  EXPECT_EQ(spirvRequirements(t).capabilities, std::vector<std::string>{"Int64"});
  EXPECT_TRUE(spirvRequirements(t).extensions.empty());
  // An extension string without its nul stays inside its words.
  auto u = header();
  u.push_back((2u << 16) | 10u);
  u.push_back(0x42424242u);
  EXPECT_EQ(spirvRequirements(u).extensions, std::vector<std::string>{"BBBB"});
  EXPECT_TRUE(spirvRequirements(std::vector<std::uint32_t>{1, 2}).capabilities.empty());
}

}  // namespace
}  // namespace openvgf::vgf
