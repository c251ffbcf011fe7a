// SPDX-License-Identifier: Apache-2.0
// The Ethos-U part of `openvgf run`: a model that Model::open runs in the Ethos-U simulator
// (ModelFormat::EthosU: a .ethosu file, or the Ethos-U delegate of a .pte).
#pragma once

#include <string>
#include <vector>

#include "command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {

/// Runs `model` on the --input arrays (`names[i]`: the name arrays[i] was given under, "" =
/// none), writes --output / --output-dir and, with --check MODEL.tosa (the model was opened
/// with it as its reference), compares every output with the reference interpreter bit for
/// bit. Returns the exit code: 1 when the check fails.
int runEthosU(const RunOptions& options, const Model& model, const std::vector<std::string>& names,
              const std::vector<NpyArray>& arrays);

}  // namespace openvgf::cli
