// SPDX-License-Identifier: Apache-2.0
// Opening model files: kind detection, lowering to a COMPUTE VGF (with the model cache),
// runner::Model validation, and the device (see model.h).
#include "api/model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>

#include "api/model_cache.h"
#include "api/bind.h"
#include "common/cache_dir.h"
#include "converter/convert.h"
#include "converter/lower_vgf.h"
#include "converter/variables.h"
#include "pte/program.h"
#include "tosa/reader.h"
#include "tosa/verifier.h"
#include "vgf/decoder.h"

namespace openvgf::api {
namespace {

std::filesystem::path cacheFolder(const std::filesystem::path& root) { return root.empty() ? cacheRoot() : root; }

// Every Target field that changes the kernels the converter writes (the converter's sources
// are in the fingerprint; these are the values a probe of the device can change).
std::string targetKey(const converter::Target& t) {
  auto tile = [](const converter::GemmTile& g) { return fmt::format("{}x{}x{}/{}x{}", g.bm, g.bn, g.bk, g.tm, g.tn); };
  auto coop = [](const converter::CoopMatTile& c) {
    return fmt::format("{}x{}/{}x{}/{}", c.subgroupsM, c.subgroupsN, c.blockM, c.blockN, c.bk);
  };
  std::string shapes;
  for (const converter::CoopMatShape& s : t.coopMatShapes) {
    shapes += fmt::format("{}x{}x{}:{};", s.m, s.n, s.k, static_cast<int>(s.types));
  }
  return fmt::format(
      "{} [{}] gemm {} small {} large {} >={} splitK {}/{}/{} ew {}x{} reduce {} shared {} inv {} subgroup {} "
      "fp16 {}{} dot {} coop {} [{}] {} {} >={}",
      converter::describeTarget(t), t.deviceName, tile(t.gemm), tile(t.gemmSmall), tile(t.gemmLarge),
      t.gemmLargeMinGroups, t.gemmSplitKGroups, t.gemmSplitKMinDepth, t.gemmSplitKMinSlices, t.elementwiseWg,
      t.elementsPerInvocation, t.reduceThreads, t.maxSharedBytes, t.maxInvocations, t.subgroupSize,
      t.fp16Arithmetic, t.fp16RoundingRte, t.integerDotProduct, t.cooperativeMatrixNv, shapes, coop(t.coopMatTile),
      coop(t.coopMatTileSmall), t.coopMatLargeMinTiles);
}

struct ComputeVgf {
  std::vector<std::uint8_t> bytes;  // empty: the source file itself is the VGF
  bool fromCache = false;
  std::map<std::string, tosa::HostTensor> defaults;
};

// .tosa -> VGF through the model cache.
Result<ComputeVgf> convertTosa(std::span<const std::uint8_t> bytes, const std::string& path, const LoadOptions& options) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, tosa::readGraph(bytes, path));
  OPENVGF_TRY(withContext(tosa::verify(graph), path));
  if (options.target != "portable" && options.target != "native") {
    return invalidInput("{}: target: expected portable or native (the Vulkan targets), got '{}'", path, options.target);
  }
  OPENVGF_ASSIGN_OR_RETURN(converter::Target target, converter::targetByName(options.target));
  ComputeVgf result;
  result.defaults = converter::initialStates(graph);
  const std::filesystem::path root = cacheFolder(options.cacheDir);
  std::filesystem::path cached;
  if (options.modelCache && !root.empty()) {
    cached = modelCachePath(root, modelCacheKey(bytes, targetKey(target)));
    if (std::optional<std::vector<std::uint8_t>> hit = readCachedModel(cached); hit && vgf::decode(*hit)) {
      spdlog::debug("{}: converted model from the cache: {}", path, cached.string());
      result.bytes = std::move(*hit);
      result.fromCache = true;
      return result;
    }
  }
  converter::ConvertOptions convert;
  convert.customTarget = target;
  convert.useCache = options.modelCache;
  if (!options.cacheDir.empty()) convert.cacheDir = options.cacheDir / "spirv";
  Result<converter::ConvertedModel> converted = converter::convert(graph, convert);
  if (!converted) return Unexpected(std::move(converted).error().addContext(path));
  result.bytes = std::move(converted->vgf);
  if (!cached.empty()) {
    if (Status stored = writeCachedModel(cached, result.bytes); !stored) {
      spdlog::warn("converted model not cached: {}", stored.error().message());
    }
  }
  return result;
}

