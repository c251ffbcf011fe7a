// SPDX-License-Identifier: Apache-2.0
// Large memcpys split over several threads. One core's memcpy moves 5-10 GB/s, well below
// what memory and PCIe carry; staging a tensor of tens of MiB is the host-side cost of an
// inference, so it is spread over a small pool of persistent threads (spawning threads per
// copy would cost more than a small copy).
#pragma once

#include <cstddef>

namespace openvgf {

/// Copies below this size run on the calling thread.
inline constexpr std::size_t kParallelCopyMinBytes = std::size_t{4} << 20;

/// memcpy(destination, source, bytes) (regions must not overlap), on up to `threads` threads
/// (0: min(8, hardware concurrency)) counting the caller. Thread-safe; concurrent callers
/// share the pool.
void parallelCopy(void* destination, const void* source, std::size_t bytes, unsigned threads = 0);

}  // namespace openvgf
