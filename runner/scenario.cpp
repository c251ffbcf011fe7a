// SPDX-License-Identifier: Apache-2.0
// Reading and checking scenario files (runner/scenario.h; the format's facts: docs/scenario.md).
// Every message starts with the JSON path of the element ("resources[2].buffer.size: ...");
// load() prefixes the file.
#include "runner/scenario.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "runner/formats.h"
#include "runner/model.h"
#include "vgf/decoder.h"

namespace openvgf::runner::scenario {
namespace {

using nlohmann::json;
using tosa::npy::DataType;
namespace fs = std::filesystem;

// Tensor formats of scenario-runner (its docs list these single-channel VkFormats) and the
// NumPy element type it writes for each: the format's own type; bfloat16 and float8 as raw
// bytes (V2, V1; E5M2 as u1, as scenario-runner writes it).
struct TensorFormat {
  const char* name;
  vgf::VkFormatValue format;
  DataType npy;
};
constexpr TensorFormat kTensorFormats[] = {
    {"VK_FORMAT_R8_BOOL_ARM", vgf::VkFormatValue::R8BoolArm, DataType::Bool},
    {"VK_FORMAT_R8_UINT", vgf::VkFormatValue::R8Uint, DataType::Uint8},
    {"VK_FORMAT_R8_SINT", vgf::VkFormatValue::R8Sint, DataType::Int8},
    {"VK_FORMAT_R16_UINT", vgf::VkFormatValue::R16Uint, DataType::Uint16},
    {"VK_FORMAT_R16_SINT", vgf::VkFormatValue::R16Sint, DataType::Int16},
    {"VK_FORMAT_R32_UINT", vgf::VkFormatValue::R32Uint, DataType::Uint32},
    {"VK_FORMAT_R32_SINT", vgf::VkFormatValue::R32Sint, DataType::Int32},
    {"VK_FORMAT_R64_SINT", vgf::VkFormatValue::R64Sint, DataType::Int64},
    {"VK_FORMAT_R16_SFLOAT", vgf::VkFormatValue::R16Sfloat, DataType::Float16},
    {"VK_FORMAT_R32_SFLOAT", vgf::VkFormatValue::R32Sfloat, DataType::Float32},
    {"VK_FORMAT_R16_SFLOAT_FPENCODING_BFLOAT16_ARM", vgf::VkFormatValue::R16SfloatBfloat16Arm, DataType::Void2},
    {"VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM", vgf::VkFormatValue::R8SfloatFloat8E4M3Arm, DataType::Void1},
    {"VK_FORMAT_R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM", vgf::VkFormatValue::R8SfloatFloat8E5M2Arm, DataType::Uint8},
};

const TensorFormat* findFormat(std::string_view name) {
  for (const TensorFormat& f : kTensorFormats) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::string formatNames() {
  std::vector<std::string> names;
  for (const TensorFormat& f : kTensorFormats) names.emplace_back(f.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// Whether a .npy of element type `given` holds a tensor of `format` without reinterpreting:
// its own type, or for the raw-byte formats (bfloat16, float8) the other raw spelling.
bool npyMatches(DataType given, const TensorFormat& format) {
  if (given == format.npy) return true;
  const bool raw = format.npy == DataType::Void1 || format.npy == DataType::Void2 ||
                   format.format == vgf::VkFormatValue::R8SfloatFloat8E5M2Arm;
  const bool rawGiven = given == DataType::Void1 || given == DataType::Void2 || given == DataType::Uint8 ||
                        given == DataType::Uint16;
  return raw && rawGiven && tosa::npy::elementBytes(given) == tosa::npy::elementBytes(format.npy);
}

/// Fields of one JSON object: those openvgf reads, and those of scenario-runner it refuses
/// (with the reason); anything else is not part of the format.
struct FieldRule {
  const char* name;
  const char* refusal;  // nullptr: supported
};

Status checkFields(const json& object, const std::string& path, std::initializer_list<FieldRule> rules) {
  if (!object.is_object()) return invalidInput("{}: expected an object, got {}", path, object.type_name());
  for (const auto& item : object.items()) {
    const std::string& key = item.key();
    auto rule = std::find_if(rules.begin(), rules.end(), [&](const FieldRule& r) { return key == r.name; });
    if (rule == rules.end()) {
      std::vector<std::string> known;
      for (const FieldRule& r : rules) known.emplace_back(r.name);
      return invalidInput("{}.{}: unknown field; expected one of {}", path, key, fmt::join(known, ", "));
    }
    if (rule->refusal != nullptr) return unsupported("{}.{}: not supported by openvgf: {}", path, key, rule->refusal);
  }
  return {};
}

Result<std::string> stringField(const json& object, const std::string& path, const char* key, bool required) {
  auto it = object.find(key);
  if (it == object.end()) {
    if (required) return invalidInput("{}: missing required field '{}'", path, key);
    return std::string();
  }
  if (!it->is_string()) return invalidInput("{}.{}: expected a string, got {}", path, key, it->type_name());
  return it->get<std::string>();
}

Result<std::int64_t> intField(const json& value, const std::string& path, std::int64_t min, std::int64_t max) {
  if (!value.is_number_integer()) return invalidInput("{}: expected an integer, got {}", path, value.type_name());
  std::int64_t v = value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(INT64_MAX)
                       ? INT64_MAX
                       : value.get<std::int64_t>();
  if (v < min || v > max) return invalidInput("{}: expected an integer in [{}, {}], got {}", path, min, max, v);
  return v;
}

Result<std::int64_t> intField(const json& object, const std::string& path, const char* key, std::int64_t min,
                              std::int64_t max, std::optional<std::int64_t> fallback) {
  auto it = object.find(key);
  if (it == object.end()) {
    if (fallback) return *fallback;
    return invalidInput("{}: missing required field '{}'", path, key);
  }
  return intField(*it, path + "." + key, min, max);
}

Status boolField(const json& object, const std::string& path, const char* key) {
  auto it = object.find(key);
  if (it != object.end() && !it->is_boolean()) {
    return invalidInput("{}.{}: expected true or false, got {}", path, key, it->type_name());
  }
  return {};
}

Status enumField(const json& object, const std::string& path, const char* key, bool required,
                 std::initializer_list<std::string_view> allowed) {
  OPENVGF_ASSIGN_OR_RETURN(std::string value, stringField(object, path, key, required));
  if (value.empty() && !required && !object.contains(key)) return {};
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    return invalidInput("{}.{}: expected one of {}, got '{}'", path, key, fmt::join(allowed, ", "), value);
  }
  return {};
}

class Loader {
 public:
  explicit Loader(fs::path file) : dir_(file.parent_path()) { scenario_.file = std::move(file); }
  Status run(const json& root);
  Scenario take() { return std::move(scenario_); }

 private:
  fs::path resolve(const std::string& path) const {
    fs::path p(path);
    return p.is_absolute() ? p : dir_ / p;
  }
  Status parseResource(const json& entry, std::size_t index);
  Status parseTensor(const json& o, const std::string& path, Resource& r);
  Status parseBuffer(const json& o, const std::string& path, Resource& r);
  Status parseRawData(const json& o, const std::string& path, Resource& r);
  Status parseGraph(const json& o, const std::string& path, Resource& r);
  Status parseShader(const json& o, const std::string& path, Resource& r);
  Status parseBarrier(const json& o, const std::string& path, Resource& r, const char* targetKey);
  Status resolveBarrierTargets();
  Status parseCommand(const json& entry, std::size_t index);
  Status parseDispatchCompute(const json& o, const std::string& path, Command& c);
  Status parseDispatchGraph(const json& o, const std::string& path, Command& c);
  Status parseDispatchBarrier(const json& o, const std::string& path);
  Status parseMarkBoundary(const json& o, const std::string& path);
  Result<std::size_t> reference(const json& object, const std::string& path, const char* key,
                                std::initializer_list<ResourceKind> kinds);
  Result<std::size_t> lookup(const std::string& uid, const std::string& path,
                             std::initializer_list<ResourceKind> kinds) const;
  Result<std::vector<Binding>> parseBindings(const json& o, const std::string& path);

  fs::path dir_;
  Scenario scenario_;
  std::map<std::string, std::size_t> uids_;
  std::map<std::size_t, std::string> barrierTargets_;  // barrier resource -> uid it names
  std::uint64_t totalBytes_ = 0;
};

Status Loader::run(const json& root) {
  OPENVGF_TRY(checkFields(root, "(root)", {{"resources", nullptr}, {"commands", nullptr}}));
  for (const char* key : {"resources", "commands"}) {
    auto it = root.find(key);
    if (it == root.end()) return invalidInput("(root): missing required field '{}'", key);
    if (!it->is_array()) return invalidInput("{}: expected an array, got {}", key, it->type_name());
  }
  const json& resources = root["resources"];
  for (std::size_t i = 0; i < resources.size(); ++i) OPENVGF_TRY(parseResource(resources[i], i));
  OPENVGF_TRY(resolveBarrierTargets());
  const json& commands = root["commands"];
  for (std::size_t i = 0; i < commands.size(); ++i) OPENVGF_TRY(parseCommand(commands[i], i));
  return {};
}

Status Loader::parseResource(const json& entry, std::size_t index) {
  const std::string at = fmt::format("resources[{}]", index);
  if (!entry.is_object() || entry.size() != 1) {
    return invalidInput("{}: expected an object with one key naming the resource kind, got {}", at,
                        entry.is_object() ? fmt::format("{} keys", entry.size()) : std::string(entry.type_name()));
  }
  const std::string key = entry.begin().key();
  const json& o = entry.begin().value();
  const std::string path = at + "." + key;
  static const std::map<std::string, ResourceKind> kinds = {
      {"buffer", ResourceKind::Buffer},         {"tensor", ResourceKind::Tensor},
      {"raw_data", ResourceKind::RawData},      {"graph", ResourceKind::Graph},
      {"shader", ResourceKind::Shader},         {"memory_barrier", ResourceKind::MemoryBarrier},
      {"buffer_barrier", ResourceKind::BufferBarrier}, {"tensor_barrier", ResourceKind::TensorBarrier}};
  auto kind = kinds.find(key);
  if (kind == kinds.end()) {
    if (key == "image" || key == "image_barrier" || key == "graph_constant") {
      return unsupported("{}: resource kind '{}' is not supported by openvgf; it runs buffer, tensor, raw_data, "
                         "graph, shader, memory_barrier, buffer_barrier and tensor_barrier",
                         path, key);
    }
    return invalidInput("{}: unknown resource kind '{}'", path, key);
  }
  Resource r;
  r.kind = kind->second;
  if (!o.is_object()) return invalidInput("{}: expected an object, got {}", path, o.type_name());
  OPENVGF_ASSIGN_OR_RETURN(r.uid, stringField(o, path, "uid", true));
  r.where = fmt::format("{} ({} '{}')", at, key, r.uid);
  if (!uids_.emplace(r.uid, scenario_.resources.size()).second) {
    return invalidInput("{}.uid: '{}' is already the uid of {}", path, r.uid,
                        scenario_.resources[uids_[r.uid]].where);
  }
  switch (r.kind) {
    case ResourceKind::Tensor: OPENVGF_TRY(parseTensor(o, path, r)); break;
    case ResourceKind::Buffer: OPENVGF_TRY(parseBuffer(o, path, r)); break;
    case ResourceKind::RawData: OPENVGF_TRY(parseRawData(o, path, r)); break;
    case ResourceKind::Graph: OPENVGF_TRY(parseGraph(o, path, r)); break;
    case ResourceKind::Shader: OPENVGF_TRY(parseShader(o, path, r)); break;
    case ResourceKind::MemoryBarrier: OPENVGF_TRY(parseBarrier(o, path, r, nullptr)); break;
    case ResourceKind::BufferBarrier: OPENVGF_TRY(parseBarrier(o, path, r, "buffer_resource")); break;
    case ResourceKind::TensorBarrier: OPENVGF_TRY(parseBarrier(o, path, r, "tensor_resource")); break;
  }
  totalBytes_ += r.bytes;
  if (totalBytes_ > kMaxScenarioBytes) {
    return unsupported("{}: the scenario's buffers and tensors need more than {} bytes together", path,
                       kMaxScenarioBytes);
  }
  scenario_.resources.push_back(std::move(r));
  return {};
}

constexpr FieldRule kMemoryGroup{"memory_group", "memory aliasing between resources (each resource has its own memory)"};

Status Loader::parseTensor(const json& o, const std::string& path, Resource& r) {
  OPENVGF_TRY(checkFields(o, path, {{"uid", nullptr}, {"dims", nullptr}, {"format", nullptr},
                                    {"shader_access", nullptr}, {"src", nullptr}, {"dst", nullptr},
                                    {"tiling", nullptr}, kMemoryGroup}));
  OPENVGF_TRY(enumField(o, path, "shader_access", true, {"readonly", "writeonly", "readwrite", "image_read"}));
  OPENVGF_TRY(enumField(o, path, "tiling", false, {"OPTIMAL", "LINEAR"}));
  r.readOnly = o["shader_access"] == "readonly";
  OPENVGF_ASSIGN_OR_RETURN(std::string formatName, stringField(o, path, "format", true));
  const TensorFormat* format = findFormat(formatName);
  if (format == nullptr) {
    return invalidInput("{}.format: expected one of {}, got '{}'", path, formatNames(), formatName);
  }
  r.vkFormat = static_cast<std::uint32_t>(format->format);
  r.dstType = format->npy;
  auto dims = o.find("dims");
  if (dims == o.end()) return invalidInput("{}: missing required field 'dims'", path);
  if (!dims->is_array() || dims->empty() || dims->size() > 6) {
    return invalidInput("{}.dims: expected an array of 1 to 6 sizes, got {}", path, dims->dump());
  }
  std::uint64_t elements = 1;
  for (std::size_t i = 0; i < dims->size(); ++i) {
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t d, intField((*dims)[i], fmt::format("{}.dims[{}]", path, i), 1,
                                                      std::int64_t(kMaxResourceBytes)));
    r.dims.push_back(d);
    elements *= static_cast<std::uint64_t>(d);
    if (elements > kMaxResourceBytes) {
      return unsupported("{}.dims: expected at most {} bytes per tensor, got more", path, kMaxResourceBytes);
    }
  }
  r.bytes = elements * tosa::npy::elementBytes(format->npy);
  if (r.bytes > kMaxResourceBytes) {
    return unsupported("{}.dims: expected at most {} bytes per tensor, got {}", path, kMaxResourceBytes, r.bytes);
  }
  OPENVGF_ASSIGN_OR_RETURN(std::string src, stringField(o, path, "src", false));
  if (!src.empty()) {
    OPENVGF_ASSIGN_OR_RETURN(tosa::npy::Array array, tosa::npy::readFile(resolve(src)));
    if (array.shape != r.dims) {
      return invalidInput("{}.src: '{}' has shape {}, expected dims {}", path, src, fmt::join(array.shape, "x"),
                          fmt::join(r.dims, "x"));
    }
    if (!npyMatches(array.dtype, *format)) {
      return invalidInput("{}.src: '{}' holds {}, expected {} for {} (bytes are never reinterpreted)", path, src,
                          tosa::npy::toString(array.dtype), tosa::npy::toString(format->npy), formatName);
    }
    r.initial = std::move(array.data);
  }
  OPENVGF_ASSIGN_OR_RETURN(std::string dst, stringField(o, path, "dst", false));
  if (!dst.empty()) r.dst = resolve(dst);
  return {};
}

Status Loader::parseBuffer(const json& o, const std::string& path, Resource& r) {
  // `format` is no field of a buffer in scenario-runner's schema, but its own barrier test
  // scenarios carry one and it ignores it; so does openvgf (a buffer is bytes).
  OPENVGF_TRY(checkFields(o, path, {{"uid", nullptr}, {"size", nullptr}, {"shader_access", nullptr},
                                    {"src", nullptr}, {"dst", nullptr}, {"format", nullptr}, kMemoryGroup}));
  OPENVGF_TRY(enumField(o, path, "shader_access", true, {"readonly", "writeonly", "readwrite"}));
  r.readOnly = o["shader_access"] == "readonly";
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t size, intField(o, path, "size", 1, std::int64_t(kMaxResourceBytes), {}));
  r.bytes = static_cast<std::uint64_t>(size);
  OPENVGF_ASSIGN_OR_RETURN(std::string src, stringField(o, path, "src", false));
  if (!src.empty()) {
    OPENVGF_ASSIGN_OR_RETURN(tosa::npy::Array array, tosa::npy::readFile(resolve(src)));
    if (array.data.size() != r.bytes) {
      return invalidInput("{}.src: '{}' holds {} bytes of data, expected size {}", path, src, array.data.size(),
                          r.bytes);
    }
    r.initial = std::move(array.data);
  }
  OPENVGF_ASSIGN_OR_RETURN(std::string dst, stringField(o, path, "dst", false));
  if (!dst.empty()) r.dst = resolve(dst);
  r.dstType = DataType::Int8;  // scenario-runner writes a buffer as int8 bytes, shape [size]
  return {};
}

Status Loader::parseRawData(const json& o, const std::string& path, Resource& r) {
  OPENVGF_TRY(checkFields(o, path, {{"uid", nullptr}, {"src", nullptr}}));
  OPENVGF_ASSIGN_OR_RETURN(std::string src, stringField(o, path, "src", true));
  OPENVGF_ASSIGN_OR_RETURN(tosa::npy::Array array, tosa::npy::readFile(resolve(src)));
  r.initial = std::move(array.data);
  return {};
}

Status Loader::parseGraph(const json& o, const std::string& path, Resource& r) {
  OPENVGF_TRY(checkFields(
      o, path,
      {{"uid", nullptr}, {"src", nullptr}, {"push_constants_size", nullptr},
       {"specialization_constants_map", "specialization constants of shader nodes in a graph"},
       {"shader_substitutions", "substituting shader nodes of a graph"}}));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t push, intField(o, path, "push_constants_size", 0, 0, 0));
  (void)push;
  OPENVGF_ASSIGN_OR_RETURN(std::string src, stringField(o, path, "src", true));
  r.vgf = resolve(src);
  OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(r.vgf));
  OPENVGF_ASSIGN_OR_RETURN(vgf::File decoded, withContext(vgf::decode(file.bytes()), r.vgf.string()));
  auto slots = [&](const std::vector<vgf::BindingSlot>& from, std::vector<GraphSlot>& to, const char* what) -> Status {
    for (std::size_t i = 0; i < from.size(); ++i) {
      const vgf::Resource& res = decoded.resources[from[i].mrtIndex];
      GraphSlot slot{from[i].binding, res.vkFormat, {}, 0};
      std::uint64_t elements = 1;
      for (std::int64_t d : res.shape) {
        if (d < 1) {
          return unsupported("{}.src: {} {} of '{}' has a dynamic or empty shape; scenarios bind static shapes",
                             path, what, i, src);
        }
        slot.shape.push_back(d);
        elements *= static_cast<std::uint64_t>(d);
      }
      slot.bytes = elements * storageElementBytes(res.vkFormat);
      to.push_back(std::move(slot));
    }
    return {};
  };
  OPENVGF_TRY(slots(decoded.inputs, r.inputs, "input"));
  OPENVGF_TRY(slots(decoded.outputs, r.outputs, "output"));
  return {};
}

