// SPDX-License-Identifier: Apache-2.0
#include "common/suggest.h"

#include <algorithm>
#include <cctype>

namespace openvgf {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbouring characters ("inptu" -> "input" is one edit) each cost 1.
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string> closestMatches(std::string_view word, const std::vector<std::string>& choices) {
  const std::string w = lower(word);
  std::vector<std::string> matches;
  if (w.empty()) return matches;
  for (const std::string& choice : choices) {
    if (lower(choice).starts_with(w)) matches.push_back(choice);
  }
  if (!matches.empty()) return matches;
  const std::size_t limit = 1 + w.size() / 4;
  std::size_t best = limit + 1;
  for (const std::string& choice : choices) {
    const std::size_t distance = editDistance(w, lower(choice));
    if (distance > limit || distance > best) continue;
    if (distance < best) matches.clear();
    best = distance;
    matches.push_back(choice);
  }
  return matches;
}

std::string didYouMean(std::string_view word, const std::vector<std::string>& choices) {
  const std::vector<std::string> matches = closestMatches(word, choices);
  if (matches.empty()) return "";
  std::string text = " (did you mean ";
  for (std::size_t i = 0; i < matches.size(); ++i) {
    if (i > 0) text += i + 1 == matches.size() ? " or " : ", ";
    text += "'" + matches[i] + "'";
  }
  return text + "?)";
}

}  // namespace openvgf
