// SPDX-License-Identifier: Apache-2.0
// Lookups over the grammar tables (see grammar.h).
#include "tosa/spirv/grammar.h"

#include <fmt/format.h>

namespace openvgf::tosa::spirv {

namespace {

constexpr CoreInstruction kStandardCore[] = {
    {kOpNop, "OpNop"},
    {kOpUndef, "OpUndef"},
    {kOpSourceContinued, "OpSourceContinued"},
    {kOpSource, "OpSource"},
    {kOpSourceExtension, "OpSourceExtension"},
    {kOpName, "OpName"},
    {kOpMemberName, "OpMemberName"},
    {kOpString, "OpString"},
    {kOpLine, "OpLine"},
    {kOpExtension, "OpExtension"},
    {kOpExtInstImport, "OpExtInstImport"},
    {kOpExtInst, "OpExtInst"},
    {kOpMemoryModel, "OpMemoryModel"},
    {kOpEntryPoint, "OpEntryPoint"},
    {kOpExecutionMode, "OpExecutionMode"},
    {kOpCapability, "OpCapability"},
    {kOpTypeVoid, "OpTypeVoid"},
    {kOpTypeBool, "OpTypeBool"},
    {kOpTypeInt, "OpTypeInt"},
    {kOpTypeFloat, "OpTypeFloat"},
    {kOpTypeArray, "OpTypeArray"},
    {kOpTypeStruct, "OpTypeStruct"},
    {kOpTypePointer, "OpTypePointer"},
    {kOpConstantTrue, "OpConstantTrue"},
    {kOpConstantFalse, "OpConstantFalse"},
    {kOpConstant, "OpConstant"},
    {kOpConstantComposite, "OpConstantComposite"},
    {kOpConstantNull, "OpConstantNull"},
    {kOpSpecConstantTrue, "OpSpecConstantTrue"},
    {kOpSpecConstantFalse, "OpSpecConstantFalse"},
    {kOpSpecConstant, "OpSpecConstant"},
    {kOpSpecConstantComposite, "OpSpecConstantComposite"},
    {kOpSpecConstantOp, "OpSpecConstantOp"},
    {kOpFunction, "OpFunction"},
    {kOpVariable, "OpVariable"},
    {kOpDecorate, "OpDecorate"},
    {kOpMemberDecorate, "OpMemberDecorate"},
    {kOpDecorationGroup, "OpDecorationGroup"},
    {kOpCompositeExtract, "OpCompositeExtract"},
    {kOpNoLine, "OpNoLine"},
    {kOpModuleProcessed, "OpModuleProcessed"},
    {kOpDecorateString, "OpDecorateString"},
};

}  // namespace

std::span<const CoreInstruction> standardCoreInstructions() { return kStandardCore; }

std::string opcodeName(std::uint32_t opcode) {
  for (const CoreInstruction& i : kStandardCore) {
    if (i.opcode == opcode) return std::string(i.name);
  }
  for (const CoreInstruction& i : kArmCoreInstructions) {
    if (i.opcode == opcode) return std::string(i.name);
  }
  return fmt::format("Op{}", opcode);
}

const ExtInstruction* findExtInstruction(std::uint32_t opcode) {
  for (const ExtInstruction& i : kTosaInstructions) {
    if (i.opcode == opcode) return &i;
  }
  return nullptr;
}

const ExtInstruction* findExtInstruction(Op op) {
  const std::string_view name = toString(op);
  for (const ExtInstruction& i : kTosaInstructions) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

std::optional<Op> tosaOp(const ExtInstruction& instruction) { return opFromString(instruction.name); }

std::size_t attributeCount(const ExtInstruction& instruction) {
  const std::optional<Op> op = tosaOp(instruction);
  if (!op) return 0;
  if (instruction.variadic) return instruction.operandCount - 1;
  const int inputs = opArity(*op).inputs;
  return inputs < 0 || static_cast<std::size_t>(inputs) > instruction.operandCount
             ? 0
             : instruction.operandCount - static_cast<std::size_t>(inputs);
}

}  // namespace openvgf::tosa::spirv