constexpr const char* kCompileGlsl =
    "openvgf runs SPIR-V shaders; compile it with `glslangValidator -V --target-env vulkan1.3 SHADER -o "
    "SHADER.spv` and give the .spv with \"type\": \"SPIR-V\"";

Status Loader::parseShader(const json& o, const std::string& path, Resource& r) {
  OPENVGF_TRY(checkFields(o, path, {{"uid", nullptr}, {"src", nullptr}, {"type", nullptr}, {"entry", nullptr},
                                    {"stage", nullptr}, {"push_constants_size", nullptr},
                                    {"specialization_constants", "specialization constants (compile them into the "
                                                                 "SPIR-V)"},
                                    {"build_options", kCompileGlsl},
                                    {"include_dirs", kCompileGlsl}}));
  OPENVGF_TRY(enumField(o, path, "type", true, {"SPIR-V", "GLSL", "HLSL"}));
  if (o["type"] != "SPIR-V") {
    return unsupported("{}.type: '{}' shaders are not supported: {}", path, o["type"].get<std::string>(),
                       kCompileGlsl);
  }
  OPENVGF_TRY(enumField(o, path, "stage", false, {"compute", "vertex", "fragment"}));
  if (o.contains("stage") && o["stage"] != "compute") {
    return unsupported("{}.stage: '{}' shaders are not supported: openvgf runs compute shaders only", path,
                       o["stage"].get<std::string>());
  }
  OPENVGF_ASSIGN_OR_RETURN(std::string entry, stringField(o, path, "entry", false));
  if (!entry.empty()) r.entry = entry;
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t push, intField(o, path, "push_constants_size", 0, 128, 0));
  if (push % 4 != 0) return invalidInput("{}.push_constants_size: expected a multiple of 4, got {}", path, push);
  r.pushConstantBytes = static_cast<std::uint32_t>(push);
  OPENVGF_ASSIGN_OR_RETURN(std::string src, stringField(o, path, "src", true));
  const fs::path file = resolve(src);
  OPENVGF_ASSIGN_OR_RETURN(MappedFile mapped, MappedFile::open(file));
  std::span<const std::uint8_t> bytes = mapped.bytes();
  if (bytes.size() % 4 != 0 || bytes.size() < 20) {
    return invalidInput("{}.src: '{}' is not SPIR-V: expected a whole number of 32-bit words after a 5-word "
                        "header, got {} bytes",
                        path, src, bytes.size());
  }
  r.spirv.resize(bytes.size() / 4);
  std::memcpy(r.spirv.data(), bytes.data(), bytes.size());
  const std::string where = fmt::format("{}.src: '{}'", path, src);
  OPENVGF_ASSIGN_OR_RETURN(vgf::SpirvModule module, withContext(vgf::reflectSpirv(r.spirv), where));
  const vgf::SpirvEntryPoint* ep = module.findEntryPoint(r.entry);
  if (ep == nullptr || ep->executionModel != vgf::kSpirvGlCompute) {
    return invalidInput("{}: expected a GLCompute entry point '{}', got {}", where, r.entry,
                        ep == nullptr ? "none of that name" : "another execution model");
  }
  if (ep->localSize[0] == 0 || ep->localSize[1] == 0 || ep->localSize[2] == 0) {
    return invalidInput("{}: expected a workgroup size of at least 1x1x1, got {}", where,
                        fmt::join(ep->localSize, "x"));
  }
  OPENVGF_TRY(withContext(checkComputeModule(r.spirv, module, *ep), where));
  for (const vgf::SpirvDescriptor& d : ep->descriptors) {
    if (!d.hasBinding) return invalidInput("{}: variable %{} has no DescriptorSet/Binding decorations", where, d.id);
    if (d.kind != vgf::SpirvDescriptorKind::StorageBuffer || d.descriptorCount != 1) {
      return unsupported("{}: set {} binding {} is not a single storage buffer; openvgf binds buffers and tensors "
                         "as storage buffers (no images, uniform buffers, VK_ARM_tensors descriptors or arrays)",
                         where, d.set, d.binding);
    }
  }
  r.descriptors = ep->descriptors;
  r.usesPushConstants = ep->pushConstants;
  if (r.usesPushConstants && r.pushConstantBytes == 0) {
    return invalidInput("{}: the shader uses push constants, expected push_constants_size > 0", path);
  }
  OPENVGF_ASSIGN_OR_RETURN(vulkan::ShaderNeeds needs,
                           withContext(vulkan::shaderNeeds({.capabilities = module.capabilities,
                                                            .localSizeId = ep->localSizeId,
                                                            .roundingModeRte = ep->roundingModeRteWidths,
                                                            .workgroupScopeMatrices = module.workgroupScopeMatrices}),
                                       where));
  scenario_.features |= needs.features;
  r.localSize = ep->localSize;
  return {};
}

