// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect model.vgf`: text summary (with the TOSA operators of any GRAPH segment),
// `--json` (vgf_dump's structure),
// `--dump-spirv N -o f.spv` and `--dump-constant N -o f.npy` (raw bytes unless -o ends in .npy).
#include <fmt/ranges.h>

#include <cstdio>
#include <limits>
#include <optional>

#include "cli/command.h"
#include "common/file_io.h"
#include "converter/graph_segments.h"
#include "converter/lower_vgf.h"
#include "tosa/npy.h"
#include "vgf/decoder.h"
#include "vgf/json.h"
#include "vgf/summary.h"

namespace openvgf::cli {
namespace {

/// NumPy element type of a VGF tensor format; BF16 and FP8 are raw bytes (V2 / V1), as the
/// ML SDK's tools store them.
std::optional<tosa::npy::DataType> npyType(std::uint32_t vkFormat) {
  using tosa::npy::DataType;
  switch (static_cast<vgf::VkFormatValue>(vkFormat)) {
    case vgf::VkFormatValue::R8Uint: return DataType::Uint8;
    case vgf::VkFormatValue::R8Sint: return DataType::Int8;
    case vgf::VkFormatValue::R8BoolArm: return DataType::Bool;
    case vgf::VkFormatValue::R16Uint: return DataType::Uint16;
    case vgf::VkFormatValue::R16Sint: return DataType::Int16;
    case vgf::VkFormatValue::R16Sfloat: return DataType::Float16;
    case vgf::VkFormatValue::R32Uint: return DataType::Uint32;
    case vgf::VkFormatValue::R32Sint: return DataType::Int32;
    case vgf::VkFormatValue::R32Sfloat: return DataType::Float32;
    case vgf::VkFormatValue::R64Sint: return DataType::Int64;
    case vgf::VkFormatValue::R16SfloatBfloat16Arm: return DataType::Void2;
    case vgf::VkFormatValue::R8SfloatFloat8E4M3Arm:
    case vgf::VkFormatValue::R8SfloatFloat8E5M2Arm: return DataType::Void1;
    case vgf::VkFormatValue::Undefined: break;
  }
  return std::nullopt;
}

/// Constant `index` as a NumPy array with its resource's shape and element type.
Result<tosa::npy::Array> constantArray(const std::string& path, const vgf::File& file, std::size_t index) {
  const vgf::Constant& constant = file.constants[index];
  const vgf::Resource& resource = file.resources[constant.mrtIndex];  // checked by decode()
  std::optional<tosa::npy::DataType> type = npyType(resource.vkFormat);
  if (!type) {
    return unsupported(
        "{}: constant {}: mrt_entry[{}].vk_format: expected a tensor format with a NumPy dtype, got {}", path,
        index, constant.mrtIndex, vgf::formatName(resource.vkFormat));
  }
  std::uint64_t bytes = tosa::npy::elementBytes(*type);
  for (std::int64_t dim : resource.shape) {
    if (dim < 0 || (dim > 0 && bytes > constant.data.size() / static_cast<std::uint64_t>(dim))) {
      bytes = std::numeric_limits<std::uint64_t>::max();
      break;
    }
    bytes *= static_cast<std::uint64_t>(dim);
  }
  if (bytes != constant.data.size()) {
    return invalidInput("{}: constant {}: expected a payload of shape {} x {} bytes, got {} bytes", path,
                        index, fmt::format("[{}]", fmt::join(resource.shape, ",")),
                        tosa::npy::elementBytes(*type), constant.data.size());
  }
  return tosa::npy::Array{*type, resource.shape, {constant.data.begin(), constant.data.end()}};
}

Result<int> inspectVgf(const InspectOptions& options, std::span<const std::uint8_t> bytes) {
  Result<vgf::File> decoded = withContext(vgf::decode(bytes), options.path);
  if (!decoded) return Unexpected(std::move(decoded).error());
  const vgf::File& file = *decoded;
  if (options.dumpSpirv || options.dumpConstant) {
    if (options.output.empty()) {
      return invalidInput("{}: --dump-spirv / --dump-constant: expected an output file with -o FILE",
                          options.path);
    }
  }
  if (options.dumpSpirv) {
    int index = *options.dumpSpirv;
    if (index < 0 || static_cast<std::size_t>(index) >= file.modules.size()) {
      return invalidInput("{}: --dump-spirv: expected a module index < {}, got {}", options.path,
                          file.modules.size(), index);
    }
    const vgf::Module& module = file.modules[static_cast<std::size_t>(index)];
    if (module.codeKind != vgf::CodeKind::Spirv || !module.hasCode) {
      return invalidInput("{}: --dump-spirv: expected module {} to hold SPIR-V code, got {}{}", options.path,
                          index, vgf::toString(module.codeKind), module.hasCode ? "" : " without code");
    }
    std::span<const std::uint8_t> code(reinterpret_cast<const std::uint8_t*>(module.spirv.data()),
                                       module.spirv.size_bytes());
    OPENVGF_TRY(writeFileAtomic(options.output, code));
    return 0;
  }
  if (options.dumpConstant) {
    int index = *options.dumpConstant;
    if (index < 0 || static_cast<std::size_t>(index) >= file.constants.size()) {
      return invalidInput("{}: --dump-constant: expected a constant index < {}, got {}", options.path,
                          file.constants.size(), index);
    }
    const std::string& out = options.output;
    if (out.size() >= 4 && out.compare(out.size() - 4, 4, ".npy") == 0) {
      OPENVGF_ASSIGN_OR_RETURN(tosa::npy::Array array,
                               constantArray(options.path, file, static_cast<std::size_t>(index)));
      OPENVGF_TRY(tosa::npy::writeFile(out, array));
    } else {
      OPENVGF_TRY(writeFileAtomic(out, file.constants[static_cast<std::size_t>(index)].data));
    }
    return 0;
  }
  // --json stays vgf_dump's structure; the TOSA operators of GRAPH segments are in the text view.
  std::string text = options.json ? vgf::dumpJson(vgf::toJson(file)) + "\n" : vgf::formatSummary(file);
  if (!options.json && converter::hasGraphSegments(file)) {
    OPENVGF_ASSIGN_OR_RETURN(std::string graphs, converter::listGraphSegments(file, options.path));
    text += "TOSA graphs of the GRAPH segments (openvgf run lowers them to compute shaders):\n" + graphs;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

OPENVGF_REGISTER_INSPECT(FileKind::Vgf, inspectVgf);

}  // namespace
}  // namespace openvgf::cli
