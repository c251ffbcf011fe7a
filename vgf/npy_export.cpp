// SPDX-License-Identifier: Apache-2.0
// .npy export of VGF constants (see npy_export.h). The header is the NumPy format:
// magic "\x93NUMPY", version, little-endian header length, then a Python dict literal padded
// with spaces and a newline so that the data starts at a multiple of 64 bytes.
#include "vgf/npy_export.h"

#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace openvgf::vgf {

std::string numpyDtype(std::uint32_t vkFormat) {
  switch (static_cast<VkFormatValue>(vkFormat)) {
    case VkFormatValue::R8Uint: return "|u1";
    case VkFormatValue::R8Sint: return "|i1";
    case VkFormatValue::R8BoolArm: return "|b1";
    case VkFormatValue::R16Uint: return "<u2";
    case VkFormatValue::R16Sint: return "<i2";
    case VkFormatValue::R16Sfloat: return "<f2";
    case VkFormatValue::R32Uint: return "<u4";
    case VkFormatValue::R32Sint: return "<i4";
    case VkFormatValue::R32Sfloat: return "<f4";
    case VkFormatValue::R64Sint: return "<i8";
    // NumPy has no bfloat16 / fp8: raw element bytes, as the ML SDK stores them.
    case VkFormatValue::R16SfloatBfloat16Arm: return "|V2";
    case VkFormatValue::R8SfloatFloat8E4M3Arm:
    case VkFormatValue::R8SfloatFloat8E5M2Arm: return "|V1";
    case VkFormatValue::Undefined: break;
  }
  return {};
}

Result<std::vector<std::uint8_t>> constantToNpy(const File& file, std::size_t index) {
  if (index >= file.constants.size()) {
    return invalidInput("constant {}: expected an index < {} (constant count), got {}", index, file.constants.size(),
                        index);
  }
  const Constant& constant = file.constants[index];
  if (constant.mrtIndex >= file.resources.size()) {
    return invalidInput("constant {}: mrt_index: expected < {}, got {}", index, file.resources.size(),
                        constant.mrtIndex);
  }
  const Resource& resource = file.resources[constant.mrtIndex];
  std::string dtype = numpyDtype(resource.vkFormat);
  if (dtype.empty()) {
    return unsupported("constant {}: mrt_entry[{}].vk_format: expected a tensor format with a NumPy dtype, got {}",
                       index, constant.mrtIndex, formatName(resource.vkFormat));
  }
  std::uint64_t elements = 1;
  std::string shape;
  for (std::int64_t dim : resource.shape) {
    if (dim < 0) {
      return invalidInput("constant {}: mrt_entry[{}].shape: expected static dimensions, got {}", index,
                          constant.mrtIndex, dim);
    }
    if (dim != 0 && elements > std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(dim)) {
      return invalidInput("constant {}: mrt_entry[{}].shape: expected an element count that fits 64 bits", index,
                          constant.mrtIndex);
    }
    elements *= static_cast<std::uint64_t>(dim);
    shape += fmt::format("{}, ", dim);
  }
  if (resource.shape.size() > 1) shape.resize(shape.size() - 2);  // "(a, b)"; rank 1 keeps "(a,)"
  else if (resource.shape.size() == 1) shape.resize(shape.size() - 1);
  std::uint64_t expected = elements * formatElementBytes(resource.vkFormat);
  if (expected != constant.data.size()) {
    return invalidInput("constant {}: expected {} bytes for shape [{}] of {}, got {}", index, expected, shape,
                        formatName(resource.vkFormat), constant.data.size());
  }
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", dtype, shape);
  bool version2 = header.size() + 1 + 10 > 65535;
  std::size_t prefix = version2 ? 12 : 10;
  std::size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header.push_back('\n');
  std::vector<std::uint8_t> out;
  out.reserve(total + constant.data.size());
  const char magic[] = "\x93NUMPY";
  out.insert(out.end(), magic, magic + 6);
  out.push_back(version2 ? 2 : 1);
  out.push_back(0);
  std::uint32_t length = static_cast<std::uint32_t>(header.size());
  for (std::size_t b = 0; b < (version2 ? 4u : 2u); ++b) out.push_back(static_cast<std::uint8_t>(length >> (8 * b)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), constant.data.begin(), constant.data.end());
  return out;
}

}  // namespace openvgf::vgf
