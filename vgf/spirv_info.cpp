// SPDX-License-Identifier: Apache-2.0
// SPIR-V declaration reflection (see spirv_info.h). Numbers are from the SPIR-V 1.6 spec:
// §2.3 physical layout, §2.4 logical layout, §3.6 execution modes, §3.7 storage classes,
// §3.20 decorations, §3.32 instructions.
#include "vgf/spirv_info.h"
#include "common/spirv_words.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace openvgf::vgf {
namespace {

constexpr std::uint32_t kMagic = 0x07230203u;
using spirv::kHeaderWords;

// The error for an instruction spirv::instructionAt refuses at `pos`: a word count of 0, or
// more words than the module has left.
Status malformedInstruction(std::span<const std::uint32_t> words, std::size_t pos) {
  return invalidInput("SPIR-V module: word {}: expected an instruction of 1..{} words, got {}", pos,
                      words.size() - pos, spirv::wordCountOf(words[pos]));
}

// Opcodes.
constexpr std::uint32_t kOpExtension = 10, kOpEntryPoint = 15, kOpExecutionMode = 16, kOpCapability = 17,
                        kOpTypeBool = 20, kOpTypeInt = 21, kOpTypeFloat = 22, kOpTypeVector = 23,
                        kOpTypeMatrix = 24, kOpTypeArray = 28, kOpTypeRuntimeArray = 29, kOpTypeStruct = 30,
                        kOpTypePointer = 32, kOpConstant = 43, kOpConstantComposite = 44,
                        kOpSpecConstant = 50, kOpSpecConstantComposite = 51, kOpFunction = 54,
                        kOpVariable = 59, kOpDecorate = 71, kOpMemberDecorate = 72, kOpControlBarrier = 224,
                        kOpExecutionModeId = 331, kOpTypeCooperativeMatrixKhr = 4456, kOpModuleProcessed = 330;
// Decorations.
constexpr std::uint32_t kBlock = 2, kBufferBlock = 3, kArrayStride = 6, kBuiltIn = 11, kNonWritable = 24,
                        kNonReadable = 25, kBinding = 33, kDescriptorSet = 34, kOffset = 35;
constexpr std::uint32_t kBuiltInWorkgroupSize = 25;
// Execution modes.
constexpr std::uint32_t kLocalSize = 17, kLocalSizeId = 38, kLocalSizeHintId = 39, kRoundingModeRte = 4462;
// Storage classes that are not descriptors.
constexpr std::uint32_t kStorageInput = 1, kStorageOutput = 3, kStoragePrivate = 6, kStorageFunction = 7;
// Sizes saturate here, far above any device limit, so arithmetic on hostile lengths cannot wrap.
constexpr std::uint64_t kSizeCap = std::uint64_t{1} << 62;
constexpr int kMaxTypeDepth = 32;

std::uint64_t satMul(std::uint64_t a, std::uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kSizeCap / b ? kSizeCap : a * b;
}
std::uint64_t satAdd(std::uint64_t a, std::uint64_t b) {
  return std::min(kSizeCap, a + std::min(b, kSizeCap));
}

struct Decorations {
  std::optional<std::uint32_t> set, binding, arrayStride, builtIn;
  bool block = false, bufferBlock = false, nonWritable = false, nonReadable = false;
};
struct MemberDecorations {
  std::optional<std::uint32_t> offset;
  bool nonWritable = false, nonReadable = false;
};
struct TypeDecl {
  std::uint32_t opcode = 0;
  std::vector<std::uint32_t> operands;  // after the result id
};
struct Variable {
  std::uint32_t id = 0, pointerType = 0, storageClass = 0;
};
struct Usage {
  bool used = false, reads = false, writes = false, escaped = false;
};

// How an instruction of a function body uses a pointer operand.
struct PointerUse {
  static constexpr std::size_t kNone = ~std::size_t{0};
  enum Kind { Other, Derive, Access } kind = Other;
  std::size_t operand = kNone;  // index into the operands (after the opcode word)
  bool reads = false, writes = false;
  std::size_t second = kNone;  // a second pointer operand that is read (copy sources)
};

PointerUse pointerUse(std::uint32_t opcode) {
  switch (opcode) {
    case 65:
    case 66:
    case 67:
    case 70:
    case 83:                        // OpAccessChain, OpInBoundsAccessChain, OpPtrAccessChain,
      return {PointerUse::Derive};  // OpInBoundsPtrAccessChain, OpCopyObject
    case 61: return {PointerUse::Access, 2, true, false};  // OpLoad
    case 62: return {PointerUse::Access, 0, false, true};  // OpStore
    case 63:
    case 64: return {PointerUse::Access, 0, false, true, 1};  // OpCopyMemory(Sized): target, source
    case 68: return {PointerUse::Access, 2, false, false};    // OpArrayLength
    case 227: return {PointerUse::Access, 2, true, false};    // OpAtomicLoad
    case 228:
    case 319: return {PointerUse::Access, 0, false, true};  // OpAtomicStore, OpAtomicFlagClear
    case 229:
    case 230:
    case 231:
    case 232:
    case 233:
    case 234:
    case 235:
    case 236:
    case 237:
    case 238:
    case 239:
    case 240:
    case 241:
    case 242:
    case 318:
    case 5614:
    case 5615:
    case 6035: return {PointerUse::Access, 2, true, true};  // read-modify-write atomics
    case 5359:
    case 4457: return {PointerUse::Access, 2, true, false};  // OpCooperativeMatrixLoadNV/KHR
    case 5360:
    case 4458: return {PointerUse::Access, 0, false, true};  // OpCooperativeMatrixStoreNV/KHR
    default: return {};
  }
}

struct RawEntryPoint {
  SpirvEntryPoint info;
  std::vector<std::uint32_t> interface;
};

// Everything the declaration section says, by id.
class Declarations {
 public:
  Status parse(std::span<const std::uint32_t> words, SpirvModule& out);
  void finish(SpirvModule& out);

