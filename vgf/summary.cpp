// SPDX-License-Identifier: Apache-2.0
// Text summary of a VGF (see summary.h).
#include "vgf/summary.h"

#include <cstring>
#include <set>
#include <span>

#include <fmt/format.h>

#include "vgf/spirv_info.h"

namespace openvgf::vgf {
namespace {

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    out += i == 0 ? "" : ",";
    out += shape[i] == INT64_MIN ? std::string("?") : fmt::format("{}", shape[i]);
  }
  return out + "]";
}

std::string slotsText(const std::vector<BindingSlot>& slots) {
  std::string out;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    out += fmt::format("{}b{}->mrt{}", i == 0 ? "" : " ", slots[i].binding, slots[i].mrtIndex);
  }
  return out.empty() ? "-" : out;
}

std::string interfaceText(const std::vector<BindingSlot>& slots, const std::vector<std::string>& names,
                          const File& file) {
  std::string out;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    std::string name = names.size() == slots.size() ? names[i] : fmt::format("#{}", i);
    out += fmt::format("{}{} (binding {}, mrt {}", i == 0 ? "" : ", ", name, slots[i].binding,
                       slots[i].mrtIndex);
    if (slots[i].mrtIndex < file.resources.size()) {
      const Resource& r = file.resources[slots[i].mrtIndex];
      out += fmt::format(", {} {}", formatName(r.vkFormat), shapeText(r.shape));
    }
    out += ")";
  }
  return out.empty() ? "-" : out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out.empty() ? "-" : out;
}

// " = 1 2 3" for a dense constant of at most 16 integer or fp32 elements (pads, clamp bounds,
// rescale multipliers and shifts), "" otherwise (fp16, bf16 and fp8 stay bytes here).
std::string smallValues(const Resource& r, std::span<const std::uint8_t> data) {
  constexpr std::size_t kShownValues = 16;
  const std::uint32_t bytes = formatElementBytes(r.vkFormat);
  if (bytes == 0 || data.size() % bytes != 0 || data.size() / bytes > kShownValues || data.empty()) return "";
  std::string out = " =";
  for (std::size_t at = 0; at < data.size(); at += bytes) {
    auto load = [&]<typename V>(V) {
      V v;
      std::memcpy(&v, data.data() + at, sizeof v);
      return v;
    };
    switch (static_cast<VkFormatValue>(r.vkFormat)) {
      case VkFormatValue::R8BoolArm:
      case VkFormatValue::R8Uint: out += fmt::format(" {}", load(std::uint8_t{})); break;
      case VkFormatValue::R8Sint: out += fmt::format(" {}", load(std::int8_t{})); break;
      case VkFormatValue::R16Uint: out += fmt::format(" {}", load(std::uint16_t{})); break;
      case VkFormatValue::R16Sint: out += fmt::format(" {}", load(std::int16_t{})); break;
      case VkFormatValue::R32Uint: out += fmt::format(" {}", load(std::uint32_t{})); break;
      case VkFormatValue::R32Sint: out += fmt::format(" {}", load(std::int32_t{})); break;
      case VkFormatValue::R64Sint: out += fmt::format(" {}", load(std::int64_t{})); break;
      case VkFormatValue::R32Sfloat: out += fmt::format(" {:.9g}", load(float{})); break;
      default: return "";
    }
  }
  return out;
}

}  // namespace