const std::initializer_list<std::string_view> kAccess = {"compute_shader_write", "compute_shader_read",
                                                             "graph_write", "graph_read", "memory_write",
                                                             "memory_read"};

Status Loader::parseBarrier(const json& o, const std::string& path, Resource& r, const char* targetKey) {
  if (targetKey == nullptr) {
    OPENVGF_TRY(checkFields(o, path, {{"uid", nullptr}, {"src_access", nullptr}, {"dst_access", nullptr},
                                      {"src_stage", nullptr}, {"dst_stage", nullptr}}));
  } else if (r.kind == ResourceKind::BufferBarrier) {
    OPENVGF_TRY(checkFields(o, path, {{"uid", nullptr}, {"src_access", nullptr}, {"dst_access", nullptr},
                                      {"src_stage", nullptr}, {"dst_stage", nullptr}, {"buffer_resource", nullptr},
                                      {"size", nullptr}, {"offset", nullptr}}));
  } else {
    OPENVGF_TRY(checkFields(o, path, {{"uid", nullptr}, {"src_access", nullptr}, {"dst_access", nullptr},
                                      {"src_stage", nullptr}, {"dst_stage", nullptr}, {"tensor_resource", nullptr}}));
  }
  OPENVGF_TRY(enumField(o, path, "src_access", true, kAccess));
  OPENVGF_TRY(enumField(o, path, "dst_access", true, kAccess));
  for (const char* key : {"src_stage", "dst_stage"}) {
    auto it = o.find(key);
    if (it == o.end()) continue;
    if (!it->is_array()) return invalidInput("{}.{}: expected an array, got {}", path, key, it->type_name());
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& v = (*it)[i];
      if (!v.is_string() || (v != "graph" && v != "compute" && v != "graphics" && v != "all")) {
        return invalidInput("{}.{}[{}]: expected one of graph, compute, graphics, all, got {}", path, key, i,
                            v.dump());
      }
    }
  }
  if (targetKey != nullptr) {
    OPENVGF_ASSIGN_OR_RETURN(std::string target, stringField(o, path, targetKey, true));
    barrierTargets_[scenario_.resources.size()] = target;
  }
  if (r.kind == ResourceKind::BufferBarrier) {
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t size, intField(o, path, "size", 0, std::int64_t(kMaxResourceBytes), {}));
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t offset, intField(o, path, "offset", 0, std::int64_t(kMaxResourceBytes), 0));
    r.rangeOffset = static_cast<std::uint64_t>(offset);  // checked against the buffer once it is known
    r.rangeSize = static_cast<std::uint64_t>(size);
  }
  return {};
}

