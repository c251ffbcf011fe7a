// SPDX-License-Identifier: Apache-2.0
// The Ethos-U register command stream: one decoded command per header word (+ payload word
// for cmd1), the decoder that turns little-endian stream bytes into commands and validates
// every field against the product's register table (so later stages can trust opcode and
// field ranges), the encoder back to words, and the Emitter compilers use, which drops
// writes that would not change a register (registers are sticky, specs §1.6).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "ethosu/registers.h"

namespace openvgf::ethosu {

/// One command as it appears in the stream.
struct Command {
  std::uint32_t index = 0;       ///< position in the stream (0-based command count)
  std::uint32_t wordOffset = 0;  ///< offset of the header word, in 32-bit words
  std::uint16_t code = 0;        ///< opcode, bits 0..9 of the header
  bool isCmd1 = false;           ///< a payload word follows
  std::uint16_t param = 0;       ///< bits 16..31 of the header
  std::uint32_t data = 0;        ///< payload word (cmd1 only)

  /// param in bits 0..15 and the payload word in bits 16..47, as the field tables index it.
  std::uint64_t value() const { return std::uint64_t{param} | (std::uint64_t{data} << 16); }
  bool operator==(const Command&) const = default;
};

/// True for NPU_OP_* commands (work) as opposed to NPU_SET_* register writes.
inline bool isOperation(const Command& c) { return isOperationCode(c.code, c.isCmd1); }

/// The byte address (or stride, or length) a PayloadKind::Address command carries: the
/// payload word, plus bits 39:32 from param[7:0] on U65/U85.
inline std::uint64_t addressValue(const Command& c, Product product) {
  const std::uint64_t hi = product == Product::U55 ? 0 : (c.param & 0xFFu);
  return (hi << 32) | c.data;
}

/// Checks one command against its register's field layout: known opcode, no bits outside
/// the fields, enumerated fields holding a listed value, limits.
Status validateCommand(const Command& command, Product product);

/// Decodes a stream of 32-bit little-endian words. Rejects a byte count that is not a
/// multiple of 4, a header with reserved bits 10..13 set, an unknown opcode, a truncated cmd1
/// and any field value outside its register's range. `name` prefixes error messages, which
/// name the command index and word offset.
Result<std::vector<Command>> decodeCommandStream(std::span<const std::uint8_t> bytes, Product product,
                                                 std::string_view name = "command stream");

/// Encodes commands back into words (the inverse of decodeCommandStream).
std::vector<std::uint32_t> encodeCommands(std::span<const Command> commands);

/// Appends command words; remembers every register's last value to skip redundant writes.
class Emitter {
 public:
  void cmd0(std::uint16_t code, std::uint16_t param);
  void cmd1(std::uint16_t code, std::uint32_t data, std::uint16_t param = 0);
  /// Operations are never elided.
  void op(std::uint16_t code, std::uint16_t param = 0);

  const std::vector<std::uint32_t>& words() const { return words_; }
  std::size_t commandCount() const { return commands_; }

 private:
  std::map<std::uint16_t, std::uint16_t> shadow0_;
  std::map<std::uint16_t, std::uint64_t> shadow1_;
  std::vector<std::uint32_t> words_;
  std::size_t commands_ = 0;
};

}  // namespace openvgf::ethosu
