// SPDX-License-Identifier: Apache-2.0
// Shared helpers of the kernel families: dispatch-grid arithmetic, operator descriptions for
// messages and the constant parameter buffer; plus, through the headers included here,
// element types (types.h), elementwise expressions (elementwise_ops.h) and fused epilogues
// (epilogue.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "converter/kernels/elementwise_ops.h"
#include "converter/kernels/epilogue.h"
#include "converter/kernels/types.h"
#include "converter/plan.h"
#include "converter/shader_defines.h"
#include "tosa/types.h"

namespace openvgf::converter {

/// Workgroup counts for `groups` linear workgroups folded into x <= 65535 (GRID_X define).
std::array<std::uint32_t, 3> linearGrid(std::uint64_t groups, ShaderDefines& defines);
std::uint32_t ceilDiv(std::uint64_t a, std::uint64_t b);

/// Binds `params` (if any) as a constant INT32 buffer after the kernel's other bindings and
/// sets PARAMS_BINDING, which declares `ovgf_params` (shaders/include/common.glsl).
void bindParams(LoweringContext& ctx, std::vector<std::int32_t> params, ShaderDefines& defines, PlanKernel& kernel);

/// A batch-major kernel's batch grid (vgf::SpirvBatchGrid, with `kernel.grid` as its
/// dispatch): along `axis`, image b owns units [b, b + 1) * unitsPerImage, in groups of
/// unitsPerGroup. The family states which tensors its groups touch only per image: `input`,
/// `output` and any other non-constant binding shaped like `output` (a fused residual); the
/// rest must be constants, read whole (the caller makes sure that weights and bias, which
/// are not read per image, are constants). nullopt when
/// a binding is neither, a per-image tensor does not hold `batch` images, the grid along
/// `axis` is not the units' groups, or the batch is 1.
std::optional<vgf::SpirvBatchGrid> batchGridOf(const LoweringContext& ctx, const PlanKernel& kernel,
                                               std::uint32_t axis, std::int64_t batch, std::int64_t unitsPerImage,
                                               std::int64_t unitsPerGroup, std::size_t input, std::size_t output);

/// "operators[3] CONV2D (INT8, INT8 -> INT32)" for messages.
std::string describeOp(const Program& program, const tosa::Operator& op, std::size_t index);

}  // namespace openvgf::converter
