// SPDX-License-Identifier: Apache-2.0
// MAX_POOL2D and AVG_POOL2D, with a PAD before them folded in: padding never wins a max
// (so only a -128 PAD folds into a max pool) and a PAD with the input zero point before an
// average pool adds elements that count in the divisor but add 0 to the sum.
#include <array>

#include "converter/ethosu/lowering.h"

namespace openvgf::converter::ethosu {

using tosa::DType;
using tosa::Op;

Status Lowering::lowerPool(std::size_t index) {
  const tosa::Operator& o = op(index);
  const std::string what = label(index);
  NpuOp npu;
  npu.kind = Kind::Pool;
  npu.what = what;
  std::vector<std::int32_t> kernel, stride, pad;
  if (o.op == Op::MaxPool2d) {
    const auto* attrs = std::get_if<tosa::MaxPool2dAttrs>(&o.attrs);
    if (!attrs || o.inputs.size() != 1) return invalidInput("{}: expected 1 input and MAX_POOL2D attributes", what);
    kernel = attrs->kernel;
    stride = attrs->stride;
    pad = attrs->pad;
    npu.mode = mode::kMax;
  } else {
    const auto* attrs = std::get_if<tosa::AvgPool2dAttrs>(&o.attrs);
    if (!attrs || o.inputs.size() != 3) return invalidInput("{}: expected 3 inputs and AVG_POOL2D attributes", what);
    kernel = attrs->kernel;
    stride = attrs->stride;
    pad = attrs->pad;
    npu.mode = mode::kAverage;
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t izp, scalarValue(o.inputs[1], what + ": input_zp"));
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t ozp, scalarValue(o.inputs[2], what + ": output_zp"));
    npu.ifmZp = static_cast<int>(izp);
    npu.ofmZp = static_cast<int>(ozp);
  }
  if (kernel.size() != 2 || stride.size() != 2 || pad.size() != 4) return invalidInput("{}: expected 2-D kernel/stride/pad", what);
  const tosa::Tensor* in = tensor(o.inputs[0]);
  const tosa::Tensor* out = tensor(o.outputs[0]);
  if (!in || !out || in->dtype != DType::Int8 || out->dtype != DType::Int8) return unsupported("{}: only INT8 runs on the NPU", what);
  npu.kh = kernel[0];
  npu.kw = kernel[1];
  npu.sy = stride[0];
  npu.sx = stride[1];
  npu.padTop = pad[0];
  npu.padBottom = pad[1];
  npu.padLeft = pad[2];
  npu.padRight = pad[3];
  std::string inputName = o.inputs[0];
  if (auto p = pads_.find(inputName); p != pads_.end() && npu.mode == mode::kMax) {
    // Hardware padding never wins a max, exactly like padding with the type minimum.
    if (p->second.value != -128) {
      return unsupported("{}: the PAD before it pads with {}; only -128 can be folded into a max pool", what, p->second.value);
    }
    npu.padTop += p->second.top;
    npu.padBottom += p->second.bottom;
    npu.padLeft += p->second.left;
    npu.padRight += p->second.right;
    inputName = p->second.input;
  }
  // A PAD with the input zero point before an average pool adds elements that count in the
  // divisor but contribute 0 to the sum.
  CountedPadding counted;
  if (auto p = pads_.find(inputName); p != pads_.end() && npu.mode == mode::kAverage) {
    if (p->second.value != npu.ifmZp) {
      return unsupported("{}: the PAD before it pads with {}; only the input zero point {} can be folded into an average pool",
                         what, p->second.value, npu.ifmZp);
    }
    counted = CountedPadding{p->second.top, p->second.bottom, p->second.left, p->second.right};
    inputName = p->second.input;
  }
  if (npu.sy < 1 || npu.sy > 3 || npu.sx < 1 || npu.sx > 3) return unsupported("{}: stride {}x{} (NPU: 1..3)", what, npu.sy, npu.sx);
  if (npu.mode == mode::kMax && (npu.padTop > 127 || npu.padLeft > 127 || npu.padBottom > 128 || npu.padRight > 128)) {
    return unsupported("{}: padding beyond the NPU limits", what);
  }
  if (npu.mode == mode::kAverage) setAveragePoolScale(npu, npu.kh * npu.kw);
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(inputName, what));
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(o.outputs[0], what));
  if ((od.h - 1) * npu.sy + npu.kh - npu.padTop - npu.padBottom != npu.ifm.h + counted.top + counted.bottom ||
      (od.w - 1) * npu.sx + npu.kw - npu.padLeft - npu.padRight != npu.ifm.w + counted.left + counted.right ||
      od.c != npu.ifm.c) {
    return invalidInput("{}: output shape does not match input, kernel, stride and padding", what);
  }
  std::string finalName = o.outputs[0];
  fuseClamp(finalName, npu);
  if (npu.mode == mode::kAverage && (npu.padTop || npu.padBottom || npu.padLeft || npu.padRight || counted.top || counted.bottom ||
                        counted.left || counted.right)) {
    return lowerPaddedAveragePool(std::move(npu), counted, finalName, od);
  }
  pushOp(std::move(npu), finalName, od);
  return {};
}

