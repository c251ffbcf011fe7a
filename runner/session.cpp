// SPDX-License-Identifier: Apache-2.0
// Session creation (memory plan, constant upload, pipelines, descriptors, recording) and runs.
#include "runner/session.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/formats.h"
#include "runner/hazards.h"
#include "vulkan/check.h"

namespace openvgf::runner {
namespace {

using vgf::ResourceCategory;
using vulkan::vkStruct;

enum class Place : std::uint8_t { Device, Staging };

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

Result<std::vector<const tosa::HostTensor*>> bindInputs(const Model& model, std::span<const NamedInput> inputs) {
  const std::vector<TensorInfo>& expected = model.inputs();
  if (inputs.size() != expected.size()) {
    return invalidInput("{}: expected {} input(s) ({}), got {}", model.source(), expected.size(),
                        inputList(expected), inputs.size());
  }
  std::vector<const tosa::HostTensor*> ordered(expected.size(), nullptr);
  for (const NamedInput& input : inputs) {
    if (input.name.empty()) continue;
    std::optional<std::size_t> index = model.findInput(input.name);
    if (!index) {
      return invalidInput("{}: input '{}': expected one of the model's inputs ({}), got an unknown name",
                          model.source(), input.name, inputList(expected));
    }
    if (ordered[*index] != nullptr) {
      return invalidInput("{}: input '{}': expected one value, got it twice", model.source(), input.name);
    }
    ordered[*index] = input.tensor;
  }
  std::size_t next = 0;
  for (const NamedInput& input : inputs) {
    if (!input.name.empty()) continue;
    while (next < ordered.size() && ordered[next] != nullptr) ++next;
    ordered[next] = input.tensor;  // the count check above guarantees a free slot
  }
  return ordered;
}

// Regions of the two arenas: one per constant, per alias group, per other intermediate; model
// I/O gets a staging region (and, in Copy mode, a device region too).
struct Session::MemoryPlan {
  std::vector<Region> regions;
  std::vector<std::int64_t> regionOf;         // per resource: the region its descriptors bind (-1: unused)
  std::vector<std::int64_t> stagingRegionOf;  // per resource: its host-visible region (model I/O only)
  vulkan::ArenaLayout device;                 // layout of the device arena
  vulkan::ArenaLayout staging;                // layout of the staging arena
  VkBuffer deviceBuffer = VK_NULL_HANDLE;     // the arenas' buffers, once allocated
  VkBuffer stagingBuffer = VK_NULL_HANDLE;

  VkBuffer buffer(const Region& region) const { return region.place == Place::Device ? deviceBuffer : stagingBuffer; }

