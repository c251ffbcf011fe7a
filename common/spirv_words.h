// SPDX-License-Identifier: Apache-2.0
// The one reader of SPIR-V's instruction words: an instruction's first word holds its word
// count (high 16 bits) and opcode (low 16 bits), and the count must be at least 1 and fit in
// what is left of the module. Every walk over a module (tosa/spirv's graph decoder, vgf's
// reflection, the runner's cooperative-matrix view) reads instructions through
// instructionAt, so a truncated or zero-length instruction is caught in one place and never
// read past. In common/ because those libraries do not depend on each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace openvgf::spirv {

/// Words of the module header (magic, version, generator, bound, schema).
inline constexpr std::size_t kHeaderWords = 5;

/// One instruction of a module.
struct InstructionAt {
  std::uint32_t wordCount = 0;  // the opcode word included
  std::uint32_t opcode = 0;
  std::span<const std::uint32_t> operands;  // the wordCount - 1 words after the opcode word
};

/// The opcode and word count of the word at `pos` (pos < words.size()), as the first word of
/// an instruction.
inline std::uint32_t opcodeOf(std::uint32_t word) { return word & 0xFFFFu; }
inline std::uint32_t wordCountOf(std::uint32_t word) { return word >> 16; }

/// The first word of an instruction of `wordCount` words (the opcode word included): what
/// wordCountOf and opcodeOf read back. Encoders write it here so the layout stays in one place.
constexpr std::uint32_t firstWord(std::size_t wordCount, std::uint32_t opcode) {
  return static_cast<std::uint32_t>(wordCount << 16) | opcode;
}

/// The instruction that starts at words[pos], or nullopt when pos is past the end, its word
/// count is 0, or it runs past the end of `words`.
inline std::optional<InstructionAt> instructionAt(std::span<const std::uint32_t> words, std::size_t pos) {
  if (pos >= words.size()) return std::nullopt;
  const std::uint32_t count = wordCountOf(words[pos]);
  if (count == 0 || count > words.size() - pos) return std::nullopt;
  return InstructionAt{count, opcodeOf(words[pos]), words.subspan(pos + 1, count - 1)};
}

}  // namespace openvgf::spirv
