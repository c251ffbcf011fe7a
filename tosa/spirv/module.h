// SPDX-License-Identifier: Apache-2.0
// A SPIR-V graph module (SPV_ARM_graph + SPV_ARM_tensors) parsed into its parts: types,
// constants, interface variables with their bindings, graph entry points and graph bodies.
// Every <id> is checked (below the bound, defined once, defined before use except where
// SPIR-V allows forward references: names, decorations and the graph of an entry point), and
// every operand count against the instruction's layout. The TOSA meaning of the graph body is
// decoder.h's job; this level only knows SPIR-V.
//
// Messages: "<source>: word <offset> <OpName>: expected <rule>, got <value>".
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "tosa/spirv/words.h"

namespace openvgf::tosa::spirv {

struct TypeInfo {
  enum class Kind { Void, Bool, Int, Float, Array, Struct, Pointer, Tensor, Graph };
  Kind kind = Kind::Void;
  std::size_t offset = 0;                    // defining instruction
  std::uint32_t width = 0;                   // Int, Float: bits
  std::optional<std::uint32_t> encoding;     // Float: FPEncoding (bf16, fp8)
  std::uint32_t element = 0;                 // Array, Pointer, Tensor: element type <id>
  std::uint64_t length = 0;                  // Array: value of the length constant
  std::optional<std::uint32_t> rank;         // Tensor: absent = unranked
  std::optional<std::vector<std::int64_t>> shape;  // Tensor: absent = unshaped
  std::vector<std::uint32_t> members;        // Struct members; Graph: input types, then output types
  std::uint32_t numInputs = 0;               // Graph
  std::uint32_t storageClass = 0;            // Pointer
};

struct ConstantInfo {
  enum class Kind { Scalar, True, False, Composite, Null, Replicate, GraphConstant };
  Kind kind = Kind::Scalar;
  std::uint32_t type = 0;
  std::size_t offset = 0;
  std::uint64_t bits = 0;                   // Scalar: the literal, low word first
  std::vector<std::uint32_t> constituents;  // Composite; Replicate: the one replicated value
  std::uint32_t graphConstantId = 0;        // GraphConstant: the literal GraphConstantID
};

struct VariableInfo {
  std::uint32_t pointerType = 0;
  std::uint32_t storageClass = 0;
  std::size_t offset = 0;
};

/// One instruction of a graph body.
struct BodyInstruction {
  enum class Kind { Input, ExtInst, Extract, SetOutput };
  Kind kind = Kind::ExtInst;
  std::size_t offset = 0;
  std::uint32_t resultType = 0;  // Input, ExtInst, Extract
  std::uint32_t result = 0;      // Input, ExtInst, Extract
  std::uint32_t set = 0;         // ExtInst: the OpExtInstImport <id>
  std::uint32_t opcode = 0;      // ExtInst: the extended instruction number
  /// Input: [InputIndex <id>, ElementIndex <id>?]; ExtInst: operand <id>s; Extract:
  /// [composite <id>, literal indexes...]; SetOutput: [value <id>, OutputIndex <id>, ElementIndex <id>?].
  std::vector<std::uint32_t> operands;
};

struct GraphDefinition {
  std::uint32_t id = 0;
  std::uint32_t type = 0;  // OpTypeGraphARM
  std::size_t offset = 0;
  std::vector<BodyInstruction> body;
};

struct GraphEntryPoint {
  std::uint32_t graph = 0;
  std::string name;
  std::vector<std::uint32_t> interface;  // OpVariable <id>s: inputs, then outputs
  std::size_t offset = 0;
};

struct Module {
  std::string source;  // prefix of every message
  ModuleHeader header;
  std::vector<std::uint32_t> capabilities;
  std::vector<std::string> extensions;
  std::map<std::uint32_t, std::string> extInstImports;  // <id> -> set name
  std::unordered_map<std::uint32_t, TypeInfo> types;
  std::unordered_map<std::uint32_t, ConstantInfo> constants;
  std::unordered_map<std::uint32_t, VariableInfo> variables;
  std::unordered_map<std::uint32_t, std::string> names;  // OpName
  std::unordered_map<std::uint32_t, std::uint32_t> bindings;        // Binding decorations
  std::unordered_map<std::uint32_t, std::uint32_t> descriptorSets;  // DescriptorSet decorations
  std::vector<GraphDefinition> graphs;
  std::vector<GraphEntryPoint> entryPoints;

  /// "<source>: word <offset> <what>: <text>", for errors found after parsing.
  Error error(std::size_t offset, std::string_view what, std::string_view text) const;
  const TypeInfo* type(std::uint32_t id) const;
  const ConstantInfo* constant(std::uint32_t id) const;
  /// The value of an integer scalar constant (sign-extended from its width when `isSigned`).
  std::optional<std::int64_t> intConstant(std::uint32_t id, bool isSigned = false) const;
};

/// Parses `words`. `source` names the module in messages ("model.vgf: modules[0] 'g'").
Result<Module> parseModule(std::span<const std::uint32_t> words, std::string_view source);

}  // namespace openvgf::tosa::spirv