namespace {

/// One run of output rows (or columns) whose pooling windows, clipped to the input, have the
/// same offset, size and divisor: they form one unpadded pool.
struct WindowRun {
  int first = 0, count = 0;  // output rows
  int inputStart = 0;        // input row of the first window
  int kernel = 0;            // window clipped to the input data
  int divisor = 0;           // window clipped to the input and the counted (PAD) padding
};

/// Rows (or columns) of a virtual input made of `countedBefore` counted padding rows, `inputs`
/// data rows and `countedAfter` counted rows, pooled with a kernel whose window starts at
/// y * stride - padBefore (pool padding, not counted).
std::vector<WindowRun> windowRuns(int outputs, int inputs, int kernel, int stride, int padBefore, int countedBefore,
                                  int countedAfter) {
  std::vector<WindowRun> runs;
  std::array<int, 4> last{-1, -1, -1, -1};
  const int virtualExtent = countedBefore + inputs + countedAfter;
  for (int y = 0; y < outputs; ++y) {
    const int origin = y * stride - padBefore;
    const int countA = std::max(0, origin), countB = std::min(virtualExtent, origin + kernel);
    const int dataA = std::max(countedBefore, origin), dataB = std::min(countedBefore + inputs, origin + kernel);
    const std::array<int, 4> key{countA - origin, countB - origin, dataA - origin, dataB - origin};
    if (!runs.empty() && key == last) {
      ++runs.back().count;
    } else {
      runs.push_back(WindowRun{y, 1, dataA - countedBefore, dataB - dataA, countB - countA});
    }
    last = key;
  }
  return runs;
}

}  // namespace

void Lowering::setAveragePoolScale(NpuOp& npu, int count) {
  // TOSA reciprocal_scale(count) with single rounding (specs/ethosu.md §4.3).
  unsigned k = 0;
  while (k < 32 && (std::uint64_t{1} << k) < static_cast<std::uint64_t>(count)) ++k;
  npu.globalScale = true;
  npu.ofmScale = static_cast<std::uint32_t>((((std::uint64_t{1} << 30) + 1) << k) / static_cast<std::uint64_t>(count));
  npu.ofmShift = 30 + k;
  npu.doubleRound = false;
}

Status Lowering::lowerPaddedAveragePool(NpuOp&& npu, const CountedPadding& counted, const std::string& finalName,
                                        const Dims3& od) {
  // TOSA divides each window sum by its count of in-bounds elements (a folded PAD's elements
  // count too and add 0). How the NPU's own padded average treats the divisor and rounding is
  // not specified, so the output is split into rectangles whose windows, clipped to the
  // input, have one size and one divisor; each runs as an unpadded average pool over the
  // clipped window with that divisor's reciprocal scale, which is the unpadded case that
  // matches TOSA exactly.
  const std::vector<WindowRun> rows = windowRuns(od.h, npu.ifm.h, npu.kh, npu.sy, npu.padTop, counted.top, counted.bottom);
  const std::vector<WindowRun> cols = windowRuns(od.w, npu.ifm.w, npu.kw, npu.sx, npu.padLeft, counted.left, counted.right);
  for (const WindowRun& r : rows) {
    if (r.kernel < 1) return unsupported("{}: output row {} has a pooling window of padding only", npu.what, r.first);
  }
  for (const WindowRun& c : cols) {
    if (c.kernel < 1) return unsupported("{}: output column {} has a pooling window of padding only", npu.what, c.first);
  }
  const View input = npu.ifm;
  const View output = allocateOutput(finalName, od);
  for (const WindowRun& r : rows) {
    for (const WindowRun& c : cols) {
      NpuOp part = npu;
      part.what = fmt::format("{} (rows {}..{}, columns {}..{})", npu.what, r.first, r.first + r.count - 1, c.first,
                              c.first + c.count - 1);
      part.padTop = part.padBottom = part.padLeft = part.padRight = 0;
      part.kh = r.kernel;
      part.kw = c.kernel;
      setAveragePoolScale(part, r.divisor * c.divisor);
      part.ifm = input;
      part.ifm.offset = input.offset + static_cast<std::uint32_t>(r.inputStart) * input.strideY +
                        static_cast<std::uint32_t>(c.inputStart) * input.strideX;
      part.ifm.h = (r.count - 1) * npu.sy + r.kernel;
      part.ifm.w = (c.count - 1) * npu.sx + c.kernel;
      part.ofm = output;
      part.ofm.offset = output.offset + static_cast<std::uint32_t>(r.first) * output.strideY +
                        static_cast<std::uint32_t>(c.first) * output.strideX;
      part.ofm.h = r.count;
      part.ofm.w = c.count;
      ops.push_back(std::move(part));
    }
  }
  // Several operations write the output, so a following TABLE runs as its own operation.
  views[finalName] = output;
  return {};
}

}  // namespace openvgf::converter::ethosu
