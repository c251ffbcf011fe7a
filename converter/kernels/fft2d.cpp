// SPDX-License-Identifier: Apache-2.0
// FFT2D / RFFT2D family (shaders/fft2d.comp): a row pass (input -> outputs, along W) and
// an in-place column pass (along H), each a radix-2 FFT of one line per workgroup in
// shared memory. The twiddle tables are constants computed here in double precision.
#include <fmt/format.h>

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
  if (node.op.inputs.size() != (real ? 1u : 2u) || node.op.outputs.size() != 2) {
    return invalidInput("{}: expected {} inputs and 2 outputs", describeOp(p, node.op, node.index),
                        real ? 1 : 2);
  }
  for (const auto& name : node.op.inputs) {
    if (ctx.tensor(name).dtype != DType::Fp32) {
      return unsupported("{}: expected FP32 tensors (EXT-FFT)", describeOp(p, node.op, node.index));
    }
  }
  for (const auto& name : node.op.outputs) {
    if (ctx.tensor(name).dtype != DType::Fp32) {
      return unsupported("{}: expected FP32 tensors (EXT-FFT)", describeOp(p, node.op, node.index));
    }
  }
  return {};
}

// tw[k] = (cos, sin)(2*pi*k/length) for k < length/2 (one entry for length 1).
std::vector<std::uint8_t> twiddles(std::int64_t length) {
  const std::int64_t count = std::max<std::int64_t>(length / 2, 1);
  std::vector<float> values(static_cast<std::size_t>(2 * count));
  for (std::int64_t k = 0; k < count; ++k) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(length);
    values[static_cast<std::size_t>(2 * k)] = static_cast<float>(std::cos(angle));
    values[static_cast<std::size_t>(2 * k + 1)] = static_cast<float>(std::sin(angle));
  }
  std::vector<std::uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

Status lower(LoweringContext& ctx, const Node& node) {
  const bool real = node.op.op == Op::Rfft2d;
  const bool inverse = !real && std::holds_alternative<tosa::FftAttrs>(node.op.attrs) &&
                       std::get<tosa::FftAttrs>(node.op.attrs).inverse;
  const tosa::Tensor& input = ctx.tensor(node.op.inputs[0]);
  if (input.shape.size() != 3) {
    return invalidInput("{}: input {}: expected [N,H,W]", nodeLabel(node), tosa::shapeToString(input.shape));
  }
  const std::int64_t n = input.shape[0], h = input.shape[1], w = input.shape[2];
  const std::int64_t outW = real ? w / 2 + 1 : w;
  if (!real && ctx.tensor(node.op.inputs[1]).shape != input.shape) {
    return invalidInput("{}: imaginary input: expected shape {}", nodeLabel(node),
                        tosa::shapeToString(input.shape));
  }
  for (const auto& name : node.op.outputs) {
    if (ctx.tensor(name).shape != tosa::Shape{n, h, outW}) {
      return invalidInput("{}: output '{}': expected shape [{},{},{}], got {}", nodeLabel(node), name, n, h,
                          outW, tosa::shapeToString(ctx.tensor(name).shape));
    }
  }
  if (!std::has_single_bit(static_cast<std::uint64_t>(h)) ||
      !std::has_single_bit(static_cast<std::uint64_t>(w))) {
    return invalidInput("{}: input {}: expected H and W to be powers of two", nodeLabel(node),
                        tosa::shapeToString(input.shape));
  }
  // A line and its imaginary part live in shared memory.
  const std::int64_t maxLine = ctx.target().maxSharedBytes / 8;
  if (h > maxLine || w > maxLine) {
    return unsupported("{}: input {}: expected H and W <= {} (shared memory of the target)", nodeLabel(node),
                       tosa::shapeToString(input.shape), maxLine);
  }
  const std::size_t outRe = ctx.tensorId(node.op.outputs[0]);
  const std::size_t outIm = ctx.tensorId(node.op.outputs[1]);
  const std::string name = fmt::format("{}_{}", tosa::toString(node.op.op), node.index);

  for (int pass = 0; pass < 2; ++pass) {
    const std::int64_t length = pass == 0 ? w : h;
    ShaderDefines d;
    d.set("PASS", pass).set("REAL", pass == 0 && real).set("INVERSE", inverse);
    d.set("BATCH", n).set("H", h).set("W", w).set("OUT_W", outW);
    d.set("L", length)
        .set("LOG2L", static_cast<std::int64_t>(std::countr_zero(static_cast<std::uint64_t>(length))));
    d.set("WG_X", std::min<std::int64_t>(std::max<std::int64_t>(length / 2, 1), ctx.target().maxInvocations));
    PlanKernel kernel;
    kernel.name = fmt::format("{}_{}", name, pass == 0 ? "rows" : "columns");
    if (pass == 0) {
      kernel.bindings.push_back(ctx.tensorId(node.op.inputs[0]));
      if (!real) kernel.bindings.push_back(ctx.tensorId(node.op.inputs[1]));
    }
    kernel.bindings.push_back(
        ctx.addConstant(DType::Fp32, {std::max<std::int64_t>(length / 2, 1), 2}, twiddles(length)));
    kernel.bindings.push_back(outRe);
    kernel.bindings.push_back(outIm);
    kernel.writes.assign(kernel.bindings.size(), false);
    kernel.writes[kernel.writes.size() - 2] = true;
    kernel.writes[kernel.writes.size() - 1] = true;
    kernel.grid = linearGrid(static_cast<std::uint64_t>(n * (pass == 0 ? h : outW)), d);
    kernel.shader = ShaderInstance{"fft2d.comp", std::move(d)};
    ctx.addKernel(std::move(kernel));
  }
  return {};
}

}  // namespace

KernelSpec fft2dKernel() {
  return KernelSpec{"fft2d", {Op::Fft2d, Op::Rfft2d}, check, lower, nullptr};
}

}  // namespace openvgf::converter
