// SPDX-License-Identifier: Apache-2.0
// spirv-val for modules that use SPV_KHR_cooperative_matrix, which Debian's SPIRV-Tools (2023.1)
// predates: the module is re-encoded with the SPV_NV_cooperative_matrix instructions it knows
// (same types and operations, the use and layout operands dropped or moved) and that view is
// validated. KHR matrix types that differ only in their use become one NV type, so duplicate
// types and pointers to them are merged first. bf16 components (SPV_KHR_bfloat16, which
// SPIRV-Tools 2023.1 predates too) are viewed as fp16: same width, same rules for matrices.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace openvgf::runner {

/// The NV view of a module that declares CooperativeMatrixKHR (matrices of any scope are viewed
/// at subgroup scope), or nullopt when the module uses something NV cannot say (a layout other
/// than row or column major, loads without a stride, saturating accumulation) or does not parse.
std::optional<std::vector<std::uint32_t>> cooperativeMatrixNvView(std::span<const std::uint32_t> module);

}  // namespace openvgf::runner
