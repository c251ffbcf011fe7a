// SPDX-License-Identifier: Apache-2.0
// tosa::Graph -> a SPIR-V graph module laid out as Arm's model-converter writes them:
// capabilities TensorsARM + GraphARM, extensions SPV_ARM_tensors + SPV_ARM_graph, the
// TOSA.001000.1 import, Logical/Vulkan memory model, one OpVariable per graph input and output
// (UniformConstant, descriptor set 0, inputs on bindings 0..n-1 and outputs after them), shaped
// OpTypeTensorARM types, small constants inlined as constant composites and larger ones as
// OpGraphConstantARM with consecutive ids (their payloads go into the VGF, see
// EncodedGraph::constants), one OpExtInst per operator and OpName on every value with its TOSA
// tensor name, so decoder.h gives back the same graph.
//
// What has no SPIR-V TOSA form is refused (Unsupported): control flow, variables, CUSTOM and
// rank-0 constants. IDENTITY becomes an alias of its input. INT4 tensors are written as 8-bit
// integers (the instruction set has no 4-bit type; the values are unchanged), so they read back
// as INT8.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"

namespace openvgf::tosa::spirv {

struct EncodeOptions {
  std::string entryPoint = "main";
  /// CONST tensors with at least this many elements become graph constants (model-converter
  /// inlines constants of up to 16 elements).
  std::int64_t minGraphConstantElements = 17;
  std::uint32_t firstGraphConstantId = 0;
  std::uint32_t descriptorSet = 0;
  std::uint32_t firstBinding = 0;  // inputs take firstBinding.., outputs follow the inputs
};

/// A graph input or output of the module.
struct EncodedTensor {
  std::string name;
  DType dtype = DType::Unknown;
  Shape shape;
  std::uint32_t binding = 0;
};

/// A graph constant the module declares; its payload belongs in the VGF.
struct EncodedGraphConstant {
  std::uint32_t id = 0;  // GraphConstantID
  std::string tensor;    // the TOSA tensor it holds
  HostTensor value;
};

struct EncodedGraph {
  std::vector<std::uint32_t> words;
  std::vector<EncodedTensor> inputs;
  std::vector<EncodedTensor> outputs;
  std::vector<EncodedGraphConstant> constants;
};

/// Encodes the main block of `graph` (which should pass tosa::verify).
Result<EncodedGraph> encodeGraph(const Graph& graph, const EncodeOptions& options = {});

}  // namespace openvgf::tosa::spirv
