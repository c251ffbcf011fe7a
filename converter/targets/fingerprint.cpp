// SPDX-License-Identifier: Apache-2.0
// fingerprint(): every Target member as text, and the compile-time check that fieldsOf lists
// every member (see fingerprint.h).
#include "converter/targets/fingerprint.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace openvgf::converter {
namespace {

// Converts to any member type: T{AnyMember{}...} compiles for as many of them as T (an
// aggregate) has members, and no more. Never called, only named in unevaluated checks.
struct AnyMember {
  template <class T>
  operator T() const;  // NOLINT(google-explicit-constructor): the implicit conversion is the point
};

template <class T, class... Members>
constexpr std::size_t memberCount() {
  if constexpr (requires { T{Members{}..., AnyMember{}}; }) {
    return memberCount<T, Members..., AnyMember>();
  } else {
    return sizeof...(Members);
  }
}

template <class T>
constexpr bool listsEveryMember = memberCount<T>() == std::tuple_size_v<decltype(fieldsOf(std::declval<const T&>()))>;

static_assert(memberCount<GemmTile>() == 6, "memberCount counts the members of an aggregate");
static_assert(listsEveryMember<GemmTile>, "fieldsOf(GemmTile) misses a member");
static_assert(listsEveryMember<CoopMatShape>, "fieldsOf(CoopMatShape) misses a member");
static_assert(listsEveryMember<CoopMatTile>, "fieldsOf(CoopMatTile) misses a member");
static_assert(listsEveryMember<CoopMatNarrowTile>, "fieldsOf(CoopMatNarrowTile) misses a member");
static_assert(listsEveryMember<CoopMatMidTile>, "fieldsOf(CoopMatMidTile) misses a member");
static_assert(listsEveryMember<CoopMatWorkgroupTile>, "fieldsOf(CoopMatWorkgroupTile) misses a member");
static_assert(listsEveryMember<CoopMatWorkgroupLimits>, "fieldsOf(CoopMatWorkgroupLimits) misses a member");
static_assert(listsEveryMember<Capabilities>,
              "fieldsOf(Capabilities) misses a member: list it in converter/targets/fingerprint.h");
static_assert(listsEveryMember<Tuning>,
              "fieldsOf(Tuning) misses a member: list it in converter/targets/fingerprint.h");
static_assert(listsEveryMember<Target>, "fieldsOf(Target) misses a member: list it in converter/targets/fingerprint.h");

template <class T>
constexpr bool isVector = false;
template <class T>
constexpr bool isVector<std::vector<T>> = true;

template <class T>
void append(std::string& out, const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    out += value ? '1' : '0';
  } else if constexpr (std::is_enum_v<T>) {
    out += std::to_string(static_cast<std::underlying_type_t<T>>(value));
  } else if constexpr (std::is_arithmetic_v<T>) {
    out += std::to_string(value);
  } else if constexpr (std::is_same_v<T, std::string>) {
    out += std::to_string(value.size()) + ':' + value;
  } else if constexpr (isVector<T>) {
    out += std::to_string(value.size()) + '[';
    for (const auto& element : value) {
      append(out, element);
      out += ',';
    }
    out += ']';
  } else {
    out += '{';
    std::apply([&out](const auto&... member) { ((append(out, member), out += ','), ...); }, fieldsOf(value));
    out += '}';
  }
}

}  // namespace

std::string fingerprint(const Target& target) {
  std::string out = "target 2 ";
  append(out, target);
  return out;
}

}  // namespace openvgf::converter
