// SPDX-License-Identifier: Apache-2.0
// Per-layer outputs of the openvgf command (docs/debugging.md): `run --dump DIR` and
// `compare MODEL`, written on the installed API alone.
#pragma once

#include <string>
#include <vector>

#include "command.h"

namespace openvgf::cli {

/// The outputs of a model opened with ModelOptions::keepIntermediates: every tensor as
/// DIR/<sanitised tensor name>.npy (a clash after sanitising gets _2, _3, ...), and
/// DIR/index.json listing each file's tensor name, shape, type and producing operator, in
/// operator order. `dir` was checked with checkWritableFolder.
void writeDump(const std::string& dir, const Model& model, const std::vector<Tensor>& outputs);

/// The number of the model's own outputs: those before the kept intermediates.
std::size_t graphOutputCount(const Model& model);

}  // namespace openvgf::cli
