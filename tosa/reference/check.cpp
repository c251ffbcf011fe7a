// SPDX-License-Identifier: Apache-2.0
// Graph-level compliance check: each actual output judged with the rule that the precise
// reference run attached to it (policy in tosa/compliance.h).
#include "tosa/reference/reference.h"

namespace openvgf::tosa::reference {

Result<std::vector<compliance::Verdict>> checkOutputs(const RunResult& reference, std::span<const HostTensor> actual) {
  if (actual.size() != reference.outputs.size()) {
    return invalidInput("outputs: expected {}, got {}", reference.outputs.size(), actual.size());
  }
  std::vector<compliance::Verdict> verdicts;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const OutputValue& ref = reference.outputs[i];
    Result<compliance::Verdict> v = compliance::check(ref.rule, actual[i], ref.value, ref.precise, ref.bounds);
    if (!v) return Unexpected(std::move(v).error().addContext(fmt::format("output {} '{}'", i, ref.name)));
    verdicts.push_back(std::move(*v));
  }
  return verdicts;
}

}  // namespace openvgf::tosa::reference
