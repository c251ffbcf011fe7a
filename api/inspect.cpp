// SPDX-License-Identifier: Apache-2.0
// Inspection of .tosa, .vgf and .pte files (see inspect.h).
#include "api/inspect.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include "api/file_kind.h"
#include "common/file_io.h"
#include "converter/graph_segments.h"
#include "converter/lower_vgf.h"
#include "pte/extract.h"
#include "pte/program.h"
#include "pte/run_plan.h"
#include "tosa/compliance.h"
#include "tosa/float_types.h"
#include "tosa/json.h"
#include "tosa/npy.h"
#include "tosa/reader.h"
#include "tosa/spirv/decoder.h"
#include "tosa/verifier.h"
#include "vgf/decoder.h"
#include "vgf/json.h"
#include "vgf/summary.h"

namespace openvgf::api {
namespace {

std::string describeTensor(const tosa::Graph& graph, const tosa::Block& block, const std::string& name) {
  const tosa::Tensor* t = graph.findTensor(block, name);
  if (t == nullptr) return fmt::format("{}  (undefined)", name);
  return fmt::format("{}  {} {}", name, tosa::toString(t->dtype), tosa::shapeToString(t->shape));
}

// The values of the main block's constants of at most kShownValues elements (pad amounts,
// rescale multipliers and shifts, zero points, axes), each with the operator inputs that read it.
std::string smallConstants(const tosa::Block& block) {
  constexpr std::int64_t kShownValues = 16;
  std::string out;
  for (const tosa::Tensor& t : block.tensors) {
    if (!t.data || t.variable) continue;
    std::int64_t count = 1;
    for (std::int64_t d : t.shape) count *= d;
    if (count > kShownValues) continue;
    tosa::HostTensor host(t.dtype, t.shape);
    if (host.bytes.size() != t.data->size()) continue;
    host.bytes = *t.data;
    Result<std::vector<double>> values = tosa::compliance::toDoubles(host);
    if (!values) continue;
    std::vector<std::string> readers;
    for (const tosa::Operator& op : block.operators) {
      for (std::size_t i = 0; i < op.inputs.size(); ++i) {
        if (op.inputs[i] == t.name) readers.push_back(fmt::format("{} input {}", tosa::toString(op.op), i));
      }
    }
    std::vector<std::string> shown;
    for (double v : *values) shown.push_back(tosa::isFloat(t.dtype) ? fmt::format("{:.9g}", v) : fmt::format("{:.0f}", v));
    out += fmt::format("  {}  {} {} = {}{}\n", t.name, tosa::toString(t.dtype), tosa::shapeToString(t.shape),
                       fmt::join(shown, " "), readers.empty() ? "" : fmt::format("  ({})", fmt::join(readers, ", ")));
  }
  return out.empty() ? out : fmt::format("constants of up to {} values:\n{}", kShownValues, out);
}

std::string tosaSummary(const std::string& path, const tosa::Graph& graph) {
  const tosa::Block* main = graph.mainBlock();
  std::size_t blocks = 0;
  std::size_t operators = 0;
  std::size_t tensors = 0;
  std::size_t constants = 0;
  std::uint64_t constantBytes = 0;
  std::map<std::string_view, std::size_t> histogram;
  for (const tosa::Region& r : graph.regions) {
    for (const tosa::Block& b : r.blocks) {
      ++blocks;
      operators += b.operators.size();
      tensors += b.tensors.size();
      for (const tosa::Operator& op : b.operators) ++histogram[tosa::toString(op.op)];
      for (const tosa::Tensor& t : b.tensors) {
        if (t.data) {
          ++constants;
          constantBytes += t.data->size();
        }
      }
    }
  }
  const tosa::Version& v = graph.version;
  std::string out = fmt::format("{}: TOSA flatbuffer, format {}.{}.{}{}\n", path, v.major, v.minor, v.patch,
                                v.draft ? " (draft)" : "");
  out += fmt::format("regions: {}, blocks: {}, operators: {}, tensors: {}\n", graph.regions.size(), blocks, operators,
                     tensors);
  if (main != nullptr) {
    out += fmt::format("inputs ({}):\n", main->inputs.size());
    for (const std::string& name : main->inputs) out += fmt::format("  {}\n", describeTensor(graph, *main, name));
    out += fmt::format("outputs ({}):\n", main->outputs.size());
    for (const std::string& name : main->outputs) out += fmt::format("  {}\n", describeTensor(graph, *main, name));
  }
  out += "operators:\n";
  for (const auto& [op, count] : histogram) out += fmt::format("  {:<24} {}\n", op, count);
  out += fmt::format("constants: {} tensors, {} bytes (host layout)\n", constants, constantBytes);
  if (main != nullptr) out += smallConstants(*main);
  tosa::Requirements req = tosa::requirements(graph);
  auto list = [](const std::vector<std::string>& items) {
    return items.empty() ? std::string("none") : fmt::format("{}", fmt::join(items, ", "));
  };
  out += fmt::format("profiles: {}\n", list(req.profiles));
  out += fmt::format("extensions: {}\n", list(req.extensions));
  return out;
}

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

std::optional<std::size_t> parseIndex(const std::string& text) {
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::string describeInterface(const tosa::spirv::InterfaceTensor& t) {
  const std::string type = t.shape ? fmt::format("{}{}", tosa::toString(t.dtype), tosa::shapeToString(*t.shape))
                           : t.rank ? fmt::format("{} of rank {}", tosa::toString(t.dtype), *t.rank)
                                    : fmt::format("{} of any rank", tosa::toString(t.dtype));
  return fmt::format("{} '{}' {}{}", t.index, t.name, type,
                     t.binding ? fmt::format(" (set {} binding {})", t.descriptorSet.value_or(0), *t.binding) : "");
}

}  // namespace

std::string valueSummary(const std::vector<double>& values) {
  constexpr std::size_t kShown = 8;
  // Whole numbers in full (an int32 multiplier of 1073741824 is not 1.07374e+09).
  auto number = [](double v) { return v == std::floor(v) && std::abs(v) < 1e15 ? fmt::format("{:.0f}", v) : fmt::format("{:.6g}", v); };
  double lo = 0, hi = 0, sum = 0;
  std::size_t finite = 0;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    lo = finite == 0 ? v : std::min(lo, v);
    hi = finite == 0 ? v : std::max(hi, v);
    sum += v;
    ++finite;
  }
  std::string out;
  if (finite > 0) out = fmt::format("min {}, max {}, mean {:.6g}", number(lo), number(hi), sum / static_cast<double>(finite));
  if (finite < values.size()) out += fmt::format("{}{} NaN/inf", out.empty() ? "" : ", ", values.size() - finite);
  const std::size_t shown = std::min(values.size(), kShown);
  std::vector<std::string> first;
  for (std::size_t i = 0; i < shown; ++i) first.push_back(std::isfinite(values[i]) ? number(values[i]) : fmt::format("{}", values[i]));
  return out + fmt::format("; first {}{}: {}", shown, shown < values.size() ? fmt::format(" of {}", values.size()) : "",
                           fmt::join(first, " "));
}

Result<Inspection> inspectNpy(std::span<const std::uint8_t> bytes, const std::string& path, bool json) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::npy::Array array, tosa::npy::parse(bytes, path));
  using T = tosa::npy::DataType;
  const std::size_t size = tosa::npy::elementBytes(array.dtype);
  const std::size_t count = size == 0 ? 0 : array.data.size() / size;
  std::vector<double> values;
  const bool raw = array.dtype == T::Void1 || array.dtype == T::Void2;  // bf16 / fp8 bit patterns: no values
  for (std::size_t i = 0; i < count && !raw; ++i) {
    const std::uint8_t* p = array.data.data() + i * size;
    auto load = [p]<typename V>(V) {
      V v;
      std::memcpy(&v, p, sizeof v);
      return static_cast<double>(v);
    };
    switch (array.dtype) {
      case T::Bool: values.push_back(p[0] != 0 ? 1 : 0); break;
      case T::Int8: values.push_back(load(std::int8_t{})); break;
      case T::Int16: values.push_back(load(std::int16_t{})); break;
      case T::Int32: values.push_back(load(std::int32_t{})); break;
      case T::Int64: values.push_back(load(std::int64_t{})); break;
      case T::Uint8: values.push_back(load(std::uint8_t{})); break;
      case T::Uint16: values.push_back(load(std::uint16_t{})); break;
      case T::Uint32: values.push_back(load(std::uint32_t{})); break;
      case T::Uint64: values.push_back(load(std::uint64_t{})); break;
      case T::Float16: values.push_back(tosa::fp16ToDouble(static_cast<std::uint16_t>(load(std::uint16_t{})))); break;
      case T::Float32: values.push_back(load(float{})); break;
      case T::Float64: values.push_back(load(double{})); break;
      default: break;
    }
  }
  const std::string dtype(tosa::npy::toString(array.dtype));
  Inspection inspection;
  if (json) {
    nlohmann::json j = {{"file", path}, {"kind", "npy"}, {"dtype", dtype}, {"shape", array.shape}, {"elements", count}};
    if (!values.empty()) {
      auto [lo, hi] = std::minmax_element(values.begin(), values.end());
      j["min"] = *lo;
      j["max"] = *hi;
      j["first"] = std::vector<double>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(values.size(), 8)));
    }
    inspection.text = j.dump(2) + "\n";
    return inspection;
  }
  inspection.text = fmt::format("{}: NumPy array, {} ({}{}), {} element{}, {} data bytes\n", path, dtype,
                                fmt::join(array.shape, ", "), array.shape.size() == 1 ? "," : "", count,
                                count == 1 ? "" : "s", array.data.size());
  inspection.text += raw ? fmt::format("raw {}-byte values (bf16 or fp8 bit patterns)\n", size)
                         : count == 0 ? std::string("no values\n") : valueSummary(values) + "\n";
  return inspection;
}