// The execution plan `wanted` names (name or index), or the only / "forward" plan.
Result<const pte::ExecutionPlan*> choosePlan(const pte::Program& program, const std::string& path,
                                             const std::string& wanted) {
  std::vector<std::string> names;
  for (const pte::ExecutionPlan& plan : program.plans) names.push_back(fmt::format("'{}'", plan.name));
  if (wanted.empty()) {
    if (program.plans.size() == 1) return &program.plans[0];
    for (const pte::ExecutionPlan& plan : program.plans) {
      if (plan.name == "forward") return &plan;
    }
    return invalidInput("{}: expected a program with one execution plan or a plan 'forward', got {} ({}): choose one",
                        path, program.plans.size(), fmt::join(names, ", "));
  }
  for (const pte::ExecutionPlan& plan : program.plans) {
    if (plan.name == wanted) return &plan;
  }
  std::size_t index = 0;
  auto [end, ec] = std::from_chars(wanted.data(), wanted.data() + wanted.size(), index);
  if (ec == std::errc() && end == wanted.data() + wanted.size() && index < program.plans.size()) {
    return &program.plans[index];
  }
  return invalidInput("{}: plan '{}': expected a plan name or index of the program ({}), got none of them", path,
                      wanted, fmt::join(names, ", "));
}

// .pte -> the VGF payload of its one VgfBackend delegate.
Result<ComputeVgf> vgfOfProgram(std::span<const std::uint8_t> bytes, const std::string& path, const LoadOptions& options) {
  Result<pte::Program> program = withContext(pte::readProgram(bytes), path);
  if (!program) return Unexpected(std::move(program).error());
  OPENVGF_ASSIGN_OR_RETURN(const pte::ExecutionPlan* plan, choosePlan(*program, path, options.plan));
  if (plan->delegates.size() != 1) {
    return unsupported("{}: plan '{}': expected one VgfBackend delegate (a program lowered whole to VGF), got {} "
                       "delegates; `openvgf extract` writes each payload to a file",
                       path, plan->name, plan->delegates.size());
  }
  const pte::Delegate& delegate = plan->delegates[0];
  if (delegate.kind != pte::PayloadKind::Vgf) {
    return unsupported("{}: plan '{}': delegates[0]: expected a VgfBackend payload, got backend '{}' ({}); "
                       "`openvgf extract` writes it to a file{}",
                       path, plan->name, delegate.backendId, pte::toString(delegate.kind),
                       delegate.kind == pte::PayloadKind::VelaBinStream ? " that `openvgf run` runs in the Ethos-U simulator"
                                                                        : "");
  }
  if (!delegate.payloadProblem.empty()) {
    return invalidInput("{}: plan '{}': delegates[0] ({}): payload: {}", path, plan->name, delegate.backendId,
                        delegate.payloadProblem);
  }
  ComputeVgf result;
  result.bytes.assign(delegate.payload.begin(), delegate.payload.end());
  return result;
}

// A VGF runs as it is, unless it has GRAPH segments (Arm's TOSA.001000.1 SPIR-V graphs): they
// are lowered to COMPUTE segments (converter/lower_vgf.h, cached under <cache root>/lowered).
Result<ComputeVgf> lowerGraphVgf(std::span<const std::uint8_t> bytes, const std::string& path, const LoadOptions& options) {
  Result<vgf::File> file = withContext(vgf::decode(bytes), path);
  if (!file) return Unexpected(std::move(file).error());
  if (!converter::hasGraphSegments(*file)) return ComputeVgf{};
  if (options.target != "portable" && options.target != "native") {
    return invalidInput("{}: target: expected portable or native (the Vulkan targets), got '{}'", path, options.target);
  }
  OPENVGF_ASSIGN_OR_RETURN(converter::KnownShapes shapes, converter::modelInputShapes(*file, {}, path));
  converter::LowerOptions lower;
  lower.convert.target = options.target;
  lower.useCache = options.modelCache;
  if (!options.cacheDir.empty()) {
    lower.cacheDir = options.cacheDir / "lowered";
    lower.convert.cacheDir = options.cacheDir / "spirv";
  }
  OPENVGF_ASSIGN_OR_RETURN(converter::LoweredModel lowered, converter::lowerGraphSegments(bytes, *file, shapes, path, lower));
  ComputeVgf result;
  result.bytes = std::move(lowered.vgf);
  result.fromCache = lowered.cacheHit;
  return result;
}

