// SPDX-License-Identifier: Apache-2.0
// Shape and type inference per operator (TOSA 1.0 §2.2-2.3 of specs/tosa.md). Messages name
// the argument by its spec name and quote the rule.
#include "tosa/shape_inference.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "tosa/packing.h"

namespace openvgf::tosa {

namespace {

std::string ints(const std::vector<std::int32_t>& v) {
  return fmt::format("[{}]", fmt::join(v, ","));
}

class Inference {
 public:
  Inference(Op op, const Attributes& attrs, std::span<const ValueInfo> in)
      : op_(op), attrs_(attrs), in_(in) {}

  Result<std::vector<OutputInfo>> run();

 private:
  Status checkArity() const {
    const int expected = opArity(op_).inputs;
    if (expected != kVariadic && in_.size() != static_cast<std::size_t>(expected)) {
      return invalidInput("{}: expected {} inputs, got {}", toString(op_), expected, in_.size());
    }
    return {};
  }
  Status rank(std::size_t index, std::string_view name, std::size_t r) const {
    if (in_[index].shape.size() != r) {
      return invalidInput("{}: expected rank {}, got {} (shape {})", name, r, in_[index].shape.size(),
                          shapeToString(in_[index].shape));
    }
    return {};
  }
  Result<std::vector<std::int64_t>> shapeValue(std::size_t index, std::string_view name,
                                               std::size_t length) const {
    const ValueInfo& v = in_[index];
    if (!v.shapeValue) {
      return invalidInput(
          "{}: expected a compile-time shape value (CONST_SHAPE output), got a value that is not "
          "known",
          name);
    }
    if (length != std::numeric_limits<std::size_t>::max() && v.shapeValue->size() != length) {
      return invalidInput("{}: expected {} values, got {}", name, length, v.shapeValue->size());
    }
    return *v.shapeValue;
  }
  template <typename T>
  Result<const T*> attrs() const {
    const T* a = std::get_if<T>(&attrs_);
    if (a == nullptr)
      return invalidInput("{}: expected the op's attribute struct, got another kind", toString(op_));
    return a;
  }

  static Status checkVec(const std::vector<std::int32_t>& v, std::size_t n, std::string_view name) {
    if (v.size() != n) return invalidInput("{}: expected {} values, got {}", name, n, ints(v));
    return {};
  }

  Result<std::int64_t> spatial(std::string_view dim, std::int64_t in, std::int64_t padA, std::int64_t padB,
                               std::int64_t k, std::int64_t stride, std::int64_t dilation,
                               std::string_view rule) const {
    if (stride < 1 || dilation < 1) {
      return invalidInput("{}: expected stride >= 1 and dilation >= 1, got stride {} dilation {}", dim,
                          stride, dilation);
    }
    std::int64_t num = in - 1 + padA + padB - (k - 1) * dilation;
    auto out = convOutputSize(in, padA, padB, k, stride, dilation);
    if (!out) {
      return invalidInput("{}: {} must divide exactly and be >= 1, got ({}) / {}", dim, rule, num, stride);
    }
    return *out;
  }

  Result<std::vector<OutputInfo>> same(DType dtype, Shape shape) const {
    return std::vector<OutputInfo>{{dtype, std::move(shape)}};
  }

  Result<std::vector<OutputInfo>> broadcast2(DType out) const {
    const Shape& a = in_[0].shape;
    const Shape& b = in_[1].shape;
    if (a.size() != b.size()) {
      return invalidInput("input1, input2: expected equal ranks (TOSA does not expand ranks), got {} and {}",
                          shapeToString(a), shapeToString(b));
    }
    auto s = broadcastShapes(a, b);
    if (!s) {
      return invalidInput(
          "input1, input2: expected broadcast-compatible shapes (equal or 1 per dimension), got {} "
          "and {}",
          shapeToString(a), shapeToString(b));
    }
    return same(out, *s);
  }

  Result<std::vector<OutputInfo>> conv();
  Result<std::vector<OutputInfo>> pool();
  Result<std::vector<OutputInfo>> dataLayout();

