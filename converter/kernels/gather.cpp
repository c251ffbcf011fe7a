// SPDX-License-Identifier: Apache-2.0
// GATHER / SCATTER family (shaders/gather.comp). SCATTER is two kernels: a copy of
// values_in into values_out (data_layout.comp), then the row writes.
#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/data_layout.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

using tosa::DType;
using tosa::Op;

Status check(const LoweringContext& ctx, const Node& node) {
  const Program& p = ctx.program();
  const bool scatter = node.op.op == Op::Scatter;
  if (node.op.inputs.size() != (scatter ? 3u : 2u)) return invalidInput("{}: wrong input count", describeOp(p, node.op, node.index));
  DType values = ctx.tensor(node.op.inputs[0]).dtype, indices = ctx.tensor(node.op.inputs[1]).dtype,
        out = ctx.tensor(node.op.outputs[0]).dtype;
  bool ok = values == out && indices == DType::Int32 && values != DType::Bool && typeInfo(values).has_value() &&
            values != DType::Int48 && values != DType::Int4;
  if (scatter) ok = ok && ctx.tensor(node.op.inputs[2]).dtype == values;
  return ok ? Status{} : unsupported("{}: expected a supported type combination", describeOp(p, node.op, node.index));
}

Status lower(LoweringContext& ctx, const Node& node) {
  const bool scatter = node.op.op == Op::Scatter;
  const tosa::Tensor& values = ctx.tensor(node.op.inputs[0]);
  const tosa::Tensor& indices = ctx.tensor(node.op.inputs[1]);
  const tosa::Tensor& output = ctx.tensor(node.op.outputs[0]);
  if (values.shape.size() != 3 || indices.shape.size() != 2) {
    return invalidInput("{}: expected values [N,K,C] and indices [N,W]", nodeLabel(node));
  }
  const std::int64_t n = values.shape[0], k = values.shape[1], c = values.shape[2], w = indices.shape[1];
  const std::string name = fmt::format("{}_{}", tosa::toString(node.op.op), node.index);
  const std::size_t dst = ctx.tensorId(node.op.outputs[0]);
  if (scatter) {
    CopySpec copy;
    copy.dims = {tosa::elementCount(output.shape)};
    copy.srcStride = {1};
    copy.dstStride = {1};
    OPENVGF_TRY(addCopyKernel(ctx, name + "_copy", values.dtype, std::move(copy), ctx.tensorId(node.op.inputs[0]), dst));
  }
  ShaderDefines d;
  d.set("SCATTER", scatter).set("BATCH", n).set("K", k).set("W", w).set("C", c);
  d.setCode("ETYPE", typeInfo(values.dtype)->rawBits);
  d.set("WG_X", ctx.target().tuning.elementwiseWg).set("EPT", ctx.target().tuning.elementsPerInvocation);
  PlanKernel kernel;
  kernel.name = name;
  kernel.bindings = {ctx.tensorId(node.op.inputs[scatter ? 2 : 0]), ctx.tensorId(node.op.inputs[1]), dst};
  kernel.writes = {false, false, true};
  const std::uint64_t perGroup = static_cast<std::uint64_t>(ctx.target().tuning.elementwiseWg) *
                                 static_cast<std::uint64_t>(ctx.target().tuning.elementsPerInvocation);
  kernel.grid = linearGrid((static_cast<std::uint64_t>(n * w * c) + perGroup - 1) / perGroup, d);
  kernel.shader = ShaderInstance{"gather.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
  return {};
}

}  // namespace

KernelSpec gatherKernel() { return KernelSpec{"gather", {Op::Gather, Op::Scatter}, check, lower, nullptr}; }

}  // namespace openvgf::converter
