// SPDX-License-Identifier: Apache-2.0
// FFT2D / RFFT2D family (shaders/fft.comp): a radix-2 FFT along W into converter-made
// intermediates (RFFT2D: a half-length complex FFT of the packed real row), then one along
// H into the outputs. Each axis is one shared-memory kernel
// when a line fits in shared memory (2048 points on the portable target), else global
// butterfly stages on a scratch copy first until the remaining segments fit. The twiddle
// tables are constants computed here in double precision.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>

#include "converter/kernels/common.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

using tosa::DType;
using tosa::Op;

Status check(const LoweringContext& ctx, const Node& node) {
  const Program& p = ctx.program();
  const bool real = node.op.op == Op::Rfft2d;
  bool ok = node.op.inputs.size() == (real ? 1u : 2u) && node.op.outputs.size() == 2;
  for (const auto& n : node.op.inputs) ok = ok && ctx.tensor(n).dtype == DType::Fp32;
  for (const auto& n : node.op.outputs) ok = ok && ctx.tensor(n).dtype == DType::Fp32;
  if (!ok || !std::holds_alternative<tosa::FftAttrs>(node.op.attrs)) {
    return unsupported("{}: expected a supported type combination", describeOp(p, node.op, node.index));
  }
  return {};
}

// tw[k] = (cos, sin)(2*pi*k/length) for k < length/2 (one entry for length 1). The angle
// is reduced to the first octant so that the double evaluation is as exact as it gets and
// quarter turns (k = length/4) are exactly (0, 1).
std::vector<std::uint8_t> twiddles(std::int64_t length) {
  const std::int64_t count = std::max<std::int64_t>(length / 2, 1);
  std::vector<float> values(static_cast<std::size_t>(2 * count));
  for (std::int64_t k = 0; k < count; ++k) {
    double c = 1.0, s = 0.0;
    if (k != 0) {
      // 8k/length in [0, 4): the octant; the remainder in units of a turn.
      const std::int64_t eighth = length / 8;  // 0 for lengths below 8
      if (eighth > 0 && k % eighth == 0) {
        const std::int64_t octant = k / eighth;  // 1..3
        const double r = std::numbers::sqrt2 / 2.0;
        c = octant == 1 ? r : (octant == 2 ? 0.0 : -r);
        s = octant == 2 ? 1.0 : r;
      } else if (4 * k == length) {
        c = 0.0, s = 1.0;
      } else {
        // Below a quarter turn evaluate directly; above it, use cos(pi - a) = -cos(a).
        const bool upper = 4 * k > length;
        const std::int64_t kk = upper ? length / 2 - k : k;
        const double angle = 2.0 * std::numbers::pi * static_cast<double>(kk) / static_cast<double>(length);
        c = upper ? -std::cos(angle) : std::cos(angle);
        s = std::sin(angle);
      }
    }
    values[static_cast<std::size_t>(2 * k)] = static_cast<float>(c);
    values[static_cast<std::size_t>(2 * k + 1)] = static_cast<float>(s);
  }
  std::vector<std::uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::int64_t log2Of(std::int64_t v) {
  return std::countr_zero(static_cast<std::uint64_t>(v));
}

// One axis: lines (outer, inner) of length `length`, stride `inner`, into lines of
// `outLength` bins. `inputs` holds the real (and unless `realInput` the imaginary) input.
struct Axis {
  std::string name;
  std::vector<std::size_t> inputs;
  std::size_t outRe = 0, outIm = 0;
  std::int64_t outer = 1, length = 1, inner = 1, outLength = 1;
  bool realInput = false;
};

void setShape(ShaderDefines& d, const Axis& axis, bool forward) {
  d.set("OUTER", axis.outer).set("L", axis.length).set("LOG2L", log2Of(axis.length)).set("INNER", axis.inner);
  d.set("OL", axis.outLength).set("FORWARD", forward);
}

PlanKernel kernelFor(std::string name, std::vector<std::size_t> bindings, std::size_t writes) {
  PlanKernel kernel;
  kernel.name = std::move(name);
  kernel.writes.assign(bindings.size(), false);
  for (std::size_t i = bindings.size() - writes; i < bindings.size(); ++i) kernel.writes[i] = true;
  kernel.bindings = std::move(bindings);
  return kernel;
}

void lowerAxis(LoweringContext& ctx, Axis axis, bool forward) {
  const Target& target = ctx.target();
  const std::int64_t capacity = std::max(target.caps.maxSharedBytes / 8, 1);  // complex fp32 points
  const auto points = static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(capacity)));
  const std::int64_t segment = std::min(axis.length, points);
  const std::int64_t lines = axis.outer * axis.inner;
  const std::size_t table =
      ctx.addConstant(DType::Fp32, {std::max<std::int64_t>(axis.length / 2, 1), 2}, twiddles(axis.length));

  // RFFT2D rows that fit: a real row of W points is transformed as W/2 complex points
  // (even + i*odd) and separated afterwards, half the butterflies of a complex FFT.
  if (axis.realInput && axis.inner == 1 && axis.length >= 4 && axis.length / 2 <= points) {
    const std::int64_t half = axis.length / 2;
    const std::int64_t lpw =
        std::clamp<std::int64_t>(std::min(std::max<std::int64_t>(8, 128 / half), capacity / half), 1,
                                 std::max<std::int64_t>(lines, 1));
    const int wg = static_cast<int>(std::clamp<std::int64_t>(lpw * half / 2, 32, target.caps.maxInvocations));
    ShaderDefines d;
    d.set("OUTER", axis.outer)
        .set("L", half)
        .set("LOG2L", log2Of(half))
        .set("INNER", 1)
        .set("OL", axis.outLength);
    d.set("FORWARD", forward).set("MODE", 0).set("STAGE", 0).set("WG_X", wg).set("REAL_INPUT", true);
    d.set("IN_PLACE", false)
        .set("M", half)
        .set("LOG2M", log2Of(half))
        .set("LPW", lpw)
        .set("PACKED_REAL", true);
    d.set("TW_STEP", 2);
    std::vector<std::size_t> bindings = axis.inputs;
    bindings.push_back(table);
    bindings.push_back(axis.outRe);
    bindings.push_back(axis.outIm);
    PlanKernel kernel = kernelFor(axis.name, std::move(bindings), 2);
    kernel.grid = linearGrid(ceilDiv(static_cast<std::uint64_t>(lines), static_cast<std::uint64_t>(lpw)), d);
    kernel.shader = ShaderInstance{"fft.comp", std::move(d)};
    ctx.addKernel(std::move(kernel));
    return;
  }

  // Global stages until the segments fit, on a scratch copy (the inputs stay untouched).
  const std::int64_t globalStages = log2Of(axis.length) - log2Of(segment);
  if (globalStages > 0) {
    const std::size_t scratchRe = ctx.addIntermediate(DType::Fp32, {axis.outer, axis.length, axis.inner});
    const std::size_t scratchIm = ctx.addIntermediate(DType::Fp32, {axis.outer, axis.length, axis.inner});
    const int wg = std::min(256, target.caps.maxInvocations);
    // Two stages per dispatch (radix-4) while two remain, then a last single one.
    for (std::int64_t stage = 0; stage < globalStages;) {
      const bool radix4 = globalStages - stage >= 2;
      ShaderDefines d;
      setShape(d, axis, forward);
      d.set("MODE", 1).set("STAGE", stage).set("WG_X", wg).set("REAL_INPUT", stage == 0 && axis.realInput);
      d.set("IN_PLACE", stage > 0).set("M", segment).set("LOG2M", log2Of(segment)).set("LPW", 1);
      d.set("RADIX4", radix4);
      std::vector<std::size_t> bindings;
      if (stage == 0) bindings = axis.inputs;
      bindings.push_back(table);
      bindings.push_back(scratchRe);
      bindings.push_back(scratchIm);
      PlanKernel kernel = kernelFor(fmt::format("{}_stage{}", axis.name, stage), std::move(bindings), 2);
      const auto invocations = static_cast<std::uint64_t>(lines * (axis.length / (radix4 ? 4 : 2)));
      kernel.grid = linearGrid(ceilDiv(invocations, static_cast<std::uint64_t>(wg)), d);
      kernel.shader = ShaderInstance{"fft.comp", std::move(d)};
      ctx.addKernel(std::move(kernel));
      stage += radix4 ? 2 : 1;
    }
    axis.inputs = {scratchRe, scratchIm};
    axis.realInput = false;
  }

  // Lines per workgroup: at least 8 (more for short lines), so that a workgroup has enough
  // work (on lavapipe a 256x256 row pass ran 1.6x faster with 8 lines per workgroup than
  // with one) and a column pass reads neighbouring columns together; bounded by shared
  // memory and by the number of lines.
  const std::int64_t wanted = std::max<std::int64_t>(8, 128 / segment);
  const std::int64_t lpw =
      std::clamp<std::int64_t>(std::min(wanted, capacity / segment), 1, std::max<std::int64_t>(lines, 1));
  const int wg =
      static_cast<int>(std::clamp<std::int64_t>(lpw * segment / 2, 32, target.caps.maxInvocations));
  ShaderDefines d;
  setShape(d, axis, forward);
  d.set("MODE", 0).set("STAGE", 0).set("WG_X", wg).set("REAL_INPUT", axis.realInput).set("IN_PLACE", false);
  d.set("M", segment).set("LOG2M", log2Of(segment)).set("LPW", lpw);
  std::vector<std::size_t> bindings = axis.inputs;
  bindings.push_back(table);
  bindings.push_back(axis.outRe);
  bindings.push_back(axis.outIm);
  PlanKernel kernel = kernelFor(axis.name, std::move(bindings), 2);
  const std::uint64_t segments = static_cast<std::uint64_t>(axis.length / segment);
  kernel.grid =
      linearGrid(ceilDiv(static_cast<std::uint64_t>(lines), static_cast<std::uint64_t>(lpw)) * segments, d);
  kernel.shader = ShaderInstance{"fft.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
}

