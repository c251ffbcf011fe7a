// SPDX-License-Identifier: Apache-2.0
#include "runner/coopmat_view.h"
#include "common/spirv_words.h"

#include <spirv-tools/libspirv.h>

#include <map>
#include <string_view>
#include <unordered_map>

#include "vgf/spirv_coopmat.h"

namespace openvgf::runner {
namespace {

// Core opcodes (SPIR-V registry); the cooperative-matrix ones come from vgf/spirv_coopmat.h.
constexpr std::uint32_t kOpExtension = 10, kOpCapability = 17, kOpTypeBool = 20, kOpTypeFloat = 22, kOpTypePointer = 32,
                        kOpTypeFunction = 33, kOpConstantTrue = 41, kOpConstantFalse = 42, kOpConstant = 43;
constexpr std::uint32_t kScopeSubgroup = 3;

using namespace vgf::coopmat;

/// Step 1: the KHR instructions in their NV encoding, word by word. Types that differed only in
/// their use are now duplicates.
std::optional<std::vector<std::uint32_t>> reencode(std::span<const std::uint32_t> in) {
  std::unordered_map<std::uint32_t, std::uint32_t> constants, constantType;  // OpConstant id -> value, type
  std::uint32_t bound = in[3];
  std::uint32_t boolType = 0;
  bool matrixSeen = false;
  for (std::size_t pos = spirv::kHeaderWords; pos < in.size();) {
    const std::optional<spirv::InstructionAt> inst = spirv::instructionAt(in, pos);
    if (!inst) return std::nullopt;
    const std::uint32_t count = inst->wordCount, opcode = inst->opcode;
    // The bool constants below go before the first matrix type, so the bool type must too.
    if (opcode == kOpTypeBool && count == 2 && !matrixSeen) boolType = in[pos + 1];
    if (opcode == kOpTypeKHR) matrixSeen = true;
    pos += count;
  }
  // Declared just before the first matrix type: the layouts as bool constants (with a bool
  // type if the module has none before it) and, for matrices of another scope, a Subgroup
  // scope constant of the scope's integer type. NV matrices are subgroup-scoped; spirv-val
  // checks everything else about a workgroup-scope matrix the same way.
  const bool newBoolType = boolType == 0;
  if (newBoolType) boolType = bound++;
  const std::uint32_t trueId = bound++, falseId = bound++;
  std::uint32_t subgroupScope = 0, subgroupScopeType = 0;

  std::vector<std::uint32_t> out(in.begin(), in.begin() + 5);
  std::size_t declareAt = 0;  // where in `out` the first matrix type went
  for (std::size_t pos = spirv::kHeaderWords; pos < in.size();) {
    // Every instruction was checked by the first pass.
    const spirv::InstructionAt inst = *spirv::instructionAt(in, pos);
    const std::uint32_t count = inst.wordCount, opcode = inst.opcode;
    const auto w = in.subspan(pos, count);
    pos += count;
    auto emit = [&](std::uint32_t op, std::initializer_list<std::uint32_t> words, std::span<const std::uint32_t> tail = {}) {
      out.push_back(spirv::firstWord(1 + words.size() + tail.size(), op));
      out.insert(out.end(), words);
      out.insert(out.end(), tail.begin(), tail.end());
    };
    auto columnMajor = [&](std::uint32_t layout) -> std::optional<std::uint32_t> {
      auto it = constants.find(layout);
      if (it == constants.end() || (it->second != kRowMajor && it->second != kColumnMajor)) return std::nullopt;
      return it->second == kColumnMajor ? trueId : falseId;
    };
    switch (opcode) {
      case kOpCapability:
        if (count != 2) return std::nullopt;
        // NV matrices have no bf16 components: bf16 is viewed as fp16 (below).
        if (w[1] == kCapabilityBfloat16Type || w[1] == kCapabilityBfloat16Matrix) break;
        emit(kOpCapability, {w[1] == kCapabilityKHR ? kCapabilityNV : w[1]});
        break;
      case kOpExtension:
        if (isString(w.subspan(1), kExtensionKHR)) {
          const auto text = stringWords(kExtensionNV);
          emit(kOpExtension, {}, text);
        } else if (isString(w.subspan(1), kExtensionBfloat16)) {
          break;
        } else {
          out.insert(out.end(), w.begin(), w.end());
        }
        break;
      case kOpTypeFloat:  // result width [encoding]: bf16 becomes an fp16 type, merged in step 2
        if (count == 4 && w[2] == 16 && w[3] == kEncodingBfloat16) {
          emit(kOpTypeFloat, {w[1], 16});
        } else if (count == 3) {
          out.insert(out.end(), w.begin(), w.end());
        } else {
          return std::nullopt;
        }
        break;
      case kOpConstant:
        if (count >= 4) {
          constants[w[2]] = w[3];
          constantType[w[2]] = w[1];
        }
        out.insert(out.end(), w.begin(), w.end());
        break;
      case kOpTypeKHR: {  // result component scope rows columns use
        if (count != 7 || constants.find(w[3]) == constants.end()) return std::nullopt;
        if (declareAt == 0) declareAt = out.size();
        std::uint32_t scope = w[3];
        if (constants[w[3]] != kScopeSubgroup) {
          if (subgroupScope == 0) {
            subgroupScope = bound++;
            subgroupScopeType = constantType[w[3]];
          }
          scope = subgroupScope;
        }
        emit(kOpTypeNV, {w[1], w[2], scope, w[4], w[5]});
        break;
      }
      case kOpLoadKHR: {  // type result pointer layout stride [memory access]
        if (count < 6) return std::nullopt;
        auto column = columnMajor(w[4]);
        if (!column) return std::nullopt;
        emit(kOpLoadNV, {w[1], w[2], w[3], w[5], *column}, w.subspan(6));
        break;
      }
      case kOpStoreKHR: {  // pointer object layout stride [memory access]
        if (count < 5) return std::nullopt;
        auto column = columnMajor(w[3]);
        if (!column) return std::nullopt;
        emit(kOpStoreNV, {w[1], w[2], w[4], *column}, w.subspan(5));
        break;
      }
      case kOpMulAddKHR:  // type result a b c [operands]
        if (count < 6 || (count > 6 && (w[6] & kSaturatingAccumulation) != 0)) return std::nullopt;
        emit(kOpMulAddNV, {w[1], w[2], w[3], w[4], w[5]});
        break;
      case kOpLengthKHR:
        if (count != 4) return std::nullopt;
        emit(kOpLengthNV, {w[1], w[2], w[3]});
        break;
      default: out.insert(out.end(), w.begin(), w.end()); break;
    }
  }
  if (declareAt == 0) return std::nullopt;  // no matrix type: not a KHR cooperative-matrix module
  std::vector<std::uint32_t> declarations;
  if (newBoolType) declarations.insert(declarations.end(), {spirv::firstWord(2, kOpTypeBool), boolType});
  declarations.insert(declarations.end(), {spirv::firstWord(3, kOpConstantTrue), boolType, trueId,
                                           spirv::firstWord(3, kOpConstantFalse), boolType, falseId});
  if (subgroupScope != 0) {
    declarations.insert(declarations.end(),
                        {spirv::firstWord(4, kOpConstant), subgroupScopeType, subgroupScope, kScopeSubgroup});
  }
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(declareAt), declarations.begin(), declarations.end());
  out[3] = bound;
  return out;
}

struct Parsed {
  struct Instruction {
    std::size_t offset = 0;
    std::uint32_t words = 0, opcode = 0, result = 0;
    std::vector<std::uint16_t> ids;  // word offsets of the operands that reference ids
  };
  std::vector<Instruction> instructions;
  std::size_t next = 5;
};

spv_result_t collect(void* user, const spv_parsed_instruction_t* inst) {
  auto* parsed = static_cast<Parsed*>(user);
  Parsed::Instruction out{parsed->next, inst->num_words, inst->opcode, inst->result_id, {}};
  for (std::uint16_t i = 0; i < inst->num_operands; ++i) {
    const spv_parsed_operand_t& operand = inst->operands[i];
    switch (operand.type) {
      case SPV_OPERAND_TYPE_ID:
      case SPV_OPERAND_TYPE_TYPE_ID:
      case SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID:
      case SPV_OPERAND_TYPE_SCOPE_ID: out.ids.push_back(operand.offset); break;
      default: break;
    }
  }
  parsed->next += inst->num_words;
  parsed->instructions.push_back(std::move(out));
  return SPV_SUCCESS;
}

/// Step 2: each duplicate matrix or float type (a bf16 type viewed as fp16), and each pointer
/// or function type that became a duplicate through it, is replaced by its first declaration.
std::optional<std::vector<std::uint32_t>> mergeDuplicateTypes(const std::vector<std::uint32_t>& in) {
  Parsed parsed;
  spv_context context = spvContextCreate(SPV_ENV_VULKAN_1_3);
  const spv_result_t result = spvBinaryParse(context, &parsed, in.data(), in.size(), nullptr, collect, nullptr);
  spvContextDestroy(context);
  if (result != SPV_SUCCESS) return std::nullopt;

  std::unordered_map<std::uint32_t, std::uint32_t> replaced;          // id -> the id it is merged into
  std::map<std::vector<std::uint32_t>, std::uint32_t> declarationOf;  // opcode + operands -> id
  std::vector<std::uint32_t> out(in.begin(), in.begin() + 5);
  for (const Parsed::Instruction& inst : parsed.instructions) {
    std::vector<std::uint32_t> w(in.begin() + static_cast<std::ptrdiff_t>(inst.offset),
                                 in.begin() + static_cast<std::ptrdiff_t>(inst.offset + inst.words));
    for (std::uint16_t at : inst.ids) {
      auto it = replaced.find(w[at]);
      if (it != replaced.end()) w[at] = it->second;
    }
    if (inst.opcode == kOpTypeNV || inst.opcode == kOpTypePointer || inst.opcode == kOpTypeFunction ||
        inst.opcode == kOpTypeFloat) {
      std::vector<std::uint32_t> key{inst.opcode};
      key.insert(key.end(), w.begin() + 2, w.end());
      auto [it, inserted] = declarationOf.emplace(std::move(key), inst.result);
      if (!inserted) {
        replaced[inst.result] = it->second;
        continue;
      }
    }
    out.insert(out.end(), w.begin(), w.end());
  }
  return out;
}

}  // namespace

std::optional<std::vector<std::uint32_t>> cooperativeMatrixNvView(std::span<const std::uint32_t> module) {
  if (module.size() < 5) return std::nullopt;
  auto reencoded = reencode(module);
  if (!reencoded) return std::nullopt;
  return mergeDuplicateTypes(*reencoded);
}

}  // namespace openvgf::runner