 private:
  std::uint64_t sizeOf(std::uint32_t type, int depth) const;
  std::uint64_t computeSize(const TypeDecl& t, std::uint32_t id, int depth) const;
  std::uint64_t pointeeBytes(std::uint32_t pointerType) const;  // sizeOf what a pointer type points to
  SpirvBuiltinInput builtinInput(const Variable& v, std::uint32_t builtIn) const;
  std::uint64_t memberOffset(const TypeDecl& st, std::uint32_t structId, std::size_t member, int depth) const;
  std::uint64_t memberStart(std::uint32_t structId, std::size_t member, std::uint64_t follows) const;
  std::optional<std::uint64_t> constantValue(std::uint32_t id) const;
  const TypeDecl* type(std::uint32_t id) const {
    auto it = types_.find(id);
    return it == types_.end() ? nullptr : &it->second;
  }
  const Decorations* decorations(std::uint32_t id) const {
    auto it = decorations_.find(id);
    return it == decorations_.end() ? nullptr : &it->second;
  }
  SpirvDescriptor describe(const Variable& v) const;
  Status scanBodies(std::span<const std::uint32_t> words, std::size_t pos, SpirvModule& out);
  void applyExecutionMode(std::span<const std::uint32_t> operands, bool ids);

  std::unordered_map<std::uint32_t, Decorations> decorations_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, MemberDecorations> members_;
  std::unordered_map<std::uint32_t, TypeDecl> types_;
  std::unordered_map<std::uint32_t, std::uint64_t> constants_;
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> composites_;
  std::vector<Variable> variables_;
  std::unordered_map<std::uint32_t, Usage> usage_;  // by variable id
  std::vector<RawEntryPoint> entryPoints_;
  // sizeOf's results by type id, and the ids whose size is being computed: each type is sized
  // once, and a type that contains itself (a cycle that only a malformed module has) counts
  // as 0 bytes there. Without them, structs nested in cycles took time exponential in
  // kMaxTypeDepth (a fuzzed module ran for minutes).
  mutable std::unordered_map<std::uint32_t, std::uint64_t> sizes_;
  mutable std::unordered_set<std::uint32_t> sizing_;
  struct LocalSizeIds {
    std::uint32_t entry;
    std::array<std::uint32_t, 3> ids;
  };
  std::vector<LocalSizeIds> localSizeIds_;
};

// A literal string packed into words (nul-terminated); returns the words it occupies, or 0
// when no nul is found inside `operands`.
std::size_t literalString(std::span<const std::uint32_t> operands, std::string& text) {
  const char* bytes = reinterpret_cast<const char*>(operands.data());
  const std::size_t maxBytes = operands.size() * sizeof(std::uint32_t);
  const std::size_t length = strnlen(bytes, maxBytes);
  if (length == maxBytes) return 0;
  text.assign(bytes, length);
  return length / 4 + 1;
}

Status Declarations::parse(std::span<const std::uint32_t> words, SpirvModule& out) {
  if (words.size() < kHeaderWords) {
    return invalidInput("SPIR-V module: expected at least the {}-word header, got {} words", kHeaderWords,
                        words.size());
  }
  if (words[0] != kMagic)
    return invalidInput("SPIR-V module: expected magic 0x07230203, got {:#010x}", words[0]);
  out.version = words[1];
  std::size_t pos = kHeaderWords;
  while (pos < words.size()) {
    const std::optional<spirv::InstructionAt> inst = spirv::instructionAt(words, pos);
    if (!inst) return malformedInstruction(words, pos);
    const std::uint32_t count = inst->wordCount, opcode = inst->opcode;
    if (opcode == kOpFunction) break;  // the declarations end at the first function (§2.4)
    std::span<const std::uint32_t> ops = inst->operands;
    auto need = [&](std::size_t n) -> Status {
      if (ops.size() < n) {
        return invalidInput("SPIR-V module: word {}: expected at least {} operands for opcode {}, got {}",
                            pos, n, opcode, ops.size());
      }
      return {};
    };
    switch (opcode) {
      case kOpCapability:
        OPENVGF_TRY(need(1));
        out.capabilities.push_back(ops[0]);
        break;
      case kOpExtension: {
        std::string text;
        if (literalString(ops, text) == 0) {
          // Display keeps what fits in the words; the name of a truncated extension is still useful.
          text.assign(reinterpret_cast<const char*>(ops.data()), ops.size() * sizeof(std::uint32_t));
        }
        out.extensions.push_back(std::move(text));
        break;
      }
      case kOpModuleProcessed: {
        std::string text;
        if (literalString(ops, text) == 0)
          return invalidInput("SPIR-V module: word {}: OpModuleProcessed string has no terminating nul", pos);
        out.processes.push_back(std::move(text));
        break;
      }
      case kOpEntryPoint: {
        OPENVGF_TRY(need(3));
        RawEntryPoint entry;
        entry.info.executionModel = ops[0];
        entry.info.id = ops[1];
        std::size_t nameWords = literalString(ops.subspan(2), entry.info.name);
        if (nameWords == 0)
          return invalidInput("SPIR-V module: word {}: OpEntryPoint name has no terminating nul", pos);
        auto rest = ops.subspan(2 + nameWords);
        entry.interface.assign(rest.begin(), rest.end());
        entryPoints_.push_back(std::move(entry));
        break;
      }
      case kOpExecutionMode:
      case kOpExecutionModeId:
        OPENVGF_TRY(need(2));
        applyExecutionMode(ops, opcode == kOpExecutionModeId);
        break;
      case kOpDecorate: {
        OPENVGF_TRY(need(2));
        Decorations& d = decorations_[ops[0]];
        const bool literal = ops.size() >= 3;
        switch (ops[1]) {
          case kBlock: d.block = true; break;
          case kBufferBlock: d.bufferBlock = true; break;
          case kNonWritable: d.nonWritable = true; break;
          case kNonReadable: d.nonReadable = true; break;
          case kArrayStride:
            if (literal) d.arrayStride = ops[2];
            break;
          case kBuiltIn:
            if (literal) d.builtIn = ops[2];
            break;
          case kBinding:
            if (literal) d.binding = ops[2];
            break;
          case kDescriptorSet:
            if (literal) d.set = ops[2];
            break;
          default: break;
        }
        break;
      }
      case kOpMemberDecorate: {
        OPENVGF_TRY(need(3));
        MemberDecorations& m = members_[{ops[0], ops[1]}];
        if (ops[2] == kNonWritable) m.nonWritable = true;
        if (ops[2] == kNonReadable) m.nonReadable = true;
        if (ops[2] == kOffset && ops.size() >= 4) m.offset = ops[3];
        break;
      }
      case kOpTypeBool:
      case kOpTypeInt:
      case kOpTypeFloat:
      case kOpTypeVector:
      case kOpTypeMatrix:
      case kOpTypeArray:
      case kOpTypeRuntimeArray:
      case kOpTypeStruct:
      case kOpTypePointer:
        OPENVGF_TRY(need(1));
        types_[ops[0]] = TypeDecl{opcode, std::vector<std::uint32_t>(ops.begin() + 1, ops.end())};
        break;
      case kOpConstant:
      case kOpSpecConstant:
        // Result type, id, value (low word first); the default value of a spec constant is
        // what a pipeline without specialization data uses.
        OPENVGF_TRY(need(3));
        constants_[ops[1]] = ops.size() >= 4 ? (std::uint64_t{ops[3]} << 32 | ops[2]) : ops[2];
        break;
      case kOpTypeCooperativeMatrixKhr: {  // result, component type, scope, rows, columns, use
        OPENVGF_TRY(need(3));
        auto scope = constants_.find(ops[2]);
        if (scope != constants_.end() && scope->second == kSpirvScopeWorkgroup) out.workgroupScopeMatrices = true;
        break;
      }
      case kOpConstantComposite:
      case kOpSpecConstantComposite:
        OPENVGF_TRY(need(2));
        composites_[ops[1]] = std::vector<std::uint32_t>(ops.begin() + 2, ops.end());
        break;
      case kOpVariable:
        OPENVGF_TRY(need(3));
        variables_.push_back({ops[1], ops[0], ops[2]});
        break;
      default: break;
    }
    pos += count;
  }
  return scanBodies(words, pos, out);
}

// Which variables the functions load from, store to or otherwise use. Pointers into a variable
// come from access chains and OpCopyObject; any other use of such a pointer (a function call,
// OpPhi, OpSelect, ...) makes the variable "escaped", and its declared qualifiers decide.
Status Declarations::scanBodies(std::span<const std::uint32_t> words, std::size_t pos, SpirvModule& out) {
  std::unordered_map<std::uint32_t, std::uint32_t> root;  // pointer id -> variable id
  for (const Variable& v : variables_) root[v.id] = v.id;
  auto mark = [&](std::uint32_t pointer, bool read, bool write) {
    auto it = root.find(pointer);
    if (it == root.end()) return;
    Usage& u = usage_[it->second];
    u.used = true;
    u.reads = u.reads || read;
    u.writes = u.writes || write;
  };
  while (pos < words.size()) {
    const std::optional<spirv::InstructionAt> inst = spirv::instructionAt(words, pos);
    if (!inst) return malformedInstruction(words, pos);
    const std::uint32_t count = inst->wordCount, opcode = inst->opcode;
    std::span<const std::uint32_t> ops = inst->operands;
    if (opcode == kOpControlBarrier) {
      auto value = [&](std::size_t k) -> std::optional<std::uint32_t> {
        if (k >= ops.size()) return std::nullopt;
        std::optional<std::uint64_t> v = constantValue(ops[k]);
        if (!v || *v > 0xFFFFFFFFu) return std::nullopt;
        return static_cast<std::uint32_t>(*v);
      };
      out.controlBarriers.push_back({pos, value(0), value(1), value(2)});
    }
    pos += count;
    const PointerUse use = pointerUse(opcode);
    if (use.kind == PointerUse::Derive && ops.size() >= 3) {
      auto it = root.find(ops[2]);
      if (it != root.end()) root[ops[1]] = it->second;
      continue;
    }
    if (use.kind == PointerUse::Access && use.operand < ops.size()) {
      mark(ops[use.operand], use.reads, use.writes);
      if (use.second != PointerUse::kNone && use.second < ops.size()) mark(ops[use.second], true, false);
      continue;
    }
    if (opcode == kOpVariable && ops.size() >= 3 && ops[2] == kStorageFunction) {
      out.privateBytes = satAdd(out.privateBytes, pointeeBytes(ops[0]));
    }
    if (opcode == kOpFunction || opcode == kOpVariable)
      continue;  // result type and storage class are not pointers
    for (std::uint32_t word : ops) {
      auto it = root.find(word);
      if (it != root.end()) usage_[it->second].escaped = usage_[it->second].used = true;
    }
  }
  return {};
}

void Declarations::applyExecutionMode(std::span<const std::uint32_t> ops, bool ids) {
  auto entry = std::find_if(entryPoints_.begin(), entryPoints_.end(),
                            [&](const RawEntryPoint& e) { return e.info.id == ops[0]; });
  // Execution modes follow every OpEntryPoint (§2.4), so an unknown target is ignored here and
  // left to spirv-val.
  if (entry == entryPoints_.end()) return;
  const std::uint32_t mode = ops[1];
  if (!ids && mode == kLocalSize && ops.size() >= 5) {
    entry->info.localSize = {ops[2], ops[3], ops[4]};
  } else if (ids && (mode == kLocalSizeId || mode == kLocalSizeHintId)) {
    entry->info.localSizeId = true;
    if (mode == kLocalSizeId && ops.size() >= 5) localSizeIds_.push_back({ops[0], {ops[2], ops[3], ops[4]}});
  } else if (!ids && mode == kRoundingModeRte && ops.size() >= 3) {
    const std::uint32_t width = ops[2];
    entry->info.roundingModeRteWidths |= width == 16   ? kSpirvWidth16
                                         : width == 32 ? kSpirvWidth32
                                         : width == 64 ? kSpirvWidth64
                                                       : 0;
  }
}

std::optional<std::uint64_t> Declarations::constantValue(std::uint32_t id) const {
  auto it = constants_.find(id);
  if (it == constants_.end()) return std::nullopt;
  return it->second;
}

std::uint64_t Declarations::memberOffset(const TypeDecl& st, std::uint32_t structId, std::size_t member,
                                         int depth) const {
  // A member without an Offset decoration (Workgroup blocks) follows the one before it: packed
  // in order, a lower bound.
  std::uint64_t at = 0;
  for (std::size_t m = 0; m <= member && m < st.operands.size(); ++m) {
    at = memberStart(structId, m, at);
    if (m == member) break;
    at = satAdd(at, sizeOf(st.operands[m], depth + 1));
  }
  return at;
}

// Where member `member` starts: its Offset decoration, else `follows` (the end of the one before).
std::uint64_t Declarations::memberStart(std::uint32_t structId, std::size_t member,
                                        std::uint64_t follows) const {
  auto it = members_.find({structId, static_cast<std::uint32_t>(member)});
  return it != members_.end() && it->second.offset ? *it->second.offset : follows;
}

SpirvBuiltinInput Declarations::builtinInput(const Variable& v, std::uint32_t builtIn) const {
  SpirvBuiltinInput b{.id = v.id, .builtIn = builtIn};
  const TypeDecl* pointer = type(v.pointerType);
  const TypeDecl* t =
      pointer != nullptr && pointer->operands.size() >= 2 ? type(pointer->operands[1]) : nullptr;
  std::uint32_t components = 1;
  if (t != nullptr && t->opcode == kOpTypeVector && t->operands.size() >= 2) {
    components = t->operands[1];
    t = type(t->operands[0]);
  }
  if (t == nullptr || t->operands.empty() || (t->opcode != kOpTypeInt && t->opcode != kOpTypeFloat)) return b;
  b.components = components;
  b.bits = t->operands[0];
  b.integer = t->opcode == kOpTypeInt;
  return b;
}

std::uint64_t Declarations::pointeeBytes(std::uint32_t pointerType) const {
  const TypeDecl* pointer = type(pointerType);
  return pointer != nullptr && pointer->operands.size() >= 2 ? sizeOf(pointer->operands[1], 0) : 0;
}

std::uint64_t Declarations::sizeOf(std::uint32_t id, int depth) const {
  if (auto it = sizes_.find(id); it != sizes_.end()) return it->second;
  const TypeDecl* t = type(id);
  if (t == nullptr || depth > kMaxTypeDepth || !sizing_.insert(id).second) return 0;
  const std::uint64_t bytes = computeSize(*t, id, depth);
  sizing_.erase(id);
  sizes_.emplace(id, bytes);
  return bytes;
}

std::uint64_t Declarations::computeSize(const TypeDecl& t, std::uint32_t id, int depth) const {
  const auto& o = t.operands;
  switch (t.opcode) {
    case kOpTypeBool: return 4;
    case kOpTypeInt:
    case kOpTypeFloat: return o.empty() ? 0 : o[0] / 8;
    case kOpTypeVector:
    case kOpTypeMatrix: return o.size() < 2 ? 0 : satMul(o[1], sizeOf(o[0], depth + 1));
    case kOpTypeArray: {
      if (o.size() < 2) return 0;
      const Decorations* d = decorations(id);
      std::uint64_t stride = d && d->arrayStride ? *d->arrayStride : sizeOf(o[0], depth + 1);
      return satMul(constantValue(o[1]).value_or(0), stride);
    }
    case kOpTypeStruct: {
      // One pass: a member without an Offset decoration follows the one before it (memberOffset).
      std::uint64_t at = 0, end = 0;
      for (std::size_t m = 0; m < o.size(); ++m) {
        at = satAdd(memberStart(id, m, at), sizeOf(o[m], depth + 1));
        end = std::max(end, at);
      }
      return end;
    }
    case kOpTypePointer: return 8;
    default: return 0;  // runtime arrays, opaque types
  }
}

SpirvDescriptor Declarations::describe(const Variable& v) const {
  SpirvDescriptor d;
  d.id = v.id;
  d.storageClass = v.storageClass;
  if (auto it = usage_.find(v.id); it != usage_.end()) {
    d.used = it->second.used;
    d.escaped = it->second.escaped;
    d.loads = it->second.reads;
    d.stores = it->second.writes;
  }
  if (const Decorations* dec = decorations(v.id)) {
    d.set = dec->set.value_or(0);
    d.binding = dec->binding.value_or(0);
    d.hasBinding = dec->set && dec->binding;
    d.nonWritable = dec->nonWritable;
    d.nonReadable = dec->nonReadable;
  }
  const TypeDecl* pointer = type(v.pointerType);
  if (pointer == nullptr || pointer->opcode != kOpTypePointer || pointer->operands.size() < 2) return d;
  std::uint32_t blockId = pointer->operands[1];
  const TypeDecl* block = type(blockId);
  if (block != nullptr && block->opcode == kOpTypeArray && block->operands.size() >= 2) {
    d.descriptorCount = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(constantValue(block->operands[1]).value_or(0), 0xFFFFFFFFu));
    blockId = block->operands[0];
    block = type(blockId);
  } else if (block != nullptr && block->opcode == kOpTypeRuntimeArray && !block->operands.empty()) {
    d.descriptorCount = 0;
    blockId = block->operands[0];
    block = type(blockId);
  }
  if (block == nullptr || block->opcode != kOpTypeStruct) return d;
  const Decorations* blockDec = decorations(blockId);
  const bool isBlock = blockDec && blockDec->block, isBufferBlock = blockDec && blockDec->bufferBlock;
  if ((v.storageClass == static_cast<std::uint32_t>(SpirvStorageClass::StorageBuffer) &&
       (isBlock || isBufferBlock)) ||
      (v.storageClass == static_cast<std::uint32_t>(SpirvStorageClass::Uniform) && isBufferBlock)) {
    d.kind = SpirvDescriptorKind::StorageBuffer;
  } else if (v.storageClass == static_cast<std::uint32_t>(SpirvStorageClass::Uniform) && isBlock) {
    d.kind = SpirvDescriptorKind::UniformBuffer;
  }
  const auto& members = block->operands;
  if (!members.empty()) {
    bool allNonWritable = true, allNonReadable = true;
    for (std::size_t m = 0; m < members.size(); ++m) {
      auto it = members_.find({blockId, static_cast<std::uint32_t>(m)});
      allNonWritable = allNonWritable && it != members_.end() && it->second.nonWritable;
      allNonReadable = allNonReadable && it != members_.end() && it->second.nonReadable;
    }
    d.nonWritable = d.nonWritable || allNonWritable;
    d.nonReadable = d.nonReadable || allNonReadable;
    const std::uint32_t lastId = members.back();
    const TypeDecl* last = type(lastId);
    d.staticBytes = sizeOf(blockId, 0);
    if (last != nullptr && (last->opcode == kOpTypeRuntimeArray || last->opcode == kOpTypeArray) &&
        !last->operands.empty()) {
      const Decorations* lastDec = decorations(lastId);
      std::uint64_t stride =
          lastDec && lastDec->arrayStride ? *lastDec->arrayStride : sizeOf(last->operands[0], 1);
      d.elementStride = static_cast<std::uint32_t>(std::min<std::uint64_t>(stride, 0xFFFFFFFFu));
      std::uint32_t componentId = last->operands[0];
      if (const TypeDecl* element = type(componentId);
          element != nullptr && element->opcode == kOpTypeVector && !element->operands.empty()) {
        componentId = element->operands[0];
      }
      if (const TypeDecl* scalar = type(componentId); scalar != nullptr && !scalar->operands.empty()) {
        if (scalar->opcode == kOpTypeFloat) {
          d.componentKind = SpirvScalarKind::Float;
          d.componentBytes = scalar->operands[0] / 8;
        } else if (scalar->opcode == kOpTypeInt && scalar->operands.size() >= 2) {
          d.componentKind =
              scalar->operands[1] != 0 ? SpirvScalarKind::SignedInt : SpirvScalarKind::UnsignedInt;
          d.componentBytes = scalar->operands[0] / 8;
        }
      }
      if (last->opcode == kOpTypeRuntimeArray) {
        d.runtimeArray = true;
        d.staticBytes = memberOffset(*block, blockId, members.size() - 1, 0);
      }
    }
  }
  return d;
}

