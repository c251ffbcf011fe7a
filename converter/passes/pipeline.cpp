// SPDX-License-Identifier: Apache-2.0
// The pass table and driver.
#include "converter/passes/passes.h"

namespace openvgf::converter::passes {

std::span<const PassInfo> passPipeline() {
  static constexpr PassInfo kPasses[] = {
      {"fold-constants", foldConstants},
      {"elide-reshapes", elideReshapes},
      {"eliminate-dead-code", eliminateDeadCode},
      {"fuse-epilogues", fuseEpilogues},
      {"fuse-elementwise", fuseElementwise},
  };
  return kPasses;
}

Status runPasses(Program& program, std::string_view stopAfter) {
  for (const PassInfo& pass : passPipeline()) {
    auto changed = pass.run(program);
    if (!changed) return Unexpected(std::move(changed).error().addContext(pass.name));
    if (pass.name == stopAfter) break;
  }
  return {};
}

}  // namespace openvgf::converter::passes