Status Loader::resolveBarrierTargets() {
  for (const auto& [index, uid] : barrierTargets_) {
    Resource& r = scenario_.resources[index];
    const bool buffer = r.kind == ResourceKind::BufferBarrier;
    const std::string path = r.where + (buffer ? ".buffer_resource" : ".tensor_resource");
    OPENVGF_ASSIGN_OR_RETURN(std::size_t target,
                             lookup(uid, path, {buffer ? ResourceKind::Buffer : ResourceKind::Tensor}));
    if (buffer) {
      if (r.rangeOffset + r.rangeSize > scenario_.resources[target].bytes) {
        return invalidInput("{}: offset {} + size {} reaches past the end of buffer '{}' ({} bytes)", r.where,
                            r.rangeOffset, r.rangeSize, uid, scenario_.resources[target].bytes);
      }
    }
    r.target = target;
  }
  return {};
}

Result<std::size_t> Loader::lookup(const std::string& uid, const std::string& path,
                                   std::initializer_list<ResourceKind> kinds) const {
  std::vector<const char*> names;
  for (ResourceKind k : kinds) names.push_back(toString(k));
  auto it = uids_.find(uid);
  if (it == uids_.end()) {
    return invalidInput("{}: '{}' names no resource; expected the uid of a {} resource", path, uid,
                        fmt::join(names, " or "));
  }
  const Resource& r = scenario_.resources[it->second];
  if (std::find(kinds.begin(), kinds.end(), r.kind) == kinds.end()) {
    return invalidInput("{}: '{}' is {}, expected a {} resource", path, uid, r.where, fmt::join(names, " or "));
  }
  return it->second;
}

