// SPDX-License-Identifier: Apache-2.0
// Runs one fp16 GEMM compute shader (a module tensor_gemm_spirv.py wrote: bindings 0..2 are
// A[M,K], B[K,N], C[M,N] in fp16, one workgroup per BM x BN tile) on Vulkan device 0 with
// VK_NV_cooperative_matrix2's workgroup scope and tensor addressing enabled, checks sampled
// outputs against fp64 dot products, and prints the median GPU time from timestamps.
//
// Usage: tensor_gemm SPV M N K BM BN [ITERATIONS]
// An experiment for issue 15 (does tensor addressing lift the H100 above the subgroup core?),
// not part of openvgf: it links only the Vulkan loader.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <vector>

namespace {

#define CHECK(call)                                                          \
  do {                                                                       \
    VkResult r_ = (call);                                                    \
    if (r_ != VK_SUCCESS) {                                                  \
      std::fprintf(stderr, "%s failed: VkResult %d\n", #call, static_cast<int>(r_)); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

struct CoopMat2Features {  // VkPhysicalDeviceCooperativeMatrix2FeaturesNV (newer than Debian's headers)
  VkStructureType sType;
  void* pNext;
  VkBool32 workgroupScope, flexibleDimensions, reductions, conversions, perElementOperations, tensorAddressing,
      blockLoads;
};
struct CoopMatFeaturesKhr {  // VkPhysicalDeviceCooperativeMatrixFeaturesKHR
  VkStructureType sType;
  void* pNext;
  VkBool32 cooperativeMatrix, robustBufferAccess;
};

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

VkDevice gDevice;
VkPhysicalDeviceMemoryProperties gMemory;

Buffer makeBuffer(VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want) {
  Buffer b;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage;
  CHECK(vkCreateBuffer(gDevice, &info, nullptr, &b.buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(gDevice, b.buffer, &req);
  std::uint32_t type = 0;
  while (type < gMemory.memoryTypeCount &&
         !((req.memoryTypeBits >> type & 1) && (gMemory.memoryTypes[type].propertyFlags & want) == want)) {
    ++type;
  }
  if (type == gMemory.memoryTypeCount) {
    std::fprintf(stderr, "no memory type\n");
    std::exit(1);
  }
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = type;
  CHECK(vkAllocateMemory(gDevice, &alloc, nullptr, &b.memory));
  CHECK(vkBindBufferMemory(gDevice, b.buffer, b.memory, 0));
  return b;
}

struct Problem {
  const char* spvPath;
  std::uint32_t M, N, K, BM, BN;
  int iterations;
};

struct Gpu {
  VkPhysicalDevice physical;
  VkPhysicalDeviceProperties props;
  std::uint32_t family;  // a queue family with compute
  VkQueue queue;
};

// A, B and C in fp16 on the host, and each in a device buffer with a host-visible staging copy.
struct Operands {
  std::vector<_Float16> a, b, c;
  VkDeviceSize sizes[3];
  Buffer dev[3], host[3];
};

struct Pipeline {
  VkPipelineLayout layout;
  VkPipeline pipeline;
  VkDescriptorSet set;
};

// The first device; its memory types go to gMemory.
VkPhysicalDevice firstDevice() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo instanceInfo{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instanceInfo.pApplicationInfo = &app;
  VkInstance instance;
  CHECK(vkCreateInstance(&instanceInfo, nullptr, &instance));
  std::uint32_t count = 0;
  CHECK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  std::vector<VkPhysicalDevice> physicals(count);
  CHECK(vkEnumeratePhysicalDevices(instance, &count, physicals.data()));
  if (count == 0) std::exit(1);
  vkGetPhysicalDeviceMemoryProperties(physicals[0], &gMemory);
  return physicals[0];
}

// Prints what the device offers of VK_NV_cooperative_matrix2 and whether it has every
// feature the shader needs.
bool hasTensorAddressing(VkPhysicalDevice physical, const VkPhysicalDeviceProperties& props) {
  CoopMat2Features cm2{static_cast<VkStructureType>(1000593000)};
  CoopMatFeaturesKhr cm{static_cast<VkStructureType>(1000506000), &cm2};
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, &cm};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f13};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
  vkGetPhysicalDeviceFeatures2(physical, &f2);
  std::printf("device %s: workgroup scope %u, flexible dimensions %u, tensor addressing %u\n", props.deviceName,
              cm2.workgroupScope, cm2.flexibleDimensions, cm2.tensorAddressing);
  return cm.cooperativeMatrix && cm2.workgroupScope && cm2.tensorAddressing && f12.shaderFloat16 &&
         f11.storageBuffer16BitAccess;
}

std::uint32_t computeQueueFamily(VkPhysicalDevice physical) {
  std::uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  std::uint32_t family = 0;
  while (!(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
  return family;
}

// Creates gDevice with one queue of `family`, enabling only the features the module uses.
void createDevice(VkPhysicalDevice physical, std::uint32_t family) {
  CoopMat2Features cm2{static_cast<VkStructureType>(1000593000), nullptr};
  cm2.workgroupScope = VK_TRUE;
  cm2.flexibleDimensions = VK_TRUE;
  cm2.tensorAddressing = VK_TRUE;
  CoopMatFeaturesKhr cm{static_cast<VkStructureType>(1000506000), &cm2, VK_TRUE, VK_FALSE};
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, &cm};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f13};
  f12.shaderFloat16 = VK_TRUE;
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
  f11.storageBuffer16BitAccess = VK_TRUE;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = family;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  const char* extensions[] = {"VK_KHR_cooperative_matrix", "VK_NV_cooperative_matrix2"};
  VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2};
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.enabledExtensionCount = 2;
  deviceInfo.ppEnabledExtensionNames = extensions;
  CHECK(vkCreateDevice(physical, &deviceInfo, nullptr, &gDevice));
}

// Inputs uniform in [-1, 1), rounded to fp16, staged in host-visible buffers.
Operands makeOperands(const Problem& p, std::mt19937& rng) {
  Operands o;
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  o.a.resize(std::size_t(p.M) * p.K);
  o.b.resize(std::size_t(p.K) * p.N);
  o.c.resize(std::size_t(p.M) * p.N);
  for (auto& v : o.a) v = static_cast<_Float16>(dist(rng));
  for (auto& v : o.b) v = static_cast<_Float16>(dist(rng));
  const std::vector<_Float16>* contents[3] = {&o.a, &o.b, &o.c};
  for (int i = 0; i < 3; ++i) {
    o.sizes[i] = contents[i]->size() * 2;
    o.dev[i] = makeBuffer(o.sizes[i], VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                          VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    o.host[i] = makeBuffer(o.sizes[i], VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                               VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    void* mapped;
    CHECK(vkMapMemory(gDevice, o.host[i].memory, 0, o.sizes[i], 0, &mapped));
    if (i < 2) std::memcpy(mapped, contents[i]->data(), o.sizes[i]);
    vkUnmapMemory(gDevice, o.host[i].memory);
  }
  return o;
}

// The compute pipeline of `spv`, its bindings 0..2 bound to the device buffers of A, B and C.
Pipeline createPipeline(const std::vector<char>& spv, const Operands& o) {
  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = spv.size();
  moduleInfo.pCode = reinterpret_cast<const std::uint32_t*>(spv.data());
  VkShaderModule module;
  CHECK(vkCreateShaderModule(gDevice, &moduleInfo, nullptr, &module));
  VkDescriptorSetLayoutBinding bindings[3];
  for (std::uint32_t i = 0; i < 3; ++i) {
    bindings[i] = VkDescriptorSetLayoutBinding{i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT,
                                               nullptr};
  }
  VkDescriptorSetLayoutCreateInfo setLayoutInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setLayoutInfo.bindingCount = 3;
  setLayoutInfo.pBindings = bindings;
  VkDescriptorSetLayout setLayout;
  CHECK(vkCreateDescriptorSetLayout(gDevice, &setLayoutInfo, nullptr, &setLayout));
  Pipeline p;
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &setLayout;
  CHECK(vkCreatePipelineLayout(gDevice, &layoutInfo, nullptr, &p.layout));
  VkComputePipelineCreateInfo pipelineInfo{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipelineInfo.stage = VkPipelineShaderStageCreateInfo{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineInfo.stage.module = module;
  pipelineInfo.stage.pName = "main";
  pipelineInfo.layout = p.layout;
  CHECK(vkCreateComputePipelines(gDevice, VK_NULL_HANDLE, 1, &pipelineInfo, nullptr, &p.pipeline));

  VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &poolSize;
  VkDescriptorPool pool;
  CHECK(vkCreateDescriptorPool(gDevice, &poolInfo, nullptr, &pool));
  VkDescriptorSetAllocateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  setInfo.descriptorPool = pool;
  setInfo.descriptorSetCount = 1;
  setInfo.pSetLayouts = &setLayout;
  CHECK(vkAllocateDescriptorSets(gDevice, &setInfo, &p.set));
  VkDescriptorBufferInfo bufferInfos[3];
  VkWriteDescriptorSet writes[3];
  for (std::uint32_t i = 0; i < 3; ++i) {
    bufferInfos[i] = VkDescriptorBufferInfo{o.dev[i].buffer, 0, VK_WHOLE_SIZE};
    writes[i] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = p.set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &bufferInfos[i];
  }
  vkUpdateDescriptorSets(gDevice, 3, writes, 0, nullptr);
  return p;
}

// Uploads A and B, runs 5 warm-up dispatches and `iterations` timed ones (a timestamp pair
// around each), and copies C back to its staging buffer.
void recordRun(VkCommandBuffer cmd, const Problem& p, const Operands& o, const Pipeline& pipeline,
               VkQueryPool queries) {
  vkCmdResetQueryPool(cmd, queries, 0, 2 * static_cast<std::uint32_t>(p.iterations));
  for (int i = 0; i < 2; ++i) {
    VkBufferCopy region{0, 0, o.sizes[i]};
    vkCmdCopyBuffer(cmd, o.host[i].buffer, o.dev[i].buffer, 1, &region);
  }
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0, 1, &pipeline.set, 0, nullptr);
  for (int w = 0; w < 5; ++w) vkCmdDispatch(cmd, p.N / p.BN, p.M / p.BM, 1);  // warm-up
  for (int i = 0; i < p.iterations; ++i) {
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                         &barrier, 0, nullptr, 0, nullptr);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 2 * i);
    vkCmdDispatch(cmd, p.N / p.BN, p.M / p.BM, 1);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 2 * i + 1);
  }
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
  VkBufferCopy back{0, 0, o.sizes[2]};
  vkCmdCopyBuffer(cmd, o.dev[2].buffer, o.host[2].buffer, 1, &back);
}

// Runs the GEMM (recordRun) and waits for it; the GPU time of each timed dispatch in ms,
// sorted, and C read back into o.c.
std::vector<double> runAndTime(const Gpu& gpu, const Problem& p, Operands& o, const Pipeline& pipeline) {
  VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
  queryInfo.queryCount = 2 * static_cast<std::uint32_t>(p.iterations);
  VkQueryPool queries;
  CHECK(vkCreateQueryPool(gDevice, &queryInfo, nullptr, &queries));

  VkCommandPoolCreateInfo cmdPoolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cmdPoolInfo.queueFamilyIndex = gpu.family;
  VkCommandPool cmdPool;
  CHECK(vkCreateCommandPool(gDevice, &cmdPoolInfo, nullptr, &cmdPool));
  VkCommandBufferAllocateInfo cmdInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cmdInfo.commandPool = cmdPool;
  cmdInfo.commandBufferCount = 1;
  VkCommandBuffer cmd;
  CHECK(vkAllocateCommandBuffers(gDevice, &cmdInfo, &cmd));
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK(vkBeginCommandBuffer(cmd, &begin));
  recordRun(cmd, p, o, pipeline, queries);
  CHECK(vkEndCommandBuffer(cmd));
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  CHECK(vkQueueSubmit(gpu.queue, 1, &submit, VK_NULL_HANDLE));
  CHECK(vkQueueWaitIdle(gpu.queue));

  std::vector<std::uint64_t> stamps(queryInfo.queryCount);
  CHECK(vkGetQueryPoolResults(gDevice, queries, 0, queryInfo.queryCount, stamps.size() * 8, stamps.data(), 8,
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  std::vector<double> ms;
  for (int i = 0; i < p.iterations; ++i) {
    ms.push_back(double(stamps[2 * i + 1] - stamps[2 * i]) * gpu.props.limits.timestampPeriod * 1e-6);
  }
  std::sort(ms.begin(), ms.end());

  void* mapped;
  CHECK(vkMapMemory(gDevice, o.host[2].memory, 0, o.sizes[2], 0, &mapped));
  std::memcpy(o.c.data(), mapped, o.sizes[2]);
  vkUnmapMemory(gDevice, o.host[2].memory);
  return ms;
}

// 4096 sampled outputs against fp64 dot products; the error is judged against the sum of
// |a||b| (fp16 output rounding plus accumulation rounding).
double worstSampledError(const Problem& p, const Operands& o, std::mt19937& rng) {
  double worst = 0;
  std::uniform_int_distribution<std::uint32_t> row(0, p.M - 1), col(0, p.N - 1);
  for (int s = 0; s < 4096; ++s) {
    const std::uint32_t i = row(rng), j = col(rng);
    double dot = 0, scale = 0;
    for (std::uint32_t kk = 0; kk < p.K; ++kk) {
      const double product = double(o.a[std::size_t(i) * p.K + kk]) * double(o.b[std::size_t(kk) * p.N + j]);
      dot += product;
      scale += std::fabs(product);
    }
    worst = std::max(worst, std::fabs(double(o.c[std::size_t(i) * p.N + j]) - dot) / scale);
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s SPV M N K BM BN [ITERATIONS]\n", argv[0]);
    return 2;
  }
  const Problem p{argv[1],
                  static_cast<std::uint32_t>(std::atoi(argv[2])),
                  static_cast<std::uint32_t>(std::atoi(argv[3])),
                  static_cast<std::uint32_t>(std::atoi(argv[4])),
                  static_cast<std::uint32_t>(std::atoi(argv[5])),
                  static_cast<std::uint32_t>(std::atoi(argv[6])),
                  argc > 7 ? std::atoi(argv[7]) : 30};
  std::ifstream file(p.spvPath, std::ios::binary);
  std::vector<char> spv((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (spv.empty() || spv.size() % 4 != 0) {
    std::fprintf(stderr, "cannot read %s\n", p.spvPath);
    return 1;
  }

  Gpu gpu;
  gpu.physical = firstDevice();
  vkGetPhysicalDeviceProperties(gpu.physical, &gpu.props);
  if (!hasTensorAddressing(gpu.physical, gpu.props)) {
    std::fprintf(stderr, "the device lacks a feature this shader needs\n");
    return 1;
  }
  gpu.family = computeQueueFamily(gpu.physical);
  createDevice(gpu.physical, gpu.family);
  vkGetDeviceQueue(gDevice, gpu.family, 0, &gpu.queue);

  std::mt19937 rng(15);  // the inputs, then the sampled outputs
  Operands operands = makeOperands(p, rng);
  const Pipeline pipeline = createPipeline(spv, operands);
  const std::vector<double> ms = runAndTime(gpu, p, operands, pipeline);
  const double median = ms[ms.size() / 2];
  const double worst = worstSampledError(p, operands, rng);
  const bool pass = worst < 5e-3;
  std::printf("%s: GPU %.3f ms (min %.3f), %.1f TFLOP/s, worst error / sum|ab| %.2e: %s\n", p.spvPath, median, ms[0],
              2.0 * p.M * p.N * p.K / (median * 1e-3) * 1e-12, worst, pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
