// SPDX-License-Identifier: Apache-2.0
// api::Session: one run context for a whole api::Model. A model of one part forwards to its
// runner::Session; a .pte plan runs its parts' sessions in program order, feeding each
// delegate call the values of the plan (its inputs, earlier delegates' outputs, copies), the
// way ExecuTorch's runtime would call VgfBackend.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "api/model.h"
#include "common/error.h"
#include "runner/check.h"
#include "runner/session.h"
#include "tosa/graph.h"
#include "tosa/host_tensor.h"

namespace openvgf::api {

/// The checks of one part: `label` names it (empty for a model of one part).
struct PartCheck {
  std::string label;
  std::vector<runner::OutputCheck> checks;
};

class Session {
 public:
  static Result<Session> create(const Model& model, const runner::SessionOptions& options = {});

  Session(Session&&) noexcept = default;
  Session& operator=(Session&&) noexcept = default;

  const Model& model() const { return *model_; }
  const std::vector<runner::TensorInfo>& inputs() const { return model_->loaded().inputs(); }
  const std::vector<runner::TensorInfo>& outputs() const { return model_->loaded().outputs(); }

  /// As runner::Session: InvalidInput naming the input when dtype, shape or size differ.
  Status checkInput(std::size_t index, tosa::DType dtype, const tosa::Shape& shape, std::size_t bytes) const;
  /// Runs once with inputs in model order; `outputs` is resized and reused as runner::Session::run does.
  Status run(std::span<const tosa::HostTensor* const> inputs, std::vector<tosa::HostTensor>& outputs);
  /// Write the inputs here, call runInPlace(), read the outputs (spans live as long as the Session).
  std::span<std::uint8_t> inputMemory(std::size_t index);
  std::span<const std::uint8_t> outputMemory(std::size_t index) const;
  Status runInPlace();
  /// The runner session of a model of one part (runAsync, pinned and device-resident
  /// tensors); null for a .pte plan, whose parts run one after another through host memory.
  runner::Session* single() { return model_->loaded().program() ? nullptr : &parts_[0]; }

  /// Timings of the last run: a .pte's parts one after another (GPU time is their sum).
  const runner::RunTiming& lastTiming() const;
  /// One name per dispatch, in order (a .pte's prefixed with its delegate).
  const std::vector<std::string>& segmentNames() const;
  /// runner::Session::pipelineStatistics of every part (a .pte's modules prefixed with their
  /// delegate); needs DeviceOptions::pipelineStatistics.
  Result<std::vector<runner::PipelineStatistics>> pipelineStatistics() const;

 private:
  Session() = default;
  friend Result<std::vector<PartCheck>> checkCarriedGraphs(const Session&, std::span<const tosa::Graph>,
                                                          std::span<const tosa::HostTensor>,
                                                          std::span<const tosa::HostTensor>);
  Status runProgram();

  const Model* model_ = nullptr;
  std::vector<runner::Session> parts_;
  // A .pte: every value of the plan a step reads or writes, after the last run.
  std::map<std::int32_t, tosa::HostTensor> values_;
  runner::RunTiming timing_;
  std::vector<std::string> segmentNames_;
};

/// `run --check` without a file: after a run of `session` on `inputs` giving `outputs`, judges
/// each part's outputs against its graph in `graphs` (LoadedModel::carriedGraphs) on the
/// inputs that part received.
Result<std::vector<PartCheck>> checkCarriedGraphs(const Session& session, std::span<const tosa::Graph> graphs,
                                                  std::span<const tosa::HostTensor> inputs,
                                                  std::span<const tosa::HostTensor> outputs);

}  // namespace openvgf::api
