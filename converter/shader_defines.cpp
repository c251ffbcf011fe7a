// SPDX-License-Identifier: Apache-2.0
// ShaderDefines: literal formatting that round-trips every value exactly.
#include "converter/shader_defines.h"

#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace openvgf::converter {

std::string glslInt(std::int64_t value) {
  if (value >= std::numeric_limits<std::int32_t>::min() && value <= std::numeric_limits<std::int32_t>::max()) {
    if (value == std::numeric_limits<std::int32_t>::min()) return "(-2147483647 - 1)";
    return value < 0 ? fmt::format("({})", value) : fmt::format("{}", value);
  }
  if (value == std::numeric_limits<std::int64_t>::min()) return "(int64_t(-9223372036854775807l) - 1l)";
  return fmt::format("int64_t({}l)", value);
}

std::string glslFloat(float value) {
  if (std::isfinite(value) && value == std::trunc(value) && std::fabs(value) < 16777216.0f &&
      !(value == 0.0f && std::signbit(value))) {
    return fmt::format("{:.1f}", value);
  }
  return fmt::format("uintBitsToFloat(0x{:08X}u)", std::bit_cast<std::uint32_t>(value));
}

ShaderDefines& ShaderDefines::set(std::string_view name, std::int64_t value) {
  entries_[std::string(name)] = glslInt(value);
  return *this;
}

ShaderDefines& ShaderDefines::setFloat(std::string_view name, float value) {
  entries_[std::string(name)] = glslFloat(value);
  return *this;
}

ShaderDefines& ShaderDefines::setCode(std::string_view name, std::string_view code) {
  entries_[std::string(name)] = std::string(code);
  return *this;
}

std::string ShaderDefines::preamble() const {
  std::string out;
  for (const auto& [name, value] : entries_) out += fmt::format("#define {} {}\n", name, value);
  return out;
}

}  // namespace openvgf::converter