Result<std::size_t> Loader::reference(const json& object, const std::string& path, const char* key,
                                      std::initializer_list<ResourceKind> kinds) {
  OPENVGF_ASSIGN_OR_RETURN(std::string uid, stringField(object, path, key, true));
  return lookup(uid, path + "." + key, kinds);
}

Result<std::vector<Binding>> Loader::parseBindings(const json& o, const std::string& path) {
  auto it = o.find("bindings");
  if (it == o.end()) return invalidInput("{}: missing required field 'bindings'", path);
  if (!it->is_array()) return invalidInput("{}.bindings: expected an array, got {}", path, it->type_name());
  std::vector<Binding> bindings;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& b = (*it)[i];
    const std::string at = fmt::format("{}.bindings[{}]", path, i);
    OPENVGF_TRY(checkFields(b, at, {{"set", nullptr}, {"id", nullptr}, {"resource_ref", nullptr},
                                    {"lod", "image levels of detail (openvgf binds buffers and tensors)"},
                                    {"descriptor_type", nullptr}}));
    if (b.contains("descriptor_type") && b["descriptor_type"] != "VK_DESCRIPTOR_TYPE_AUTO") {
      return unsupported("{}.descriptor_type: {} is not supported: openvgf binds buffers and tensors as storage "
                         "buffers (VK_DESCRIPTOR_TYPE_AUTO)",
                         at, b["descriptor_type"].dump());
    }
    Binding binding;
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t set, intField(b, at, "set", 0, 31, {}));
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t id, intField(b, at, "id", 0, INT32_MAX, {}));
    binding.set = static_cast<std::uint32_t>(set);
    binding.binding = static_cast<std::uint32_t>(id);
    OPENVGF_ASSIGN_OR_RETURN(binding.resource,
                             reference(b, at, "resource_ref", {ResourceKind::Buffer, ResourceKind::Tensor}));
    bindings.push_back(binding);
  }
  return bindings;
}

