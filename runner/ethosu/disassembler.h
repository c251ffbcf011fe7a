// SPDX-License-Identifier: Apache-2.0
// Text form of an Ethos-U55/U65 command stream: one line per command with its word offset,
// register name and decoded field values, for `openvgf inspect` and golden tests.
#pragma once

#include <span>
#include <string>

#include "runner/ethosu/command_stream.h"

namespace openvgf::runner::ethosu {

/// "0012 @0x0018 NPU_SET_IFM_PRECISION type=signed precision=8b format=NHWC ..."
std::string disassembleCommand(const Command& command, Product product);

/// All commands, one line each, newline-terminated.
std::string disassemble(std::span<const Command> commands, Product product);

}  // namespace openvgf::runner::ethosu