void Declarations::finish(SpirvModule& out) {
  // Module-wide facts of the global variables (scanBodies added the Function ones' bytes).
  for (const Variable& v : variables_) {
    if (v.storageClass == kStoragePrivate)
      out.privateBytes = satAdd(out.privateBytes, pointeeBytes(v.pointerType));
    const Decorations* d = decorations(v.id);
    if (v.storageClass == kStorageInput && d != nullptr && d->builtIn) {
      out.builtinInputs.push_back(builtinInput(v, *d->builtIn));
    }
  }
  // A constant composite decorated BuiltIn WorkgroupSize overrides every LocalSize (§3.21).
  std::optional<std::array<std::uint32_t, 3>> builtinSize;
  for (const auto& [id, parts] : composites_) {
    const Decorations* d = decorations(id);
    if (d == nullptr || d->builtIn != kBuiltInWorkgroupSize || parts.size() != 3) continue;
    std::array<std::uint32_t, 3> size{};
    for (int k = 0; k < 3; ++k) size[k] = static_cast<std::uint32_t>(constantValue(parts[k]).value_or(0));
    builtinSize = size;
  }
  // SPIR-V 1.4 and later list every global variable an entry point uses in its interface;
  // before that only Input/Output ones, so every descriptor variable of the module counts.
  const bool fullInterface = out.version >= 0x00010400u;
  for (RawEntryPoint& raw : entryPoints_) {
    SpirvEntryPoint& e = raw.info;
    const std::unordered_set<std::uint32_t> interface(raw.interface.begin(), raw.interface.end());
    for (const LocalSizeIds& l : localSizeIds_) {
      if (l.entry != e.id) continue;
      for (int k = 0; k < 3; ++k)
        e.localSize[k] = static_cast<std::uint32_t>(constantValue(l.ids[k]).value_or(0));
    }
    if (builtinSize) e.localSize = *builtinSize;
    for (const Variable& v : variables_) {
      if (fullInterface && !interface.contains(v.id)) continue;
      if (v.storageClass == kStorageInput || v.storageClass == kStorageOutput ||
          v.storageClass == kStoragePrivate || v.storageClass == kStorageFunction) {
        continue;
      }
      if (v.storageClass == static_cast<std::uint32_t>(SpirvStorageClass::Workgroup)) {
        e.workgroupVariables = true;
        e.workgroupBytes = satAdd(e.workgroupBytes, pointeeBytes(v.pointerType));
        continue;
      }
      if (v.storageClass == static_cast<std::uint32_t>(SpirvStorageClass::PushConstant)) {
        e.pushConstants = true;
        continue;
      }
      const Decorations* d = decorations(v.id);
      const bool decorated = d != nullptr && (d->set || d->binding);
      if (decorated || v.storageClass == static_cast<std::uint32_t>(SpirvStorageClass::StorageBuffer) ||
          v.storageClass == static_cast<std::uint32_t>(SpirvStorageClass::Uniform) ||
          v.storageClass == static_cast<std::uint32_t>(SpirvStorageClass::UniformConstant)) {
        e.descriptors.push_back(describe(v));
      }
    }
    out.entryPoints.push_back(std::move(e));
  }
}

