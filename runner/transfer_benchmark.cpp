// SPDX-License-Identifier: Apache-2.0
// runner::measureTransfers implementation (see transfer_benchmark.h for what is measured).
#include "runner/transfer_benchmark.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/parallel_copy.h"
#include "runner/benchmark.h"
#include "runner/context.h"
#include "runner/session.h"
#include "vulkan/check.h"
#include "vulkan/commands.h"
#include "vulkan/memory.h"

namespace openvgf::runner {
namespace {

using Clock = std::chrono::steady_clock;
using vulkan::vkStruct;

TransferRate rate(std::uint64_t bytes, std::vector<double>& samplesMs) {
  LatencyStats stats = summarize(samplesMs);
  return {stats.medianMs, stats.medianMs > 0 ? static_cast<double>(bytes) / (stats.medianMs * 1e6) : 0.0};
}

// One buffer-to-buffer copy, recorded into `commands` and submitted to `queue`, waited for
// with `fence`; with `queries` (compute queue only) timestamps bracket the copy.
Status copyOnce(const vulkan::Device& device, const vulkan::CommandBuffer& commands, const vulkan::Fence& fence,
                vulkan::Queue queue, VkBuffer from, VkBuffer to, std::uint64_t bytes,
                const vulkan::TimestampQueries* queries) {
  OPENVGF_TRY(commands.reset());
  OPENVGF_TRY(commands.begin(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT));
  VkCommandBuffer cmd = commands.handle();
  if (queries != nullptr) {
    vkCmdResetQueryPool(cmd, queries->handle(), 0, 2);
    vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, queries->handle(), 0);
  }
  VkBufferCopy region{0, 0, bytes};
  vkCmdCopyBuffer(cmd, from, to, 1, &region);
  if (queries != nullptr) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, queries->handle(), 1);
  // The host reads what a download wrote.
  vulkan::recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  OPENVGF_TRY(commands.end());
  OPENVGF_TRY(fence.reset(device));
  VkCommandBufferSubmitInfo commandInfo = vkStruct<VkCommandBufferSubmitInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO);
  commandInfo.commandBuffer = cmd;
  VkSubmitInfo2 submit = vkStruct<VkSubmitInfo2>(VK_STRUCTURE_TYPE_SUBMIT_INFO_2);
  submit.commandBufferInfoCount = 1;
  submit.pCommandBufferInfos = &commandInfo;
  OPENVGF_TRY(device.submit(submit, fence.handle(), queue));
  return device.wait(fence.handle());
}

// Wall times of `step` over warm-up + iterations (ms).
Result<std::vector<double>> timeWall(int iterations, const std::function<Status()>& step) {
  OPENVGF_TRY(step());  // warm-up: first-touch page faults, lazy driver work
  std::vector<double> samples;
  for (int i = 0; i < iterations; ++i) {
    Clock::time_point start = Clock::now();
    OPENVGF_TRY(step());
    samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return samples;
}

}  // namespace