  const Region& bound(std::uint32_t mrt) const { return regions[static_cast<std::size_t>(regionOf[mrt])]; }
  const Region& staged(std::uint32_t mrt) const { return regions[static_cast<std::size_t>(stagingRegionOf[mrt])]; }
};

struct Session::PipelinePlan {
  std::vector<vulkan::ComputePipelineDesc> descs;  // one per module used, in first-use order
  std::vector<std::size_t> ofSegment;              // per segment: index into descs and pipelines_
};

Result<Session> Session::create(const Context& context, const Model& model, const SessionOptions& options) {
  const vulkan::Device& device = context.device();
  const vulkan::DeviceSnapshot& snapshot = device.snapshot();
  OPENVGF_TRY(model.checkDevice(snapshot));

  Session session;
  session.context_ = &context;
  session.inputs_ = model.inputs();
  session.outputs_ = model.outputs();
  for (const SegmentInfo& seg : model.segments()) session.segmentNames_.push_back(seg.name);
  session.profile_ = options.profile;
  bool unified = vulkan::hasUnifiedMemory(device);
  if (options.io == IoMode::Direct && !unified) {
    return unsupported("{}: direct I/O: expected a device with unified host-visible device-local memory, {} has none",
                       model.source(), snapshot.name);
  }
  session.direct_ = options.io == IoMode::Direct || (options.io == IoMode::Auto && unified);

  const VkDeviceSize alignment = std::max<VkDeviceSize>(snapshot.limits.minStorageBufferOffsetAlignment, 64);
  MemoryPlan plan = session.planMemory(model, alignment);
  OPENVGF_TRY(session.allocateMemory(device, plan));
  OPENVGF_TRY(session.initializeMemory(device, model, plan));
  OPENVGF_ASSIGN_OR_RETURN(PipelinePlan pipelines, session.createPipelines(context, model, options));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::vector<VkDescriptorSet>> sets,
                           session.writeDescriptorSets(device, model, plan, pipelines));
  OPENVGF_TRY(session.recordCommands(device, model, plan, pipelines, sets));
  for (const TensorInfo& t : session.inputs_) {
    session.inputPtr_.push_back(session.stagingArena_->mapped() + plan.staged(t.mrtIndex).offset);
  }
  for (const TensorInfo& t : session.outputs_) {
    session.outputPtr_.push_back(session.stagingArena_->mapped() + plan.staged(t.mrtIndex).offset);
  }
  spdlog::debug("{}: {} I/O, {} barrier(s), device memory {} bytes, staging {} bytes", model.source(),
                session.direct_ ? "direct" : "copied", session.barriers_, session.deviceBytes_, session.stagingBytes_);
  OPENVGF_TRY(context.checkValidation());
  return session;
}

Session::MemoryPlan Session::planMemory(const Model& model, VkDeviceSize alignment) {
  const std::vector<ResourceInfo>& resources = model.resources();
  MemoryPlan plan;
  plan.regionOf.assign(resources.size(), -1);
  plan.stagingRegionOf.assign(resources.size(), -1);
  std::vector<Region>& regions = plan.regions;
  auto next = [&] { return static_cast<std::int64_t>(regions.size()); };
  std::map<std::uint32_t, std::int64_t> groupRegion;
  auto isIo = [&](std::uint32_t mrt) {
    auto match = [&](const TensorInfo& t) { return t.mrtIndex == mrt; };
    return std::any_of(inputs_.begin(), inputs_.end(), match) || std::any_of(outputs_.begin(), outputs_.end(), match);
  };
  for (std::uint32_t i = 0; i < resources.size(); ++i) {
    const ResourceInfo& r = resources[i];
    if (!r.used) continue;
    VkDeviceSize size = roundUp4(r.bytes);
    if (isIo(i)) {
      // Model I/O never shares memory with an alias group: its contents must survive the run.
      plan.stagingRegionOf[i] = next();
      regions.push_back({Place::Staging, 0, size});
      if (direct_) {
        plan.regionOf[i] = plan.stagingRegionOf[i];
      } else {
        plan.regionOf[i] = next();
        regions.push_back({Place::Device, 0, size});
      }
    } else if (r.category == ResourceCategory::Intermediate && r.aliasGroup != vgf::kUnset) {
      auto [it, inserted] = groupRegion.try_emplace(r.aliasGroup, next());
      if (inserted) regions.push_back({Place::Device, 0, size});
      Region& shared = regions[static_cast<std::size_t>(it->second)];
      shared.size = std::max(shared.size, size);
      plan.regionOf[i] = it->second;
    } else {
      plan.regionOf[i] = next();
      regions.push_back({Place::Device, 0, size});
    }
  }
  for (Region& region : regions) {
    region.offset = (region.place == Place::Device ? plan.device : plan.staging).place(region.size, alignment);
  }
  deviceBytes_ = plan.device.size;
  stagingBytes_ = plan.staging.size;
  return plan;
}

Status Session::allocateMemory(const vulkan::Device& device, MemoryPlan& plan) {
  if (plan.device.size > 0) {
    OPENVGF_ASSIGN_OR_RETURN(deviceArena_, vulkan::Arena::create(device, plan.device.size,
                                                                 direct_ ? vulkan::MemoryUse::Unified
                                                                         : vulkan::MemoryUse::DeviceLocal,
                                                                 "constants and intermediates"));
    plan.deviceBuffer = deviceArena_->buffer();
  }
  if (plan.staging.size > 0) {
    OPENVGF_ASSIGN_OR_RETURN(stagingArena_, vulkan::Arena::create(device, plan.staging.size,
                                                                  direct_ ? vulkan::MemoryUse::Unified
                                                                          : vulkan::MemoryUse::HostStaging,
                                                                  "input/output staging"));
    plan.stagingBuffer = stagingArena_->buffer();
  }
  return {};
}

// Memory starts zeroed, then constants are uploaded once. Zeroing makes every run a function
// of the file and the inputs: a model whose kernels leave part of a tensor unwritten reads
// zeros there, never what the memory held before (another process's data, on a CPU device, or
// an earlier tensor).
Status Session::initializeMemory(const vulkan::Device& device, const Model& model, const MemoryPlan& plan) {
  const std::vector<ResourceInfo>& resources = model.resources();
  if (stagingArena_) std::memset(stagingArena_->mapped(), 0, stagingBytes_);
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
    for (auto& [mrt, data] : uploads) std::memcpy(base + plan.bound(mrt).offset, data.data(), data.size());
    return {};
  }
  // Discrete GPUs: a fill, then the constants through a temporary staging buffer, in one submission.
  std::optional<vulkan::Arena> staging;
  if (uploadBytes > 0) {
    OPENVGF_ASSIGN_OR_RETURN(staging, vulkan::Arena::create(device, uploadBytes, vulkan::MemoryUse::HostStaging,
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
    VkBufferCopy copy{at, plan.bound(mrt).offset, roundUp4(data.size())};
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
  auto start = std::chrono::steady_clock::now();
  OPENVGF_ASSIGN_OR_RETURN(pipelines_, vulkan::createComputePipelines(context.device(), context.pipelineCache(),
                                                                      plan.descs, options.pipelineThreads));
  spdlog::debug("{}: {} pipeline(s) for {} segment(s) in {:.1f} ms (pipeline cache {})", model.source(),
                plan.descs.size(), segments.size(),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
                context.pipelineCache().loadedFromDisk() ? "loaded from disk" : "empty");
  return plan;
}

// One descriptor set per (segment, set), written once; the pool is sized exactly.
Result<std::vector<std::vector<VkDescriptorSet>>> Session::writeDescriptorSets(const vulkan::Device& device,
                                                                               const Model& model,
                                                                               const MemoryPlan& plan,
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
  OPENVGF_ASSIGN_OR_RETURN(descriptorPool_, vulkan::DescriptorPool::create(device, setCount, descriptorCount));
  std::vector<std::vector<VkDescriptorSet>> segmentSets(segments.size());
  std::vector<VkDescriptorBufferInfo> bufferInfos;
  bufferInfos.reserve(descriptorCount);  // writes point into it: it must not reallocate
  std::vector<VkWriteDescriptorSet> writes;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const vulkan::ComputePipeline& pipeline = pipelines_[pipelines.ofSegment[s]];
    for (std::size_t set = 0; set < pipeline.setCount(); ++set) {
      OPENVGF_ASSIGN_OR_RETURN(VkDescriptorSet handle, descriptorPool_->allocate(device, pipeline.setLayout(set)));
      segmentSets[s].push_back(handle);
    }
    for (const BindingInfo& b : segments[s].bindings) {
      const Region& region = plan.bound(b.mrtIndex);
      bufferInfos.push_back({plan.buffer(region), region.offset, roundUp4(model.resources()[b.mrtIndex].bytes)});
      VkWriteDescriptorSet write = vkStruct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
      write.dstSet = segmentSets[s][b.set];
      write.dstBinding = b.binding;
      write.descriptorCount = 1;
      write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      write.pBufferInfo = &bufferInfos.back();
      writes.push_back(write);
    }
  }
  if (!writes.empty()) {
    vkUpdateDescriptorSets(device.handle(), static_cast<std::uint32_t>(writes.size()), writes.data(), 0, nullptr);
  }
  return segmentSets;
}

// One command buffer: input copies, every dispatch with the barriers its data dependencies
// need, output copies, timestamps with SessionOptions::profile.
Status Session::recordCommands(const vulkan::Device& device, const Model& model, const MemoryPlan& plan,
                               const PipelinePlan& pipelines, const std::vector<std::vector<VkDescriptorSet>>& sets) {
  const std::vector<SegmentInfo>& segments = model.segments();
  if (profile_) {
    OPENVGF_ASSIGN_OR_RETURN(queries_,
                             vulkan::TimestampQueries::create(device, static_cast<std::uint32_t>(segments.size() + 1)));
    ticks_.resize(segments.size() + 1);
    timing_.timestampsNs.resize(segments.size() + 1);
  }
  OPENVGF_ASSIGN_OR_RETURN(commands_, vulkan::CommandBuffer::create(device));
  VkCommandBuffer cmd = commands_->handle();
  OPENVGF_TRY(commands_->begin());
  HazardTracker tracker(plan.regions.size());
  auto sync = [&](std::span<const RegionUse> uses) {
    if (std::optional<VkMemoryBarrier2> barrier = tracker.use(uses)) {
      VkDependencyInfo dependency = vkStruct<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
      dependency.memoryBarrierCount = 1;
      dependency.pMemoryBarriers = &*barrier;
      vkCmdPipelineBarrier2(cmd, &dependency);
      ++barriers_;
    }
  };
  auto bound = [&](std::uint32_t mrt) { return static_cast<std::uint32_t>(plan.regionOf[mrt]); };
  auto staged = [&](std::uint32_t mrt) { return static_cast<std::uint32_t>(plan.stagingRegionOf[mrt]); };
  // A copy between the staging and the device region of model I/O (Copy mode only).
  auto copy = [&](std::uint32_t from, std::uint32_t to) {
    RegionUse uses[] = {{from, VK_PIPELINE_STAGE_2_COPY_BIT, true, false}, {to, VK_PIPELINE_STAGE_2_COPY_BIT, false, true}};
    sync(uses);
    const Region& source = plan.regions[from];
    const Region& target = plan.regions[to];
    VkBufferCopy region{source.offset, target.offset, source.size};
    vkCmdCopyBuffer(cmd, plan.buffer(source), plan.buffer(target), 1, &region);
  };
  if (profile_) vkCmdResetQueryPool(cmd, queries_->handle(), 0, queries_->count());
  if (!direct_) {
    for (const TensorInfo& t : inputs_) copy(staged(t.mrtIndex), bound(t.mrtIndex));
  }
  if (profile_) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, queries_->handle(), 0);
  VkPipeline current = VK_NULL_HANDLE;
  std::vector<RegionUse> uses;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const SegmentInfo& seg = segments[s];
    uses.clear();
    for (const BindingInfo& b : seg.bindings) {
      uses.push_back({bound(b.mrtIndex), VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, b.access != Access::Write,
                      b.access != Access::Read});
    }
    sync(uses);
    const vulkan::ComputePipeline& pipeline = pipelines_[pipelines.ofSegment[s]];
    if (pipeline.handle() != current) {
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
      current = pipeline.handle();
    }
    if (!sets[s].empty()) {
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0,
                              static_cast<std::uint32_t>(sets[s].size()), sets[s].data(), 0, nullptr);
    }
    vkCmdDispatch(cmd, seg.dispatch[0], seg.dispatch[1], seg.dispatch[2]);
    if (profile_) {
      vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, queries_->handle(),
                           static_cast<std::uint32_t>(s + 1));
    }
  }
  if (!direct_) {
    for (const TensorInfo& t : outputs_) copy(bound(t.mrtIndex), staged(t.mrtIndex));
  }
  // The host reads outputs after the fence: make the device writes visible to it.
  uses.clear();
  for (const TensorInfo& t : outputs_) uses.push_back({staged(t.mrtIndex), VK_PIPELINE_STAGE_2_HOST_BIT, true, false});
  sync(uses);
  OPENVGF_TRY(commands_->end());
  OPENVGF_ASSIGN_OR_RETURN(fence_, vulkan::Fence::create(device));
  return {};
}

Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

