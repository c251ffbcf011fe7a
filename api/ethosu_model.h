// SPDX-License-Identifier: Apache-2.0
// api::EthosUModel: an Ethos-U command stream made runnable in the bit-exact simulator
// (runner/ethosu), the way Model::open runs a .ethosu file (vela_bin_stream) or a .pte whose
// delegates are all Ethos-U streams (its one EthosUBackend delegate). No Vulkan device is
// involved. A stream records its tensors as element sizes and shapes padded to 4 or 6
// dimensions, without names or rank; the TOSA graph it was compiled from (a reference) gives
// them names, types and exact shapes, and judges its outputs bit for bit.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "runner/ethosu/session.h"
#include "runner/model.h"
#include "tosa/graph.h"
#include "tosa/host_tensor.h"

namespace openvgf::api {

/// One output judged against the reference interpreter, byte for byte.
struct BitExactCheck {
  std::string output;
  bool pass = false;
  std::string line;  // "output 'y': bit-exact (256 elements)" or "output 'y': MISMATCH: ..."
};

class EthosUModel {
 public:
  /// The Ethos-U model in `path`: a vela_bin_stream, or a .pte whose delegates are all Ethos-U
  /// streams (exactly one, in `plan` when it is not empty: a name or an index). nullopt for any
  /// other file (a .tosa, a .vgf, a .pte with other delegates): Model::open runs those on a
  /// device. A bare COP1 payload (no I/O placement) is refused.
  static Result<std::optional<EthosUModel>> load(const std::filesystem::path& path, const std::string& plan = "");

  const std::string& path() const { return path_; }
  /// The file, or for a .pte "<file>: execution_plan[p] 'name' delegates[d] (EthosUBackend)":
  /// what runs, and what messages start with.
  const std::string& source() const { return source_; }
  /// "Ethos-U55 simulator (ethos-u55-128)".
  const std::string& simulatorName() const { return simulatorName_; }
  /// input_<i> / output_<i> with the stream's shapes (leading 1s dropped down to 4 dimensions),
  /// or the reference's names, types and shapes after useReference.
  const std::vector<runner::TensorInfo>& inputs() const { return inputs_; }
  const std::vector<runner::TensorInfo>& outputs() const { return outputs_; }

  /// Takes names, types and shapes from the main block of `graph` (read from `graphPath`),
  /// after checking that it has the stream's tensor counts and byte sizes.
  Status useReference(const tosa::Graph& graph, const std::string& graphPath);

  /// Runs the stream on `inputs` (one buffer per input, its exact byte size), returns the
  /// outputs' bytes. Thread-safe: the model is not modified.
  Result<std::vector<std::vector<std::uint8_t>>> run(std::span<const std::vector<std::uint8_t>> inputs,
                                                     runner::ethosu::SimulatorStats* stats) const;

  /// Runs `graph` on the reference interpreter with `inputs` (model order, the reference's
  /// shapes) and compares each of `outputs` with its result byte for byte.
  static Result<std::vector<BitExactCheck>> checkBitExact(const tosa::Graph& graph, const std::string& graphPath,
                                                          std::span<const tosa::HostTensor> inputs,
                                                          std::span<const tosa::HostTensor> outputs);

 private:
  EthosUModel() = default;
  Status describe();

  std::string path_;
  std::string source_;
  std::string simulatorName_;
  runner::ethosu::LoadedModel model_;
  std::vector<runner::TensorInfo> inputs_;
  std::vector<runner::TensorInfo> outputs_;
};

}  // namespace openvgf::api
