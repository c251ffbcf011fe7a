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

#include "common/spirv_words.h"
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

// The words of one instruction.
std::span<const std::uint32_t> wordsOf(std::span<const std::uint32_t> module, const Instruction& inst) {
  return module.subspan(inst.offset, inst.words);
}

Unexpected bug(std::string_view what) { return internalError("cooperative-matrix KHR encoding: {}", what); }

using IdMap = std::unordered_map<std::uint32_t, std::uint32_t>;
using IdListMap = std::unordered_map<std::uint32_t, std::vector<std::uint32_t>>;

// What `key` maps to, or 0 (no id is 0: "nothing") where it maps to nothing.
std::uint32_t idOr0(const IdMap& map, std::uint32_t key) {
  auto it = map.find(key);
  return it == map.end() ? 0 : it->second;
}

const std::vector<std::uint32_t>& idsOf(const IdListMap& map, std::uint32_t key) {
  static const std::vector<std::uint32_t> none;
  auto it = map.find(key);
  return it == map.end() ? none : it->second;
}

// A multiply-add operand or result, and the Use KHR needs its matrix type to have.
struct Operand {
  std::uint32_t value, type, use;
};

// What one pass over the NV module learns: the declarations the KHR encoding reads, and how
// matrices flow through function variables (the values whose types may have to be split).
struct NvModuleFacts {
  IdMap typeOf;                                          // value id -> type id
  std::unordered_map<std::uint32_t, bool> boolConstant;  // OpConstantTrue / False
  std::unordered_map<std::uint32_t, bool> signedInt;     // OpTypeInt id -> signedness
  IdMap constantType;                                    // OpConstant id -> its type
  IdMap component;                                       // matrix type -> component type
  IdMap pointee;                                         // Function pointer type -> pointee
  IdMap variable;                                        // Function variable -> pointee type
  IdMap loadedFrom;                                      // OpLoad result -> pointer
  IdListMap loadsOf;                                     // pointer -> OpLoad results
  IdListMap storedTo;                                    // pointer -> stored values
  IdListMap storedInto;                                  // value -> pointers
  std::unordered_set<std::uint32_t> matrixLoad;          // OpCooperativeMatrixLoadNV results
  std::unordered_set<std::uint32_t> escapes;             // ids that access chains, copies, calls and phis take
  std::vector<Operand> operands;                         // every multiply-add operand and result
  std::size_t firstMatrixType = 0;                       // offset of the first matrix type; 0: the module has none
  std::uint32_t intType = 0;                             // the type of the matrices' Rows constants
  std::uint32_t fp16Type = 0;
};