// Capability numbers of SPIR-V spec §3.31 that compute modules commonly declare, and those of
// Arm's graph extensions (tosa/spirv/grammar/core-arm-excerpt.json) and the bf16/fp8 extensions.
const std::map<std::uint32_t, std::string_view>& capabilityNames() {
  static const std::map<std::uint32_t, std::string_view> kNames = {
      {0, "Matrix"},
      {1, "Shader"},
      {4, "Addresses"},
      {5, "Linkage"},
      {6, "Kernel"},
      {8, "Float16Buffer"},
      {9, "Float16"},
      {10, "Float64"},
      {11, "Int64"},
      {12, "Int64Atomics"},
      {22, "Int16"},
      {39, "Int8"},
      {61, "GroupNonUniform"},
      {62, "GroupNonUniformVote"},
      {63, "GroupNonUniformArithmetic"},
      {64, "GroupNonUniformBallot"},
      {65, "GroupNonUniformShuffle"},
      {66, "GroupNonUniformShuffleRelative"},
      {67, "GroupNonUniformClustered"},
      {68, "GroupNonUniformQuad"},
      {4174, "TensorsARM"},  // SPV_ARM_tensors and SPV_ARM_graph: Arm's GRAPH segments
      {4175, "StorageTensorArrayDynamicIndexingARM"},
      {4176, "StorageTensorArrayNonUniformIndexingARM"},
      {4191, "GraphARM"},
      {4212, "Float8EXT"},
      {4213, "Float8CooperativeMatrixEXT"},
      {4433, "StorageBuffer16BitAccess"},
      {4434, "UniformAndStorageBuffer16BitAccess"},
      {4435, "StoragePushConstant16"},
      {4436, "StorageInputOutput16"},
      {4448, "StorageBuffer8BitAccess"},
      {4449, "UniformAndStorageBuffer8BitAccess"},
      {4450, "StoragePushConstant8"},
      {4464, "DenormPreserve"},
      {4465, "DenormFlushToZero"},
      {4466, "SignedZeroInfNanPreserve"},
      {4467, "RoundingModeRTE"},
      {4468, "RoundingModeRTZ"},
      {5116, "BFloat16TypeKHR"},
      {5117, "BFloat16DotProductKHR"},
      {5118, "BFloat16CooperativeMatrixKHR"},
      {5345, "VulkanMemoryModel"},
      {5347, "PhysicalStorageBufferAddresses"},
      {5357, "CooperativeMatrixNV"},
      {6016, "DotProductInputAll"},
      {6017, "DotProductInput4x8Bit"},
      {6018, "DotProductInput4x8BitPacked"},
      {6019, "DotProduct"},
      {6022, "CooperativeMatrixKHR"},
      {6024, "ReplicatedCompositesEXT"}};
  return kNames;
}

}  // namespace

