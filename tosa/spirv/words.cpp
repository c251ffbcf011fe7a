// SPDX-License-Identifier: Apache-2.0
// SPIR-V header and instruction stream (SPIR-V 1.6 §2.3 "Physical Layout").
#include "tosa/spirv/words.h"
#include "common/spirv_words.h"

#include <cstring>

#include "tosa/spirv/grammar.h"

namespace openvgf::tosa::spirv {

Result<std::vector<Instruction>> splitModule(std::span<const std::uint32_t> words, ModuleHeader& header) {
  if (words.size() < 5) {
    return invalidInput("expected a SPIR-V module of at least 5 words (the header), got {} words", words.size());
  }
  if (words[0] != kSpirvMagic) {
    return invalidInput("word 0: expected the SPIR-V magic number 0x07230203, got 0x{:08x}", words[0]);
  }
  if (words[4] != 0) return invalidInput("word 4: expected schema 0, got {}", words[4]);
  header.version = words[1];
  header.generator = words[2];
  header.bound = words[3];
  if (header.bound == 0) return invalidInput("word 3: expected an id bound >= 1, got 0");
  std::vector<Instruction> out;
  std::size_t i = 5;
  while (i < words.size()) {
    const std::optional<openvgf::spirv::InstructionAt> inst = openvgf::spirv::instructionAt(words, i);
    if (!inst) {
      const std::uint32_t count = openvgf::spirv::wordCountOf(words[i]);
      const std::string name = opcodeName(openvgf::spirv::opcodeOf(words[i]));
      if (count == 0) return invalidInput("word {}: {}: expected a word count >= 1, got 0", i, name);
      return invalidInput("word {}: {}: expected {} words, got {} before the end of the module", i, name, count,
                          words.size() - i);
    }
    out.push_back({i, inst->opcode, inst->operands});
    i += inst->wordCount;
  }
  return out;
}

Result<std::string> literalString(std::span<const std::uint32_t> operands, std::size_t& index) {
  std::string text;
  for (std::size_t w = index; w < operands.size(); ++w) {
    char bytes[4];
    std::memcpy(bytes, &operands[w], 4);
    for (char c : bytes) {
      if (c == '\0') {
        index = w + 1;
        return text;
      }
      text.push_back(c);
    }
  }
  return invalidInput("operand {}: expected a nul-terminated literal string, got {} bytes without a terminator", index,
                      text.size());
}

void appendLiteralString(std::vector<std::uint32_t>& out, std::string_view text) {
  const std::size_t wordCount = text.size() / 4 + 1;
  const std::size_t start = out.size();
  out.resize(start + wordCount, 0);
  std::memcpy(out.data() + start, text.data(), text.size());
}

}  // namespace openvgf::tosa::spirv
