// SPDX-License-Identifier: Apache-2.0
// Session creation (memory plan, constant upload, pipelines, descriptors, recording) and runs.
#include "runner/session.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/parallel_copy.h"
#include "runner/formats.h"
#include "runner/hazards.h"
#include "vulkan/check.h"

namespace openvgf::runner {
namespace {

using vgf::ResourceCategory;
using vulkan::vkStruct;

enum class Place : std::uint8_t { Device, Upload, Readback };
constexpr std::size_t kPlaces = 3;

struct Region {
  Place place = Place::Device;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;  // bytes reserved (multiple of 4)
};

VkDeviceSize roundUp4(std::uint64_t bytes) { return (bytes + 3) & ~VkDeviceSize{3}; }

std::string inputList(const std::vector<TensorInfo>& tensors) {
  std::string out;
  for (const TensorInfo& t : tensors) {
    out += fmt::format("{}'{}' {} {}", out.empty() ? "" : ", ", t.name, tosa::toString(t.dtype),
                       tosa::shapeToString(t.shape));
  }
  return out;
}

}  // namespace

// Regions of the three arenas: one per constant, per alias group, per other intermediate
// (device arena, shared by every slot); per slot, each model input gets an upload staging
// region and each output a readback region, and in Copy mode a device region each.
struct Session::MemoryPlan {
  std::vector<Region> regions;
  std::vector<std::vector<std::int64_t>> regionOf;       // [slot][resource]: region its descriptors bind (-1: unused)
  std::vector<std::vector<std::uint32_t>> inputStaging;  // [slot][input]: its upload region
  std::vector<std::vector<std::uint32_t>> outputStaging; // [slot][output]: its readback region
  std::array<vulkan::ArenaLayout, kPlaces> layouts;      // per Place
  std::array<VkBuffer, kPlaces> buffers{};               // the arenas' buffers, once allocated

