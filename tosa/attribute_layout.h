// SPDX-License-Identifier: Apache-2.0
// Which serialized attribute tables share one field layout. The reader and writer dispatch on
// the op's layout (tosa/ops.def), but a file may carry a union tag that differs from the op
// (specs/tosa.md §1.3); a table whose layout matches the op's can then still be read as the
// op's attributes.
#pragma once

#include <cstdint>

#include "tosa/types.h"

namespace openvgf::tosa::detail {

enum class AttrLayout {
  Empty,
  AxisNan,  // ARGMAX, REDUCE_MAX, REDUCE_MIN: axis, nan_mode
  AvgPool,  // kernel, stride, pad, acc_type
  Conv,     // CONV2D, CONV3D, DEPTHWISE_CONV2D: pad, stride, dilation, local_bound, acc_type
  Fft,      // inverse, local_bound
  MaxPool,  // kernel, stride, pad, nan_mode
  Rfft,     // local_bound
  TransposeConv,
  Clamp,
  ArithmeticRightShift,
  NanOnly,  // MAXIMUM, MINIMUM
  Axis,     // REDUCE_ALL/ANY/PRODUCT/SUM, CONCAT, REVERSE
  Transpose,
  Resize,
  Rescale,
  Custom,
  CondIf,
  WhileLoop,
};

/// Layout of the attribute table with union tag (= op number) `tag`, from the operator table
/// (tosa/ops.def); Empty for unknown tags.
AttrLayout attrLayout(std::uint32_t tag);
AttrLayout attrLayout(Op op);

}  // namespace openvgf::tosa::detail
