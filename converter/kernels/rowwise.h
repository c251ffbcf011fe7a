// SPDX-License-Identifier: Apache-2.0
// Row-wise chains (shaders/rowwise.comp): a REDUCE over the last axis as the anchor and,
// as its epilogue, the elementwise operators and further last-axis reductions that follow
// it (softmax, layer norm, RMS norm). One workgroup owns one row and keeps the row's
// values in registers, so the chain reads its inputs once and writes only its result.
// The fuse-rows pass builds the chains; the REDUCE family lowers a REDUCE node that has an
// epilogue with lowerRowChain.
#pragma once

#include "common/error.h"
#include "converter/plan.h"

namespace openvgf::converter {

/// Longest row a chain handles (values per invocation stay in registers).
inline constexpr std::int64_t kMaxRowLength = 4096;

/// Whether `node` can start a row-wise chain: a floating-point REDUCE_SUM / PRODUCT / MAX /
/// MIN over the last axis of a row of 2 to kMaxRowLength elements, with no epilogue yet.
bool rowChainSeed(const Program& program, const Node& node);
/// Whether `next` can join the chain `chain` (a seed with its epilogue so far): it reads the
/// chain's last result at `next.chainInput`; its output is a whole row or one value per row
/// of floating-point type; each other data input is a result of the chain, a tensor shaped
/// like the rows or like one value per row, a per-column tensor [1,...,1,N] or a scalar
/// constant; a REDUCE must reduce a whole-row result over the last axis.
bool rowStepFusable(const Program& program, const Node& chain, const FusedOp& next);
/// Lowers a REDUCE node whose epilogue fuse-rows filled.
Status lowerRowChain(LoweringContext& ctx, const Node& node);

}  // namespace openvgf::converter
