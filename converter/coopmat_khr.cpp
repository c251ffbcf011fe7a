// SPDX-License-Identifier: Apache-2.0
#include "converter/coopmat_khr.h"

#include <spirv-tools/libspirv.h>

#include <cstring>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace openvgf::converter {
namespace {

// Opcodes and enumerants (SPIR-V registry; the KHR values are newer than Debian's headers).
constexpr std::uint32_t kOpExtension = 10;
constexpr std::uint32_t kOpTypeInt = 21;
constexpr std::uint32_t kOpCapability = 17;
constexpr std::uint32_t kOpConstantTrue = 41;
constexpr std::uint32_t kOpConstantFalse = 42;
constexpr std::uint32_t kOpConstant = 43;
constexpr std::uint32_t kOpTypeCooperativeMatrixNV = 5358;
constexpr std::uint32_t kOpCooperativeMatrixLoadNV = 5359;
constexpr std::uint32_t kOpCooperativeMatrixStoreNV = 5360;
constexpr std::uint32_t kOpCooperativeMatrixMulAddNV = 5361;
constexpr std::uint32_t kOpCooperativeMatrixLengthNV = 5362;
constexpr std::uint32_t kOpTypeCooperativeMatrixKHR = 4456;
constexpr std::uint32_t kOpCooperativeMatrixLoadKHR = 4457;
constexpr std::uint32_t kOpCooperativeMatrixStoreKHR = 4458;
constexpr std::uint32_t kOpCooperativeMatrixMulAddKHR = 4459;
constexpr std::uint32_t kOpCooperativeMatrixLengthKHR = 4460;
constexpr std::uint32_t kCapabilityCooperativeMatrixNV = 5357;
constexpr std::uint32_t kCapabilityCooperativeMatrixKHR = 6022;
// CooperativeMatrixUse and CooperativeMatrixLayout.
constexpr std::uint32_t kUseA = 0, kUseB = 1, kUseAccumulator = 2;
constexpr std::uint32_t kRowMajor = 0, kColumnMajor = 1;
// CooperativeMatrixOperands: signed components of A, B, C and the result.
constexpr std::uint32_t kSignedA = 0x1, kSignedB = 0x2, kSignedC = 0x4, kSignedResult = 0x8;

constexpr std::string_view kNvExtension = "SPV_NV_cooperative_matrix";
constexpr std::string_view kKhrExtension = "SPV_KHR_cooperative_matrix";

std::uint32_t word0(std::uint32_t words, std::uint32_t opcode) { return (words << 16) | opcode; }

struct Instruction {
  std::size_t offset = 0;  // first word in the module
  std::uint32_t words = 0;
  std::uint32_t opcode = 0;
  std::uint32_t type = 0;
  std::uint32_t result = 0;
};

struct ParsedModule {
  std::vector<Instruction> instructions;
};

spv_result_t collect(void* user, const spv_parsed_instruction_t* inst) {
  auto* module = static_cast<ParsedModule*>(user);
  const std::size_t offset = module->instructions.empty()
                                 ? 5
                                 : module->instructions.back().offset + module->instructions.back().words;
  module->instructions.push_back(Instruction{offset, inst->num_words, inst->opcode, inst->type_id, inst->result_id});
  return SPV_SUCCESS;
}

std::vector<std::uint32_t> stringWords(std::string_view text) {
  std::vector<std::uint32_t> out((text.size() + 4) / 4, 0u);  // NUL-terminated, zero-padded
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

std::string_view literalString(std::span<const std::uint32_t> words) {
  const char* chars = reinterpret_cast<const char*>(words.data());
  return std::string_view(chars, strnlen(chars, words.size() * 4));
}

}  // namespace

Result<std::vector<std::uint32_t>> cooperativeMatrixNvToKhr(std::span<const std::uint32_t> nv, CoopMatScope scope) {
  auto bug = [](std::string_view what) { return internalError("cooperative-matrix KHR encoding: {}", what); };
  if (nv.size() < 5) return bug("module shorter than its header");

  ParsedModule module;
  spv_context context = spvContextCreate(SPV_ENV_VULKAN_1_3);
  const spv_result_t parsed = spvBinaryParse(context, &module, nv.data(), nv.size(), nullptr, collect, nullptr);
  spvContextDestroy(context);
  if (parsed != SPV_SUCCESS) return bug("the NV module does not parse");

  std::unordered_map<std::uint32_t, std::uint32_t> typeOf;        // value id -> type id
  std::unordered_map<std::uint32_t, bool> boolConstant;           // OpConstantTrue / False
  std::unordered_map<std::uint32_t, bool> signedInt;              // OpTypeInt id -> signedness
  std::unordered_map<std::uint32_t, std::uint32_t> constantType;  // OpConstant id -> its type
  std::unordered_map<std::uint32_t, std::uint32_t> component;     // matrix type -> component type
  struct Operand {
    std::uint32_t type, use;
  };
  std::vector<Operand> operands;  // every multiply-add operand and result
  std::size_t firstMatrixType = 0;
  std::uint32_t intType = 0;  // the type of the matrices' Rows constants
  for (const Instruction& inst : module.instructions) {
    const std::uint32_t* w = nv.data() + inst.offset;
    if (inst.type != 0 && inst.result != 0) typeOf[inst.result] = inst.type;
    switch (inst.opcode) {
      case kOpTypeInt: signedInt[w[1]] = w[3] != 0; break;
      case kOpConstantTrue: boolConstant[w[2]] = true; break;
      case kOpConstantFalse: boolConstant[w[2]] = false; break;
      case kOpConstant: constantType[w[2]] = w[1]; break;
      case kOpTypeCooperativeMatrixNV:
        if (firstMatrixType == 0) {
          firstMatrixType = inst.offset;
          if (!constantType.count(w[4])) return bug("matrix rows are not an OpConstant");
          intType = constantType[w[4]];
        }
        component[w[1]] = w[2];
        break;
      case kOpCooperativeMatrixMulAddNV:
        operands.push_back({typeOf[w[3]], kUseA});
        operands.push_back({typeOf[w[4]], kUseB});
        operands.push_back({typeOf[w[5]], kUseAccumulator});
        operands.push_back({w[1], kUseAccumulator});
        break;
      default: break;
    }
  }
  if (firstMatrixType == 0) {
    // A module of the template without matrices (the split-K reduction pass) is left as it is,
    // unless it claims the NV capability, which it could not use.
    for (const Instruction& inst : module.instructions) {
      if (inst.opcode == kOpCapability && nv[inst.offset + 1] == kCapabilityCooperativeMatrixNV) {
        return bug("the module declares CooperativeMatrixNV but no matrix type");
      }
    }
    return std::vector<std::uint32_t>(nv.begin(), nv.end());
  }

  // KHR matrix types carry their Use; NV types do not, so every NV type must serve one use.
  std::map<std::uint32_t, std::uint32_t> use;  // NV type -> Use
  for (const Operand& o : operands) {
    auto [it, inserted] = use.emplace(o.type, o.use);
    if (!inserted && it->second != o.use) {
      return bug("one matrix type serves as two different multiply operands (A, B or accumulator)");
    }
  }
  std::uint32_t bound = nv[3];

  // New integer constants (Use, layout, scope), declared just before the first matrix type.
  std::map<std::uint32_t, std::uint32_t> constants;  // value -> id
  auto constant = [&](std::uint32_t value) {
    auto [it, inserted] = constants.emplace(value, 0u);
    if (inserted) it->second = bound++;
    return it->second;
  };
  auto isSigned = [&](std::uint32_t matrixType) {
    auto it = signedInt.find(component[matrixType]);
    return it != signedInt.end() && it->second;
  };

  std::vector<std::uint32_t> body;  // everything after the header, constants inserted later
  std::size_t insertAt = 0;         // position in `body` of the first matrix type
  for (const Instruction& inst : module.instructions) {
    std::span<const std::uint32_t> w(nv.data() + inst.offset, inst.words);
    auto emit = [&](std::uint32_t opcode, std::initializer_list<std::uint32_t> words,
                    std::span<const std::uint32_t> tail = {}) {
      body.push_back(word0(static_cast<std::uint32_t>(1 + words.size() + tail.size()), opcode));
      body.insert(body.end(), words);
      body.insert(body.end(), tail.begin(), tail.end());
    };
    auto layoutOf = [&](std::uint32_t columnMajor) -> Result<std::uint32_t> {
      auto it = boolConstant.find(columnMajor);
      if (it == boolConstant.end()) return bug("a load or store whose layout is not a constant");
      return constant(it->second ? kColumnMajor : kRowMajor);
    };
    switch (inst.opcode) {
      case kOpCapability:
        emit(kOpCapability, {w[1] == kCapabilityCooperativeMatrixNV ? kCapabilityCooperativeMatrixKHR : w[1]});
        break;
      case kOpExtension:
        if (literalString(w.subspan(1)) == kNvExtension) {
          const auto text = stringWords(kKhrExtension);
          emit(kOpExtension, {}, text);
        } else {
          body.insert(body.end(), w.begin(), w.end());
        }
        break;
      case kOpTypeCooperativeMatrixNV: {  // result component scope rows columns
        if (inst.offset == firstMatrixType) insertAt = body.size();
        auto it = use.find(w[1]);  // a matrix no multiply-add reads (a staging copy): accumulator
        emit(kOpTypeCooperativeMatrixKHR, {w[1], w[2], constant(static_cast<std::uint32_t>(scope)), w[4], w[5],
                                           constant(it == use.end() ? kUseAccumulator : it->second)});
        break;
      }
      case kOpCooperativeMatrixLoadNV: {  // type result pointer stride columnMajor [memory access]
        OPENVGF_ASSIGN_OR_RETURN(std::uint32_t layout, layoutOf(w[5]));
        emit(kOpCooperativeMatrixLoadKHR, {w[1], w[2], w[3], layout, w[4]}, w.subspan(6));
        break;
      }
      case kOpCooperativeMatrixStoreNV: {  // pointer object stride columnMajor [memory access]
        OPENVGF_ASSIGN_OR_RETURN(std::uint32_t layout, layoutOf(w[4]));
        emit(kOpCooperativeMatrixStoreKHR, {w[1], w[2], layout, w[3]}, w.subspan(5));
        break;
      }
      case kOpCooperativeMatrixMulAddNV: {  // type result a b c
        std::uint32_t signedness = 0;
        if (isSigned(typeOf[w[3]])) signedness |= kSignedA;
        if (isSigned(typeOf[w[4]])) signedness |= kSignedB;
        if (isSigned(typeOf[w[5]])) signedness |= kSignedC;
        if (isSigned(w[1])) signedness |= kSignedResult;
        if (signedness != 0) {
          emit(kOpCooperativeMatrixMulAddKHR, {w[1], w[2], w[3], w[4], w[5], signedness});
        } else {
          emit(kOpCooperativeMatrixMulAddKHR, {w[1], w[2], w[3], w[4], w[5]});
        }
        break;
      }
      case kOpCooperativeMatrixLengthNV: emit(kOpCooperativeMatrixLengthKHR, {w[1], w[2], w[3]}); break;
      default: body.insert(body.end(), w.begin(), w.end()); break;
    }
  }

  std::vector<std::uint32_t> declarations;
  for (auto [value, id] : constants) {
    declarations.insert(declarations.end(), {word0(4, kOpConstant), intType, id, value});
  }
  body.insert(body.begin() + static_cast<std::ptrdiff_t>(insertAt), declarations.begin(), declarations.end());

  std::vector<std::uint32_t> out(nv.begin(), nv.begin() + 5);
  out[3] = bound;
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

}  // namespace openvgf::converter
