// SPDX-License-Identifier: Apache-2.0
// Which lowering function handles which TOSA operator: adding an operator family to the
// Ethos-U backend is one lower_<family>.cpp function and one row here.
#include <array>
#include <utility>

#include "converter/ethosu/lowering.h"

namespace openvgf::converter::ethosu {

using tosa::Op;

LowerFunction findLowering(Op op) {
  static constexpr std::array<std::pair<Op, LowerFunction>, 16> kTable = {{
      {Op::Conv2d, &Lowering::lowerConv},
      {Op::DepthwiseConv2d, &Lowering::lowerConv},
      {Op::MatMul, &Lowering::lowerMatMul},
      {Op::MaxPool2d, &Lowering::lowerPool},
      {Op::AvgPool2d, &Lowering::lowerPool},
      {Op::Add, &Lowering::lowerAddSub},
      {Op::Sub, &Lowering::lowerAddSub},
      {Op::Mul, &Lowering::lowerMul},
      {Op::Rescale, &Lowering::lowerRescale},
      {Op::Clamp, &Lowering::lowerClampOrTable},
      {Op::Table, &Lowering::lowerClampOrTable},
      {Op::Reshape, &Lowering::lowerReshape},
      {Op::Identity, &Lowering::lowerReshape},
      {Op::Slice, &Lowering::lowerSlice},
      {Op::Concat, &Lowering::lowerConcat},
      {Op::Pad, &Lowering::lowerPad},
  }};
  for (const auto& [key, fn] : kTable) {
    if (key == op) return fn;
  }
  return nullptr;
}

}  // namespace openvgf::converter::ethosu