Status lower(LoweringContext& ctx, const Node& node) {
  const bool real = node.op.op == Op::Rfft2d;
  const auto& attrs = std::get<tosa::FftAttrs>(node.op.attrs);
  const tosa::Tensor& input = ctx.tensor(node.op.inputs[0]);
  const tosa::Tensor& output = ctx.tensor(node.op.outputs[0]);
  if (input.shape.size() != 3 || output.shape.size() != 3)
    return invalidInput("{}: expected rank-3 tensors", nodeLabel(node));
  const std::int64_t n = input.shape[0], h = input.shape[1], w = input.shape[2], ow = output.shape[2];
  if (!std::has_single_bit(static_cast<std::uint64_t>(h)) ||
      !std::has_single_bit(static_cast<std::uint64_t>(w))) {
    return invalidInput("{}: input {}: expected H and W to be powers of two", nodeLabel(node),
                        tosa::shapeToString(input.shape));
  }
  if (ow != (real ? w / 2 + 1 : w) || output.shape[0] != n || output.shape[1] != h) {
    return invalidInput("{}: output {}: expected [{},{},{}]", nodeLabel(node),
                        tosa::shapeToString(output.shape), n, h, real ? w / 2 + 1 : w);
  }
  const bool forward = !attrs.inverse;
  const std::string name = fmt::format("{}_{}", tosa::toString(node.op.op), node.index);

  Axis rows;
  rows.name = name + "_w";
  for (const auto& in : node.op.inputs) rows.inputs.push_back(ctx.tensorId(in));
  rows.outRe = ctx.addIntermediate(DType::Fp32, {n, h, ow});
  rows.outIm = ctx.addIntermediate(DType::Fp32, {n, h, ow});
  rows.outer = n * h;
  rows.length = w;
  rows.inner = 1;
  rows.outLength = ow;
  rows.realInput = real;
  const std::size_t tmpRe = rows.outRe, tmpIm = rows.outIm;
  lowerAxis(ctx, std::move(rows), forward);

  Axis columns;
  columns.name = name + "_h";
  columns.inputs = {tmpRe, tmpIm};
  columns.outRe = ctx.tensorId(node.op.outputs[0]);
  columns.outIm = ctx.tensorId(node.op.outputs[1]);
  columns.outer = n;
  columns.length = h;
  columns.inner = ow;
  columns.outLength = h;
  lowerAxis(ctx, std::move(columns), forward);
  return {};
}

}  // namespace

KernelSpec fftKernel() {
  return KernelSpec{"fft", {Op::Fft2d, Op::Rfft2d}, check, lower, nullptr};
}

}  // namespace openvgf::converter