Status noteInstruction(NvModuleFacts& facts, const Instruction& inst, std::span<const std::uint32_t> w) {
  if (inst.type != 0 && inst.result != 0) facts.typeOf[inst.result] = inst.type;
  switch (inst.opcode) {
    case kOpTypeInt: facts.signedInt[w[1]] = w[3] != 0; break;
    case kOpTypeFloat:
      if (inst.words == 3 && w[2] == 16) facts.fp16Type = w[1];
      break;
    case kOpConstantTrue: facts.boolConstant[w[2]] = true; break;
    case kOpConstantFalse: facts.boolConstant[w[2]] = false; break;
    case kOpConstant: facts.constantType[w[2]] = w[1]; break;
    case kOpTypePointer:
      if (w[2] == kStorageFunction) facts.pointee[w[1]] = w[3];
      break;
    case kOpVariable:
      if (w[3] == kStorageFunction && facts.pointee.count(w[1])) facts.variable[w[2]] = facts.pointee[w[1]];
      break;
    case kOpLoad:
      facts.loadedFrom[w[2]] = w[3];
      facts.loadsOf[w[3]].push_back(w[2]);
      break;
    case kOpStore:
      facts.storedTo[w[1]].push_back(w[2]);
      facts.storedInto[w[2]].push_back(w[1]);
      break;
    case kOpAccessChain:
    case kOpCopyObject:
    case kOpCopyMemory:
    case kOpFunctionCall:
    case kOpPhi:
      facts.escapes.insert(w.begin() + 1, w.end());
      break;
    case kOpTypeNV:
      if (facts.firstMatrixType == 0) {
        facts.firstMatrixType = inst.offset;
        if (!facts.constantType.count(w[4])) return bug("matrix rows are not an OpConstant");
        facts.intType = facts.constantType[w[4]];
      }
      facts.component[w[1]] = w[2];
      break;
    case kOpLoadNV: facts.matrixLoad.insert(w[2]); break;
    case kOpFConvert:
      // A matrix converted to another component type (an fp16 residual widened into fp32
      // accumulators): KHR converts only between matrices of one Use, the accumulator's.
      if (facts.component.count(w[1])) {
        facts.operands.push_back({w[3], idOr0(facts.typeOf, w[3]), kUseAccumulator});
        facts.operands.push_back({w[2], w[1], kUseAccumulator});
      }
      break;
    case kOpMulAddNV:
      facts.operands.push_back({w[3], idOr0(facts.typeOf, w[3]), kUseA});
      facts.operands.push_back({w[4], idOr0(facts.typeOf, w[4]), kUseB});
      facts.operands.push_back({w[5], idOr0(facts.typeOf, w[5]), kUseAccumulator});
      facts.operands.push_back({w[2], w[1], kUseAccumulator});
      break;
    default: break;
  }
  return {};
}

// KHR matrix types carry their Use; NV types do not, so one NV type may be A, B and
// accumulator at once (square fp16 fragments). The NV type keeps the accumulator use if it
// has one (accumulators flow through phis and constants); an A or B use of it gets a type of
// its own. Such operands come from a cooperative-matrix load, directly or through function
// variables that only loads and stores touch (glslang keeps fragments in variables, and
// spirv-opt does not promote matrix variables to values): those loads, stores' values and
// variables are retyped.
struct UseAssignment {
  struct Split {
    std::uint32_t type = 0, pointer = 0;  // new matrix type, new Function pointer type
  };
  std::map<std::uint32_t, std::uint32_t> primaryUse;                // NV type -> Use of its own id
  std::map<std::pair<std::uint32_t, std::uint32_t>, Split> splits;  // (NV type, Use) -> new ids
  IdMap newType;                                                    // value id -> new type id
  IdMap newPointerType;                                             // variable id -> new pointer type id
};

Status retype(UseAssignment& uses, std::uint32_t value, std::uint32_t type) {
  auto [it, inserted] = uses.newType.emplace(value, type);
  if (!inserted && it->second != type) return bug("one matrix value used as two different multiply operands");
  return {};
}

// Gives `operand`, and everything it is copied from or to through plain variables, the
// split's types.
Status retypeOperandAndCopies(const NvModuleFacts& facts, const Operand& operand, const UseAssignment::Split& split,
                              UseAssignment& uses) {
  std::vector<std::uint32_t> values{operand.value}, variables;
  std::unordered_set<std::uint32_t> seen{operand.value};
  auto visit = [&](std::uint32_t id, std::vector<std::uint32_t>& into) {
    if (seen.insert(id).second) into.push_back(id);
  };
  while (!values.empty() || !variables.empty()) {
    if (!values.empty()) {
      const std::uint32_t value = values.back();
      values.pop_back();
      OPENVGF_TRY(retype(uses, value, split.type));
      auto from = facts.loadedFrom.find(value);
      if (from != facts.loadedFrom.end()) {
        visit(from->second, variables);
      } else if (!facts.matrixLoad.count(value)) {
        return bug("a multiply operand of a shared matrix type that comes from neither a load nor a variable");
      }
      for (std::uint32_t var : idsOf(facts.storedInto, value)) visit(var, variables);
      continue;
    }
    const std::uint32_t var = variables.back();
    variables.pop_back();
    auto pointee = facts.variable.find(var);
    if (pointee == facts.variable.end() || pointee->second != operand.type || facts.escapes.count(var)) {
      return bug("a matrix of a shared type kept somewhere other than a plain function variable");
    }
    auto [kept, fresh] = uses.newPointerType.emplace(var, split.pointer);
    if (!fresh && kept->second != split.pointer) {
      return bug("one matrix variable holds two different multiply operands");
    }
    for (std::uint32_t load : idsOf(facts.loadsOf, var)) visit(load, values);
    for (std::uint32_t stored : idsOf(facts.storedTo, var)) visit(stored, values);
  }
  return {};
}

