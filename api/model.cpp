// SPDX-License-Identifier: Apache-2.0
// Opening model files: kind detection, lowering to a COMPUTE VGF (with the model cache),
// runner::Model validation, and the device (see model.h).
#include "api/model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "api/model_cache.h"
#include "common/suggest.h"
#include "api/convert.h"
#include "api/devices.h"
#include "common/cache_dir.h"
#include "common/input_binding.h"
#include "converter/convert.h"
#include "converter/lower_vgf.h"
#include "converter/targets/fingerprint.h"
#include "converter/variables.h"
#include "pte/program.h"
#include "pte/run_plan.h"
#include "tosa/reader.h"
#include "tosa/verifier.h"
#include "vgf/decoder.h"

namespace openvgf::api {
namespace {

std::filesystem::path cacheFolder(const std::filesystem::path& root) { return root.empty() ? cacheRoot() : root; }

Status checkVulkanTarget(const std::string& path, const std::string& target) {
  if (target == "portable" || target == "native") return {};
  return invalidInput("{}: target: expected portable or native (the Vulkan targets), got '{}'{}", path, target,
                      didYouMean(target, {"portable", "native"}));
}

// What converting or lowering for `options` takes: the target, for "native" the facts of the
// device the model will be opened on, the tuning overrides, and the SPIR-V cache.
Result<converter::ConvertOptions> convertOptions(const std::string& path, const LoadOptions& options) {
  OPENVGF_TRY(checkVulkanTarget(path, options.target));
  converter::ConvertOptions convert;
  convert.target = options.target;
  OPENVGF_TRY(prepareNativeTarget(convert, options.device, options.tuning));
  convert.useCache = options.modelCache;
  if (!options.cacheDir.empty()) convert.cacheDir = options.cacheDir / "spirv";
  return convert;
}

// On a CPU device (lavapipe) the portable target converts for a CPU: ConvertOptions::forCpuDevice
// (no SPIR-V optimizer, the tuning table's CPU entry) with the device's facts in
// ConvertOptions::device (the CPU entry's kernels need its subgroup size). Asked only after the
// cache missed the conversion for a GPU, so a warm start on a GPU probes no device; the native
// target knows its device already. A device that cannot be probed counts as a GPU: the
// conversion is then the one `convert` makes. Returns whether `convert` changed.
bool retryForCpu(const LoadOptions& options, converter::ConvertOptions& convert) {
  if (options.target != "portable" || convert.forCpuDevice) return false;
  Result<DeviceCaps> caps = nativeDeviceCaps(options.device);
  if (!caps || !caps->cpu) return false;
  convert.forCpuDevice = true;
  convert.device = *caps;
  return true;
}

struct ComputeVgf {
  std::vector<std::uint8_t> bytes;  // empty: the source file itself is the VGF
  std::optional<vgf::File> file;    // `bytes` decoded, when it was (views bytes' buffer)
  bool fromCache = false;
  std::map<std::string, tosa::HostTensor> defaults;
  std::vector<tosa::ComputedTensor> computed;  // LoadOptions::keepIntermediates
};

// .tosa -> VGF through the model cache.
Result<ComputeVgf> convertTosa(std::span<const std::uint8_t> bytes, const std::string& path, const LoadOptions& options) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, tosa::readGraph(bytes, path));
  OPENVGF_TRY(withContext(tosa::verify(graph), path));
  OPENVGF_ASSIGN_OR_RETURN(converter::ConvertOptions convert, convertOptions(path, options));
  ComputeVgf result;
  result.defaults = converter::initialStates(graph);
  if (options.keepIntermediates) result.computed = tosa::keepIntermediates(graph);
  const std::filesystem::path root = cacheFolder(options.cacheDir);
  std::filesystem::path cached;
  std::string key;
  auto lookUp = [&](const converter::Target& target) {
    if (!options.modelCache || root.empty()) return false;
    // The graph with its intermediates as outputs converts to another VGF: another key.
    key = modelCacheKey(bytes, converter::fingerprint(target) + (options.keepIntermediates ? " intermediates" : ""));
    cached = modelCachePath(root, key);
    if (std::optional<std::vector<std::uint8_t>> hit = readCachedModel(cached, key)) {
      result.bytes = std::move(*hit);
      if (Result<vgf::File> decoded = vgf::decode(result.bytes)) {
        spdlog::debug("{}: converted model from the cache: {}", path, cached.string());
        result.file = std::move(*decoded);
        result.fromCache = true;
        return true;
      }
      result.bytes.clear();  // a damaged entry is converted again and overwritten
    }
    return false;
  };
  // The conversion for a GPU, then (on a miss, where the device is a CPU) the one for a CPU.
  OPENVGF_ASSIGN_OR_RETURN(converter::Target target, converter::resolveTarget(convert));
  if (lookUp(target)) return result;
  if (retryForCpu(options, convert)) {
    OPENVGF_ASSIGN_OR_RETURN(target, converter::resolveTarget(convert));
    if (lookUp(target)) return result;
  }
  convert.customTarget = target;
  Result<converter::ConvertedModel> converted = converter::convert(graph, convert);
  if (!converted) return Unexpected(std::move(converted).error().addContext(path));
  result.bytes = std::move(converted->vgf);
  if (!cached.empty()) {
    if (Status stored = writeCachedModel(cached, key, result.bytes); !stored) {
      spdlog::warn("converted model not cached: {}", stored.error().message());
    }
  }
  return result;
}

