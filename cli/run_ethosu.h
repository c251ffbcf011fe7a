// SPDX-License-Identifier: Apache-2.0
// The Ethos-U parts of `openvgf run`, callable from a combined .pte run handler.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "cli/command.h"
#include "common/error.h"
#include "runner/ethosu/session.h"

namespace openvgf::cli {

/// Runs a loaded Ethos-U model with the command's inputs, outputs and --check; `name` is the
/// file (and delegate) the model came from and prefixes every message.
Result<int> runEthosUModel(const RunOptions& options, const runner::ethosu::LoadedModel& model, std::string_view name);

/// `openvgf run program.pte` for a program whose plans hold one Ethos-U delegate: the inputs
/// and outputs are that delegate's (quantized) tensors.
Result<int> runEthosUPte(const RunOptions& options, std::span<const std::uint8_t> bytes);

}  // namespace openvgf::cli
