// SPDX-License-Identifier: Apache-2.0
// Shared type rules and tile choice of the GEMM-shaped kernel families.
#include "converter/kernels/gemm_common.h"

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
  if (m <= 16 || n <= 16) return target.gemmSmall;
  return target.gemm;
}

void setTile(ShaderDefines& defines, const GemmTile& tile) {
  defines.set("BM", tile.bm).set("BN", tile.bn).set("BK", tile.bk).set("TM", tile.tm).set("TN", tile.tn);
}

Result<std::int64_t> zeroPoint(const LoweringContext& ctx, const Node& node, std::size_t input) {
  if (node.op.inputs.size() <= input) return std::int64_t{0};
  OPENVGF_ASSIGN_OR_RETURN(auto zp, ctx.constantInput(node, input, "zero point"));
  if (zp.size() == 0 || tosa::isFloat(zp.dtype)) return std::int64_t{0};
  return constInt(zp, 0);
}

}  // namespace openvgf::converter