  Op op_;
  const Attributes& attrs_;
  std::span<const ValueInfo> in_;
};

/// Output element type of the convolutions and MATMUL for an input type.
DType accumulatorOutput(DType in) {
  switch (in) {
    case DType::Int8: return DType::Int32;
    case DType::Int16: return DType::Int48;
    case DType::Fp8E4M3:
    case DType::Fp8E5M2: return DType::Fp16;
    default: return in;
  }
}

Result<std::vector<OutputInfo>> Inference::conv() {
  const Shape& x = in_[0].shape;
  const Shape& w = in_[1].shape;
  DType out = accumulatorOutput(in_[0].dtype);
  if (op_ == Op::TransposeConv2d) {
    OPENVGF_ASSIGN_OR_RETURN(const auto* a, attrs<TransposeConv2dAttrs>());
    OPENVGF_TRY(rank(0, "input", 4));
    OPENVGF_TRY(rank(1, "weight", 4));
    OPENVGF_TRY(checkVec(a->outPad, 4, "out_pad"));
    OPENVGF_TRY(checkVec(a->stride, 2, "stride"));
    if (a->stride[0] < 1 || a->stride[1] < 1)
      return invalidInput("stride: expected values >= 1, got {}", ints(a->stride));
    if (x[3] != w[3]) return invalidInput("weight: expected IC = {} (input channels), got {}", x[3], w[3]);
    std::int64_t oh = (x[1] - 1) * a->stride[0] + a->outPad[0] + a->outPad[1] + w[1];
    std::int64_t ow = (x[2] - 1) * a->stride[1] + a->outPad[2] + a->outPad[3] + w[2];
    if (oh < 1 || ow < 1) {
      return invalidInput(
          "OH = (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH: expected >= 1, got OH {} OW {}", oh,
          ow);
    }
    return same(out, {x[0], oh, ow, w[0]});
  }
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, attrs<ConvAttrs>());
  if (op_ == Op::Conv3d) {
    OPENVGF_TRY(rank(0, "input", 5));
    OPENVGF_TRY(rank(1, "weight", 5));
    OPENVGF_TRY(checkVec(a->pad, 6, "pad"));
    OPENVGF_TRY(checkVec(a->stride, 3, "stride"));
    OPENVGF_TRY(checkVec(a->dilation, 3, "dilation"));
    if (x[4] != w[4]) return invalidInput("weight: expected IC = {} (input channels), got {}", x[4], w[4]);
    OPENVGF_ASSIGN_OR_RETURN(
        std::int64_t od, spatial("OD", x[1], a->pad[0], a->pad[1], w[1], a->stride[0], a->dilation[0],
                                 "OD = (ID - 1 + pad_d0 + pad_d1 - (KD - 1) * dilation_d) / stride_d + 1"));
    OPENVGF_ASSIGN_OR_RETURN(
        std::int64_t oh,
        spatial("OH", x[2], a->pad[2], a->pad[3], w[2], a->stride[1], a->dilation[1],
                "OH = (IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y) / stride_y + 1"));
    OPENVGF_ASSIGN_OR_RETURN(
        std::int64_t ow,
        spatial("OW", x[3], a->pad[4], a->pad[5], w[3], a->stride[2], a->dilation[2],
                "OW = (IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x) / stride_x + 1"));
    return same(out, {x[0], od, oh, ow, w[0]});
  }
  OPENVGF_TRY(rank(0, "input", 4));
  OPENVGF_TRY(rank(1, "weight", 4));
  OPENVGF_TRY(checkVec(a->pad, 4, "pad"));
  OPENVGF_TRY(checkVec(a->stride, 2, "stride"));
  OPENVGF_TRY(checkVec(a->dilation, 2, "dilation"));
  bool depthwise = op_ == Op::DepthwiseConv2d;
  std::int64_t kh = depthwise ? w[0] : w[1];
  std::int64_t kw = depthwise ? w[1] : w[2];
  std::int64_t ic = depthwise ? w[2] : w[3];
  if (x[3] != ic) {
    return invalidInput("weight: expected {} = {} (input channels), got {}", depthwise ? "C" : "IC", x[3],
                        ic);
  }
  OPENVGF_ASSIGN_OR_RETURN(
      std::int64_t oh,
      spatial("OH", x[1], a->pad[0], a->pad[1], kh, a->stride[0], a->dilation[0],
              "OH = (IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y) / stride_y + 1"));
  OPENVGF_ASSIGN_OR_RETURN(
      std::int64_t ow,
      spatial("OW", x[2], a->pad[2], a->pad[3], kw, a->stride[1], a->dilation[1],
              "OW = (IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x) / stride_x + 1"));
  std::int64_t oc = depthwise ? w[2] * w[3] : w[0];
  return same(out, {x[0], oh, ow, oc});
}

Result<std::vector<OutputInfo>> Inference::pool() {
  OPENVGF_TRY(rank(0, "input", 4));
  const std::vector<std::int32_t>* kernel = nullptr;
  const std::vector<std::int32_t>* stride = nullptr;
  const std::vector<std::int32_t>* pad = nullptr;
  if (op_ == Op::AvgPool2d) {
    OPENVGF_ASSIGN_OR_RETURN(const auto* a, attrs<AvgPool2dAttrs>());
    kernel = &a->kernel, stride = &a->stride, pad = &a->pad;
  } else {
    OPENVGF_ASSIGN_OR_RETURN(const auto* a, attrs<MaxPool2dAttrs>());
    kernel = &a->kernel, stride = &a->stride, pad = &a->pad;
  }
  OPENVGF_TRY(checkVec(*kernel, 2, "kernel"));
  OPENVGF_TRY(checkVec(*stride, 2, "stride"));
  OPENVGF_TRY(checkVec(*pad, 4, "pad"));
  const Shape& x = in_[0].shape;
  if ((*kernel)[0] < 1 || (*kernel)[1] < 1)
    return invalidInput("kernel: expected values >= 1, got {}", ints(*kernel));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t oh,
                           spatial("OH", x[1], (*pad)[0], (*pad)[1], (*kernel)[0], (*stride)[0], 1,
                                   "OH = (IH + pad_top + pad_bottom - kernel_y) / stride_y + 1"));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t ow,
                           spatial("OW", x[2], (*pad)[2], (*pad)[3], (*kernel)[1], (*stride)[1], 1,
                                   "OW = (IW + pad_left + pad_right - kernel_x) / stride_x + 1"));
  return same(in_[0].dtype, {x[0], oh, ow, x[3]});
}

