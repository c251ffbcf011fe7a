// SPDX-License-Identifier: Apache-2.0
#include "common/input_binding.h"

#include <algorithm>

#include <fmt/format.h>

namespace openvgf {
namespace {

std::string quotedNames(std::span<const DeclaredInput> declared) {
  std::string text;
  for (const DeclaredInput& input : declared) text += fmt::format("{}'{}'", text.empty() ? "" : ", ", input.name);
  return text;
}

}  // namespace

Result<std::vector<std::size_t>> bindInputs(std::span<const DeclaredInput> declared, std::span<const std::string> given,
                                            std::string_view source, std::string_view countHint) {
  constexpr std::size_t kFree = static_cast<std::size_t>(-2);
  std::vector<std::size_t> binding(declared.size(), kFree);
  std::size_t unnamed = 0;
  for (std::size_t k = 0; k < given.size(); ++k) {
    if (given[k].empty()) {
      ++unnamed;
      continue;
    }
    auto it = std::find_if(declared.begin(), declared.end(), [&](const DeclaredInput& d) { return d.name == given[k]; });
    if (it == declared.end()) {
      return invalidInput("{}: input '{}': expected one of the model's inputs ({}), got an unknown name", source,
                          given[k], quotedNames(declared));
    }
    std::size_t& slot = binding[static_cast<std::size_t>(it - declared.begin())];
    if (slot != kFree) return invalidInput("{}: input '{}': expected one value, got it twice", source, given[k]);
    slot = k;
  }
  if (given.size() < declared.size()) {
    for (std::size_t i = 0; i < declared.size(); ++i) {
      if (binding[i] == kFree && declared[i].hasDefault) binding[i] = kDefaultValue;
    }
  }
  const auto open = static_cast<std::size_t>(std::count(binding.begin(), binding.end(), kFree));
  if (open != unnamed) {
    std::string missing;
    if (open > unnamed) {
      // The first input left without a value, counting the unnamed values in order.
      std::size_t skip = unnamed;
      for (std::size_t i = 0; i < declared.size(); ++i) {
        if (binding[i] == kFree && skip-- == 0) {
          missing = fmt::format(" (no value for '{}')", declared[i].name);
          break;
        }
      }
    }
    return invalidInput("{}: expected {} input{} ({}), got {}{}{}", source, declared.size(),
                        declared.size() == 1 ? "" : "s", quotedNames(declared), given.size(), missing, countHint);
  }
  std::size_t next = 0;
  for (std::size_t k = 0; k < given.size(); ++k) {
    if (!given[k].empty()) continue;
    while (binding[next] != kFree) ++next;  // open == unnamed guarantees a free slot
    binding[next] = k;
  }
  return binding;
}

std::vector<DeclaredInput> declaredInputs(std::span<const std::string> names) {
  std::vector<DeclaredInput> declared;
  for (const std::string& name : names) declared.push_back({name, false});
  return declared;
}

}  // namespace openvgf
