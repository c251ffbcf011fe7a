// SPDX-License-Identifier: Apache-2.0
// Field printing driven by the register tables.
#include "ethosu/disassembler.h"

namespace openvgf::ethosu {
namespace {

std::string fieldText(const FieldInfo& f, std::uint64_t value) {
  const std::uint64_t v = fieldBits(value, f);
  switch (f.kind) {
    case FieldKind::Enum:
      for (const FieldValue& e : f.values) {
        if (e.value == v) return std::string(e.name);
      }
      return fmt::format("{}", v);
    case FieldKind::Signed: {
      const std::uint64_t sign = std::uint64_t{1} << (f.bits - 1);
      return fmt::format("{}", static_cast<std::int64_t>((v ^ sign)) - static_cast<std::int64_t>(sign));
    }
    case FieldKind::SizeM1:
      return fmt::format("{} ({})", v, v + 1);
    case FieldKind::Flag:
    case FieldKind::Unsigned:
      return fmt::format("{}", v);
  }
  return {};
}

/// KERNEL_STRIDE splits each stride into a low and a high bit; show the strides.
std::string kernelStrideText(std::uint16_t p) {
  return fmt::format("stride_x={} stride_y={} weight_order={} dilation_x={} dilation_y={} decomposition={}",
                     ((p & 1) | (((p >> 6) & 1) << 1)) + 1, (((p >> 1) & 1) | (((p >> 9) & 1) << 1)) + 1,
                     ((p >> 2) & 1) ? "PART_KERNEL_FIRST" : "DEPTH_FIRST", ((p >> 3) & 1) + 1, ((p >> 4) & 1) + 1,
                     ((p >> 5) & 1) ? "D4X4" : "D8X8");
}

}  // namespace

std::string commandFields(const Command& c, Product product) {
  const RegisterInfo* info = findRegister(product, c.code, c.isCmd1);
  if (!info) return {};
  if (c.code == cmd0::kKernelStride && !c.isCmd1) return kernelStrideText(c.param);
  if (info->payload == PayloadKind::Address) {
    // Strides and lengths are byte counts (decimal, signed where the register is); bases and
    // offsets are addresses (hex).
    const std::uint64_t a = addressValue(c, product);
    if (info->name.find("STRIDE") != std::string_view::npos) {
      const int unused = product == Product::U55 ? 32 : 24;  // 32-bit or 40-bit strides
      return fmt::format("{}", static_cast<std::int64_t>(a << unused) >> unused);
    }
    if (info->name.find("LENGTH") != std::string_view::npos) return fmt::format("{}", a);
    return a >> 32 ? fmt::format("0x{:010x}", a) : fmt::format("0x{:08x}", a);
  }
  const std::uint64_t value = c.value();
  std::string text;
  for (const FieldInfo& f : info->fields) {
    if (f.kind == FieldKind::Flag) {
      if (fieldBits(value, f) != 0) text += (text.empty() ? "" : " ") + std::string(f.name);
      continue;
    }
    const std::string v = fieldText(f, value);
    // A register with one numeric field shows just its value.
    const bool bare = info->fields.size() == 1 && f.kind != FieldKind::Enum;
    text += (text.empty() ? "" : " ") + (bare ? v : fmt::format("{}={}", f.name, v));
  }
  return text;
}

std::string disassembleCommand(const Command& c, Product product) {
  const std::string_view name = commandName(product, c.code, c.isCmd1);
  std::string text = fmt::format("{:04} @0x{:04x} {}", c.index, c.wordOffset * 4,
                                 name.empty() ? fmt::format("UNKNOWN_{}0x{:03x}", c.isCmd1 ? "CMD1_" : "", c.code)
                                              : std::string(name));
  const std::string fields = commandFields(c, product);
  if (!fields.empty()) text += " " + fields;
  return text;
}

std::string disassemble(std::span<const Command> commands, Product product) {
  std::string out;
  for (const Command& c : commands) {
    out += disassembleCommand(c, product);
    out += '\n';
  }
  return out;
}

}  // namespace openvgf::ethosu
