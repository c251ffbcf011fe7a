// SPDX-License-Identifier: Apache-2.0
// EXT-VARIABLE state at the model interface: each variable of the main block becomes the
// model input and output `state:<name>`; a run reads the current value from the input and
// produces the next one as the output.
#pragma once

#include <map>
#include <string>

#include "tosa/graph.h"
#include "tosa/host_tensor.h"

namespace openvgf::converter {

/// "state:<variable name>" (the tensor name when the variable has no name of its own).
std::string stateName(const tosa::Tensor& variable);

/// VARIABLE_WRITE, or the IDENTITY the serializer writes for it (attribute tag VARIABLE_WRITE):
/// sets the variable named by its output to its input.
bool isVariableWrite(const tosa::Operator& op);

/// The initial value of every variable of the main block, by its state name: the tensor's
/// data, or zeros when it has none (as the reference interpreter starts).
std::map<std::string, tosa::HostTensor> initialStates(const tosa::Graph& graph);

}  // namespace openvgf::converter
