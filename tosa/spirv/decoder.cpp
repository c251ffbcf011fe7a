// SPDX-License-Identifier: Apache-2.0
// SPIR-V graph module -> tosa::Graph (see decoder.h). decodeGraph works in two passes: the
// first walks the graph body and builds operators over numbered values (checking operands,
// attributes and shapes as it goes), the second names the values (interface names first, so
// they never collide) and assembles the verified graph.
#include "tosa/spirv/decoder.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tosa/shape_inference.h"
#include "tosa/spirv/attributes.h"
#include "tosa/spirv/grammar.h"
#include "tosa/spirv/tensor_types.h"
#include "tosa/verifier.h"

namespace openvgf::tosa::spirv {
namespace {

// Limits for constants spelled in the module (OpConstantNull and replicated composites can
// claim any size in a few words); real modules inline small tensors and put weights in the VGF.
constexpr std::int64_t kMaxInlineElements = std::int64_t{1} << 24;
constexpr std::size_t kMaxInlineBytes = std::size_t{1} << 28;
// TOSA's list attributes hold one entry per dimension or per dimension pair (CONV3D's pad: 6;
// TRANSPOSE's perms: the rank, at most 6 here), so a longer one is damage; refusing it before
// the constant is expanded keeps a replicated composite of 2^24 elements from costing seconds.
constexpr std::int64_t kMaxAttributeListElements = 64;

/// The operands of TOSA.001000.1 instructions that are shape_t values (CONST_SHAPE in TOSA).
bool isShapeOperand(std::string_view name) {
  for (std::string_view s : {"shape", "start", "size", "multiples", "padding", "scale", "offset", "border"}) {
    if (name == s) return true;
  }
  return false;
}

/// Flattens a constant into host-layout bytes of `dtype` with the row-major shape `shape`.
class ConstantReader {
 public:
  explicit ConstantReader(const Module& m) : m_(m) {}

  Result<HostTensor> tensor(std::uint32_t id) {
    const ConstantInfo* c = m_.constant(id);
    if (c == nullptr) return invalidInput("<id> {}: expected a constant", id);
    OPENVGF_ASSIGN_OR_RETURN(DeclaredTensor t, declaredTensor(m_, c->type));
    if (!t.shape) return invalidInput("<id> {}: expected a constant of a shaped tensor type", id);
    std::int64_t count = 1;
    for (std::int64_t d : *t.shape) {
      if (d > kMaxInlineElements / count) {
        return invalidInput("<id> {}: expected a constant of at most {} elements, got shape {}", id, kMaxInlineElements,
                            shapeToString(*t.shape));
      }
      count *= d;
    }
    const std::size_t bytes = static_cast<std::size_t>(count) * hostElementBytes(t.dtype);
    if (bytes > kMaxInlineBytes - std::min(total_, kMaxInlineBytes)) {
      return invalidInput("<id> {}: expected the module's constants to total at most {} bytes", id, kMaxInlineBytes);
    }
    total_ += bytes;
    HostTensor out(t.dtype, *t.shape);
    std::size_t at = 0;
    OPENVGF_TRY(flatten(id, t.dtype, *t.shape, 0, out.bytes, at));
    return out;
  }

 private:
  Status scalar(std::uint32_t id, DType dtype, std::vector<std::uint8_t>& out, std::size_t& at) {
    const ConstantInfo* c = m_.constant(id);
    const std::size_t bytes = hostElementBytes(dtype);
    OPENVGF_ASSIGN_OR_RETURN(DType actual, elementType(m_, c->type));
    if (actual != dtype) return invalidInput("<id> {}: expected a {} element, got {}", id, toString(dtype), toString(actual));
    std::uint64_t bits = 0;
    switch (c->kind) {
      case ConstantInfo::Kind::True: bits = 1; break;
      case ConstantInfo::Kind::False:
      case ConstantInfo::Kind::Null: break;
      case ConstantInfo::Kind::Scalar: bits = c->bits; break;
      default: return invalidInput("<id> {}: expected a scalar constant", id);
    }
    std::memcpy(out.data() + at, &bits, bytes);
    at += bytes;
    return {};
  }

