// SPDX-License-Identifier: Apache-2.0
// Graph passes of the Vulkan backend, one per file (STYLE.md item 9). Each rewrites the
// Program in place and returns whether it changed anything; a pass that finds nothing
// to do leaves the Program untouched. `passPipeline()` lists them in the order convert()
// runs them, so tools can run a prefix (--passes) or dump after one (--dump-after).
#pragma once

#include <span>
#include <string_view>

#include "common/error.h"
#include "converter/program.h"

namespace openvgf::converter::passes {

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

struct PassInfo {
  std::string_view name;  // e.g. "fold-constants"
  Result<bool> (*run)(Program&);
};
std::span<const PassInfo> passPipeline();

/// Runs the pipeline (optionally stopping after `stopAfter`, "" = all).
Status runPasses(Program& program, std::string_view stopAfter = {});

}  // namespace openvgf::converter::passes
