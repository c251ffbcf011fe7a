// SPDX-License-Identifier: Apache-2.0
// How a run's host inputs are staged and uploaded: whole (one memcpy per input into staging,
// then one upload submission), or in pieces pipelined across the host and the copy engine: the
// host copies piece k+1 into staging while the copy engine moves piece k, so a large batch's
// upload costs about max(memcpy, DMA) instead of their sum. Pure planning, no Vulkan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace openvgf::runner {

/// Default SessionOptions::uploadChunkBytes.
/// 2 MiB: on the H200, batch-32 fp32 224x224 inputs (18.4 MiB) through resizable-BAR staging
/// lose 150-240 us less than whole (benchmarks/results/h200-b32-pipeline-2026-11-29.md);
/// batch-1 images (588 KiB) stay whole.
inline constexpr std::uint64_t kDefaultUploadChunkBytes = std::uint64_t{2} << 20;

/// Bytes [offset, offset + bytes) of input `input`, staged and uploaded as one piece.
struct UploadPiece {
  std::size_t input = 0;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  std::size_t submission = 0;  // the upload submission that moves it (pieces of one submission are adjacent)
  bool operator==(const UploadPiece&) const = default;
};

/// `stagedBytes[i]`: bytes of input i that go through staging this run (0: none: pinned,
/// device-resident, or read in place). Returns no pieces for the whole-input path (chunkBytes
/// 0, or everything fits in one chunk), else every staged input cut at multiples of
/// `chunkBytes`, inputs in order: the order of the memcpys and of the upload submissions (one
/// each).
std::vector<UploadPiece> planUploadPieces(std::span<const std::uint64_t> stagedBytes, std::uint64_t chunkBytes);

}  // namespace openvgf::runner
