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

#include "common/spirv_words.h"

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
  std::size_t i = openvgf::spirv::kHeaderWords;
  while (const auto inst = openvgf::spirv::instructionAt(words, i)) {
    // OpExtInst's operands: result type, result, set, instruction number.
    if (inst->opcode == opcode &&
        (extOpcode < 0 || (inst->operands.size() > 3 && inst->operands[3] == static_cast<std::uint32_t>(extOpcode)))) {
      out.push_back(i);
    }
    i += inst->wordCount;
  }
  return out;
}

/// A module written from the specifications: input float32 tensor of rank 4 without a shape,
/// MAX_POOL2D kernel 2 stride 2 into an unshaped rank-4 result, CLAMP [0, 6] into the output.
inline std::vector<std::uint32_t> unshapedPoolClamp() {
  enum : std::uint32_t {
    kTosa = 1, kFloat, kUint, kRank4, kTensor, kPtr, kIn, kOut, kGraphType, kZero, kNan, kLo, kHi, kTwo, kFour, kArr1,
    kLen2, kArr2, kArr4, kShape2, kShape4, kKernel, kPad, kGraph, kX, kPool, kClamp, kBound
  };
  SpirvWriter w(kBound);
  w.op(17, {1}).op(17, {4174}).op(17, {4191});
  w.opString(10, {}, "SPV_ARM_tensors").opString(10, {}, "SPV_ARM_graph");
  w.opString(11, {kTosa}, "TOSA.001000.1");
  w.op(14, {0, 3});
  w.op(71, {kIn, 34, 0}).op(71, {kIn, 33, 0}).op(71, {kOut, 34, 0}).op(71, {kOut, 33, 1});
  w.op(22, {kFloat, 32}).op(21, {kUint, 32, 0});
  w.op(43, {kUint, kRank4, 4});
  w.op(4163, {kTensor, kFloat, kRank4});  // rank only
  w.op(32, {kPtr, 0, kTensor});
  w.op(59, {kPtr, kIn, 0}).op(59, {kPtr, kOut, 0});
  w.op(4190, {kGraphType, 1, kTensor, kTensor});
  w.op(43, {kUint, kZero, 0}).op(43, {kUint, kNan, 1});
  w.op(43, {kFloat, kLo, 0x00000000u}).op(43, {kFloat, kHi, 0x40C00000u});  // 0.0f, 6.0f
  w.op(43, {kUint, kTwo, 2}).op(43, {kUint, kFour, 4}).op(43, {kUint, kArr1, 1});
  w.op(28, {kLen2, kUint, kArr1});                   // uint[1]
  w.op(44, {kLen2, kArr2, kTwo}).op(44, {kLen2, kArr4, kFour});
  w.op(4163, {kShape2, kUint, kArr1, kArr2});        // uint tensor [2]
  w.op(4163, {kShape4, kUint, kArr1, kArr4});        // uint tensor [4]
  w.op(44, {kShape2, kKernel, kTwo, kTwo});          // kernel = stride = [2, 2]
  w.op(46, {kShape4, kPad});                         // pad = [0, 0, 0, 0]
  w.opString(4182, {kGraph}, "main", {kIn, kOut});
  w.op(4183, {kGraphType, kGraph});
  w.op(4184, {kTensor, kX, kZero});
  w.op(12, {kTensor, kPool, kTosa, 7, kKernel, kKernel, kPad, kNan, kX});
  w.op(12, {kTensor, kClamp, kTosa, 10, kLo, kHi, kNan, kPool});
  w.op(4185, {kClamp, kZero});
  w.op(4186, {});
  return w.words();
}

}  // namespace openvgf::testing