Result<std::vector<OutputInfo>> Inference::dataLayout() {
  const ValueInfo& x = in_.empty() ? ValueInfo{} : in_[0];
  switch (op_) {
    case Op::Concat: {
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, attrs<AxisAttrs>());
      if (in_.empty()) return invalidInput("input1: expected at least one tensor in the list, got none");
      std::int64_t r = static_cast<std::int64_t>(x.shape.size());
      if (a->axis < 0 || a->axis >= r)
        return invalidInput("axis: expected 0 <= axis < rank {}, got {}", r, a->axis);
      Shape out = x.shape;
      for (std::size_t i = 1; i < in_.size(); ++i) {
        const Shape& s = in_[i].shape;
        if (s.size() != x.shape.size()) {
          return invalidInput("input1[{}]: expected rank {}, got shape {}", i, x.shape.size(),
                              shapeToString(s));
        }
        for (std::size_t d = 0; d < s.size(); ++d) {
          if (static_cast<std::int32_t>(d) != a->axis && s[d] != x.shape[d]) {
            return invalidInput("input1[{}]: expected dimension {} = {} (all but axis equal), got {}", i, d,
                                x.shape[d], s[d]);
          }
        }
        out[static_cast<std::size_t>(a->axis)] += s[static_cast<std::size_t>(a->axis)];
      }
      return same(x.dtype, out);
    }
    case Op::Pad: {
      OPENVGF_ASSIGN_OR_RETURN(auto padding, shapeValue(1, "padding", 2 * x.shape.size()));
      Shape out = x.shape;
      for (std::size_t d = 0; d < out.size(); ++d) {
        constexpr std::int64_t kMaxPad = std::int64_t{1} << 40;
        if (padding[2 * d] < 0 || padding[2 * d + 1] < 0 || padding[2 * d] > kMaxPad ||
            padding[2 * d + 1] > kMaxPad) {
          return invalidInput("padding: expected values in [0, 2^40], got {} at dimension {}",
                              fmt::format("[{},{}]", padding[2 * d], padding[2 * d + 1]), d);
        }
        out[d] += padding[2 * d] + padding[2 * d + 1];
      }
      return same(x.dtype, out);
    }
    case Op::Reshape: {
      OPENVGF_ASSIGN_OR_RETURN(auto shape, shapeValue(1, "shape", std::numeric_limits<std::size_t>::max()));
      for (std::int64_t d : shape) {
        if (d < 1) return invalidInput("shape: expected every dimension >= 1, got {}", shapeToString(shape));
      }
      auto a = checkedElementCount(x.shape);
      auto b = checkedElementCount(shape);
      if (!a || !b || *a != *b) {
        return invalidInput("shape: expected the same element count as input1 {}, got {}",
                            shapeToString(x.shape), shapeToString(shape));
      }
      return same(x.dtype, shape);
    }
    case Op::Reverse: {
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, attrs<AxisAttrs>());
      std::int64_t r = static_cast<std::int64_t>(x.shape.size());
      if (a->axis < 0 || a->axis >= r)
        return invalidInput("axis: expected 0 <= axis < rank {}, got {}", r, a->axis);
      return same(x.dtype, x.shape);
    }
    case Op::Slice: {
      OPENVGF_ASSIGN_OR_RETURN(auto start, shapeValue(1, "start", x.shape.size()));
      OPENVGF_ASSIGN_OR_RETURN(auto size, shapeValue(2, "size", x.shape.size()));
      for (std::size_t d = 0; d < x.shape.size(); ++d) {
        if (start[d] < 0 || size[d] <= 0 || start[d] > x.shape[d] - size[d]) {
          return invalidInput(
              "start, size: expected start >= 0, size > 0 and start + size <= input dim, got start {} "
              "size {} for dimension {} of size {}",
              start[d], size[d], d, x.shape[d]);
        }
      }
      return same(x.dtype, size);
    }
    case Op::Tile: {
      OPENVGF_ASSIGN_OR_RETURN(auto multiples, shapeValue(1, "multiples", x.shape.size()));
      Shape out = x.shape;
      for (std::size_t d = 0; d < out.size(); ++d) {
        if (multiples[d] < 1)
          return invalidInput("multiples: expected values >= 1, got {}", shapeToString(multiples));
        if (out[d] > std::numeric_limits<std::int64_t>::max() / multiples[d]) {
          return invalidInput("multiples: output dimension overflows");
        }
        out[d] *= multiples[d];
      }
      return same(x.dtype, out);
    }
    case Op::Transpose: {
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, attrs<TransposeAttrs>());
      std::size_t r = x.shape.size();
      if (a->perms.size() != r)
        return invalidInput("perms: expected {} values (input rank), got {}", r, ints(a->perms));
      std::vector<bool> seen(r, false);
      Shape out(r);
      for (std::size_t i = 0; i < r; ++i) {
        std::int32_t p = a->perms[i];
        if (p < 0 || static_cast<std::size_t>(p) >= r || seen[static_cast<std::size_t>(p)]) {
          return invalidInput("perms: expected a permutation of 0..{}, got {}", r - 1, ints(a->perms));
        }
        seen[static_cast<std::size_t>(p)] = true;
        out[i] = x.shape[static_cast<std::size_t>(p)];
      }
      return same(x.dtype, out);
    }
    default: return internalError("{}: not a data layout op", toString(op_));
  }
}

