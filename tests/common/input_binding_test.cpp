// SPDX-License-Identifier: Apache-2.0
// The one input binder (common/input_binding.h), case by case: every rule and every message,
// with hand-written bindings as the expected values.
#include "common/input_binding.h"

#include <gtest/gtest.h>

namespace openvgf {
namespace {

const std::vector<DeclaredInput> kTwo = {{"a", false}, {"b", false}};

std::vector<std::size_t> bound(std::span<const DeclaredInput> declared, std::vector<std::string> given) {
  Result<std::vector<std::size_t>> r = bindInputs(declared, given, "m.vgf");
  EXPECT_TRUE(r) << r.error().message();
  return r ? *r : std::vector<std::size_t>{};
}

std::string refusal(std::span<const DeclaredInput> declared, std::vector<std::string> given,
                    std::string_view hint = {}) {
  Result<std::vector<std::size_t>> r = bindInputs(declared, given, "m.vgf: --input", hint);
  if (r) return "bound";
  EXPECT_EQ(r.error().kind(), ErrorKind::InvalidInput);
  EXPECT_EQ(r.error().exitCode(), 2);
  return r.error().message();
}

TEST(InputBinding, InOrderByNameAndMixed) {
  EXPECT_EQ(bound(kTwo, {"", ""}), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(bound(kTwo, {"b", "a"}), (std::vector<std::size_t>{1, 0}));
  // A value without a name takes the first input not named, wherever it stands.
  EXPECT_EQ(bound(kTwo, {"", "a"}), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(bound(kTwo, {"b", ""}), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(bound({}, {}), (std::vector<std::size_t>{}));
}

TEST(InputBinding, UnknownAndRepeatedNamesAreRefusedNamingTheInput) {
  EXPECT_EQ(refusal(kTwo, {"zz", ""}),
            "m.vgf: --input: input 'zz': expected one of the model's inputs ('a', 'b'), got an unknown name");
  EXPECT_EQ(refusal(kTwo, {"a", "a"}), "m.vgf: --input: input 'a': expected one value, got it twice");
  // Names are matched exactly: no case folding, no trimming.
  EXPECT_EQ(refusal(kTwo, {"A", ""}),
            "m.vgf: --input: input 'A': expected one of the model's inputs ('a', 'b'), got an unknown name");
  // The name error is reported before the count.
  EXPECT_EQ(refusal(kTwo, {"a", "a", ""}), "m.vgf: --input: input 'a': expected one value, got it twice");
}

TEST(InputBinding, AWrongCountIsRefusedNamingTheFirstInputWithoutAValue) {
  EXPECT_EQ(refusal(kTwo, {""}), "m.vgf: --input: expected 2 inputs ('a', 'b'), got 1 (no value for 'b')");
  EXPECT_EQ(refusal(kTwo, {"a"}), "m.vgf: --input: expected 2 inputs ('a', 'b'), got 1 (no value for 'b')");
  EXPECT_EQ(refusal(kTwo, {"b"}), "m.vgf: --input: expected 2 inputs ('a', 'b'), got 1 (no value for 'a')");
  EXPECT_EQ(refusal(kTwo, {}), "m.vgf: --input: expected 2 inputs ('a', 'b'), got 0 (no value for 'a')");
  EXPECT_EQ(refusal(kTwo, {"", "", ""}), "m.vgf: --input: expected 2 inputs ('a', 'b'), got 3");
  EXPECT_EQ(refusal(kTwo, {"a", "b", ""}), "m.vgf: --input: expected 2 inputs ('a', 'b'), got 3");
  const std::vector<DeclaredInput> one = {{"x", false}};
  EXPECT_EQ(refusal(one, {"", ""}, "; a hint"), "m.vgf: --input: expected 1 input ('x'), got 2; a hint");
}

TEST(InputBinding, InputsWithADefaultMayBeLeftOut) {
  const std::vector<DeclaredInput> state = {{"x", false}, {"state:s", true}};
  EXPECT_EQ(bound(state, {""}), (std::vector<std::size_t>{0, kDefaultValue}));
  EXPECT_EQ(bound(state, {"x"}), (std::vector<std::size_t>{0, kDefaultValue}));
  // Given, a default is not used.
  EXPECT_EQ(bound(state, {"", ""}), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(bound(state, {"state:s", "x"}), (std::vector<std::size_t>{1, 0}));
  // An input without a default still needs a value.
  EXPECT_EQ(refusal(state, {"state:s"}), "m.vgf: --input: expected 2 inputs ('x', 'state:s'), got 1 (no value for 'x')");
  EXPECT_EQ(refusal(state, {}), "m.vgf: --input: expected 2 inputs ('x', 'state:s'), got 0 (no value for 'x')");
}

// Two `state:` inputs and one value too few: the value without a name does not bind to the
// second state while the first keeps its default (the CLI used to do that silently while
// the API refused); name it, or give every value.
TEST(InputBinding, AValueWithoutANameNeverBindsToADefaultedInputWhileAnotherKeepsItsDefault) {
  const std::vector<DeclaredInput> states = {{"x", false}, {"state:a", true}, {"state:b", true}};
  EXPECT_EQ(refusal(states, {"", ""}), "m.vgf: --input: expected 3 inputs ('x', 'state:a', 'state:b'), got 2");
  EXPECT_EQ(bound(states, {"", "state:b"}), (std::vector<std::size_t>{0, kDefaultValue, 1}));
  EXPECT_EQ(bound(states, {""}), (std::vector<std::size_t>{0, kDefaultValue, kDefaultValue}));
  EXPECT_EQ(bound(states, {"", "", ""}), (std::vector<std::size_t>{0, 1, 2}));
}

TEST(InputBinding, DeclaredInputsFromNamesHaveNoDefaults) {
  const std::vector<std::string> names = {"p", "q"};
  std::vector<DeclaredInput> declared = declaredInputs(names);
  ASSERT_EQ(declared.size(), 2u);
  EXPECT_EQ(declared[1].name, "q");
  EXPECT_FALSE(declared[0].hasDefault || declared[1].hasDefault);
  EXPECT_EQ(refusal(declared, {""}), "m.vgf: --input: expected 2 inputs ('p', 'q'), got 1 (no value for 'q')");
}

}  // namespace
}  // namespace openvgf
