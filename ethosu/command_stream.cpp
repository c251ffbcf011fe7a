// SPDX-License-Identifier: Apache-2.0
// Command-stream decoding against the register tables, encoding and the eliding emitter.
#include "ethosu/command_stream.h"
#include "common/bytes.h"

namespace openvgf::ethosu {
namespace {

/// The value bits the register's fields (or its address payload) cover.
std::uint64_t coveredBits(const RegisterInfo& info, Product product) {
  std::uint64_t mask = 0;
  for (const FieldInfo& f : info.fields) mask |= ((std::uint64_t{1} << f.bits) - 1) << f.lsb;
  if (info.payload == PayloadKind::Address) {
    mask |= std::uint64_t{0xFFFFFFFF} << 16;
    if (product != Product::U55) mask |= 0xFF;
  }
  return mask;
}

Status checkField(const RegisterInfo& info, const FieldInfo& f, std::uint64_t value) {
  const std::uint64_t v = fieldBits(value, f);
  if (f.kind == FieldKind::Enum) {
    for (const FieldValue& allowed : f.values) {
      if (allowed.value == v) return {};
    }
    std::string list;
    for (const FieldValue& allowed : f.values) {
      list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", allowed.value, allowed.name);
    }
    return invalidInput("{}: field {}: expected one of {}, got {}", info.name, f.name, list, v);
  }
  if (f.max != 0 && v > f.max) return invalidInput("{}: field {}: expected at most {}, got {}", info.name, f.name, f.max, v);
  return {};
}


}  // namespace

Status validateCommand(const Command& c, Product product) {
  const RegisterInfo* info = findRegister(product, c.code, c.isCmd1);
  if (!info) {
    return invalidInput("expected a known {} {} opcode, got 0x{:03x}", productName(product), c.isCmd1 ? "cmd1" : "cmd0",
                        c.code);
  }
  const std::uint64_t value = c.value();
  const std::uint64_t covered = coveredBits(*info, product);
  if ((value & 0xFFFF & ~covered) != 0) {
    return invalidInput("{}: expected param bits within 0x{:04x}, got 0x{:04x}", info->name, covered & 0xFFFF, c.param);
  }
  if (c.isCmd1 && ((value >> 16) & ~(covered >> 16)) != 0) {
    return invalidInput("{}: expected data bits within 0x{:08x}, got 0x{:08x}", info->name,
                        static_cast<std::uint32_t>(covered >> 16), c.data);
  }
  for (const FieldInfo& f : info->fields) OPENVGF_TRY(checkField(*info, f, value));
  return {};
}

Result<std::vector<Command>> decodeCommandStream(std::span<const std::uint8_t> bytes, Product product,
                                                 std::string_view name) {
  if (bytes.size() % 4 != 0) {
    return invalidInput("{}: expected a size that is a multiple of 4 bytes, got {}", name, bytes.size());
  }
  const std::size_t wordCount = bytes.size() / 4;
  std::vector<Command> commands;
  std::size_t i = 0;
  while (i < wordCount) {
    const std::uint32_t w0 = loadLe<std::uint32_t>(bytes, 4 * i);
    Command c;
    c.index = static_cast<std::uint32_t>(commands.size());
    c.wordOffset = static_cast<std::uint32_t>(i);
    c.code = static_cast<std::uint16_t>(w0 & 0x3FF);
    c.param = static_cast<std::uint16_t>(w0 >> 16);
    const unsigned reserved = (w0 >> 10) & 0xF;
    const unsigned control = (w0 >> 14) & 3;
    if (reserved != 0 || control > 1) {
      return invalidInput(
          "{}: command {} (word {}): expected reserved bits 10..13 = 0 and control 0 or 1, got header 0x{:08x}", name,
          c.index, i, w0);
    }
    c.isCmd1 = control == 1;
    if (c.isCmd1) {
      if (i + 1 >= wordCount) {
        return invalidInput("{}: command {} (word {}): expected a payload word after cmd1 header 0x{:08x}, got end of stream",
                            name, c.index, i, w0);
      }
      c.data = loadLe<std::uint32_t>(bytes, 4 * (i + 1));
      i += 2;
    } else {
      i += 1;
    }
    if (Status s = validateCommand(c, product); !s) {
      return Unexpected(std::move(s).error().addContext(fmt::format("{}: command {} (word {})", name, c.index, c.wordOffset)));
    }
    commands.push_back(c);
  }
  return commands;
}

std::vector<std::uint32_t> encodeCommands(std::span<const Command> commands) {
  std::vector<std::uint32_t> words;
  words.reserve(commands.size() * 2);
  for (const Command& c : commands) {
    words.push_back(std::uint32_t{c.code} | (c.isCmd1 ? 0x4000u : 0u) | (std::uint32_t{c.param} << 16));
    if (c.isCmd1) words.push_back(c.data);
  }
  return words;
}

void Emitter::cmd0(std::uint16_t code, std::uint16_t param) {
  auto it = shadow0_.find(code);
  if (it != shadow0_.end() && it->second == param) return;
  shadow0_[code] = param;
  op(code, param);
}

void Emitter::cmd1(std::uint16_t code, std::uint32_t data, std::uint16_t param) {
  const std::uint64_t value = (std::uint64_t{param} << 32) | data;
  auto it = shadow1_.find(code);
  if (it != shadow1_.end() && it->second == value) return;
  shadow1_[code] = value;
  words_.push_back(std::uint32_t{code} | 0x4000u | (std::uint32_t{param} << 16));
  words_.push_back(data);
  ++commands_;
}

void Emitter::op(std::uint16_t code, std::uint16_t param) {
  words_.push_back(std::uint32_t{code} | (std::uint32_t{param} << 16));
  ++commands_;
}

}  // namespace openvgf::ethosu
