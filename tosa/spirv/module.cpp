// SPDX-License-Identifier: Apache-2.0
// parseModule(): one pass over the instruction stream (see module.h).
#include "tosa/spirv/module.h"

#include <cctype>
#include <unordered_set>

#include <fmt/format.h>

#include "tosa/spirv/grammar.h"

namespace openvgf::tosa::spirv {

Error Module::error(std::size_t offset, std::string_view what, std::string_view text) const {
  return Error(ErrorKind::InvalidInput, fmt::format("{}: word {} {}: {}", source, offset, what, text));
}

const TypeInfo* Module::type(std::uint32_t id) const {
  auto it = types.find(id);
  return it == types.end() ? nullptr : &it->second;
}

const ConstantInfo* Module::constant(std::uint32_t id) const {
  auto it = constants.find(id);
  return it == constants.end() ? nullptr : &it->second;
}

std::optional<std::int64_t> Module::intConstant(std::uint32_t id, bool isSigned) const {
  const ConstantInfo* c = constant(id);
  if (c == nullptr || c->kind != ConstantInfo::Kind::Scalar) return std::nullopt;
  const TypeInfo* t = type(c->type);
  if (t == nullptr || t->kind != TypeInfo::Kind::Int) return std::nullopt;
  std::uint64_t bits = c->bits;
  if (t->width < 64) {
    const std::uint64_t mask = (std::uint64_t{1} << t->width) - 1;
    bits &= mask;
    if (isSigned && (bits >> (t->width - 1)) != 0) bits |= ~mask;
  }
  return static_cast<std::int64_t>(bits);
}

namespace {

/// The parser's state over one module; each handle* method consumes one instruction.
class Parser {
 public:
  explicit Parser(Module& m) : m_(m) {}

  Status instruction(const Instruction& inst);
  Status finish();

 private:
  template <typename... Args>
  Unexpected fail(const Instruction& inst, fmt::format_string<Args...> format, Args&&... args) const {
    return Unexpected(
        Error(ErrorKind::InvalidInput, fmt::format("word {} {}: {}", inst.offset, opcodeName(inst.opcode),
                                                   fmt::format(format, std::forward<Args>(args)...))));
  }
  template <typename... Args>
  Unexpected unsupportedHere(const Instruction& inst, fmt::format_string<Args...> format, Args&&... args) const {
    return Unexpected(
        Error(ErrorKind::Unsupported, fmt::format("word {} {}: {}", inst.offset, opcodeName(inst.opcode),
                                                  fmt::format(format, std::forward<Args>(args)...))));
  }

  Status operands(const Instruction& inst, std::size_t atLeast, std::size_t atMost) const;
  Status define(const Instruction& inst, std::uint32_t id);
  Status isDefined(const Instruction& inst, std::uint32_t id, std::string_view what) const;
  Result<const TypeInfo*> typeOf(const Instruction& inst, std::uint32_t id, std::string_view what) const;
  Status global(const Instruction& inst) const;

  Status type(const Instruction& inst);
  Status tensorType(const Instruction& inst);
  Status constant(const Instruction& inst);
  Status composite(const Instruction& inst);
  Status graphInstruction(const Instruction& inst);
  Status annotation(const Instruction& inst);

