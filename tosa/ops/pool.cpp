// SPDX-License-Identifier: Apache-2.0
// AVG_POOL2D and MAX_POOL2D: verify and shape rules.
#include "tosa/ops/rules.h"

namespace openvgf::tosa::ops {
namespace {

struct Window {
  const std::vector<std::int32_t>* kernel = nullptr;
  const std::vector<std::int32_t>* stride = nullptr;
  const std::vector<std::int32_t>* pad = nullptr;
};

Status verifyPool(OpCheck& c) {
  Window w;
  if (c.op() == Op::AvgPool2d) {
    OPENVGF_ASSIGN_OR_RETURN(const auto* a, c.attrs<AvgPool2dAttrs>());
    w = {&a->kernel, &a->stride, &a->pad};
    OPENVGF_TRY(c.zeroPoint(1, "input_zp", c.in(0).dtype, c.in(0).dtype == DType::Int8));
    OPENVGF_TRY(c.zeroPoint(2, "output_zp", c.in(0).dtype, c.in(0).dtype == DType::Int8));
    OPENVGF_TRY(c.checkTypes({c.in(0).dtype, a->accType}, "input x acc_type"));
  } else {
    OPENVGF_ASSIGN_OR_RETURN(const auto* a, c.attrs<MaxPool2dAttrs>());
    w = {&a->kernel, &a->stride, &a->pad};
    OPENVGF_TRY(c.checkNan(a->nanMode));
    OPENVGF_TRY(c.checkTypes({c.in(0).dtype}, "input"));
  }
  const auto& kernel = *w.kernel;
  const auto& pad = *w.pad;
  if (kernel.size() == 2 && pad.size() == 4 && w.stride->size() == 2) {
    for (int i = 0; i < 4; ++i) {
      std::int32_t k = kernel[static_cast<std::size_t>(i / 2)];
      std::int32_t p = pad[static_cast<std::size_t>(i)];
      if (p < 0 || p >= k) {
        return c.fail("pad: expected 0 <= pad < kernel in each dimension (ERROR_IF pad >= kernel), got pad {} kernel {}",
                      fmt::format("[{}]", fmt::join(pad, ",")), fmt::format("[{}]", fmt::join(kernel, ",")));
      }
    }
  }
  return {};
}

Result<std::vector<OutputInfo>> inferPool(const Inference& in) {
  OPENVGF_TRY(in.rank(0, "input", 4));
  Window w;
  if (in.op() == Op::AvgPool2d) {
    OPENVGF_ASSIGN_OR_RETURN(const auto* a, in.attrs<AvgPool2dAttrs>());
    w = {&a->kernel, &a->stride, &a->pad};
  } else {
    OPENVGF_ASSIGN_OR_RETURN(const auto* a, in.attrs<MaxPool2dAttrs>());
    w = {&a->kernel, &a->stride, &a->pad};
  }
  const auto& kernel = *w.kernel;
  const auto& stride = *w.stride;
  const auto& pad = *w.pad;
  OPENVGF_TRY(Inference::checkVec(kernel, 2, "kernel"));
  OPENVGF_TRY(Inference::checkVec(stride, 2, "stride"));
  OPENVGF_TRY(Inference::checkVec(pad, 4, "pad"));
  const Shape& x = in.in(0).shape;
  if (kernel[0] < 1 || kernel[1] < 1) return invalidInput("kernel: expected values >= 1, got {}", intList(kernel));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t oh, in.spatial("OH", x[1], pad[0], pad[1], kernel[0], stride[0], 1,
                                                       "OH = (IH + pad_top + pad_bottom - kernel_y) / stride_y + 1"));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t ow, in.spatial("OW", x[2], pad[2], pad[3], kernel[1], stride[1], 1,
                                                       "OW = (IW + pad_left + pad_right - kernel_x) / stride_x + 1"));
  return Inference::same(in.in(0).dtype, {x[0], oh, ow, x[3]});
}

}  // namespace

const OpRules kPoolRules{verifyPool, inferPool};

}  // namespace openvgf::tosa::ops
