// SPDX-License-Identifier: Apache-2.0
// Broadcast index maps (see broadcast.h).
#include "tosa/reference/broadcast.h"

#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

std::vector<std::int64_t> broadcastMap(const Shape& out, const Shape& in) {
  const std::size_t rank = out.size();
  std::vector<std::int64_t> inStrides = stridesOf(in);
  for (std::size_t d = 0; d < rank; ++d) {
    if (in[d] == 1) inStrides[d] = 0;
  }
  const std::int64_t n = elementCount(out);
  std::vector<std::int64_t> map(static_cast<std::size_t>(n));
  std::vector<std::int64_t> coord(rank, 0);
  std::int64_t offset = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    map[static_cast<std::size_t>(i)] = offset;
    for (std::size_t d = rank; d-- > 0;) {
      ++coord[d];
      offset += inStrides[d];
      if (coord[d] < out[d]) break;
      offset -= inStrides[d] * coord[d];
      coord[d] = 0;
    }
  }
  return map;
}

}  // namespace openvgf::tosa::reference