  Module& m_;
  std::unordered_set<std::uint32_t> defined_;
  GraphDefinition* graph_ = nullptr;  // the graph being defined, if any
  std::unordered_map<std::uint32_t, std::size_t> graphConstantIds_;  // GraphConstantID -> word offset
};

Status Parser::operands(const Instruction& inst, std::size_t atLeast, std::size_t atMost) const {
  const std::size_t n = inst.operands.size();
  if (n < atLeast || n > atMost) {
    if (atLeast == atMost) return fail(inst, "expected {} operand words, got {}", atLeast, n);
    if (atMost == SIZE_MAX) return fail(inst, "expected at least {} operand words, got {}", atLeast, n);
    return fail(inst, "expected {} to {} operand words, got {}", atLeast, atMost, n);
  }
  return {};
}

Status Parser::define(const Instruction& inst, std::uint32_t id) {
  if (id == 0 || id >= m_.header.bound) {
    return fail(inst, "result <id> {}: expected 1 <= id < bound {}", id, m_.header.bound);
  }
  if (!defined_.insert(id).second) return fail(inst, "result <id> {}: expected an id defined once, got a redefinition", id);
  return {};
}

Status Parser::isDefined(const Instruction& inst, std::uint32_t id, std::string_view what) const {
  if (defined_.count(id) == 0) return fail(inst, "{} <id> {}: expected an id defined before this instruction", what, id);
  return {};
}

Result<const TypeInfo*> Parser::typeOf(const Instruction& inst, std::uint32_t id, std::string_view what) const {
  const TypeInfo* t = m_.type(id);
  if (t == nullptr) return fail(inst, "{} <id> {}: expected a type defined before this instruction", what, id);
  return t;
}

Status Parser::global(const Instruction& inst) const {
  if (graph_ != nullptr) return fail(inst, "expected a graph body instruction before OpGraphEndARM");
  return {};
}

Status Parser::instruction(const Instruction& inst) {
  const auto& ops = inst.operands;
  switch (inst.opcode) {
    case kOpNop:
    case kOpSourceContinued:
    case kOpSourceExtension:
    case kOpLine:
    case kOpNoLine:
    case kOpModuleProcessed:
    case kOpMemberName:
    case kOpMemberDecorate:
    case kOpDecorateString:
    case kOpSource: return {};
    case kOpString: {
      OPENVGF_TRY(operands(inst, 2, SIZE_MAX));
      return define(inst, ops[0]);
    }
    case kOpCapability:
      OPENVGF_TRY(operands(inst, 1, 1));
      m_.capabilities.push_back(ops[0]);
      return {};
    case kOpExtension: {
      std::size_t at = 0;
      auto text = literalString(ops, at);
      if (!text) return fail(inst, "{}", text.error().message());
      m_.extensions.push_back(std::move(*text));
      return {};
    }
    case kOpExtInstImport: {
      OPENVGF_TRY(operands(inst, 2, SIZE_MAX));
      OPENVGF_TRY(define(inst, ops[0]));
      std::size_t at = 1;
      auto text = literalString(ops, at);
      if (!text) return fail(inst, "{}", text.error().message());
      m_.extInstImports[ops[0]] = std::move(*text);
      return {};
    }
    case kOpMemoryModel: return operands(inst, 2, 2);
    case kOpEntryPoint:
    case kOpExecutionMode:
      return unsupportedHere(inst, "expected a graph module (OpGraphEntryPointARM), got a shader entry point");
    case kOpName: {
      OPENVGF_TRY(operands(inst, 2, SIZE_MAX));
      std::size_t at = 1;
      auto text = literalString(ops, at);
      if (!text) return fail(inst, "{}", text.error().message());
      m_.names[ops[0]] = std::move(*text);
      return {};
    }
    case kOpDecorate:
    case kOpDecorationGroup: return annotation(inst);
    case kOpTypeVoid:
    case kOpTypeBool:
    case kOpTypeInt:
    case kOpTypeFloat:
    case kOpTypeArray:
    case kOpTypeStruct:
    case kOpTypePointer:
    case kOpTypeGraphARM: return type(inst);
    case kOpTypeTensorARM: return tensorType(inst);
    case kOpConstantTrue:
    case kOpConstantFalse:
    case kOpConstant:
    case kOpConstantNull:
    case kOpGraphConstantARM: return constant(inst);
    case kOpConstantComposite:
    case kOpConstantCompositeReplicateEXT: return composite(inst);
    case kOpSpecConstantTrue:
    case kOpSpecConstantFalse:
    case kOpSpecConstant:
    case kOpSpecConstantComposite:
    case kOpSpecConstantOp:
    case kOpSpecConstantCompositeReplicateEXT:
      return unsupportedHere(inst, "expected constants, got a specialization constant (openvgf lowers graphs ahead of time)");
    case kOpVariable: {
      OPENVGF_TRY(global(inst));
      OPENVGF_TRY(operands(inst, 3, 4));
      OPENVGF_ASSIGN_OR_RETURN(const TypeInfo* t, typeOf(inst, ops[0], "Result Type"));
      if (t->kind != TypeInfo::Kind::Pointer) return fail(inst, "Result Type <id> {}: expected an OpTypePointer", ops[0]);
      OPENVGF_TRY(define(inst, ops[1]));
      m_.variables[ops[1]] = VariableInfo{ops[0], ops[2], inst.offset};
      return {};
    }
    case kOpGraphEntryPointARM: {
      OPENVGF_TRY(global(inst));
      OPENVGF_TRY(operands(inst, 2, SIZE_MAX));
      GraphEntryPoint entry;
      entry.graph = ops[0];
      entry.offset = inst.offset;
      std::size_t at = 1;
      auto name = literalString(ops, at);
      if (!name) return fail(inst, "Name: {}", name.error().message());
      entry.name = std::move(*name);
      entry.interface.assign(ops.begin() + static_cast<std::ptrdiff_t>(at), ops.end());
      m_.entryPoints.push_back(std::move(entry));
      return {};
    }
    case kOpGraphARM:
    case kOpGraphInputARM:
    case kOpExtInst:
    case kOpCompositeExtract:
    case kOpGraphSetOutputARM:
    case kOpGraphEndARM: return graphInstruction(inst);
    default: break;
  }
  const std::string name = opcodeName(inst.opcode);
  if (name.starts_with("Op") && name.size() > 2 && !std::isdigit(static_cast<unsigned char>(name[2]))) {
    return unsupportedHere(inst, "expected an instruction of a TOSA graph module");
  }
  return fail(inst, "expected a known opcode, got {}", inst.opcode);
}

Status Parser::annotation(const Instruction& inst) {
  const auto& ops = inst.operands;
  if (inst.opcode == kOpDecorationGroup) {
    OPENVGF_TRY(operands(inst, 1, 1));
    return define(inst, ops[0]);
  }
  OPENVGF_TRY(operands(inst, 2, SIZE_MAX));
  if (ops[1] == kDecorationBinding || ops[1] == kDecorationDescriptorSet) {
    OPENVGF_TRY(operands(inst, 3, 3));
    (ops[1] == kDecorationBinding ? m_.bindings : m_.descriptorSets)[ops[0]] = ops[2];
  }
  return {};
}

Status Parser::type(const Instruction& inst) {
  OPENVGF_TRY(global(inst));
  const auto& ops = inst.operands;
  OPENVGF_TRY(operands(inst, 1, SIZE_MAX));
  TypeInfo t;
  t.offset = inst.offset;
  switch (inst.opcode) {
    case kOpTypeVoid: OPENVGF_TRY(operands(inst, 1, 1)); t.kind = TypeInfo::Kind::Void; break;
    case kOpTypeBool: OPENVGF_TRY(operands(inst, 1, 1)); t.kind = TypeInfo::Kind::Bool; break;
    case kOpTypeInt:
      OPENVGF_TRY(operands(inst, 3, 3));
      if (ops[1] != 8 && ops[1] != 16 && ops[1] != 32 && ops[1] != 64) {
        return fail(inst, "Width: expected 8, 16, 32 or 64, got {}", ops[1]);
      }
      t.kind = TypeInfo::Kind::Int;
      t.width = ops[1];
      break;
    case kOpTypeFloat:
      OPENVGF_TRY(operands(inst, 2, 3));
      if (ops[1] != 8 && ops[1] != 16 && ops[1] != 32 && ops[1] != 64) {
        return fail(inst, "Width: expected 8, 16, 32 or 64, got {}", ops[1]);
      }
      t.kind = TypeInfo::Kind::Float;
      t.width = ops[1];
      if (ops.size() == 3) t.encoding = ops[2];
      break;
    case kOpTypeArray: {
      OPENVGF_TRY(operands(inst, 3, 3));
      OPENVGF_TRY(typeOf(inst, ops[1], "Element Type"));
      std::optional<std::int64_t> length = m_.intConstant(ops[2]);
      if (!length || *length < 1) return fail(inst, "Length <id> {}: expected an integer constant >= 1", ops[2]);
      t.kind = TypeInfo::Kind::Array;
      t.element = ops[1];
      t.length = static_cast<std::uint64_t>(*length);
      break;
    }
    case kOpTypeStruct:
      for (std::size_t i = 1; i < ops.size(); ++i) OPENVGF_TRY(typeOf(inst, ops[i], fmt::format("Member {}", i - 1)));
      t.kind = TypeInfo::Kind::Struct;
      t.members.assign(ops.begin() + 1, ops.end());
      break;
    case kOpTypePointer:
      OPENVGF_TRY(operands(inst, 3, 3));
      OPENVGF_TRY(typeOf(inst, ops[2], "Type"));
      t.kind = TypeInfo::Kind::Pointer;
      t.storageClass = ops[1];
      t.element = ops[2];
      break;
    case kOpTypeGraphARM:
      OPENVGF_TRY(operands(inst, 3, SIZE_MAX));
      if (ops[1] > ops.size() - 3) {
        return fail(inst, "NumInputs: expected at most {} (one type per input and at least one output), got {}",
                    ops.size() - 3, ops[1]);
      }
      for (std::size_t i = 2; i < ops.size(); ++i) OPENVGF_TRY(typeOf(inst, ops[i], fmt::format("InOut {} Type", i - 2)));
      t.kind = TypeInfo::Kind::Graph;
      t.numInputs = ops[1];
      t.members.assign(ops.begin() + 2, ops.end());
      break;
    default: break;
  }
  OPENVGF_TRY(define(inst, ops[0]));
  m_.types[ops[0]] = std::move(t);
  return {};
}

Status Parser::tensorType(const Instruction& inst) {
  OPENVGF_TRY(global(inst));
  const auto& ops = inst.operands;
  OPENVGF_TRY(operands(inst, 2, 4));
  OPENVGF_ASSIGN_OR_RETURN(const TypeInfo* element, typeOf(inst, ops[1], "Element Type"));
  if (element->kind != TypeInfo::Kind::Bool && element->kind != TypeInfo::Kind::Int &&
      element->kind != TypeInfo::Kind::Float) {
    return fail(inst, "Element Type <id> {}: expected a scalar type", ops[1]);
  }
  TypeInfo t;
  t.kind = TypeInfo::Kind::Tensor;
  t.offset = inst.offset;
  t.element = ops[1];
  if (ops.size() >= 3) {
    std::optional<std::int64_t> rank = m_.intConstant(ops[2]);
    if (!rank || *rank > 6) return fail(inst, "Rank <id> {}: expected an integer constant in [0, 6]", ops[2]);
    t.rank = static_cast<std::uint32_t>(*rank);
  }
  if (ops.size() == 4) {
    const ConstantInfo* shape = m_.constant(ops[3]);
    const TypeInfo* shapeType = shape != nullptr ? m_.type(shape->type) : nullptr;
    if (shape == nullptr || shape->kind != ConstantInfo::Kind::Composite || shapeType == nullptr ||
        shapeType->kind != TypeInfo::Kind::Array || shape->constituents.size() != *t.rank) {
      return fail(inst, "Shape <id> {}: expected a constant array of {} integers (the rank)", ops[3], *t.rank);
    }
    std::vector<std::int64_t> dims;
    for (std::uint32_t c : shape->constituents) {
      std::optional<std::int64_t> d = m_.intConstant(c);
      if (!d || *d < 1) return fail(inst, "Shape <id> {}: expected integer dimensions >= 1", ops[3]);
      dims.push_back(*d);
    }
    t.shape = std::move(dims);
  }
  OPENVGF_TRY(define(inst, ops[0]));
  m_.types[ops[0]] = std::move(t);
  return {};
}

Status Parser::constant(const Instruction& inst) {
  OPENVGF_TRY(global(inst));
  const auto& ops = inst.operands;
  OPENVGF_TRY(operands(inst, 2, SIZE_MAX));
  OPENVGF_ASSIGN_OR_RETURN(const TypeInfo* t, typeOf(inst, ops[0], "Result Type"));
  ConstantInfo c;
  c.type = ops[0];
  c.offset = inst.offset;
  switch (inst.opcode) {
    case kOpConstantTrue:
    case kOpConstantFalse:
      OPENVGF_TRY(operands(inst, 2, 2));
      if (t->kind != TypeInfo::Kind::Bool) return fail(inst, "Result Type <id> {}: expected OpTypeBool", ops[0]);
      c.kind = inst.opcode == kOpConstantTrue ? ConstantInfo::Kind::True : ConstantInfo::Kind::False;
      break;
    case kOpConstant: {
      if (t->kind != TypeInfo::Kind::Int && t->kind != TypeInfo::Kind::Float) {
        return fail(inst, "Result Type <id> {}: expected an integer or floating-point type", ops[0]);
      }
      const std::size_t words = t->width > 32 ? 2 : 1;
      OPENVGF_TRY(operands(inst, 2 + words, 2 + words));
      c.kind = ConstantInfo::Kind::Scalar;
      c.bits = ops[2] | (words == 2 ? std::uint64_t{ops[3]} << 32 : 0);
      break;
    }
    case kOpConstantNull:
      OPENVGF_TRY(operands(inst, 2, 2));
      c.kind = ConstantInfo::Kind::Null;
      break;
    case kOpGraphConstantARM:
      OPENVGF_TRY(operands(inst, 3, 3));
      if (t->kind != TypeInfo::Kind::Tensor) return fail(inst, "Result Type <id> {}: expected an OpTypeTensorARM", ops[0]);
      if (auto [it, inserted] = graphConstantIds_.emplace(ops[2], inst.offset); !inserted) {
        return fail(inst, "GraphConstantID {}: expected an id unique in the module, already used at word {}", ops[2],
                    it->second);
      }
      c.kind = ConstantInfo::Kind::GraphConstant;
      c.graphConstantId = ops[2];
      break;
    default: break;
  }
  OPENVGF_TRY(define(inst, ops[1]));
  m_.constants[ops[1]] = std::move(c);
  return {};
}

Status Parser::composite(const Instruction& inst) {
  OPENVGF_TRY(global(inst));
  const auto& ops = inst.operands;
  OPENVGF_TRY(operands(inst, 2, SIZE_MAX));
  OPENVGF_ASSIGN_OR_RETURN(const TypeInfo* t, typeOf(inst, ops[0], "Result Type"));
  std::size_t expected = 0;
  switch (t->kind) {
    case TypeInfo::Kind::Array: expected = t->length; break;
    case TypeInfo::Kind::Struct: expected = t->members.size(); break;
    case TypeInfo::Kind::Tensor:
      if (!t->shape || t->shape->empty()) {
        return fail(inst, "Result Type <id> {}: expected a tensor type with a shape of rank >= 1", ops[0]);
      }
      expected = static_cast<std::size_t>(t->shape->front());
      break;
    default: return fail(inst, "Result Type <id> {}: expected an array, struct or tensor type", ops[0]);
  }
  ConstantInfo c;
  c.type = ops[0];
  c.offset = inst.offset;
  if (inst.opcode == kOpConstantCompositeReplicateEXT) {
    OPENVGF_TRY(operands(inst, 3, 3));
    c.kind = ConstantInfo::Kind::Replicate;
  } else {
    OPENVGF_TRY(operands(inst, 2 + expected, 2 + expected));
    c.kind = ConstantInfo::Kind::Composite;
  }
  for (std::size_t i = 2; i < ops.size(); ++i) {
    if (m_.constant(ops[i]) == nullptr) {
      return fail(inst, "Constituent {} <id> {}: expected a constant defined before this instruction", i - 2, ops[i]);
    }
  }
  c.constituents.assign(ops.begin() + 2, ops.end());
  OPENVGF_TRY(define(inst, ops[1]));
  m_.constants[ops[1]] = std::move(c);
  return {};
}

Status Parser::graphInstruction(const Instruction& inst) {
  const auto& ops = inst.operands;
  if (inst.opcode == kOpGraphARM) {
    OPENVGF_TRY(global(inst));
    OPENVGF_TRY(operands(inst, 2, 2));
    OPENVGF_ASSIGN_OR_RETURN(const TypeInfo* t, typeOf(inst, ops[0], "Result Type"));
    if (t->kind != TypeInfo::Kind::Graph) return fail(inst, "Result Type <id> {}: expected an OpTypeGraphARM", ops[0]);
    OPENVGF_TRY(define(inst, ops[1]));
    m_.graphs.push_back(GraphDefinition{ops[1], ops[0], inst.offset, {}});
    graph_ = &m_.graphs.back();
    return {};
  }
  if (graph_ == nullptr && inst.opcode == kOpExtInst && ops.size() >= 4) {
    // Non-semantic instructions (debug info) may sit in the global section; they do not matter here.
    auto set = m_.extInstImports.find(ops[2]);
    if (set != m_.extInstImports.end() && set->second.starts_with("NonSemantic.")) return define(inst, ops[1]);
  }
  if (graph_ == nullptr) return fail(inst, "expected this instruction inside a graph (after OpGraphARM)");
  if (inst.opcode == kOpGraphEndARM) {
    OPENVGF_TRY(operands(inst, 0, 0));
    graph_ = nullptr;
    return {};
  }
  BodyInstruction b;
  b.offset = inst.offset;
  switch (inst.opcode) {
    case kOpGraphInputARM:
      OPENVGF_TRY(operands(inst, 3, 4));
      b.kind = BodyInstruction::Kind::Input;
      break;
    case kOpExtInst:
      OPENVGF_TRY(operands(inst, 4, SIZE_MAX));
      b.kind = BodyInstruction::Kind::ExtInst;
      if (m_.extInstImports.count(ops[2]) == 0) {
        return fail(inst, "Set <id> {}: expected an OpExtInstImport", ops[2]);
      }
      b.set = ops[2];
      b.opcode = ops[3];
      break;
    case kOpCompositeExtract:
      OPENVGF_TRY(operands(inst, 4, SIZE_MAX));
      b.kind = BodyInstruction::Kind::Extract;
      break;
    default:  // OpGraphSetOutputARM
      OPENVGF_TRY(operands(inst, 2, 3));
      b.kind = BodyInstruction::Kind::SetOutput;
      for (std::uint32_t id : ops) OPENVGF_TRY(isDefined(inst, id, "operand"));
      b.operands.assign(ops.begin(), ops.end());
      graph_->body.push_back(std::move(b));
      return {};
  }
  OPENVGF_TRY(typeOf(inst, ops[0], "Result Type"));
  b.resultType = ops[0];
  b.result = ops[1];
  const std::size_t first = b.kind == BodyInstruction::Kind::ExtInst ? 4 : 2;
  const std::size_t idCount = b.kind == BodyInstruction::Kind::Extract ? 1 : ops.size() - first;
  for (std::size_t i = first; i < first + idCount; ++i) OPENVGF_TRY(isDefined(inst, ops[i], fmt::format("operand {}", i - first)));
  b.operands.assign(ops.begin() + static_cast<std::ptrdiff_t>(first), ops.end());
  OPENVGF_TRY(define(inst, ops[1]));
  graph_->body.push_back(std::move(b));
  return {};
}

Status Parser::finish() {
  if (graph_ != nullptr) {
    return Unexpected(Error(ErrorKind::InvalidInput,
                            fmt::format("word {} OpGraphARM: expected OpGraphEndARM before the end of the module",
                                        graph_->offset)));
  }
  for (const GraphEntryPoint& e : m_.entryPoints) {
    const auto where = [&](std::string_view text) {
      return Unexpected(Error(ErrorKind::InvalidInput, fmt::format("word {} OpGraphEntryPointARM '{}': {}", e.offset, e.name, text)));
    };
    bool isGraph = false;
    for (const GraphDefinition& g : m_.graphs) isGraph = isGraph || g.id == e.graph;
    if (!isGraph) return where(fmt::format("Graph <id> {}: expected an OpGraphARM", e.graph));
    for (std::uint32_t v : e.interface) {
      if (m_.variables.count(v) == 0) return where(fmt::format("Interface <id> {}: expected an OpVariable", v));
    }
  }
  return {};
}

}  // namespace

Result<Module> parseModule(std::span<const std::uint32_t> words, std::string_view source) {
  Module m;
  m.source = std::string(source);
  auto instructions = splitModule(words, m.header);
  if (!instructions) return Unexpected(std::move(instructions).error().addContext(source));
  Parser parser(m);
  for (const Instruction& inst : *instructions) {
    Status s = parser.instruction(inst);
    if (!s) return Unexpected(std::move(s).error().addContext(source));
  }
  Status s = parser.finish();
  if (!s) return Unexpected(std::move(s).error().addContext(source));
  if (m.entryPoints.empty()) {
    return invalidInput("{}: expected at least one OpGraphEntryPointARM (a TOSA graph module), got none", source);
  }
  return m;
}

}  // namespace openvgf::tosa::spirv
