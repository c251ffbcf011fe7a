// SPDX-License-Identifier: Apache-2.0
// writeArmGraphVgf(): see arm_graph_vgf.h.
#include "converter/arm_graph_vgf.h"

#include "converter/kernels/common.h"
#include "tosa/spirv/encoder.h"
#include "vgf/builder.h"

namespace openvgf::converter {

Result<std::vector<std::uint8_t>> writeArmGraphVgf(const tosa::Graph& graph) {
  tosa::spirv::EncodeOptions options;
  options.entryPoint = "graph_partition_0";
  OPENVGF_ASSIGN_OR_RETURN(tosa::spirv::EncodedGraph encoded, tosa::spirv::encodeGraph(graph, options));
  vgf::Builder b;
  std::vector<vgf::ConstantId> constants;
  for (const tosa::spirv::EncodedGraphConstant& c : encoded.constants) {
    const vgf::ResourceId r = b.addResource(vgf::ResourceCategory::Constant, vkFormatOf(c.value.dtype), c.value.shape);
    constants.push_back(b.addConstant(r, std::span<const std::uint8_t>(c.value.bytes)));
  }
  vgf::DescriptorSet set;
  std::vector<vgf::Slot> inputs, outputs;
  std::vector<std::string> inputNames, outputNames;
  auto interface = [&](const std::vector<tosa::spirv::EncodedTensor>& tensors, vgf::ResourceCategory category,
                       std::vector<vgf::Slot>& slots, std::vector<std::string>& names) {
    for (const tosa::spirv::EncodedTensor& t : tensors) {
      const vgf::ResourceId r = b.addResource(category, vkFormatOf(t.dtype), t.shape, vgf::kUnset, vgf::kDescriptorTypeTensorArm);
      set.bindings.push_back({t.binding, r});
      slots.push_back({t.binding, r});
      names.push_back(t.name);
    }
  };
  interface(encoded.inputs, vgf::ResourceCategory::Input, inputs, inputNames);
  interface(encoded.outputs, vgf::ResourceCategory::Output, outputs, outputNames);
  const vgf::ModuleId module =
      b.addModule("graph_partition_0", options.entryPoint, std::move(encoded.words), vgf::ModuleType::Graph);
  b.addSegment("graph_segment_0", module, {set}, inputs, outputs, std::move(constants));
  b.setInputs(std::move(inputs), std::move(inputNames));
  b.setOutputs(std::move(outputs), std::move(outputNames));
  return b.finish();
}

}  // namespace openvgf::converter
