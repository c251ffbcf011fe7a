// SPDX-License-Identifier: Apache-2.0
// fingerprint(Target) (converter/targets/fingerprint.h), the key of the model cache and the
// GRAPH-lowering cache, covers every member of the target's capabilities, precision and
// tuning: for each leaf reached through fieldsOf (the list the fingerprint is built from, so a
// member added there is covered here without a new line), a target that differs only in it
// gets a fingerprint of its own. fingerprint.cpp's static_asserts check that fieldsOf lists
// every member. No GPU.
#include <cstddef>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "converter/targets/fingerprint.h"

namespace openvgf::testing {
namespace {

template <class T>
constexpr bool isVector = false;
template <class T>
constexpr bool isVector<std::vector<T>> = true;

template <class T>
constexpr bool isScalar = std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string>;

// Gives every list (at any depth) one default element, so that the leaves of its elements exist.
template <class T>
void fillLists(T& value) {
  if constexpr (isVector<T>) {
    if (value.empty()) value.emplace_back();
    for (auto& element : value) fillLists(element);
  } else if constexpr (!isScalar<T>) {
    std::apply([](auto&... member) { (fillLists(member), ...); }, converter::fieldsOf(value));
  }
}

// Changes leaf number `index` of `value` (scalars; a list's length, then its first element's
// leaves) and returns true, or returns false and lowers `index` by the leaves `value` has.
template <class T>
bool changeLeaf(T& value, std::size_t& index) {
  if constexpr (isScalar<T>) {
    if (index-- != 0) return false;
    if constexpr (std::is_same_v<T, bool>) {
      value = !value;
    } else if constexpr (std::is_enum_v<T>) {
      value = static_cast<T>(static_cast<std::underlying_type_t<T>>(value) + 1);
    } else if constexpr (std::is_same_v<T, std::string>) {
      value += "x";
    } else {
      value = static_cast<T>(value + 1);
    }
    return true;
  } else if constexpr (isVector<T>) {
    if (index-- == 0) {
      value.emplace_back();
      return true;
    }
    return changeLeaf(value.front(), index);
  } else {
    return std::apply([&index](auto&... member) { return (changeLeaf(member, index) || ...); },
                      converter::fieldsOf(value));
  }
}

void expectEveryLeafChangesTheFingerprint(converter::Target base, std::size_t expectedLeaves) {
  fillLists(base);
  const std::string original = converter::fingerprint(base);
  std::set<std::string> seen{original};
  std::size_t leaf = 0;
  for (;; ++leaf) {
    converter::Target changed = base;
    std::size_t index = leaf;
    if (!changeLeaf(changed, index)) break;
    const std::string key = converter::fingerprint(changed);
    EXPECT_NE(key, original) << "leaf " << leaf;
    // Each change differs from every other one too: no two members share a place in the text.
    EXPECT_TRUE(seen.insert(key).second) << "leaf " << leaf << " gives the fingerprint of another change: " << key;
  }
  // The number guards the walk itself (one that stopped early would pass above); adding a
  // member to Target (and fieldsOf, which the build enforces) changes it here.
  EXPECT_EQ(leaf, expectedLeaves);
}

TEST(TargetFingerprint, EveryMemberChangesIt) {
  // Counted by hand from target.h, part by part. Target: its name, precision and device name
  // (3). Capabilities: 9 scalars, the shape list (its length and a shape: 1 + 4) and the
  // workgroup limits (7 and a list of ints: 9): 23. Tuning: 3 GemmTiles (6 each), 24 scalars
  // (runtimeShapes the last), 6 CoopMatTiles (5 each), the fragment shape (4), the workgroup
  // tile (5), the narrow list (1 + 1 + a tile) and the mid list (1 + a tile + 2):
  // 18 + 24 + 30 + 4 + 5 + 7 + 8 = 96.
  expectEveryLeafChangesTheFingerprint(converter::portableTarget(), 3 + 23 + 96);
}

TEST(TargetFingerprint, EqualTargetsAgree) {
  const converter::Target a = converter::portableTarget();
  converter::Target b = converter::portableTarget();
  EXPECT_EQ(converter::fingerprint(a), converter::fingerprint(b));
  b.name = "native";
  EXPECT_NE(converter::fingerprint(a), converter::fingerprint(b));
}

// Strings are length-prefixed: a name and a device name that share their characters
// differently are told apart.
TEST(TargetFingerprint, StringsDoNotRunIntoEachOther) {
  converter::Target a = converter::portableTarget();
  converter::Target b = a;
  a.name = "ab";
  a.deviceName = "c";
  b.name = "a";
  b.deviceName = "bc";
  EXPECT_NE(converter::fingerprint(a), converter::fingerprint(b));
}

}  // namespace
}  // namespace openvgf::testing