  VkBuffer buffer(const Region& region) const { return buffers[static_cast<std::size_t>(region.place)]; }
  std::uint32_t bound(std::size_t slot, std::uint32_t mrt) const {
    return static_cast<std::uint32_t>(regionOf[slot][mrt]);
  }
};

struct Session::PipelinePlan {
  std::vector<vulkan::ComputePipelineDesc> descs;  // one per module used, in first-use order
  std::vector<std::size_t> ofSegment;              // per segment: index into descs and pipelines_
  std::vector<std::vector<std::uint32_t>> dispatchBaseModules;  // the words of dispatchBase descs
};

namespace {

// One GPU copy a run records: an input into its bound region, or an output out of it.
struct CopyRegion {
  VkBuffer from = VK_NULL_HANDLE;
  VkDeviceSize fromOffset = 0;
  VkBuffer to = VK_NULL_HANDLE;
  VkDeviceSize toOffset = 0;
  VkDeviceSize bytes = 0;
  bool operator==(const CopyRegion&) const = default;
};

}  // namespace

// One in-flight run's I/O: where each input and output is staged and bound, the command
// buffers, and what wait() still has to copy out.
struct Session::Slot {
  struct Io {
    VkBuffer staging = VK_NULL_HANDLE;  // upload (inputs) or readback (outputs) arena
    VkDeviceSize stagingOffset = 0;
    std::uint8_t* mapped = nullptr;     // host address of the staging region
    VkBuffer bound = VK_NULL_HANDLE;    // what the descriptors bind (== staging in Direct mode)
    VkDeviceSize boundOffset = 0;
    bool copied() const { return staging != bound || stagingOffset != boundOffset; }
  };
  std::vector<Io> inputs;
  std::vector<Io> outputs;
  std::optional<vulkan::CommandBuffer> compute;   // recorded once
  // With pieces_: per piece its dispatches, and the whole model in one buffer for runs whose
  // inputs go through staging (recorded once). `compute` then holds the segments after them.
  std::vector<vulkan::CommandBuffer> computePieces;
  std::optional<vulkan::CommandBuffer> computeWhole;
  bool piecewise = false;  // this run dispatches pieces (planUploads)
  // Transfer queue: one buffer per upload submission of a run (one, or one per piece when
  // uploads are pipelined), each holding the copies in uploadCopies.
  std::vector<vulkan::CommandBuffer> uploads;
  std::optional<vulkan::CommandBuffer> download;  // compute queue: the copies in downloadCopies
  // What the upload buffers and download hold (nullopt: nothing recorded yet). A run whose
  // copies equal these submits the buffers as they are: at batch 1 re-recording costs
  // microseconds that show in host-to-host latency, and most callers pass the same kind of
  // memory every run.
  std::vector<std::optional<std::vector<CopyRegion>>> uploadCopies;
  std::optional<std::vector<CopyRegion>> downloadCopies;
  // This run's copies per upload submission, memcpys into staging (the whole-input path) and
  // pieces (the pipelined path); kept for their capacity.
  std::vector<std::vector<CopyRegion>> wantedUploads;
  std::vector<CopyRegion> wantedDownloads;
  std::vector<std::uint64_t> stagedBytes;
  std::vector<UploadPiece> pieces;
  std::vector<CopyPiece> memcpys;
  std::vector<VkSemaphoreSubmitInfo> uploadWaits;
  // This run's compute submission: its command buffers, semaphore waits and batches.
  std::vector<VkCommandBufferSubmitInfo> commandInfos;
  std::vector<VkSemaphoreSubmitInfo> semaphoreWaits;
  std::vector<VkSubmitInfo2> submits;
  std::optional<vulkan::TimestampQueries> queries;
  // Signaled with the compute submission. The host waits for this fence rather than for the
  // timeline value: a fence means the whole batch has completed, so the semaphores and command
  // buffers it used may be reset or destroyed (lavapipe's queue thread still touches a
  // signaled semaphore for a moment after a timeline wait returns).
  std::optional<vulkan::Fence> fence;
  std::uint64_t ticket = 0;                       // run not yet waited for (0: free)
  std::vector<std::span<std::uint8_t>> hostOutputs;  // per output: where wait() copies it (empty: nowhere)
};

Result<Session> Session::create(const Context& context, const Model& model, const SessionOptions& options) {
  const vulkan::Device& device = context.device();
  const vulkan::DeviceSnapshot& snapshot = device.snapshot();
  OPENVGF_TRY(model.checkDevice(snapshot));
  if (options.inFlight < 1 || options.inFlight > 8) {
    return invalidInput("{}: runs in flight: expected 1 to 8, got {}", model.source(), options.inFlight);
  }

  Session session;
  session.context_ = &context;
  session.inputs_ = model.inputs();
  session.outputs_ = model.outputs();
  for (const SegmentInfo& seg : model.segments()) session.segmentNames_.push_back(seg.name);
  session.profile_ = options.profile;
  session.uploadChunkBytes_ = options.uploadChunkBytes;
  bool unified = vulkan::hasUnifiedMemory(device);
  if (options.io == IoMode::Direct && !unified) {
    return unsupported("{}: direct I/O: expected a device with unified host-visible device-local memory, {} has none",
                       model.source(), snapshot.name);
  }
  session.direct_ = options.io == IoMode::Direct || (options.io == IoMode::Auto && unified);
  for (unsigned i = 0; i < options.inFlight; ++i) session.slots_.push_back(std::make_unique<Slot>());
  // Pieces need copies to overlap (Copy mode); timestamps follow whole segments.
  const std::size_t overlap =
      options.profile || session.direct_
          ? 0
          : options.overlapSegments.value_or(device.hasTransferQueue() ? kDefaultOverlapSegments : 0);
  session.pieces_ = planPieces(model, overlap, options.overlapPieceBytes);

  const VkDeviceSize alignment = std::max<VkDeviceSize>(snapshot.limits.minStorageBufferOffsetAlignment, 64);
  MemoryPlan plan = session.planMemory(model, alignment);
  OPENVGF_TRY(session.allocateMemory(device, plan, options.upload));
  OPENVGF_TRY(session.initializeMemory(device, model, plan));
  OPENVGF_ASSIGN_OR_RETURN(PipelinePlan pipelines, session.createPipelines(context, model, options));
  OPENVGF_TRY(session.writeDescriptorSets(device, model, plan, pipelines));
  for (std::size_t slot = 0; slot < session.slots_.size(); ++slot) {
    OPENVGF_TRY(session.recordSlot(device, model, plan, pipelines, slot));
  }
  if (device.hasTransferQueue()) {
    OPENVGF_ASSIGN_OR_RETURN(session.uploaded_, vulkan::TimelineSemaphore::create(device));
    OPENVGF_ASSIGN_OR_RETURN(session.done_, vulkan::TimelineSemaphore::create(device));
    if (session.pieces_.pieces() > 0) {
      OPENVGF_ASSIGN_OR_RETURN(session.piecesUploaded_, vulkan::TimelineSemaphore::create(device));
    }
  }
  spdlog::debug("{}: {} I/O, {} barrier(s), device memory {} bytes, staging {} bytes; {}", model.source(),
                session.direct_ ? "direct" : "copied", session.barriers_, session.deviceBytes_, session.stagingBytes_,
                session.ioSummary());
  OPENVGF_TRY(context.checkValidation());
  return session;
}

Session::MemoryPlan Session::planMemory(const Model& model, VkDeviceSize alignment) {
  const std::vector<ResourceInfo>& resources = model.resources();
  const std::size_t slotCount = slots_.size();
  MemoryPlan plan;
  plan.regionOf.assign(slotCount, std::vector<std::int64_t>(resources.size(), -1));
  plan.inputStaging.assign(slotCount, {});
  plan.outputStaging.assign(slotCount, {});
  std::vector<Region>& regions = plan.regions;
  auto add = [&](Place place, VkDeviceSize size) {
    regions.push_back({place, 0, size});
    return static_cast<std::uint32_t>(regions.size() - 1);
  };
  std::map<std::uint32_t, std::int64_t> groupRegion;
  auto isIo = [&](std::uint32_t mrt) {
    auto match = [&](const TensorInfo& t) { return t.mrtIndex == mrt; };
    return std::any_of(inputs_.begin(), inputs_.end(), match) || std::any_of(outputs_.begin(), outputs_.end(), match);
  };
  for (std::uint32_t i = 0; i < resources.size(); ++i) {
    const ResourceInfo& r = resources[i];
    // Model I/O never shares memory with an alias group: its contents must survive the run.
    if (!r.used || isIo(i)) continue;
    VkDeviceSize size = roundUp4(r.bytes);
    std::int64_t region = 0;
    // An alias group's members take turns in segment order; run a piece of the batch at a
    // time, the first segments interleave, so what they write gets memory of its own.
    const bool writtenByPieces = std::binary_search(pieces_.written.begin(), pieces_.written.end(), i);
    if (r.category == ResourceCategory::Intermediate && r.aliasGroup != vgf::kUnset && !writtenByPieces) {
      auto [it, inserted] = groupRegion.try_emplace(r.aliasGroup, static_cast<std::int64_t>(regions.size()));
      if (inserted) add(Place::Device, size);
      Region& shared = regions[static_cast<std::size_t>(it->second)];
      shared.size = std::max(shared.size, size);
      region = it->second;
    } else {
      region = add(Place::Device, size);
    }
    for (std::size_t slot = 0; slot < slotCount; ++slot) plan.regionOf[slot][i] = region;
  }
  // Per slot: staging for every input and output; the bound region is the staging itself in
  // Direct mode, else a device region. A tensor that is both input and output binds the
  // input's region, and its output copy reads from there.
  for (std::size_t slot = 0; slot < slotCount; ++slot) {
    std::vector<std::int64_t>& bound = plan.regionOf[slot];
    for (const TensorInfo& t : inputs_) {
      std::uint32_t staging = add(Place::Upload, roundUp4(t.bytes));
      plan.inputStaging[slot].push_back(staging);
      if (bound[t.mrtIndex] < 0) bound[t.mrtIndex] = direct_ ? staging : add(Place::Device, roundUp4(t.bytes));
    }
    for (const TensorInfo& t : outputs_) {
      std::uint32_t staging = add(Place::Readback, roundUp4(t.bytes));
      plan.outputStaging[slot].push_back(staging);
      if (bound[t.mrtIndex] < 0) bound[t.mrtIndex] = direct_ ? staging : add(Place::Device, roundUp4(t.bytes));
    }
  }
  for (Region& region : regions) {
    region.offset = plan.layouts[static_cast<std::size_t>(region.place)].place(region.size, alignment);
  }
  deviceBytes_ = plan.layouts[0].size;
  stagingBytes_ = plan.layouts[1].size + plan.layouts[2].size;
  return plan;
}

Status Session::allocateMemory(const vulkan::Device& device, MemoryPlan& plan, UploadMemory upload) {
  using vulkan::MemoryUse;
  const MemoryUse uses[kPlaces] = {
      direct_ ? MemoryUse::Unified : MemoryUse::DeviceLocal,
      direct_ ? MemoryUse::Unified : (upload == UploadMemory::Host ? MemoryUse::UploadHost : MemoryUse::Upload),
      direct_ ? MemoryUse::Unified : MemoryUse::Readback};
  const char* names[kPlaces] = {"constants and intermediates", "input staging", "output staging"};
  std::optional<vulkan::Arena>* arenas[kPlaces] = {&deviceArena_, &uploadArena_, &readbackArena_};
  for (std::size_t p = 0; p < kPlaces; ++p) {
    if (plan.layouts[p].size == 0) continue;
    OPENVGF_ASSIGN_OR_RETURN(*arenas[p], vulkan::Arena::create(device, plan.layouts[p].size, uses[p], names[p]));
    plan.buffers[p] = (*arenas[p])->buffer();
  }
  // Where each slot's I/O lives, for the runs.
  auto io = [&](std::uint32_t staging, std::uint32_t bound) {
    const Region& s = plan.regions[staging];
    const Region& b = plan.regions[bound];
    const vulkan::Arena& arena = s.place == Place::Upload ? *uploadArena_ : *readbackArena_;
    return Slot::Io{plan.buffer(s), s.offset, arena.mapped() + s.offset, plan.buffer(b), b.offset};
  };
  for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      slots_[slot]->inputs.push_back(io(plan.inputStaging[slot][i], plan.bound(slot, inputs_[i].mrtIndex)));
    }
    for (std::size_t o = 0; o < outputs_.size(); ++o) {
      slots_[slot]->outputs.push_back(io(plan.outputStaging[slot][o], plan.bound(slot, outputs_[o].mrtIndex)));
    }
    slots_[slot]->hostOutputs.resize(outputs_.size());
  }
  return {};
}