// The one place where a model file becomes a VGF of COMPUTE segments.
Result<ComputeVgf> lowerToCompute(FileKind kind, std::span<const std::uint8_t> bytes, const std::string& path,
                                  const LoadOptions& options) {
  switch (kind) {
    case FileKind::Tosa: return convertTosa(bytes, path, options);
    case FileKind::Vgf: return lowerGraphVgf(bytes, path, options);
    case FileKind::Pte: return vgfOfProgram(bytes, path, options);
    case FileKind::EthosU:
      return unsupported("{}: expected a TOSA, VGF or ExecuTorch model, got an Ethos-U command stream: it runs in "
                         "the simulator of `openvgf run`, not on a Vulkan device",
                         path);
    default: break;
  }
  return invalidInput("{}: expected a TOSA flatbuffer (.tosa), a VGF (.vgf) or an ExecuTorch program (.pte), got {}",
                      path, describeFile(bytes));
}

}  // namespace

Result<LoadedModel> LoadedModel::load(const std::filesystem::path& path, const LoadOptions& options) {
  LoadedModel loaded;
  loaded.path_ = path.string();
  OPENVGF_ASSIGN_OR_RETURN(loaded.mapped_, MappedFile::open(path));
  loaded.kind_ = detectFileKind(loaded.mapped_.bytes());
  OPENVGF_ASSIGN_OR_RETURN(ComputeVgf lowered, lowerToCompute(loaded.kind_, loaded.mapped_.bytes(), loaded.path_, options));
  loaded.fromCache_ = lowered.fromCache;
  loaded.defaults_ = std::move(lowered.defaults);
  std::span<const std::uint8_t> bytes = loaded.mapped_.bytes();
  if (!lowered.bytes.empty()) {
    loaded.owned_ = std::move(lowered.bytes);
    loaded.mapped_ = MappedFile();
    bytes = loaded.owned_;
  }
  // A VGF made in memory is named after its source in messages: "<file>: ...".
  Result<vgf::File> decoded = withContext(vgf::decode(bytes), loaded.path_);
  if (!decoded) return Unexpected(std::move(decoded).error());
  loaded.file_ = std::move(*decoded);
  OPENVGF_ASSIGN_OR_RETURN(runner::Model model, runner::Model::create(*loaded.file_, loaded.path_));
  loaded.model_ = std::move(model);
  return loaded;
}

void LoadedModel::addInitialStates(const tosa::Graph& graph) {
  for (auto& [name, value] : converter::initialStates(graph)) defaults_.try_emplace(name, std::move(value));
}

runner::ContextOptions contextOptions(const DeviceOptions& device) {
  runner::ContextOptions options;
  options.device = device.device;
  options.validate = device.validate;
  options.pipelineCache = device.pipelineCache;
  options.cacheDir = device.cacheDir;
  return options;
}

Result<std::unique_ptr<Model>> Model::create(LoadedModel loaded, const DeviceOptions& device) {
  OPENVGF_ASSIGN_OR_RETURN(std::unique_ptr<runner::Context> context,
                           runner::Context::create(contextOptions(device), loaded.model()));
  return std::unique_ptr<Model>(new Model(std::move(loaded), std::move(context)));
}

Result<std::unique_ptr<Model>> Model::open(const std::filesystem::path& path, const LoadOptions& load,
                                           const DeviceOptions& device) {
  OPENVGF_ASSIGN_OR_RETURN(LoadedModel loaded, LoadedModel::load(path, load));
  return create(std::move(loaded), device);
}

const std::string& Model::deviceName() const { return context_->device().snapshot().name; }

Result<runner::Session> Model::createSession(const runner::SessionOptions& options) const {
  OPENVGF_ASSIGN_OR_RETURN(runner::Session session, runner::Session::create(*context_, loaded_.model(), options));
  std::call_once(cacheSaved_, [this] {
    if (Status saved = context_->savePipelineCache(); !saved) {
      spdlog::warn("pipeline cache not saved: {}", saved.error().message());
    }
  });
  return session;
}

Result<std::vector<Model::BoundInput>> Model::bindInputs(std::span<const std::string> names) const {
  std::vector<std::string> expected;
  for (const runner::TensorInfo& t : loaded_.model().inputs()) expected.push_back(t.name);
  // Inputs left out take their defaults: their names are added, so values given in order
  // bind to the other inputs.
  std::vector<std::string> all(names.begin(), names.end());
  std::vector<const tosa::HostTensor*> defaults;
  if (names.size() < expected.size()) {
    for (const auto& [name, value] : loaded_.defaultInputs()) {
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      all.push_back(name);
      defaults.push_back(&value);
    }
  }
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::size_t> order, bindNames(expected, all, loaded_.path()));
  std::vector<BoundInput> bound;
  for (std::size_t k : order) {
    bound.push_back(k < names.size() ? BoundInput{k, nullptr} : BoundInput{0, defaults[k - names.size()]});
  }
  return bound;
}

}  // namespace openvgf::api
