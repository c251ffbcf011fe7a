// SPDX-License-Identifier: Apache-2.0
// Test-only Vulkan executor (see vk_harness.h). Straight-line code over the C API; every
// object is destroyed by the Context destructor in reverse creation order.
#include "tests/converter/vk_harness.h"

#include <cstring>
#include <functional>
#include <map>

#include <vulkan/vulkan.h>

namespace openvgf::testing {
namespace {

#define VK_CHECK(call)                                                                     \
  do {                                                                                     \
    VkResult vk_result_ = (call);                                                          \
    if (vk_result_ != VK_SUCCESS) return runtimeError("{} failed: {}", #call, static_cast<int>(vk_result_)); \
  } while (false)

VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
                                         const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    static_cast<std::vector<std::string>*>(user)->emplace_back(data->pMessage ? data->pMessage : "");
  }
  return VK_FALSE;
}

struct Context {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  std::uint32_t family = 0;
  std::vector<std::function<void()>> cleanup;  // run in reverse
  std::vector<std::string> messages;
  ~Context() {
    for (auto it = cleanup.rbegin(); it != cleanup.rend(); ++it) (*it)();
    if (device != VK_NULL_HANDLE) vkDestroyDevice(device, nullptr);
    if (messenger != VK_NULL_HANDLE) {
      auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
      if (destroy != nullptr) destroy(instance, messenger, nullptr);
    }
    if (instance != VK_NULL_HANDLE) vkDestroyInstance(instance, nullptr);
  }
};

bool hasLayer(const char* name) {
  std::uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (const auto& l : layers) {
    if (std::strcmp(l.layerName, name) == 0) return true;
  }
  return false;
}

Status createDevice(Context& ctx, bool validation) {
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.apiVersion = VK_API_VERSION_1_3;
  const char* layer = "VK_LAYER_KHRONOS_validation";
  const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  const bool useLayer = validation && hasLayer(layer);
  VkDebugUtilsMessengerCreateInfoEXT dbg{};
  dbg.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  dbg.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  dbg.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  dbg.pfnUserCallback = onMessage;
  dbg.pUserData = &ctx.messages;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  if (useLayer) {
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = &layer;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = &ext;
  }
  VK_CHECK(vkCreateInstance(&info, nullptr, &ctx.instance));
  if (useLayer) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(ctx.instance, "vkCreateDebugUtilsMessengerEXT"));
    if (create != nullptr) VK_CHECK(create(ctx.instance, &dbg, nullptr, &ctx.messenger));
  }
  std::uint32_t n = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(ctx.instance, &n, nullptr));
  if (n == 0) return environmentError("no Vulkan device");
  std::vector<VkPhysicalDevice> devices(n);
  VK_CHECK(vkEnumeratePhysicalDevices(ctx.instance, &n, devices.data()));
  ctx.physical = devices[0];
  std::uint32_t qn = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical, &qn, nullptr);
  std::vector<VkQueueFamilyProperties> families(qn);
  vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical, &qn, families.data());
  bool found = false;
  for (std::uint32_t i = 0; i < qn && !found; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      ctx.family = i;
      found = true;
    }
  }
  if (!found) return environmentError("no compute queue");
  // Enable every feature the device reports (tests exercise what VGFs may require).
  VkPhysicalDeviceVulkan13Features f13{};
  f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  VkPhysicalDeviceVulkan12Features f12{};
  f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  f12.pNext = &f13;
  VkPhysicalDeviceVulkan11Features f11{};
  f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  f11.pNext = &f12;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &f11;
  vkGetPhysicalDeviceFeatures2(ctx.physical, &features);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{};
  queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queueInfo.queueFamilyIndex = ctx.family;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{};
  deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  deviceInfo.pNext = &features;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  VK_CHECK(vkCreateDevice(ctx.physical, &deviceInfo, nullptr, &ctx.device));
  vkGetDeviceQueue(ctx.device, ctx.family, 0, &ctx.queue);
  return {};
}

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDeviceSize size = 0;
};