// Every operand's final type must have the operand's use.
Status checkOperandUses(const NvModuleFacts& facts, const UseAssignment& uses) {
  IdMap useOfSplit;
  for (const auto& [key, split] : uses.splits) useOfSplit[split.type] = key.second;
  for (const Operand& o : facts.operands) {
    auto it = uses.newType.find(o.value);
    const std::uint32_t u = it != uses.newType.end() ? useOfSplit[it->second] : uses.primaryUse.at(o.type);
    if (u != o.use) return bug("one matrix value used as two different multiply operands");
  }
  return {};
}

// Allocates the split types' ids from `bound` on.
Result<UseAssignment> assignUses(const NvModuleFacts& facts, std::uint32_t& bound) {
  UseAssignment uses;
  for (const Operand& o : facts.operands) {
    if (o.use == kUseAccumulator) uses.primaryUse[o.type] = kUseAccumulator;
  }
  for (const Operand& o : facts.operands) uses.primaryUse.emplace(o.type, o.use);
  for (const Operand& o : facts.operands) {
    if (uses.primaryUse[o.type] == o.use) continue;
    if (o.use == kUseAccumulator) return bug("an accumulator whose matrix type is also an A or B operand");
    UseAssignment::Split& split = uses.splits[{o.type, o.use}];
    if (split.type == 0) {
      split.type = bound++;
      split.pointer = bound++;
    }
    OPENVGF_TRY(retypeOperandAndCopies(facts, o, split, uses));
  }
  OPENVGF_TRY(checkOperandUses(facts, uses));
  return uses;
}

// Writes the KHR module's body (everything after the header) one NV instruction at a time.
// The integer constants it needs (Use, layout, scope) get ids in the order they are first
// used; they and the bf16 type are inserted just before the first matrix type once the whole
// body is written.
class KhrEncoder {
 public:
  KhrEncoder(const NvModuleFacts& facts, const UseAssignment& uses, CoopMatScope scope, bool bf16Operands,
             std::uint32_t bound)
      : facts_(facts), uses_(uses), scope_(scope), bound_(bound), bf16Type_(bf16Operands ? bound_++ : 0) {}

  Status encode(const Instruction& inst, std::span<const std::uint32_t> w) {
    switch (inst.opcode) {
      case kOpCapability: encodeCapability(w); break;
      case kOpExtension: encodeExtension(w); break;
      case kOpTypeNV: encodeMatrixType(inst, w); break;
      case kOpVariable: encodeVariable(w); break;
      case kOpLoad:  // type result pointer [memory access]
        emit(kOpLoad, {newTypeOr(w[2], w[1]), w[2], w[3]}, w.subspan(4));
        break;
      case kOpLoadNV: {  // type result pointer stride columnMajor [memory access]
        OPENVGF_ASSIGN_OR_RETURN(std::uint32_t layout, layoutOf(w[5]));
        emit(kOpLoadKHR, {newTypeOr(w[2], w[1]), w[2], w[3], layout, w[4]}, w.subspan(6));
        break;
      }
      case kOpStoreNV: {  // pointer object stride columnMajor [memory access]
        OPENVGF_ASSIGN_OR_RETURN(std::uint32_t layout, layoutOf(w[4]));
        emit(kOpStoreKHR, {w[1], w[2], layout, w[3]}, w.subspan(5));
        break;
      }
      case kOpMulAddNV: encodeMulAdd(w); break;
      case kOpLengthNV: emit(kOpLengthKHR, {w[1], w[2], w[3]}); break;
      default: copy(w); break;
    }
    return {};
  }