Result<TransferResult> measureTransfers(const TransferOptions& options) {
  if (options.bytes == 0 || options.iterations < 1) {
    return invalidInput("--transfer: expected a size above 0 and at least one iteration");
  }
  ContextOptions contextOptions;
  contextOptions.device = options.device;
  contextOptions.validate = options.validate;
  contextOptions.pipelineCache = false;
  OPENVGF_ASSIGN_OR_RETURN(std::unique_ptr<Context> context, Context::create(contextOptions, std::span<const Model* const>()));
  const vulkan::Device& device = context->device();
  const std::uint64_t bytes = options.bytes;
  TransferResult result;
  result.device = device.snapshot().name;
  result.bytes = bytes;
  result.transferQueue = device.hasTransferQueue();

  using vulkan::Arena;
  using vulkan::MemoryUse;
  OPENVGF_ASSIGN_OR_RETURN(Arena deviceMemory, Arena::create(device, bytes, MemoryUse::DeviceLocal, "device"));
  OPENVGF_ASSIGN_OR_RETURN(Arena hostMemory, Arena::create(device, bytes, MemoryUse::UploadHost, "pinned host"));
  OPENVGF_ASSIGN_OR_RETURN(Arena upload, Arena::create(device, bytes, MemoryUse::Upload, "upload staging"));
  OPENVGF_ASSIGN_OR_RETURN(Arena readback, Arena::create(device, bytes, MemoryUse::Readback, "readback staging"));
  OPENVGF_ASSIGN_OR_RETURN(PinnedMemory pinned, PinnedMemory::allocate(*context, bytes));
  result.uploadMemory = vulkan::memoryFlagsName(upload.memoryFlags());
  result.readbackMemory = vulkan::memoryFlagsName(readback.memoryFlags());
  result.imported = pinned.imported();
  std::vector<std::uint8_t> pageable(bytes);
  for (std::size_t i = 0; i < pageable.size(); i += 4096) pageable[i] = static_cast<std::uint8_t>(i >> 12);
  std::memcpy(hostMemory.mapped(), pageable.data(), bytes);

  OPENVGF_ASSIGN_OR_RETURN(vulkan::CommandBuffer computeCommands, vulkan::CommandBuffer::create(device));
  OPENVGF_ASSIGN_OR_RETURN(vulkan::CommandBuffer transferCommands,
                           vulkan::CommandBuffer::create(device, vulkan::Queue::Transfer));
  OPENVGF_ASSIGN_OR_RETURN(vulkan::Fence fence, vulkan::Fence::create(device));
  const vulkan::Queue up = vulkan::Queue::Transfer;
  const vulkan::Queue compute = vulkan::Queue::Compute;

  // Reference: the copy alone, GPU timestamps (when the compute queue has them).
  if (device.snapshot().timestampValidBits != 0) {
    OPENVGF_ASSIGN_OR_RETURN(vulkan::TimestampQueries queries, vulkan::TimestampQueries::create(device, 2));
    double period = device.snapshot().limits.timestampPeriod;
    std::vector<std::uint64_t> ticks;
    auto gpuTimed = [&](VkBuffer from, VkBuffer to) -> Result<std::vector<double>> {
      std::vector<double> samples;
      for (int i = 0; i <= options.iterations; ++i) {
        OPENVGF_TRY(copyOnce(device, computeCommands, fence, compute, from, to, bytes, &queries));
        OPENVGF_TRY(queries.read(device, ticks));
        if (i > 0) samples.push_back(static_cast<double>(ticks[1] - ticks[0]) * period * 1e-6);
      }
      return samples;
    };
    OPENVGF_ASSIGN_OR_RETURN(std::vector<double> toDevice, gpuTimed(hostMemory.buffer(), deviceMemory.buffer()));
    OPENVGF_ASSIGN_OR_RETURN(std::vector<double> toHost, gpuTimed(deviceMemory.buffer(), hostMemory.buffer()));
    result.referenceUpload = rate(bytes, toDevice);
    result.referenceDownload = rate(bytes, toHost);
  }

  // Pinned: one copy on the queue a Session uses, wall time.
  OPENVGF_ASSIGN_OR_RETURN(std::vector<double> pinnedUp, timeWall(options.iterations, [&] {
    return copyOnce(device, transferCommands, fence, up, pinned.buffer(), deviceMemory.buffer(), bytes, nullptr);
  }));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<double> pinnedDown, timeWall(options.iterations, [&] {
    return copyOnce(device, computeCommands, fence, compute, deviceMemory.buffer(), pinned.buffer(), bytes, nullptr);
  }));
  result.pinnedUpload = rate(bytes, pinnedUp);
  result.pinnedDownload = rate(bytes, pinnedDown);

  // Pageable: memcpy through staging plus the copy, wall time.
  OPENVGF_ASSIGN_OR_RETURN(std::vector<double> pageableUp, timeWall(options.iterations, [&]() -> Status {
    parallelCopy(upload.mapped(), pageable.data(), bytes);
    return copyOnce(device, transferCommands, fence, up, upload.buffer(), deviceMemory.buffer(), bytes, nullptr);
  }));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<double> pageableDown, timeWall(options.iterations, [&]() -> Status {
    OPENVGF_TRY(copyOnce(device, computeCommands, fence, compute, deviceMemory.buffer(), readback.buffer(), bytes,
                         nullptr));
    parallelCopy(pageable.data(), readback.mapped(), bytes);
    return {};
  }));
  result.pageableUpload = rate(bytes, pageableUp);
  result.pageableDownload = rate(bytes, pageableDown);
  OPENVGF_TRY(context->checkValidation());
  return result;
}

std::string formatText(const TransferResult& r) {
  auto line = [&](const char* what, const TransferRate& t, const TransferRate& reference) {
    if (t.gbPerS == 0) return fmt::format("  {:<34} not measured\n", what);
    std::string ratio = reference.gbPerS > 0 && &t != &reference
                            ? fmt::format(" ({:.0f} % of vkCmdCopyBuffer)", 100.0 * t.gbPerS / reference.gbPerS)
                            : std::string();
    return fmt::format("  {:<34} {:8.3f} ms {:7.2f} GB/s{}\n", what, t.medianMs, t.gbPerS, ratio);
  };
  std::string text = fmt::format("host <-> device transfers of {:.1f} MiB on {}\n",
                                 static_cast<double>(r.bytes) / 1048576.0, r.device);
  text += fmt::format("  upload staging: {}; readback staging: {}; uploads on {}; pinned memory {}\n", r.uploadMemory,
                      r.readbackMemory, r.transferQueue ? "a dedicated transfer queue" : "the compute queue",
                      r.imported ? "imported (VK_EXT_external_memory_host)" : "allocated by the device");
  text += line("vkCmdCopyBuffer host->device (GPU)", r.referenceUpload, r.referenceUpload);
  text += line("upload from pinned memory (wall)", r.pinnedUpload, r.referenceUpload);
  text += line("upload from pageable memory (wall)", r.pageableUpload, r.referenceUpload);
  text += line("vkCmdCopyBuffer device->host (GPU)", r.referenceDownload, r.referenceDownload);
  text += line("download to pinned memory (wall)", r.pinnedDownload, r.referenceDownload);
  text += line("download to pageable memory (wall)", r.pageableDownload, r.referenceDownload);
  return text;
}

std::string formatJson(const TransferResult& r) {
  nlohmann::json j;
  j["device"] = r.device;
  j["bytes"] = r.bytes;
  j["upload_memory"] = r.uploadMemory;
  j["readback_memory"] = r.readbackMemory;
  j["transfer_queue"] = r.transferQueue;
  j["pinned_imported"] = r.imported;
  auto put = [&](const char* key, const TransferRate& t) {
    j[key] = t.gbPerS > 0 ? nlohmann::json{{"median_ms", t.medianMs}, {"gb_per_s", t.gbPerS}} : nlohmann::json(nullptr);
  };
  put("reference_upload", r.referenceUpload);
  put("reference_download", r.referenceDownload);
  put("pinned_upload", r.pinnedUpload);
  put("pinned_download", r.pinnedDownload);
  put("pageable_upload", r.pageableUpload);
  put("pageable_download", r.pageableDownload);
  return j.dump(1) + "\n";
}

}  // namespace openvgf::runner
