// SPDX-License-Identifier: Apache-2.0
// Shared type rules and tile choice of the GEMM-shaped kernel families.
#include "converter/kernels/gemm_common.h"

#include <cstring>
#include <utility>

namespace openvgf::converter {

using tosa::DType;

std::optional<GemmTypes> gemmTypes(DType in, DType weight, DType out) {
  if (in == DType::Int8 && (weight == DType::Int8 || weight == DType::Int4) && out == DType::Int32) {
    return GemmTypes{"int", "int"};
  }
  if (in == DType::Int16 && (weight == DType::Int8 || weight == DType::Int16) && out == DType::Int48) {
    return GemmTypes{"int", "int64_t"};
  }
  if (in == DType::Fp32 && weight == DType::Fp32 && out == DType::Fp32) return GemmTypes{"float", "float"};
  if (in == DType::Fp16 && weight == DType::Fp16 && (out == DType::Fp16 || out == DType::Fp32)) {
    return GemmTypes{"float", "float"};
  }
  if (in == DType::Bf16 && weight == DType::Bf16 && (out == DType::Bf16 || out == DType::Fp32)) {
    return GemmTypes{"float", "float"};
  }
  if ((in == DType::Fp8E4M3 || in == DType::Fp8E5M2) && weight == in && out == DType::Fp16) {
    return GemmTypes{"float", "float"};
  }
  return std::nullopt;
}

GemmTile chooseTile(const Target& target, std::int64_t m, std::int64_t n) {
  if (m <= 16 || n <= 16) {
    // The small tile is flat (few rows, many columns); a GEMM with few columns gets it
    // transposed so that its columns are not mostly padding.
    GemmTile t = target.gemmSmall;
    if (n <= 16 && m > 16 && t.bn > t.bm) {
      std::swap(t.bm, t.bn);
      std::swap(t.tm, t.tn);
    }
    return t;
  }
  if (target.gemmLargeMinGroups > 0) {
    const GemmTile& large = target.gemmLarge;
    const std::int64_t groups = ((m + large.bm - 1) / large.bm) * ((n + large.bn - 1) / large.bn);
    if (groups >= target.gemmLargeMinGroups) return large;
  }
  return target.gemm;
}

void setTile(ShaderDefines& defines, const GemmTile& tile) {
  defines.set("BM", tile.bm).set("BN", tile.bn).set("BK", tile.bk).set("TM", tile.tm).set("TN", tile.tn);
}

void bindWeightsKN(LoweringContext& ctx, const Node& node, std::size_t input, ShaderDefines& defines,
                   PlanKernel& kernel) {
  const std::string& name = node.op.inputs[input];
  const tosa::Tensor& weight = ctx.tensor(name);
  if (!ctx.program().isConstant(ctx.program().bufferOf(name))) {
    kernel.bindings.push_back(ctx.tensorId(name));
    kernel.writes.push_back(false);
    defines.set("W_KN", 0);
    return;
  }
  const tosa::Tensor& source = ctx.tensor(ctx.program().bufferOf(name));
  const std::size_t eb = tosa::hostElementBytes(weight.dtype);
  const std::int64_t oc = weight.shape[0];
  const std::int64_t k = tosa::elementCount(weight.shape) / oc;
  const auto& src = *source.data;
  std::vector<std::uint8_t> dst(static_cast<std::size_t>(k * oc) * eb);
  for (std::int64_t o = 0; o < oc; ++o) {
    for (std::int64_t j = 0; j < k; ++j) {
      std::memcpy(&dst[static_cast<std::size_t>(j * oc + o) * eb], &src[static_cast<std::size_t>(o * k + j) * eb], eb);
    }
  }
  kernel.bindings.push_back(ctx.addConstant(weight.dtype, {k, oc}, std::move(dst)));
  kernel.writes.push_back(false);
  defines.set("W_KN", 1);
}

Result<std::int64_t> zeroPoint(const LoweringContext& ctx, const Node& node, std::size_t input) {
  if (node.op.inputs.size() <= input) return std::int64_t{0};
  OPENVGF_ASSIGN_OR_RETURN(auto zp, ctx.constantInput(node, input, "zero point"));
  if (zp.size() == 0 || tosa::isFloat(zp.dtype)) return std::int64_t{0};
  return constInt(zp, 0);
}

}  // namespace openvgf::converter