// Makes `part` runnable from the VGF `bytes` (views of them stay valid for the LoadedModel's
// life): a VGF with GRAPH segments (Arm's TOSA.001000.1 SPIR-V graphs) is lowered to COMPUTE
// segments (converter/lower_vgf.h, cached under <cache root>/lowered) for the input shapes
// `shapes` gives, else the VGF runs as it is. `decoded`: `bytes` already decoded (a cache
// hit), so no VGF is decoded twice.
using ShapesOf = std::function<Result<std::vector<tosa::Shape>>(const std::vector<std::string>& names)>;
Status lowerPart(ModelPart& part, std::span<const std::uint8_t> bytes, const LoadOptions& options, const ShapesOf& shapes,
                 std::optional<vgf::File> decoded = std::nullopt) {
  Result<vgf::File> file = decoded ? Result<vgf::File>(std::move(*decoded)) : withContext(vgf::decode(bytes), part.where);
  if (!file) return Unexpected(std::move(file).error());
  part.unsignedInputs = converter::unsignedTensors(*file, file->inputs);
  part.unsignedOutputs = converter::unsignedTensors(*file, file->outputs);
  if (converter::hasGraphSegments(*file)) {
    std::vector<tosa::Shape> given;
    if (shapes) {
      std::vector<std::string> names;
      for (const vgf::BindingSlot& slot : file->inputs) names.push_back(converter::resourceTensorName(*file, slot.mrtIndex));
      OPENVGF_ASSIGN_OR_RETURN(given, shapes(names));
    }
    OPENVGF_ASSIGN_OR_RETURN(part.loweredShapes, converter::modelInputShapes(*file, given, part.where));
    converter::LowerOptions lower;
    OPENVGF_ASSIGN_OR_RETURN(lower.convert, convertOptions(part.where, options));
    lower.useCache = options.modelCache;
    if (!options.cacheDir.empty()) lower.cacheDir = options.cacheDir / "lowered";
    // Lowered for a GPU from the cache, else (where the device is a CPU) for a CPU (retryForCpu).
    lower.cacheOnly = options.target == "portable";
    OPENVGF_ASSIGN_OR_RETURN(converter::LoweredModel lowered,
                             converter::lowerGraphSegments(bytes, *file, part.loweredShapes, part.where, lower));
    if (!lowered.file) {
      lower.cacheOnly = false;
      retryForCpu(options, lower.convert);
      OPENVGF_ASSIGN_OR_RETURN(lowered, converter::lowerGraphSegments(bytes, *file, part.loweredShapes, part.where, lower));
    }
    if (lowered.cacheHit) {
      spdlog::info("{}: lowered VGF from the cache ({})", part.where, lowered.cacheFile.string());
    } else {
      spdlog::info("{}: lowered {} GRAPH segment run(s) into {} COMPUTE segments", part.where, lowered.graphRuns,
                   lowered.kernels);
    }
    part.graphVgf = bytes;
    part.fromCache = lowered.cacheHit;
    part.owned = std::move(lowered.vgf);  // the buffer lowered.file views moves with it
    file = std::move(*lowered.file);
  }
  part.file = std::move(*file);
  OPENVGF_ASSIGN_OR_RETURN(runner::Model model, runner::Model::create(*part.file, part.where));
  part.model = std::move(model);
  return {};
}

