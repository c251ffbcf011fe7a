// SPDX-License-Identifier: Apache-2.0
// The facts of SPIR-V that openvgf's graph reader and writer use, in one place:
//  - the TOSA.001000.1 extended instructions (opcode, TOSA operator name, operand names) and
//    the SPV_ARM_tensors / SPV_ARM_graph core instructions, generated at build time from the
//    grammar files in tosa/spirv/grammar/ (grammar_table.inc);
//  - the handful of standard core opcodes and enumerants a graph module uses (hand-written;
//    tests/tosa/spirv_grammar_test.cpp checks them against Debian's spirv.core.grammar.json).
//
// How a TOSA operator maps onto its extended instruction (TOSA.001000.1 "Argument mapping"):
// attribute operands come first and must be constants, input operands follow; the number of
// inputs is tosa::opArity(op).inputs, so the attribute operands are the leading
// operandCount - inputs ones. Multiple outputs come back as an OpTypeStruct.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "tosa/types.h"

namespace openvgf::tosa::spirv {

inline constexpr std::size_t kMaxExtOperands = 12;

/// One TOSA.001000.1 extended instruction.
struct ExtInstruction {
  std::uint32_t opcode = 0;
  std::string_view name;  // the TOSA operator's spelling, e.g. "CONV2D"
  std::size_t operandCount = 0;
  std::array<std::string_view, kMaxExtOperands> operands{};  // operand names in order
  bool variadic = false;  // the last operand repeats (CONCAT's inputs)

  std::span<const std::string_view> operandNames() const { return {operands.data(), operandCount}; }
};

struct CoreInstruction {
  std::uint32_t opcode = 0;
  std::string_view name;
};

#include "tosa/spirv/grammar_table.inc"

/// Standard core opcodes (SPIR-V 1.6 §3.52) a graph module may contain.
inline constexpr std::uint32_t kOpNop = 0, kOpUndef = 1, kOpSourceContinued = 2, kOpSource = 3,
                               kOpSourceExtension = 4, kOpName = 5, kOpMemberName = 6, kOpString = 7,
                               kOpLine = 8, kOpExtension = 10, kOpExtInstImport = 11, kOpExtInst = 12,
                               kOpMemoryModel = 14, kOpEntryPoint = 15, kOpExecutionMode = 16,
                               kOpCapability = 17, kOpTypeVoid = 19, kOpTypeBool = 20, kOpTypeInt = 21,
                               kOpTypeFloat = 22, kOpTypeArray = 28, kOpTypeStruct = 30, kOpTypePointer = 32,
                               kOpConstantTrue = 41, kOpConstantFalse = 42, kOpConstant = 43,
                               kOpConstantComposite = 44, kOpConstantNull = 46, kOpSpecConstantTrue = 48,
                               kOpSpecConstantFalse = 49, kOpSpecConstant = 50, kOpSpecConstantComposite = 51,
                               kOpSpecConstantOp = 52, kOpFunction = 54, kOpVariable = 59, kOpDecorate = 71,
                               kOpMemberDecorate = 72, kOpDecorationGroup = 73, kOpCompositeExtract = 81,
                               kOpNoLine = 317, kOpModuleProcessed = 330, kOpDecorateString = 5632;

/// Enumerants (SPIR-V 1.6 §3): Decoration, StorageClass, FPEncoding, Capability, memory model.
inline constexpr std::uint32_t kDecorationBinding = 33, kDecorationDescriptorSet = 34;
inline constexpr std::uint32_t kStorageClassUniformConstant = 0;
inline constexpr std::uint32_t kFPEncodingBFloat16KHR = 0, kFPEncodingFloat8E4M3EXT = 4214,
                               kFPEncodingFloat8E5M2EXT = 4215;
inline constexpr std::uint32_t kCapabilityShader = 1, kCapabilityFloat16 = 9, kCapabilityInt64 = 11,
                               kCapabilityInt16 = 22, kCapabilityInt8 = 39, kCapabilityVulkanMemoryModel = 5345,
                               kCapabilityBFloat16TypeKHR = 5116, kCapabilityFloat8EXT = 4212;
inline constexpr std::uint32_t kAddressingModelLogical = 0, kMemoryModelVulkan = 3;

inline constexpr std::uint32_t kSpirvMagic = 0x07230203;
/// SPIR-V 1.6 is the version the graph extensions are written against.
inline constexpr std::uint32_t kSpirvVersion16 = 0x00010600;

/// The standard core opcodes above with their names (for messages and the grammar test).
std::span<const CoreInstruction> standardCoreInstructions();

/// "OpConstant", "OpGraphARM", ...; "Op<n>" for opcodes openvgf does not know.
std::string opcodeName(std::uint32_t opcode);

/// The extended instruction with this opcode / TOSA operator; nullptr if TOSA.001000.1 has none
/// (CONST, IDENTITY, CUSTOM, control flow and variables are not instructions).
const ExtInstruction* findExtInstruction(std::uint32_t opcode);
const ExtInstruction* findExtInstruction(Op op);
/// The TOSA operator an extended instruction stands for.
std::optional<Op> tosaOp(const ExtInstruction& instruction);

/// How many leading operands of `instruction` are attributes (see the file comment).
std::size_t attributeCount(const ExtInstruction& instruction);

}  // namespace openvgf::tosa::spirv