Result<Buffer> createBuffer(Context& ctx, VkDeviceSize size) {
  Buffer b;
  b.size = std::max<VkDeviceSize>(size, 16);
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = b.size;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &b.buffer));
  VkDevice device = ctx.device;
  VkBuffer handle = b.buffer;
  ctx.cleanup.push_back([device, handle] { vkDestroyBuffer(device, handle, nullptr); });
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, b.buffer, &req);
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(ctx.physical, &props);
  std::uint32_t type = UINT32_MAX;
  const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (std::uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    if ((req.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want) {
      type = i;
      break;
    }
  }
  if (type == UINT32_MAX) return environmentError("no host-visible memory");
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = type;
  VK_CHECK(vkAllocateMemory(ctx.device, &alloc, nullptr, &b.memory));
  VkDeviceMemory memory = b.memory;
  ctx.cleanup.push_back([device, memory] { vkFreeMemory(device, memory, nullptr); });
  VK_CHECK(vkBindBufferMemory(ctx.device, b.buffer, b.memory, 0));
  VK_CHECK(vkMapMemory(ctx.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
  std::memset(b.mapped, 0xCD, b.size);  // garbage, so reads of unwritten data show up
  return b;
}

std::uint64_t elementBytes(std::uint32_t format) {
  using F = vgf::VkFormatValue;
  switch (static_cast<F>(format)) {
    case F::R8Sint: case F::R8Uint: case F::R8BoolArm: case F::R8SfloatFloat8E4M3Arm: case F::R8SfloatFloat8E5M2Arm: return 1;
    case F::R16Sint: case F::R16Uint: case F::R16Sfloat: case F::R16SfloatBfloat16Arm: return 2;
    case F::R32Sint: case F::R32Uint: case F::R32Sfloat: return 4;
    case F::R64Sint: return 8;
    default: return 0;
  }
}

std::uint64_t resourceBytes(const vgf::Resource& r) {
  std::uint64_t n = 1;
  for (auto d : r.shape) n *= static_cast<std::uint64_t>(d);
  return n * elementBytes(r.vkFormat);
}

// One buffer per alias group (sized for its largest member), one per other resource.
Result<std::vector<Buffer>> createResourceBuffers(Context& ctx, const vgf::File& file) {
  std::map<std::uint32_t, std::uint64_t> groupBytes;
  for (const auto& r : file.resources) {
    if (r.aliasGroup != vgf::kUnset) groupBytes[r.aliasGroup] = std::max(groupBytes[r.aliasGroup], resourceBytes(r));
  }
  std::map<std::uint32_t, Buffer> groupBuffers;
  for (const auto& [g, bytes] : groupBytes) {
    OPENVGF_ASSIGN_OR_RETURN(groupBuffers[g], createBuffer(ctx, bytes));
  }
  std::vector<Buffer> buffers(file.resources.size());
  for (std::size_t i = 0; i < file.resources.size(); ++i) {
    const auto& r = file.resources[i];
    if (r.aliasGroup != vgf::kUnset) {
      buffers[i] = groupBuffers[r.aliasGroup];
    } else {
      OPENVGF_ASSIGN_OR_RETURN(buffers[i], createBuffer(ctx, resourceBytes(r)));
    }
  }
  return buffers;
}

// Records one segment: its pipeline, descriptor set, dispatch and a barrier after it.
Status recordSegment(Context& ctx, VkCommandBuffer cmd, VkDescriptorPool dpool,
                     const std::vector<VkShaderModule>& modules, const std::vector<Buffer>& buffers,
                     const vgf::Segment& seg) {
  VkDevice device = ctx.device;
  if (seg.setInfos.size() != 1 || !seg.dispatchShape) return invalidInput("segment {}: expected one set and a dispatch", seg.name);
  const auto& set = seg.setInfos[0];
  std::vector<VkDescriptorSetLayoutBinding> lb;
  for (const auto& b : set.bindings) {
    VkDescriptorSetLayoutBinding x{};
    x.binding = b.binding;
    x.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    x.descriptorCount = 1;
    x.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    lb.push_back(x);
  }
  VkDescriptorSetLayoutCreateInfo dslInfo{};
  dslInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  dslInfo.bindingCount = static_cast<std::uint32_t>(lb.size());
  dslInfo.pBindings = lb.data();
  VkDescriptorSetLayout dsl;
  VK_CHECK(vkCreateDescriptorSetLayout(ctx.device, &dslInfo, nullptr, &dsl));
  ctx.cleanup.push_back([device, dsl] { vkDestroyDescriptorSetLayout(device, dsl, nullptr); });
  VkPipelineLayoutCreateInfo plInfo{};
  plInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  plInfo.setLayoutCount = 1;
  plInfo.pSetLayouts = &dsl;
  VkPipelineLayout layout;
  VK_CHECK(vkCreatePipelineLayout(ctx.device, &plInfo, nullptr, &layout));
  ctx.cleanup.push_back([device, layout] { vkDestroyPipelineLayout(device, layout, nullptr); });
  VkComputePipelineCreateInfo cpInfo{};
  cpInfo.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  cpInfo.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpInfo.stage.module = modules.at(seg.moduleIndex);
  cpInfo.stage.pName = "main";
  cpInfo.layout = layout;
  VkPipeline pipeline;
  VK_CHECK(vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, 1, &cpInfo, nullptr, &pipeline));
  ctx.cleanup.push_back([device, pipeline] { vkDestroyPipeline(device, pipeline, nullptr); });
  VkDescriptorSetAllocateInfo dsInfo{};
  dsInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  dsInfo.descriptorPool = dpool;
  dsInfo.descriptorSetCount = 1;
  dsInfo.pSetLayouts = &dsl;
  VkDescriptorSet ds;
  VK_CHECK(vkAllocateDescriptorSets(ctx.device, &dsInfo, &ds));
  std::vector<VkDescriptorBufferInfo> infos(set.bindings.size());
  std::vector<VkWriteDescriptorSet> writes(set.bindings.size());
  for (std::size_t i = 0; i < set.bindings.size(); ++i) {
    infos[i] = VkDescriptorBufferInfo{buffers.at(set.bindings[i].mrtIndex).buffer, 0, VK_WHOLE_SIZE};
    writes[i] = VkWriteDescriptorSet{};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = ds;
    writes[i].dstBinding = set.bindings[i].binding;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(ctx.device, static_cast<std::uint32_t>(writes.size()), writes.data(), 0, nullptr);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &ds, 0, nullptr);
  const auto& g = *seg.dispatchShape;
  vkCmdDispatch(cmd, g[0], g[1], g[2]);
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0,
                       nullptr);
  return {};
}

}  // namespace

