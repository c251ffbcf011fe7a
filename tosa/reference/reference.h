// SPDX-License-Identifier: Apache-2.0
// The CPU reference interpreter of TOSA 1.0 (specs/tosa.md §2): runs a tosa::Graph on host
// tensors with the spec's exact integer semantics. Floating-point operators run in their
// type's precision (every result rounded to the tensor's type, accumulators to acc_type),
// or, in precise mode, in fp64 end to end so that the outputs can serve as the reference of
// TOSA's compliance checks (tosa/compliance.h).
//
// REQUIRE failures (results the spec calls unpredictable, e.g. INT32 overflow in ADD) never
// cause undefined behaviour here: the interpreter produces a deterministic value (wrapped),
// records a Diagnostic, and fails only in strict mode. ERROR_IF violations are errors naming
// the block, operator index, op and tensor.
//
// Variables (EXT-VARIABLE): a tensor with `variable` set, or the output name of a VARIABLE
// operator, is persistent state initialised from the tensor's data (zeros when absent).
// IDENTITY or VARIABLE_READ whose input names a variable reads it; IDENTITY or VARIABLE_WRITE
// whose output names a variable writes it (the serializer's convention, specs/tosa.md §1.6).
// Operators run in serialized order whenever that order is a valid topological order, so
// reads and writes of a variable keep their program order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "tosa/compliance.h"
#include "tosa/graph.h"
#include "tosa/host_tensor.h"

namespace openvgf::tosa::reference {

struct RunOptions {
  /// Evaluate floating-point operators in fp64 and return precise values, bounds and
  /// compliance rules for each output.
  bool precise = false;
  /// Turn the first REQUIRE failure into an error instead of a diagnostic.
  bool strict = false;
  /// WHILE_LOOP iteration limit (a graph that never terminates is reported as an error).
  std::int64_t maxLoopIterations = 1'000'000;
};

/// A REQUIRE failure: the output is unpredictable under the spec.
struct Diagnostic {
  std::string block;
  std::size_t opIndex = 0;
  Op op = Op::Unknown;
  std::string message;
};
std::string toString(const Diagnostic& diagnostic);

/// Persistent EXT-VARIABLE storage. Variables are created from their initial value on first
/// use and keep their value across runs that share this object.
class VariableState {
 public:
  bool contains(const std::string& name) const { return values_.contains(name); }
  const HostTensor* find(const std::string& name) const;
  void set(const std::string& name, HostTensor value) { values_[name] = std::move(value); }
  void clear() { values_.clear(); }
  const std::map<std::string, HostTensor>& values() const { return values_; }

 private:
  std::map<std::string, HostTensor> values_;
};

struct OutputValue {
  std::string name;
  HostTensor value;             // rounded to the output's type
  std::vector<double> precise;  // precise mode, float outputs: the fp64 reference
  std::vector<double> bounds;   // precise mode, dot-product producers: the bounds run
  compliance::Rule rule;        // precise mode: how to judge an implementation's result
};

struct RunResult {
  std::vector<OutputValue> outputs;  // graph output order
  std::vector<Diagnostic> diagnostics;
};

/// Refuses (Unsupported, naming the tensor) a graph declaring a tensor larger than the
/// interpreter materialises (kMaxElements, value.h), before any input is read or allocated.
/// run() calls it too.
Status checkLimits(const Graph& graph);

/// Runs the main block of `graph`. Inputs bind in the block's input order; their dtype and
/// shape must match the declared ones. `state` keeps variables between runs (a fresh one is
/// used when null).
Result<RunResult> run(const Graph& graph, std::span<const HostTensor> inputs, const RunOptions& options = {},
                      VariableState* state = nullptr);

/// Graph-level compliance check used by `openvgf run --check`: judges each actual output
/// (graph output order) with the rule in `reference` (which must come from a precise run).
Result<std::vector<compliance::Verdict>> checkOutputs(const RunResult& reference,
                                                      std::span<const HostTensor> actual);

}  // namespace openvgf::tosa::reference
