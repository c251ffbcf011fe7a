// SPDX-License-Identifier: Apache-2.0
// The SPIR-V facts of tosa/spirv/grammar.h against independent sources: the generated
// TOSA.001000.1 table against the TOSA operator table (names and input counts), and the
// hand-written standard opcodes and enumerants against Debian's SPIR-V core grammar
// (/usr/include/spirv/unified1/spirv.core.grammar.json, package spirv-headers).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tosa/spirv/grammar.h"

namespace openvgf::tosa::spirv {
namespace {

TEST(SpirvGrammar, EveryInstructionIsATosaOperatorWithItsInputs) {
  EXPECT_EQ(kTosaInstructionSetName, "TOSA.001000.1");
  EXPECT_EQ(std::size(kTosaInstructions), 66u);
  for (const ExtInstruction& inst : kTosaInstructions) {
    SCOPED_TRACE(std::string(inst.name));
    std::optional<Op> op = tosaOp(inst);
    ASSERT_TRUE(op.has_value());
    EXPECT_EQ(findExtInstruction(*op), &inst);
    EXPECT_EQ(findExtInstruction(inst.opcode), &inst);
    const OpArity arity = opArity(*op);
    const std::size_t attrs = attributeCount(inst);
    if (inst.variadic) {
      EXPECT_EQ(arity.inputs, kVariadic);
    } else {
      EXPECT_EQ(inst.operandCount - attrs, static_cast<std::size_t>(arity.inputs));
    }
  }
  // Spot checks against the grammar text: attributes first, then inputs.
  const ExtInstruction* conv = findExtInstruction(Op::Conv2d);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->opcode, 2u);
  EXPECT_EQ(attributeCount(*conv), 5u);
  EXPECT_EQ(conv->operands[4], "local_bound");
  EXPECT_EQ(conv->operands[5], "input");
  EXPECT_EQ(attributeCount(*findExtInstruction(Op::Concat)), 1u);
  EXPECT_EQ(attributeCount(*findExtInstruction(Op::Rescale)), 5u);
  EXPECT_EQ(attributeCount(*findExtInstruction(Op::Mul)), 0u);
  EXPECT_EQ(findExtInstruction(Op::Const), nullptr);
  EXPECT_EQ(findExtInstruction(Op::Identity), nullptr);
}

TEST(SpirvGrammar, ArmCoreInstructionsMatchTheExtensionSpecs) {
  // SPV_ARM_tensors / SPV_ARM_graph opcode numbers as the extension texts give them.
  EXPECT_EQ(kOpTypeTensorARM, 4163u);
  EXPECT_EQ(kOpGraphConstantARM, 4181u);
  EXPECT_EQ(kOpGraphEntryPointARM, 4182u);
  EXPECT_EQ(kOpGraphARM, 4183u);
  EXPECT_EQ(kOpGraphInputARM, 4184u);
  EXPECT_EQ(kOpGraphSetOutputARM, 4185u);
  EXPECT_EQ(kOpGraphEndARM, 4186u);
  EXPECT_EQ(kOpTypeGraphARM, 4190u);
  EXPECT_EQ(kCapabilityGraphARM, 4191u);
  EXPECT_EQ(opcodeName(4183), "OpGraphARM");
  EXPECT_EQ(opcodeName(43), "OpConstant");
  EXPECT_EQ(opcodeName(65000), "Op65000");
}

TEST(SpirvGrammar, StandardOpcodesMatchDebiansCoreGrammar) {
  const std::filesystem::path path = "/usr/include/spirv/unified1/spirv.core.grammar.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not installed (package spirv-headers)";
  std::ifstream in(path);
  nlohmann::json grammar = nlohmann::json::parse(in);
  std::map<std::string, std::uint32_t> opcodes;
  for (const auto& inst : grammar["instructions"]) opcodes[inst["opname"].get<std::string>()] = inst["opcode"].get<std::uint32_t>();
  for (const CoreInstruction& inst : standardCoreInstructions()) {
    SCOPED_TRACE(std::string(inst.name));
    ASSERT_TRUE(opcodes.count(std::string(inst.name)));
    EXPECT_EQ(opcodes[std::string(inst.name)], inst.opcode);
  }
  auto enumerant = [&](std::string_view kind, std::string_view name) -> std::int64_t {
    for (const auto& k : grammar["operand_kinds"]) {
      if (k["kind"] != kind) continue;
      for (const auto& e : k["enumerants"]) {
        if (e["enumerant"] == name) return e["value"].is_string() ? std::stoll(e["value"].get<std::string>(), nullptr, 0)
                                                                   : e["value"].get<std::int64_t>();
      }
    }
    return -1;
  };
  EXPECT_EQ(enumerant("Decoration", "Binding"), kDecorationBinding);
  EXPECT_EQ(enumerant("Decoration", "DescriptorSet"), kDecorationDescriptorSet);
  EXPECT_EQ(enumerant("StorageClass", "UniformConstant"), kStorageClassUniformConstant);
  EXPECT_EQ(enumerant("Capability", "Shader"), kCapabilityShader);
  EXPECT_EQ(enumerant("Capability", "Int8"), kCapabilityInt8);
  EXPECT_EQ(enumerant("Capability", "Int16"), kCapabilityInt16);
  EXPECT_EQ(enumerant("Capability", "Int64"), kCapabilityInt64);
  EXPECT_EQ(enumerant("Capability", "Float16"), kCapabilityFloat16);
  EXPECT_EQ(enumerant("Capability", "VulkanMemoryModel"), kCapabilityVulkanMemoryModel);
  EXPECT_EQ(enumerant("AddressingModel", "Logical"), kAddressingModelLogical);
  EXPECT_EQ(enumerant("MemoryModel", "Vulkan"), kMemoryModelVulkan);
}

}  // namespace
}  // namespace openvgf::tosa::spirv
