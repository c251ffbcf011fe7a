// SPDX-License-Identifier: Apache-2.0
// EXT-VARIABLE state as part of the model interface: each variable V becomes a model input
// named "state:V" (its value when the run starts) and, if the block writes V, a model output
// named "state:V" (its value when the run ends). The caller feeds the variable's initial
// value (the variable tensor's data in the .tosa) on the first run and each run's state
// output to the next run, as the reference interpreter's VariableState does.
#pragma once

#include "common/error.h"
#include "converter/program.h"

namespace openvgf::converter {

/// Model interface name of variable `variable`'s state ("state:<variable>").
std::string stateName(const std::string& variable);

/// Rewrites VARIABLE / VARIABLE_READ / VARIABLE_WRITE (and IDENTITY reading or writing a
/// variable tensor) of the program: declarations disappear, reads become IDENTITY of the
/// variable's current value, writes make the written tensor the current value, and the
/// final value of each written variable is copied (IDENTITY) to the state output.
Status lowerVariables(Program& program);

}  // namespace openvgf::converter
