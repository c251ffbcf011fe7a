// SPDX-License-Identifier: Apache-2.0
// The --input values of `run` and `compare` (docs/debugging.md): .npy files, PNG / JPEG images
// (openvgf::readImage with --mean / --std / --layout), headerless raw files (FILE:SHAPE:TYPE),
// and --random-inputs for the inputs not given; written on the installed API alone.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "command.h"

namespace openvgf::cli {

/// One --input argument: [NAME=]FILE.
struct GivenInput {
  std::string name;  // "" = bound in the model's input order
  std::string file;
  std::optional<NpyArray> array;  // a .npy or raw file; none for an image (read once the model is open)
};

struct GivenInputs {
  std::vector<GivenInput> given;
  std::vector<std::string> names() const;
  /// Every value is an array (no image, no --random-inputs): their shapes may lower a model.
  bool allArrays() const;
};

/// Adds -i/--input, --mean, --std, --layout and --random-inputs to `sub`, storing into
/// `options` (which must outlive parsing); returns what completes them once parsed (the seed).
std::function<void()> addInputOptions(CLI::App& sub, RunOptions& options);

/// Reads each --input: a PNG or JPEG (by content) is only recorded; FILE:SHAPE:TYPE
/// ("x.bin:1x224x224x3:uint8") is read as raw data; anything else as a .npy.
GivenInputs readGivenInputs(const RunOptions& options);

/// The model's inputs by name: each --input converted to the type and shape of the input it
/// binds to (images through readImage), the inputs nobody gave random values with
/// --random-inputs; inputs left to their defaults are not in the map.
std::map<std::string, Tensor> bindGivenInputs(const RunOptions& options, const Model& model,
                                              const GivenInputs& given);

/// --top-k K: the K largest values of each output with their flat indices (the class of a
/// [1, classes] output), on stdout.
void printTopK(const Model& model, const std::vector<Tensor>& outputs, std::size_t count, int k);

}  // namespace openvgf::cli
