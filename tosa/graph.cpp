// SPDX-License-Identifier: Apache-2.0
#include "tosa/graph.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace openvgf::tosa {

std::string shapeToString(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ",")); }

const Tensor* Block::findTensor(std::string_view tensorName) const {
  for (const Tensor& t : tensors) {
    if (t.name == tensorName) return &t;
  }
  return nullptr;
}

Tensor* Block::findTensor(std::string_view tensorName) {
  return const_cast<Tensor*>(static_cast<const Block*>(this)->findTensor(tensorName));
}

const Block* Graph::mainBlock() const {
  if (regions.empty() || regions[0].blocks.empty()) return nullptr;
  for (const Block& b : regions[0].blocks) {
    if (b.name == "main") return &b;
  }
  return &regions[0].blocks[0];
}

Block* Graph::mainBlock() { return const_cast<Block*>(static_cast<const Graph*>(this)->mainBlock()); }

const Block* Graph::findGraph(std::string_view name) const {
  for (const Region& r : regions) {
    if (r.name == name && !r.blocks.empty()) return &r.blocks[0];
  }
  for (const Region& r : regions) {
    for (const Block& b : r.blocks) {
      if (b.name == name) return &b;
    }
  }
  return nullptr;
}

const Block* Graph::parentBlock(const Block& block) const {
  for (const Region& r : regions) {
    for (const Block& candidate : r.blocks) {
      for (const Operator& op : candidate.operators) {
        const Block* a = nullptr;
        const Block* b = nullptr;
        if (const auto* c = std::get_if<CondIfAttrs>(&op.attrs)) {
          a = findGraph(c->thenGraph);
          b = findGraph(c->elseGraph);
        } else if (const auto* w = std::get_if<WhileLoopAttrs>(&op.attrs)) {
          a = findGraph(w->condGraph);
          b = findGraph(w->bodyGraph);
        }
        if ((a == &block || b == &block) && &candidate != &block) return &candidate;
      }
    }
  }
  return nullptr;
}

const Tensor* Graph::findTensor(const Block& block, std::string_view tensorName) const {
  const Block* current = &block;
  // Bounded walk: a malformed graph may make blocks each other's parents.
  for (std::size_t depth = 0; current != nullptr && depth <= 256; ++depth) {
    if (const Tensor* t = current->findTensor(tensorName)) return t;
    current = parentBlock(*current);
  }
  return nullptr;
}

HostTensor constantValue(const Tensor& tensor) {
  HostTensor value(tensor.dtype, tensor.shape);
  if (tensor.data) {
    std::size_t n = std::min(value.bytes.size(), tensor.data->size());
    std::copy_n(tensor.data->begin(), n, value.bytes.begin());
  }
  return value;
}

}  // namespace openvgf::tosa
