// SPDX-License-Identifier: Apache-2.0
// Typed builder for the preprocessor defines that instantiate a shader template
// (STYLE.md item 7): op parameters are compiled into the SPIR-V, never passed as push or
// specialization constants. Entries are kept sorted by name, so the instantiated text
// (and with it the SPIR-V cache key) does not depend on the order of set() calls.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace openvgf::converter {

class ShaderDefines {
 public:
  /// An integer constant; values outside int32 are written as int64_t literals.
  ShaderDefines& set(std::string_view name, std::int64_t value);
  ShaderDefines& set(std::string_view name, int value) { return set(name, static_cast<std::int64_t>(value)); }
  ShaderDefines& set(std::string_view name, bool value) { return set(name, static_cast<std::int64_t>(value ? 1 : 0)); }
  /// An fp32 constant written bit-exactly (uintBitsToFloat), so NaN/inf/-0 survive.
  ShaderDefines& setFloat(std::string_view name, float value);
  /// GLSL text: a type name, a function name, an expression or a statement list.
  ShaderDefines& setCode(std::string_view name, std::string_view code);

  bool has(std::string_view name) const { return entries_.find(std::string(name)) != entries_.end(); }
  const std::map<std::string, std::string>& entries() const { return entries_; }

  /// "#define NAME VALUE\n" for every entry, in name order.
  std::string preamble() const;

 private:
  std::map<std::string, std::string> entries_;  // name -> replacement text
};

/// GLSL literal for an int64 value: "5", "(-3)", "(-2147483647 - 1)", "int64_t(...l)".
std::string glslInt(std::int64_t value);
/// GLSL expression for the exact fp32 value.
std::string glslFloat(float value);

}  // namespace openvgf::converter