Status Loader::parseCommand(const json& entry, std::size_t index) {
  const std::string at = fmt::format("commands[{}]", index);
  if (!entry.is_object() || entry.size() != 1) {
    return invalidInput("{}: expected an object with one key naming the command, got {}", at,
                        entry.is_object() ? fmt::format("{} keys", entry.size()) : std::string(entry.type_name()));
  }
  const std::string key = entry.begin().key();
  const json& o = entry.begin().value();
  const std::string path = at + "." + key;
  Command c;
  c.where = fmt::format("{} ({})", at, key);
  if (key == "dispatch_compute") {
    c.kind = CommandKind::DispatchCompute;
    OPENVGF_TRY(parseDispatchCompute(o, path, c));
    scenario_.hasCompute = true;
  } else if (key == "dispatch_graph") {
    c.kind = CommandKind::DispatchGraph;
    OPENVGF_TRY(parseDispatchGraph(o, path, c));
  } else if (key == "dispatch_barrier") {
    c.kind = CommandKind::DispatchBarrier;
    OPENVGF_TRY(parseDispatchBarrier(o, path));
  } else if (key == "mark_boundary") {
    c.kind = CommandKind::MarkBoundary;
    OPENVGF_TRY(parseMarkBoundary(o, path));
  } else if (key == "dispatch_fragment" || key == "dispatch_spirv_graph" || key == "dispatch_optical_flow") {
    return unsupported("{}: command '{}' is not supported by openvgf; it runs dispatch_compute, dispatch_graph, "
                       "dispatch_barrier and mark_boundary",
                       path, key);
  } else {
    return invalidInput("{}: unknown command '{}'", path, key);
  }
  scenario_.commands.push_back(std::move(c));
  return {};
}