// Memory starts zeroed, then constants are uploaded once. Zeroing makes every run a function
// of the file and the inputs: a model whose kernels leave part of a tensor unwritten reads
// zeros there, never what the memory held before (another process's data, on a CPU device, or
// an earlier tensor).
Status Session::initializeMemory(const vulkan::Device& device, const Model& model, const MemoryPlan& plan) {
  const std::vector<ResourceInfo>& resources = model.resources();
  if (uploadArena_) std::memset(uploadArena_->mapped(), 0, uploadArena_->size());
  if (readbackArena_) std::memset(readbackArena_->mapped(), 0, readbackArena_->size());
  std::vector<std::pair<std::uint32_t, std::span<const std::uint8_t>>> uploads;
  VkDeviceSize uploadBytes = 0;
  for (std::uint32_t i = 0; i < resources.size(); ++i) {
    if (!resources[i].used || !resources[i].constantIndex) continue;
    uploads.emplace_back(i, model.constantData()[*resources[i].constantIndex]);
    uploadBytes += roundUp4(uploads.back().second.size());
  }
  if (!deviceArena_) return {};
  if (std::uint8_t* base = deviceArena_->mapped(); base != nullptr) {
    std::memset(base, 0, deviceBytes_);
    for (auto& [mrt, data] : uploads) std::memcpy(base + plan.regions[plan.bound(0, mrt)].offset, data.data(), data.size());
    return {};
  }
  // Discrete GPUs: a fill, then the constants through a temporary staging buffer, in one submission.
  std::optional<vulkan::Arena> staging;
  if (uploadBytes > 0) {
    OPENVGF_ASSIGN_OR_RETURN(staging, vulkan::Arena::create(device, uploadBytes, vulkan::MemoryUse::UploadHost,
                                                            "constant upload staging"));
  }
  OPENVGF_ASSIGN_OR_RETURN(vulkan::CommandBuffer upload, vulkan::CommandBuffer::create(device));
  OPENVGF_ASSIGN_OR_RETURN(vulkan::Fence fence, vulkan::Fence::create(device));
  OPENVGF_TRY(upload.begin(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT));
  vkCmdFillBuffer(upload.handle(), deviceArena_->buffer(), 0, VK_WHOLE_SIZE, 0);
  VkMemoryBarrier2 filled = vkStruct<VkMemoryBarrier2>(VK_STRUCTURE_TYPE_MEMORY_BARRIER_2);
  filled.srcStageMask = filled.dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT;
  filled.srcAccessMask = filled.dstAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
  VkDependencyInfo dependency = vkStruct<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
  dependency.memoryBarrierCount = 1;
  dependency.pMemoryBarriers = &filled;
  vkCmdPipelineBarrier2(upload.handle(), &dependency);
  VkDeviceSize at = 0;
  for (auto& [mrt, data] : uploads) {
    std::memcpy(staging->mapped() + at, data.data(), data.size());
    VkBufferCopy copy{at, plan.regions[plan.bound(0, mrt)].offset, roundUp4(data.size())};
    vkCmdCopyBuffer(upload.handle(), staging->buffer(), deviceArena_->buffer(), 1, &copy);
    at += roundUp4(data.size());
  }
  OPENVGF_TRY(upload.end());
  VkCommandBufferSubmitInfo commandInfo = vkStruct<VkCommandBufferSubmitInfo>(
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO);
  commandInfo.commandBuffer = upload.handle();
  VkSubmitInfo2 submit = vkStruct<VkSubmitInfo2>(VK_STRUCTURE_TYPE_SUBMIT_INFO_2);
  submit.commandBufferInfoCount = 1;
  submit.pCommandBufferInfos = &commandInfo;
  OPENVGF_TRY(device.submit(submit, fence.handle()));
  // The fence wait orders the fill and the copies before every later submission's use.
  return device.wait(fence.handle());
}

// One pipeline per module used, its layout the union of its segments' bindings.
Result<Session::PipelinePlan> Session::createPipelines(const Context& context, const Model& model,
                                                       const SessionOptions& options) {
  const std::vector<SegmentInfo>& segments = model.segments();
  PipelinePlan plan;
  std::map<std::uint32_t, std::size_t> pipelineOf;  // module index -> descs index
  for (const SegmentInfo& seg : segments) {
    auto [it, inserted] = pipelineOf.try_emplace(seg.moduleIndex, plan.descs.size());
    if (inserted) {
      const ModuleInfo& module = model.modules()[seg.moduleIndex];
      vulkan::ComputePipelineDesc desc;
      desc.name = fmt::format("{}: modules[{}] '{}'", model.source(), seg.moduleIndex, module.name);
      desc.spirv = module.spirv;
      desc.entryPoint = module.entryPoint;
      plan.descs.push_back(std::move(desc));
    }
    plan.ofSegment.push_back(it->second);
    vulkan::ComputePipelineDesc& desc = plan.descs[it->second];
    for (const BindingInfo& b : seg.bindings) {
      if (desc.sets.size() <= b.set) desc.sets.resize(b.set + 1);
      std::vector<std::uint32_t>& set = desc.sets[b.set];
      if (std::find(set.begin(), set.end(), b.binding) == set.end()) set.push_back(b.binding);
    }
  }
  // Pipelines that dispatch pieces of the batch (vkCmdDispatchBase) are created from words of
  // their own: NVIDIA's shader disk cache (driver 580.159.04) keys on the SPIR-V alone, so a
  // module compiled before without VK_PIPELINE_CREATE_DISPATCH_BASE_BIT served a pipeline
  // created with it, whose dispatches then ignored their base (every piece computed the first
  // piece's images: BatchPieces.RunInPiecesGivesTheSameBytesAsWhole on an H200, passing with
  // __GL_SHADER_DISK_CACHE=0).
  plan.dispatchBaseModules.reserve(plan.descs.size());  // descs point into it
  for (std::size_t s = 0; s < pieces_.segments; ++s) {
    vulkan::ComputePipelineDesc& desc = plan.descs[plan.ofSegment[s]];
    if (desc.dispatchBase) continue;
    desc.dispatchBase = true;
    plan.dispatchBaseModules.push_back(vgf::recordProcess(desc.spirv, "openvgf.dispatch-base"));
    desc.spirv = plan.dispatchBaseModules.back();
  }
  // Who uses each pipeline, kept only for pipelineStatistics() (which needs the capture).
  if (context.device().capturesPipelineStatistics()) {
    pipelineUse_.assign(plan.descs.size(), {});
    for (std::size_t s = 0; s < segments.size(); ++s) {
      PipelineStatistics& use = pipelineUse_[plan.ofSegment[s]];
      use.module = model.modules()[segments[s].moduleIndex].name;
      use.segments.push_back(segments[s].name);
    }
  }
  auto start = std::chrono::steady_clock::now();
  OPENVGF_ASSIGN_OR_RETURN(pipelines_, vulkan::createComputePipelines(context.device(), context.pipelineCache(),
                                                                      plan.descs, options.pipelineThreads));
  spdlog::debug("{}: {} pipeline(s) for {} segment(s) in {:.1f} ms (pipeline cache {})", model.source(),
                plan.descs.size(), segments.size(),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
                context.pipelineCache().loadedFromDisk() ? "loaded from disk" : "empty");
  return plan;
}

Result<std::vector<PipelineStatistics>> Session::pipelineStatistics() const {
  if (!context_->device().capturesPipelineStatistics()) {
    return invalidInput("pipeline statistics: expected a context created with ContextOptions::pipelineStatistics");
  }
  std::vector<PipelineStatistics> out = pipelineUse_;
  for (std::size_t p = 0; p < pipelines_.size(); ++p) {
    OPENVGF_ASSIGN_OR_RETURN(out[p].statistics, context_->device().pipelineStatistics(pipelines_[p].handle()));
  }
  return out;
}