Result<Inspection> inspectTosa(std::span<const std::uint8_t> bytes, const std::string& path, bool json) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, tosa::readGraph(bytes, path));
  Inspection inspection;
  inspection.text = json ? tosa::toJson(graph) + "\n" : tosaSummary(path, graph);
  inspection.problem = withContext(tosa::verify(graph), path);
  return inspection;
}

Result<Inspection> inspectVgf(std::span<const std::uint8_t> bytes, const std::string& path, bool json) {
  Result<vgf::File> decoded = withContext(vgf::decode(bytes), path);
  if (!decoded) return Unexpected(std::move(decoded).error());
  Inspection inspection;
  // --json stays vgf_dump's structure; the TOSA operators of GRAPH segments are in the text view.
  inspection.text = json ? vgf::dumpJson(vgf::toJson(*decoded)) + "\n" : vgf::formatSummary(*decoded);
  if (!json && converter::hasGraphSegments(*decoded)) {
    OPENVGF_ASSIGN_OR_RETURN(std::string graphs, converter::listGraphSegments(*decoded, path));
    inspection.text += "TOSA graphs of the GRAPH segments (openvgf run lowers them to compute shaders):\n" + graphs;
  }
  return inspection;
}

Result<Inspection> inspectPte(std::span<const std::uint8_t> bytes, const std::string& path, bool json) {
  Result<pte::Program> program = withContext(pte::readProgram(bytes), path);
  if (!program) return Unexpected(std::move(program).error());
  Inspection inspection;
  if (json) {
    nlohmann::json tree = pte::toJson(*program);
    for (std::size_t p = 0; p < program->plans.size() && p < tree["execution_plans"].size(); ++p) {
      Result<pte::RunPlan> plan = pte::planVgfExecution(*program, std::to_string(p));
      tree["execution_plans"][p]["runs_with_openvgf"] = plan.has_value();
      if (!plan) tree["execution_plans"][p]["why_not"] = plan.error().message();
    }
    inspection.text = vgf::dumpJson(tree) + "\n";
  } else {
    inspection.text = pte::formatSummary(*program) + pte::formatRunnability(*program);
  }
  for (std::size_t p = 0; p < program->plans.size() && inspection.problem; ++p) {
    const pte::ExecutionPlan& plan = program->plans[p];
    for (std::size_t d = 0; d < plan.delegates.size(); ++d) {
      if (!plan.delegates[d].payloadProblem.empty()) {
        inspection.problem = invalidInput("{}: execution_plan[{}] '{}': delegates[{}] ({}): payload: {}", path, p,
                                          plan.name, d, plan.delegates[d].backendId, plan.delegates[d].payloadProblem);
        break;
      }
    }
  }
  return inspection;
}

