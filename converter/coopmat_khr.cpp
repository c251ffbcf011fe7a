// SPDX-License-Identifier: Apache-2.0
#include "converter/coopmat_khr.h"

#include <spirv-tools/libspirv.h>

#include <map>
#include <string_view>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "vgf/spirv_coopmat.h"

namespace openvgf::converter {
namespace {

// Core opcodes (SPIR-V registry); the cooperative-matrix ones come from vgf/spirv_coopmat.h.
constexpr std::uint32_t kOpExtension = 10;
constexpr std::uint32_t kOpCapability = 17;
constexpr std::uint32_t kOpTypeInt = 21;
constexpr std::uint32_t kOpTypeFloat = 22;
constexpr std::uint32_t kOpTypePointer = 32;
constexpr std::uint32_t kOpConstantTrue = 41;
constexpr std::uint32_t kOpConstantFalse = 42;
constexpr std::uint32_t kOpConstant = 43;
constexpr std::uint32_t kOpFunctionCall = 57;
constexpr std::uint32_t kOpVariable = 59;
constexpr std::uint32_t kOpLoad = 61;
constexpr std::uint32_t kOpStore = 62;
constexpr std::uint32_t kOpCopyMemory = 63;
constexpr std::uint32_t kOpAccessChain = 65;
constexpr std::uint32_t kOpCopyObject = 83;
constexpr std::uint32_t kOpFConvert = 115;
constexpr std::uint32_t kOpPhi = 245;
constexpr std::uint32_t kStorageFunction = 7;

using namespace vgf::coopmat;

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

}  // namespace

Result<std::vector<std::uint32_t>> cooperativeMatrixNvToKhr(std::span<const std::uint32_t> nv, CoopMatScope scope,
                                                            bool bf16Operands) {
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
  std::unordered_map<std::uint32_t, std::uint32_t> pointee;       // Function pointer type -> pointee
  std::unordered_map<std::uint32_t, std::uint32_t> variable;      // Function variable -> pointee type
  std::unordered_map<std::uint32_t, std::uint32_t> loadedFrom;    // OpLoad result -> pointer
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> loadsOf;  // pointer -> OpLoad results
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> storedTo;    // pointer -> stored values
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> storedInto;  // value -> pointers
  std::unordered_set<std::uint32_t> matrixLoad;  // OpCooperativeMatrixLoadNV results
  std::unordered_set<std::uint32_t> escapes;     // ids that access chains, copies, calls and phis take
  struct Operand {
    std::uint32_t value, type, use;
  };
  std::vector<Operand> operands;  // every multiply-add operand and result
  std::size_t firstMatrixType = 0;
  std::uint32_t intType = 0;  // the type of the matrices' Rows constants
  std::uint32_t fp16Type = 0;
  for (const Instruction& inst : module.instructions) {
    const std::uint32_t* w = nv.data() + inst.offset;
    if (inst.type != 0 && inst.result != 0) typeOf[inst.result] = inst.type;
    switch (inst.opcode) {
      case kOpTypeInt: signedInt[w[1]] = w[3] != 0; break;
      case kOpTypeFloat:
        if (inst.words == 3 && w[2] == 16) fp16Type = w[1];
        break;
      case kOpConstantTrue: boolConstant[w[2]] = true; break;
      case kOpConstantFalse: boolConstant[w[2]] = false; break;
      case kOpConstant: constantType[w[2]] = w[1]; break;
      case kOpTypePointer:
        if (w[2] == kStorageFunction) pointee[w[1]] = w[3];
        break;
      case kOpVariable:
        if (w[3] == kStorageFunction && pointee.count(w[1])) variable[w[2]] = pointee[w[1]];
        break;
      case kOpLoad:
        loadedFrom[w[2]] = w[3];
        loadsOf[w[3]].push_back(w[2]);
        break;
      case kOpStore:
        storedTo[w[1]].push_back(w[2]);
        storedInto[w[2]].push_back(w[1]);
        break;
      case kOpAccessChain:
      case kOpCopyObject:
      case kOpCopyMemory:
      case kOpFunctionCall:
      case kOpPhi:
        escapes.insert(w + 1, w + inst.words);
        break;
      case kOpTypeNV:
        if (firstMatrixType == 0) {
          firstMatrixType = inst.offset;
          if (!constantType.count(w[4])) return bug("matrix rows are not an OpConstant");
          intType = constantType[w[4]];
        }
        component[w[1]] = w[2];
        break;
      case kOpLoadNV: matrixLoad.insert(w[2]); break;
      case kOpFConvert:
        // A matrix converted to another component type (an fp16 residual widened into fp32
        // accumulators): KHR converts only between matrices of one Use, the accumulator's.
        if (component.count(w[1])) {
          operands.push_back({w[3], typeOf[w[3]], kUseAccumulator});
          operands.push_back({w[2], w[1], kUseAccumulator});
        }
        break;
      case kOpMulAddNV:
        operands.push_back({w[3], typeOf[w[3]], kUseA});
        operands.push_back({w[4], typeOf[w[4]], kUseB});
        operands.push_back({w[5], typeOf[w[5]], kUseAccumulator});
        operands.push_back({w[2], w[1], kUseAccumulator});
        break;
      default: break;
    }
  }
  if (firstMatrixType == 0) {
    // A module of the template without matrices (the split-K reduction pass) is left as it is,
    // unless it claims the NV capability, which it could not use.
    for (const Instruction& inst : module.instructions) {
      if (inst.opcode == kOpCapability && nv[inst.offset + 1] == kCapabilityNV) {
        return bug("the module declares CooperativeMatrixNV but no matrix type");
      }
    }
    return std::vector<std::uint32_t>(nv.begin(), nv.end());
  }

  // KHR matrix types carry their Use; NV types do not, so one NV type may be A, B and
  // accumulator at once (square fp16 fragments). The NV type keeps the accumulator use if it
  // has one (accumulators flow through phis and constants); an A or B use of it gets a type of
  // its own. Such operands come from a cooperative-matrix load, directly or through function
  // variables that only loads and stores touch (glslang keeps fragments in variables, and
  // spirv-opt does not promote matrix variables to values): those loads, stores' values and
  // variables are retyped.
  std::uint32_t bound = nv[3];
  std::map<std::uint32_t, std::uint32_t> primaryUse;  // NV type -> Use of its own id
  for (const Operand& o : operands) {
    if (o.use == kUseAccumulator) primaryUse[o.type] = kUseAccumulator;
  }
  for (const Operand& o : operands) primaryUse.emplace(o.type, o.use);
  struct Split {
    std::uint32_t type = 0, pointer = 0;  // new matrix type, new Function pointer type
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, Split> splits;  // (NV type, Use) -> new ids
  std::unordered_map<std::uint32_t, std::uint32_t> newType;         // value id -> new type id
  std::unordered_map<std::uint32_t, std::uint32_t> newPointerType;  // variable id -> new pointer type id
  auto retype = [&](std::uint32_t value, std::uint32_t type) -> Status {
    auto [it, inserted] = newType.emplace(value, type);
    if (!inserted && it->second != type) return bug("one matrix value used as two different multiply operands");
    return {};
  };
  for (const Operand& o : operands) {
    if (primaryUse[o.type] == o.use) continue;
    if (o.use == kUseAccumulator) return bug("an accumulator whose matrix type is also an A or B operand");
    Split& split = splits[{o.type, o.use}];
    if (split.type == 0) {
      split.type = bound++;
      split.pointer = bound++;
    }
    // The operand, and everything it is copied from or to through plain variables.
    std::vector<std::uint32_t> values{o.value}, variables;
    std::unordered_set<std::uint32_t> seen{o.value};
    auto visit = [&](std::uint32_t id, std::vector<std::uint32_t>& into) {
      if (seen.insert(id).second) into.push_back(id);
    };
    while (!values.empty() || !variables.empty()) {
      if (!values.empty()) {
        const std::uint32_t value = values.back();
        values.pop_back();
        OPENVGF_TRY(retype(value, split.type));
        auto from = loadedFrom.find(value);
        if (from != loadedFrom.end()) {
          visit(from->second, variables);
        } else if (!matrixLoad.count(value)) {
          return bug("a multiply operand of a shared matrix type that comes from neither a load nor a variable");
        }
        for (std::uint32_t var : storedInto[value]) visit(var, variables);
        continue;
      }
      const std::uint32_t var = variables.back();
      variables.pop_back();
      if (!variable.count(var) || variable[var] != o.type || escapes.count(var)) {
        return bug("a matrix of a shared type kept somewhere other than a plain function variable");
      }
      auto [kept, fresh] = newPointerType.emplace(var, split.pointer);
      if (!fresh && kept->second != split.pointer) return bug("one matrix variable holds two different multiply operands");
      for (std::uint32_t load : loadsOf[var]) visit(load, values);
      for (std::uint32_t stored : storedTo[var]) visit(stored, values);
    }
  }
  // Every operand's final type must have the operand's use.
  std::unordered_map<std::uint32_t, std::uint32_t> useOfSplit;
  for (const auto& [key, split] : splits) useOfSplit[split.type] = key.second;
  for (const Operand& o : operands) {
    auto it = newType.find(o.value);
    const std::uint32_t u = it != newType.end() ? useOfSplit[it->second] : primaryUse[o.type];
    if (u != o.use) return bug("one matrix value used as two different multiply operands");
  }

  // New integer constants (Use, layout, scope), declared just before the first matrix type.
  std::map<std::uint32_t, std::uint32_t> constants;  // value -> id
  auto constant = [&](std::uint32_t value) {
    auto [it, inserted] = constants.emplace(value, 0u);
    if (inserted) it->second = bound++;
    return it->second;
  };
  // bf16 operands: the component type of every A and B matrix that has fp16 components.
  const std::uint32_t bf16Type = bf16Operands ? bound++ : 0;
  bool bf16Used = false;
  auto componentFor = [&](std::uint32_t nvComponent, std::uint32_t use) {
    if (bf16Type == 0 || use == kUseAccumulator || nvComponent != fp16Type) return nvComponent;
    bf16Used = true;
    return bf16Type;
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
        emit(kOpCapability, {w[1] == kCapabilityNV ? kCapabilityKHR : w[1]});
        if (w[1] == kCapabilityNV && bf16Type != 0) {
          emit(kOpCapability, {kCapabilityBfloat16Type});
          emit(kOpCapability, {kCapabilityBfloat16Matrix});
        }
        break;
      case kOpExtension:
        if (isString(w.subspan(1), kExtensionNV)) {
          const auto text = stringWords(kExtensionKHR);
          emit(kOpExtension, {}, text);
          if (bf16Type != 0) emit(kOpExtension, {}, stringWords(kExtensionBfloat16));
        } else {
          body.insert(body.end(), w.begin(), w.end());
        }
        break;
      case kOpTypeNV: {  // result component scope rows columns
        if (inst.offset == firstMatrixType) insertAt = body.size();
        const std::uint32_t scopeId = constant(static_cast<std::uint32_t>(scope));
        auto it = primaryUse.find(w[1]);  // a matrix no multiply-add reads (a staging copy): accumulator
        const std::uint32_t use = it == primaryUse.end() ? kUseAccumulator : it->second;
        emit(kOpTypeKHR, {w[1], componentFor(w[2], use), scopeId, w[4], w[5], constant(use)});
        for (std::uint32_t u : {kUseA, kUseB}) {
          auto split = splits.find({w[1], u});
          if (split == splits.end()) continue;
          emit(kOpTypeKHR, {split->second.type, componentFor(w[2], u), scopeId, w[4], w[5], constant(u)});
          emit(kOpTypePointer, {split->second.pointer, kStorageFunction, split->second.type});
        }
        break;
      }
      case kOpVariable: {  // type result storage [initializer]
        auto it = newPointerType.find(w[2]);
        if (it == newPointerType.end()) {
          body.insert(body.end(), w.begin(), w.end());
        } else {
          emit(kOpVariable, {it->second, w[2], w[3]}, w.subspan(4));
        }
        break;
      }
      case kOpLoad: {  // type result pointer [memory access]
        auto it = newType.find(w[2]);
        emit(kOpLoad, {it != newType.end() ? it->second : w[1], w[2], w[3]}, w.subspan(4));
        break;
      }
      case kOpLoadNV: {  // type result pointer stride columnMajor [memory access]
        OPENVGF_ASSIGN_OR_RETURN(std::uint32_t layout, layoutOf(w[5]));
        auto it = newType.find(w[2]);
        emit(kOpLoadKHR, {it != newType.end() ? it->second : w[1], w[2], w[3], layout, w[4]},
             w.subspan(6));
        break;
      }
      case kOpStoreNV: {  // pointer object stride columnMajor [memory access]
        OPENVGF_ASSIGN_OR_RETURN(std::uint32_t layout, layoutOf(w[4]));
        emit(kOpStoreKHR, {w[1], w[2], layout, w[3]}, w.subspan(5));
        break;
      }
      case kOpMulAddNV: {  // type result a b c
        std::uint32_t signedness = 0;
        if (isSigned(typeOf[w[3]])) signedness |= kSignedA;
        if (isSigned(typeOf[w[4]])) signedness |= kSignedB;
        if (isSigned(typeOf[w[5]])) signedness |= kSignedC;
        if (isSigned(w[1])) signedness |= kSignedResult;
        if (signedness != 0) {
          emit(kOpMulAddKHR, {w[1], w[2], w[3], w[4], w[5], signedness});
        } else {
          emit(kOpMulAddKHR, {w[1], w[2], w[3], w[4], w[5]});
        }
        break;
      }
      case kOpLengthNV: emit(kOpLengthKHR, {w[1], w[2], w[3]}); break;
      default: body.insert(body.end(), w.begin(), w.end()); break;
    }
  }

  if (bf16Type != 0 && !bf16Used) return bug("bf16 operands asked for, but no A or B matrix has fp16 components");
  std::vector<std::uint32_t> declarations;
  if (bf16Type != 0) declarations.insert(declarations.end(), {word0(4, kOpTypeFloat), bf16Type, 16, kEncodingBfloat16});
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
