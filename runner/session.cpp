// SPDX-License-Identifier: Apache-2.0
// Session creation (memory plan, constant upload, pipelines, descriptors, recording) and runs.
#include "runner/session.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

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

Result<Session> Session::create(const Context& context, const Model& model, const SessionOptions& options) {
  const vulkan::Device& device = context.device();
  const vulkan::DeviceSnapshot& snapshot = device.snapshot();
  VkDevice vk = device.handle();
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

  // ---- Memory plan: one region per constant, per alias group, per other intermediate; model
  // I/O gets a staging region (and, in Copy mode, a device region too).
  const std::vector<ResourceInfo>& resources = model.resources();
  const VkDeviceSize alignment = std::max<VkDeviceSize>(snapshot.limits.minStorageBufferOffsetAlignment, 64);
  std::vector<Region> regions;
  std::vector<std::int64_t> regionOf(resources.size(), -1);         // bound (device-side) region
  std::vector<std::int64_t> stagingRegionOf(resources.size(), -1);  // host-visible region of model I/O
  std::map<std::uint32_t, std::uint32_t> groupRegion;
  auto isIo = [&](std::uint32_t mrt) {
    auto match = [&](const TensorInfo& t) { return t.mrtIndex == mrt; };
    return std::any_of(session.inputs_.begin(), session.inputs_.end(), match) ||
           std::any_of(session.outputs_.begin(), session.outputs_.end(), match);
  };
  for (std::uint32_t i = 0; i < resources.size(); ++i) {
    const ResourceInfo& r = resources[i];
    if (!r.used) continue;
    VkDeviceSize size = roundUp4(r.bytes);
    if (isIo(i)) {
      // Model I/O never shares memory with an alias group: its contents must survive the run.
      stagingRegionOf[i] = static_cast<std::int64_t>(regions.size());
      regions.push_back({Place::Staging, 0, size});
      if (session.direct_) {
        regionOf[i] = stagingRegionOf[i];
      } else {
        regionOf[i] = static_cast<std::int64_t>(regions.size());
        regions.push_back({Place::Device, 0, size});
      }
    } else if (r.category == ResourceCategory::Intermediate && r.aliasGroup != vgf::kUnset) {
      auto [it, inserted] = groupRegion.try_emplace(r.aliasGroup, static_cast<std::uint32_t>(regions.size()));
      if (inserted) regions.push_back({Place::Device, 0, size});
      regions[it->second].size = std::max(regions[it->second].size, size);
      regionOf[i] = it->second;
    } else {
      regionOf[i] = static_cast<std::int64_t>(regions.size());
      regions.push_back({Place::Device, 0, size});
    }
  }
  vulkan::ArenaLayout deviceLayout, stagingLayout;
  for (Region& region : regions) {
    region.offset = (region.place == Place::Device ? deviceLayout : stagingLayout).place(region.size, alignment);
  }
  session.deviceBytes_ = deviceLayout.size;
  session.stagingBytes_ = stagingLayout.size;
  if (deviceLayout.size > 0) {
    OPENVGF_ASSIGN_OR_RETURN(session.deviceArena_,
                             vulkan::Arena::create(device, deviceLayout.size,
                                                   session.direct_ ? vulkan::MemoryUse::Unified
                                                                   : vulkan::MemoryUse::DeviceLocal,
                                                   "constants and intermediates"));
  }
  if (stagingLayout.size > 0) {
    OPENVGF_ASSIGN_OR_RETURN(session.stagingArena_,
                             vulkan::Arena::create(device, stagingLayout.size,
                                                   session.direct_ ? vulkan::MemoryUse::Unified
                                                                   : vulkan::MemoryUse::HostStaging,
                                                   "input/output staging"));
  }
  auto bufferOf = [&](const Region& region) {
    return region.place == Place::Device ? session.deviceArena_->buffer() : session.stagingArena_->buffer();
  };

  // ---- Constants, uploaded once.
  std::vector<std::pair<std::uint32_t, std::span<const std::uint8_t>>> uploads;
  VkDeviceSize uploadBytes = 0;
  for (std::uint32_t i = 0; i < resources.size(); ++i) {
    if (!resources[i].used || !resources[i].constantIndex) continue;
    uploads.emplace_back(i, model.constantData()[*resources[i].constantIndex]);
    uploadBytes += roundUp4(uploads.back().second.size());
  }
  if (!uploads.empty()) {
    if (std::uint8_t* base = session.deviceArena_->mapped()) {
      for (auto& [mrt, data] : uploads) std::memcpy(base + regions[regionOf[mrt]].offset, data.data(), data.size());
    } else {
      // Discrete GPUs: through a temporary staging buffer and one copy submission.
      OPENVGF_ASSIGN_OR_RETURN(vulkan::Arena staging,
                               vulkan::Arena::create(device, uploadBytes, vulkan::MemoryUse::HostStaging,
                                                     "constant upload staging"));
      OPENVGF_ASSIGN_OR_RETURN(vulkan::CommandBuffer upload, vulkan::CommandBuffer::create(device));
      OPENVGF_ASSIGN_OR_RETURN(vulkan::Fence fence, vulkan::Fence::create(device));
      OPENVGF_TRY(upload.begin(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT));
      VkDeviceSize at = 0;
      for (auto& [mrt, data] : uploads) {
        std::memcpy(staging.mapped() + at, data.data(), data.size());
        VkBufferCopy copy{at, regions[regionOf[mrt]].offset, roundUp4(data.size())};
        vkCmdCopyBuffer(upload.handle(), staging.buffer(), session.deviceArena_->buffer(), 1, &copy);
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
      OPENVGF_TRY(device.wait(fence.handle()));
      // The fence wait orders this copy before every later submission's use of the constants.
    }
  }

  // ---- Pipelines: one per module used, layouts from the union of its segments' bindings.
  const std::vector<SegmentInfo>& segments = model.segments();
  std::map<std::uint32_t, std::size_t> pipelineOf;  // module index -> pipelines_ index
  std::vector<vulkan::ComputePipelineDesc> descs;
  for (const SegmentInfo& seg : segments) {
    auto [it, inserted] = pipelineOf.try_emplace(seg.moduleIndex, descs.size());
    if (inserted) {
      const ModuleInfo& module = model.modules()[seg.moduleIndex];
      vulkan::ComputePipelineDesc desc;
      desc.name = fmt::format("{}: modules[{}] '{}'", model.source(), seg.moduleIndex, module.name);
      desc.spirv = module.spirv;
      desc.entryPoint = module.entryPoint;
      descs.push_back(std::move(desc));
    }
    vulkan::ComputePipelineDesc& desc = descs[it->second];
    for (const BindingInfo& b : seg.bindings) {
      if (desc.sets.size() <= b.set) desc.sets.resize(b.set + 1);
      std::vector<std::uint32_t>& set = desc.sets[b.set];
      if (std::find(set.begin(), set.end(), b.binding) == set.end()) set.push_back(b.binding);
    }
  }
  auto pipelineStart = std::chrono::steady_clock::now();
  OPENVGF_ASSIGN_OR_RETURN(session.pipelines_, vulkan::createComputePipelines(device, context.pipelineCache(), descs,
                                                                              options.pipelineThreads));
  spdlog::debug("{}: {} pipeline(s) for {} segment(s) in {:.1f} ms (pipeline cache {})", model.source(), descs.size(),
                segments.size(),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - pipelineStart).count(),
                context.pipelineCache().loadedFromDisk() ? "loaded from disk" : "empty");

  // ---- Descriptor sets: one per (segment, set), written once; the pool is sized exactly.
  std::uint32_t setCount = 0, descriptorCount = 0;
  for (const SegmentInfo& seg : segments) {
    // Allocation consumes every binding of the layout (the union over the module's segments),
    // whether or not this segment writes it.
    const vulkan::ComputePipelineDesc& desc = descs[pipelineOf[seg.moduleIndex]];
    setCount += static_cast<std::uint32_t>(desc.sets.size());
    for (const std::vector<std::uint32_t>& set : desc.sets) descriptorCount += static_cast<std::uint32_t>(set.size());
  }
  OPENVGF_ASSIGN_OR_RETURN(session.descriptorPool_, vulkan::DescriptorPool::create(device, setCount, descriptorCount));
  std::vector<std::vector<VkDescriptorSet>> segmentSets(segments.size());
  std::vector<VkDescriptorBufferInfo> bufferInfos;
  bufferInfos.reserve(descriptorCount);
  std::vector<VkWriteDescriptorSet> writes;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const vulkan::ComputePipeline& pipeline = session.pipelines_[pipelineOf[segments[s].moduleIndex]];
    for (std::size_t set = 0; set < pipeline.setCount(); ++set) {
      OPENVGF_ASSIGN_OR_RETURN(VkDescriptorSet handle, session.descriptorPool_->allocate(device, pipeline.setLayout(set)));
      segmentSets[s].push_back(handle);
    }
    for (const BindingInfo& b : segments[s].bindings) {
      const Region& region = regions[regionOf[b.mrtIndex]];
      bufferInfos.push_back({bufferOf(region), region.offset, roundUp4(resources[b.mrtIndex].bytes)});
      VkWriteDescriptorSet write = vkStruct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
      write.dstSet = segmentSets[s][b.set];
      write.dstBinding = b.binding;
      write.descriptorCount = 1;
      write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      write.pBufferInfo = &bufferInfos.back();
      writes.push_back(write);
    }
  }
  if (!writes.empty()) vkUpdateDescriptorSets(vk, static_cast<std::uint32_t>(writes.size()), writes.data(), 0, nullptr);

  // ---- Recording: every dispatch, the barriers the data dependencies need, timestamps.
  if (session.profile_) {
    OPENVGF_ASSIGN_OR_RETURN(session.queries_, vulkan::TimestampQueries::create(
                                                   device, static_cast<std::uint32_t>(segments.size() + 1)));
    session.ticks_.resize(segments.size() + 1);
    session.timing_.timestampsNs.resize(segments.size() + 1);
  }
  OPENVGF_ASSIGN_OR_RETURN(session.commands_, vulkan::CommandBuffer::create(device));
  VkCommandBuffer cmd = session.commands_->handle();
  OPENVGF_TRY(session.commands_->begin());
  HazardTracker tracker(regions.size());
  auto sync = [&](std::span<const RegionUse> uses) {
    if (std::optional<VkMemoryBarrier2> barrier = tracker.use(uses)) {
      VkDependencyInfo dependency = vkStruct<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
      dependency.memoryBarrierCount = 1;
      dependency.pMemoryBarriers = &*barrier;
      vkCmdPipelineBarrier2(cmd, &dependency);
      ++session.barriers_;
    }
  };
  auto regionId = [](std::int64_t id) { return static_cast<std::uint32_t>(id); };
  if (session.profile_) vkCmdResetQueryPool(cmd, session.queries_->handle(), 0, session.queries_->count());
  if (!session.direct_) {
    for (const TensorInfo& t : session.inputs_) {
      RegionUse uses[] = {{regionId(stagingRegionOf[t.mrtIndex]), VK_PIPELINE_STAGE_2_COPY_BIT, true, false},
                          {regionId(regionOf[t.mrtIndex]), VK_PIPELINE_STAGE_2_COPY_BIT, false, true}};
      sync(uses);
      const Region& from = regions[stagingRegionOf[t.mrtIndex]];
      const Region& to = regions[regionOf[t.mrtIndex]];
      VkBufferCopy copy{from.offset, to.offset, from.size};
      vkCmdCopyBuffer(cmd, bufferOf(from), bufferOf(to), 1, &copy);
    }
  }
  if (session.profile_) {
    vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, session.queries_->handle(), 0);
  }
  VkPipeline bound = VK_NULL_HANDLE;
  std::vector<RegionUse> uses;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const SegmentInfo& seg = segments[s];
    uses.clear();
    for (const BindingInfo& b : seg.bindings) {
      uses.push_back({regionId(regionOf[b.mrtIndex]), VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                      b.access != Access::Write, b.access != Access::Read});
    }
    sync(uses);
    const vulkan::ComputePipeline& pipeline = session.pipelines_[pipelineOf[seg.moduleIndex]];
    if (pipeline.handle() != bound) {
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
      bound = pipeline.handle();
    }
    if (!segmentSets[s].empty()) {
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0,
                              static_cast<std::uint32_t>(segmentSets[s].size()), segmentSets[s].data(), 0, nullptr);
    }
    vkCmdDispatch(cmd, seg.dispatch[0], seg.dispatch[1], seg.dispatch[2]);
    if (session.profile_) {
      vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, session.queries_->handle(),
                           static_cast<std::uint32_t>(s + 1));
    }
  }
  if (!session.direct_) {
    for (const TensorInfo& t : session.outputs_) {
      RegionUse copyUses[] = {{regionId(regionOf[t.mrtIndex]), VK_PIPELINE_STAGE_2_COPY_BIT, true, false},
                              {regionId(stagingRegionOf[t.mrtIndex]), VK_PIPELINE_STAGE_2_COPY_BIT, false, true}};
      sync(copyUses);
      const Region& from = regions[regionOf[t.mrtIndex]];
      const Region& to = regions[stagingRegionOf[t.mrtIndex]];
      VkBufferCopy copy{from.offset, to.offset, from.size};
      vkCmdCopyBuffer(cmd, bufferOf(from), bufferOf(to), 1, &copy);
    }
  }
  // The host reads outputs after the fence: make the device writes visible to it.
  uses.clear();
  for (const TensorInfo& t : session.outputs_) {
    uses.push_back({regionId(stagingRegionOf[t.mrtIndex]), VK_PIPELINE_STAGE_2_HOST_BIT, true, false});
  }
  sync(uses);
  OPENVGF_TRY(session.commands_->end());
  OPENVGF_ASSIGN_OR_RETURN(session.fence_, vulkan::Fence::create(device));

  for (const TensorInfo& t : session.inputs_) {
    session.inputPtr_.push_back(session.stagingArena_->mapped() + regions[stagingRegionOf[t.mrtIndex]].offset);
  }
  for (const TensorInfo& t : session.outputs_) {
    session.outputPtr_.push_back(session.stagingArena_->mapped() + regions[stagingRegionOf[t.mrtIndex]].offset);
  }
  spdlog::debug("{}: {} I/O, {} barrier(s), device memory {} bytes, staging {} bytes", model.source(),
                session.direct_ ? "direct" : "copied", session.barriers_, session.deviceBytes_, session.stagingBytes_);
  OPENVGF_TRY(context.checkValidation());
  return session;
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
