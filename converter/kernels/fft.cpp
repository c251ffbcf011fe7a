// SPDX-License-Identifier: Apache-2.0
// FFT2D / RFFT2D family (shaders/fft.comp): a DFT pass along W into converter-made
// intermediates, then a pass along H into the outputs.
#include <fmt/format.h>

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

void addPass(LoweringContext& ctx, const std::string& name, std::vector<std::size_t> bindings, std::int64_t outer,
             std::int64_t len, std::int64_t inner, std::int64_t outLen, int sign, bool realInput) {
  ShaderDefines d;
  d.set("OUTER", outer).set("L", len).set("INNER", inner).set("OL", outLen).set("SIGN", sign).set("REAL_INPUT", realInput);
  d.set("WG_X", 64).set("EPT", 1);
  PlanKernel kernel;
  kernel.name = name;
  kernel.writes.assign(bindings.size(), false);
  kernel.writes[bindings.size() - 1] = true;
  kernel.writes[bindings.size() - 2] = true;
  kernel.bindings = std::move(bindings);
  kernel.grid = linearGrid((static_cast<std::uint64_t>(outer * outLen * inner) + 63) / 64, d);
  kernel.shader = ShaderInstance{"fft.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
}

Status lower(LoweringContext& ctx, const Node& node) {
  const bool real = node.op.op == Op::Rfft2d;
  const auto& attrs = std::get<tosa::FftAttrs>(node.op.attrs);
  const tosa::Tensor& input = ctx.tensor(node.op.inputs[0]);
  const tosa::Tensor& output = ctx.tensor(node.op.outputs[0]);
  if (input.shape.size() != 3 || output.shape.size() != 3) return invalidInput("{}: expected rank-3 tensors", nodeLabel(node));
  const std::int64_t n = input.shape[0], h = input.shape[1], w = input.shape[2], ow = output.shape[2];
  const int sign = attrs.inverse ? -1 : 1;
  const std::size_t tmpRe = ctx.addIntermediate(DType::Fp32, {n, h, ow});
  const std::size_t tmpIm = ctx.addIntermediate(DType::Fp32, {n, h, ow});
  std::vector<std::size_t> first;
  for (const auto& in : node.op.inputs) first.push_back(ctx.tensorId(in));
  first.push_back(tmpRe);
  first.push_back(tmpIm);
  const std::string name = fmt::format("{}_{}", tosa::toString(node.op.op), node.index);
  addPass(ctx, name + "_w", std::move(first), n * h, w, 1, ow, sign, real);
  addPass(ctx, name + "_h", {tmpRe, tmpIm, ctx.tensorId(node.op.outputs[0]), ctx.tensorId(node.op.outputs[1])}, n, h, ow,
          h, sign, false);
  return {};
}

}  // namespace

KernelSpec fftKernel() { return KernelSpec{"fft", {Op::Fft2d, Op::Rfft2d}, check, lower, nullptr}; }

}  // namespace openvgf::converter
