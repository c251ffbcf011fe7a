// SPDX-License-Identifier: Apache-2.0
// Test helpers for SPIR-V graph modules: load the .spv fixtures, write small modules by hand
// (instruction by instruction, numbers from the SPIR-V and TOSA.001000.1 specifications) and
// locate instructions to corrupt them.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace openvgf::testing {

inline std::vector<std::uint32_t> loadSpirv(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::uint32_t> words(bytes.size() / 4);
  if (!words.empty()) std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

/// Writes a module word by word.
class SpirvWriter {
 public:
  explicit SpirvWriter(std::uint32_t bound) : words_{0x07230203u, 0x00010600u, 0u, bound, 0u} {}

  SpirvWriter& op(std::uint32_t opcode, std::initializer_list<std::uint32_t> operands) {
    words_.push_back(static_cast<std::uint32_t>((operands.size() + 1) << 16) | opcode);
    words_.insert(words_.end(), operands);
    return *this;
  }
  /// An instruction whose operands are `before`, a literal string, then `after`.
  SpirvWriter& opString(std::uint32_t opcode, std::initializer_list<std::uint32_t> before, std::string_view text,
                        std::initializer_list<std::uint32_t> after = {}) {
    std::vector<std::uint32_t> operands(before);
    const std::size_t at = operands.size();
    operands.resize(at + text.size() / 4 + 1, 0);
    std::memcpy(operands.data() + at, text.data(), text.size());
    operands.insert(operands.end(), after);
    words_.push_back(static_cast<std::uint32_t>((operands.size() + 1) << 16) | opcode);
    words_.insert(words_.end(), operands.begin(), operands.end());
    return *this;
  }
  const std::vector<std::uint32_t>& words() const { return words_; }

 private:
  std::vector<std::uint32_t> words_;
};

/// Word offsets of every instruction with `opcode` (for OpExtInst: whose extended instruction
/// number is `extOpcode`, if given).
inline std::vector<std::size_t> findInstructions(const std::vector<std::uint32_t>& words, std::uint32_t opcode,
                                                 int extOpcode = -1) {
  std::vector<std::size_t> out;
  std::size_t i = 5;
  while (i < words.size() && (words[i] >> 16) != 0) {
    if ((words[i] & 0xFFFF) == opcode && (extOpcode < 0 || (i + 4 < words.size() && words[i + 4] == static_cast<std::uint32_t>(extOpcode)))) {
      out.push_back(i);
    }
    i += words[i] >> 16;
  }
  return out;
}

}  // namespace openvgf::testing
