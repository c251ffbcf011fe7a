// SPDX-License-Identifier: Apache-2.0
// ComputeDispatcher (runner/scenario.h): a scenario's dispatch_compute commands on one device.
// The scenario's buffers and tensors live in host memory between commands (graphs run through
// the public Model, on their own device), so each dispatch copies its bound resources into one
// host-visible arena, runs, waits, and copies back what the shader may write.
#include <algorithm>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "runner/scenario.h"
#include "vulkan/check.h"
#include "vulkan/commands.h"
#include "vulkan/memory.h"
#include "vulkan/pipeline.h"

namespace openvgf::runner::scenario {

struct ComputeDispatcher::Impl {
  std::unique_ptr<Context> context;
  std::map<std::size_t, vulkan::ComputePipeline> pipelines;  // by shader resource
};

ComputeDispatcher::ComputeDispatcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ComputeDispatcher::~ComputeDispatcher() = default;

Result<std::unique_ptr<ComputeDispatcher>> ComputeDispatcher::create(const Scenario& scenario,
                                                                     const ContextOptions& options) {
  ContextOptions withShaders = options;
  withShaders.features |= scenario.features;
  auto impl = std::make_unique<Impl>();
  OPENVGF_ASSIGN_OR_RETURN(impl->context, Context::create(withShaders, std::span<const Model* const>()));
  const vulkan::Device& device = impl->context->device();
  for (const Command& command : scenario.commands) {
    if (command.kind != CommandKind::DispatchCompute || impl->pipelines.contains(command.target)) continue;
    const Resource& shader = scenario.resources[command.target];
    vulkan::ComputePipelineDesc desc;
    desc.name = shader.where;
    desc.spirv = shader.spirv;
    desc.entryPoint = shader.entry;
    for (const vgf::SpirvDescriptor& d : shader.descriptors) {
      if (desc.sets.size() <= d.set) desc.sets.resize(d.set + 1);
      desc.sets[d.set].push_back(d.binding);
    }
    desc.pushConstantBytes = shader.pushConstantBytes;
    OPENVGF_ASSIGN_OR_RETURN(vulkan::ComputePipeline pipeline,
                             vulkan::ComputePipeline::create(device, impl->context->pipelineCache(), desc));
    impl->pipelines.emplace(command.target, std::move(pipeline));
  }
  return std::unique_ptr<ComputeDispatcher>(new ComputeDispatcher(std::move(impl)));
}

Status ComputeDispatcher::checkValidation() const { return impl_->context->checkValidation(); }

namespace {

Status checkLimits(const vulkan::DeviceSnapshot& device, const Scenario& scenario, const Command& command) {
  for (int i = 0; i < 3; ++i) {
    if (command.groups[i] > device.limits.maxComputeWorkGroupCount[i]) {
      return unsupported("{}: rangeND[{}] = {} workgroups, expected at most {} on {}", command.where, i,
                         command.groups[i], device.limits.maxComputeWorkGroupCount[i], device.name);
    }
  }
  for (const Binding& b : command.bindings) {
    const Resource& r = scenario.resources[b.resource];
    if (r.bytes > device.limits.maxStorageBufferRange) {
      return unsupported("{}: {} has {} bytes, expected at most maxStorageBufferRange {} of {}", command.where,
                         r.where, r.bytes, device.limits.maxStorageBufferRange, device.name);
    }
  }
  return {};
}

}  // namespace

Status ComputeDispatcher::dispatch(const Scenario& scenario, const Command& command,
                                   std::vector<std::vector<std::uint8_t>>& memory) {
  const vulkan::Device& device = impl_->context->device();
  OPENVGF_TRY(checkLimits(device.snapshot(), scenario, command));
  const Resource& shader = scenario.resources[command.target];
  const vulkan::ComputePipeline& pipeline = impl_->pipelines.at(command.target);

  // One arena holds every bound resource, each at an aligned offset and padded to whole words.
  vulkan::ArenaLayout layout;
  const VkDeviceSize alignment = std::max<VkDeviceSize>(device.snapshot().limits.minStorageBufferOffsetAlignment, 4);
  std::vector<VkDeviceSize> offsets, ranges;
  for (const Binding& b : command.bindings) {
    ranges.push_back((scenario.resources[b.resource].bytes + 3) / 4 * 4);
    offsets.push_back(layout.place(ranges.back(), alignment));
  }
  OPENVGF_ASSIGN_OR_RETURN(vulkan::Arena arena, vulkan::Arena::create(device, std::max<VkDeviceSize>(layout.size, 4),
                                                                      vulkan::MemoryUse::Readback, "scenario"));
  std::memset(arena.mapped(), 0, arena.size());
  for (std::size_t i = 0; i < command.bindings.size(); ++i) {
    const std::vector<std::uint8_t>& bytes = memory[command.bindings[i].resource];
    std::memcpy(arena.mapped() + offsets[i], bytes.data(), bytes.size());
  }

  OPENVGF_ASSIGN_OR_RETURN(vulkan::DescriptorPool pool,
                           vulkan::DescriptorPool::create(device, static_cast<std::uint32_t>(pipeline.setCount()),
                                                          static_cast<std::uint32_t>(command.bindings.size())));
  std::vector<VkDescriptorSet> sets(pipeline.setCount(), VK_NULL_HANDLE);
  std::vector<VkDescriptorBufferInfo> infos(command.bindings.size());
  std::vector<VkWriteDescriptorSet> writes;
  for (std::size_t i = 0; i < command.bindings.size(); ++i) {
    const Binding& b = command.bindings[i];
    if (sets[b.set] == VK_NULL_HANDLE) {
      OPENVGF_ASSIGN_OR_RETURN(sets[b.set], pool.allocate(device, pipeline.setLayout(b.set)));
    }
    infos[i] = {arena.buffer(), offsets[i], ranges[i]};
    VkWriteDescriptorSet write = vulkan::vkStruct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    write.dstSet = sets[b.set];
    write.dstBinding = b.binding;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = &infos[i];
    writes.push_back(write);
  }
  vkUpdateDescriptorSets(device.handle(), static_cast<std::uint32_t>(writes.size()), writes.data(), 0, nullptr);

  OPENVGF_ASSIGN_OR_RETURN(vulkan::CommandBuffer cmd, vulkan::CommandBuffer::create(device));
  OPENVGF_TRY(cmd.begin(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT));
  VkCommandBuffer h = cmd.handle();
  vkCmdBindPipeline(h, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
  for (std::uint32_t s = 0; s < sets.size(); ++s) {
    if (sets[s] != VK_NULL_HANDLE) {
      vkCmdBindDescriptorSets(h, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), s, 1, &sets[s], 0, nullptr);
    }
  }
  if (shader.pushConstantBytes > 0 && command.pushData) {
    vkCmdPushConstants(h, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, shader.pushConstantBytes,
                       scenario.resources[*command.pushData].initial.data());
  }
  vkCmdDispatch(h, command.groups[0], command.groups[1], command.groups[2]);
  // The host reads the results after the fence.
  vulkan::recordMemoryBarrier(h, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  OPENVGF_TRY(cmd.end());
  OPENVGF_ASSIGN_OR_RETURN(vulkan::Fence fence, vulkan::Fence::create(device));
  VkCommandBufferSubmitInfo buffer = vulkan::vkStruct<VkCommandBufferSubmitInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO);
  buffer.commandBuffer = h;
  VkSubmitInfo2 submit = vulkan::vkStruct<VkSubmitInfo2>(VK_STRUCTURE_TYPE_SUBMIT_INFO_2);
  submit.commandBufferInfoCount = 1;
  submit.pCommandBufferInfos = &buffer;
  OPENVGF_TRY(withContext(device.submit(submit, fence.handle()), command.where));
  OPENVGF_TRY(withContext(device.wait(fence.handle()), command.where));

  for (std::size_t i = 0; i < command.bindings.size(); ++i) {
    const Binding& b = command.bindings[i];
    auto d = std::find_if(shader.descriptors.begin(), shader.descriptors.end(), [&](const vgf::SpirvDescriptor& x) {
      return x.set == b.set && x.binding == b.binding;
    });
    if (d != shader.descriptors.end() && d->mayWrite()) {
      std::vector<std::uint8_t>& bytes = memory[b.resource];
      std::memcpy(bytes.data(), arena.mapped() + offsets[i], bytes.size());
    }
  }
  return impl_->context->checkValidation();
}

}  // namespace openvgf::runner::scenario
