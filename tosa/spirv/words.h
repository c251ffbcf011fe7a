// SPDX-License-Identifier: Apache-2.0
// The word level of a SPIR-V module: the 5-word header and the instruction stream, each
// instruction bounds-checked against the module before anything reads its operands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace openvgf::tosa::spirv {

struct ModuleHeader {
  std::uint32_t version = 0;    // 0x00MMmm00
  std::uint32_t generator = 0;  // tool id << 16 | tool version
  std::uint32_t bound = 0;      // every <id> is < bound
};

/// One instruction: its opcode and the operand words that follow the opcode word.
struct Instruction {
  std::size_t offset = 0;  // word index of the opcode word in the module (for messages)
  std::uint32_t opcode = 0;
  std::span<const std::uint32_t> operands;
};

/// Checks the header (magic, schema 0) and splits the module into instructions, each with a
/// word count >= 1 that fits the module. Errors are InvalidInput and name the word offset.
Result<std::vector<Instruction>> splitModule(std::span<const std::uint32_t> words, ModuleHeader& header);

/// Reads the nul-terminated UTF-8 literal string that starts at operands[index] and moves
/// `index` past its last word. Fails when the string has no terminator inside `operands`.
Result<std::string> literalString(std::span<const std::uint32_t> operands, std::size_t& index);

/// Appends `text` as a literal string (nul-terminated, zero-padded to whole words).
void appendLiteralString(std::vector<std::uint32_t>& out, std::string_view text);

}  // namespace openvgf::tosa::spirv