Result<Inspection> inspectSpirv(std::span<const std::uint8_t> bytes, const std::string& path, bool json) {
  if (json) return invalidInput("{}: --json: expected a .vgf, .tosa or .pte; a SPIR-V module is listed as text", path);
  std::vector<std::uint32_t> words(bytes.size() / 4);
  if (!words.empty()) std::memcpy(words.data(), bytes.data(), words.size() * 4);
  OPENVGF_ASSIGN_OR_RETURN(tosa::spirv::Module module, tosa::spirv::parseModule(words, path));
  Inspection inspection;
  std::string& text = inspection.text;
  for (const tosa::spirv::GraphEntryPoint& entry : module.entryPoints) {
    OPENVGF_ASSIGN_OR_RETURN(tosa::spirv::GraphSignature sig, tosa::spirv::graphSignature(module, entry.name));
    text += fmt::format("graph '{}': {} inputs, {} outputs, {} graph constants\n", sig.entryPoint, sig.inputs.size(),
                        sig.outputs.size(), sig.constants.size());
    for (const auto& t : sig.inputs) text += "  input " + describeInterface(t) + "\n";
    for (const auto& t : sig.outputs) text += "  output " + describeInterface(t) + "\n";
    for (const auto& c : sig.constants) {
      text += fmt::format("  graph constant {}: {}{}\n", c.id, tosa::toString(c.dtype), tosa::shapeToString(c.shape));
    }
    text += tosa::spirv::listGraph(module, sig);
  }
  return inspection;
}