Status Loader::parseDispatchCompute(const json& o, const std::string& path, Command& c) {
  OPENVGF_TRY(checkFields(o, path, {{"shader_ref", nullptr}, {"bindings", nullptr}, {"rangeND", nullptr},
                                    {"push_data_ref", nullptr}, {"implicit_barrier", nullptr}}));
  OPENVGF_TRY(boolField(o, path, "implicit_barrier"));
  OPENVGF_ASSIGN_OR_RETURN(c.target, reference(o, path, "shader_ref", {ResourceKind::Shader}));
  const Resource& shader = scenario_.resources[c.target];
  auto range = o.find("rangeND");
  if (range == o.end()) return invalidInput("{}: missing required field 'rangeND'", path);
  if (!range->is_array() || range->empty() || range->size() > 3) {
    return invalidInput("{}.rangeND: expected 1 to 3 workgroup counts, got {}", path, range->dump());
  }
  std::uint64_t invocations = std::uint64_t{shader.localSize[0]} * shader.localSize[1] * shader.localSize[2];
  for (std::size_t i = 0; i < range->size(); ++i) {
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t n, intField((*range)[i], fmt::format("{}.rangeND[{}]", path, i), 1,
                                                      INT32_MAX));
    c.groups[i] = static_cast<std::uint32_t>(n);
    invocations *= static_cast<std::uint64_t>(n);
    if (invocations > kMaxDispatchInvocations) {
      return unsupported("{}.rangeND: expected at most {} shader invocations per dispatch, got more", path,
                         kMaxDispatchInvocations);
    }
  }
  if (o.contains("push_data_ref")) {
    OPENVGF_ASSIGN_OR_RETURN(std::size_t push, reference(o, path, "push_data_ref", {ResourceKind::RawData}));
    if (scenario_.resources[push].initial.size() < shader.pushConstantBytes) {
      return invalidInput("{}.push_data_ref: '{}' holds {} bytes, expected at least push_constants_size {} of {}",
                          path, scenario_.resources[push].uid, scenario_.resources[push].initial.size(),
                          shader.pushConstantBytes, shader.where);
    }
    c.pushData = push;
  } else if (shader.usesPushConstants) {
    return invalidInput("{}: {} uses push constants, expected a push_data_ref", path, shader.where);
  }
  OPENVGF_ASSIGN_OR_RETURN(c.bindings, parseBindings(o, path));
  // Every binding names a descriptor of the shader, and every descriptor is bound once.
  for (std::size_t i = 0; i < c.bindings.size(); ++i) {
    const Binding& b = c.bindings[i];
    const std::string at = fmt::format("{}.bindings[{}]", path, i);
    for (std::size_t j = 0; j < i; ++j) {
      if (c.bindings[j].set == b.set && c.bindings[j].binding == b.binding) {
        return invalidInput("{}: set {} id {} is bound twice (also bindings[{}])", at, b.set, b.binding, j);
      }
      if (c.bindings[j].resource == b.resource) {
        return unsupported("{}: '{}' is also bound by bindings[{}]; openvgf binds a resource once per dispatch", at,
                           scenario_.resources[b.resource].uid, j);
      }
    }
    auto d = std::find_if(shader.descriptors.begin(), shader.descriptors.end(), [&](const vgf::SpirvDescriptor& x) {
      return x.set == b.set && x.binding == b.binding;
    });
    if (d == shader.descriptors.end()) {
      return invalidInput("{}: set {} id {} is no descriptor of {}'s entry point", at, b.set, b.binding,
                          shader.where);
    }
    const Resource& r = scenario_.resources[b.resource];
    if (d->staticBytes > r.bytes) {
      return invalidInput("{}: the shader's block at set {} binding {} needs {} bytes, '{}' has {}", at, b.set,
                          b.binding, d->staticBytes, r.uid, r.bytes);
    }
  }
  for (const vgf::SpirvDescriptor& d : shader.descriptors) {
    if (std::none_of(c.bindings.begin(), c.bindings.end(),
                     [&](const Binding& b) { return b.set == d.set && b.binding == d.binding; })) {
      return invalidInput("{}.bindings: {} uses set {} binding {}, expected a binding for it", path, shader.where,
                          d.set, d.binding);
    }
  }
  return {};
}

