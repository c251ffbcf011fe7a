// SPDX-License-Identifier: Apache-2.0
// Broadcasting of elementwise operands (TOSA 1.0 §2.1: equal ranks, a dimension of 1
// broadcasts, no implicit rank expansion).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tosa/host_tensor.h"
#include "tosa/shape_inference.h"

namespace openvgf::tosa::reference {

// The broadcast shape of two operands is tosa::broadcastShapes (shape_inference.h), the rule
// the verifier and the builder use too.

/// For each element of `out` (row-major), the flat index of the element of `in` it reads
/// under broadcasting. `in` must be broadcast-compatible with `out`.
std::vector<std::int64_t> broadcastMap(const Shape& out, const Shape& in);

}  // namespace openvgf::tosa::reference
