// SPDX-License-Identifier: Apache-2.0
// runner::Session: one model made ready to run on one device. Creation does all the work
// (memory, constant upload, pipelines, descriptor sets, one recorded command buffer); each
// run is: copy inputs into persistently mapped staging memory, one submit, one wait, copy
// outputs out. Nothing is allocated per run when the caller reuses its output vector.
//
// A Session is not thread-safe; several Sessions (of one Model and one Context) may run on
// different threads at once: they share no mutable state except the queue, whose submits the
// Device serializes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "runner/context.h"
#include "runner/model.h"
#include "tosa/host_tensor.h"
#include "vulkan/commands.h"
#include "vulkan/memory.h"
#include "vulkan/pipeline.h"

namespace openvgf::runner {

enum class IoMode {
  Auto,    ///< Direct on devices with unified memory (integrated GPU, CPU), else Copy
  Copy,    ///< inputs/outputs live in device-local memory; the command buffer copies staging <-> device
  Direct,  ///< shaders read/write the mapped host-visible memory directly (needs unified memory)
};

struct SessionOptions {
  bool profile = false;    ///< record a GPU timestamp after every dispatch
  IoMode io = IoMode::Auto;
  unsigned pipelineThreads = 0;  ///< threads creating pipelines (0: hardware concurrency)
};

/// GPU and host timings of the last run (with SessionOptions::profile).
struct RunTiming {
  /// Timestamps in ns (GPU clock): [0] before the first dispatch, [i+1] after segment i.
  std::vector<std::uint64_t> timestampsNs;
  double hostMs = 0;  ///< wall time of run(), inputs in to outputs out
  double gpuMs() const {
    return timestampsNs.size() < 2 ? 0.0 : static_cast<double>(timestampsNs.back() - timestampsNs.front()) * 1e-6;
  }
};

/// An input given by name (empty name: next unnamed model input, in order).
struct NamedInput {
  std::string name;
  const tosa::HostTensor* tensor = nullptr;
};

/// Orders named/unnamed inputs into the model's input order, with clear messages for unknown,
/// duplicate or missing names and a wrong count.
Result<std::vector<const tosa::HostTensor*>> bindInputs(const Model& model, std::span<const NamedInput> inputs);

class Session {
 public:
  static Result<Session> create(const Context& context, const Model& model, const SessionOptions& options = {});

  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  /// Runs once with inputs in model order. `outputs` is resized to the model's outputs; tensors
  /// already of the right dtype and shape are reused, so repeated calls allocate nothing.
  /// Wrong input count, dtype or shape: InvalidInput naming the input.
  Status run(std::span<const tosa::HostTensor* const> inputs, std::vector<tosa::HostTensor>& outputs);
  /// The checks run() makes on input `index`: InvalidInput naming the input when the dtype,
  /// shape or byte count differs from the model's.
  Status checkInput(std::size_t index, tosa::DType dtype, const tosa::Shape& shape, std::size_t bytes) const;
  /// Convenience: inputs in model order, fresh outputs.
  Result<std::vector<tosa::HostTensor>> run(std::span<const tosa::HostTensor> inputs);

  /// Zero-copy path: write inputs straight into mapped staging memory, call runInPlace(),
  /// read outputs from mapped memory. Spans stay valid for the Session's lifetime.
  std::span<std::uint8_t> inputMemory(std::size_t index) const;
  std::span<const std::uint8_t> outputMemory(std::size_t index) const;
  Status runInPlace();

  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  const std::vector<std::string>& segmentNames() const { return segmentNames_; }
  /// Timings of the last run; timestamps only with SessionOptions::profile.
  const RunTiming& lastTiming() const { return timing_; }
  bool directIo() const { return direct_; }
  /// Barriers in the recorded command buffer (for tests and `--verbose`).
  std::size_t barrierCount() const { return barriers_; }
  /// Bytes of device memory (constants + intermediates [+ I/O in Copy mode]) and of staging.
  std::uint64_t deviceBytes() const { return deviceBytes_; }
  std::uint64_t stagingBytes() const { return stagingBytes_; }

 private:
  struct MemoryPlan;     // where every tensor lives (session.cpp)
  struct PipelinePlan;   // one pipeline per module used, and each segment's (session.cpp)

  Session() = default;
  // The steps of create(), in order.
  MemoryPlan planMemory(const Model& model, VkDeviceSize alignment);
  Status allocateMemory(const vulkan::Device& device, MemoryPlan& plan);
  Status initializeMemory(const vulkan::Device& device, const Model& model, const MemoryPlan& plan);
  Result<PipelinePlan> createPipelines(const Context& context, const Model& model, const SessionOptions& options);
  Result<std::vector<std::vector<VkDescriptorSet>>> writeDescriptorSets(const vulkan::Device& device,
                                                                        const Model& model, const MemoryPlan& plan,
                                                                        const PipelinePlan& pipelines);
  Status recordCommands(const vulkan::Device& device, const Model& model, const MemoryPlan& plan,
                        const PipelinePlan& pipelines, const std::vector<std::vector<VkDescriptorSet>>& sets);
  Status submitAndWait();

  const Context* context_ = nullptr;
  std::vector<TensorInfo> inputs_;
  std::vector<TensorInfo> outputs_;
  std::vector<std::string> segmentNames_;
  bool direct_ = false;
  bool profile_ = false;
  std::size_t barriers_ = 0;
  std::uint64_t deviceBytes_ = 0;
  std::uint64_t stagingBytes_ = 0;
  std::vector<std::uint8_t*> inputPtr_;   // mapped staging per input
  std::vector<std::uint8_t*> outputPtr_;  // mapped staging per output
  RunTiming timing_;
  std::vector<std::uint64_t> ticks_;

  // Vulkan objects in creation order (destroyed in reverse).
  std::optional<vulkan::Arena> deviceArena_;
  std::optional<vulkan::Arena> stagingArena_;
  std::vector<vulkan::ComputePipeline> pipelines_;
  std::optional<vulkan::DescriptorPool> descriptorPool_;
  std::optional<vulkan::TimestampQueries> queries_;
  std::optional<vulkan::CommandBuffer> commands_;
  std::optional<vulkan::Fence> fence_;
};

}  // namespace openvgf::runner
