// SPDX-License-Identifier: Apache-2.0
// The one mapping between VGF tensor formats (raw VkFormat values) and TOSA element types,
// and the bytes each element occupies in a storage buffer. The converter and the runner both
// use it, so what one writes the other reads.
//
// Storage: BOOL is one byte per element (R8_BOOL_ARM, 0 or 1); INT4 is one int8 per element
// (R8_SINT); INT48 is stored sign-extended in int64 (R64_SINT). Storage bytes therefore equal
// tosa::hostElementBytes for every mapped type, so npy data is copied without conversion.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tosa/types.h"

namespace openvgf::runner {

/// The TOSA type a tensor of this format holds (R8_SINT -> INT8, R64_SINT -> INT48, ...);
/// nullopt for formats with no TOSA meaning (unsigned, unknown).
std::optional<tosa::DType> dtypeForFormat(std::uint32_t vkFormat);
/// The format the converter writes for a TOSA type (INT4 -> R8_SINT, INT48 -> R64_SINT, ...);
/// nullopt for SHAPE / UNKNOWN.
std::optional<std::uint32_t> formatForDType(tosa::DType dtype);
/// Bytes per element in a storage buffer; 0 for formats openvgf does not know.
std::uint32_t storageElementBytes(std::uint32_t vkFormat);
/// "R8_SINT", "R8_BOOL_ARM", ...; "VkFormat(<n>)" for unknown values.
std::string formatShortName(std::uint32_t vkFormat);

}  // namespace openvgf::runner
