// SPDX-License-Identifier: Apache-2.0
// Pieces shared by the GEMM-shaped families (CONV2D, MATMUL, ...): type rules for
// (input, weight, output) triples and the tile choice per problem size.
#pragma once

#include <string>

#include "converter/kernels/common.h"

namespace openvgf::converter {

struct GemmTypes {
  std::string operand;      // A_CT: float or int
  std::string accumulator;  // ACC_CT: float, int or int64_t
};

/// Type rules of CONV2D / CONV3D / DEPTHWISE_CONV2D / TRANSPOSE_CONV2D / MATMUL
/// (specs/tosa.md §2.2); nullopt if the triple is not in any profile or extension.
std::optional<GemmTypes> gemmTypes(tosa::DType in, tosa::DType weight, tosa::DType out);

/// Tile for an M x N problem on the target (M or N <= 16: the small tile, transposed when N
/// is the small one; at least target.gemmLargeMinGroups large tiles: the large one).
GemmTile chooseTile(const Target& target, std::int64_t m, std::int64_t n);
void setTile(ShaderDefines& defines, const GemmTile& tile);

/// Binds the weight input of a conv-like node: a constant [OC, K...] tensor is stored
/// pre-transposed to [K][OC] (constant plan: coalesced B-tile loads) and W_KN=1 is set; a
/// run-time weight is bound as is with W_KN=0.
void bindWeightsKN(LoweringContext& ctx, const Node& node, std::size_t input, ShaderDefines& defines,
                   PlanKernel& kernel);

/// A zero-point CTC input as an integer (0 when absent or floating point).
Result<std::int64_t> zeroPoint(const LoweringContext& ctx, const Node& node, std::size_t input);

}  // namespace openvgf::converter