// One descriptor set per (slot, segment, set), written once; the pool is sized exactly.
Status Session::writeDescriptorSets(const vulkan::Device& device, const Model& model, const MemoryPlan& plan,
                                    const PipelinePlan& pipelines) {
  const std::vector<SegmentInfo>& segments = model.segments();
  std::uint32_t setCount = 0, descriptorCount = 0;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    // Allocation consumes every binding of the layout (the union over the module's segments),
    // whether or not this segment writes it.
    const vulkan::ComputePipelineDesc& desc = pipelines.descs[pipelines.ofSegment[s]];
    setCount += static_cast<std::uint32_t>(desc.sets.size());
    for (const std::vector<std::uint32_t>& set : desc.sets) descriptorCount += static_cast<std::uint32_t>(set.size());
  }
  const auto slotCount = static_cast<std::uint32_t>(slots_.size());
  OPENVGF_ASSIGN_OR_RETURN(descriptorPool_,
                           vulkan::DescriptorPool::create(device, setCount * slotCount, descriptorCount * slotCount));
  sets_.assign(slotCount, std::vector<std::vector<VkDescriptorSet>>(segments.size()));
  std::vector<VkDescriptorBufferInfo> bufferInfos;
  bufferInfos.reserve(static_cast<std::size_t>(descriptorCount) * slotCount);  // writes point into it
  std::vector<VkWriteDescriptorSet> writes;
  for (std::size_t slot = 0; slot < slotCount; ++slot) {
    for (std::size_t s = 0; s < segments.size(); ++s) {
      const vulkan::ComputePipeline& pipeline = pipelines_[pipelines.ofSegment[s]];
      std::vector<VkDescriptorSet>& segmentSets = sets_[slot][s];
      for (std::size_t set = 0; set < pipeline.setCount(); ++set) {
        OPENVGF_ASSIGN_OR_RETURN(VkDescriptorSet handle, descriptorPool_->allocate(device, pipeline.setLayout(set)));
        segmentSets.push_back(handle);
      }
      for (const BindingInfo& b : segments[s].bindings) {
        const Region& region = plan.regions[plan.bound(slot, b.mrtIndex)];
        bufferInfos.push_back({plan.buffer(region), region.offset, roundUp4(model.resources()[b.mrtIndex].bytes)});
        VkWriteDescriptorSet write = vkStruct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
        write.dstSet = segmentSets[b.set];
        write.dstBinding = b.binding;
        write.descriptorCount = 1;
        write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        write.pBufferInfo = &bufferInfos.back();
        writes.push_back(write);
      }
    }
  }
  if (!writes.empty()) {
    vkUpdateDescriptorSets(device.handle(), static_cast<std::uint32_t>(writes.size()), writes.data(), 0, nullptr);
  }
  return {};
}

namespace {

constexpr VkPipelineStageFlags2 kCopy = VK_PIPELINE_STAGE_2_COPY_BIT;
constexpr VkPipelineStageFlags2 kCompute = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags2 kHost = VK_PIPELINE_STAGE_2_HOST_BIT;

}  // namespace

// A slot's compute command buffers: with a piece plan, one per piece of the batch holding the
// plan's dispatches over that piece's images (submitted as its upload lands), then the main
// buffer with every other dispatch; timestamps with SessionOptions::profile (which has no
// pieces). Each buffer starts with a barrier that makes earlier work visible: the last run's
// dispatches and output copies, and uploads when they share the queue (a separate transfer
// queue is waited for by semaphore). Copies in and out go in the slot's upload and download
// buffers, recorded when a run's copies differ from the last ones (submit()).
Status Session::recordSlot(const vulkan::Device& device, const Model& model, const MemoryPlan& plan,
                           const PipelinePlan& pipelines, std::size_t slotIndex) {
  const std::vector<SegmentInfo>& segments = model.segments();
  Slot& slot = *slots_[slotIndex];
  const auto queryCount = static_cast<std::uint32_t>(segments.size() + 1);
  if (profile_) {
    OPENVGF_ASSIGN_OR_RETURN(slot.queries, vulkan::TimestampQueries::create(device, queryCount));
    ticks_.resize(queryCount);
    timing_.timestampsNs.resize(queryCount);
  }
  OPENVGF_ASSIGN_OR_RETURN(slot.compute, vulkan::CommandBuffer::create(device));
  OPENVGF_ASSIGN_OR_RETURN(vulkan::CommandBuffer upload, vulkan::CommandBuffer::create(device, vulkan::Queue::Transfer));
  slot.uploads.push_back(std::move(upload));
  OPENVGF_ASSIGN_OR_RETURN(slot.download, vulkan::CommandBuffer::create(device));
  OPENVGF_ASSIGN_OR_RETURN(slot.fence, vulkan::Fence::create(device));
  auto firstBarrier = [](VkCommandBuffer cmd) {
    vulkan::recordMemoryBarrier(cmd, kCompute | kCopy, VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                kCompute, VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT);
  };
  std::size_t barriers = 0;
  for (std::size_t k = 0; k < pieces_.pieces(); ++k) {
    OPENVGF_ASSIGN_OR_RETURN(vulkan::CommandBuffer piece, vulkan::CommandBuffer::create(device));
    OPENVGF_TRY(piece.begin());
    firstBarrier(piece.handle());
    barriers += 1 + recordDispatches(piece.handle(), model, plan, pipelines, slotIndex, 0, pieces_.segments, k);
    OPENVGF_TRY(piece.end());
    slot.computePieces.push_back(std::move(piece));
  }
  // The main buffer: segments [from, end), then the barrier before the outputs are read.
  auto recordMain = [&](vulkan::CommandBuffer& buffer, std::size_t from) -> Result<std::size_t> {
    VkCommandBuffer cmd = buffer.handle();
    OPENVGF_TRY(buffer.begin());
    if (profile_) vkCmdResetQueryPool(cmd, slot.queries->handle(), 0, queryCount);
    firstBarrier(cmd);
    if (profile_) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, slot.queries->handle(), 0);
    const std::size_t recorded = recordDispatches(cmd, model, plan, pipelines, slotIndex, from, segments.size(), std::nullopt);
    // Outputs are next read by the download copies (Copy mode) or the host (Direct mode).
    vulkan::recordMemoryBarrier(cmd, kCompute, VK_ACCESS_2_SHADER_WRITE_BIT, kCopy | kHost,
                                VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_HOST_READ_BIT);
    OPENVGF_TRY(buffer.end());
    return recorded + 2;
  };
  OPENVGF_ASSIGN_OR_RETURN(std::size_t main, recordMain(*slot.compute, pieces_.segments));
  barriers_ = barriers + main;
  if (pieces_.pieces() > 0) {
    // Runs whose inputs go through staging run whole (Session::planUploads).
    OPENVGF_ASSIGN_OR_RETURN(slot.computeWhole, vulkan::CommandBuffer::create(device));
    OPENVGF_ASSIGN_OR_RETURN(std::size_t whole, recordMain(*slot.computeWhole, 0));
    (void)whole;
  }
  return {};
}

