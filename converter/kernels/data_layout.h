// SPDX-License-Identifier: Apache-2.0
// The copy descriptor of shaders/data_layout.comp, shared by the data-layout family and
// by other families that need a plain copy (SCATTER's values_in -> values_out).
#pragma once

#include <cstdint>
#include <vector>

#include "converter/kernels/common.h"

namespace openvgf::converter {

struct CopySpec {
  std::vector<std::int64_t> dims;       // iteration space, outermost first
  std::vector<std::int64_t> srcStride;  // elements, per dim (may be 0 or negative)
  std::vector<std::int64_t> dstStride;
  std::int64_t srcBase = 0, dstBase = 0;
  bool padMode = false;                 // PAD: source coord = coord - lo, checked against lim
  std::vector<std::int64_t> lo, lim;
  std::uint64_t padBits = 0;            // raw bits of the pad value
};

/// Row-major element strides of a shape.
std::vector<std::int64_t> rowMajorStrides(const tosa::Shape& shape);

/// Appends one data_layout.comp kernel copying `src` into `dst` as described.
Status addCopyKernel(LoweringContext& ctx, const std::string& name, tosa::DType dtype, CopySpec spec,
                     std::size_t src, std::size_t dst);

}  // namespace openvgf::converter
