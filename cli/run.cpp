// SPDX-License-Identifier: Apache-2.0
// `openvgf run MODEL`: runs a .vgf, .tosa or .pte on a Vulkan device or an Ethos-U stream in
// the simulator, chosen from the file's content, through the handler registered for that kind.
#include "command.h"
#include "inputs.h"

namespace openvgf::cli {
namespace {

void setup(CLI::App& sub, Action& action) {
  auto options = std::make_shared<RunOptions>();
  sub.add_option("model", options->path,
                 "A .vgf (GRAPH segments are lowered first, then cached), a .tosa (converted first, then cached), a "
                 ".pte with VgfBackend delegates, or an Ethos-U stream (.ethosu)")
      ->required();
  std::function<void()> finishInputs = addInputOptions(sub, *options);
  sub.add_option("-o,--output", options->output, "Write the (single) output to FILE.npy");
  sub.add_option("--output-dir", options->outputDir, "Write each output as DIR/<output name>.npy");
  sub.add_option("--device", options->device, "Vulkan device index or name substring (see `openvgf devices`)");
  sub.add_option("--repeat", options->repeat, "Run N times and report min/median latency")
      ->check(atLeast(1));
  sub.add_option("--profile", options->profile, "Write per-dispatch GPU timings as a Chrome trace (JSON)");
  sub.add_flag("--validate", options->validate, "Enable the Vulkan validation layer (also OPENVGF_VALIDATE=1)");
  CLI::Option* check = sub.add_option("--check", options->check,
                                      "Compare every output with the reference interpreter on MODEL.tosa (TOSA compliance "
                                      "rules); without a file, on the TOSA graph the VGF's GRAPH segments (or the "
                                      ".pte's delegates) carry. Exit 1 on FAIL; 3 INCONCLUSIVE: a deep graph's "
                                      "tolerance is at least |output| at every element (see `openvgf compare`)")
                           ->expected(0, 1)
                           ->type_name("[MODEL.tosa]");
  sub.add_flag("--no-pipeline-cache", options->noPipelineCache, "Do not read or write the pipeline cache");
  sub.add_flag("--pipeline-stats", options->pipelineStats,
               "Print what the driver reports of each compiled pipeline (registers, shared memory, code size, ...; "
               "needs VK_KHR_pipeline_executable_properties)");
  sub.add_option("--target", options->target,
                 "How a .tosa is converted and GRAPH segments are lowered: portable (default) or native")
      ->capture_default_str();
  sub.add_option("--dump", options->dump,
                 "Write every tensor the .tosa's operators compute as DIR/<tensor name>.npy, with DIR/index.json "
                 "(operators run unfused; docs/debugging.md)")
      ->type_name("DIR");
  sub.add_option("--top-k", options->topK, "Print the K largest values of each output and their indices (classifiers)")
      ->check(CLI::PositiveNumber)
      ->type_name("K");
  sub.add_option("--plan", options->plan, "A .pte's execution plan (name or index; default: the only one, or forward)");
  action = [options, check, finishInputs]() -> int {
    finishInputs();
    options->checkSelf = check->count() > 0 && options->check.empty();
    if (!options->output.empty() && !options->outputDir.empty()) {
      fail(ErrorCode::InvalidInput, "--output and --output-dir are mutually exclusive");
    }
    // Output paths are checked before the work, so a long run never ends in a refused write.
    if (!options->output.empty()) checkWritableFile(options->output, "--output");
    if (!options->outputDir.empty()) checkWritableFolder(options->outputDir, "--output-dir");
    if (!options->profile.empty()) checkWritableFile(options->profile, "--profile");
    if (!options->dump.empty()) checkWritableFolder(options->dump, "--dump");
    return runModel(*options);
  };
}

OPENVGF_REGISTER_COMMAND({"run", "Run a .vgf, .tosa or .pte on a Vulkan device (or an Ethos-U stream in the simulator)",
                          40, setup});

}  // namespace
}  // namespace openvgf::cli
