// SPDX-License-Identifier: Apache-2.0
// fuse-elementwise: a chain of elementwise operators becomes one kernel that reads each
// operand once and writes only the chain's result.
//
//   before: a = SUB(x, m); b = MUL(a, s); y = CLAMP(b)
//   after:  y = SUB(x, m) |> MUL(., s) |> CLAMP
#include "converter/kernels/common.h"
#include "converter/passes/fusion.h"
#include "converter/passes/passes.h"
#include "tosa/op_table.h"

namespace openvgf::converter::passes {
namespace {

bool isElementwiseAnchor(const Node& node) { return tosa::isElementwise(node.op.op); }

}  // namespace

Result<bool> fuseElementwise(Program& program) { return fuseConsumers(program, isElementwiseAnchor); }

}  // namespace openvgf::converter::passes
