// SPDX-License-Identifier: Apache-2.0
// REDUCE_* family (shaders/reduce.comp): [OUTER, KR, INNER] view, the reduced dim split
// across a workgroup and combined with subgroup arithmetic and a shared-memory tree. A
// reduction with an epilogue heads a row-wise chain (rowwise.h).
#include <bit>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/registry.h"
#include "converter/kernels/rowwise.h"

namespace openvgf::converter {
namespace {

using tosa::DType;
using tosa::Op;

Status check(const LoweringContext& ctx, const Node& node) {
  const Program& p = ctx.program();
  if (!std::holds_alternative<tosa::AxisAttrs>(node.op.attrs)) {
    return invalidInput("{}: expected an AxisAttribute", describeOp(p, node.op, node.index));
  }
  DType in = ctx.tensor(node.op.inputs[0]).dtype, out = ctx.tensor(node.op.outputs[0]).dtype;
  auto fail = [&]() -> Status { return unsupported("{}: expected a supported type combination", describeOp(p, node.op, node.index)); };
  if (in != out) return fail();
  bool fp = in == DType::Fp16 || in == DType::Fp32 || in == DType::Bf16;
  switch (node.op.op) {
    case Op::ReduceAll: case Op::ReduceAny: return in == DType::Bool ? Status{} : fail();
    case Op::ReduceMax: case Op::ReduceMin:
      return fp || in == DType::Int8 || in == DType::Int16 || in == DType::Int32 ? Status{} : fail();
    case Op::ReduceProduct: return fp ? Status{} : fail();
    case Op::ReduceSum: return fp || in == DType::Int32 ? Status{} : fail();
    default: return fail();
  }
}

Status lower(LoweringContext& ctx, const Node& node) {
  if (!node.epilogue.empty()) return lowerRowChain(ctx, node);
  const tosa::Tensor& input = ctx.tensor(node.op.inputs[0]);
  const tosa::Tensor& output = ctx.tensor(node.op.outputs[0]);
  const auto& attrs = std::get<tosa::AxisAttrs>(node.op.attrs);
  const auto rank = static_cast<std::int32_t>(input.shape.size());
  if (attrs.axis < 0 || attrs.axis >= rank) {
    return invalidInput("{}: axis: expected 0 <= axis < {}, got {}", nodeLabel(node), rank, attrs.axis);
  }
  std::int64_t outer = 1, inner = 1;
  for (std::int32_t d = 0; d < attrs.axis; ++d) outer *= input.shape[static_cast<std::size_t>(d)];
  for (std::int32_t d = attrs.axis + 1; d < rank; ++d) inner *= input.shape[static_cast<std::size_t>(d)];
  const std::int64_t kr = input.shape[static_cast<std::size_t>(attrs.axis)];

  const bool fp = tosa::isFloat(input.dtype);
  const bool ignore = attrs.nanMode == tosa::NanMode::Ignore;
  ShaderDefines d;
  std::string ct = fp ? "float" : "int";
  std::string init, op, sg;
  bool subgroup = true;
  switch (node.op.op) {
    case Op::ReduceSum: init = "0"; op = "((a) + (b))"; sg = "subgroupAdd"; break;
    case Op::ReduceProduct: init = "1"; op = "((a) * (b))"; sg = "subgroupMul"; break;
    case Op::ReduceAll: init = "1"; op = "min(a, b)"; sg = "subgroupMin"; break;
    case Op::ReduceAny: init = "0"; op = "max(a, b)"; sg = "subgroupMax"; break;
    case Op::ReduceMax:
    case Op::ReduceMin: {
      const bool isMax = node.op.op == Op::ReduceMax;
      if (fp) {
        // Subgroup min/max leave NaN handling undefined, so float uses the shared tree only.
        subgroup = false;
        init = ignore ? "kOvgfNan" : (isMax ? "(-kOvgfInf)" : "kOvgfInf");
        op = fmt::format("ovgf_{}_{}(a, b)", isMax ? "max" : "min", ignore ? "i" : "p");
      } else {
        auto [lo, hi] = intRange(input.dtype);
        init = glslInt(isMax ? lo : hi);
        op = isMax ? "max(a, b)" : "min(a, b)";
        sg = isMax ? "subgroupMax" : "subgroupMin";
      }
      break;
    }
    default: return internalError("{}: not a reduction", nodeLabel(node));
  }
  const int threads = ctx.target().tuning.reduceThreads;
  int rx = 1;
  if (inner > 1) rx = static_cast<int>(std::min<std::uint64_t>(32, std::bit_ceil(static_cast<std::uint64_t>(inner))));
  int ry = threads / rx;
  ry = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(ry), std::bit_ceil(static_cast<std::uint64_t>(kr))));
  ry = std::max(ry, 1);
  d.set("OUTER", outer).set("KR", kr).set("INNER", inner).set("RX", rx).set("RY", ry);
  setBufferType(d, "IN", input.dtype);
  setBufferType(d, "OUT", output.dtype);
  if (input.dtype == DType::Bool) d.setCode("OUT_ST", "st_bool_from_int");
  d.setCode("A_CT", ct).setCode("RED_INIT", init).setCode("RED_OP(a, b)", op);
  if (subgroup) d.set("USE_SUBGROUP", 1).setCode("SG_OP", sg);
  if (input.dtype == DType::Fp16) d.setCode("ACC_RND(x)", "ovgf_round_fp16(x)");
  PlanKernel kernel;
  kernel.name = fmt::format("{}_{}", tosa::toString(node.op.op), node.index);
  kernel.bindings = {ctx.tensorId(node.op.inputs[0]), ctx.tensorId(node.op.outputs[0])};
  kernel.writes = {false, true};
  kernel.grid = {ceilDiv(static_cast<std::uint64_t>(inner), static_cast<std::uint64_t>(rx)), static_cast<std::uint32_t>(std::min<std::int64_t>(outer, 65535)),
                 ceilDiv(static_cast<std::uint64_t>(outer), 65535)};
  kernel.shader = ShaderInstance{"reduce.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
  return {};
}

}  // namespace

KernelSpec reduceKernel() {
  return KernelSpec{"reduce",
                    {Op::ReduceAll, Op::ReduceAny, Op::ReduceMax, Op::ReduceMin, Op::ReduceProduct, Op::ReduceSum},
                    check,
                    lower,
                    nullptr};
}

}  // namespace openvgf::converter
