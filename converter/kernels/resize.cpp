// SPDX-License-Identifier: Apache-2.0
// RESIZE family (shaders/resize.comp): NEAREST and BILINEAR. The scale, offset and border
// CONST_SHAPE inputs are compiled into defines; the output size comes from the output
// tensor (the verifier checked it against the TOSA formula).
#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

using tosa::DType;

// Type rows of RESIZE (specs/tosa.md §2.3): integer NEAREST keeps the type, integer
// BILINEAR widens (INT8 -> INT32, INT16 -> INT48); floating point keeps the type.
bool supportedTypes(DType in, DType out, tosa::ResizeMode mode) {
  const bool bilinear = mode == tosa::ResizeMode::Bilinear;
  if (in == DType::Int8) return out == (bilinear ? DType::Int32 : DType::Int8);
  if (in == DType::Int16) return out == (bilinear ? DType::Int48 : DType::Int16);
  return (in == DType::Fp32 || in == DType::Fp16 || in == DType::Bf16) && out == in;
}

Status check(const LoweringContext& ctx, const Node& node) {
  const Program& p = ctx.program();
  if (node.op.inputs.size() != 4 || !std::holds_alternative<tosa::ResizeAttrs>(node.op.attrs)) {
    return invalidInput("{}: expected input, scale, offset, border and a ResizeAttribute",
                        describeOp(p, node.op, node.index));
  }
  const auto mode = std::get<tosa::ResizeAttrs>(node.op.attrs).mode;
  if (mode != tosa::ResizeMode::Nearest && mode != tosa::ResizeMode::Bilinear) {
    return unsupported("{}: expected mode NEAREST or BILINEAR, got {}", describeOp(p, node.op, node.index),
                       tosa::toString(mode));
  }
  if (!supportedTypes(ctx.tensor(node.op.inputs[0]).dtype, ctx.tensor(node.op.outputs[0]).dtype, mode)) {
    return unsupported("{}: expected a supported type combination", describeOp(p, node.op, node.index));
  }
  return {};
}

Result<std::vector<std::int64_t>> shapeValues(const LoweringContext& ctx, const Node& node, std::size_t input,
                                              std::string_view what, std::size_t count) {
  OPENVGF_ASSIGN_OR_RETURN(auto t, ctx.constantInput(node, input, what));
  if (static_cast<std::size_t>(t.size()) != count) {
    return invalidInput("{}: {}: expected {} values, got {}", nodeLabel(node), what, count, t.size());
  }
  std::vector<std::int64_t> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = constInt(t, i);
  return v;
}

Status lower(LoweringContext& ctx, const Node& node) {
  const bool bilinear = std::get<tosa::ResizeAttrs>(node.op.attrs).mode == tosa::ResizeMode::Bilinear;
  const tosa::Tensor& input = ctx.tensor(node.op.inputs[0]);
  const tosa::Tensor& output = ctx.tensor(node.op.outputs[0]);
  if (input.shape.size() != 4 || output.shape.size() != 4 || input.shape[0] != output.shape[0] ||
      input.shape[3] != output.shape[3]) {
    return invalidInput("{}: expected rank-4 NHWC input and output with equal N and C, got {} and {}",
                        nodeLabel(node), tosa::shapeToString(input.shape), tosa::shapeToString(output.shape));
  }
  OPENVGF_ASSIGN_OR_RETURN(auto scale, shapeValues(ctx, node, 1, "scale", 4));
  OPENVGF_ASSIGN_OR_RETURN(auto offset, shapeValues(ctx, node, 2, "offset", 2));
  // border only decides the output size, which the output tensor already carries.
  OPENVGF_ASSIGN_OR_RETURN(auto border, shapeValues(ctx, node, 3, "border", 2));
  for (std::size_t i = 0; i < 4; ++i) {
    if (scale[i] <= 0 || scale[i] > 4096) {
      return invalidInput("{}: scale[{}]: expected 1..4096, got {}", nodeLabel(node), i, scale[i]);
    }
  }
  const std::int64_t ih = input.shape[1], iw = input.shape[2];
  const std::int64_t oh = output.shape[1], ow = output.shape[2];
  if ((oh - 1) * scale[1] != (ih - 1) * scale[0] - offset[0] + border[0] ||
      (ow - 1) * scale[3] != (iw - 1) * scale[2] - offset[1] + border[1]) {
    return invalidInput("{}: output {}: expected the size given by scale, offset and border", nodeLabel(node),
                        tosa::shapeToString(output.shape));
  }

  ShaderDefines d;
  d.set("BATCH", input.shape[0])
      .set("IH", ih)
      .set("IW", iw)
      .set("C", input.shape[3])
      .set("OH", oh)
      .set("OW", ow);
  d.set("YN", scale[0]).set("YD", scale[1]).set("XN", scale[2]).set("XD", scale[3]);
  d.set("OFF_Y", offset[0]).set("OFF_X", offset[1]).set("BILINEAR", bilinear);
  const bool fp = tosa::isFloat(input.dtype);
  d.set("FLOAT_T", fp);
  setBufferType(d, "IN", input.dtype);
  setBufferType(d, "OUT", output.dtype);
  d.setCode("ACC_CT", output.dtype == DType::Int48 ? "int64_t" : fp ? "float" : "int");
  if (input.dtype == DType::Fp16) {
    d.setCode("RT_ROUND(x)", "ld_f16(st_f16(x))");
  } else if (input.dtype == DType::Bf16) {
    d.setCode("RT_ROUND(x)", "ld_bf16(st_bf16(x))");
  } else {
    d.setCode("RT_ROUND(x)", "(x)");
  }
  d.set("WG_X", ctx.target().tuning.elementwiseWg).set("EPT", ctx.target().tuning.elementsPerInvocation);

  PlanKernel kernel;
  kernel.name = fmt::format("RESIZE_{}", node.index);
  kernel.bindings = {ctx.tensorId(node.op.inputs[0]), ctx.tensorId(node.op.outputs[0])};
  kernel.writes = {false, true};
  const std::uint64_t perGroup = static_cast<std::uint64_t>(ctx.target().tuning.elementwiseWg) *
                                 static_cast<std::uint64_t>(ctx.target().tuning.elementsPerInvocation);
  kernel.grid =
      linearGrid((static_cast<std::uint64_t>(tosa::elementCount(output.shape)) + perGroup - 1) / perGroup, d);
  kernel.shader = ShaderInstance{"resize.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
  return {};
}

}  // namespace

KernelSpec resizeKernel() {
  return KernelSpec{"resize", {tosa::Op::Resize}, check, lower, nullptr};
}

}  // namespace openvgf::converter