Result<std::vector<OutputInfo>> Inference::run() {
  OPENVGF_TRY(checkArity());
  switch (op_) {
    case Op::ArgMax: {
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, attrs<ArgMaxAttrs>());
      const Shape& s = in_[0].shape;
      if (a->axis < 0 || static_cast<std::size_t>(a->axis) >= s.size()) {
        return invalidInput("axis: expected 0 <= axis < rank {}, got {}", s.size(), a->axis);
      }
      Shape out = s;
      out.erase(out.begin() + a->axis);
      return same(DType::Int32, out);
    }
    case Op::AvgPool2d:
    case Op::MaxPool2d: return pool();
    case Op::Conv2d:
    case Op::Conv3d:
    case Op::DepthwiseConv2d:
    case Op::TransposeConv2d: return conv();
    case Op::Fft2d: {
      OPENVGF_TRY(rank(0, "input_real", 3));
      if (in_[0].shape != in_[1].shape) {
        return invalidInput("input_imag: expected the shape of input_real {}, got {}",
                            shapeToString(in_[0].shape), shapeToString(in_[1].shape));
      }
      return std::vector<OutputInfo>{{in_[0].dtype, in_[0].shape}, {in_[0].dtype, in_[0].shape}};
    }
    case Op::Rfft2d: {
      OPENVGF_TRY(rank(0, "input_real", 3));
      Shape s = in_[0].shape;
      s[2] = s[2] / 2 + 1;
      return std::vector<OutputInfo>{{in_[0].dtype, s}, {in_[0].dtype, s}};
    }
    case Op::MatMul: {
      OPENVGF_TRY(rank(0, "A", 3));
      OPENVGF_TRY(rank(1, "B", 3));
      const Shape& a = in_[0].shape;
      const Shape& b = in_[1].shape;
      if (a[0] != b[0] || a[2] != b[1]) {
        return invalidInput("B: expected shape [N={}, C={}, W], got {}", a[0], a[2], shapeToString(b));
      }
      DType out = in_[0].dtype == DType::Bf16 ? DType::Fp32 : accumulatorOutput(in_[0].dtype);
      return same(out, {a[0], a[1], b[2]});
    }
    case Op::Clamp:
    case Op::Erf:
    case Op::Sigmoid:
    case Op::Tanh:
    case Op::Abs:
    case Op::BitwiseNot:
    case Op::Ceil:
    case Op::Clz:
    case Op::Cos:
    case Op::Exp:
    case Op::Floor:
    case Op::Log:
    case Op::LogicalNot:
    case Op::Reciprocal:
    case Op::Rsqrt:
    case Op::Sin:
    case Op::Identity:
    case Op::Negate: return same(in_[0].dtype, in_[0].shape);
    case Op::Cast: return same(DType::Unknown, in_[0].shape);
    case Op::Rescale: return same(DType::Unknown, in_[0].shape);
    case Op::Add:
    case Op::Sub:
    case Op::ArithmeticRightShift:
    case Op::BitwiseAnd:
    case Op::BitwiseOr:
    case Op::BitwiseXor:
    case Op::IntDiv:
    case Op::LogicalAnd:
    case Op::LogicalLeftShift:
    case Op::LogicalRightShift:
    case Op::LogicalOr:
    case Op::LogicalXor:
    case Op::Maximum:
    case Op::Minimum:
    case Op::Pow: {
      return broadcast2(in_[0].dtype);
    }
    case Op::Mul: {
      DType t = in_[0].dtype;
      return broadcast2(t == DType::Int8 || t == DType::Int16 ? DType::Int32 : t);
    }
    case Op::Equal:
    case Op::Greater:
    case Op::GreaterEqual:
      return broadcast2(DType::Bool);
    case Op::Table:
      return same(in_[0].dtype == DType::Int16 ? DType::Int32 : in_[0].dtype, in_[0].shape);
    case Op::Select: {
      const Shape& c = in_[0].shape;
      if (c.size() != in_[1].shape.size() || c.size() != in_[2].shape.size()) {
        return invalidInput("input1, input2, input3: expected equal ranks, got {}, {} and {}",
                            shapeToString(c), shapeToString(in_[1].shape), shapeToString(in_[2].shape));
      }
      auto ab = broadcastShapes(c, in_[1].shape);
      auto abc = ab ? broadcastShapes(*ab, in_[2].shape) : std::nullopt;
      if (!abc) {
        return invalidInput("input1, input2, input3: expected broadcast-compatible shapes, got {}, {} and {}",
                            shapeToString(c), shapeToString(in_[1].shape), shapeToString(in_[2].shape));
      }
      return same(in_[1].dtype, *abc);
    }
    case Op::ReduceAll:
    case Op::ReduceAny:
    case Op::ReduceMax:
    case Op::ReduceMin:
    case Op::ReduceProduct:
    case Op::ReduceSum: {
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, attrs<AxisAttrs>());
      Shape s = in_[0].shape;
      if (a->axis < 0 || static_cast<std::size_t>(a->axis) >= s.size()) {
        return invalidInput("axis: expected 0 <= axis < rank {}, got {}", s.size(), a->axis);
      }
      s[static_cast<std::size_t>(a->axis)] = 1;
      return same(in_[0].dtype, s);
    }
    case Op::Concat:
    case Op::Pad:
    case Op::Reshape:
    case Op::Reverse:
    case Op::Slice:
    case Op::Tile:
    case Op::Transpose: return dataLayout();
    case Op::Gather: {
      OPENVGF_TRY(rank(0, "values", 3));
      OPENVGF_TRY(rank(1, "indices", 2));
      const Shape& v = in_[0].shape;
      const Shape& i = in_[1].shape;
      if (i[0] != v[0]) return invalidInput("indices: expected N = {}, got shape {}", v[0], shapeToString(i));
      return same(in_[0].dtype, {v[0], i[1], v[2]});
    }
    case Op::Scatter: {
      OPENVGF_TRY(rank(0, "values_in", 3));
      OPENVGF_TRY(rank(1, "indices", 2));
      OPENVGF_TRY(rank(2, "input", 3));
      const Shape& v = in_[0].shape;
      const Shape& i = in_[1].shape;
      const Shape& x = in_[2].shape;
      if (i[0] != v[0] || x[0] != v[0] || x[1] != i[1] || x[2] != v[2]) {
        return invalidInput("indices, input: expected shapes [N={0},W] and [N={0},W,C={1}], got {2} and {3}",
                            v[0], v[2], shapeToString(i), shapeToString(x));
      }
      return same(in_[0].dtype, v);
    }
    case Op::Resize: {
      OPENVGF_TRY(rank(0, "input", 4));
      OPENVGF_ASSIGN_OR_RETURN(const auto* a, attrs<ResizeAttrs>());
      OPENVGF_ASSIGN_OR_RETURN(auto scale, shapeValue(1, "scale", 4));
      OPENVGF_ASSIGN_OR_RETURN(auto offset, shapeValue(2, "offset", 2));
      OPENVGF_ASSIGN_OR_RETURN(auto border, shapeValue(3, "border", 2));
      for (std::int64_t s : scale) {
        if (s <= 0) return invalidInput("scale: expected values > 0, got {}", shapeToString(scale));
      }
      const Shape& x = in_[0].shape;
      std::int64_t outDims[2];
      for (int d = 0; d < 2; ++d) {
        std::int64_t n = scale[2 * d];
        std::int64_t den = scale[2 * d + 1];
        if (n > (1 << 20) || den > (1 << 20) || x[1 + d] > (1 << 20)) {
          return invalidInput("scale: expected values below 2^20, got {}", shapeToString(scale));
        }
        constexpr std::int64_t kMaxShift = std::int64_t{1} << 40;
        if (offset[d] < -kMaxShift || offset[d] > kMaxShift || border[d] < -kMaxShift ||
            border[d] > kMaxShift) {
          return invalidInput("offset, border: expected values within +-2^40, got {} and {}",
                              shapeToString(offset), shapeToString(border));
        }
        std::int64_t num = (x[1 + d] - 1) * n - offset[d] + border[d];
        if (num < 0 || num % den != 0) {
          return invalidInput(
              "{0} = ((I{0} - 1) * scale_{1}_n - offset_{1} + border_{1}) / scale_{1}_d + 1 must divide "
              "exactly, got ({2}) / {3}",
              d == 0 ? "OH" : "OW", d == 0 ? "y" : "x", num, den);
        }
        outDims[d] = num / den + 1;
      }
      DType in = in_[0].dtype;
      DType out = in;
      if (a->mode == ResizeMode::Bilinear && in == DType::Int8) out = DType::Int32;
      if (a->mode == ResizeMode::Bilinear && in == DType::Int16) out = DType::Int48;
      return same(out, {x[0], outDims[0], outDims[1], x[3]});
    }
    default: return unsupported("{}: outputs are not determined by the inputs", toString(op_));
  }
}

}  // namespace

