// SPDX-License-Identifier: Apache-2.0
// Large memcpys split over several threads. One core's memcpy moves 5-10 GB/s, well below
// what memory and PCIe carry; staging a tensor of tens of MiB is the host-side cost of an
// inference, so it is spread over a small pool of persistent threads (spawning threads per
// copy would cost more than a small copy).
#pragma once

#include <cstddef>
#include <functional>
#include <span>

namespace openvgf {

/// Threads of the copies (the calling thread and the pool's), fixed at first use: the
/// environment's OPENVGF_COPY_THREADS (`setting`) when it is a whole number from 1 to 64, else
/// min(8, hardware threads) (at least 1).
unsigned copyThreads(const char* setting, unsigned hardwareThreads);

/// Copies below this size run on the calling thread.
inline constexpr std::size_t kParallelCopyMinBytes = std::size_t{4} << 20;

/// memcpy(destination, source, bytes) (regions must not overlap), on up to `threads` threads
/// (0: copyThreads()) counting the caller. Thread-safe; concurrent callers
/// share the pool.
void parallelCopy(void* destination, const void* source, std::size_t bytes, unsigned threads = 0);

/// One memcpy of a pipelinedCopy.
struct CopyPiece {
  void* destination = nullptr;
  const void* source = nullptr;
  std::size_t bytes = 0;
};

/// Copies `pieces` (no two overlapping) on the pool's threads, earlier pieces first, and calls
/// `copied(k)` on the calling thread as soon as piece k is complete, for k = 0, 1, ... in order,
/// while the pool goes on with the later pieces: the caller hands piece k on (a session submits
/// its upload) as the next ones are copied. Returns once every piece is copied and every call
/// has returned. Without pool threads (one core) each piece is copied on the calling thread
/// just before its call.
void pipelinedCopy(std::span<const CopyPiece> pieces, const std::function<void(std::size_t)>& copied);

}  // namespace openvgf
