// SPDX-License-Identifier: Apache-2.0
// Which serialized attribute tables share one field layout. The reader and writer dispatch on
// `op`, but a file may carry a union tag that differs from the op (specs/tosa.md §1.3); a
// table whose layout matches the op's can then still be read as the op's attributes.
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

/// Layout of the attribute table with union tag (= op number) `tag`; Empty for unknown tags.
inline AttrLayout attrLayout(std::uint32_t tag) {
  switch (static_cast<Op>(tag)) {
    case Op::ArgMax:
    case Op::ReduceMax:
    case Op::ReduceMin: return AttrLayout::AxisNan;
    case Op::AvgPool2d: return AttrLayout::AvgPool;
    case Op::Conv2d:
    case Op::Conv3d:
    case Op::DepthwiseConv2d: return AttrLayout::Conv;
    case Op::Fft2d: return AttrLayout::Fft;
    case Op::MaxPool2d: return AttrLayout::MaxPool;
    case Op::Rfft2d: return AttrLayout::Rfft;
    case Op::TransposeConv2d: return AttrLayout::TransposeConv;
    case Op::Clamp: return AttrLayout::Clamp;
    case Op::ArithmeticRightShift: return AttrLayout::ArithmeticRightShift;
    case Op::Maximum:
    case Op::Minimum: return AttrLayout::NanOnly;
    case Op::ReduceAll:
    case Op::ReduceAny:
    case Op::ReduceProduct:
    case Op::ReduceSum:
    case Op::Concat:
    case Op::Reverse: return AttrLayout::Axis;
    case Op::Transpose: return AttrLayout::Transpose;
    case Op::Resize: return AttrLayout::Resize;
    case Op::Rescale: return AttrLayout::Rescale;
    case Op::Custom: return AttrLayout::Custom;
    case Op::CondIf: return AttrLayout::CondIf;
    case Op::WhileLoop: return AttrLayout::WhileLoop;
    default: return AttrLayout::Empty;
  }
}

inline AttrLayout attrLayout(Op op) {
  return attrLayout(static_cast<std::uint32_t>(op));
}

}  // namespace openvgf::tosa::detail
