// SPDX-License-Identifier: Apache-2.0
// Test helper: wraps a SPIR-V graph module into a VGF with one GRAPH segment, laid out as
// Arm's model-converter does (specs/vgf.md §3.3): constants first, then TENSOR_ARM inputs and
// outputs on descriptor set 0 (inputs on bindings 0.., outputs after them).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "converter/kernels/common.h"
#include "tosa/host_tensor.h"
#include "vgf/builder.h"

namespace openvgf::testing {

struct GraphVgfTensor {
  std::uint32_t vkFormat = 0;
  std::vector<std::int64_t> shape;  // INT64_MIN = dynamic
  std::string name;
};

struct GraphVgfSpec {
  std::vector<std::uint32_t> module;
  std::string entryPoint = "main";
  std::vector<GraphVgfTensor> inputs;
  std::vector<GraphVgfTensor> outputs;
  std::vector<tosa::HostTensor> constants;  // constant i, format from its TOSA type
  std::vector<std::int64_t> sparsity;       // per constant; empty = dense
  /// Explicit (graph constant id, constant index) bindings; empty = id i is constant i.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> bindings;
};

inline std::vector<std::uint8_t> writeGraphVgf(const GraphVgfSpec& spec) {
  vgf::Builder b;
  std::vector<vgf::ConstantId> constants;
  for (std::size_t i = 0; i < spec.constants.size(); ++i) {
    const tosa::HostTensor& c = spec.constants[i];
    const vgf::ResourceId r = b.addResource(vgf::ResourceCategory::Constant, converter::vkFormatOf(c.dtype), c.shape);
    constants.push_back(b.addConstant(r, std::span<const std::uint8_t>(c.bytes), i < spec.sparsity.size() ? spec.sparsity[i] : -1));
  }
  vgf::DescriptorSet set;
  std::vector<vgf::Slot> inputs, outputs;
  std::vector<std::string> inputNames, outputNames;
  std::uint32_t binding = 0;
  for (const GraphVgfTensor& t : spec.inputs) {
    const vgf::ResourceId r = b.addResource(vgf::ResourceCategory::Input, t.vkFormat, t.shape, vgf::kUnset, vgf::kDescriptorTypeTensorArm);
    set.bindings.push_back({binding, r});
    inputs.push_back({binding++, r});
    inputNames.push_back(t.name);
  }
  for (const GraphVgfTensor& t : spec.outputs) {
    const vgf::ResourceId r = b.addResource(vgf::ResourceCategory::Output, t.vkFormat, t.shape, vgf::kUnset, vgf::kDescriptorTypeTensorArm);
    set.bindings.push_back({binding, r});
    outputs.push_back({binding++, r});
    outputNames.push_back(t.name);
  }
  const vgf::ModuleId m = b.addModule("graph", spec.entryPoint, spec.module, vgf::ModuleType::Graph);
  const vgf::SegmentId s = b.addSegment("graph_segment_0", m, {set}, inputs, outputs, constants);
  if (!spec.bindings.empty()) {
    std::vector<std::pair<std::uint32_t, vgf::ConstantId>> explicitBindings;
    for (const auto& [id, index] : spec.bindings) explicitBindings.emplace_back(id, constants.at(index));
    b.setConstantBindings(s, explicitBindings);
  }
  b.setInputs(inputs, inputNames);
  b.setOutputs(outputs, outputNames);
  auto bytes = b.finish();
  return bytes ? std::move(*bytes) : std::vector<std::uint8_t>{};
}

}  // namespace openvgf::testing
