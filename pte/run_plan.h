// SPDX-License-Identifier: Apache-2.0
// Which execution plans of an ExecuTorch program openvgf can run itself, and how: a plan runs
// when its one instruction chain consists of VgfBackend delegate calls (each payload a VGF,
// specs/pte.md §2) and, between them, only operators that copy bytes unchanged (moves, clones
// and views of contiguous tensors). The result lists the steps in order with the value
// indexes each reads and writes; a DelegateCall's arguments are split into inputs and outputs
// with the VGF's model interface (the .pte does not record the split, §1.5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "pte/program.h"

namespace openvgf::pte {

struct Step {
  enum class Kind { Delegate, Copy };
  Kind kind = Kind::Delegate;
  std::size_t instruction = 0;        // position in the chain
  std::size_t delegate = 0;           // Delegate: index into the plan's delegates
  std::vector<std::int32_t> inputs;   // value indexes read (Copy: the source)
  std::vector<std::int32_t> outputs;  // value indexes written (Copy: the destination)
  std::string op;                     // Copy: the operator ("aten::view_copy.out", "move")
};

struct RunPlan {
  std::size_t planIndex = 0;
  std::string name;
  std::vector<std::int32_t> inputs;   // the plan's inputs (tensor values), in order
  std::vector<std::int32_t> outputs;  // the plan's outputs
  std::vector<Step> steps;
  std::size_t delegates = 0;          // Delegate steps
};

/// The steps of plan `plan` (its name, or its position as a decimal number; "" = the only
/// plan, or the one named 'forward'). Unsupported when
/// the plan calls other backends, non-delegated operators that are not plain copies (all of
/// them are named), or branches; InvalidInput for inconsistent indexes or data flow.
Result<RunPlan> planVgfExecution(const Program& program, std::string_view plan);

/// For `inspect`: one line per plan saying whether `openvgf run` can run it and why not.
std::string formatRunnability(const Program& program);

}  // namespace openvgf::pte
