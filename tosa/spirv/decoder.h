// SPDX-License-Identifier: Apache-2.0
// The TOSA graph of a SPIR-V graph module (module.h): its signature (graph inputs and outputs
// with their bindings and declared types, the graph constants it uses) and the tosa::Graph
// itself, which passes tosa::verify.
//
// Decoding follows TOSA.001000.1's argument mapping: attribute operands come first and must be
// constant instructions; input operands follow and may be graph inputs, results of earlier
// instructions (OpCompositeExtract for multi-output instructions), constants (which become
// CONST, or CONST_SHAPE for shape_t operands) or graph constants (OpGraphConstantARM, whose
// payload the caller supplies: it lives in the VGF, not in the module). Interface tensors may be
// declared without a shape; the caller then gives the input shapes and every other shape is
// inferred with tosa/shape_inference.h, then checked against any shape the module declares.
//
// Errors name the module, the word offset of the instruction and the rule, e.g.
// "m.vgf: modules[0] 'g': word 304 CONV2D: pad: expected a rank-1 integer tensor constant".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"
#include "tosa/spirv/module.h"

namespace openvgf::tosa::spirv {

/// One graph input or output as the module declares it.
struct InterfaceTensor {
  std::uint32_t index = 0;                      // graph input / output index
  std::uint32_t variable = 0;                   // its OpVariable in the entry point's interface (0: none)
  std::optional<std::uint32_t> binding;         // Binding decoration of that variable
  std::optional<std::uint32_t> descriptorSet;   // DescriptorSet decoration of that variable
  DType dtype = DType::Unknown;
  std::optional<std::uint32_t> rank;            // nullopt: unranked
  std::optional<Shape> shape;                   // nullopt: unshaped (dimensions come from the caller)
  std::string name;                             // OpName of the value or variable, if any
};

/// A graph constant the graph reads (OpGraphConstantARM).
struct GraphConstantRef {
  std::uint32_t id = 0;  // GraphConstantID
  DType dtype = DType::Unknown;
  Shape shape;           // declared (graph constants must be shaped)
  std::size_t offset = 0;  // word offset of the OpGraphConstantARM, for messages
};

struct GraphSignature {
  std::string entryPoint;
  std::uint32_t graph = 0;  // OpGraphARM <id>
  std::vector<InterfaceTensor> inputs;
  std::vector<InterfaceTensor> outputs;
  std::vector<GraphConstantRef> constants;  // in order of first use
};

/// The signature of the graph behind entry point `entryPoint` ("" = the module's only one).
Result<GraphSignature> graphSignature(const Module& module, std::string_view entryPoint = {});

struct DecodeInputs {
  /// Concrete input shapes, by input index; empty = the declared shapes (then every input
  /// must be declared with a shape). Each must agree with the declared rank and dimensions.
  std::vector<Shape> inputShapes;
  /// Tensor names for the graph inputs and outputs, by index; empty = the module's OpName, else
  /// "input_<i>" / "output_<i>".
  std::vector<std::string> inputNames;
  std::vector<std::string> outputNames;
  /// The payload of a graph constant, in host layout (tosa::HostTensor) with the declared type
  /// and shape. Required when the graph uses graph constants.
  std::function<Result<HostTensor>(const GraphConstantRef&)> graphConstant;
};

/// Decodes the graph into a verified tosa::Graph (main block only).
Result<Graph> decodeGraph(const Module& module, const GraphSignature& signature, const DecodeInputs& inputs);

/// The value of constant <id> `id` (a shaped tensor constant of the module), in host layout.
Result<HostTensor> constantValue(const Module& module, std::uint32_t id);

/// One line per graph instruction with its TOSA operator, operands and declared result type,
/// for `openvgf inspect` (works without input shapes or constant payloads); a constant
/// operand of at most 16 elements shows its values (rescale multipliers and shifts, zero
/// points, pads, clamp bounds).
std::string listGraph(const Module& module, const GraphSignature& signature);

}  // namespace openvgf::tosa::spirv