bool vulkanAvailable() {
  Context ctx;
  return createDevice(ctx, false).has_value();
}

Result<HarnessRun> runVgf(const vgf::File& file, const std::vector<std::vector<std::uint8_t>>& inputs) {
  Context ctx;
  OPENVGF_TRY(createDevice(ctx, true));
  if (inputs.size() != file.inputs.size()) return invalidInput("expected {} inputs, got {}", file.inputs.size(), inputs.size());

  OPENVGF_ASSIGN_OR_RETURN(std::vector<Buffer> buffers, createResourceBuffers(ctx, file));
  for (const auto& c : file.constants) {
    if (c.mrtIndex >= buffers.size() || c.data.size() > buffers[c.mrtIndex].size) return invalidInput("bad constant");
    std::memcpy(buffers[c.mrtIndex].mapped, c.data.data(), c.data.size());
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Buffer& b = buffers[file.inputs[i].mrtIndex];
    if (inputs[i].size() > b.size) return invalidInput("input {} too large", i);
    std::memcpy(b.mapped, inputs[i].data(), inputs[i].size());
  }

  VkCommandPoolCreateInfo poolInfo{};
  poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  poolInfo.queueFamilyIndex = ctx.family;
  VkCommandPool pool;
  VK_CHECK(vkCreateCommandPool(ctx.device, &poolInfo, nullptr, &pool));
  VkDevice device = ctx.device;
  ctx.cleanup.push_back([device, pool] { vkDestroyCommandPool(device, pool, nullptr); });
  VkCommandBufferAllocateInfo cbInfo{};
  cbInfo.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cbInfo.commandPool = pool;
  cbInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbInfo.commandBufferCount = 1;
  VkCommandBuffer cmd;
  VK_CHECK(vkAllocateCommandBuffers(ctx.device, &cbInfo, &cmd));
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  VK_CHECK(vkBeginCommandBuffer(cmd, &begin));

  std::uint32_t totalBindings = 0;
  for (const auto& s : file.segments) {
    for (const auto& set : s.setInfos) totalBindings += static_cast<std::uint32_t>(set.bindings.size());
  }
  VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(totalBindings, 1u)};
  VkDescriptorPoolCreateInfo dpInfo{};
  dpInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  dpInfo.maxSets = static_cast<std::uint32_t>(std::max<std::size_t>(file.segments.size(), 1));
  dpInfo.poolSizeCount = 1;
  dpInfo.pPoolSizes = &poolSize;
  VkDescriptorPool dpool;
  VK_CHECK(vkCreateDescriptorPool(ctx.device, &dpInfo, nullptr, &dpool));
  ctx.cleanup.push_back([device, dpool] { vkDestroyDescriptorPool(device, dpool, nullptr); });

  std::vector<VkShaderModule> modules(file.modules.size());
  for (std::size_t m = 0; m < file.modules.size(); ++m) {
    VkShaderModuleCreateInfo smInfo{};
    smInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    smInfo.codeSize = file.modules[m].spirv.size() * 4;
    smInfo.pCode = file.modules[m].spirv.data();
    VK_CHECK(vkCreateShaderModule(ctx.device, &smInfo, nullptr, &modules[m]));
    VkShaderModule sm = modules[m];
    ctx.cleanup.push_back([device, sm] { vkDestroyShaderModule(device, sm, nullptr); });
  }

  for (const auto& seg : file.segments) {
    OPENVGF_TRY(recordSegment(ctx, cmd, dpool, modules, buffers, seg));
  }
  VK_CHECK(vkEndCommandBuffer(cmd));
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  VK_CHECK(vkQueueSubmit(ctx.queue, 1, &submit, VK_NULL_HANDLE));
  VK_CHECK(vkQueueWaitIdle(ctx.queue));

  HarnessRun run;
  for (const auto& out : file.outputs) {
    const auto& r = file.resources.at(out.mrtIndex);
    const Buffer& b = buffers[out.mrtIndex];
    std::vector<std::uint8_t> bytes(resourceBytes(r));
    std::memcpy(bytes.data(), b.mapped, bytes.size());
    run.outputs.push_back(std::move(bytes));
  }
  run.validationMessages = ctx.messages;
  return run;
}

}  // namespace openvgf::testing