// Segments [from, to) into `cmd`, each after the barrier its data dependencies need (the
// buffer's first barrier made everything before `from` visible), over the images of piece
// `piece` of pieces_ when given (vkCmdDispatchBase), with a timestamp after each when
// profiling. Returns the barriers recorded.
std::size_t Session::recordDispatches(VkCommandBuffer cmd, const Model& model, const MemoryPlan& plan,
                                      const PipelinePlan& pipelines, std::size_t slotIndex, std::size_t from,
                                      std::size_t to, std::optional<std::size_t> piece) {
  const std::vector<SegmentInfo>& segments = model.segments();
  Slot& slot = *slots_[slotIndex];
  std::size_t barriers = 0;
  HazardTracker tracker(plan.regions.size());
  VkPipeline current = VK_NULL_HANDLE;
  std::vector<RegionUse> uses;
  for (std::size_t s = from; s < to; ++s) {
    const SegmentInfo& seg = segments[s];
    uses.clear();
    for (const BindingInfo& b : seg.bindings) {
      uses.push_back({plan.bound(slotIndex, b.mrtIndex), kCompute, b.access != Access::Write, b.access != Access::Read});
    }
    if (std::optional<VkMemoryBarrier2> barrier = tracker.use(uses)) {
      VkDependencyInfo dependency = vkStruct<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
      dependency.memoryBarrierCount = 1;
      dependency.pMemoryBarriers = &*barrier;
      vkCmdPipelineBarrier2(cmd, &dependency);
      ++barriers;
    }
    const vulkan::ComputePipeline& pipeline = pipelines_[pipelines.ofSegment[s]];
    if (pipeline.handle() != current) {
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
      current = pipeline.handle();
    }
    const std::vector<VkDescriptorSet>& sets = sets_[slotIndex][s];
    if (!sets.empty()) {
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0,
                              static_cast<std::uint32_t>(sets.size()), sets.data(), 0, nullptr);
    }
    if (piece) {
      const PieceDispatch d = pieceDispatch(seg, pieces_.imageBounds[*piece], pieces_.imageBounds[*piece + 1]);
      vkCmdDispatchBase(cmd, d.base[0], d.base[1], d.base[2], d.count[0], d.count[1], d.count[2]);
    } else {
      vkCmdDispatch(cmd, seg.dispatch[0], seg.dispatch[1], seg.dispatch[2]);
    }
    if (profile_) {
      vkCmdWriteTimestamp2(cmd, kCompute, slot.queries->handle(), static_cast<std::uint32_t>(s + 1));
    }
  }
  return barriers;
}

Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

Session::~Session() {
  // Runs still in flight use this session's memory and command buffers.
  for (const std::unique_ptr<Slot>& slot : slots_) {
    if (slot && slot->ticket != 0) (void)context_->device().wait(slot->fence->handle());
  }
}

std::span<std::uint8_t> Session::inputMemory(std::size_t index) const {
  return {slots_[0]->inputs[index].mapped, static_cast<std::size_t>(inputs_[index].bytes)};
}

std::span<const std::uint8_t> Session::outputMemory(std::size_t index) const {
  return {slots_[0]->outputs[index].mapped, static_cast<std::size_t>(outputs_[index].bytes)};
}

std::string Session::ioSummary() const {
  auto flags = [](const std::optional<vulkan::Arena>& arena) {
    return arena ? vulkan::memoryFlagsName(arena->memoryFlags()) : std::string("none");
  };
  std::string uploads;
  if (pieces_.pieces() > 0) {
    uploads = fmt::format(
        " (from pinned or device memory: in {} pieces of the batch of {}, the first {} dispatch(es) running on each "
        "piece as it lands)",
        pieces_.pieces(), pieces_.images, pieces_.segments);
    if (uploadChunkBytes_ > 0) uploads = fmt::format(" in pieces of {} bytes{}", uploadChunkBytes_, uploads);
  } else if (uploadChunkBytes_ > 0 && !direct_) {
    uploads = fmt::format(" in pieces of {} bytes", uploadChunkBytes_);
  }
  return fmt::format("{} I/O, {} run(s) in flight, input staging {}, output staging {}, uploads on {}{}",
                     direct_ ? "direct" : "copied", slots_.size(), flags(uploadArena_), flags(readbackArena_),
                     context_->device().hasTransferQueue() ? "a dedicated transfer queue" : "the compute queue", uploads);
}

Status Session::checkRefs(std::span<const InputRef> inputs, std::span<const OutputRef> outputs) const {
  if (inputs.size() != inputs_.size()) {
    return invalidInput("expected {} input(s) ({}), got {}", inputs_.size(), inputList(inputs_), inputs.size());
  }
  if (outputs.size() != outputs_.size()) {
    return invalidInput("expected {} output(s) ({}), got {}", outputs_.size(), inputList(outputs_), outputs.size());
  }
  VkDevice device = context_->device().handle();
  auto inside = [](std::span<const std::uint8_t> part, const PinnedMemory& pinned) {
    std::span<const std::uint8_t> whole = pinned.bytes();
    return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const InputRef& in = inputs[i];
    const TensorInfo& info = inputs_[i];
    if (in.producer != nullptr) {
      const Session& p = *in.producer;
      if (p.context_->device().handle() != device) {
        return invalidInput("input '{}': expected an output of a session on the same device", info.name);
      }
      if (in.producerOutput >= p.outputs_.size() || p.outputs_[in.producerOutput].bytes != info.bytes) {
        return invalidInput("input '{}': expected a device-resident output of {} bytes, got output #{} of a session "
                            "with {} output(s)", info.name, info.bytes, in.producerOutput, p.outputs_.size());
      }
      if (p.submitted_ == 0) {
        return invalidInput("input '{}': expected a session that has run, got one that never ran", info.name);
      }
      continue;
    }
    if (in.host.size() != info.bytes) {
      return invalidInput("input '{}': expected {} bytes of data, got {}", info.name, info.bytes, in.host.size());
    }
    if (in.pinned != nullptr && (in.pinned->device() != device || !inside(in.host, *in.pinned))) {
      return invalidInput("input '{}': expected its bytes inside the given pinned memory of this device", info.name);
    }
  }
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const OutputRef& out = outputs[o];
    const TensorInfo& info = outputs_[o];
    if (!out.host.empty() && out.host.size() != info.bytes) {
      return invalidInput("output '{}': expected room for {} bytes, got {}", info.name, info.bytes, out.host.size());
    }
    if (out.pinned != nullptr && (out.pinned->device() != device || !inside(out.host, *out.pinned))) {
      return invalidInput("output '{}': expected its bytes inside the given pinned memory of this device", info.name);
    }
  }
  return {};
}

namespace {

enum class CopyDirection { In, Out };

// Records a slot's upload (In) or download (Out) buffer, to be submitted as often as a run
// needs exactly these copies.
Status recordCopies(const vulkan::CommandBuffer& buffer, std::span<const CopyRegion> copies, CopyDirection direction,
                    bool separateTransferQueue) {
  OPENVGF_TRY(buffer.reset());
  VkCommandBuffer cmd = buffer.handle();
  OPENVGF_TRY(buffer.begin());
  if (direction == CopyDirection::In) {
    // The regions written here were last read by an earlier run's dispatches (same queue) or
    // written by its uploads.
    vulkan::recordMemoryBarrier(cmd, separateTransferQueue ? kCopy : kCopy | kCompute, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                kCopy, VK_ACCESS_2_TRANSFER_WRITE_BIT);
  }
  for (const CopyRegion& c : copies) {
    VkBufferCopy region{c.fromOffset, c.toOffset, c.bytes};
    vkCmdCopyBuffer(cmd, c.from, c.to, 1, &region);
  }
  if (direction == CopyDirection::Out && !copies.empty()) {
    vulkan::recordMemoryBarrier(cmd, kCopy, VK_ACCESS_2_TRANSFER_WRITE_BIT, kHost, VK_ACCESS_2_HOST_READ_BIT);
  }
  return buffer.end();
}

}  // namespace

Result<RunTicket> Session::runAsync(std::span<const InputRef> inputs, std::span<const OutputRef> outputs) {
  OPENVGF_TRY(checkRefs(inputs, outputs));
  const std::uint64_t ticket = submitted_ + 1;
  const std::size_t slot = ticket % slots_.size();
  if (slots_[slot]->ticket != 0) {
    return invalidInput("runAsync: {} run(s) already in flight (SessionOptions::inFlight); wait for run {} first",
                        slots_.size(), slots_[slot]->ticket);
  }
  OPENVGF_TRY(submit(slot, inputs, outputs));
  return RunTicket{ticket};
}