// The TOSA type of an ExecuTorch ScalarType (specs/pte.md §1.4) as a delegate sees it.
std::optional<tosa::DType> tosaType(std::int8_t scalarType) {
  switch (scalarType) {
    case 0:  // Byte (uint8): the signless INT8 bit pattern
    case 1: return tosa::DType::Int8;
    case 2: return tosa::DType::Int16;
    case 3: return tosa::DType::Int32;
    case 4: return tosa::DType::Int48;
    case 5: return tosa::DType::Fp16;
    case 6: return tosa::DType::Fp32;
    case 11: return tosa::DType::Bool;
    case 15: return tosa::DType::Bf16;
    case 23: return tosa::DType::Fp8E5M2;
    case 24: return tosa::DType::Fp8E4M3;
    default: return std::nullopt;
  }
}

}  // namespace

// A .pte: its plan's delegate calls become parts (each payload lowered for the shapes of the
// values it is called with), its copies steps; the model interface is the plan's.
Status LoadedModel::loadProgram(const LoadOptions& options) {
  Result<pte::Program> program = withContext(pte::readProgram(mapped_.bytes()), path_);
  if (!program) return Unexpected(std::move(program).error());
  OPENVGF_ASSIGN_OR_RETURN(pte::RunPlan plan, withContext(pte::planVgfExecution(*program, options.plan), path_));
  const pte::ExecutionPlan& ep = program->plans[plan.planIndex];
  auto shapeOf = [&](std::int32_t v) {
    const pte::Value& value = ep.values[static_cast<std::size_t>(v)];
    return tosa::Shape(value.sizes.begin(), value.sizes.end());
  };
  auto infoOf = [&](std::int32_t v, std::string name, std::string_view role, std::size_t i) -> Result<runner::TensorInfo> {
    const pte::Value& value = ep.values[static_cast<std::size_t>(v)];
    std::optional<tosa::DType> dtype = tosaType(value.scalarType);
    if (!dtype) {
      return unsupported("{}: plan '{}': {} {}: expected a tensor type a VGF delegate takes, got {}", path_, plan.name, role,
                         i, pte::scalarTypeName(value.scalarType));
    }
    runner::TensorInfo info;
    info.name = std::move(name);
    info.dtype = *dtype;
    info.shape = shapeOf(v);
    info.bytes = tosa::HostTensor(*dtype, info.shape).bytes.size();
    return info;
  };
  Program out;
  out.inputs = plan.inputs;
  out.outputs = plan.outputs;
  for (std::size_t i = 0; i < plan.inputs.size(); ++i) {
    OPENVGF_ASSIGN_OR_RETURN(runner::TensorInfo info, infoOf(plan.inputs[i], fmt::format("input_{}", i), "input", i));
    inputs_.push_back(std::move(info));
    unsignedInputs_.push_back(ep.values[static_cast<std::size_t>(plan.inputs[i])].scalarType == 0);  // Byte
  }
  for (std::size_t i = 0; i < plan.outputs.size(); ++i) {
    OPENVGF_ASSIGN_OR_RETURN(runner::TensorInfo info, infoOf(plan.outputs[i], fmt::format("output_{}", i), "output", i));
    outputs_.push_back(std::move(info));
    unsigned_.push_back(ep.values[static_cast<std::size_t>(plan.outputs[i])].scalarType == 0);  // Byte
  }
  for (const pte::Step& step : plan.steps) {
    ProgramStep programStep{std::nullopt, step.inputs, step.outputs};
    if (step.kind == pte::Step::Kind::Copy) {
      out.shapes[step.outputs[0]] = shapeOf(step.outputs[0]);
      out.steps.push_back(std::move(programStep));
      continue;
    }
    auto part = std::make_unique<ModelPart>();
    part->where = fmt::format("{}: plan '{}' delegates[{}] (instruction {})", path_, plan.name, step.delegate, step.instruction);
    const pte::Delegate& delegate = ep.delegates[step.delegate];
    std::vector<std::uint8_t> storage;
    OPENVGF_TRY(withContext(pte::decodeVgfPayload(delegate.payload, storage), part->where));
    part->graphVgfStorage = std::move(storage);
    std::span<const std::uint8_t> bytes =
        part->graphVgfStorage.empty() ? delegate.payload : std::span<const std::uint8_t>(part->graphVgfStorage);
    std::vector<tosa::Shape> shapes;
    for (std::int32_t v : step.inputs) shapes.push_back(shapeOf(v));
    OPENVGF_TRY(lowerPart(*part, bytes, options, [&](const std::vector<std::string>&) { return shapes; }));
    programStep.part = parts_.size();
    parts_.push_back(std::move(part));
    out.steps.push_back(std::move(programStep));
  }
  program_ = std::move(out);
  return {};
}

