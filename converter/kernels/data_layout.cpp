// SPDX-License-Identifier: Apache-2.0
// Data-layout family (shaders/data_layout.comp): TRANSPOSE, SLICE, PAD, TILE, REVERSE,
// CONCAT and RESHAPE copies, each described as strided copy over an iteration space.
#include "converter/kernels/data_layout.h"

#include <cstring>

#include <fmt/format.h>

#include "converter/kernels/registry.h"

namespace openvgf::converter {

using tosa::DType;
using tosa::Op;

std::vector<std::int64_t> rowMajorStrides(const tosa::Shape& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

namespace {

constexpr std::size_t kMaxCopyRank = 8;

// Drops size-1 dims and merges neighbours that are contiguous in source and destination.
void simplify(CopySpec& s) {
  CopySpec out = s;
  out.dims.clear(); out.srcStride.clear(); out.dstStride.clear(); out.lo.clear(); out.lim.clear();
  for (std::size_t d = 0; d < s.dims.size(); ++d) {
    if (s.dims[d] == 1 && !s.padMode) continue;
    if (!out.dims.empty() && !s.padMode && out.srcStride.back() == s.srcStride[d] * s.dims[d] &&
        out.dstStride.back() == s.dstStride[d] * s.dims[d]) {
      out.dims.back() *= s.dims[d];
      out.srcStride.back() = s.srcStride[d];
      out.dstStride.back() = s.dstStride[d];
      continue;
    }
    out.dims.push_back(s.dims[d]);
    out.srcStride.push_back(s.srcStride[d]);
    out.dstStride.push_back(s.dstStride[d]);
    if (s.padMode) {
      out.lo.push_back(s.lo[d]);
      out.lim.push_back(s.lim[d]);
    }
  }
  if (out.dims.empty()) {
    out.dims = {1};
    out.srcStride = {0};
    out.dstStride = {0};
  }
  s = std::move(out);
}

}  // namespace

Status addCopyKernel(LoweringContext& ctx, const std::string& name, DType dtype, CopySpec spec, std::size_t src,
                     std::size_t dst) {
  simplify(spec);
  if (spec.dims.size() > kMaxCopyRank) {
    return unsupported("{}: copy needs {} dims after simplification, at most {} supported", name, spec.dims.size(), kMaxCopyRank);
  }
  auto info = typeInfo(dtype);
  if (!info) return unsupported("{}: type {} has no storage", name, tosa::toString(dtype));
  ShaderDefines d;
  std::int64_t total = 1;
  for (auto v : spec.dims) total *= v;
  d.set("RANK", static_cast<std::int64_t>(spec.dims.size())).set("TOTAL", total).setCode("ETYPE", info->rawBits);
  d.set("SRC_BASE", spec.srcBase).set("DST_BASE", spec.dstBase);
  for (std::size_t i = 0; i < spec.dims.size(); ++i) {
    d.set(fmt::format("D{}", i), spec.dims[i]);
    d.set(fmt::format("SRC_S{}", i), spec.srcStride[i]);
    d.set(fmt::format("DST_S{}", i), spec.dstStride[i]);
    if (spec.padMode) {
      d.set(fmt::format("LO{}", i), spec.lo[i]);
      d.set(fmt::format("LIM{}", i), spec.lim[i]);
    }
  }
  if (spec.padMode) {
    d.set("PAD_MODE", 1);
    d.setCode("PAD_BITS", fmt::format("{}u{}", spec.padBits, storageBytes(dtype) == 8 ? "l" : ""));
  }
  d.set("WG_X", ctx.target().tuning.elementwiseWg).set("EPT", ctx.target().tuning.elementsPerInvocation);
  PlanKernel kernel;
  kernel.name = name;
  kernel.bindings = {src, dst};
  kernel.writes = {false, true};
  const std::uint64_t perGroup = static_cast<std::uint64_t>(ctx.target().tuning.elementwiseWg) *
                                 static_cast<std::uint64_t>(ctx.target().tuning.elementsPerInvocation);
  kernel.grid = linearGrid((static_cast<std::uint64_t>(total) + perGroup - 1) / perGroup, d);
  kernel.shader = ShaderInstance{"data_layout.comp", std::move(d)};
  ctx.addKernel(std::move(kernel));
  return {};
}

namespace {

Result<std::vector<std::int64_t>> shapeInput(const LoweringContext& ctx, const Node& node, std::size_t i, std::string_view what) {
  OPENVGF_ASSIGN_OR_RETURN(auto t, ctx.constantInput(node, i, what));
  std::vector<std::int64_t> v;
  for (std::int64_t k = 0; k < t.size(); ++k) v.push_back(constInt(t, static_cast<std::size_t>(k)));
  return v;
}

Status check(const LoweringContext& ctx, const Node& node) {
  const Program& p = ctx.program();
  DType in = ctx.tensor(node.op.inputs[0]).dtype, out = ctx.tensor(node.op.outputs[0]).dtype;
  if (in != out || !typeInfo(in)) {
    return unsupported("{}: expected a supported type combination", describeOp(p, node.op, node.index));
  }
  for (const auto& name : node.op.inputs) {
    if (node.op.op == Op::Concat && ctx.tensor(name).dtype != in) {
      return unsupported("{}: expected a supported type combination", describeOp(p, node.op, node.index));
    }
  }
  return {};
}

Status lower(LoweringContext& ctx, const Node& node) {
  const tosa::Tensor& input = ctx.tensor(node.op.inputs[0]);
  const tosa::Tensor& output = ctx.tensor(node.op.outputs[0]);
  const std::string name = fmt::format("{}_{}", tosa::toString(node.op.op), node.index);
  const std::size_t rank = input.shape.size();
  const auto inStride = rowMajorStrides(input.shape);
  const auto outStride = rowMajorStrides(output.shape);
  const std::size_t src = ctx.tensorId(node.op.inputs[0]);
  const std::size_t dst = ctx.tensorId(node.op.outputs[0]);
  CopySpec s;
  switch (node.op.op) {
    case Op::Reshape:
      s.dims = {tosa::elementCount(output.shape)};
      s.srcStride = {1};
      s.dstStride = {1};
      break;
    case Op::Transpose: {
      const auto& perms = std::get<tosa::TransposeAttrs>(node.op.attrs).perms;
      if (perms.size() != rank) return invalidInput("{}: perms: expected {} entries, got {}", nodeLabel(node), rank, perms.size());
      s.dims = output.shape;
      s.dstStride = outStride;
      for (std::size_t i = 0; i < rank; ++i) {
        auto pi = static_cast<std::size_t>(perms[i]);
        if (pi >= rank) return invalidInput("{}: perms[{}]: expected < {}, got {}", nodeLabel(node), i, rank, perms[i]);
        s.srcStride.push_back(inStride[pi]);
      }
      break;
    }
    case Op::Slice: {
      OPENVGF_ASSIGN_OR_RETURN(auto start, shapeInput(ctx, node, 1, "start"));
      if (start.size() != rank) return invalidInput("{}: start: expected {} values, got {}", nodeLabel(node), rank, start.size());
      s.dims = output.shape;
      s.dstStride = outStride;
      s.srcStride = inStride;
      for (std::size_t i = 0; i < rank; ++i) s.srcBase += start[i] * inStride[i];
      break;
    }
    case Op::Pad: {
      OPENVGF_ASSIGN_OR_RETURN(auto padding, shapeInput(ctx, node, 1, "padding"));
      if (padding.size() != 2 * rank) return invalidInput("{}: padding: expected {} values, got {}", nodeLabel(node), 2 * rank, padding.size());
      s.padMode = true;
      s.dims = output.shape;
      s.dstStride = outStride;
      s.srcStride = inStride;
      for (std::size_t i = 0; i < rank; ++i) {
        s.lo.push_back(padding[2 * i]);
        s.lim.push_back(input.shape[i]);
      }
      if (node.op.inputs.size() > 2) {
        OPENVGF_ASSIGN_OR_RETURN(auto pad, ctx.constantInput(node, 2, "pad_const"));
        std::size_t eb = tosa::hostElementBytes(pad.dtype);
        if (pad.bytes.size() >= eb) std::memcpy(&s.padBits, pad.bytes.data(), std::min<std::size_t>(eb, 8));
      }
      break;
    }
    case Op::Tile: {
      // out dim i = m_i x d_i: iterate [m_0, d_0, m_1, d_1, ...].
      for (std::size_t i = 0; i < rank; ++i) {
        std::int64_t m = output.shape[i] / input.shape[i];
        s.dims.push_back(m);
        s.srcStride.push_back(0);
        s.dstStride.push_back(input.shape[i] * outStride[i]);
        s.dims.push_back(input.shape[i]);
        s.srcStride.push_back(inStride[i]);
        s.dstStride.push_back(outStride[i]);
      }
      break;
    }
    case Op::Reverse: {
      const auto axis = static_cast<std::size_t>(std::get<tosa::AxisAttrs>(node.op.attrs).axis);
      if (axis >= rank) return invalidInput("{}: axis: expected < {}, got {}", nodeLabel(node), rank, axis);
      s.dims = input.shape;
      s.srcStride = inStride;
      s.dstStride = outStride;
      s.dstStride[axis] = -outStride[axis];
      s.dstBase = (input.shape[axis] - 1) * outStride[axis];
      break;
    }
    case Op::Concat: {
      const auto axis = static_cast<std::size_t>(std::get<tosa::AxisAttrs>(node.op.attrs).axis);
      if (axis >= output.shape.size()) return invalidInput("{}: axis: expected < {}, got {}", nodeLabel(node), output.shape.size(), axis);
      std::int64_t offset = 0;
      for (std::size_t j = 0; j < node.op.inputs.size(); ++j) {
        const tosa::Tensor& part = ctx.tensor(node.op.inputs[j]);
        CopySpec c;
        c.dims = part.shape;
        c.srcStride = rowMajorStrides(part.shape);
        c.dstStride = outStride;
        c.dstBase = offset * outStride[axis];
        offset += part.shape[axis];
        OPENVGF_TRY(addCopyKernel(ctx, fmt::format("{}_{}", name, j), part.dtype, std::move(c),
                                  ctx.tensorId(node.op.inputs[j]), dst));
      }
      return {};
    }
    default: return internalError("{}: not a data-layout operator", nodeLabel(node));
  }
  return addCopyKernel(ctx, name, input.dtype, std::move(s), src, dst);
}

}  // namespace

KernelSpec dataLayoutKernel() {
  return KernelSpec{"data_layout",
                    {Op::Transpose, Op::Slice, Op::Pad, Op::Tile, Op::Reverse, Op::Concat, Op::Reshape},
                    check,
                    lower,
                    nullptr};
}

}  // namespace openvgf::converter
