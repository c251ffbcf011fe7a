// SPDX-License-Identifier: Apache-2.0
// `openvgf scenario FILE.json [--device D] [--validate]`: runs a scenario file of Arm's ML SDK
// scenario-runner through the public API (openvgf::runScenario) and lists the .npy files it
// wrote. The supported subset is in the --help text and docs/scenario.md.
#include <cstdio>
#include <memory>

#include "command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

constexpr const char* kHelp =
    "Run a JSON scenario of Arm's ML SDK scenario-runner, writing the same .npy outputs.\n"
    "Supported: resources tensor (uid, dims, format, shader_access, src/dst .npy, tiling), buffer (uid, size,\n"
    "shader_access, src/dst .npy), raw_data (push constants), graph (uid, src .vgf), shader (SPIR-V compute:\n"
    "uid, src, type \"SPIR-V\", entry, stage \"compute\", push_constants_size), memory/buffer/tensor barriers;\n"
    "commands dispatch_graph (bindings by id), dispatch_compute (bindings, rangeND, push_data_ref,\n"
    "implicit_barrier), dispatch_barrier and mark_boundary. Commands run one after another, so every barrier\n"
    "holds. Refused, naming the JSON path: images, graph constants, memory groups, GLSL/HLSL shaders,\n"
    "specialization constants, shader substitutions, dispatch_fragment/spirv_graph/optical_flow.\n"
    "Relative paths resolve against the scenario's folder; dst files are written after the last command.";

struct ScenarioArgs {
  std::string path;
  std::string device;
  bool validate = false;
  bool noCache = false;
};

int runScenarioCommand(const ScenarioArgs& args) {
  ScenarioOptions options;
  options.device = args.device;
  options.validate = args.validate;
  options.pipelineCache = !args.noCache;
  options.modelCache = !args.noCache;
  // An openvgf::Exception reaches cli/main.cpp, which prints it and exits with its code.
  ScenarioResult result = runScenario(args.path, options);
  if (!quiet()) {
    std::printf("%s: ran %zu command(s)\n", args.path.c_str(), result.commands);
    for (const std::string& file : result.written) std::printf("wrote %s\n", file.c_str());
  }
  return 0;
}

void setup(CLI::App& sub, Action& action) {
  auto args = std::make_shared<ScenarioArgs>();
  sub.footer(kHelp);
  sub.add_option("file", args->path, "Scenario file (.json)")->required();
  sub.add_option("--device", args->device, "Device: index or name substring (default: the best one)");
  sub.add_flag("--validate", args->validate, "Enable the Vulkan validation layer; a validation error fails the run");
  sub.add_flag("--no-cache", args->noCache, "Neither read nor write the pipeline and lowered-model caches");
  action = [args]() { return runScenarioCommand(*args); };
}

OPENVGF_REGISTER_COMMAND({"scenario", "Run a scenario file of Arm's ML SDK scenario-runner (JSON)", 42, setup});

}  // namespace
}  // namespace openvgf::cli