// This run's upload copies per submission: pinned memory and other sessions' outputs by DMA,
// host bytes through staging, whole (a memcpy each, in slot.memcpys; one submission) or in
// pieces (planUploadPieces; one submission each, the first also taking the DMA-only copies).
// With pieces of the batch (pieces_, when the inputs they read arrive by DMA), one submission
// per piece, each with that piece's images of those inputs. Re-records the upload buffers
// whose copies changed.
Status Session::planUploads(Slot& slot, std::span<const InputRef> inputs) {
  const vulkan::Device& device = context_->device();
  // Bytes [first, end) of input i in piece k of the batch, for inputs the pieces read.
  auto pieceRange = [&](std::size_t i, std::size_t k) {
    const std::uint64_t perImage = inputs_[i].bytes / pieces_.images;
    return std::pair{pieces_.imageBounds[k] * perImage, pieces_.imageBounds[k + 1] * perImage};
  };
  auto readByPieces = [&](std::size_t i) {
    return std::find(pieces_.inputs.begin(), pieces_.inputs.end(), i) != pieces_.inputs.end();
  };
  slot.stagedBytes.assign(inputs.size(), 0);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const InputRef& in = inputs[i];
    const Slot::Io& io = slot.inputs[i];
    if (in.producer == nullptr && in.pinned == nullptr && in.host.data() != io.mapped && io.copied()) {
      slot.stagedBytes[i] = inputs_[i].bytes;
    }
  }
  // Pieces only when the inputs they read arrive by DMA (pinned, another session's output):
  // staged through the host's memcpy (~20 GB/s on the H200's host, slower than the copy
  // engine), the pieces' extra barriers and waits made runs slower
  // (benchmarks/results/h200-b32-overlap-2026-11-29.md).
  slot.piecewise = pieces_.pieces() > 0;
  for (std::size_t i : pieces_.inputs) slot.piecewise = slot.piecewise && slot.stagedBytes[i] == 0;
  const std::size_t batchPieces = slot.piecewise ? pieces_.pieces() : 0;
  if (batchPieces > 0) {
    // Staged inputs (none the pieces read) go whole with the first piece.
    slot.pieces.clear();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (slot.stagedBytes[i] > 0) slot.pieces.push_back({i, 0, slot.stagedBytes[i], 0});
    }
  } else {
    slot.pieces = planUploadPieces(slot.stagedBytes, uploadChunkBytes_);
  }
  const std::size_t submissions =
      batchPieces > 0 ? batchPieces : std::max<std::size_t>(1, slot.pieces.size());
  slot.wantedUploads.resize(submissions);
  for (std::vector<CopyRegion>& copies : slot.wantedUploads) copies.clear();
  slot.memcpys.clear();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const InputRef& in = inputs[i];
    const Slot::Io& io = slot.inputs[i];
    const VkDeviceSize bytes = inputs_[i].bytes;
    VkBuffer source = io.staging;
    VkDeviceSize sourceOffset = io.stagingOffset;
    if (in.producer != nullptr) {
      const Session& p = *in.producer;
      const Slot::Io& produced = p.slots_[p.lastSlot_]->outputs[in.producerOutput];
      source = produced.bound;
      sourceOffset = produced.boundOffset;
    } else if (in.pinned != nullptr) {
      source = in.pinned->buffer();
      sourceOffset = static_cast<VkDeviceSize>(in.host.data() - in.pinned->bytes().data());
      if (batchPieces > 0 && readByPieces(i)) {
        for (std::size_t k = 0; k < batchPieces; ++k) {
          const auto [first, end] = pieceRange(i, k);
          slot.wantedUploads[k].push_back({source, sourceOffset + first, io.bound, io.boundOffset + first, end - first});
        }
        continue;
      }
    } else {
      if (!slot.pieces.empty() && slot.stagedBytes[i] > 0) continue;  // in pieces, below
      if (in.host.data() != io.mapped) slot.memcpys.push_back({io.mapped, in.host.data(), bytes});
      if (!io.copied()) continue;  // Direct mode: the shaders read the staging itself
    }
    slot.wantedUploads[0].push_back({source, sourceOffset, io.bound, io.boundOffset, bytes});
  }
  for (const UploadPiece& piece : slot.pieces) {
    const Slot::Io& io = slot.inputs[piece.input];
    slot.wantedUploads[piece.submission].push_back({io.staging, io.stagingOffset + piece.offset, io.bound,
                                                    io.boundOffset + piece.offset, piece.bytes});
  }
  const bool separate = device.hasTransferQueue();
  for (std::size_t k = 0; k < submissions; ++k) {
    if (k == slot.uploads.size()) {
      OPENVGF_ASSIGN_OR_RETURN(vulkan::CommandBuffer upload,
                               vulkan::CommandBuffer::create(device, vulkan::Queue::Transfer));
      slot.uploads.push_back(std::move(upload));
    }
    if (slot.uploadCopies.size() <= k) slot.uploadCopies.resize(k + 1);
    if (slot.uploadCopies[k] != slot.wantedUploads[k]) {
      OPENVGF_TRY(recordCopies(slot.uploads[k], slot.wantedUploads[k], CopyDirection::In, separate));
      slot.uploadCopies[k] = slot.wantedUploads[k];
    }
  }
  return {};
}

// Copies the host inputs into staging and submits the uploads planned by planUploads. With a
// dedicated transfer queue the submissions go there, the first waiting for what the inputs
// depend on (this slot's previous run, producer sessions' runs), the last signalling
// uploaded_ = ticket; on one queue, the pieces are submitted each alone and a whole-input
// upload joins the compute submission (Session::submit). Pipelined: piece k is submitted as
// soon as its memcpy is done, while the copy threads go on with piece k + 1.
Status Session::submitUploads(Slot& slot, std::uint64_t ticket, std::span<const InputRef> inputs) {
  const vulkan::Device& device = context_->device();
  const bool separate = device.hasTransferQueue();
  slot.uploadWaits.clear();
  // The slot's device inputs were last read by run ticket - slots (finished: its wait
  // returned); the dependency is stated anyway, for the queue (the upload buffer's first
  // barrier) and across queues (semaphore wait, already satisfied).
  auto waitFor = [&](const vulkan::TimelineSemaphore& semaphore, std::uint64_t value) {
    VkSemaphoreSubmitInfo wait = vkStruct<VkSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO);
    wait.semaphore = semaphore.handle();
    wait.value = value;
    wait.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    slot.uploadWaits.push_back(wait);
  };
  if (separate && ticket > slots_.size()) waitFor(*done_, ticket - slots_.size());
  for (const InputRef& in : inputs) {
    // On one queue the producer's run was submitted earlier: the upload's first barrier
    // orders after it. Across queues, wait for its run on the GPU.
    if (separate && in.producer != nullptr) waitFor(*in.producer->done_, in.producer->submitted_);
  }
  // With pieces of the batch on a transfer queue every submission signals its piece, empty
  // or not: the compute of that piece waits for it.
  const std::size_t submissions = slot.wantedUploads.size();
  const bool signalPieces = separate && slot.piecewise;
  std::array<VkSemaphoreSubmitInfo, 2> signals{};
  auto submitOne = [&](std::size_t k) -> Status {
    const bool last = k + 1 == submissions;
    if (slot.wantedUploads[k].empty() && !signalPieces) return {};
    VkCommandBufferSubmitInfo commandInfo =
        vkStruct<VkCommandBufferSubmitInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO);
    commandInfo.commandBuffer = slot.uploads[k].handle();
    std::uint32_t signalCount = 0;
    auto signal = [&](const vulkan::TimelineSemaphore& semaphore, std::uint64_t value) {
      VkSemaphoreSubmitInfo& info = signals[signalCount++];
      info = vkStruct<VkSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO);
      info.semaphore = semaphore.handle();
      info.value = value;
      info.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    };
    // Later submissions on the queue are ordered after this one's waits, and the last one's
    // signal covers every earlier submission on the queue (submission order).
    if (signalPieces) signal(*piecesUploaded_, (ticket - 1) * submissions + k + 1);
    if (separate && last) signal(*uploaded_, ticket);
    VkSubmitInfo2 submit = vkStruct<VkSubmitInfo2>(VK_STRUCTURE_TYPE_SUBMIT_INFO_2);
    if (separate && k == 0) {
      submit.waitSemaphoreInfoCount = static_cast<std::uint32_t>(slot.uploadWaits.size());
      submit.pWaitSemaphoreInfos = slot.uploadWaits.data();
    }
    submit.commandBufferInfoCount = slot.wantedUploads[k].empty() ? 0 : 1;
    submit.pCommandBufferInfos = &commandInfo;
    submit.signalSemaphoreInfoCount = signalCount;
    submit.pSignalSemaphoreInfos = signals.data();
    return device.submit(submit, VK_NULL_HANDLE, separate ? vulkan::Queue::Transfer : vulkan::Queue::Compute);
  };
  // Submits every submission up to `last` not yet submitted, in order.
  std::size_t next = 0;
  Status status;
  auto submitThrough = [&](std::size_t last) {
    for (; next <= last && next < submissions && status; ++next) status = submitOne(next);
  };
  if (slot.pieces.empty()) {
    for (const CopyPiece& copy : slot.memcpys) parallelCopy(copy.destination, copy.source, copy.bytes);
    // On one queue a whole-input upload joins the compute submission (Session::submit).
    if (separate || slot.piecewise) submitThrough(submissions - 1);
    return status;
  }
  slot.memcpys.clear();
  for (const UploadPiece& piece : slot.pieces) {
    const Slot::Io& io = slot.inputs[piece.input];
    slot.memcpys.push_back({io.mapped + piece.offset, inputs[piece.input].host.data() + piece.offset,
                            static_cast<std::size_t>(piece.bytes)});
  }
  pipelinedCopy(slot.memcpys, [&](std::size_t j) {
    const std::size_t submission = slot.pieces[j].submission;
    if (j + 1 == slot.pieces.size() || slot.pieces[j + 1].submission != submission) submitThrough(submission);
  });
  submitThrough(submissions - 1);
  return status;
}

