// SPDX-License-Identifier: Apache-2.0
#include "runner/upload_plan.h"

#include <algorithm>

namespace openvgf::runner {

std::vector<UploadPiece> planUploadPieces(std::span<const std::uint64_t> stagedBytes, std::uint64_t chunkBytes) {
  std::vector<UploadPiece> pieces;
  std::uint64_t total = 0;
  for (std::uint64_t bytes : stagedBytes) total += bytes;
  if (chunkBytes == 0 || total <= chunkBytes) return pieces;
  for (std::size_t i = 0; i < stagedBytes.size(); ++i) {
    for (std::uint64_t offset = 0; offset < stagedBytes[i]; offset += chunkBytes) {
      pieces.push_back({i, offset, std::min(chunkBytes, stagedBytes[i] - offset), pieces.size()});
    }
  }
  return pieces;
}

}  // namespace openvgf::runner