bool hasShapeInference(Op op) {
  switch (op) {
    case Op::Const:
    case Op::ConstShape:
    case Op::Custom:
    case Op::CondIf:
    case Op::WhileLoop:
    case Op::Variable:
    case Op::VariableWrite:
    case Op::VariableRead:
    case Op::Unknown: return false;
    default: return isValid(op);
  }
}

std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return std::nullopt;
  Shape out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || b[i] == 1) {
      out[i] = a[i];
    } else if (a[i] == 1) {
      out[i] = b[i];
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<std::int64_t> convOutputSize(std::int64_t in, std::int64_t padBefore, std::int64_t padAfter,
                                           std::int64_t kernel, std::int64_t stride, std::int64_t dilation) {
  if (stride < 1 || dilation < 1 || kernel < 1) return std::nullopt;
  // Operands come from 32-bit fields and dimensions below 2^31, so this cannot overflow int64.
  std::int64_t num = in - 1 + padBefore + padAfter - (kernel - 1) * dilation;
  if (num < 0 || num % stride != 0) return std::nullopt;
  return num / stride + 1;
}

Result<std::vector<OutputInfo>> inferOutputs(Op op, const Attributes& attrs,
                                             std::span<const ValueInfo> inputs) {
  return Inference(op, attrs, inputs).run();
}

}  // namespace openvgf::tosa
