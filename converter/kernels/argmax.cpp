// SPDX-License-Identifier: Apache-2.0
// ARGMAX family (shaders/argmax.comp): workgroup-split scan of the reduced dim with a
// (value, first index) shared-memory tree.
#include <bit>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

using tosa::DType;

Status check(const LoweringContext& ctx, const Node& node) {
  const Program& p = ctx.program();
  DType in = ctx.tensor(node.op.inputs[0]).dtype, out = ctx.tensor(node.op.outputs[0]).dtype;
  bool ok = out == DType::Int32 && (in == DType::Int8 || in == DType::Int16 || in == DType::Fp16 || in == DType::Fp32 ||
                                    in == DType::Bf16 || in == DType::Fp8E4M3 || in == DType::Fp8E5M2);
  if (!ok || !std::holds_alternative<tosa::ArgMaxAttrs>(node.op.attrs)) {
    return unsupported("{}: expected a supported type combination", describeOp(p, node.op, node.index));
  }
  return {};
}

Status lower(LoweringContext& ctx, const Node& node) {
  const tosa::Tensor& input = ctx.tensor(node.op.inputs[0]);
  const auto& attrs = std::get<tosa::ArgMaxAttrs>(node.op.attrs);
  const auto rank = static_cast<std::int32_t>(input.shape.size());
  if (attrs.axis < 0 || attrs.axis >= rank) {
    return invalidInput("{}: axis: expected 0 <= axis < {}, got {}", nodeLabel(node), rank, attrs.axis);
  }
  std::int64_t outer = 1, inner = 1;
  for (std::int32_t d = 0; d < attrs.axis; ++d) outer *= input.shape[static_cast<std::size_t>(d)];
  for (std::int32_t d = attrs.axis + 1; d < rank; ++d) inner *= input.shape[static_cast<std::size_t>(d)];
  const std::int64_t kr = input.shape[static_cast<std::size_t>(attrs.axis)];
  const int threads = ctx.target().tuning.reduceThreads;
  int rx = inner > 1 ? static_cast<int>(std::min<std::uint64_t>(32, std::bit_ceil(static_cast<std::uint64_t>(inner)))) : 1;
  int ry = std::max(1, static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(threads / rx),
                                                                std::bit_ceil(static_cast<std::uint64_t>(kr)))));
  const bool fp = tosa::isFloat(input.dtype);
  ShaderDefines d;
  d.set("OUTER", outer).set("KR", kr).set("INNER", inner).set("RX", rx).set("RY", ry);
  setBufferType(d, "IN", input.dtype);
  d.setCode("A_CT", fp ? "float" : "int").set("IS_FLOAT", fp).set("NAN_IGNORE", attrs.nanMode == tosa::NanMode::Ignore);
  PlanKernel kernel;
  kernel.name = fmt::format("ARGMAX_{}", node.index);
  kernel.bindings = {ctx.tensorId(node.op.inputs[0]), ctx.tensorId(node.op.outputs[0])};
  kernel.writes = {false, true};
  kernel.grid = {ceilDiv(static_cast<std::uint64_t>(inner), static_cast<std::uint64_t>(rx)), static_cast<std::uint32_t>(std::min<std::int64_t>(outer, 65535)),
                 ceilDiv(static_cast<std::uint64_t>(outer), 65535)};
  kernel.shader = ShaderInstance{"argmax.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
  return {};
}

}  // namespace

KernelSpec argmaxKernel() { return KernelSpec{"argmax", {tosa::Op::ArgMax}, check, lower, nullptr}; }

}  // namespace openvgf::converter
