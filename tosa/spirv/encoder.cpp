// SPDX-License-Identifier: Apache-2.0
// encodeGraph(): see encoder.h. Global declarations are created on demand (a tensor type
// creates its rank constant and shape array first), so the global section is in valid order
// by construction; the graph body is written to its own buffer and appended last.
#include "tosa/spirv/encoder.h"

#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "common/spirv_words.h"
#include "tosa/spirv/attributes.h"
#include "tosa/spirv/grammar.h"
#include "tosa/spirv/words.h"

namespace openvgf::tosa::spirv {
namespace {

void emit(std::vector<std::uint32_t>& out, std::uint32_t opcode, std::initializer_list<std::uint32_t> operands) {
  out.push_back(openvgf::spirv::firstWord(operands.size() + 1, opcode));
  out.insert(out.end(), operands);
}

void emit(std::vector<std::uint32_t>& out, std::uint32_t opcode, const std::vector<std::uint32_t>& operands) {
  out.push_back(openvgf::spirv::firstWord(operands.size() + 1, opcode));
  out.insert(out.end(), operands.begin(), operands.end());
}

class Encoder {
 public:
  Encoder(const Block& block, const EncodeOptions& options) : block_(block), options_(options) {}

  Result<EncodedGraph> run();

 private:
  std::uint32_t newId() { return nextId_++; }
  void name(std::uint32_t id, std::string_view text) {
    std::vector<std::uint32_t> ops{id};
    appendLiteralString(ops, text);
    emit(names_, kOpName, ops);
  }

  Result<std::uint32_t> scalarType(DType dtype);
  std::uint32_t int32Type() { return *scalarType(DType::Int32); }
  std::uint32_t boolType() { return *scalarType(DType::Bool); }
  std::uint32_t scalarConstant(std::uint32_t type, std::uint64_t bits, bool wide);
  std::uint32_t int32Constant(std::int64_t value) {
    return scalarConstant(int32Type(), static_cast<std::uint32_t>(static_cast<std::int32_t>(value)), false);
  }
  std::uint32_t boolConstant(bool value);
  Result<std::uint32_t> elementConstant(DType dtype, const std::uint8_t* bytes);
  Result<std::uint32_t> tensorType(DType dtype, const Shape& shape);
  Result<std::uint32_t> tensorConstant(const HostTensor& value, std::uint32_t id = 0);
  Result<std::uint32_t> attributeOperand(const AttributeValue& value);
  Result<std::uint32_t> constantValue(const Tensor& tensor);
  Status operation(const Operator& op, std::size_t index);
  Result<std::uint32_t> valueOf(const std::string& tensor) const;

