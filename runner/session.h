// SPDX-License-Identifier: Apache-2.0
// runner::Session: one model made ready to run on one device. Creation does all the work
// (memory, constant upload, pipelines, descriptor sets, the recorded compute command buffers);
// each run is: inputs into staging memory (a multi-threaded memcpy, or none for PinnedMemory
// and device-resident inputs), an upload submission on the dedicated transfer queue ordered
// before the compute submission (with the downloads) by a timeline semaphore, or on devices
// without a transfer-only family one submission of upload, compute and download buffers; a
// fence wait; outputs out of host-cached memory.
//
// Pipelining: with SessionOptions::inFlight = N, runAsync() returns at once and up to N runs
// are in flight, each with its own staging and device I/O memory (a slot), so the next run's
// memcpy and upload overlap the current run's compute. Nothing is allocated per run when the
// caller reuses its output vector. Within one run, large host inputs are staged and uploaded in
// pieces (SessionOptions::uploadChunkBytes), so the memcpy of one piece overlaps the DMA of the
// one before.
//
// A Session is not thread-safe; several Sessions (of one Model and one Context) may run on
// different threads at once: they share no mutable state except the queues, whose submits the
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
#include "runner/piece_plan.h"
#include "runner/upload_plan.h"
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

/// Where upload staging lives (Copy mode).
enum class UploadMemory {
  Auto,  ///< device-local host-visible memory (resizable BAR) when that heap is large, else host memory
  Host,  ///< host memory, read by the copy engines
};

struct SessionOptions {
  bool profile = false;    ///< record a GPU timestamp after every dispatch
  IoMode io = IoMode::Auto;
  UploadMemory upload = UploadMemory::Auto;
  unsigned pipelineThreads = 0;  ///< threads creating pipelines (0: hardware concurrency)
  unsigned inFlight = 1;         ///< runs that may be in flight at once (runAsync); 1..8
  /// Copy mode: host inputs larger than this in total are staged and uploaded in pieces of
  /// this many bytes, pipelined (the host copies piece k+1 while the copy engine moves piece
  /// k; runner/upload_plan.h). 0: one memcpy of each input, then one upload.
  std::uint64_t uploadChunkBytes = kDefaultUploadChunkBytes;
  /// Copy mode: the first dispatches that the converter recorded as computed per image
  /// (vgf::SpirvBatchGrid) run a piece of the batch at a time, each piece as soon as its images
  /// are uploaded, so that a large batch's upload overlaps its first layers (runner/piece_plan.h),
  /// in runs whose inputs arrive by DMA (PinnedMemory, another session's output); runs from
  /// host memory, bound by the host's memcpy, run whole. At most this many dispatches; 0: none.
  /// nullopt: kDefaultOverlapSegments on devices with a dedicated transfer queue (the only ones
  /// where the copies run beside the compute), else none. Not with `profile`, whose timestamps
  /// follow the segments one by one.
  std::optional<std::size_t> overlapSegments = std::nullopt;
  /// Pieces hold at least this many bytes of the inputs they read, where the grids allow
  /// (else the largest pieces that leave two).
  std::uint64_t overlapPieceBytes = kDefaultOverlapPieceBytes;
};

/// What the driver reports of one pipeline's compiled code, and the dispatches that use it.
struct PipelineStatistics {
  std::string module;                          // the VGF module's name
  std::vector<std::string> segments;           // the segments dispatched with it
  std::vector<vulkan::PipelineStatistic> statistics;
};

/// Host memory the device reads and writes by DMA, with no CPU copy ("pinned" memory): caller
/// memory imported with VK_EXT_external_memory_host, or a host-visible allocation of the
/// device. Spans inside it given to Session::runAsync move without a memcpy. Must outlive the
/// runs that use it; belongs to one Context's device.
class PinnedMemory {
 public:
  /// Imports caller memory, which must stay allocated while this object lives. Unsupported
  /// when the device cannot import or `bytes` is not aligned (start and size) to the device's
  /// minImportedHostPointerAlignment: then pass plain spans, which go through staging.
  static Result<PinnedMemory> import(const Context& context, std::span<std::uint8_t> bytes);
  /// `bytes` (> 0) of pinned memory owned by this object: an aligned allocation imported when
  /// the device can, else device-allocated host-visible memory. Zero-filled.
  static Result<PinnedMemory> allocate(const Context& context, std::size_t bytes);

  PinnedMemory(PinnedMemory&&) noexcept;
  PinnedMemory& operator=(PinnedMemory&&) noexcept;
  ~PinnedMemory();

  std::span<std::uint8_t> bytes() const { return {arena_->mapped(), static_cast<std::size_t>(arena_->size())}; }
  /// True for imported host memory (caller's or allocate()'s), false for device-allocated memory.
  bool imported() const { return imported_; }
  VkBuffer buffer() const { return arena_->buffer(); }
  VkDevice device() const { return device_; }

 private:
  PinnedMemory() = default;
  struct FreeAligned {
    void operator()(std::uint8_t* p) const;
  };
  std::unique_ptr<std::uint8_t, FreeAligned> owned_;  // allocate()'s memory, freed after the import
  std::optional<vulkan::Arena> arena_;
  VkDevice device_ = VK_NULL_HANDLE;
  bool imported_ = false;
};

class Session;

/// One input of runAsync: exactly one of host bytes (copied into staging), bytes inside a
/// PinnedMemory (copied by DMA), or an output of another Session of the same Context (copied
/// on the device, no host round trip).
struct InputRef {
  std::span<const std::uint8_t> host;
  const PinnedMemory* pinned = nullptr;  ///< `host` lies inside it
  const Session* producer = nullptr;     ///< device-resident: output `producerOutput` of its last run
  std::size_t producerOutput = 0;
};

