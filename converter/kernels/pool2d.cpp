// SPDX-License-Identifier: Apache-2.0
// AVG_POOL2D / MAX_POOL2D family (shaders/pool2d.comp): channel-parallel output tiles;
// integer AVG_POOL2D divides with reciprocal_scale + apply_scale_32 as TOSA specifies.
#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/gemm_common.h"
#include "converter/kernels/registry.h"

namespace openvgf::converter {
namespace {

using tosa::DType;
constexpr int kOutputsPerInvocation = 4;

struct PoolGeometry {
  std::vector<std::int32_t> kernel, stride, pad;
};

PoolGeometry geometry(const Node& node) {
  if (node.op.op == tosa::Op::AvgPool2d) {
    const auto& a = std::get<tosa::AvgPool2dAttrs>(node.op.attrs);
    return {a.kernel, a.stride, a.pad};
  }
  const auto& a = std::get<tosa::MaxPool2dAttrs>(node.op.attrs);
  return {a.kernel, a.stride, a.pad};
}

Status check(const LoweringContext& ctx, const Node& node) {
  const Program& p = ctx.program();
  bool avg = node.op.op == tosa::Op::AvgPool2d;
  if ((avg && !std::holds_alternative<tosa::AvgPool2dAttrs>(node.op.attrs)) ||
      (!avg && !std::holds_alternative<tosa::MaxPool2dAttrs>(node.op.attrs))) {
    return invalidInput("{}: expected a pool attribute", describeOp(p, node.op, node.index));
  }
  auto g = geometry(node);
  if (g.kernel.size() != 2 || g.stride.size() != 2 || g.pad.size() != 4) {
    return invalidInput("{}: expected kernel[2], stride[2], pad[4]", describeOp(p, node.op, node.index));
  }
  DType in = ctx.tensor(node.op.inputs[0]).dtype, out = ctx.tensor(node.op.outputs[0]).dtype;
  bool ok = in == out && (in == DType::Int8 || in == DType::Int16 || in == DType::Fp16 || in == DType::Fp32 ||
                          in == DType::Bf16 || in == DType::Fp8E4M3 || in == DType::Fp8E5M2);
  if (!ok) return unsupported("{}: expected a supported type combination", describeOp(p, node.op, node.index));
  return {};
}

// Channels per invocation of the 16-byte MAX_POOL2D (POOL_VEC in shaders/pool2d.comp), 0 for
// the scalar kernel: float data stored as fp16 (8) or fp32 (4) in and out, a whole number of
// vectors per pixel and nothing fused, so the pooled vector is stored as it is.
int maxPoolVector(const LoweringContext& ctx, const Node& node) {
  const tosa::Tensor& input = ctx.tensor(node.op.inputs[0]);
  if (node.op.op != tosa::Op::MaxPool2d || !node.epilogue.empty() || !tosa::isFloat(input.dtype)) return 0;
  const DType stored = ctx.storedType(node.op.inputs[0]);
  if (stored != ctx.storedType(node.op.outputs[0])) return 0;
  const int width = stored == DType::Fp16 ? 8 : stored == DType::Fp32 ? 4 : 0;
  return width > 0 && input.shape.back() % width == 0 ? width : 0;
}

Status lower(LoweringContext& ctx, const Node& node) {
  const bool avg = node.op.op == tosa::Op::AvgPool2d;
  const auto g = geometry(node);
  const tosa::Tensor& input = ctx.tensor(node.op.inputs[0]);
  const tosa::Tensor& output = ctx.tensor(node.op.outputs[0]);
  if (input.shape.size() != 4 || output.shape.size() != 4) return invalidInput("{}: expected rank-4 tensors", nodeLabel(node));
  const std::int64_t batch = input.shape[0], c = input.shape[3], oh = output.shape[1], ow = output.shape[2];
  const bool fp = tosa::isFloat(input.dtype);
  ShaderDefines d;
  d.set("POOL_MAX", !avg).set("BATCH", batch).set("IH", input.shape[1]).set("IW", input.shape[2]).set("C", c);
  d.set("OH", oh).set("OW", ow).set("KH", g.kernel[0]).set("KW", g.kernel[1]);
  d.set("STRIDE_Y", g.stride[0]).set("STRIDE_X", g.stride[1]).set("PAD_T", g.pad[0]).set("PAD_L", g.pad[2]);
  d.set("IS_FLOAT", fp);
  setBufferType(d, "IN", ctx.storedType(node.op.inputs[0]));
  std::string accCompute;
  if (avg) {
    const auto& attrs = std::get<tosa::AvgPool2dAttrs>(node.op.attrs);
    if (fp) {
      d.setCode("A_CT", "float").setCode("ACC_CT", "float");
      if (attrs.accType == DType::Fp16) d.setCode("ACC_RND(x)", "ovgf_round_fp16(x)");
      accCompute = "float";
    } else {
      OPENVGF_ASSIGN_OR_RETURN(std::int64_t inZp, zeroPoint(ctx, node, 1));
      OPENVGF_ASSIGN_OR_RETURN(std::int64_t outZp, zeroPoint(ctx, node, 2));
      auto [lo, hi] = intRange(output.dtype);
      d.setCode("A_CT", "int").setCode("ACC_CT", "int").set("IN_ZP", inZp).set("OUT_ZP", outZp);
      d.set("OUT_MIN", lo).set("OUT_MAX", hi);
      accCompute = "int";
    }
  } else {
    const auto& attrs = std::get<tosa::MaxPool2dAttrs>(node.op.attrs);
    const char* ct = fp ? "float" : "int";
    d.setCode("A_CT", ct).setCode("ACC_CT", ct).set("NAN_IGNORE", attrs.nanMode == tosa::NanMode::Ignore);
    accCompute = ct;
  }
  const int wg = c >= 64 ? 64 : 32;
  d.set("WG_X", wg).set("OXT", kOutputsPerInvocation);
  const int vectorWidth = maxPoolVector(ctx, node);
  if (vectorWidth > 0) d.set("POOL_VEC", vectorWidth);
  PlanKernel kernel;
  kernel.name = fmt::format("{}_{}", tosa::toString(node.op.op), node.index);
  kernel.bindings = {ctx.tensorId(node.op.inputs[0])};
  kernel.writes = {false};
  OPENVGF_TRY(buildEpilogue(ctx, node, accCompute, d, kernel));
  if (vectorWidth > 0) {
    const auto invocations = static_cast<std::uint64_t>(c / vectorWidth * ow);
    kernel.grid = {ceilDiv(invocations, static_cast<std::uint64_t>(wg)), 1,
                   static_cast<std::uint32_t>(batch * oh)};
  } else {
    kernel.grid = {ceilDiv(static_cast<std::uint64_t>(c), static_cast<std::uint64_t>(wg)),
                   ceilDiv(static_cast<std::uint64_t>(ow), kOutputsPerInvocation),
                   static_cast<std::uint32_t>(batch * oh)};
  }
  // gl_WorkGroupID.z = b * OH + oy (pool2d.comp): the groups of image b read and write only it.
  if (!endsWithTranspose(node)) {
    kernel.batchGrid = batchGridOf(ctx, kernel, 2, batch, oh, 1, kernel.bindings[0], ctx.tensorId(node.output()));
  }
  kernel.shader = ShaderInstance{"pool2d.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
  return {};
}

}  // namespace

KernelSpec pool2dKernel() {
  return KernelSpec{"pool2d", {tosa::Op::AvgPool2d, tosa::Op::MaxPool2d}, check, lower, epilogueFusable,
                    KernelSpec::Storage::FirstInput};
}

}  // namespace openvgf::converter
