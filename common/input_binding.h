// SPDX-License-Identifier: Apache-2.0
// The one rule for binding the values a caller gives (by name or in order) to a model's
// declared inputs. `run --input`, `reference --input`, Session::run/runNamed (C++, Python, C)
// and openvgf::reference all bind through it, so a command line and an API call given the
// same names bind the same way and are refused with the same messages. It sees names only:
// the dtype, shape and byte count of each bound value are checked by whoever holds the value
// (tosa::npy::readTensor for files, runner::checkTensor for tensors).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace openvgf {

/// One input of a model, as the binder needs it.
struct DeclaredInput {
  std::string name;
  /// The input may be left out: it has a value of its own (a `state:` input starts from its
  /// variable's initial value).
  bool hasDefault = false;
};

/// In a binding: the declared input takes its default value.
inline constexpr std::size_t kDefaultValue = static_cast<std::size_t>(-1);

/// For each of `declared` (in order), the index into `given` of its value, or kDefaultValue.
/// `given` holds the name each value was given under ("" = none). Rules:
///  - a name binds by name; a name no input has, or one given twice, is refused;
///  - values without a name fill the inputs not named, in declared order;
///  - when fewer values than inputs are given, every input not named that has a default
///    takes it (all of them: a value without a name never binds to a `state:` input while
///    another keeps its default);
///  - any other count is refused.
/// Messages start with `source`, name the input and list the declared names; `countHint` is
/// appended to the message of a wrong count (e.g. how inputs may be left out).
Result<std::vector<std::size_t>> bindInputs(std::span<const DeclaredInput> declared, std::span<const std::string> given,
                                            std::string_view source, std::string_view countHint = {});

/// `names` as inputs without defaults.
std::vector<DeclaredInput> declaredInputs(std::span<const std::string> names);

}  // namespace openvgf
