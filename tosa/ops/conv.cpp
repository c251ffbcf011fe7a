// SPDX-License-Identifier: Apache-2.0
// CONV2D, CONV3D, DEPTHWISE_CONV2D and TRANSPOSE_CONV2D: verify and shape rules.
#include "tosa/ops/rules.h"

namespace openvgf::tosa::ops {
namespace {

Status verifyConv(OpCheck& c) {
  DType acc = DType::Unknown;
  if (c.op() == Op::TransposeConv2d) {
    OPENVGF_ASSIGN_OR_RETURN(const auto* a, c.attrs<TransposeConv2dAttrs>());
    acc = a->accType;
    if (a->outPad.size() == 4 && c.in(1).shape.size() == 4) {
      for (std::size_t i = 0; i < 4; ++i) {
        std::int64_t k = c.in(1).shape[1 + i / 2];
        if (a->outPad[i] <= -k) {
          return c.fail("out_pad: expected out_pad > -K (ERROR_IF out_pad <= -KH/KW), got {} with kernel {}",
                        a->outPad[i], k);
        }
      }
    }
  } else {
    OPENVGF_ASSIGN_OR_RETURN(const auto* a, c.attrs<ConvAttrs>());
    acc = a->accType;
    for (std::int32_t p : a->pad) {
      if (p < 0) return c.fail("pad: expected values >= 0 (ERROR_IF pad < 0), got [{}]", fmt::join(a->pad, ","));
    }
  }
  OPENVGF_TRY(c.checkTypes({c.in(0).dtype, c.in(1).dtype, acc}, "input x weight x acc_type"));
  const Tensor& bias = c.in(2);
  DType outType = c.out(0).dtype;
  if (bias.dtype != outType) {
    return c.fail("bias '{}': expected the output type {}, got {}", bias.name, toString(outType), toString(bias.dtype));
  }
  std::int64_t oc = c.out(0).shape.empty() ? 0 : c.out(0).shape.back();
  if (bias.shape.size() != 1 || (bias.shape[0] != 1 && bias.shape[0] != oc)) {
    return c.fail("bias '{}': expected shape [1] or [{}] (ERROR_IF BC != OC && BC != 1), got {}", bias.name, oc,
                  shapeToString(bias.shape));
  }
  OPENVGF_TRY(c.zeroPoint(3, "input_zp", c.in(0).dtype, c.in(0).dtype == DType::Int8));
  OPENVGF_TRY(c.zeroPoint(4, "weight_zp", c.in(1).dtype, c.in(1).dtype == DType::Int8));
  return {};
}

Result<std::vector<OutputInfo>> inferTransposeConv2d(const Inference& in, DType out) {
  const Shape& x = in.in(0).shape;
  const Shape& w = in.in(1).shape;
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, in.attrs<TransposeConv2dAttrs>());
  OPENVGF_TRY(in.rank(0, "input", 4));
  OPENVGF_TRY(in.rank(1, "weight", 4));
  OPENVGF_TRY(Inference::checkVec(a->outPad, 4, "out_pad"));
  OPENVGF_TRY(Inference::checkVec(a->stride, 2, "stride"));
  if (a->stride[0] < 1 || a->stride[1] < 1)
    return invalidInput("stride: expected values >= 1, got {}", intList(a->stride));
  if (x[3] != w[3]) return invalidInput("weight: expected IC = {} (input channels), got {}", x[3], w[3]);
  std::int64_t oh = (x[1] - 1) * a->stride[0] + a->outPad[0] + a->outPad[1] + w[1];
  std::int64_t ow = (x[2] - 1) * a->stride[1] + a->outPad[2] + a->outPad[3] + w[2];
  if (oh < 1 || ow < 1) {
    return invalidInput("OH = (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH: expected >= 1, got OH {} OW {}",
                        oh, ow);
  }
  return Inference::same(out, {x[0], oh, ow, w[0]});
}

Result<std::vector<OutputInfo>> inferConv3d(const Inference& in, const ConvAttrs& a, DType out) {
  const Shape& x = in.in(0).shape;
  const Shape& w = in.in(1).shape;
  OPENVGF_TRY(in.rank(0, "input", 5));
  OPENVGF_TRY(in.rank(1, "weight", 5));
  OPENVGF_TRY(Inference::checkVec(a.pad, 6, "pad"));
  OPENVGF_TRY(Inference::checkVec(a.stride, 3, "stride"));
  OPENVGF_TRY(Inference::checkVec(a.dilation, 3, "dilation"));
  if (x[4] != w[4]) return invalidInput("weight: expected IC = {} (input channels), got {}", x[4], w[4]);
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t od,
                           in.spatial("OD", x[1], a.pad[0], a.pad[1], w[1], a.stride[0], a.dilation[0],
                                      "OD = (ID - 1 + pad_d0 + pad_d1 - (KD - 1) * dilation_d) / stride_d + 1"));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t oh,
                           in.spatial("OH", x[2], a.pad[2], a.pad[3], w[2], a.stride[1], a.dilation[1],
                                      "OH = (IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y) / stride_y + 1"));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t ow,
                           in.spatial("OW", x[3], a.pad[4], a.pad[5], w[3], a.stride[2], a.dilation[2],
                                      "OW = (IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x) / stride_x + 1"));
  return Inference::same(out, {x[0], od, oh, ow, w[0]});
}

Result<std::vector<OutputInfo>> inferConv(const Inference& in) {
  const Shape& x = in.in(0).shape;
  const Shape& w = in.in(1).shape;
  DType out = accumulatorOutput(in.in(0).dtype);
  if (in.op() == Op::TransposeConv2d) return inferTransposeConv2d(in, out);
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, in.attrs<ConvAttrs>());
  if (in.op() == Op::Conv3d) return inferConv3d(in, *a, out);
  OPENVGF_TRY(in.rank(0, "input", 4));
  OPENVGF_TRY(in.rank(1, "weight", 4));
  OPENVGF_TRY(Inference::checkVec(a->pad, 4, "pad"));
  OPENVGF_TRY(Inference::checkVec(a->stride, 2, "stride"));
  OPENVGF_TRY(Inference::checkVec(a->dilation, 2, "dilation"));
  bool depthwise = in.op() == Op::DepthwiseConv2d;
  std::int64_t kh = depthwise ? w[0] : w[1];
  std::int64_t kw = depthwise ? w[1] : w[2];
  std::int64_t ic = depthwise ? w[2] : w[3];
  if (x[3] != ic) {
    return invalidInput("weight: expected {} = {} (input channels), got {}", depthwise ? "C" : "IC", x[3], ic);
  }
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t oh,
                           in.spatial("OH", x[1], a->pad[0], a->pad[1], kh, a->stride[0], a->dilation[0],
                                      "OH = (IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y) / stride_y + 1"));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t ow,
                           in.spatial("OW", x[2], a->pad[2], a->pad[3], kw, a->stride[1], a->dilation[1],
                                      "OW = (IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x) / stride_x + 1"));
  std::int64_t oc = depthwise ? w[2] * w[3] : w[0];
  return Inference::same(out, {x[0], oh, ow, oc});
}

}  // namespace

const OpRules kConvRules{verifyConv, inferConv};

}  // namespace openvgf::tosa::ops
