// SPDX-License-Identifier: Apache-2.0
// runner::measureTransfers: host <-> device bandwidth of openvgf's I/O paths against a plain
// vkCmdCopyBuffer of the same bytes (`openvgf bench --transfer MIB`).
//
//   reference  vkCmdCopyBuffer between pinned host memory (a host-visible Vulkan allocation)
//              and device-local memory, timed by GPU timestamps around the copy alone: what
//              the copy engines and the bus deliver.
//   pinned     what a Session does for inputs/outputs in PinnedMemory (imported when the
//              device can): one copy submitted on the upload queue, wall time from submit to
//              the wait's return.
//   pageable   what a Session does for plain host memory: the multi-threaded memcpy into the
//              upload staging (the memory type a Session picks: resizable BAR or host memory)
//              then the copy; the reverse for downloads; wall time of both.
// GB/s are 1e9 bytes per second of median times over `iterations` repetitions.
#pragma once

#include <cstdint>
#include <string>

#include "common/error.h"

namespace openvgf::runner {

struct TransferOptions {
  std::string device;  // as ContextOptions::device
  bool validate = false;
  std::uint64_t bytes = std::uint64_t{256} << 20;
  int iterations = 20;
};

struct TransferRate {
  double medianMs = 0;
  double gbPerS = 0;  // 0 when not measured
};

struct TransferResult {
  std::string device;
  std::uint64_t bytes = 0;
  std::string uploadMemory;    // memory type of upload staging (as a Session picks it)
  std::string readbackMemory;  // memory type of readback staging
  bool transferQueue = false;  // uploads go to a dedicated transfer queue
  bool imported = false;       // pinned memory is imported caller memory (VK_EXT_external_memory_host)
  TransferRate referenceUpload;    // vkCmdCopyBuffer pinned host -> device, GPU time
  TransferRate referenceDownload;  // vkCmdCopyBuffer device -> pinned host, GPU time
  TransferRate pinnedUpload;
  TransferRate pinnedDownload;
  TransferRate pageableUpload;
  TransferRate pageableDownload;
};

Result<TransferResult> measureTransfers(const TransferOptions& options);

std::string formatText(const TransferResult& result);
std::string formatJson(const TransferResult& result);

}  // namespace openvgf::runner