Result<Inspection> inspectFile(const std::string& path, bool json) {
  OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  switch (detectFileKind(file.bytes())) {
    case FileKind::Tosa: return inspectTosa(file.bytes(), path, json);
    case FileKind::Vgf: return inspectVgf(file.bytes(), path, json);
    case FileKind::Pte: return inspectPte(file.bytes(), path, json);
    case FileKind::EthosU: return inspectEthosU(file.bytes(), path, json);
    case FileKind::SpirV: return inspectSpirv(file.bytes(), path, json);
    case FileKind::Npy: return inspectNpy(file.bytes(), path, json);
    case FileKind::Unknown:
      return invalidInput("{}: unrecognised file ({}): expected a TOSA flatbuffer, VGF, ExecuTorch .pte or Ethos-U "
                          "command stream (detected from the first bytes)",
                          path, describeFile(file.bytes()));
    default: break;
  }
  return unsupported("{}: inspecting {} is not supported", path, describeFile(file.bytes()));
}

Status dumpFromFile(const std::string& path, std::optional<int> spirvModule, const std::string& constant,
                    const std::filesystem::path& output) {
  OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  switch (detectFileKind(file.bytes())) {
    case FileKind::Tosa:
      if (spirvModule) return invalidInput("{}: --dump-spirv applies to VGF files, not TOSA graphs", path);
      return dumpTosaConstant(file.bytes(), path, constant, output);
    case FileKind::Vgf: {
      OPENVGF_ASSIGN_OR_RETURN(vgf::File decoded, withContext(vgf::decode(file.bytes()), path));
      return spirvModule ? dumpVgfSpirv(decoded, path, *spirvModule, output)
                         : dumpVgfConstant(decoded, path, constant, output);
    }
    case FileKind::Pte:
      return invalidInput("{}: --dump-spirv / --dump-constant: expected a .vgf file; extract the payload first with "
                          "`openvgf extract`", path);
    case FileKind::EthosU:
      return invalidInput("{}: --dump-spirv / --dump-constant: expected a .vgf file, got an Ethos-U command stream",
                          path);
    default: break;
  }
  return invalidInput("{}: --dump-spirv / --dump-constant: expected a .vgf or .tosa file, got {}", path,
                      describeFile(file.bytes()));
}

