// SPDX-License-Identifier: Apache-2.0
// The rewrite shared by fuse-epilogues and fuse-elementwise: move the single elementwise
// consumer of an anchor node into the anchor's epilogue when the anchor's kernel family
// accepts it and the consumer's other inputs already exist at the anchor's position.
#pragma once

#include "converter/program.h"

namespace openvgf::converter::passes {

/// Fuses consumers into every node for which `isAnchor` holds; returns whether it did.
bool fuseConsumers(Program& program, bool (*isAnchor)(const Node&));

}  // namespace openvgf::converter::passes