Result<LoadedModel> LoadedModel::load(const std::filesystem::path& path, const LoadOptions& options) {
  LoadedModel loaded;
  loaded.path_ = path.string();
  OPENVGF_ASSIGN_OR_RETURN(loaded.mapped_, MappedFile::open(path));
  loaded.kind_ = detectFileKind(loaded.mapped_.bytes());
  if (options.keepIntermediates && loaded.kind_ != FileKind::Tosa) {
    return unsupported("{}: keeping intermediate tensors (run --dump, compare): expected a .tosa model, got {}; its "
                       "kernels are fused and its intermediates share memory, so run the .tosa it was made from",
                       loaded.path_, describeFile(loaded.mapped_.bytes()));
  }
  if (loaded.kind_ == FileKind::Pte) {
    OPENVGF_TRY(loaded.loadProgram(options));
    return loaded;
  }
  auto part = std::make_unique<ModelPart>();
  part->where = loaded.path_;
  std::span<const std::uint8_t> bytes = loaded.mapped_.bytes();
  std::optional<vgf::File> decoded;
  switch (loaded.kind_) {
    case FileKind::Tosa: {
      OPENVGF_ASSIGN_OR_RETURN(ComputeVgf converted, convertTosa(bytes, loaded.path_, options));
      loaded.defaults_ = std::move(converted.defaults);
      loaded.computed_ = std::move(converted.computed);
      part->fromCache = converted.fromCache;
      part->owned = std::move(converted.bytes);  // the buffer converted.file views moves with it
      decoded = std::move(converted.file);
      bytes = part->owned;
      break;
    }
    case FileKind::Vgf: break;
    case FileKind::EthosU:
      return unsupported("{}: expected a TOSA, VGF or ExecuTorch model, got an Ethos-U command stream: it runs in "
                         "the simulator of `openvgf run`, not on a Vulkan device",
                         loaded.path_);
    default:
      return invalidInput("{}: cannot run {}: expected a TOSA flatbuffer, a VGF, an ExecuTorch program or an Ethos-U "
                          "command stream",
                          loaded.path_, describeFile(bytes));
  }
  OPENVGF_TRY(lowerPart(*part, bytes, options, options.inputShapes, std::move(decoded)));
  loaded.inputs_ = part->model->inputs();
  loaded.outputs_ = part->model->outputs();
  loaded.unsignedInputs_ = part->unsignedInputs;
  loaded.unsigned_ = part->unsignedOutputs;
  loaded.parts_.push_back(std::move(part));
  return loaded;
}

std::optional<std::size_t> LoadedModel::findInput(std::string_view name) const {
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].name == name) return i;
  }
  return std::nullopt;
}

bool LoadedModel::fromCache() const {
  return std::all_of(parts_.begin(), parts_.end(), [](const auto& part) { return part->fromCache; });
}

void LoadedModel::addInitialStates(const tosa::Graph& graph) {
  for (auto& [name, value] : converter::initialStates(graph)) defaults_.try_emplace(name, std::move(value));
}