  Status flatten(std::uint32_t id, DType dtype, const Shape& shape, std::size_t dim, std::vector<std::uint8_t>& out,
                 std::size_t& at) {
    if (dim == shape.size()) return scalar(id, dtype, out, at);
    const ConstantInfo* c = m_.constant(id);
    if (c == nullptr) return invalidInput("<id> {}: expected a constant", id);
    const Shape sub(shape.begin() + static_cast<std::ptrdiff_t>(dim), shape.end());
    const TypeInfo* type = m_.type(c->type);
    if (type != nullptr && type->kind == TypeInfo::Kind::Tensor) {
      OPENVGF_ASSIGN_OR_RETURN(DeclaredTensor t, declaredTensor(m_, c->type));
      if (!t.shape || *t.shape != sub || t.dtype != dtype) {
        return invalidInput("<id> {}: expected a constituent of type {}{}, got {}", id, toString(dtype),
                            shapeToString(sub), typeText(t));
      }
    } else if (c->kind != ConstantInfo::Kind::Null || dim + 1 != shape.size()) {
      return invalidInput("<id> {}: expected a constituent of type {}{}", id, toString(dtype), shapeToString(sub));
    }
    const std::size_t elementBytes = hostElementBytes(dtype);
    const auto subBytes = static_cast<std::size_t>(elementCount(sub)) * elementBytes;
    switch (c->kind) {
      case ConstantInfo::Kind::Null:
        std::fill(out.begin() + static_cast<std::ptrdiff_t>(at), out.begin() + static_cast<std::ptrdiff_t>(at + subBytes), 0);
        at += subBytes;
        return {};
      case ConstantInfo::Kind::Composite:
        for (std::uint32_t part : c->constituents) OPENVGF_TRY(flatten(part, dtype, shape, dim + 1, out, at));
        return {};
      case ConstantInfo::Kind::Replicate: {
        const std::size_t start = at;
        const ConstantInfo* part = m_.constant(c->constituents[0]);
        const TypeInfo* partType = part != nullptr ? m_.type(part->type) : nullptr;
        if (partType != nullptr && partType->kind != TypeInfo::Kind::Tensor && dim + 1 < shape.size()) {
          // A scalar replicated over a tensor of rank > 1: every element takes it.
          for (std::int64_t i = 0; i < elementCount(sub); ++i) OPENVGF_TRY(scalar(c->constituents[0], dtype, out, at));
          return {};
        }
        OPENVGF_TRY(flatten(c->constituents[0], dtype, shape, dim + 1, out, at));
        const std::size_t one = at - start;
        for (std::int64_t i = 1; i < sub[0]; ++i) {
          std::copy_n(out.begin() + static_cast<std::ptrdiff_t>(start), one, out.begin() + static_cast<std::ptrdiff_t>(at));
          at += one;
        }
        return {};
      }
      default:
        return invalidInput("<id> {}: expected a composite, null or replicated constant", id);
    }
  }

  const Module& m_;
  std::size_t total_ = 0;  // bytes of the constants materialized so far
};

/// Re-types an integer zero-point constant whose every value fits `target` (the hand-written
/// Vulkan-Samples graphs give an i16 input a 32-bit zero point); anything else is left to the
/// verifier, which names the rule.
void retypeZeroPoint(HostTensor& zp, DType target) {
  if (zp.dtype == target || !isInteger(zp.dtype) || !isInteger(target) || target == DType::Int4) return;
  const int bits = valueBits(target);
  HostTensor out(target, zp.shape);
  for (std::int64_t i = 0; i < zp.size(); ++i) {
    std::int64_t v = 0;
    switch (hostElementBytes(zp.dtype)) {
      case 1: v = zp.as<std::int8_t>()[static_cast<std::size_t>(i)]; break;
      case 2: v = zp.as<std::int16_t>()[static_cast<std::size_t>(i)]; break;
      case 4: v = zp.as<std::int32_t>()[static_cast<std::size_t>(i)]; break;
      default: v = zp.as<std::int64_t>()[static_cast<std::size_t>(i)]; break;
    }
    // Signed range, or the unsigned range of the same width (an unsigned RESCALE zero point).
    if (bits < 64 && (v < -(std::int64_t{1} << (bits - 1)) || v >= (std::int64_t{1} << bits))) return;
    std::memcpy(out.bytes.data() + static_cast<std::size_t>(i) * hostElementBytes(target), &v, hostElementBytes(target));
  }
  zp = std::move(out);
}

struct Value {
  DType dtype = DType::Unknown;
  Shape shape;
  std::optional<std::vector<std::uint8_t>> data;       // CONST payload
  std::optional<std::vector<std::int64_t>> shapeValue;  // CONST_SHAPE values
  std::uint32_t spirvId = 0;                           // for OpName
  std::string fallbackName;                            // used when the module names nothing
  std::string name;                                    // chosen in the second pass
};

struct PendingOp {
  Op op = Op::Unknown;
  Attributes attrs;
  std::vector<std::size_t> inputs;
  std::vector<std::size_t> outputs;
};

/// The first pass over one graph body.
class GraphBuilder {
 public:
  GraphBuilder(const Module& m, const GraphSignature& sig, const DecodeInputs& in) : m_(m), sig_(sig), in_(in), constants_(m) {}