std::string spirvCapabilityName(std::uint32_t capability) {
  auto it = capabilityNames().find(capability);
  return it != capabilityNames().end() ? std::string(it->second) : fmt::format("Capability{}", capability);
}

const SpirvEntryPoint* SpirvModule::findEntryPoint(std::string_view name) const {
  for (const SpirvEntryPoint& e : entryPoints) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

Result<SpirvModule> reflectSpirv(std::span<const std::uint32_t> module) {
  SpirvModule out;
  Declarations declarations;
  OPENVGF_TRY(declarations.parse(module, out));
  declarations.finish(out);
  return out;
}

namespace {

constexpr std::string_view kBindingRecord = "openvgf.binding ";

// Whether an opcode belongs to SPIR-V's logical layout sections 1-7 (§2.4: capabilities up to
// debug instructions), which must all come before the annotations and types.
bool beforeAnnotations(std::uint32_t opcode) {
  switch (opcode) {
    case 2: case 3: case 4: case 5: case 6: case 7:  // OpSourceContinued .. OpString
    case kOpExtension: case 11: case 14: case kOpEntryPoint:  // OpExtInstImport, OpMemoryModel
    case kOpExecutionMode: case kOpCapability: case kOpExecutionModeId: case kOpModuleProcessed: return true;
    default: return false;
  }
}

// `module` with one OpModuleProcessed per text, after its other instructions of sections 1-7.
std::vector<std::uint32_t> withProcesses(std::span<const std::uint32_t> module, std::span<const std::string> texts) {
  std::size_t at = std::min<std::size_t>(kHeaderWords, module.size());
  while (at < module.size()) {
    const std::optional<spirv::InstructionAt> inst = spirv::instructionAt(module, at);
    if (!inst || !beforeAnnotations(inst->opcode)) break;
    at += inst->wordCount;
  }
  std::vector<std::uint32_t> out(module.begin(), module.begin() + static_cast<std::ptrdiff_t>(at));
  for (const std::string& text : texts) {
    const std::size_t words = text.size() / 4 + 1;  // with the terminating nul
    out.push_back(spirv::firstWord(words + 1, kOpModuleProcessed));
    const std::size_t start = out.size();
    out.resize(start + words, 0);
    std::memcpy(out.data() + start, text.data(), text.size());
  }
  out.insert(out.end(), module.begin() + static_cast<std::ptrdiff_t>(at), module.end());
  return out;
}

}  // namespace

std::vector<std::uint32_t> recordProcess(std::span<const std::uint32_t> module, const std::string& text) {
  return withProcesses(module, std::span<const std::string>(&text, 1));
}

std::vector<std::uint32_t> recordBindingExtents(std::span<const std::uint32_t> module,
                                                std::span<const SpirvBindingExtent> extents) {
  std::vector<std::string> texts;
  for (const SpirvBindingExtent& e : extents) {
    texts.push_back(fmt::format("{}set={} binding={} vk_format={} elements={}", kBindingRecord, e.set, e.binding,
                                e.vkFormat, e.elements));
  }
  return withProcesses(module, texts);
}

Result<std::vector<SpirvBindingExtent>> bindingExtents(const SpirvModule& module) {
  std::vector<SpirvBindingExtent> extents;
  for (const std::string& text : module.processes) {
    if (!text.starts_with(kBindingRecord)) continue;
    SpirvBindingExtent e;
    unsigned long long elements = 0;
    int consumed = 0;
    const int fields = std::sscanf(text.c_str() + kBindingRecord.size(), "set=%u binding=%u vk_format=%u elements=%llu%n",
                                   &e.set, &e.binding, &e.vkFormat, &elements, &consumed);
    if (fields != 4 || kBindingRecord.size() + static_cast<std::size_t>(consumed) != text.size()) {
      return invalidInput("OpModuleProcessed \"{}\": expected \"{}set=S binding=B vk_format=F elements=N\"", text,
                          kBindingRecord);
    }
    e.elements = elements;
    for (const SpirvBindingExtent& other : extents) {
      if (other.set == e.set && other.binding == e.binding) {
        return invalidInput("OpModuleProcessed \"{}\": expected one record per binding, got set {} binding {} twice",
                            text, e.set, e.binding);
      }
    }
    extents.push_back(e);
  }
  return extents;
}

namespace {

constexpr std::string_view kBatchGridRecord = "openvgf.batch-grid ";
constexpr std::string_view kAxisNames = "xyz";

}  // namespace

std::optional<std::uint64_t> SpirvBatchGrid::firstGroupOf(std::uint64_t image) const {
  if (image >= images) return groups();
  if (unitsPerGroup == 0 || (image * unitsPerImage) % unitsPerGroup != 0) return std::nullopt;
  return image * unitsPerImage / unitsPerGroup;
}

std::vector<std::uint32_t> recordBatchGrids(std::span<const std::uint32_t> module,
                                            std::span<const SpirvBatchGrid> grids) {
  std::vector<std::string> texts;
  for (const SpirvBatchGrid& g : grids) {
    texts.push_back(fmt::format("{}dispatch={} axis={} images={} per-image={} per-group={} bindings={}",
                                kBatchGridRecord, fmt::join(g.dispatch, ","),
                                kAxisNames[std::min<std::uint32_t>(g.axis, 2)], g.images, g.unitsPerImage,
                                g.unitsPerGroup, fmt::join(g.bindings, ",")));
  }
  return withProcesses(module, texts);
}

namespace {

// One record's text after the prefix, or nullopt when it does not follow the grammar.
std::optional<SpirvBatchGrid> parseBatchGrid(std::string_view text) {
  SpirvBatchGrid grid;
  char axis = 0;
  unsigned long long images = 0, perImage = 0, perGroup = 0;
  int consumed = 0;
  const std::string copy(text);
  const int fields = std::sscanf(copy.c_str(), "dispatch=%u,%u,%u axis=%c images=%llu per-image=%llu per-group=%llu bindings=%n",
                                 &grid.dispatch[0], &grid.dispatch[1], &grid.dispatch[2], &axis, &images, &perImage,
                                 &perGroup, &consumed);
  const std::size_t axisIndex = kAxisNames.find(axis);
  constexpr unsigned long long kMax = std::uint64_t{1} << 32;
  if (fields != 7 || consumed == 0 || axisIndex == std::string_view::npos || images == 0 || perImage == 0 ||
      perGroup == 0 || images > kMax || perImage > kMax || perGroup > kMax) {
    return std::nullopt;
  }
  grid.axis = static_cast<std::uint32_t>(axisIndex);
  grid.images = images;
  grid.unitsPerImage = perImage;
  grid.unitsPerGroup = perGroup;
  if (grid.groups() != grid.dispatch[grid.axis]) return std::nullopt;
  std::string_view list = text.substr(static_cast<std::size_t>(consumed));
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    if (item.empty() || item.size() > 6 || item.find_first_not_of("0123456789") != std::string_view::npos) {
      return std::nullopt;
    }
    std::uint32_t binding = 0;
    for (char c : item) binding = binding * 10 + static_cast<std::uint32_t>(c - '0');
    if (!grid.bindings.empty() && binding <= grid.bindings.back()) return std::nullopt;
    grid.bindings.push_back(binding);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return grid;
}

}  // namespace

Result<std::vector<SpirvBatchGrid>> batchGrids(const SpirvModule& module) {
  std::vector<SpirvBatchGrid> grids;
  for (const std::string& text : module.processes) {
    if (!text.starts_with(kBatchGridRecord)) continue;
    std::optional<SpirvBatchGrid> grid = parseBatchGrid(std::string_view(text).substr(kBatchGridRecord.size()));
    if (!grid) {
      return invalidInput("OpModuleProcessed \"{}\": expected \"{}dispatch=X,Y,Z axis=x|y|z images=N per-image=R "
                          "per-group=U bindings=B,...\" with N, R, U > 0, ascending bindings and as many groups "
                          "along the axis as the dispatch has",
                          text, kBatchGridRecord);
    }
    for (const SpirvBatchGrid& other : grids) {
      if (other.dispatch == grid->dispatch) {
        return invalidInput("OpModuleProcessed \"{}\": expected one {}record per dispatch, got {} twice", text,
                            kBatchGridRecord, fmt::join(grid->dispatch, ","));
      }
    }
    grids.push_back(std::move(*grid));
  }
  return grids;
}

SpirvRequirements spirvRequirements(std::span<const std::uint32_t> module) {
  SpirvModule partial;
  Declarations declarations;
  (void)declarations.parse(module, partial);  // what was read before any damage is still shown
  SpirvRequirements out;
  for (std::uint32_t c : partial.capabilities) out.capabilities.push_back(spirvCapabilityName(c));
  out.extensions = std::move(partial.extensions);
  return out;
}

}  // namespace openvgf::vgf
