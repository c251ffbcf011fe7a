// SPDX-License-Identifier: Apache-2.0
// RESIZE family (shaders/resize.comp): scale/offset/border are compile-time constants.
#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

using tosa::DType;

Status check(const LoweringContext& ctx, const Node& node) {
  const Program& p = ctx.program();
  if (node.op.inputs.size() < 4 || !std::holds_alternative<tosa::ResizeAttrs>(node.op.attrs)) {
    return invalidInput("{}: expected input, scale, offset, border and a ResizeAttribute", describeOp(p, node.op, node.index));
  }
  const auto mode = std::get<tosa::ResizeAttrs>(node.op.attrs).mode;
  DType in = ctx.tensor(node.op.inputs[0]).dtype, out = ctx.tensor(node.op.outputs[0]).dtype;
  const bool bilinear = mode == tosa::ResizeMode::Bilinear;
  bool ok = false;
  if (in == DType::Int8) ok = out == (bilinear ? DType::Int32 : DType::Int8);
  if (in == DType::Int16) ok = out == (bilinear ? DType::Int48 : DType::Int16);
  if (in == DType::Fp16 || in == DType::Fp32 || in == DType::Bf16) ok = out == in;
  if (!ok || (mode != tosa::ResizeMode::Bilinear && mode != tosa::ResizeMode::Nearest)) {
    return unsupported("{}: expected a supported type combination", describeOp(p, node.op, node.index));
  }
  return {};
}

Result<std::vector<std::int64_t>> values(const LoweringContext& ctx, const Node& node, std::size_t i, const char* what,
                                         std::size_t count) {
  OPENVGF_ASSIGN_OR_RETURN(auto t, ctx.constantInput(node, i, what));
  if (static_cast<std::size_t>(t.size()) != count) {
    return invalidInput("{}: {}: expected {} values, got {}", nodeLabel(node), what, count, t.size());
  }
  std::vector<std::int64_t> v;
  for (std::size_t k = 0; k < count; ++k) v.push_back(constInt(t, k));
  return v;
}

Status lower(LoweringContext& ctx, const Node& node) {
  const tosa::Tensor& input = ctx.tensor(node.op.inputs[0]);
  const tosa::Tensor& output = ctx.tensor(node.op.outputs[0]);
  if (input.shape.size() != 4 || output.shape.size() != 4) return invalidInput("{}: expected rank-4 tensors", nodeLabel(node));
  OPENVGF_ASSIGN_OR_RETURN(auto scale, values(ctx, node, 1, "scale", 4));
  OPENVGF_ASSIGN_OR_RETURN(auto offset, values(ctx, node, 2, "offset", 2));
  for (std::int64_t s : scale) {
    if (s <= 0) return invalidInput("{}: scale: expected values > 0, got {}", nodeLabel(node), s);
  }
  const bool bilinear = std::get<tosa::ResizeAttrs>(node.op.attrs).mode == tosa::ResizeMode::Bilinear;
  const bool fp = tosa::isFloat(input.dtype);
  ShaderDefines d;
  d.set("BATCH", input.shape[0]).set("IH", input.shape[1]).set("IW", input.shape[2]).set("C", input.shape[3]);
  d.set("OH", output.shape[1]).set("OW", output.shape[2]);
  d.set("SCALE_YN", scale[0]).set("SCALE_YD", scale[1]).set("SCALE_XN", scale[2]).set("SCALE_XD", scale[3]);
  d.set("OFF_Y", offset[0]).set("OFF_X", offset[1]).set("BILINEAR", bilinear).set("IS_FLOAT", fp);
  setBufferType(d, "IN", input.dtype);
  setBufferType(d, "OUT", output.dtype);
  d.setCode("ACC_CT", fp ? "float" : output.dtype == DType::Int48 ? "int64_t" : "int");
  d.set("WG_X", ctx.target().elementwiseWg).set("EPT", ctx.target().elementsPerInvocation);
  PlanKernel kernel;
  kernel.name = fmt::format("RESIZE_{}", node.index);
  kernel.bindings = {ctx.tensorId(node.op.inputs[0]), ctx.tensorId(node.op.outputs[0])};
  kernel.writes = {false, true};
  const std::uint64_t perGroup =
      static_cast<std::uint64_t>(ctx.target().elementwiseWg) * static_cast<std::uint64_t>(ctx.target().elementsPerInvocation);
  kernel.grid = linearGrid((static_cast<std::uint64_t>(tosa::elementCount(output.shape)) + perGroup - 1) / perGroup, d);
  kernel.shader = ShaderInstance{"resize.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
  return {};
}

}  // namespace

KernelSpec resizeKernel() { return KernelSpec{"resize", {tosa::Op::Resize}, check, lower, nullptr}; }

}  // namespace openvgf::converter