  Result<Graph> build();

 private:
  Error fail(const BodyInstruction& inst, std::string_view what, std::string_view text) const {
    return m_.error(inst.offset, what, text);
  }
  Result<std::uint32_t> interfaceIndex(const BodyInstruction& inst, bool isInput);
  Status input(const BodyInstruction& inst);
  Status extInst(const BodyInstruction& inst);
  Status extract(const BodyInstruction& inst);
  Status setOutput(const BodyInstruction& inst);
  Result<AttributeValue> attribute(std::string_view name, std::uint32_t id);
  Result<std::size_t> operandValue(std::uint32_t id, bool asShape);
  Result<std::size_t> constantValue(std::uint32_t id, bool asShape);
  Status checkResult(const BodyInstruction& inst, const ExtInstruction& ext, std::vector<OutputInfo>& outputs);
  std::size_t addValue(Value v) {
    values_.push_back(std::move(v));
    return values_.size() - 1;
  }
  Result<Graph> assemble();

  const Module& m_;
  const GraphSignature& sig_;
  const DecodeInputs& in_;
  ConstantReader constants_;
  std::vector<Value> values_;
  std::vector<PendingOp> ops_;
  std::unordered_map<std::uint32_t, std::size_t> tensors_;                 // SPIR-V <id> -> value
  std::unordered_map<std::uint32_t, std::vector<std::size_t>> structs_;    // multi-output results
  std::map<std::pair<std::uint32_t, bool>, std::size_t> constantValues_;   // (<id>, as shape) -> value
  std::map<std::uint32_t, std::size_t> inputs_;                            // input index -> value
  std::map<std::uint32_t, std::size_t> outputs_;                           // output index -> value
};

Result<std::uint32_t> GraphBuilder::interfaceIndex(const BodyInstruction& inst, bool isInput) {
  const std::string_view what = isInput ? "OpGraphInputARM" : "OpGraphSetOutputARM";
  const std::string_view kind = isInput ? "input" : "output";
  const std::size_t at = isInput ? 0 : 1;  // the InputIndex / OutputIndex operand
  if (inst.operands.size() > at + 1) {
    return Unexpected(Error(ErrorKind::Unsupported, fail(inst, what, fmt::format("expected a tensor {}, got an ElementIndex "
                                                                                 "(tensor arrays)", kind)).message()));
  }
  const std::size_t count = isInput ? sig_.inputs.size() : sig_.outputs.size();
  std::optional<std::int64_t> index = m_.intConstant(inst.operands[at]);
  if (!index || *index < 0 || static_cast<std::size_t>(*index) >= count) {
    return Unexpected(fail(inst, what, fmt::format("{}Index <id> {}: expected an integer constant below {} (the graph's {}s)",
                                                   isInput ? "Input" : "Output", inst.operands[at], count, kind)));
  }
  const auto i = static_cast<std::uint32_t>(*index);
  if ((isInput ? inputs_ : outputs_).count(i) != 0) {
    return Unexpected(fail(inst, what, fmt::format("{}Index {}: expected each {} once", isInput ? "Input" : "Output", i, kind)));
  }
  return i;
}

Status GraphBuilder::input(const BodyInstruction& inst) {
  OPENVGF_ASSIGN_OR_RETURN(const std::uint32_t i, interfaceIndex(inst, true));
  const InterfaceTensor& declared = sig_.inputs[i];
  auto type = declaredTensor(m_, inst.resultType);
  if (!type || type->dtype != declared.dtype || type->rank != declared.rank) {
    return Unexpected(fail(inst, "OpGraphInputARM", fmt::format("Result Type <id> {}: expected the graph type's input {} type",
                                                               inst.resultType, i)));
  }
  Value v;
  v.dtype = declared.dtype;
  if (!in_.inputShapes.empty()) {
    v.shape = in_.inputShapes[i];
  } else if (declared.shape) {
    v.shape = *declared.shape;
  } else {
    return Unexpected(fail(inst, "OpGraphInputARM",
                           fmt::format("input {}: expected a declared shape or one given by the caller, got {}", i,
                                       typeText(*type))));
  }
  if (!conforms(*type, v.dtype, v.shape)) {
    return Unexpected(fail(inst, "OpGraphInputARM", fmt::format("input {}: expected shape {} to fit the declared type {}", i,
                                                               shapeToString(v.shape), typeText(*type))));
  }
  v.spirvId = inst.result;
  inputs_[i] = addValue(std::move(v));
  tensors_[inst.result] = inputs_[i];
  return {};
}

Result<AttributeValue> GraphBuilder::attribute(std::string_view name, std::uint32_t id) {
  const ConstantInfo* c = m_.constant(id);
  if (c == nullptr || c->kind == ConstantInfo::Kind::GraphConstant) {
    return invalidInput("{} <id> {}: expected a constant instruction (attributes are constants)", name, id);
  }
  AttributeValue v;
  const TypeInfo* t = m_.type(c->type);
  if (name == "min_val" || name == "max_val") {
    v.kind = AttributeValue::Kind::Element;
    HostTensor value;
    if (t->kind == TypeInfo::Kind::Tensor) {
      if (t->shape && !std::ranges::all_of(*t->shape, [](std::int64_t d) { return d == 1; })) {
        return invalidInput("{} <id> {}: expected one element, got shape {}", name, id, shapeToString(*t->shape));
      }
      OPENVGF_ASSIGN_OR_RETURN(value, constants_.tensor(id));
      if (value.size() != 1) return invalidInput("{} <id> {}: expected one element, got {}", name, id, value.size());
    } else {
      OPENVGF_ASSIGN_OR_RETURN(DType dtype, elementType(m_, c->type));
      value = HostTensor(dtype, {});
      value.bytes.assign(hostElementBytes(dtype), 0);
      const std::uint64_t bits = c->kind == ConstantInfo::Kind::True ? 1 : c->bits;
      std::memcpy(value.bytes.data(), &bits, value.bytes.size());
    }
    v.dtype = value.dtype;
    std::uint64_t bits = 0;
    std::memcpy(&bits, value.bytes.data(), std::min<std::size_t>(value.bytes.size(), 8));
    v.value = static_cast<std::int64_t>(bits);
    return v;
  }
  switch (t->kind) {
    case TypeInfo::Kind::Bool:
      if (c->kind == ConstantInfo::Kind::Scalar) return invalidInput("{} <id> {}: expected a boolean constant", name, id);
      v.kind = AttributeValue::Kind::Bool;
      v.flag = c->kind == ConstantInfo::Kind::True;
      return v;
    case TypeInfo::Kind::Int:
      v.kind = AttributeValue::Kind::Int;
      v.value = c->kind == ConstantInfo::Kind::Null ? 0 : *m_.intConstant(id, true);
      return v;
    case TypeInfo::Kind::Tensor: {
      if (t->shape && (t->shape->size() != 1 || (*t->shape)[0] > kMaxAttributeListElements)) {
        return invalidInput("{} <id> {}: expected a rank-1 integer tensor constant of at most {} elements, got shape {}",
                            name, id, kMaxAttributeListElements, shapeToString(*t->shape));
      }
      OPENVGF_ASSIGN_OR_RETURN(HostTensor list, constants_.tensor(id));
      if (list.shape.size() != 1 || !isInteger(list.dtype)) {
        return invalidInput("{} <id> {}: expected a rank-1 integer tensor constant, got {}{}", name, id,
                            toString(list.dtype), shapeToString(list.shape));
      }
      v.kind = AttributeValue::Kind::List;
      for (std::int64_t i = 0; i < list.size(); ++i) {
        const auto at = static_cast<std::size_t>(i);
        switch (list.dtype) {
          case DType::Int8: v.list.push_back(list.as<std::int8_t>()[at]); break;
          case DType::Int16: v.list.push_back(list.as<std::int16_t>()[at]); break;
          case DType::Int32: v.list.push_back(list.as<std::int32_t>()[at]); break;
          default: v.list.push_back(list.as<std::int64_t>()[at]); break;
        }
      }
      return v;
    }
    default: return invalidInput("{} <id> {}: expected a boolean, integer or integer tensor constant", name, id);
  }
}

Result<std::size_t> GraphBuilder::constantValue(std::uint32_t id, bool asShape) {
  if (auto it = constantValues_.find({id, asShape}); it != constantValues_.end()) return it->second;
  const ConstantInfo* c = m_.constant(id);
  HostTensor t;
  if (c->kind == ConstantInfo::Kind::GraphConstant) {
    if (!in_.graphConstant) return invalidInput("<id> {}: expected graph constant payloads, got none", id);
    GraphConstantRef ref;
    for (const GraphConstantRef& r : sig_.constants) {
      if (r.id == c->graphConstantId) ref = r;
    }
    auto payload = in_.graphConstant(ref);
    if (!payload) return Unexpected(std::move(payload).error().addContext(fmt::format("graph constant {}", ref.id)));
    if (payload->dtype != ref.dtype || payload->shape != ref.shape) {
      return invalidInput("graph constant {}: expected {}{}, got {}{}", ref.id, toString(ref.dtype),
                          shapeToString(ref.shape), toString(payload->dtype), shapeToString(payload->shape));
    }
    t = std::move(*payload);
  } else {
    auto tensor = constants_.tensor(id);
    if (!tensor) return Unexpected(std::move(tensor).error());
    t = std::move(*tensor);
  }
  Value v;
  v.spirvId = id;
  v.fallbackName = c->kind == ConstantInfo::Kind::GraphConstant ? fmt::format("graph_constant_{}", c->graphConstantId)
                                                                 : fmt::format("const_{}", id);
  PendingOp op;
  if (asShape) {
    if (t.shape.size() != 1 || !isInteger(t.dtype) || t.dtype == DType::Int48) {
      return invalidInput("<id> {}: expected a shape value (a rank-1 32-bit integer tensor), got {}{}", id,
                          toString(t.dtype), shapeToString(t.shape));
    }
    std::vector<std::int64_t> dims;
    for (std::int64_t i = 0; i < t.size(); ++i) {
      const auto at = static_cast<std::size_t>(i);
      dims.push_back(t.dtype == DType::Int32 ? t.as<std::int32_t>()[at]
                     : t.dtype == DType::Int16 ? t.as<std::int16_t>()[at] : t.as<std::int8_t>()[at]);
    }
    v.dtype = DType::Shape;
    v.shape = {static_cast<std::int64_t>(dims.size())};
    v.data = std::vector<std::uint8_t>(dims.size() * 8);
    if (!dims.empty()) std::memcpy(v.data->data(), dims.data(), dims.size() * 8);
    v.shapeValue = std::move(dims);
    v.fallbackName = fmt::format("shape_{}", id);
    op.op = Op::ConstShape;
  } else {
    v.dtype = t.dtype;
    v.shape = t.shape;
    v.data = std::move(t.bytes);
    op.op = Op::Const;
  }
  const std::size_t index = addValue(std::move(v));
  op.outputs = {index};
  ops_.push_back(std::move(op));
  constantValues_[{id, asShape}] = index;
  return index;
}

Result<std::size_t> GraphBuilder::operandValue(std::uint32_t id, bool asShape) {
  if (auto it = tensors_.find(id); it != tensors_.end()) {
    if (asShape) return invalidInput("<id> {}: expected a constant shape value, got a computed tensor", id);
    return it->second;
  }
  if (structs_.count(id) != 0) return invalidInput("<id> {}: expected a tensor, got a multi-output result (use OpCompositeExtract)", id);
  if (m_.constant(id) != nullptr) return constantValue(id, asShape);
  return invalidInput("<id> {}: expected a graph input, a tensor result or a constant", id);
}

Status GraphBuilder::checkResult(const BodyInstruction& inst, const ExtInstruction& ext, std::vector<OutputInfo>& outputs) {
  const TypeInfo* rt = m_.type(inst.resultType);
  std::vector<std::uint32_t> resultTypes;
  if (outputs.size() == 1) {
    resultTypes = {inst.resultType};
  } else if (rt->kind == TypeInfo::Kind::Struct && rt->members.size() == outputs.size()) {
    resultTypes = rt->members;
  } else {
    return Unexpected(fail(inst, ext.name, fmt::format("Result Type <id> {}: expected an OpTypeStruct of {} tensors",
                                                       inst.resultType, outputs.size())));
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    auto declared = declaredTensor(m_, resultTypes[k]);
    if (!declared) return Unexpected(fail(inst, ext.name, fmt::format("result {}: {}", k, declared.error().message())));
    // The module decides the element type where TOSA leaves a choice (CAST, RESCALE, MATMUL's
    // f16 variants); the verifier checks the combination.
    outputs[k].dtype = declared->dtype;
    if (!conforms(*declared, outputs[k].dtype, outputs[k].shape)) {
      return Unexpected(fail(inst, ext.name, fmt::format("result {}: expected the declared type {} to match the inferred {}{}", k,
                                                         typeText(*declared), toString(outputs[k].dtype),
                                                         shapeToString(outputs[k].shape))));
    }
  }
  return {};
}

Status GraphBuilder::extInst(const BodyInstruction& inst) {
  const std::string& set = m_.extInstImports.at(inst.set);
  if (set != kTosaInstructionSetName) {
    return Unexpected(Error(ErrorKind::Unsupported,
                            fail(inst, "OpExtInst", fmt::format("expected an instruction of {}, got one of '{}'",
                                                                kTosaInstructionSetName, set))
                                .message()));
  }
  const ExtInstruction* ext = findExtInstruction(inst.opcode);
  if (ext == nullptr) {
    return Unexpected(fail(inst, "OpExtInst", fmt::format("expected a {} instruction number, got {}", kTosaInstructionSetName,
                                                          inst.opcode)));
  }
  const Op op = *tosaOp(*ext);
  const std::size_t attrs = attributeCount(*ext);
  const std::size_t n = inst.operands.size();
  if (ext->variadic ? n < ext->operandCount : n != ext->operandCount) {
    return Unexpected(fail(inst, ext->name, fmt::format("expected {}{} operands ({}), got {}", ext->variadic ? "at least " : "",
                                                        ext->operandCount, fmt::join(ext->operandNames(), ", "), n)));
  }
  auto operandName = [&](std::size_t i) { return ext->operands[std::min(i, ext->operandCount - 1)]; };
  NamedAttributes named;
  for (std::size_t i = 0; i < attrs; ++i) {
    auto value = attribute(operandName(i), inst.operands[i]);
    if (!value) return Unexpected(fail(inst, ext->name, value.error().message()));
    named.emplace_back(operandName(i), std::move(*value));
  }
  auto attributes = attributesFromOperands(op, named);
  if (!attributes) return Unexpected(fail(inst, ext->name, attributes.error().message()));
  PendingOp pending{op, std::move(*attributes), {}, {}};
  std::vector<ValueInfo> infos;
  for (std::size_t i = attrs; i < n; ++i) {
    auto value = operandValue(inst.operands[i], isShapeOperand(operandName(i)));
    if (!value) return Unexpected(fail(inst, ext->name, fmt::format("{}: {}", operandName(i), value.error().message())));
    pending.inputs.push_back(*value);
  }
  // Zero points take the type of the tensor they belong to ("weight_zp" -> "weight").
  for (std::size_t i = attrs; i < n; ++i) {
    const std::string_view name = operandName(i);
    Value& zp = values_[pending.inputs[i - attrs]];
    if (!name.ends_with("_zp") || !zp.data) continue;
    const std::string_view owner = name.substr(0, name.size() - 3);
    std::optional<DType> target;
    for (std::size_t j = attrs; j < n; ++j) {
      if (operandName(j) == owner) target = values_[pending.inputs[j - attrs]].dtype;
    }
    if (!target && owner == "output") target = declaredTensor(m_, inst.resultType) ? declaredTensor(m_, inst.resultType)->dtype : zp.dtype;
    if (!target || *target == zp.dtype) continue;
    HostTensor t(zp.dtype, zp.shape);
    t.bytes = *zp.data;
    retypeZeroPoint(t, *target);
    if (t.dtype != zp.dtype) {
      Value retyped = zp;
      retyped.dtype = t.dtype;
      retyped.data = std::move(t.bytes);
      retyped.fallbackName += "_" + std::string(toString(t.dtype));
      const std::size_t index = addValue(std::move(retyped));
      ops_.push_back(PendingOp{Op::Const, {}, {}, {index}});
      pending.inputs[i - attrs] = index;
    }
  }
  for (std::size_t v : pending.inputs) infos.push_back(ValueInfo{values_[v].dtype, values_[v].shape, values_[v].shapeValue});
  auto outputs = inferOutputs(op, pending.attrs, infos);
  if (!outputs) return Unexpected(fail(inst, ext->name, outputs.error().message()));
  OPENVGF_TRY(checkResult(inst, *ext, *outputs));
  for (std::size_t k = 0; k < outputs->size(); ++k) {
    Value v;
    v.dtype = (*outputs)[k].dtype;
    v.shape = (*outputs)[k].shape;
    v.spirvId = outputs->size() == 1 ? inst.result : 0;
    v.fallbackName = outputs->size() == 1 ? fmt::format("t{}", inst.result) : fmt::format("t{}_{}", inst.result, k);
    pending.outputs.push_back(addValue(std::move(v)));
  }
  if (pending.outputs.size() == 1) {
    tensors_[inst.result] = pending.outputs[0];
  } else {
    structs_[inst.result] = pending.outputs;
  }
  ops_.push_back(std::move(pending));
  return {};
}

Status GraphBuilder::extract(const BodyInstruction& inst) {
  auto it = structs_.find(inst.operands[0]);
  if (it == structs_.end()) {
    return Unexpected(fail(inst, "OpCompositeExtract", fmt::format("Composite <id> {}: expected a multi-output TOSA result",
                                                                   inst.operands[0])));
  }
  if (inst.operands.size() != 2 || inst.operands[1] >= it->second.size()) {
    return Unexpected(fail(inst, "OpCompositeExtract", fmt::format("expected one index below {}", it->second.size())));
  }
  const std::size_t value = it->second[inst.operands[1]];
  auto declared = declaredTensor(m_, inst.resultType);
  if (!declared || !conforms(*declared, values_[value].dtype, values_[value].shape)) {
    return Unexpected(fail(inst, "OpCompositeExtract", fmt::format("Result Type <id> {}: expected the type of member {}",
                                                                   inst.resultType, inst.operands[1])));
  }
  values_[value].spirvId = inst.result;
  tensors_[inst.result] = value;
  return {};
}

Status GraphBuilder::setOutput(const BodyInstruction& inst) {
  OPENVGF_ASSIGN_OR_RETURN(const std::uint32_t o, interfaceIndex(inst, false));
  auto value = operandValue(inst.operands[0], false);
  if (!value) return Unexpected(fail(inst, "OpGraphSetOutputARM", value.error().message()));
  const InterfaceTensor& declared = sig_.outputs[o];
  const DeclaredTensor type{declared.dtype, declared.rank, declared.shape};
  if (!conforms(type, values_[*value].dtype, values_[*value].shape)) {
    return Unexpected(fail(inst, "OpGraphSetOutputARM",
                           fmt::format("output {}: expected the graph type's {}, got {}{}", o, typeText(type),
                                       toString(values_[*value].dtype), shapeToString(values_[*value].shape))));
  }
  outputs_[o] = *value;
  return {};
}

Result<Graph> GraphBuilder::build() {
  const GraphDefinition* graph = nullptr;
  for (const GraphDefinition& g : m_.graphs) {
    if (g.id == sig_.graph) graph = &g;
  }
  if (!in_.inputShapes.empty() && in_.inputShapes.size() != sig_.inputs.size()) {
    return invalidInput("{}: expected {} input shapes, got {}", m_.source, sig_.inputs.size(), in_.inputShapes.size());
  }
  for (const BodyInstruction& inst : graph->body) {
    switch (inst.kind) {
      case BodyInstruction::Kind::Input: OPENVGF_TRY(input(inst)); break;
      case BodyInstruction::Kind::ExtInst: OPENVGF_TRY(extInst(inst)); break;
      case BodyInstruction::Kind::Extract: OPENVGF_TRY(extract(inst)); break;
      case BodyInstruction::Kind::SetOutput: OPENVGF_TRY(setOutput(inst)); break;
    }
  }
  for (std::uint32_t i = 0; i < sig_.inputs.size(); ++i) {
    if (inputs_.count(i) == 0) {
      return invalidInput("{}: word {} OpGraphARM: expected an OpGraphInputARM for input {}", m_.source, graph->offset, i);
    }
  }
  for (std::uint32_t o = 0; o < sig_.outputs.size(); ++o) {
    if (outputs_.count(o) == 0) {
      return invalidInput("{}: word {} OpGraphARM: expected an OpGraphSetOutputARM for output {}", m_.source, graph->offset, o);
    }
  }
  return assemble();
}

Result<Graph> GraphBuilder::assemble() {
  std::set<std::string> taken;
  auto interfaceName = [&](const std::vector<std::string>& given, const InterfaceTensor& t, std::string_view stem) {
    std::string name = t.index < given.size() ? given[t.index] : t.name;
    if (name.empty()) name = fmt::format("{}_{}", stem, t.index);
    while (taken.count(name) != 0) name += "_";
    taken.insert(name);
    return name;
  };
  for (const auto& [i, v] : inputs_) values_[v].name = interfaceName(in_.inputNames, sig_.inputs[i], "input");
  std::vector<std::string> outputNames;
  for (const auto& [o, v] : outputs_) outputNames.push_back(interfaceName(in_.outputNames, sig_.outputs[o], "output"));
  // An output that is also an input, a constant or another output gets its own tensor.
  std::size_t k = 0;
  for (auto& [o, v] : outputs_) {
    Value& value = values_[v];
    if (!value.name.empty() || value.data) {
      Value copy{value.dtype, value.shape, std::nullopt, std::nullopt, 0, {}, outputNames[k]};
      const std::size_t index = addValue(std::move(copy));
      ops_.push_back(PendingOp{Op::Identity, {}, {v}, {index}});
      v = index;
    } else {
      value.name = outputNames[k];
    }
    ++k;
  }
  for (Value& v : values_) {
    if (!v.name.empty()) continue;
    auto named = v.spirvId != 0 ? m_.names.find(v.spirvId) : m_.names.end();
    std::string name = named != m_.names.end() && !named->second.empty() ? named->second : v.fallbackName;
    while (taken.count(name) != 0) name += "_";
    taken.insert(name);
    v.name = std::move(name);
  }
  Graph graph;
  Block block;
  block.name = "main";
  for (const auto& [i, v] : inputs_) block.inputs.push_back(values_[v].name);
  for (const auto& [o, v] : outputs_) block.outputs.push_back(values_[v].name);
  for (const Value& v : values_) {
    Tensor t;
    t.name = v.name;
    t.dtype = v.dtype;
    t.shape = v.shape;
    t.data = v.data;
    t.inShapeTable = v.dtype == DType::Shape;
    block.tensors.push_back(std::move(t));
  }
  for (const PendingOp& p : ops_) {
    Operator op;
    op.op = p.op;
    op.attrs = p.attrs;
    op.attributeTag = static_cast<std::uint8_t>(p.op);
    for (std::size_t v : p.inputs) op.inputs.push_back(values_[v].name);
    for (std::size_t v : p.outputs) op.outputs.push_back(values_[v].name);
    block.operators.push_back(std::move(op));
  }
  graph.regions.push_back(Region{"main", {std::move(block)}});
  if (Status s = verify(graph); !s) {
    return Unexpected(Error(s.error().kind(), fmt::format("{}: decoded graph: {}", m_.source, s.error().message())));
  }
  return graph;
}

}  // namespace

Result<HostTensor> constantValue(const Module& module, std::uint32_t id) { return ConstantReader(module).tensor(id); }

Result<Graph> decodeGraph(const Module& module, const GraphSignature& signature, const DecodeInputs& inputs) {
  GraphBuilder builder(module, signature, inputs);
  return builder.build();
}

}  // namespace openvgf::tosa::spirv
