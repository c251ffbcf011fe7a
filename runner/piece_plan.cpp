// SPDX-License-Identifier: Apache-2.0
#include "runner/piece_plan.h"

#include <algorithm>
#include <set>

namespace openvgf::runner {

namespace {

using vgf::ResourceCategory;

bool reads(Access access) {
  return access != Access::Write;
}
bool writes(Access access) {
  return access != Access::Read;
}

// What the plan has taken so far.
struct Prefix {
  std::set<std::uint32_t> written;  // resources written per image by the plan's segments
  std::set<std::size_t> inputs;     // model inputs read per image
  std::vector<bool> pieceSizeFits;  // [i]: pieces of i images keep every grid's groups whole
};

// Whether `segment` can join `prefix`, and then what it adds: the inputs it reads per image
// and the resources it writes.
bool joins(const Model& model, const SegmentInfo& segment, const Prefix& prefix,
           std::set<std::size_t>& inputs, std::set<std::uint32_t>& written) {
  const vgf::SpirvBatchGrid& grid = *segment.batchGrid;
  for (const BindingInfo& b : segment.bindings) {
    const ResourceInfo& r = model.resources()[b.mrtIndex];
    const bool perImage =
        b.set == 0 && std::binary_search(grid.bindings.begin(), grid.bindings.end(), b.binding);
    if (!perImage) {
      // Read whole: only constants are whole before the first piece.
      if (r.category != ResourceCategory::Constant || writes(b.access)) return false;
      continue;
    }
    if (reads(b.access)) {
      std::size_t input = 0;
      for (; input < model.inputs().size(); ++input) {
        if (model.inputs()[input].mrtIndex == b.mrtIndex) break;
      }
      if (input < model.inputs().size()) {
        inputs.insert(input);
      } else if (prefix.written.count(b.mrtIndex) == 0 && written.count(b.mrtIndex) == 0) {
        return false;  // a tensor no piece has written
      }
    }
    if (writes(b.access)) {
      if (r.category != ResourceCategory::Intermediate && r.category != ResourceCategory::Output)
        return false;
      written.insert(b.mrtIndex);
    }
  }
  return true;
}

}  // namespace

PiecePlan planPieces(const Model& model, std::size_t maxSegments, std::uint64_t pieceBytes) {
  PiecePlan plan;
  Prefix prefix;
  const std::vector<SegmentInfo>& segments = model.segments();
  for (std::size_t s = 0; s < std::min(maxSegments, segments.size()); ++s) {
    const SegmentInfo& segment = segments[s];
    if (!segment.batchGrid || segment.batchGrid->images < 2) break;
    const vgf::SpirvBatchGrid& grid = *segment.batchGrid;
    if (s == 0) {
      plan.images = grid.images;
      prefix.pieceSizeFits.assign(grid.images, true);  // 1 .. images - 1: at least two pieces
      prefix.pieceSizeFits[0] = false;
    } else if (grid.images != plan.images) {
      break;
    }
    std::set<std::size_t> inputs;
    std::set<std::uint32_t> written;
    if (!joins(model, segment, prefix, inputs, written)) break;
    std::vector<bool> fits = prefix.pieceSizeFits;
    bool any = false;
    for (std::uint64_t i = 1; i < fits.size(); ++i) {
      fits[i] = fits[i] && grid.firstGroupOf(i).has_value();
      any = any || fits[i];
    }
    if (!any) break;
    prefix.pieceSizeFits = std::move(fits);
    prefix.inputs.insert(inputs.begin(), inputs.end());
    prefix.written.insert(written.begin(), written.end());
    plan.segments = s + 1;
  }
  if (plan.segments == 0 || prefix.inputs.empty()) return PiecePlan{};

  // Pieces of i images, i the smallest size that fits every grid and holds pieceBytes of the
  // inputs, else the largest that fits.
  std::uint64_t bytesPerImage = 0;
  for (std::size_t input : prefix.inputs) bytesPerImage += model.inputs()[input].bytes / plan.images;
  std::uint64_t size = 0;
  for (std::uint64_t i = 1; i < plan.images; ++i) {
    if (!prefix.pieceSizeFits[i]) continue;
    size = i;
    if (i * bytesPerImage >= pieceBytes) break;
  }
  for (std::uint64_t first = 0; first < plan.images; first += size) plan.imageBounds.push_back(first);
  plan.imageBounds.push_back(plan.images);
  plan.inputs.assign(prefix.inputs.begin(), prefix.inputs.end());
  plan.written.assign(prefix.written.begin(), prefix.written.end());
  return plan;
}

PieceDispatch pieceDispatch(const SegmentInfo& segment, std::uint64_t from, std::uint64_t to) {
  PieceDispatch d;
  d.count = segment.dispatch;
  const vgf::SpirvBatchGrid& grid = *segment.batchGrid;
  const std::uint64_t first = grid.firstGroupOf(from).value_or(0);
  const std::uint64_t end = grid.firstGroupOf(to).value_or(first);
  d.base[grid.axis] = static_cast<std::uint32_t>(first);
  d.count[grid.axis] = static_cast<std::uint32_t>(end - first);
  return d;
}

}  // namespace openvgf::runner