  const Block& block_;
  const EncodeOptions& options_;
  std::uint32_t nextId_ = 1;
  std::uint32_t tosaSet_ = 0;
  std::set<std::uint32_t> capabilities_{kCapabilityShader, kCapabilityTensorsARM, kCapabilityGraphARM,
                                        kCapabilityVulkanMemoryModel};
  std::set<std::string> extensions_{"SPV_ARM_graph", "SPV_ARM_tensors"};
  std::vector<std::uint32_t> names_, decorations_, globals_, body_;
  std::map<DType, std::uint32_t> scalarTypes_;
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t> scalarConstants_;
  std::map<std::pair<DType, Shape>, std::uint32_t> tensorTypes_;
  std::map<std::vector<std::uint32_t>, std::uint32_t> arrayOrStructTypes_;  // [opcode, operands...]
  std::unordered_map<std::string, std::uint32_t> values_;                  // tensor name -> <id>
  std::uint32_t nextGraphConstant_ = 0;
  EncodedGraph out_;
};

Result<std::uint32_t> Encoder::scalarType(DType dtype) {
  if (dtype == DType::Int4) dtype = DType::Int8;  // no 4-bit type in TOSA.001000.1
  if (auto it = scalarTypes_.find(dtype); it != scalarTypes_.end()) return it->second;
  const std::uint32_t id = newId();
  switch (dtype) {
    case DType::Bool: emit(globals_, kOpTypeBool, {id}); break;
    case DType::Int8: emit(globals_, kOpTypeInt, {id, 8, 0}); capabilities_.insert(kCapabilityInt8); break;
    case DType::Int16: emit(globals_, kOpTypeInt, {id, 16, 0}); capabilities_.insert(kCapabilityInt16); break;
    case DType::Int32: emit(globals_, kOpTypeInt, {id, 32, 0}); break;
    case DType::Int48: emit(globals_, kOpTypeInt, {id, 64, 0}); capabilities_.insert(kCapabilityInt64); break;
    case DType::Fp16: emit(globals_, kOpTypeFloat, {id, 16}); capabilities_.insert(kCapabilityFloat16); break;
    case DType::Fp32: emit(globals_, kOpTypeFloat, {id, 32}); break;
    case DType::Bf16:
      emit(globals_, kOpTypeFloat, {id, 16, kFPEncodingBFloat16KHR});
      capabilities_.insert(kCapabilityBFloat16TypeKHR);
      extensions_.insert("SPV_KHR_bfloat16");
      break;
    case DType::Fp8E4M3:
    case DType::Fp8E5M2:
      emit(globals_, kOpTypeFloat, {id, 8, dtype == DType::Fp8E4M3 ? kFPEncodingFloat8E4M3EXT : kFPEncodingFloat8E5M2EXT});
      capabilities_.insert(kCapabilityFloat8EXT);
      extensions_.insert("SPV_EXT_float8");
      break;
    default: return unsupported("type {}: expected a TOSA element type with a SPIR-V form", toString(dtype));
  }
  scalarTypes_[dtype] = id;
  return id;
}

std::uint32_t Encoder::scalarConstant(std::uint32_t type, std::uint64_t bits, bool wide) {
  if (auto it = scalarConstants_.find({type, bits}); it != scalarConstants_.end()) return it->second;
  const std::uint32_t id = newId();
  if (wide) {
    emit(globals_, kOpConstant, {type, id, static_cast<std::uint32_t>(bits), static_cast<std::uint32_t>(bits >> 32)});
  } else {
    emit(globals_, kOpConstant, {type, id, static_cast<std::uint32_t>(bits)});
  }
  scalarConstants_[{type, bits}] = id;
  return id;
}

std::uint32_t Encoder::boolConstant(bool value) {
  const std::uint32_t type = boolType();
  if (auto it = scalarConstants_.find({type, value ? 1 : 0}); it != scalarConstants_.end()) return it->second;
  const std::uint32_t id = newId();
  emit(globals_, value ? kOpConstantTrue : kOpConstantFalse, {type, id});
  scalarConstants_[{type, value ? 1 : 0}] = id;
  return id;
}

Result<std::uint32_t> Encoder::elementConstant(DType dtype, const std::uint8_t* bytes) {
  if (dtype == DType::Bool) return boolConstant(bytes[0] != 0);
  OPENVGF_ASSIGN_OR_RETURN(std::uint32_t type, scalarType(dtype));
  const std::size_t size = hostElementBytes(dtype);
  std::uint64_t bits = 0;
  std::memcpy(&bits, bytes, size);
  // Signless integers narrower than a word keep only their own bits (SPIR-V 1.6 §2.2.1).
  if (size < 4) bits &= (std::uint64_t{1} << (8 * size)) - 1;
  return scalarConstant(type, bits, size == 8);
}

Result<std::uint32_t> Encoder::tensorType(DType dtype, const Shape& shape) {
  if (dtype == DType::Int4) dtype = DType::Int8;
  if (auto it = tensorTypes_.find({dtype, shape}); it != tensorTypes_.end()) return it->second;
  OPENVGF_ASSIGN_OR_RETURN(std::uint32_t element, scalarType(dtype));
  const std::uint32_t rank = int32Constant(static_cast<std::int64_t>(shape.size()));
  std::vector<std::uint32_t> operands;
  if (!shape.empty()) {
    std::vector<std::uint32_t> arrayKey{kOpTypeArray, int32Type(), rank};
    std::uint32_t arrayType;
    if (auto it = arrayOrStructTypes_.find(arrayKey); it != arrayOrStructTypes_.end()) {
      arrayType = it->second;
    } else {
      arrayType = newId();
      emit(globals_, kOpTypeArray, {arrayType, int32Type(), rank});
      arrayOrStructTypes_[arrayKey] = arrayType;
    }
    std::vector<std::uint32_t> dims{arrayType, 0};
    for (std::int64_t d : shape) {
      if (d < 1 || d > 0x7FFFFFFF) return invalidInput("shape {}: expected dimensions in [1, 2^31)", shapeToString(shape));
      dims.push_back(int32Constant(d));
    }
    dims[1] = newId();
    emit(globals_, kOpConstantComposite, dims);
    operands = {0, element, rank, dims[1]};
  } else {
    operands = {0, element, rank};
  }
  operands[0] = newId();
  emit(globals_, kOpTypeTensorARM, operands);
  tensorTypes_[{dtype, shape}] = operands[0];
  return operands[0];
}

Result<std::uint32_t> Encoder::tensorConstant(const HostTensor& value, std::uint32_t id) {
  if (value.shape.empty()) return unsupported("a rank-0 constant: expected rank >= 1 (SPIR-V tensor constants are composites)");
  OPENVGF_ASSIGN_OR_RETURN(std::uint32_t type, tensorType(value.dtype, value.shape));
  const Shape sub(value.shape.begin() + 1, value.shape.end());
  const std::size_t subBytes = static_cast<std::size_t>(elementCount(sub)) * hostElementBytes(value.dtype);
  std::vector<std::uint32_t> operands{type, 0};
  for (std::int64_t i = 0; i < value.shape[0]; ++i) {
    const std::uint8_t* part = value.bytes.data() + static_cast<std::size_t>(i) * subBytes;
    if (sub.empty()) {
      OPENVGF_ASSIGN_OR_RETURN(std::uint32_t c, elementConstant(value.dtype, part));
      operands.push_back(c);
    } else {
      HostTensor slice(value.dtype, sub);
      std::memcpy(slice.bytes.data(), part, subBytes);
      OPENVGF_ASSIGN_OR_RETURN(std::uint32_t c, tensorConstant(slice));
      operands.push_back(c);
    }
  }
  operands[1] = id != 0 ? id : newId();
  emit(globals_, kOpConstantComposite, operands);
  return operands[1];
}

Result<std::uint32_t> Encoder::attributeOperand(const AttributeValue& value) {
  switch (value.kind) {
    case AttributeValue::Kind::Int: return int32Constant(value.value);
    case AttributeValue::Kind::Bool: return boolConstant(value.flag);
    case AttributeValue::Kind::Element: {
      std::uint8_t bytes[8];
      std::memcpy(bytes, &value.value, 8);
      return elementConstant(value.dtype, bytes);
    }
    case AttributeValue::Kind::List: {
      HostTensor list(DType::Int32, {static_cast<std::int64_t>(value.list.size())});
      for (std::size_t i = 0; i < value.list.size(); ++i) list.as<std::int32_t>()[i] = static_cast<std::int32_t>(value.list[i]);
      return tensorConstant(list);
    }
  }
  return internalError("unknown attribute kind");
}

Result<std::uint32_t> Encoder::constantValue(const Tensor& tensor) {
  if (!tensor.data) return invalidInput("tensor '{}': expected a constant payload", tensor.name);
  HostTensor value(tensor.dtype, tensor.shape);
  if (value.bytes.size() != tensor.data->size()) {
    return invalidInput("tensor '{}': expected {} payload bytes, got {}", tensor.name, value.bytes.size(), tensor.data->size());
  }
  value.bytes = *tensor.data;
  if (tensor.dtype == DType::Shape) {
    HostTensor ints(DType::Int32, tensor.shape);
    for (std::int64_t i = 0; i < value.size(); ++i) {
      const std::int64_t v = value.as<std::int64_t>()[static_cast<std::size_t>(i)];
      if (v != static_cast<std::int32_t>(v)) {
        return invalidInput("shape value '{}': expected 32-bit elements, got {}", tensor.name, v);
      }
      ints.as<std::int32_t>()[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(v);
    }
    return tensorConstant(ints);
  }
  if (value.size() >= options_.minGraphConstantElements) {
    OPENVGF_ASSIGN_OR_RETURN(std::uint32_t type, tensorType(value.dtype, value.shape));
    const std::uint32_t id = newId();
    const std::uint32_t constantId = options_.firstGraphConstantId + nextGraphConstant_++;
    emit(globals_, kOpGraphConstantARM, {type, id, constantId});
    if (value.dtype == DType::Int4) value.dtype = DType::Int8;
    out_.constants.push_back(EncodedGraphConstant{constantId, tensor.name, std::move(value)});
    return id;
  }
  if (value.dtype == DType::Int4) value.dtype = DType::Int8;
  return tensorConstant(value);
}

Result<std::uint32_t> Encoder::valueOf(const std::string& tensor) const {
  auto it = values_.find(tensor);
  if (it == values_.end()) return invalidInput("tensor '{}': expected a value defined before its use", tensor);
  return it->second;
}

Status Encoder::operation(const Operator& op, std::size_t index) {
  const auto where = [&](Error e) { return Unexpected(std::move(e).addContext(fmt::format("operators[{}] {}", index, toString(op.op)))); };
  if (op.op == Op::Const || op.op == Op::ConstShape) {
    const Tensor* t = op.outputs.size() == 1 ? block_.findTensor(op.outputs[0]) : nullptr;
    if (t == nullptr) return where(Error(ErrorKind::InvalidInput, "expected one output tensor"));
    auto id = constantValue(*t);
    if (!id) return where(std::move(id).error());
    values_[t->name] = *id;
    name(*id, t->name);
    return {};
  }
  if (op.op == Op::Identity) {
    if (op.inputs.size() != 1 || op.outputs.size() != 1) return where(Error(ErrorKind::InvalidInput, "expected one input and one output"));
    auto id = valueOf(op.inputs[0]);
    if (!id) return where(std::move(id).error());
    values_[op.outputs[0]] = *id;
    return {};
  }
  const ExtInstruction* ext = findExtInstruction(op.op);
  if (ext == nullptr) return where(Error(ErrorKind::Unsupported, fmt::format("expected an operator with a {} instruction", kTosaInstructionSetName)));
  const std::size_t attrs = attributeCount(*ext);
  const std::size_t inputs = ext->operandCount - attrs;
  if (ext->variadic ? op.inputs.empty() : op.inputs.size() != inputs) {
    return where(Error(ErrorKind::InvalidInput, fmt::format("expected {} inputs, got {}", inputs, op.inputs.size())));
  }
  const Tensor* first = block_.findTensor(op.inputs[0]);
  auto named = attributesToOperands(op.op, op.attrs, first != nullptr ? first->dtype : DType::Unknown);
  if (!named) return where(std::move(named).error());
  std::vector<std::uint32_t> operands{0, 0, tosaSet_, ext->opcode};
  for (std::size_t i = 0; i < attrs; ++i) {
    const AttributeValue* value = nullptr;
    for (const auto& [n, v] : *named) {
      if (n == ext->operands[i]) value = &v;
    }
    if (value == nullptr) return where(Error(ErrorKind::Internal, fmt::format("no value for attribute {}", ext->operands[i])));
    auto id = attributeOperand(*value);
    if (!id) return where(std::move(id).error().addContext(ext->operands[i]));
    operands.push_back(*id);
  }
  for (const std::string& input : op.inputs) {
    auto id = valueOf(input);
    if (!id) return where(std::move(id).error());
    operands.push_back(*id);
  }
  std::vector<std::uint32_t> resultTypes;
  for (const std::string& output : op.outputs) {
    const Tensor* t = block_.findTensor(output);
    if (t == nullptr) return where(Error(ErrorKind::InvalidInput, fmt::format("output '{}': expected a declared tensor", output)));
    auto type = tensorType(t->dtype, t->shape);
    if (!type) return where(std::move(type).error());
    resultTypes.push_back(*type);
  }
  if (resultTypes.size() == 1) {
    operands[0] = resultTypes[0];
  } else {
    std::vector<std::uint32_t> key{kOpTypeStruct};
    key.insert(key.end(), resultTypes.begin(), resultTypes.end());
    if (auto it = arrayOrStructTypes_.find(key); it != arrayOrStructTypes_.end()) {
      operands[0] = it->second;
    } else {
      operands[0] = newId();
      std::vector<std::uint32_t> structOperands{operands[0]};
      structOperands.insert(structOperands.end(), resultTypes.begin(), resultTypes.end());
      emit(globals_, kOpTypeStruct, structOperands);
      arrayOrStructTypes_[key] = operands[0];
    }
  }
  operands[1] = newId();
  emit(body_, kOpExtInst, operands);
  if (resultTypes.size() == 1) {
    values_[op.outputs[0]] = operands[1];
    name(operands[1], op.outputs[0]);
  } else {
    for (std::size_t k = 0; k < resultTypes.size(); ++k) {
      const std::uint32_t id = newId();
      emit(body_, kOpCompositeExtract, {resultTypes[k], id, operands[1], static_cast<std::uint32_t>(k)});
      values_[op.outputs[k]] = id;
      name(id, op.outputs[k]);
    }
  }
  return {};
}

Result<EncodedGraph> Encoder::run() {
  tosaSet_ = newId();
  const std::uint32_t graphType = newId();
  const std::uint32_t graph = newId();
  std::vector<std::uint32_t> interface;
  std::vector<std::uint32_t> graphTypeOperands{graphType, static_cast<std::uint32_t>(block_.inputs.size())};
  auto variable = [&](const std::string& tensorName, bool isInput) -> Result<std::uint32_t> {
    const Tensor* t = block_.findTensor(tensorName);
    if (t == nullptr) return invalidInput("{} '{}': expected a declared tensor", isInput ? "input" : "output", tensorName);
    OPENVGF_ASSIGN_OR_RETURN(std::uint32_t type, tensorType(t->dtype, t->shape));
    const std::uint32_t pointer = newId();
    emit(globals_, kOpTypePointer, {pointer, kStorageClassUniformConstant, type});
    const std::uint32_t id = newId();
    emit(globals_, kOpVariable, {pointer, id, kStorageClassUniformConstant});
    const auto binding = static_cast<std::uint32_t>(options_.firstBinding + interface.size());
    emit(decorations_, kOpDecorate, {id, kDecorationDescriptorSet, options_.descriptorSet});
    emit(decorations_, kOpDecorate, {id, kDecorationBinding, binding});
    name(id, tensorName);
    interface.push_back(id);
    graphTypeOperands.push_back(type);
    (isInput ? out_.inputs : out_.outputs).push_back(EncodedTensor{tensorName, t->dtype, t->shape, binding});
    return type;
  };
  std::vector<std::uint32_t> inputTypes;
  for (const std::string& input : block_.inputs) {
    OPENVGF_ASSIGN_OR_RETURN(std::uint32_t type, variable(input, true));
    inputTypes.push_back(type);
  }
  for (const std::string& output : block_.outputs) OPENVGF_TRY(variable(output, false));
  emit(body_, kOpGraphARM, {graphType, graph});
  for (std::size_t i = 0; i < block_.inputs.size(); ++i) {
    const std::uint32_t id = newId();
    emit(body_, kOpGraphInputARM, {inputTypes[i], id, int32Constant(static_cast<std::int64_t>(i))});
    values_[block_.inputs[i]] = id;
    name(id, block_.inputs[i]);
  }
  for (std::size_t i = 0; i < block_.operators.size(); ++i) OPENVGF_TRY(operation(block_.operators[i], i));
  for (std::size_t o = 0; o < block_.outputs.size(); ++o) {
    OPENVGF_ASSIGN_OR_RETURN(std::uint32_t value, valueOf(block_.outputs[o]));
    emit(body_, kOpGraphSetOutputARM, {value, int32Constant(static_cast<std::int64_t>(o))});
  }
  emit(body_, kOpGraphEndARM, {});
  emit(globals_, kOpTypeGraphARM, graphTypeOperands);

  std::vector<std::uint32_t>& w = out_.words;
  w = {kSpirvMagic, kSpirvVersion16, 0, 0, 0};
  for (std::uint32_t c : capabilities_) emit(w, kOpCapability, {c});
  for (const std::string& e : extensions_) {
    std::vector<std::uint32_t> text;
    appendLiteralString(text, e);
    emit(w, kOpExtension, text);
  }
  std::vector<std::uint32_t> import{tosaSet_};
  appendLiteralString(import, kTosaInstructionSetName);
  emit(w, kOpExtInstImport, import);
  emit(w, kOpMemoryModel, {kAddressingModelLogical, kMemoryModelVulkan});
  w.insert(w.end(), names_.begin(), names_.end());
  w.insert(w.end(), decorations_.begin(), decorations_.end());
  w.insert(w.end(), globals_.begin(), globals_.end());
  std::vector<std::uint32_t> entry{graph};
  appendLiteralString(entry, options_.entryPoint);
  entry.insert(entry.end(), interface.begin(), interface.end());
  emit(w, kOpGraphEntryPointARM, entry);
  w.insert(w.end(), body_.begin(), body_.end());
  w[3] = nextId_;
  return std::move(out_);
}

}  // namespace

Result<EncodedGraph> encodeGraph(const Graph& graph, const EncodeOptions& options) {
  const Block* block = graph.mainBlock();
  if (block == nullptr) return invalidInput("expected a graph with a main block");
  Encoder encoder(*block, options);
  return encoder.run();
}

}  // namespace openvgf::tosa::spirv
