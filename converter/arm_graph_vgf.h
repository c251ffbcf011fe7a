// SPDX-License-Identifier: Apache-2.0
// `openvgf convert model.tosa --format arm-graph`: a TOSA graph as the VGF Arm's
// model-converter writes for a plain TOSA model (specs/vgf.md §3.3): one GRAPH segment
// 'graph_segment_0' whose module 'graph_partition_0' is the SPIR-V graph (tosa/spirv/encoder.h),
// CONSTANT resources first (graph constant i = constant i = resource i), then the inputs and
// outputs as TENSOR_ARM resources, one descriptor set with the inputs on bindings 0..n-1 and the
// outputs after them, dispatch shape 0,0,0.
#pragma once

#include <cstdint>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"

namespace openvgf::converter {

Result<std::vector<std::uint8_t>> writeArmGraphVgf(const tosa::Graph& graph);

}  // namespace openvgf::converter
