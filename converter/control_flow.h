// SPDX-License-Identifier: Apache-2.0
// COND_IF and WHILE_LOOP whose conditions are known at conversion time, inlined into the
// main block: a COND_IF becomes the operators of the branch its condition selects, a
// WHILE_LOOP is unrolled while its condition block evaluates to true. Conditions are
// evaluated with the reference interpreter on the constant operators that produce them
// (so GREATER(CONST, CONST) or a loop counter folds); a condition that depends on a model
// input is Unsupported (the Vulkan backend has no device-side control flow).
#pragma once

#include "common/error.h"
#include "converter/program.h"
#include "tosa/graph.h"

namespace openvgf::converter {

/// Iterations a WHILE_LOOP may unroll to.
inline constexpr int kMaxUnrolledIterations = 1024;

/// Inlines every COND_IF / WHILE_LOOP node of `program` (blocks looked up in `graph`).
Status inlineControlFlow(Program& program, const tosa::Graph& graph);

}  // namespace openvgf::converter