std::string formatSummary(const File& file, const std::string& indent) {
  std::string out;
  auto line = [&](const std::string& text) { out += indent + text + "\n"; };
  line(fmt::format("VGF format {}.{}.{}{}, Vulkan headers {}{}", file.version.major, file.version.minor,
                   file.version.patch, file.legacyConstantSection ? " (legacy constant section)" : "",
                   file.vkHeaderVersion, file.legacyMagic ? ", old magic" : ""));
  line(fmt::format("inputs:  {}", interfaceText(file.inputs, file.inputNames, file)));
  line(fmt::format("outputs: {}", interfaceText(file.outputs, file.outputNames, file)));
  line(fmt::format("modules ({}):", file.modules.size()));
  std::set<std::string> allCapabilities, allExtensions;
  for (std::size_t i = 0; i < file.modules.size(); ++i) {
    const Module& m = file.modules[i];
    std::string code = !m.hasCode                      ? std::string("no code")
                       : m.codeKind == CodeKind::Spirv ? fmt::format("{} words", m.spirv.size())
                                                       : fmt::format("{} characters", m.source.size());
    line(fmt::format("  [{}] {} '{}' entry '{}': {}, {}", i, toString(m.type), m.name, m.entryPoint,
                     toString(m.codeKind), code));
    if (m.hasCode && m.codeKind == CodeKind::Spirv) {
      SpirvRequirements needs = spirvRequirements(m.spirv);
      line(fmt::format("      capabilities: {}; extensions: {}", joined(needs.capabilities), joined(needs.extensions)));
      allCapabilities.insert(needs.capabilities.begin(), needs.capabilities.end());
      allExtensions.insert(needs.extensions.begin(), needs.extensions.end());
    }
  }
  // What a device must offer to run this VGF, in one place (the runner enables exactly these).
  line(fmt::format("device requirements: capabilities {}; extensions {}",
                   joined(std::vector<std::string>(allCapabilities.begin(), allCapabilities.end())),
                   joined(std::vector<std::string>(allExtensions.begin(), allExtensions.end()))));
  line(fmt::format("resources ({}):", file.resources.size()));
  for (std::size_t i = 0; i < file.resources.size(); ++i) {
    const Resource& r = file.resources[i];
    std::string extra;
    if (!r.strides.empty()) extra += fmt::format(" strides {}", shapeText(r.strides));
    if (r.aliasGroup != kUnset) extra += fmt::format(" alias group {}", r.aliasGroup);
    if (r.sampler) extra += " sampler";
    line(fmt::format("  [{}] {} {} {} {}{}", i, toString(r.category), formatName(r.vkFormat),
                     shapeText(r.shape), descriptorTypeName(r.descriptorType), extra));
  }
  line(fmt::format("segments ({}):", file.segments.size()));
  for (std::size_t i = 0; i < file.segments.size(); ++i) {
    const Segment& s = file.segments[i];
    std::string dispatch = s.dispatchShape ? fmt::format("{}x{}x{}", (*s.dispatchShape)[0],
                                                         (*s.dispatchShape)[1], (*s.dispatchShape)[2])
                                           : std::string("-");
    line(fmt::format("  [{}] {} '{}' module {} dispatch {}", i, toString(s.type), s.name, s.moduleIndex,
                     dispatch));
    for (std::size_t k = 0; k < s.setInfos.size(); ++k) {
      std::uint32_t set =
          s.setInfos[k].setIndex == kUnset ? static_cast<std::uint32_t>(k) : s.setInfos[k].setIndex;
      line(fmt::format("      set {}: {}", set, slotsText(s.setInfos[k].bindings)));
    }
    line(fmt::format("      inputs {} | outputs {}", slotsText(s.inputs), slotsText(s.outputs)));
    if (!s.constants.empty()) {
      std::string constants;
      for (const ConstantBinding& b : s.constantBindings) {
        constants += fmt::format(" {}->{}", b.graphConstantId, b.constantIndex);
      }
      line(fmt::format("      graph constants (id->constant):{}", constants));
    }
    for (const PushConstantRange& r : s.pushConstantRanges) {
      line(fmt::format("      push constants: stages 0x{:x} offset {} size {}", r.stageFlags, r.offset,
                       r.size));
    }
  }
  line(fmt::format("constants ({}):", file.constants.size()));
  for (std::size_t i = 0; i < file.constants.size(); ++i) {
    const Constant& c = file.constants[i];
    line(fmt::format(
        "  [{}] mrt {} {} bytes{}{}", i, c.mrtIndex, c.data.size(),
        c.sparsityDimension >= 0 ? fmt::format(" 2:4 sparse on dim {}", c.sparsityDimension) : "",
        c.mrtIndex < file.resources.size() && c.sparsityDimension < 0 ? smallValues(file.resources[c.mrtIndex], c.data) : ""));
  }
  return out;
}

}  // namespace openvgf::vgf
