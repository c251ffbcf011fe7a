// SPDX-License-Identifier: Apache-2.0
// Elementwise operators as GLSL: each operator of a chain becomes a call of a function or
// macro of shaders/include/ew_ops.glsl (and clamp / cast / rescale / table.glsl) on the
// expressions of its inputs. Used by the elementwise family and by every fused epilogue;
// which operators are elementwise is the operator table's (tosa::isElementwise).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "converter/plan.h"
#include "tosa/graph.h"

namespace openvgf::converter {

/// Inputs of an elementwise operator that are data tensors (others are CTC parameters).
std::vector<std::size_t> dataInputs(const tosa::Operator& op);
/// Checks the type combination of an elementwise operator.
Status checkElementwiseTypes(const LoweringContext& ctx, const tosa::Operator& op, std::size_t opIndex);

/// `expr`, an fp32 compute value, rounded to the floating-point type `out` and widened back
/// (unchanged for FP32 and non-float types), so that a fused chain sees the values separate
/// kernels would have stored.
std::string roundToType(tosa::DType out, const std::string& expr);

/// Per-channel RESCALE tables of a kernel with run-time shapes (Tuning::runtimeShapes), kept
/// after its other parameters so that the offsets the code names do not depend on channel
/// counts: `data` holds the tables, each of `slots` is the entry of `params` that holds a
/// table's start in `data`, which placeTables turns into its place in the whole buffer.
struct ParamTables {
  std::vector<std::int32_t> data;
  std::vector<std::size_t> slots;
};
/// Appends `tables` to `params` and points each slot at its table.
void placeTables(std::vector<std::int32_t>& params, const ParamTables& tables);

/// One elementwise operator as a GLSL expression in the compute type of its output.
/// `args[i]` is the expression of data input dataInputs(op)[i]; `decls` collects global
/// declarations (RESCALE and INT16 TABLE functions) named with `uid`. Per-channel RESCALE
/// multipliers and shifts and TABLE entries are appended to `params` and read from the
/// kernel's parameter buffer (`ovgf_params`, see bindParams): constant arrays indexed at run
/// time take lavapipe's shader compiler seconds per kernel, and literal tables would make
/// every layer's module unique. With run-time shapes, RESCALE's scales are all read from
/// there (per-tensor ones too), per-channel ones as (multiplier, shift) pairs, in `tables`
/// where the caller gives it (placeTables). `runtimeZeroPoints` (the standalone elementwise
/// kernel with run-time shapes) reads RESCALE's zero points from there too; kernels whose
/// epilogue this is keep them literal (their modules differ in shapes already, and the loads
/// would cost every GEMM's compile).
Result<std::string> elementwiseExpression(const LoweringContext& ctx, const tosa::Operator& op, std::size_t opIndex,
                                          const std::vector<std::string>& args, std::string& decls,
                                          std::vector<std::int32_t>& params, int uid, ParamTables* tables = nullptr,
                                          bool runtimeZeroPoints = false);

}  // namespace openvgf::converter
