// SPDX-License-Identifier: Apache-2.0
// Fused epilogues of GEMM-like kernels (CONV2D, CONV3D, DEPTHWISE_CONV2D, TRANSPOSE_CONV2D,
// MATMUL, pools): the elementwise chain the fuse-epilogues pass attached to a node, applied
// to each accumulator before the store (shaders/include/epilogue.glsl).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "converter/plan.h"
#include "converter/shader_defines.h"

namespace openvgf::converter {

/// Sets NUM_EPI, EPI<k>_*, EPI_BODY, EW_DECLS, OUT_* and appends the extra input bindings;
/// `accCompute` is the compute type of `v`. Epilogue inputs must be indexed like the output
/// (same shape), per channel or be scalar constants. `params` are the kernel's own first entries
/// of its parameter buffer (run-time shapes, Tuning::runtimeShapes); the epilogue's follow them,
/// and the whole buffer is bound after the output (bindParams). `tableSlots`, when given,
/// receives the entries that hold the start of each per-channel table (ParamTables::slots).
Status buildEpilogue(LoweringContext& ctx, const Node& node, const std::string& accCompute,
                     ShaderDefines& defines, PlanKernel& kernel, std::vector<std::int32_t> params = {},
                     std::vector<std::size_t>* tableSlots = nullptr);
/// Whether `next` can join the epilogue of `node` (elementwise, extra inputs shaped like
/// the output or scalar constants, single-use intermediate).
bool epilogueFusable(const Program& program, const Node& node, const FusedOp& next);

/// Whether the epilogue ends with a fused TRANSPOSE (which moves where results are stored).
bool endsWithTranspose(const Node& node);
/// Whether the epilogue of `node` starts with an ADD of an fp32 tensor shaped like the fp32
/// output and reads no other tensor: the cooperative-matrix core can then start its
/// accumulators from that tensor (CoopMatPlan::residualAccumulators).
bool epilogueStartsWithResidualAdd(const Program& program, const Node& node);
/// Whether the epilogue of `node` computes each result from its accumulator alone: no
/// TRANSPOSE, float operators whose other inputs are scalar constants, except, with
/// `residualStarted`, the tensor its first operator adds (which the accumulators then hold).
/// Such an epilogue may run on a fragment's components, whatever their positions.
bool epilogueIsPerElement(const Program& program, const Node& node, bool residualStarted);

}  // namespace openvgf::converter
