// SPDX-License-Identifier: Apache-2.0
// "Did you mean" hints for a word that is none of a fixed set of choices (a subcommand, a
// flag, a --target or --precision value, a pass name): the one rule every message uses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace openvgf {

/// The choices a mistyped `word` most likely meant: those that start with it (an abbreviation,
/// "ethos-u85" for "ethos-u85-256"), else those nearest to it by edit distance (a swapped pair
/// of letters counts as one edit) when that distance is at most 1 + |word| / 4. Case is ignored.
/// In the order of `choices`; empty when none is near.
std::vector<std::string> closestMatches(std::string_view word, const std::vector<std::string>& choices);

/// " (did you mean 'convert'?)" (or "'a' or 'b'", "'a', 'b' or 'c'") for closestMatches, to append
/// to a message that names the word; "" when none is near.
std::string didYouMean(std::string_view word, const std::vector<std::string>& choices);

}  // namespace openvgf
