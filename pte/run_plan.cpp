// SPDX-License-Identifier: Apache-2.0
// planVgfExecution(): see run_plan.h.
#include "pte/run_plan.h"

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace openvgf::pte {
namespace {

/// Out-variant operators that only copy their first argument's bytes into their out argument
/// when both are contiguous tensors of one type and element count (ExecuTorch's view and
/// clone kernels, and its dim-order clone).
bool isCopyOperator(std::string_view name) {
  for (std::string_view op : {"aten::clone", "aten::alias_copy", "aten::view_copy", "aten::_reshape_alias_copy",
                              "aten::squeeze_copy", "aten::unsqueeze_copy", "aten::reshape", "aten::_unsafe_view",
                              "aten::detach_copy", "dim_order_ops::_clone_dim_order"}) {
    if (name == op) return true;
  }
  return false;
}

bool contiguous(const Value& v) {
  for (std::size_t i = 0; i < v.dimOrder.size(); ++i) {
    if (v.dimOrder[i] != i) return false;
  }
  return true;
}

std::optional<std::int64_t> elementCount(const Value& v) {
  std::int64_t n = 1;
  for (std::int32_t d : v.sizes) {
    if (d < 0) return std::nullopt;
    n *= d;
  }
  return n;
}

std::string operatorName(const Operator& op) { return op.overload.empty() ? op.name : op.name + "." + op.overload; }

class Planner {
 public:
  Planner(const Program& program, std::size_t planIndex)
      : program_(program), plan_(program.plans[planIndex]),
        where_(fmt::format("execution_plan[{}] '{}'", planIndex, plan_.name)) {
    out_.planIndex = planIndex;
    out_.name = plan_.name;
  }

  Result<RunPlan> run();

 private:
  Status value(std::int32_t index, std::string_view what) const {
    if (index < 0 || static_cast<std::size_t>(index) >= plan_.values.size()) {
      return invalidInput("{}: {}: expected a value index < {}, got {}", where_, what, plan_.values.size(), index);
    }
    return {};
  }
  bool isTensor(std::int32_t index) const { return plan_.values[static_cast<std::size_t>(index)].kind == Value::Kind::Tensor; }
  Status delegateCall(const Instruction& inst, std::size_t at);
  Status kernelCall(const Instruction& inst, std::size_t at);
  Status dataFlow() const;

  const Program& program_;
  const ExecutionPlan& plan_;
  std::string where_;
  RunPlan out_;
  std::vector<std::string> refused_;  // what keeps the plan from running
};

Status Planner::delegateCall(const Instruction& inst, std::size_t at) {
  const std::string what = fmt::format("instruction {} (DelegateCall)", at);
  if (inst.index < 0 || static_cast<std::size_t>(inst.index) >= plan_.delegates.size()) {
    return invalidInput("{}: {}: delegate_index: expected < {}, got {}", where_, what, plan_.delegates.size(), inst.index);
  }
  const Delegate& d = plan_.delegates[static_cast<std::size_t>(inst.index)];
  if (d.kind != PayloadKind::Vgf) {
    refused_.push_back(fmt::format("a {} delegate ({})", d.backendId.empty() ? "nameless" : d.backendId, what));
    return {};
  }
  if (!d.payloadProblem.empty()) {
    return invalidInput("{}: delegates[{}] (VgfBackend): payload: {}", where_, inst.index, d.payloadProblem);
  }
  std::vector<std::uint8_t> storage;
  OPENVGF_ASSIGN_OR_RETURN(vgf::File file, decodeVgfPayload(d.payload, storage));
  if (inst.args.size() != file.inputs.size() + file.outputs.size()) {
    return invalidInput("{}: {}: args: expected {} values (the VGF's {} inputs, then {} outputs), got {}", where_, what,
                        file.inputs.size() + file.outputs.size(), file.inputs.size(), file.outputs.size(), inst.args.size());
  }
  Step step;
  step.kind = Step::Kind::Delegate;
  step.instruction = at;
  step.delegate = static_cast<std::size_t>(inst.index);
  for (std::size_t i = 0; i < inst.args.size(); ++i) {
    OPENVGF_TRY(value(inst.args[i], what));
    if (!isTensor(inst.args[i])) {
      return invalidInput("{}: {}: args[{}]: expected a Tensor value, got {}", where_, what, i,
                          toString(plan_.values[static_cast<std::size_t>(inst.args[i])].kind));
    }
    (i < file.inputs.size() ? step.inputs : step.outputs).push_back(inst.args[i]);
  }
  out_.steps.push_back(std::move(step));
  ++out_.delegates;
  return {};
}

Status Planner::kernelCall(const Instruction& inst, std::size_t at) {
  if (inst.index < 0 || static_cast<std::size_t>(inst.index) >= plan_.operators.size()) {
    return invalidInput("{}: instruction {} (KernelCall): op_index: expected < {}, got {}", where_, at, plan_.operators.size(),
                        inst.index);
  }
  const Operator& op = plan_.operators[static_cast<std::size_t>(inst.index)];
  const std::string name = operatorName(op);
  for (std::int32_t a : inst.args) OPENVGF_TRY(value(a, fmt::format("instruction {} ({})", at, name)));
  if (isCopyOperator(op.name) && inst.args.size() >= 2 && isTensor(inst.args.front()) && isTensor(inst.args.back())) {
    const Value& from = plan_.values[static_cast<std::size_t>(inst.args.front())];
    const Value& to = plan_.values[static_cast<std::size_t>(inst.args.back())];
    const auto n = elementCount(from);
    if (from.scalarType == to.scalarType && n && n == elementCount(to) && contiguous(from) && contiguous(to)) {
      Step step;
      step.kind = Step::Kind::Copy;
      step.instruction = at;
      step.inputs = {inst.args.front()};
      step.outputs = {inst.args.back()};
      step.op = name;
      out_.steps.push_back(std::move(step));
      return {};
    }
  }
  refused_.push_back(fmt::format("{} (instruction {})", name, at));
  return {};
}

Status Planner::dataFlow() const {
  std::set<std::int32_t> written(plan_.inputs.begin(), plan_.inputs.end());
  for (const Step& s : out_.steps) {
    for (std::int32_t v : s.inputs) {
      const Value& value = plan_.values[static_cast<std::size_t>(v)];
      if (written.count(v) != 0) continue;
      if (value.dataBufferIndex > 0) {
        return unsupported("{}: instruction {}: value {}: expected delegate inputs computed at run time, got a constant "
                           "tensor stored in the program", where_, s.instruction, v);
      }
      return invalidInput("{}: instruction {}: value {}: expected it to be a plan input or written by an earlier "
                          "instruction", where_, s.instruction, v);
    }
    written.insert(s.outputs.begin(), s.outputs.end());
  }
  for (std::int32_t v : plan_.outputs) {
    if (written.count(v) == 0) return invalidInput("{}: outputs: value {}: expected it to be written by the plan", where_, v);
  }
  return {};
}

Result<RunPlan> Planner::run() {
  for (std::int32_t v : plan_.inputs) {
    OPENVGF_TRY(value(v, "inputs"));
    if (!isTensor(v)) return unsupported("{}: inputs: value {}: expected a Tensor, got {}", where_, v, toString(plan_.values[static_cast<std::size_t>(v)].kind));
    out_.inputs.push_back(v);
  }
  for (std::int32_t v : plan_.outputs) {
    OPENVGF_TRY(value(v, "outputs"));
    if (!isTensor(v)) return unsupported("{}: outputs: value {}: expected a Tensor, got {}", where_, v, toString(plan_.values[static_cast<std::size_t>(v)].kind));
    out_.outputs.push_back(v);
  }
  if (plan_.chains.size() != 1) {
    return unsupported("{}: chains: expected one instruction chain, got {}", where_, plan_.chains.size());
  }
  const std::vector<Instruction>& chain = plan_.chains[0];
  for (std::size_t at = 0; at < chain.size(); ++at) {
    const Instruction& inst = chain[at];
    switch (inst.kind) {
      case Instruction::Kind::DelegateCall: OPENVGF_TRY(delegateCall(inst, at)); break;
      case Instruction::Kind::KernelCall: OPENVGF_TRY(kernelCall(inst, at)); break;
      case Instruction::Kind::MoveCall: {
        OPENVGF_TRY(value(inst.index, fmt::format("instruction {} (MoveCall)", at)));
        OPENVGF_TRY(value(inst.target, fmt::format("instruction {} (MoveCall)", at)));
        if (isTensor(inst.index) && isTensor(inst.target)) {
          out_.steps.push_back(Step{Step::Kind::Copy, at, 0, {inst.index}, {inst.target}, "move"});
        }
        break;
      }
      case Instruction::Kind::FreeCall: break;  // memory management only
      case Instruction::Kind::JumpFalseCall: refused_.push_back(fmt::format("a branch (instruction {}, JumpFalseCall)", at)); break;
      case Instruction::Kind::None: return invalidInput("{}: instruction {}: expected an instruction, got none", where_, at);
    }
  }
  if (!refused_.empty()) {
    return unsupported("{}: expected only VgfBackend delegates and plain copies/views between them, got {} that openvgf "
                       "cannot run: {}", where_, refused_.size() == 1 ? "one operation" : fmt::format("{} operations", refused_.size()),
                       fmt::join(refused_, ", "));
  }
  if (out_.delegates == 0) return unsupported("{}: expected at least one VgfBackend delegate call, got none", where_);
  OPENVGF_TRY(dataFlow());
  return std::move(out_);
}

}  // namespace

Result<RunPlan> planVgfExecution(const Program& program, std::string_view plan) {
  std::optional<std::size_t> index;
  for (std::size_t p = 0; p < program.plans.size(); ++p) {
    if (program.plans[p].name == plan || (plan.empty() && program.plans[p].name == "forward")) index = p;
  }
  if (plan.empty() && program.plans.size() == 1) index = 0;
  std::size_t position = 0;
  if (!index && std::from_chars(plan.data(), plan.data() + plan.size(), position).ec == std::errc() &&
      position < program.plans.size()) {
    index = position;
  }
  if (!index) {
    std::vector<std::string> names;
    for (const ExecutionPlan& p : program.plans) names.push_back("'" + p.name + "'");
    return invalidInput("--plan: expected one of the program's plans ({}){}, got '{}'",
                        names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")),
                        plan.empty() ? " (none given: the only plan, or 'forward')" : "", plan);
  }
  Planner planner(program, *index);
  return planner.run();
}

std::string formatRunnability(const Program& program) {
  std::string out;
  for (std::size_t p = 0; p < program.plans.size(); ++p) {
    auto plan = planVgfExecution(program, std::to_string(p));
    if (plan) {
      const std::size_t copies = plan->steps.size() - plan->delegates;
      out += fmt::format("plan '{}': runs with `openvgf run` ({} VgfBackend delegate call(s){})\n", program.plans[p].name,
                         plan->delegates, copies == 0 ? "" : fmt::format(", {} copy/view step(s)", copies));
    } else {
      out += fmt::format("plan '{}': does not run with `openvgf run`: {}\n", program.plans[p].name, plan.error().message());
    }
  }
  return out;
}

}  // namespace openvgf::pte
