// SPDX-License-Identifier: Apache-2.0
// Text form of an Ethos-U command stream: one line per command with its word offset,
// register name and decoded fields (named after the driver header's bitfields), printed from
// the register tables, for `openvgf inspect` and golden tests.
#pragma once

#include <span>
#include <string>

#include "ethosu/command_stream.h"

namespace openvgf::ethosu {

/// "0012 @0x0030 NPU_SET_IFM_PRECISION type=signed precision=8b format=NHWC ..."
std::string disassembleCommand(const Command& command, Product product);

/// The decoded fields alone ("type=signed precision=8b ..."), empty when there are none.
std::string commandFields(const Command& command, Product product);

/// All commands, one line each, newline-terminated.
std::string disassemble(std::span<const Command> commands, Product product);

}  // namespace openvgf::ethosu