// Stages the inputs and submits the uploads (submitUploads), then the compute and download
// buffers on the compute queue (waiting for uploaded_ = ticket, signalling done_ = ticket;
// with pieces of the batch, each piece's buffer first, waiting for its upload).
// Without a dedicated transfer queue a whole-input upload, the compute and the download
// buffers go in one submission, ordered by their barriers and no semaphore (lavapipe's
// timeline semaphores in Mesa 22.3 corrupted memory under this load).
Status Session::submit(std::size_t slotIndex, std::span<const InputRef> inputs, std::span<const OutputRef> outputs) {
  const vulkan::Device& device = context_->device();
  Slot& slot = *slots_[slotIndex];
  const std::uint64_t ticket = submitted_ + 1;
  const bool separate = device.hasTransferQueue();
  OPENVGF_TRY(planUploads(slot, inputs));
  bool uploads = false;
  for (const std::vector<CopyRegion>& copies : slot.wantedUploads) uploads = uploads || !copies.empty();
  VkCommandBuffer up = slot.uploads[0].handle();

  // Downloads, after the slot's compute buffer (which ends with a compute -> copy barrier).
  slot.wantedDownloads.clear();
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const OutputRef& out = outputs[o];
    const Slot::Io& io = slot.outputs[o];
    slot.hostOutputs[o] = {};
    if (out.host.empty()) continue;  // stays on the device
    VkBuffer target = io.staging;
    VkDeviceSize targetOffset = io.stagingOffset;
    if (out.pinned != nullptr) {
      target = out.pinned->buffer();
      targetOffset = static_cast<VkDeviceSize>(out.host.data() - out.pinned->bytes().data());
    } else {
      slot.hostOutputs[o] = out.host;
      if (!io.copied()) continue;  // Direct mode: the shaders wrote the staging itself
    }
    slot.wantedDownloads.push_back({io.bound, io.boundOffset, target, targetOffset, outputs_[o].bytes});
  }
  const bool downloads = !slot.wantedDownloads.empty();
  if (slot.downloadCopies != slot.wantedDownloads) {
    OPENVGF_TRY(recordCopies(*slot.download, slot.wantedDownloads, CopyDirection::Out, separate));
    slot.downloadCopies = slot.wantedDownloads;
  }
  VkCommandBuffer down = slot.download->handle();

  OPENVGF_TRY(submitUploads(slot, ticket, inputs));
  const std::size_t batchPieces = slot.piecewise ? pieces_.pieces() : 0;
  slot.commandInfos.clear();
  auto addCommand = [&](VkCommandBuffer cmd) {
    VkCommandBufferSubmitInfo info = vkStruct<VkCommandBufferSubmitInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO);
    info.commandBuffer = cmd;
    slot.commandInfos.push_back(info);
  };
  if (uploads && !separate && slot.pieces.empty() && batchPieces == 0) addCommand(up);
  if (batchPieces > 0) {
    for (const vulkan::CommandBuffer& piece : slot.computePieces) addCommand(piece.handle());
    addCommand(slot.compute->handle());
  } else {
    addCommand(slot.computeWhole ? slot.computeWhole->handle() : slot.compute->handle());
  }
  if (downloads) addCommand(down);
  auto semaphoreInfo = [](const vulkan::TimelineSemaphore& semaphore, std::uint64_t value) {
    VkSemaphoreSubmitInfo info = vkStruct<VkSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO);
    info.semaphore = semaphore.handle();
    info.value = value;
    info.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    return info;
  };
  // On a transfer queue each piece's dispatches are a batch of their own that waits for the
  // piece's upload; the main buffer and the downloads wait for every upload and signal the
  // run's end. On one queue, one batch in submission order.
  const bool piecesWait = separate && batchPieces > 0;
  slot.semaphoreWaits.clear();
  if (piecesWait) {
    for (std::size_t k = 0; k < batchPieces; ++k) {
      slot.semaphoreWaits.push_back(semaphoreInfo(*piecesUploaded_, (ticket - 1) * batchPieces + k + 1));
    }
  }
  const bool waitUploads = separate && (uploads || piecesWait);
  if (waitUploads) slot.semaphoreWaits.push_back(semaphoreInfo(*uploaded_, ticket));
  VkSemaphoreSubmitInfo signal{};
  if (separate) signal = semaphoreInfo(*done_, ticket);
  slot.submits.clear();
  std::size_t firstMain = 0;
  if (piecesWait) {
    for (std::size_t k = 0; k < batchPieces; ++k) {
      VkSubmitInfo2 piece = vkStruct<VkSubmitInfo2>(VK_STRUCTURE_TYPE_SUBMIT_INFO_2);
      piece.waitSemaphoreInfoCount = 1;
      piece.pWaitSemaphoreInfos = &slot.semaphoreWaits[k];
      piece.commandBufferInfoCount = 1;
      piece.pCommandBufferInfos = &slot.commandInfos[k];
      slot.submits.push_back(piece);
    }
    firstMain = batchPieces;
  }
  VkSubmitInfo2 submit = vkStruct<VkSubmitInfo2>(VK_STRUCTURE_TYPE_SUBMIT_INFO_2);
  submit.waitSemaphoreInfoCount = waitUploads ? 1 : 0;
  submit.pWaitSemaphoreInfos = waitUploads ? &slot.semaphoreWaits.back() : nullptr;
  submit.commandBufferInfoCount = static_cast<std::uint32_t>(slot.commandInfos.size() - firstMain);
  submit.pCommandBufferInfos = slot.commandInfos.data() + firstMain;
  submit.signalSemaphoreInfoCount = separate ? 1 : 0;
  submit.pSignalSemaphoreInfos = &signal;
  slot.submits.push_back(submit);
  OPENVGF_TRY(slot.fence->reset(device));
  OPENVGF_TRY(device.submit(slot.submits, slot.fence->handle()));
  submitted_ = ticket;
  slot.ticket = ticket;
  lastSlot_ = slotIndex;
  if (slot.piecewise) ++piecewiseRuns_;
  return {};
}

