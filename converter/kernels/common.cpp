// SPDX-License-Identifier: Apache-2.0
// Shared kernel helpers: dispatch grids, operator descriptions, the parameter buffer.
#include "converter/kernels/common.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace openvgf::converter {

using tosa::DType;

std::uint32_t ceilDiv(std::uint64_t a, std::uint64_t b) { return static_cast<std::uint32_t>((a + b - 1) / b); }

std::optional<vgf::SpirvBatchGrid> batchGridOf(const LoweringContext& ctx, const PlanKernel& kernel,
                                               std::uint32_t axis, std::int64_t batch, std::int64_t unitsPerImage,
                                               std::int64_t unitsPerGroup, std::size_t input, std::size_t output) {
  // A batch of one has no pieces to run apart: no record.
  if (batch < 2 || unitsPerImage < 1 || unitsPerGroup < 1 || axis > 2) return std::nullopt;
  vgf::SpirvBatchGrid grid;
  grid.dispatch = kernel.grid;
  grid.axis = axis;
  grid.images = static_cast<std::uint64_t>(batch);
  grid.unitsPerImage = static_cast<std::uint64_t>(unitsPerImage);
  grid.unitsPerGroup = static_cast<std::uint64_t>(unitsPerGroup);
  if (grid.groups() != kernel.grid[axis]) return std::nullopt;
  const tosa::Shape& outputShape = ctx.planTensor(output).shape;
  for (std::size_t b = 0; b < kernel.bindings.size(); ++b) {
    const std::size_t id = kernel.bindings[b];
    const PlanTensor& t = ctx.planTensor(id);
    const bool constant = t.category == vgf::ResourceCategory::Constant;
    if (id != input && id != output && (constant || t.shape != outputShape)) {
      if (!constant) return std::nullopt;
      continue;
    }
    if (t.shape.empty() || t.shape[0] != batch) return std::nullopt;
    grid.bindings.push_back(static_cast<std::uint32_t>(b));
  }
  return grid;
}

std::array<std::uint32_t, 3> linearGrid(std::uint64_t groups, ShaderDefines& defines) {
  groups = std::max<std::uint64_t>(groups, 1);
  std::uint32_t x = static_cast<std::uint32_t>(std::min<std::uint64_t>(groups, 65535));
  std::uint32_t y = ceilDiv(groups, x);
  defines.set("GRID_X", static_cast<std::int64_t>(x));
  return {x, y, 1};
}

std::string describeOp(const Program& program, const tosa::Operator& op, std::size_t index) {
  std::vector<std::string> in, out;
  for (const auto& n : op.inputs) {
    const tosa::Tensor* t = program.find(n);
    in.emplace_back(t ? tosa::toString(t->dtype) : "?");
  }
  for (const auto& n : op.outputs) {
    const tosa::Tensor* t = program.find(n);
    out.emplace_back(t ? tosa::toString(t->dtype) : "?");
  }
  return fmt::format("operators[{}] {} ({} -> {})", index, tosa::toString(op.op), fmt::join(in, ", "),
                     fmt::join(out, ", "));
}

void bindParams(LoweringContext& ctx, std::vector<std::int32_t> params, ShaderDefines& defines, PlanKernel& kernel) {
  if (params.empty()) return;
  std::vector<std::uint8_t> bytes(params.size() * sizeof(std::int32_t));
  std::memcpy(bytes.data(), params.data(), bytes.size());
  defines.set("PARAMS_BINDING", static_cast<std::int64_t>(kernel.bindings.size()));
  kernel.bindings.push_back(ctx.addConstant(DType::Int32, {static_cast<std::int64_t>(params.size())}, std::move(bytes)));
  kernel.writes.push_back(false);
}

}  // namespace openvgf::converter