Status dumpVgfSpirv(const vgf::File& file, const std::string& path, int index, const std::filesystem::path& output) {
  if (index < 0 || static_cast<std::size_t>(index) >= file.modules.size()) {
    return invalidInput("{}: --dump-spirv: expected a module index < {}, got {}", path, file.modules.size(), index);
  }
  const vgf::Module& module = file.modules[static_cast<std::size_t>(index)];
  if (module.codeKind != vgf::CodeKind::Spirv || !module.hasCode) {
    return invalidInput("{}: --dump-spirv: expected module {} to hold SPIR-V code, got {}{}", path, index,
                        vgf::toString(module.codeKind), module.hasCode ? "" : " without code");
  }
  std::span<const std::uint8_t> code(reinterpret_cast<const std::uint8_t*>(module.spirv.data()),
                                     module.spirv.size_bytes());
  return writeFileAtomic(output, code);
}

Result<tosa::npy::Array> vgfConstantArray(const vgf::File& file, const std::string& path, std::size_t index) {
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

Status dumpVgfConstant(const vgf::File& file, const std::string& path, const std::string& selector,
                       const std::filesystem::path& output) {
  std::optional<std::size_t> parsed = parseIndex(selector);
  if (!parsed || *parsed >= file.constants.size()) {
    return invalidInput("{}: --dump-constant: expected a constant index < {}, got {}", path, file.constants.size(),
                        selector);
  }
  const int index = static_cast<int>(*parsed);
  if (output.extension() == ".npy") {
    OPENVGF_ASSIGN_OR_RETURN(tosa::npy::Array array, vgfConstantArray(file, path, static_cast<std::size_t>(index)));
    return tosa::npy::writeFile(output, array);
  }
  return writeFileAtomic(output, file.constants[static_cast<std::size_t>(index)].data);
}

Status dumpTosaConstant(std::span<const std::uint8_t> bytes, const std::string& path, const std::string& selector,
                        const std::filesystem::path& output) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, tosa::readGraph(bytes, path));
  const tosa::Block* main = graph.mainBlock();
  std::vector<const tosa::Tensor*> constants;
  if (main != nullptr) {
    for (const tosa::Tensor& t : main->tensors) {
      if (t.data && !t.variable) constants.push_back(&t);
    }
  }
  const tosa::Tensor* chosen = nullptr;
  for (const tosa::Tensor* t : constants) {
    if (t->name == selector) chosen = t;
  }
  if (std::optional<std::size_t> index = parseIndex(selector); chosen == nullptr && index && *index < constants.size()) {
    chosen = constants[*index];
  }
  if (chosen == nullptr) {
    std::vector<std::string> names;
    for (const tosa::Tensor* t : constants) names.push_back(fmt::format("'{}'", t->name));
    return invalidInput("{}: --dump-constant: expected the name or index (< {}) of a constant of the main block ({}), "
                        "got '{}'",
                        path, constants.size(), fmt::join(names, ", "), selector);
  }
  const tosa::HostTensor value = tosa::constantValue(*chosen);
  if (output.extension() == ".npy") return tosa::npy::writeTensor(output, value);
  return writeFileAtomic(output, value.bytes);
}

}  // namespace openvgf::api