/// One output of runAsync: host bytes (filled by wait()), bytes inside a PinnedMemory
/// (written by DMA), or nothing (empty `host`: the output stays on the device, for
/// InputRef::producer of another session).
struct OutputRef {
  std::span<std::uint8_t> host;
  const PinnedMemory* pinned = nullptr;
};

/// A run in flight; wait on it with Session::wait. 0 is never a valid ticket.
struct RunTicket {
  std::uint64_t value = 0;
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

  /// Starts a run: inputs and outputs in model order, byte sizes exact. Returns once the
  /// inputs have been taken (host inputs may be reused at once); outputs are final after
  /// wait(). At most SessionOptions::inFlight runs may be in flight; wait in ticket order.
  Result<RunTicket> runAsync(std::span<const InputRef> inputs, std::span<const OutputRef> outputs);
  /// Waits for a run and copies its host outputs. Timings of it become lastTiming().
  Status wait(RunTicket ticket);

  /// Zero-copy path: write inputs straight into mapped staging memory, call runInPlace(),
  /// read outputs from mapped memory. Spans stay valid for the Session's lifetime.
  std::span<std::uint8_t> inputMemory(std::size_t index) const;
  std::span<const std::uint8_t> outputMemory(std::size_t index) const;
  Status runInPlace();

  /// Memory type of upload staging, of readback staging (for reports), and whether uploads
  /// use a dedicated transfer queue.
  std::string ioSummary() const;

  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  const std::vector<std::string>& segmentNames() const { return segmentNames_; }
  /// The driver's statistics of each pipeline (one per module the dispatches use), in first-use
  /// order; needs ContextOptions::pipelineStatistics.
  Result<std::vector<PipelineStatistics>> pipelineStatistics() const;
  /// Timings of the last run; timestamps only with SessionOptions::profile.
  const RunTiming& lastTiming() const { return timing_; }
  bool directIo() const { return direct_; }
  /// The dispatches that run a piece of the batch at a time (SessionOptions::overlapSegments;
  /// segments 0 when none do).
  const PiecePlan& piecePlan() const { return pieces_; }
  /// Runs so far that dispatched pieces (their inputs pinned or on the device).
  std::uint64_t piecewiseRuns() const { return piecewiseRuns_; }
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
  Status allocateMemory(const vulkan::Device& device, MemoryPlan& plan, UploadMemory upload);
  Status initializeMemory(const vulkan::Device& device, const Model& model, const MemoryPlan& plan);
  Result<PipelinePlan> createPipelines(const Context& context, const Model& model, const SessionOptions& options);
  Status writeDescriptorSets(const vulkan::Device& device, const Model& model, const MemoryPlan& plan,
                             const PipelinePlan& pipelines);
  struct Slot;           // one in-flight run's memory and command buffers (session.cpp)
  Status recordSlot(const vulkan::Device& device, const Model& model, const MemoryPlan& plan,
                    const PipelinePlan& pipelines, std::size_t slot);
  std::size_t recordDispatches(VkCommandBuffer cmd, const Model& model, const MemoryPlan& plan,
                               const PipelinePlan& pipelines, std::size_t slot, std::size_t from, std::size_t to,
                               std::optional<std::size_t> piece);
  Status submit(std::size_t slot, std::span<const InputRef> inputs, std::span<const OutputRef> outputs);
  Status planUploads(Slot& slot, std::span<const InputRef> inputs);
  Status submitUploads(Slot& slot, std::uint64_t ticket, std::span<const InputRef> inputs);
  Status checkRefs(std::span<const InputRef> inputs, std::span<const OutputRef> outputs) const;

  const Context* context_ = nullptr;
  std::vector<TensorInfo> inputs_;
  std::vector<TensorInfo> outputs_;
  std::vector<std::string> segmentNames_;
  bool direct_ = false;
  bool profile_ = false;
  std::uint64_t uploadChunkBytes_ = 0;
  PiecePlan pieces_;
  std::uint64_t piecewiseRuns_ = 0;
  std::size_t barriers_ = 0;
  std::uint64_t deviceBytes_ = 0;
  std::uint64_t stagingBytes_ = 0;
  RunTiming timing_;
  std::vector<std::uint64_t> ticks_;
  std::uint64_t submitted_ = 0;  // tickets handed out (the last one's value)
  std::size_t lastSlot_ = 0;     // slot of the last run submitted (device-resident outputs)
  std::vector<std::vector<std::vector<VkDescriptorSet>>> sets_;  // [slot][segment][set], owned by the pool

  // Vulkan objects in creation order (destroyed in reverse).
  std::optional<vulkan::Arena> deviceArena_;
  std::optional<vulkan::Arena> uploadArena_;
  std::optional<vulkan::Arena> readbackArena_;
  std::vector<vulkan::ComputePipeline> pipelines_;
  // Per pipeline: module and segments (statistics empty); only with ContextOptions::pipelineStatistics.
  std::vector<PipelineStatistics> pipelineUse_;
  std::optional<vulkan::DescriptorPool> descriptorPool_;
  std::optional<vulkan::TimelineSemaphore> uploaded_;  // value = ticket whose upload finished
  std::optional<vulkan::TimelineSemaphore> done_;      // value = ticket whose run finished
  // With pieces on a transfer queue: value = (ticket - 1) * pieces + k + 1 once piece k of run
  // `ticket` is uploaded.
  std::optional<vulkan::TimelineSemaphore> piecesUploaded_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace openvgf::runner
