// SPDX-License-Identifier: Apache-2.0
// Which of a model's first dispatches may run a piece of the batch at a time, so that a run
// computes on the images already uploaded while the copy engine moves the next ones: a serial
// run of a large batch then costs about max(upload, prefix) + the rest, instead of upload +
// everything. The converter records how each kernel's workgroups map to images
// (vgf::SpirvBatchGrid); this plan takes the longest run of segments from the first whose
// records let every piece be computed from its own images alone. Pure planning over the
// validated Model, no Vulkan.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "runner/model.h"

namespace openvgf::runner {

/// Default SessionOptions::overlapSegments on devices with a transfer queue, and
/// SessionOptions::overlapPieceBytes. Each piece repeats the barriers between its dispatches,
/// so more dispatches or smaller pieces cost more than they overlap: on the H200, ResNet-50 and
/// MobileNetV2 at batch 32 (--precision fp16, inputs in PinnedMemory) were fastest with 6
/// dispatches in pieces of 4 MiB (4 pieces of 8 images); 8 or 12 dispatches, or pieces of 2 or
/// 8 MiB, were slower (benchmarks/results/h200-b32-overlap-2026-11-29.md).
inline constexpr std::size_t kDefaultOverlapSegments = 6;
inline constexpr std::uint64_t kDefaultOverlapPieceBytes = std::uint64_t{4} << 20;

struct PiecePlan {
  std::size_t segments = 0;                // segments [0, segments) run per piece; 0: no plan
  std::uint64_t images = 0;                // the batch
  std::vector<std::uint64_t> imageBounds;  // piece k is images [imageBounds[k], imageBounds[k + 1])
  std::vector<std::size_t> inputs;         // model inputs (Model::inputs indexes) uploaded per piece
  std::vector<std::uint32_t> written;      // resources (MRT indexes) the pieces write
  std::size_t pieces() const { return imageBounds.empty() ? 0 : imageBounds.size() - 1; }
};

/// The plan for at most `maxSegments` segments (0: none), with pieces of at least
/// `pieceBytes` of the inputs read per image where the grids allow (and at least two pieces).
/// A segment joins while it has a batch grid over the same batch, every binding it does not
/// read per image is a constant, every tensor it reads per image is a model input or written
/// by an earlier segment of the plan, it writes no model input, and some piece size keeps
/// every grid's workgroups inside single pieces.
PiecePlan planPieces(const Model& model, std::size_t maxSegments, std::uint64_t pieceBytes);

/// The workgroups of images [from, to) of a segment with a batch grid, as vkCmdDispatchBase
/// takes them (base and count per axis). `from` and `to` must be bounds of a plan's pieces.
struct PieceDispatch {
  std::array<std::uint32_t, 3> base{0, 0, 0};
  std::array<std::uint32_t, 3> count{0, 0, 0};
};
PieceDispatch pieceDispatch(const SegmentInfo& segment, std::uint64_t from, std::uint64_t to);

}  // namespace openvgf::runner
