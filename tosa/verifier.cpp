// SPDX-License-Identifier: Apache-2.0
// TOSA 1.0 graph verifier. Graph-level checks run per block (names, definitions, cycles,
// outputs, control-flow signatures); each operator is checked by OpCheck: operand counts and
// names here, then the operator's verify rule and shape rule (tosa/ops/<family>.cpp, named by
// tosa/ops.def) with the type rows of the operator table (specs/tosa.md §2.2-2.3).
#include "tosa/verifier.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "tosa/float_types.h"
#include "tosa/op_table.h"
#include "tosa/ops/rules.h"
#include "tosa/packing.h"
#include "tosa/shape_inference.h"

namespace openvgf::tosa {

namespace ops {

//===------------------------------------------------------------------===//
// Helpers the rules share.
//===------------------------------------------------------------------===//

std::string typeOf(const Tensor& t) {
  return fmt::format("{} {}", toString(t.dtype), shapeToString(t.shape));
}

std::string intList(const std::vector<std::int32_t>& v) { return fmt::format("[{}]", fmt::join(v, ",")); }

std::optional<double> scalarOf(DType type, std::span<const std::uint8_t> bytes, std::size_t index) {
  std::size_t n = hostElementBytes(type);
  if (n == 0 || bytes.size() < (index + 1) * n) return std::nullopt;
  const std::uint8_t* p = bytes.data() + index * n;
  switch (type) {
    case DType::Bool: return p[0] != 0 ? 1.0 : 0.0;
    case DType::Int4:
    case DType::Int8: return static_cast<double>(static_cast<std::int8_t>(p[0]));
    case DType::Int16: {
      std::int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DType::Int32: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::Int48:
    case DType::Shape: {
      std::int64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
    case DType::Fp32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::Fp16:
    case DType::Bf16: {
      std::uint16_t v;
      std::memcpy(&v, p, 2);
      return decodeFloat(v, *floatFormatOf(type));
    }
    case DType::Fp8E4M3:
    case DType::Fp8E5M2: return decodeFloat(p[0], *floatFormatOf(type));
    case DType::Unknown: return std::nullopt;
  }
  return std::nullopt;
}

//===------------------------------------------------------------------===//
// Names and blocks.
//===------------------------------------------------------------------===//

const Tensor* Scope::find(const Block& block, std::string_view name) const {
  const Block* current = &block;
  for (int depth = 0; current != nullptr && depth <= 256; ++depth) {
    const auto& index = indexOf(*current);
    auto it = index.find(std::string(name));
    if (it != index.end()) return it->second;
    auto p = parents_.find(current);
    current = p == parents_.end() ? nullptr : p->second;
  }
  return nullptr;
}

const std::unordered_map<std::string, const Tensor*>& Scope::indexOf(const Block& block) const {
  auto it = index_.find(&block);
  if (it != index_.end()) return it->second;
  auto& map = index_[&block];
  for (const Tensor& t : block.tensors) map.emplace(t.name, &t);
  return map;
}

}  // namespace ops

namespace {

using ops::OpCheck;
using ops::Scope;

std::unordered_map<const Block*, const Block*> parentMap(const Graph& graph) {
  std::unordered_map<const Block*, const Block*> parents;
  for (const Region& r : graph.regions) {
    for (const Block& b : r.blocks) {
      for (const Operator& op : b.operators) {
        std::vector<std::string_view> names;
        if (const auto* c = std::get_if<CondIfAttrs>(&op.attrs)) names = {c->thenGraph, c->elseGraph};
        if (const auto* w = std::get_if<WhileLoopAttrs>(&op.attrs)) names = {w->condGraph, w->bodyGraph};
        for (std::string_view n : names) {
          const Block* child = graph.findGraph(n);
          if (child != nullptr && child != &b && !parents.contains(child)) parents[child] = &b;
        }
      }
    }
  }
  return parents;
}

std::string blockPath(const Graph& graph, const Block& block) {
  for (std::size_t r = 0; r < graph.regions.size(); ++r) {
    for (std::size_t b = 0; b < graph.regions[r].blocks.size(); ++b) {
      if (&graph.regions[r].blocks[b] == &block)
        return fmt::format("regions[{}].blocks[{}] '{}'", r, b, block.name);
    }
  }
  return fmt::format("block '{}'", block.name);
}

}  // namespace

//===------------------------------------------------------------------===//
// Operator checks.
//===------------------------------------------------------------------===//

namespace ops {

OpCheck::OpCheck(const Graph& graph, const Block& block, std::size_t index, const Scope& scope,
                 const VerifyOptions& options)
    : graph_(graph), block_(block), op_(block.operators[index]), index_(index), scope_(scope), options_(options) {}

Unexpected OpCheck::failWith(const std::string& message) const {
  return invalidInput("{}: operators[{}] {}: {}", blockPath(graph_, block_), index_, toString(op_.op), message);
}

Status OpCheck::resolve() {
  const OpArity arity = opArity(op_.op);
  const int nIn = arity.inputs;
  const int nOut = arity.outputs;
  if (nIn >= 0 && op_.inputs.size() != static_cast<std::size_t>(nIn)) {
    return fail("expected {} inputs, got {}", nIn, op_.inputs.size());
  }
  if (nOut >= 0 && op_.outputs.size() != static_cast<std::size_t>(nOut)) {
    return fail("expected {} outputs, got {}", nOut, op_.outputs.size());
  }
  if (op_.op == Op::Concat && op_.inputs.empty())
    return fail("input1: expected at least one tensor, got none");
  for (const std::string& name : op_.inputs) {
    const Tensor* t = scope_.find(block_, name);
    if (t == nullptr)
      return fail("input '{}': undefined tensor (no declaration in this block or its parents)", name);
    inputs_.push_back(t);
  }
  for (const std::string& name : op_.outputs) {
    const Tensor* t = scope_.find(block_, name);
    if (t == nullptr) return fail("output '{}': undefined tensor (no declaration in this block)", name);
    outputs_.push_back(t);
  }
  return {};
}

Status OpCheck::checkTypes(std::initializer_list<DType> key, std::string_view what) {
  const std::span<const TypeRow> rows = opInfo(op_.op).types;
  if (rows.empty()) return {};
  const std::span<const DType> types(key.begin(), key.size());
  for (const TypeRow& row : rows) {
    if (row.matches(types)) matched_.push_back(&row);
  }
  if (matched_.empty()) {
    std::vector<std::string_view> names;
    for (DType t : key) names.push_back(toString(t));
    return Unexpected(Error(
        ErrorKind::Unsupported,
        fmt::format("{}: operators[{}] {}: {}: expected a type combination of a TOSA 1.0 "
                    "profile or extension, got {}",
                    blockPath(graph_, block_), index_, toString(op_.op), what, fmt::join(names, " x "))));
  }
  return {};
}

Status OpCheck::checkNan(NanMode m) const {
  if (m != NanMode::Propagate && m != NanMode::Ignore) {
    return fail("nan_mode: expected PROPAGATE or IGNORE, got {}", static_cast<std::uint32_t>(m));
  }
  return {};
}

Status OpCheck::requireType(std::size_t input, std::string_view argName, DType expected) const {
  if (in(input).dtype != expected) {
    return fail("{} '{}': expected type {}, got {}", argName, in(input).name, toString(expected),
                toString(in(input).dtype));
  }
  return {};
}
Status OpCheck::requireCtc(std::size_t input, std::string_view argName) const {
  const Tensor& t = in(input);
  bool constant = t.data.has_value() && !t.variable;
  if (!constant) {
    if (options_.allowDynamic) {
      extraExt_ |= kExtDynamic;
      return {};
    }
    return fail(
        "{} '{}': expected a compile-time constant (CONST/CONST_SHAPE output) in PRO-INT/PRO-FP without "
        "EXT-DYNAMIC, got a computed tensor",
        argName, t.name);
  }
  return {};
}

Status OpCheck::zeroPoint(std::size_t input, std::string_view argName, DType type,
                            bool allowNonZero) const {
  const Tensor& zp = in(input);
  if (zp.dtype != type) {
    return fail("{} '{}': expected type {} (the zero point's operand type), got {}", argName, zp.name,
                toString(type), toString(zp.dtype));
  }
  auto count = checkedElementCount(zp.shape);
  if (!count || *count != 1)
    return fail("{} '{}': expected one element (shape [1]), got {}", argName, zp.name,
                shapeToString(zp.shape));
  OPENVGF_TRY(requireCtc(input, argName));
  if (!allowNonZero && zp.data) {
    auto v = scalarOf(zp.dtype, *zp.data);
    if (v && *v != 0.0) {
      return fail("{} '{}': expected 0 (ERROR_IF {} != 0 for non-int8 types), got {}", argName, zp.name,
                  argName, *v);
    }
  }
  return {};
}

Status OpCheck::checkShapes() {
  if (!hasShapeInference(op_.op)) return {};
  std::vector<ValueInfo> infos;
  for (const Tensor* t : inputs_) {
    ValueInfo v{t->dtype, t->shape, std::nullopt};
    if (t->dtype == DType::Shape && t->data) {
      std::vector<std::int64_t> values(t->data->size() / 8);
      if (!values.empty()) std::memcpy(values.data(), t->data->data(), values.size() * 8);
      v.shapeValue = std::move(values);
    }
    infos.push_back(std::move(v));
  }
  auto inferred = inferOutputs(op_.op, op_.attrs, infos);
  if (!inferred) return fail("{}", inferred.error().message());
  for (std::size_t i = 0; i < inferred->size() && i < outputs_.size(); ++i) {
    const OutputInfo& o = (*inferred)[i];
    const Tensor& t = out(i);
    if (t.shape != o.shape) {
      return fail("output '{}': expected shape {} (from the inputs and attributes), got {}", t.name,
                  shapeToString(o.shape), shapeToString(t.shape));
    }
    bool typeIsChoice = op_.op == Op::MatMul || o.dtype == DType::Unknown;
    if (!typeIsChoice && t.dtype != o.dtype) {
      return fail("output '{}': expected type {}, got {}", t.name, toString(o.dtype), toString(t.dtype));
    }
  }
  return {};
}

Status OpCheck::run() {
  if (!isValid(op_.op) || op_.op == Op::Unknown) {
    return fail("op: expected a TOSA 1.0 operator, got {}", static_cast<std::uint32_t>(op_.op));
  }
  OPENVGF_TRY(resolve());
  // Types and attributes first: a wrong type explains a wrong shape better than the reverse.
  const ops::OpRules* rules = opInfo(op_.op).rules;
  if (rules->verify != nullptr) OPENVGF_TRY(rules->verify(*this));
  OPENVGF_TRY(checkShapes());
  return {};
}

}  // namespace ops

namespace {

//===------------------------------------------------------------------===//
// Graph checks.
//===------------------------------------------------------------------===//

class GraphChecker {
 public:
  GraphChecker(const Graph& graph, const VerifyOptions& options)
      : graph_(graph), options_(options), parents_(parentMap(graph)), scope_(parents_) {}

  std::vector<Error> run(bool stopAtFirst) {
    stopAtFirst_ = stopAtFirst;
    const Block* main = graph_.mainBlock();
    if (main == nullptr) {
      add(invalidInput("graph: expected a main block in regions[0], got none").error());
      return errors_;
    }
    checkNesting();
    for (const Region& r : graph_.regions) {
      for (const Block& b : r.blocks) {
        if (done()) return errors_;
        checkBlock(b);
      }
    }
    return errors_;
  }

  Requirements requirements() {
    std::uint32_t ext = 0;
    std::uint8_t forced = 0;
    std::vector<std::vector<const TypeRow*>> flexible;
    for (const Region& r : graph_.regions) {
      for (const Block& b : r.blocks) {
        for (const Tensor& t : b.tensors) {
          if (t.variable) ext |= kExtVariable;
        }
        for (std::size_t i = 0; i < b.operators.size(); ++i) {
          OpCheck c(graph_, b, i, scope_, options_);
          if (!c.run()) continue;
          ext |= c.extraExtensions();
          const std::vector<const TypeRow*>& rows = c.matchedRows();
          if (rows.empty()) continue;
          if (rows.size() == 1 && rows[0]->profiles != kProBoth) {
            forced |= rows[0]->profiles;
            ext |= rows[0]->extensions;
          } else {
            flexible.push_back(rows);
          }
        }
      }
    }
    for (const auto& rows : flexible) {
      // Prefer a row whose profile is needed anyway, then one without extensions.
      const TypeRow* best = nullptr;
      for (const TypeRow* a : rows) {
        bool covered = (a->profiles & forced) != 0;
        if (best == nullptr || (covered && (best->profiles & forced) == 0) ||
            (covered == ((best->profiles & forced) != 0) &&
             std::popcount(a->extensions) < std::popcount(best->extensions))) {
          best = a;
        }
      }
      if ((best->profiles & forced) == 0) forced |= (best->profiles & kProInt) ? kProInt : kProFp;
      ext |= best->extensions;
    }
    Requirements req;
    if (forced & kProInt) req.profiles.emplace_back("PRO-INT");
    if (forced & kProFp) req.profiles.emplace_back("PRO-FP");
    for (std::size_t i = 0; i < kExtensionNames.size(); ++i) {
      if (ext & (1u << i)) req.extensions.emplace_back(kExtensionNames[i]);
    }
    std::sort(req.extensions.begin(), req.extensions.end());
    return req;
  }

 private:
  bool done() const { return stopAtFirst_ && !errors_.empty(); }
  void add(Error e) { errors_.push_back(std::move(e)); }
  template <typename... Args>
  void failBlock(const Block& b, fmt::format_string<Args...> format, Args&&... args) {
    add(Error(ErrorKind::InvalidInput,
              fmt::format("{}: {}", blockPath(graph_, b), fmt::format(format, std::forward<Args>(args)...))));
  }

  /// Control-flow references must not loop back (a graph calling itself, directly or not).
  void checkNesting() {
    std::unordered_map<const Block*, int> state;  // 0 new, 1 on stack, 2 done
    std::function<bool(const Block&, int)> visit = [&](const Block& b, int depth) -> bool {
      if (depth > 256) {
        failBlock(b, "control flow: expected nesting depth <= 256 (MAX_NESTING), got deeper");
        return false;
      }
      state[&b] = 1;
      for (const Operator& op : b.operators) {
        std::vector<std::string_view> names;
        if (const auto* c = std::get_if<CondIfAttrs>(&op.attrs)) names = {c->thenGraph, c->elseGraph};
        if (const auto* w = std::get_if<WhileLoopAttrs>(&op.attrs)) names = {w->condGraph, w->bodyGraph};
        for (std::string_view n : names) {
          const Block* child = graph_.findGraph(n);
          if (child == nullptr) continue;
          if (state[child] == 1) {
            failBlock(b, "control flow: graph '{}' calls itself (a cycle of COND_IF/WHILE_LOOP graphs)", n);
            return false;
          }
          if (state[child] == 0 && !visit(*child, depth + 1)) return false;
        }
      }
      state[&b] = 2;
      return true;
    };
    visit(*graph_.mainBlock(), 0);
  }

  void checkBlock(const Block& b) {
    // Declarations.
    std::unordered_set<std::string> declared;
    for (const Tensor& t : b.tensors) {
      if (!declared.insert(t.name).second) {
        failBlock(b, "tensors: duplicate definition of tensor '{}'", t.name);
        if (done()) return;
      }
      if (!isValid(t.dtype) || t.dtype == DType::Unknown) {
        failBlock(b, "tensor '{}': expected a TOSA 1.0 type, got {}", t.name,
                  static_cast<std::uint32_t>(t.dtype));
        if (done()) return;
      }
      bool positive = true;
      for (std::int64_t d : t.shape) {
        if (d < 1 && t.dtype != DType::Shape) {
          failBlock(b, "tensor '{}': expected every dimension >= 1, got shape {}", t.name,
                    shapeToString(t.shape));
          if (done()) return;
          positive = false;
          break;
        }
      }
      if (positive && t.dtype != DType::Shape && !checkedElementCount(t.shape)) {
        failBlock(b, "tensor '{}': shape {}: expected at most 2^63 - 1 elements (tensor_size_t, MAX_LOG2_SIZE 63 of "
                  "level none), got more",
                  t.name, shapeToString(t.shape));
        if (done()) return;
      }
    }
    // Producers.
    std::unordered_map<std::string, std::size_t> producer;
    std::unordered_set<std::string> blockInputs(b.inputs.begin(), b.inputs.end());
    bool isMain = &b == graph_.mainBlock();
    for (const std::string& name : b.inputs) {
      const Tensor* t = b.findTensor(name);
      if (t == nullptr) {
        failBlock(b, "inputs: '{}' has no tensor declaration", name);
      } else if (isMain && t->dtype == DType::Shape) {
        failBlock(b, "inputs: '{}': expected a tensor, got a shape_t value (graph inputs cannot be shapes)", name);
      }
      if (done()) return;
    }
    for (const std::string& name : b.outputs) {
      const Tensor* t = b.findTensor(name);
      if (isMain && t != nullptr && t->dtype == DType::Shape) {
        failBlock(b, "outputs: '{}': expected a tensor, got a shape_t value (graph outputs cannot be shapes)", name);
        if (done()) return;
      }
    }
    for (std::size_t i = 0; i < b.operators.size(); ++i) {
      const Operator& op = b.operators[i];
      for (const std::string& name : op.outputs) {
        const Tensor* t = scope_.find(b, name);
        if (t != nullptr && t->variable) continue;  // variable writes
        if (blockInputs.contains(name)) {
          failBlock(b, "operators[{}] {}: output '{}': duplicate definition (also a block input)", i,
                    toString(op.op), name);
          if (done()) return;
          continue;
        }
        auto [it, inserted] = producer.emplace(name, i);
        if (!inserted) {
          failBlock(
              b, "operators[{}] {}: output '{}': duplicate definition (already produced by operators[{}] {})",
              i, toString(op.op), name, it->second, toString(b.operators[it->second].op));
          if (done()) return;
        }
      }
    }
    auto isAvailable = [&](const std::string& name) {
      if (producer.contains(name) || blockInputs.contains(name)) return true;
      const Tensor* own = b.findTensor(name);
      if (own != nullptr) return own->data.has_value() || own->variable;
      return scope_.find(b, name) != nullptr;  // a parent block's value
    };
    // Operators and their use of names.
    for (std::size_t i = 0; i < b.operators.size(); ++i) {
      const Operator& op = b.operators[i];
      OpCheck checker(graph_, b, i, scope_, options_);
      Status s = checker.run();
      if (!s) {
        add(std::move(s).error());
        if (done()) return;
        continue;
      }
      for (const std::string& name : op.inputs) {
        if (!isAvailable(name)) {
          failBlock(b,
                    "operators[{}] {}: input '{}': tensor is never produced (not a block input, constant or "
                    "operator output)",
                    i, toString(op.op), name);
          if (done()) return;
        }
      }
    }
    // Cycles: Kahn's algorithm over the operators of this block.
    std::vector<std::size_t> pending(b.operators.size(), 0);
    std::unordered_map<std::size_t, std::vector<std::size_t>> consumers;
    for (std::size_t i = 0; i < b.operators.size(); ++i) {
      for (const std::string& name : b.operators[i].inputs) {
        auto it = producer.find(name);
        if (it != producer.end()) {
          ++pending[i];
          consumers[it->second].push_back(i);
        }
      }
    }
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (pending[i] == 0) ready.push_back(i);
    }
    std::size_t visited = 0;
    while (!ready.empty()) {
      std::size_t i = ready.back();
      ready.pop_back();
      ++visited;
      for (std::size_t c : consumers[i]) {
        if (--pending[c] == 0) ready.push_back(c);
      }
    }
    if (visited != b.operators.size()) {
      for (std::size_t i = 0; i < pending.size(); ++i) {
        if (pending[i] != 0) {
          failBlock(b, "operators[{}] {}: part of a cycle (its inputs depend on its own outputs)", i,
                    toString(b.operators[i].op));
          if (done()) return;
          break;
        }
      }
    }
    // Outputs.
    for (const std::string& name : b.outputs) {
      if (scope_.find(b, name) == nullptr) {
        failBlock(b, "outputs: '{}' is undefined (no tensor declaration)", name);
      } else if (!isAvailable(name)) {
        failBlock(b, "outputs: '{}' is never produced (not a block input, constant or operator output)",
                  name);
      }
      if (done()) return;
    }
  }

  const Graph& graph_;
  const VerifyOptions& options_;
  std::unordered_map<const Block*, const Block*> parents_;
  Scope scope_;
  std::vector<Error> errors_;
  bool stopAtFirst_ = false;
};

}  // namespace

Status verify(const Graph& graph, const VerifyOptions& options) {
  std::vector<Error> errors = GraphChecker(graph, options).run(true);
  if (errors.empty()) return {};
  return Unexpected(std::move(errors.front()));
}

std::vector<Error> verifyAll(const Graph& graph, const VerifyOptions& options) {
  return GraphChecker(graph, options).run(false);
}

Status verifyOperator(const Graph& graph, const Block& block, std::size_t operatorIndex,
                      const VerifyOptions& options) {
  if (operatorIndex >= block.operators.size()) {
    return invalidInput("{}: operators[{}]: expected an index below {}", block.name, operatorIndex,
                        block.operators.size());
  }
  auto parents = parentMap(graph);
  Scope scope(parents);
  return OpCheck(graph, block, operatorIndex, scope, options).run();
}

Requirements requirements(const Graph& graph) {
  VerifyOptions options;
  options.allowDynamic = true;
  GraphChecker checker(graph, options);
  return checker.requirements();
}

}  // namespace openvgf::tosa