Status Session::wait(RunTicket ticket) {
  const std::size_t slotIndex = ticket.value % slots_.size();
  Slot& slot = *slots_[slotIndex];
  if (ticket.value == 0 || slot.ticket != ticket.value) {
    return invalidInput("wait: run {} is not in flight (already waited for, or never started)", ticket.value);
  }
  const vulkan::Device& device = context_->device();
  // GPUs: poll before sleeping (see Device::wait). On a CPU device the polling thread would
  // take a core from the threads doing the work.
  constexpr std::chrono::microseconds kSpin{1000};
  const bool cpu = device.snapshot().type == vulkan::DeviceType::Cpu;
  OPENVGF_TRY(device.wait(slot.fence->handle(), cpu ? std::chrono::microseconds{0} : kSpin));
  slot.ticket = 0;
  OPENVGF_TRY(context_->checkValidation());
  for (std::size_t o = 0; o < outputs_.size(); ++o) {
    std::span<std::uint8_t> target = slot.hostOutputs[o];
    if (!target.empty() && target.data() != slot.outputs[o].mapped) {
      parallelCopy(target.data(), slot.outputs[o].mapped, target.size());
    }
  }
  if (profile_) {
    OPENVGF_TRY(slot.queries->read(device, ticks_));
    double period = device.snapshot().limits.timestampPeriod;
    for (std::size_t i = 0; i < ticks_.size(); ++i) {
      timing_.timestampsNs[i] = static_cast<std::uint64_t>(static_cast<double>(ticks_[i]) * period);
    }
  }
  return {};
}

Status Session::runInPlace() {
  auto start = std::chrono::steady_clock::now();
  // Slot 0's staging is what inputMemory()/outputMemory() show: every earlier run is
  // finished first, then this one goes to slot 0.
  for (const std::unique_ptr<Slot>& slot : slots_) {
    if (slot->ticket != 0) OPENVGF_TRY(wait(RunTicket{slot->ticket}));
  }
  std::vector<InputRef> inputs(inputs_.size());
  std::vector<OutputRef> outputs(outputs_.size());
  for (std::size_t i = 0; i < inputs_.size(); ++i) inputs[i].host = inputMemory(i);
  for (std::size_t o = 0; o < outputs_.size(); ++o) outputs[o].host = {slots_[0]->outputs[o].mapped, outputs_[o].bytes};
  OPENVGF_TRY(checkRefs(inputs, outputs));
  // Tickets map to slots by value: skip to the next ticket that lands on slot 0.
  while ((submitted_ + 1) % slots_.size() != 0) ++submitted_;
  OPENVGF_TRY(submit(0, inputs, outputs));
  OPENVGF_TRY(wait(RunTicket{submitted_}));
  timing_.hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return {};
}

Status Session::checkInput(std::size_t index, tosa::DType dtype, const tosa::Shape& shape, std::size_t bytes) const {
  return checkTensor(inputs_[index], dtype, shape, bytes);
}

Status Session::run(std::span<const tosa::HostTensor* const> inputs, std::vector<tosa::HostTensor>& outputs) {
  auto start = std::chrono::steady_clock::now();
  if (inputs.size() != inputs_.size()) {
    return invalidInput("expected {} input(s) ({}), got {}", inputs_.size(), inputList(inputs_), inputs.size());
  }
  std::vector<InputRef> inputRefs(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const tosa::HostTensor* t = inputs[i];
    if (t == nullptr) return invalidInput("input '{}': expected a tensor, got none", inputs_[i].name);
    OPENVGF_TRY(checkInput(i, t->dtype, t->shape, t->bytes.size()));
    inputRefs[i].host = t->bytes;
  }
  if (outputs.size() != outputs_.size()) outputs.resize(outputs_.size());
  std::vector<OutputRef> outputRefs(outputs_.size());
  for (std::size_t o = 0; o < outputs_.size(); ++o) {
    const TensorInfo& info = outputs_[o];
    if (outputs[o].dtype != info.dtype || outputs[o].shape != info.shape || outputs[o].bytes.size() != info.bytes) {
      outputs[o] = tosa::HostTensor(info.dtype, info.shape);
    }
    outputRefs[o].host = outputs[o].bytes;
  }
  OPENVGF_ASSIGN_OR_RETURN(RunTicket ticket, runAsync(inputRefs, outputRefs));
  OPENVGF_TRY(wait(ticket));
  timing_.hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return {};
}

Result<std::vector<tosa::HostTensor>> Session::run(std::span<const tosa::HostTensor> inputs) {
  std::vector<const tosa::HostTensor*> pointers;
  for (const tosa::HostTensor& t : inputs) pointers.push_back(&t);
  std::vector<tosa::HostTensor> outputs;
  OPENVGF_TRY(run(pointers, outputs));
  return outputs;
}

void PinnedMemory::FreeAligned::operator()(std::uint8_t* p) const { std::free(p); }

Result<PinnedMemory> PinnedMemory::import(const Context& context, std::span<std::uint8_t> bytes) {
  PinnedMemory pinned;
  OPENVGF_ASSIGN_OR_RETURN(pinned.arena_, vulkan::Arena::importHost(context.device(), bytes, "pinned memory"));
  pinned.device_ = context.device().handle();
  pinned.imported_ = true;
  return pinned;
}

Result<PinnedMemory> PinnedMemory::allocate(const Context& context, std::size_t bytes) {
  if (bytes == 0) return invalidInput("pinned memory: expected a size above 0 bytes, got 0");
  const vulkan::Device& device = context.device();
  if (device.canImportHostMemory()) {
    const std::size_t alignment =
        std::max<std::size_t>(static_cast<std::size_t>(device.snapshot().minImportedHostPointerAlignment), 64);
    const std::size_t size = (bytes + alignment - 1) / alignment * alignment;
    std::unique_ptr<std::uint8_t, FreeAligned> memory(static_cast<std::uint8_t*>(std::aligned_alloc(alignment, size)));
    if (!memory) return runtimeError("pinned memory: cannot allocate {} bytes", size);
    std::memset(memory.get(), 0, size);
    Result<PinnedMemory> imported = import(context, {memory.get(), size});
    if (imported) {
      imported->owned_ = std::move(memory);
      return imported;
    }
    spdlog::debug("pinned memory: import failed ({}); using device-allocated host memory", imported.error().message());
  }
  PinnedMemory pinned;
  OPENVGF_ASSIGN_OR_RETURN(pinned.arena_, vulkan::Arena::create(device, bytes, vulkan::MemoryUse::Readback,
                                                                "pinned memory"));
  std::memset(pinned.arena_->mapped(), 0, bytes);
  pinned.device_ = device.handle();
  return pinned;
}

PinnedMemory::PinnedMemory(PinnedMemory&&) noexcept = default;
PinnedMemory& PinnedMemory::operator=(PinnedMemory&&) noexcept = default;
// The import goes before the memory it imports (members are destroyed in reverse order, and
// owned_ is declared first).
PinnedMemory::~PinnedMemory() = default;

}  // namespace openvgf::runner