std::span<std::uint8_t> Session::inputMemory(std::size_t index) const {
  return {inputPtr_[index], static_cast<std::size_t>(inputs_[index].bytes)};
}

std::span<const std::uint8_t> Session::outputMemory(std::size_t index) const {
  return {outputPtr_[index], static_cast<std::size_t>(outputs_[index].bytes)};
}

Status Session::submitAndWait() {
  const vulkan::Device& device = context_->device();
  OPENVGF_TRY(fence_->reset(device));
  VkCommandBufferSubmitInfo commandInfo = vkStruct<VkCommandBufferSubmitInfo>(
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO);
  commandInfo.commandBuffer = commands_->handle();
  VkSubmitInfo2 submit = vkStruct<VkSubmitInfo2>(VK_STRUCTURE_TYPE_SUBMIT_INFO_2);
  submit.commandBufferInfoCount = 1;
  submit.pCommandBufferInfos = &commandInfo;
  OPENVGF_TRY(device.submit(submit, fence_->handle()));
  OPENVGF_TRY(device.wait(fence_->handle()));
  OPENVGF_TRY(context_->checkValidation());
  if (profile_) {
    OPENVGF_TRY(queries_->read(device, ticks_));
    double period = device.snapshot().limits.timestampPeriod;
    for (std::size_t i = 0; i < ticks_.size(); ++i) {
      timing_.timestampsNs[i] = static_cast<std::uint64_t>(static_cast<double>(ticks_[i]) * period);
    }
  }
  return {};
}

Status Session::runInPlace() {
  auto start = std::chrono::steady_clock::now();
  OPENVGF_TRY(submitAndWait());
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
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const tosa::HostTensor* t = inputs[i];
    if (t == nullptr) return invalidInput("input '{}': expected a tensor, got none", inputs_[i].name);
    OPENVGF_TRY(checkInput(i, t->dtype, t->shape, t->bytes.size()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) std::memcpy(inputPtr_[i], inputs[i]->bytes.data(), inputs_[i].bytes);
  OPENVGF_TRY(submitAndWait());
  if (outputs.size() != outputs_.size()) outputs.resize(outputs_.size());
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    const TensorInfo& info = outputs_[i];
    if (outputs[i].dtype != info.dtype || outputs[i].shape != info.shape || outputs[i].bytes.size() != info.bytes) {
      outputs[i] = tosa::HostTensor(info.dtype, info.shape);
    }
    std::memcpy(outputs[i].bytes.data(), outputPtr_[i], info.bytes);
  }
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

}  // namespace openvgf::runner