  // The KHR module: `nv`'s header with the new id bound, then the body with the new declarations.
  Result<std::vector<std::uint32_t>> finish(std::span<const std::uint32_t> nv) {
    if (bf16Type_ != 0 && !bf16Used_) return bug("bf16 operands asked for, but no A or B matrix has fp16 components");
    std::vector<std::uint32_t> declarations;
    if (bf16Type_ != 0) {
      declarations.insert(declarations.end(), {spirv::firstWord(4, kOpTypeFloat), bf16Type_, 16, kEncodingBfloat16});
    }
    for (auto [value, id] : constants_) {
      declarations.insert(declarations.end(), {spirv::firstWord(4, kOpConstant), facts_.intType, id, value});
    }
    body_.insert(body_.begin() + static_cast<std::ptrdiff_t>(insertAt_), declarations.begin(), declarations.end());
    std::vector<std::uint32_t> out(nv.begin(), nv.begin() + 5);
    out[3] = bound_;
    out.insert(out.end(), body_.begin(), body_.end());
    return out;
  }

 private:
  void emit(std::uint32_t opcode, std::initializer_list<std::uint32_t> words,
            std::span<const std::uint32_t> tail = {}) {
    body_.push_back(spirv::firstWord(static_cast<std::uint32_t>(1 + words.size() + tail.size()), opcode));
    body_.insert(body_.end(), words);
    body_.insert(body_.end(), tail.begin(), tail.end());
  }
  void copy(std::span<const std::uint32_t> w) { body_.insert(body_.end(), w.begin(), w.end()); }

  std::uint32_t constant(std::uint32_t value) {
    auto [it, inserted] = constants_.emplace(value, 0u);
    if (inserted) it->second = bound_++;
    return it->second;
  }
  std::uint32_t newTypeOr(std::uint32_t value, std::uint32_t nvType) const {
    auto it = uses_.newType.find(value);
    return it != uses_.newType.end() ? it->second : nvType;
  }
  // bf16 operands: the component type of every A and B matrix that has fp16 components.
  std::uint32_t componentFor(std::uint32_t nvComponent, std::uint32_t use) {
    if (bf16Type_ == 0 || use == kUseAccumulator || nvComponent != facts_.fp16Type) return nvComponent;
    bf16Used_ = true;
    return bf16Type_;
  }
  bool isSigned(std::uint32_t matrixType) const {
    auto it = facts_.signedInt.find(idOr0(facts_.component, matrixType));
    return it != facts_.signedInt.end() && it->second;
  }
  Result<std::uint32_t> layoutOf(std::uint32_t columnMajor) {
    auto it = facts_.boolConstant.find(columnMajor);
    if (it == facts_.boolConstant.end()) return bug("a load or store whose layout is not a constant");
    return constant(it->second ? kColumnMajor : kRowMajor);
  }