Status Loader::parseDispatchGraph(const json& o, const std::string& path, Command& c) {
  OPENVGF_TRY(checkFields(o, path, {{"graph_ref", nullptr}, {"bindings", nullptr}, {"implicit_barrier", nullptr},
                                    {"push_constants", "push constants of shader nodes in a graph"},
                                    {"shader_substitutions", "substituting shader nodes of a graph"}}));
  OPENVGF_TRY(boolField(o, path, "implicit_barrier"));
  OPENVGF_ASSIGN_OR_RETURN(c.target, reference(o, path, "graph_ref", {ResourceKind::Graph}));
  const Resource& graph = scenario_.resources[c.target];
  OPENVGF_ASSIGN_OR_RETURN(c.bindings, parseBindings(o, path));
  constexpr std::size_t kUnbound = SIZE_MAX;
  c.graphInputs.assign(graph.inputs.size(), kUnbound);
  c.graphOutputs.assign(graph.outputs.size(), kUnbound);
  const std::string vgfName = graph.vgf.filename().string();
  // scenario-runner matches a binding to the model's input slots, then its output slots, by
  // `id` alone (the set is not compared).
  for (std::size_t i = 0; i < c.bindings.size(); ++i) {
    const Binding& b = c.bindings[i];
    const std::string at = fmt::format("{}.bindings[{}]", path, i);
    auto match = [&](const std::vector<GraphSlot>& slots) -> std::optional<std::size_t> {
      for (std::size_t s = 0; s < slots.size(); ++s) {
        if (slots[s].binding == b.binding) return s;
      }
      return std::nullopt;
    };
    std::optional<std::size_t> slot = match(graph.inputs);
    const bool output = !slot;
    if (!slot) slot = match(graph.outputs);
    if (!slot) {
      std::vector<std::uint32_t> ins, outs;
      for (const GraphSlot& s : graph.inputs) ins.push_back(s.binding);
      for (const GraphSlot& s : graph.outputs) outs.push_back(s.binding);
      return invalidInput("{}: id {} is neither an input nor an output of '{}' (inputs: ids {}; outputs: ids {})", at,
                          b.binding, vgfName, fmt::join(ins, ", "), fmt::join(outs, ", "));
    }
    std::vector<std::size_t>& bound = output ? c.graphOutputs : c.graphInputs;
    if (bound[*slot] != kUnbound) return invalidInput("{}: id {} is bound twice", at, b.binding);
    const GraphSlot& s = (output ? graph.outputs : graph.inputs)[*slot];
    const Resource& r = scenario_.resources[b.resource];
    const char* what = output ? "output" : "input";
    if (r.kind == ResourceKind::Tensor && (r.dims != s.shape || r.vkFormat != s.vkFormat)) {
      return invalidInput("{}: {} {} (id {}) of '{}' is a {} tensor of shape {}, tensor '{}' is a {} tensor of "
                          "shape {}",
                          at, what, *slot, b.binding, vgfName, formatShortName(s.vkFormat), fmt::join(s.shape, "x"),
                          r.uid, formatShortName(r.vkFormat), fmt::join(r.dims, "x"));
    }
    if (r.kind == ResourceKind::Buffer && r.bytes != s.bytes) {
      return invalidInput("{}: {} {} (id {}) of '{}' holds {} bytes, buffer '{}' has size {}", at, what, *slot,
                          b.binding, vgfName, s.bytes, r.uid, r.bytes);
    }
    bound[*slot] = b.resource;
  }
  for (auto [slots, bound, what] : {std::tuple{&graph.inputs, &c.graphInputs, "input"},
                                    std::tuple{&graph.outputs, &c.graphOutputs, "output"}}) {
    for (std::size_t s = 0; s < slots->size(); ++s) {
      if ((*bound)[s] == kUnbound) {
        return invalidInput("{}.bindings: {} {} (id {}) of '{}' is not bound", path, what, s, (*slots)[s].binding,
                            vgfName);
      }
    }
  }
  return {};
}

Status Loader::parseDispatchBarrier(const json& o, const std::string& path) {
  OPENVGF_TRY(checkFields(o, path, {{"image_barrier_refs", nullptr}, {"tensor_barrier_refs", nullptr},
                                    {"memory_barrier_refs", nullptr}, {"buffer_barrier_refs", nullptr}}));
  const std::pair<const char*, ResourceKind> lists[] = {{"tensor_barrier_refs", ResourceKind::TensorBarrier},
                                                        {"memory_barrier_refs", ResourceKind::MemoryBarrier},
                                                        {"buffer_barrier_refs", ResourceKind::BufferBarrier},
                                                        {"image_barrier_refs", ResourceKind::MemoryBarrier}};
  for (const auto& [key, kind] : lists) {
    auto it = o.find(key);
    if (it == o.end()) continue;
    if (!it->is_array()) return invalidInput("{}.{}: expected an array of uids, got {}", path, key, it->type_name());
    if (std::string_view(key) == "image_barrier_refs" && !it->empty()) {
      return unsupported("{}.image_barrier_refs: image barriers are not supported by openvgf (no image resources)",
                         path);
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string at = fmt::format("{}.{}[{}]", path, key, i);
      if (!(*it)[i].is_string()) return invalidInput("{}: expected a uid, got {}", at, (*it)[i].dump());
      OPENVGF_TRY(lookup((*it)[i].get<std::string>(), at, {kind}));
    }
  }
  return {};
}

Status Loader::parseMarkBoundary(const json& o, const std::string& path) {
  OPENVGF_TRY(checkFields(o, path, {{"resources", nullptr}, {"frame_id", nullptr}}));
  auto it = o.find("resources");
  if (it == o.end()) return invalidInput("{}: missing required field 'resources'", path);
  if (!it->is_array()) return invalidInput("{}.resources: expected an array of uids, got {}", path, it->type_name());
  for (std::size_t i = 0; i < it->size(); ++i) {
    const std::string at = fmt::format("{}.resources[{}]", path, i);
    if (!(*it)[i].is_string()) return invalidInput("{}: expected a uid, got {}", at, (*it)[i].dump());
    OPENVGF_TRY(lookup((*it)[i].get<std::string>(), at, {ResourceKind::Buffer, ResourceKind::Tensor}));
  }
  return {};
}

}  // namespace

const char* toString(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::Buffer: return "buffer";
    case ResourceKind::Tensor: return "tensor";
    case ResourceKind::RawData: return "raw_data";
    case ResourceKind::Graph: return "graph";
    case ResourceKind::Shader: return "shader";
    case ResourceKind::MemoryBarrier: return "memory_barrier";
    case ResourceKind::BufferBarrier: return "buffer_barrier";
    case ResourceKind::TensorBarrier: return "tensor_barrier";
  }
  return "?";
}

Result<Scenario> load(const std::filesystem::path& file) {
  OPENVGF_ASSIGN_OR_RETURN(MappedFile mapped, MappedFile::open(file));
  std::span<const std::uint8_t> bytes = mapped.bytes();
  json root = json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return invalidInput("{}: expected a JSON document, got text that does not parse as JSON", file.string());
  }
  Loader loader(file);
  OPENVGF_TRY(withContext(loader.run(root), file.string()));
  return loader.take();
}

}  // namespace openvgf::runner::scenario
