// SPDX-License-Identifier: Apache-2.0
// LoweringContext: plan tensors by name, constant dedup by content.
#include "converter/plan.h"

#include <fmt/format.h>

#include "common/sha256.h"

namespace openvgf::converter {

std::string nodeLabel(const Node& node) {
  return fmt::format("operators[{}] {}", node.index, tosa::toString(node.op.op));
}

std::size_t LoweringContext::addConstant(tosa::DType dtype, tosa::Shape shape, std::vector<std::uint8_t> data) {
  Sha256 hash;
  hash.update(fmt::format("{}:{}:", static_cast<int>(dtype), tosa::shapeToString(shape)));
  hash.update(std::span<const std::uint8_t>(data));
  std::string key = hash.hexDigest();
  if (auto it = byContent_.find(key); it != byContent_.end()) return it->second;
  PlanTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.category = vgf::ResourceCategory::Constant;
  t.data = std::move(data);
  plan_.tensors.push_back(std::move(t));
  byContent_[key] = plan_.tensors.size() - 1;
  return plan_.tensors.size() - 1;
}

tosa::DType LoweringContext::storedType(const std::string& name) const {
  auto it = storage_.find(program_.bufferOf(name));
  return it != storage_.end() ? it->second : tensor(name).dtype;
}

std::size_t LoweringContext::tensorId(const std::string& viewName) {
  // An elided RESHAPE/IDENTITY output shares its source's buffer.
  const std::string& name = program_.bufferOf(viewName);
  if (auto it = byName_.find(name); it != byName_.end()) return it->second;
  const tosa::Tensor& t = tensor(name);
  std::size_t id;
  if (program_.isConstant(name)) {
    id = addConstant(t.dtype, t.shape, *t.data);
    if (plan_.tensors[id].name.empty()) plan_.tensors[id].name = name;
  } else {
    PlanTensor p;
    p.name = name;
    p.dtype = storedType(name);
    p.shape = t.shape;
    p.category = vgf::ResourceCategory::Intermediate;
    plan_.tensors.push_back(std::move(p));
    id = plan_.tensors.size() - 1;
  }
  byName_[name] = id;
  return id;
}

std::size_t LoweringContext::addIntermediate(tosa::DType dtype, tosa::Shape shape) {
  PlanTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.category = vgf::ResourceCategory::Intermediate;
  plan_.tensors.push_back(std::move(t));
  return plan_.tensors.size() - 1;
}

Result<tosa::HostTensor> LoweringContext::constantInput(const Node& node, std::size_t input, std::string_view what) const {
  if (input >= node.op.inputs.size()) {
    return invalidInput("{}: {}: expected input {}, got {} inputs", nodeLabel(node), what, input, node.op.inputs.size());
  }
  const std::string& name = node.op.inputs[input];
  if (!program_.isConstant(name)) {
    return unsupported("{}: {} '{}': expected a compile-time constant, got a run-time tensor", nodeLabel(node), what, name);
  }
  return tosa::constantValue(*program_.find(name));
}

}  // namespace openvgf::converter
