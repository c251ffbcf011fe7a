// SPDX-License-Identifier: Apache-2.0
// Graph passes of the Vulkan backend, one per file (STYLE.md item 9). Each rewrites the
// Program in place and returns whether it changed anything; a pass that finds nothing
// to do leaves the Program untouched. `passPipeline()` lists them in the order convert()
// runs them, so tools can run a prefix (--passes) or dump after one (--dump-after).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "converter/program.h"

namespace openvgf::converter::passes {

/// Iterations a WHILE_LOOP may unroll to.
inline constexpr int kMaxUnrolledIterations = 1024;

/// COND_IF / WHILE_LOOP whose conditions are known at conversion time become the operators
/// of the taken branch / the unrolled body; one whose condition depends on a model input is
/// Unsupported (the kernels have no control flow).
Result<bool> inlineControlFlow(Program& program);
/// EXT-VARIABLE reads and writes become IDENTITY nodes over the model input/output pairs
/// `state:<name>`.
Result<bool> resolveVariables(Program& program);
/// Nodes whose inputs are all constants become constant tensors (e.g. transposed or cast
/// weights, shape arithmetic), evaluated exactly as the reference interpreter does.
Result<bool> foldConstants(Program& program);
/// RESHAPE and IDENTITY whose output is not a model output: consumers read the input
/// buffer directly (same bytes, new shape), the node disappears.
Result<bool> elideReshapes(Program& program);
/// Nodes whose outputs nobody reads and that are not model outputs.
Result<bool> eliminateDeadCode(Program& program);
/// CONV2D / CONV3D / TRANSPOSE_CONV2D / DEPTHWISE_CONV2D / MATMUL / pools followed by RESCALE,
/// CLAMP, ADD (bias or residual) ... : the consumer joins the anchor's epilogue.
Result<bool> fuseEpilogues(Program& program);
/// Chains of elementwise operators become one node (one kernel).
Result<bool> fuseElementwise(Program& program);
/// A TRANSPOSE of a result that only it reads joins the epilogue of the GEMM-like node that
/// computes it: that kernel stores the results transposed.
Result<bool> fuseTransposes(Program& program);
/// A SLICE that drops trailing rows and columns of an NHWC tensor and that only CONV2Ds read:
/// they read the uncropped buffer (an alias listed in Program::crops), the node disappears.
Result<bool> foldCrops(Program& program);
/// Row-wise chains (a reduction over the last axis and the elementwise operators around it,
/// such as softmax and layer norm) become one node: one workgroup per row.
Result<bool> fuseRows(Program& program);

struct PassInfo {
  std::string_view name;  // e.g. "fold-constants"
  Result<bool> (*run)(Program&);
};
/// The passes every conversion runs, in this order, before the pipeline (and before the
/// "input" hook): inline-control-flow, resolve-variables. No kernel handles what they
/// remove, so they cannot be left out and are not in passPipeline().
std::span<const PassInfo> requiredPasses();
/// The optional passes, in the order they run.
std::span<const PassInfo> passPipeline();

/// Whether runPasses re-checks the Program after every pass unless told otherwise: on in
/// Debug builds, off in Release (where `openvgf convert --verify-each` turns it on).
#ifdef NDEBUG
inline constexpr bool kVerifyEachByDefault = false;
#else
inline constexpr bool kVerifyEachByDefault = false;
#endif

struct PassOptions {
  /// The passes to choose from, in the order they run (tests substitute their own table).
  std::span<const PassInfo> pipeline = passPipeline();
  /// Names of the passes to run; nullopt runs all of them. Passes always run in pipeline
  /// order, whatever the order of this list, because each pass relies on what the earlier
  /// ones did (fusion expects folded constants and removed dead nodes).
  std::optional<std::vector<std::string>> enabled;
  /// Stop after this pass ("" = run to the end of the pipeline).
  std::string_view stopAfter;
  /// Check the Program's invariants (verifyProgram) after every pass that ran.
  bool verifyEach = kVerifyEachByDefault;
  /// Called with "input" before the first pass, then after every pass that ran.
  std::function<void(std::string_view pass, bool changed, const Program&)> afterPass;
};

/// Runs the required passes, then the pipeline. An error of a pipeline pass, or a Program that
/// fails verification after any pass, names the pass; the required passes' errors name the
/// operator they are about.
Status runPasses(Program& program, const PassOptions& options);
/// Runs the whole pipeline (optionally stopping after `stopAfter`, "" = all).
Status runPasses(Program& program, std::string_view stopAfter = {});

/// Parses a pass list as `openvgf convert --passes` takes it: "all", "none", or
/// comma-separated pass names. An unknown name is an InvalidInput error listing the valid
/// names.
Result<std::vector<std::string>> parsePassList(std::string_view list,
                                               std::span<const PassInfo> pipeline = passPipeline());

}  // namespace openvgf::converter::passes