Result<std::vector<tosa::Graph>> LoadedModel::carriedGraphs() const {
  std::vector<tosa::Graph> graphs;
  if (kind_ == FileKind::Tosa) {
    OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, tosa::readGraph(mapped_.bytes(), path_));
    if (!computed_.empty()) tosa::keepIntermediates(graph);  // judged like the outputs of the converted graph
    graphs.push_back(std::move(graph));
    return graphs;
  }
  for (const auto& part : parts_) {
    if (part->graphVgf.empty()) {
      if (program_) {
        return invalidInput("{}: --check: expected a delegate VGF with GRAPH segments (a TOSA graph to check "
                            "against), got COMPUTE segments only", part->where);
      }
      return invalidInput("{}: --check: expected MODEL.tosa for a VGF of COMPUTE segments (it carries no TOSA graph)",
                          part->where);
    }
    OPENVGF_ASSIGN_OR_RETURN(vgf::File file, withContext(vgf::decode(part->graphVgf), part->where));
    OPENVGF_ASSIGN_OR_RETURN(converter::GraphRun run, converter::decodeGraphModel(file, part->loweredShapes, part->where));
    graphs.push_back(std::move(run.graph));
  }
  return graphs;
}

runner::ContextOptions contextOptions(const DeviceOptions& device) {
  runner::ContextOptions options;
  options.device = device.device;
  options.validate = device.validate;
  options.pipelineCache = device.pipelineCache;
  options.cacheDir = device.cacheDir;
  options.pipelineStatistics = device.pipelineStatistics;
  return options;
}

Result<std::unique_ptr<Model>> Model::create(LoadedModel loaded, const DeviceOptions& device) {
  std::vector<const runner::Model*> models;
  for (std::size_t k = 0; k < loaded.partCount(); ++k) models.push_back(&*loaded.part(k).model);
  OPENVGF_ASSIGN_OR_RETURN(std::unique_ptr<runner::Context> context, runner::Context::create(contextOptions(device), models));
  return std::unique_ptr<Model>(new Model(std::move(loaded), std::move(context)));
}

Result<std::unique_ptr<Model>> Model::create(LoadedModel loaded, std::shared_ptr<const runner::Context> shared) {
  const vulkan::Device& device = shared->device();
  for (std::size_t k = 0; k < loaded.partCount(); ++k) {
    const runner::Model& part = *loaded.part(k).model;
    OPENVGF_TRY(part.checkDevice(device.snapshot()));
    const vulkan::FeatureSet missing = part.requiredFeatures().minus(device.enabledFeatures());
    if (!missing.empty()) {
      return unsupported("{}: needs the device feature {}, which the shared device of the other model was not "
                         "created with; open this model first (or on its own device)",
                         loaded.part(k).where, vulkan::featureName(vulkan::features(missing).front()));
    }
  }
  return std::unique_ptr<Model>(new Model(std::move(loaded), std::move(shared)));
}

Result<std::unique_ptr<Model>> Model::open(const std::filesystem::path& path, const LoadOptions& load,
                                           const DeviceOptions& device) {
  OPENVGF_ASSIGN_OR_RETURN(LoadedModel loaded, LoadedModel::load(path, load));
  return create(std::move(loaded), device);
}

const std::string& Model::deviceName() const { return context_->device().snapshot().name; }

Result<runner::Session> Model::createPartSession(std::size_t part, const runner::SessionOptions& options) const {
  OPENVGF_ASSIGN_OR_RETURN(runner::Session session, runner::Session::create(*context_, *loaded_.part(part).model, options));
  std::call_once(cacheSaved_, [this] {
    if (Status saved = context_->savePipelineCache(); !saved) {
      spdlog::warn("pipeline cache not saved: {}", saved.error().message());
    }
  });
  return session;
}

Result<std::vector<Model::BoundInput>> Model::bindInputs(std::span<const std::string> names,
                                                          std::string_view source) const {
  std::vector<DeclaredInput> declared;
  for (const runner::TensorInfo& t : loaded_.inputs()) declared.push_back({t.name, loaded_.defaultInputs().contains(t.name)});
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::size_t> binding, openvgf::bindInputs(declared, names, source.empty() ? std::string_view(loaded_.path()) : source));
  std::vector<BoundInput> bound;
  for (std::size_t i = 0; i < binding.size(); ++i) {
    bound.push_back(binding[i] == kDefaultValue ? BoundInput{0, &loaded_.defaultInputs().at(declared[i].name)}
                                                : BoundInput{binding[i], nullptr});
  }
  return bound;
}

}  // namespace openvgf::api
