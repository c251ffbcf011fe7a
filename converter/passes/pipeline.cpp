// SPDX-License-Identifier: Apache-2.0
// The pass table and driver: pass selection (--passes), hooks for dumps (--dump-after)
// and the per-pass invariant check (verifyProgram, on in Debug builds and with
// --verify-each), so a pass that breaks the Program is caught and named.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/suggest.h"
#include "converter/passes/passes.h"

namespace openvgf::converter::passes {

std::span<const PassInfo> requiredPasses() {
  static constexpr PassInfo kPasses[] = {
      {"inline-control-flow", inlineControlFlow},
      {"resolve-variables", resolveVariables},
  };
  return kPasses;
}

std::span<const PassInfo> passPipeline() {
  static constexpr PassInfo kPasses[] = {
      {"fold-constants", foldConstants},          {"elide-reshapes", elideReshapes},
      {"eliminate-dead-code", eliminateDeadCode}, {"fuse-epilogues", fuseEpilogues},
      {"fuse-elementwise", fuseElementwise},      {"fuse-transposes", fuseTransposes},
      {"fuse-rows", fuseRows},                    {"fold-crops", foldCrops},
  };
  return kPasses;
}

namespace {

Status verifyAfter(const Program& program, std::string_view pass) {
  if (Status valid = verifyProgram(program); !valid) {
    return internalError("pass {} left an invalid program: {}", pass, valid.error().message());
  }
  return {};
}

}  // namespace

Status runPasses(Program& program, const PassOptions& options) {
  for (const PassInfo& pass : requiredPasses()) {
    OPENVGF_TRY(pass.run(program));
    if (options.verifyEach) OPENVGF_TRY(verifyAfter(program, pass.name));
  }
  if (options.afterPass) options.afterPass("input", false, program);
  for (const PassInfo& pass : options.pipeline) {
    const bool enabled = !options.enabled || std::find(options.enabled->begin(), options.enabled->end(),
                                                       pass.name) != options.enabled->end();
    if (enabled) {
      auto changed = pass.run(program);
      if (!changed)
        return Unexpected(std::move(changed).error().addContext(fmt::format("pass {}", pass.name)));
      if (options.verifyEach) OPENVGF_TRY(verifyAfter(program, pass.name));
      if (options.afterPass) options.afterPass(pass.name, *changed, program);
    }
    if (pass.name == options.stopAfter) break;
  }
  return {};
}

Status runPasses(Program& program, std::string_view stopAfter) {
  PassOptions options;
  options.stopAfter = stopAfter;
  return runPasses(program, options);
}

Result<std::vector<std::string>> parsePassList(std::string_view list, std::span<const PassInfo> pipeline) {
  std::vector<std::string> names;
  if (list == "none") return names;
  if (list == "all") {
    for (const PassInfo& pass : pipeline) names.emplace_back(pass.name);
    return names;
  }
  std::vector<std::string_view> valid;
  for (const PassInfo& pass : pipeline) valid.push_back(pass.name);
  if (list.empty()) {
    return invalidInput("--passes: expected all, none or a comma-separated list of {}, got an empty value "
                        "(none runs no pass)",
                        fmt::join(valid, ", "));
  }
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view name = list.substr(start, comma - start);
    if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
      return invalidInput("--passes: '{}': expected all, none or a comma-separated list of {}{}", name,
                          fmt::join(valid, ", "), didYouMean(name, std::vector<std::string>(valid.begin(), valid.end())));
    }
    names.emplace_back(name);
    start = comma + 1;
  }
  return names;
}

}  // namespace openvgf::converter::passes