  void encodeCapability(std::span<const std::uint32_t> w) {
    emit(kOpCapability, {w[1] == kCapabilityNV ? kCapabilityKHR : w[1]});
    if (w[1] == kCapabilityNV && bf16Type_ != 0) {
      emit(kOpCapability, {kCapabilityBfloat16Type});
      emit(kOpCapability, {kCapabilityBfloat16Matrix});
    }
  }
  void encodeExtension(std::span<const std::uint32_t> w) {
    if (!isString(w.subspan(1), kExtensionNV)) {
      copy(w);
      return;
    }
    emit(kOpExtension, {}, stringWords(kExtensionKHR));
    if (bf16Type_ != 0) emit(kOpExtension, {}, stringWords(kExtensionBfloat16));
  }
  // result component scope rows columns
  void encodeMatrixType(const Instruction& inst, std::span<const std::uint32_t> w) {
    if (inst.offset == facts_.firstMatrixType) insertAt_ = body_.size();
    const std::uint32_t scopeId = constant(static_cast<std::uint32_t>(scope_));
    auto it = uses_.primaryUse.find(w[1]);  // a matrix no multiply-add reads (a staging copy): accumulator
    const std::uint32_t use = it == uses_.primaryUse.end() ? kUseAccumulator : it->second;
    emit(kOpTypeKHR, {w[1], componentFor(w[2], use), scopeId, w[4], w[5], constant(use)});
    for (std::uint32_t u : {kUseA, kUseB}) {
      auto split = uses_.splits.find({w[1], u});
      if (split == uses_.splits.end()) continue;
      emit(kOpTypeKHR, {split->second.type, componentFor(w[2], u), scopeId, w[4], w[5], constant(u)});
      emit(kOpTypePointer, {split->second.pointer, kStorageFunction, split->second.type});
    }
  }
  void encodeVariable(std::span<const std::uint32_t> w) {  // type result storage [initializer]
    auto it = uses_.newPointerType.find(w[2]);
    if (it == uses_.newPointerType.end()) {
      copy(w);
    } else {
      emit(kOpVariable, {it->second, w[2], w[3]}, w.subspan(4));
    }
  }
  void encodeMulAdd(std::span<const std::uint32_t> w) {  // type result a b c
    std::uint32_t signedness = 0;
    if (isSigned(idOr0(facts_.typeOf, w[3]))) signedness |= kSignedA;
    if (isSigned(idOr0(facts_.typeOf, w[4]))) signedness |= kSignedB;
    if (isSigned(idOr0(facts_.typeOf, w[5]))) signedness |= kSignedC;
    if (isSigned(w[1])) signedness |= kSignedResult;
    if (signedness != 0) {
      emit(kOpMulAddKHR, {w[1], w[2], w[3], w[4], w[5], signedness});
    } else {
      emit(kOpMulAddKHR, {w[1], w[2], w[3], w[4], w[5]});
    }
  }

  const NvModuleFacts& facts_;
  const UseAssignment& uses_;
  const CoopMatScope scope_;
  std::uint32_t bound_;
  const std::uint32_t bf16Type_;  // 0: fp16 operands stay fp16
  bool bf16Used_ = false;
  std::map<std::uint32_t, std::uint32_t> constants_;  // value -> id
  std::vector<std::uint32_t> body_;
  std::size_t insertAt_ = 0;  // position in body_ of the first matrix type
};

}  // namespace

Result<std::vector<std::uint32_t>> cooperativeMatrixNvToKhr(std::span<const std::uint32_t> nv, CoopMatScope scope,
                                                            bool bf16Operands) {
  if (nv.size() < 5) return bug("module shorter than its header");
  ParsedModule module;
  spv_context context = spvContextCreate(SPV_ENV_VULKAN_1_3);
  const spv_result_t parsed = spvBinaryParse(context, &module, nv.data(), nv.size(), nullptr, collect, nullptr);
  spvContextDestroy(context);
  if (parsed != SPV_SUCCESS) return bug("the NV module does not parse");

  NvModuleFacts facts;
  for (const Instruction& inst : module.instructions) {
    OPENVGF_TRY(noteInstruction(facts, inst, wordsOf(nv, inst)));
  }
  if (facts.firstMatrixType == 0) {
    // A module of the template without matrices (the split-K reduction pass) is left as it is,
    // unless it claims the NV capability, which it could not use.
    for (const Instruction& inst : module.instructions) {
      if (inst.opcode == kOpCapability && nv[inst.offset + 1] == kCapabilityNV) {
        return bug("the module declares CooperativeMatrixNV but no matrix type");
      }
    }
    return std::vector<std::uint32_t>(nv.begin(), nv.end());
  }

  std::uint32_t bound = nv[3];
  OPENVGF_ASSIGN_OR_RETURN(const UseAssignment uses, assignUses(facts, bound));
  KhrEncoder encoder(facts, uses, scope, bf16Operands, bound);
  for (const Instruction& inst : module.instructions) {
    OPENVGF_TRY(encoder.encode(inst, wordsOf(nv, inst)));
  }
  return encoder.finish(nv);
}

}  // namespace openvgf::converter
