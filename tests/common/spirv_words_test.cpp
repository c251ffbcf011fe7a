// SPDX-License-Identifier: Apache-2.0
// common/spirv_words.h, the one reader of SPIR-V instruction words: hand-assembled streams,
// a zero word count, an instruction running past the end.
#include <gtest/gtest.h>

#include <vector>

#include "common/spirv_words.h"

namespace openvgf {
namespace {

TEST(SpirvWords, ReadsCountOpcodeAndOperands) {
  // Header, then OpCapability Shader (2 words: 17, operand 1), then OpNop (1 word, opcode 0).
  const std::vector<std::uint32_t> words{0x07230203, 0x00010600, 0, 8, 0, (2u << 16) | 17u, 1u, (1u << 16) | 0u};
  std::optional<spirv::InstructionAt> cap = spirv::instructionAt(words, spirv::kHeaderWords);
  ASSERT_TRUE(cap);
  EXPECT_EQ(cap->wordCount, 2u);
  EXPECT_EQ(cap->opcode, 17u);
  ASSERT_EQ(cap->operands.size(), 1u);
  EXPECT_EQ(cap->operands[0], 1u);
  std::optional<spirv::InstructionAt> nop = spirv::instructionAt(words, 7);
  ASSERT_TRUE(nop);
  EXPECT_EQ(nop->wordCount, 1u);
  EXPECT_TRUE(nop->operands.empty());
  EXPECT_FALSE(spirv::instructionAt(words, 8)) << "past the end";
}

TEST(SpirvWords, RefusesAZeroCountAndAnInstructionPastTheEnd) {
  const std::vector<std::uint32_t> zero{(0u << 16) | 17u, 1u};
  EXPECT_FALSE(spirv::instructionAt(zero, 0));
  // OpCapability claiming 3 words with 2 left.
  const std::vector<std::uint32_t> truncated{(3u << 16) | 17u, 1u};
  EXPECT_FALSE(spirv::instructionAt(truncated, 0));
  EXPECT_EQ(spirv::wordCountOf(truncated[0]), 3u);
  EXPECT_EQ(spirv::opcodeOf(truncated[0]), 17u);
  // 65535 words claimed by the last word of a module.
  const std::vector<std::uint32_t> huge{0xFFFF0011u};
  EXPECT_FALSE(spirv::instructionAt(huge, 0));
}

TEST(SpirvWords, FirstWordIsWhatTheReaderDecodes) {
  EXPECT_EQ(spirv::firstWord(2, 17), 0x00020011u);  // OpCapability, 2 words
  EXPECT_EQ(spirv::firstWord(0xFFFF, 0xFFFF), 0xFFFFFFFFu);
  const std::vector<std::uint32_t> words{spirv::firstWord(3, 21), 2u, 32u};  // OpTypeInt %2 32 (no signedness)
  std::optional<spirv::InstructionAt> inst = spirv::instructionAt(words, 0);
  ASSERT_TRUE(inst);
  EXPECT_EQ(inst->wordCount, 3u);
  EXPECT_EQ(inst->opcode, 21u);
  EXPECT_EQ(inst->operands.size(), 2u);
}

}  // namespace
}  // namespace openvgf
