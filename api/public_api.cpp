// SPDX-License-Identifier: Apache-2.0
// The installed C++ API (openvgf/openvgf.hpp) over the api/ layer: Result errors become
// openvgf::Exception, internal tensors and infos become the public value types.
#include <chrono>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/bind.h"
#include "api/convert.h"
#include "api/devices.h"
#include "api/extract.h"
#include "api/file_kind.h"
#include "api/inspect.h"
#include "api/model.h"
#include "api/reference.h"
#include "api/session.h"
#include "common/file_io.h"
#include "converter/passes/passes.h"
#include "openvgf/openvgf.hpp"

namespace openvgf {
namespace {

static_assert(static_cast<int>(ErrorKind::InvalidInput) + 1 == OPENVGF_INVALID_INPUT);
static_assert(static_cast<int>(ErrorKind::Unsupported) + 1 == OPENVGF_UNSUPPORTED);
static_assert(static_cast<int>(ErrorKind::Environment) + 1 == OPENVGF_ENVIRONMENT);
static_assert(static_cast<int>(ErrorKind::Runtime) + 1 == OPENVGF_RUNTIME);
static_assert(static_cast<int>(ErrorKind::Internal) + 1 == OPENVGF_INTERNAL);

[[noreturn]] void raise(const Error& error) {
  throw Exception(static_cast<ErrorCode>(static_cast<int>(error.kind()) + 1), error.message());
}

template <typename T>
T unwrap(Result<T>&& result) {
  if (!result) raise(result.error());
  return std::move(*result);
}

void unwrap(Status&& status) {
  if (!status) raise(status.error());
}

[[noreturn]] void raiseInvalid(const std::string& message) { throw Exception(ErrorCode::InvalidInput, message); }

// Public DataType values are tosa::DType's numbering, plus Float64.
bool isModelType(DataType type) { return type != DataType::Float64; }
tosa::DType toDType(DataType type) { return static_cast<tosa::DType>(static_cast<int>(type)); }
DataType fromDType(tosa::DType type) { return static_cast<DataType>(static_cast<int>(type)); }

TensorInfo publicInfo(const runner::TensorInfo& info) {
  return {info.name, fromDType(info.dtype), info.shape, static_cast<std::size_t>(info.bytes)};
}

std::vector<TensorInfo> publicInfos(const std::vector<runner::TensorInfo>& infos) {
  std::vector<TensorInfo> out;
  for (const runner::TensorInfo& info : infos) out.push_back(publicInfo(info));
  return out;
}

std::size_t byteSizeOf(DataType dtype, const Shape& shape) {
  std::size_t bytes = elementSize(dtype);
  for (std::int64_t d : shape) {
    if (d < 0) raiseInvalid(fmt::format("tensor shape [{}]: expected dimensions >= 0", fmt::join(shape, ",")));
    bytes *= static_cast<std::size_t>(d);
  }
  return bytes;
}

// A read-only view of a HostTensor (the reference interpreter's and the defaults' type).
Tensor viewOf(const tosa::HostTensor& t) {
  return Tensor::view(fromDType(t.dtype), t.shape, const_cast<std::uint8_t*>(t.bytes.data()), t.bytes.size());
}

tosa::HostTensor toHost(const Tensor& t) {
  tosa::HostTensor host(toDType(t.dtype()), t.shape());
  if (t.byteSize() != 0) std::memcpy(host.bytes.data(), t.data(), t.byteSize());
  return host;
}

}  // namespace

const char* version() { return OPENVGF_VERSION; }

Exception::Exception(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}

int Exception::exitCode() const noexcept {
  return code_ == ErrorCode::InvalidInput || code_ == ErrorCode::Unsupported ? 2 : 1;
}

const char* toString(DataType type) {
  if (type == DataType::Float64) return "FP64";
  std::string_view name = tosa::toString(toDType(type));
  return name.data();  // the table's string literals are NUL-terminated
}

std::size_t elementSize(DataType type) {
  return type == DataType::Float64 ? 8 : tosa::hostElementBytes(toDType(type));
}

//===------------------------------------------------------------------===//
// Tensor
//===------------------------------------------------------------------===//

Tensor::Tensor(DataType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  bytes_ = byteSizeOf(dtype_, shape_);
  owner_ = std::shared_ptr<void>(new std::uint8_t[std::max<std::size_t>(bytes_, 1)](),
                                 std::default_delete<std::uint8_t[]>());
  data_ = owner_.get();
}

Tensor Tensor::view(DataType dtype, Shape shape, void* data, std::size_t byteSize) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.bytes_ = byteSizeOf(dtype, t.shape_);
  if (t.bytes_ != byteSize) {
    raiseInvalid(fmt::format("tensor {} [{}]: expected {} bytes of data, got {}", toString(dtype),
                             fmt::join(t.shape_, ","), t.bytes_, byteSize));
  }
  if (data == nullptr && byteSize != 0) raiseInvalid("tensor view: expected data, got a null pointer");
  t.data_ = data;
  return t;
}

Tensor Tensor::copyOf(DataType dtype, Shape shape, const void* data, std::size_t byteSize) {
  Tensor source = view(dtype, std::move(shape), const_cast<void*>(data), byteSize);
  return source.clone();
}

std::int64_t Tensor::elementCount() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape_) n *= d;
  return n;
}

Tensor Tensor::clone() const {
  Tensor copy(dtype_, shape_);
  if (bytes_ != 0) std::memcpy(copy.data_, data_, bytes_);
  return copy;
}

//===------------------------------------------------------------------===//
// Devices
//===------------------------------------------------------------------===//

std::vector<DeviceInfo> listDevices(bool validate) {
  api::DeviceList list = unwrap(api::listDevices(validate));
  std::vector<DeviceInfo> out;
  for (const vulkan::DeviceSnapshot& d : list.devices) {
    DeviceInfo info;
    info.index = static_cast<int>(d.index);
    info.name = d.name;
    info.type = std::string(vulkan::toString(d.type));
    info.apiVersion = vulkan::apiVersionString(d.apiVersion);
    info.driver = d.driverName + (d.driverInfo.empty() ? "" : " " + d.driverInfo);
    info.isDefault = list.defaultIndex && *list.defaultIndex == d.index;
    info.usable = d.apiVersion >= (1u << 22 | 3u << 12) && d.hasComputeQueue;
    info.deviceLocalBytes = d.deviceLocalBytes;
    info.subgroupSize = d.subgroupSize;
    for (vulkan::Feature f : vulkan::features(d.features)) info.features.emplace_back(vulkan::featureName(f));
    out.push_back(std::move(info));
  }
  return out;
}

//===------------------------------------------------------------------===//
// Model and Session
//===------------------------------------------------------------------===//

namespace detail {

struct ModelState {
  std::unique_ptr<api::Model> model;
  ModelFormat format = ModelFormat::Vgf;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
};

struct SessionState {
  std::shared_ptr<const ModelState> model;  // keeps the device alive
  api::Session session;
  double hostMs = 0;
};

}  // namespace detail

Model Model::open(const std::string& path, const ModelOptions& options) {
  api::LoadOptions load;
  load.target = options.target;
  load.plan = options.plan;
  load.modelCache = options.modelCache;
  load.cacheDir = options.cacheDir;
  if (!options.inputShapes.empty()) {
    load.inputShapes = [&options](const std::vector<std::string>& names) -> Result<std::vector<tosa::Shape>> {
      if (options.inputShapes.size() != names.size()) {
        return invalidInput("inputShapes: expected {} shapes (one per input), got {}", names.size(),
                            options.inputShapes.size());
      }
      return std::vector<tosa::Shape>(options.inputShapes.begin(), options.inputShapes.end());
    };
  }
  api::DeviceOptions device;
  device.device = options.device;
  device.validate = options.validate;
  device.pipelineCache = options.pipelineCache;
  device.cacheDir = options.cacheDir;
  auto state = std::make_shared<detail::ModelState>();
  state->model = unwrap(api::Model::open(path, load, device));
  const api::LoadedModel& loaded = state->model->loaded();
  state->format = loaded.kind() == api::FileKind::Tosa ? ModelFormat::Tosa
                  : loaded.kind() == api::FileKind::Pte ? ModelFormat::Pte
                                                        : ModelFormat::Vgf;
  state->inputs = publicInfos(loaded.inputs());
  state->outputs = publicInfos(loaded.outputs());
  return Model(std::move(state));
}

const std::string& Model::path() const { return state_->model->loaded().path(); }
ModelFormat Model::format() const { return state_->format; }
const std::vector<TensorInfo>& Model::inputs() const { return state_->inputs; }
const std::vector<TensorInfo>& Model::outputs() const { return state_->outputs; }
const std::string& Model::deviceName() const { return state_->model->deviceName(); }
bool Model::fromCache() const { return state_->model->loaded().fromCache(); }

Session Model::createSession(const SessionOptions& options) const {
  runner::SessionOptions sessionOptions;
  sessionOptions.profile = options.profile;
  api::Session session = unwrap(api::Session::create(*state_->model, sessionOptions));
  return Session(std::make_unique<detail::SessionState>(detail::SessionState{state_, std::move(session), 0}));
}

Session::Session(std::unique_ptr<detail::SessionState> state) : state_(std::move(state)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

const std::vector<TensorInfo>& Session::inputs() const { return state_->model->inputs; }
const std::vector<TensorInfo>& Session::outputs() const { return state_->model->outputs; }

std::vector<Tensor> Session::run(const std::vector<Tensor>& inputs, const RunOptions& options) {
  std::vector<Tensor> outputs;
  run(inputs, outputs, options);
  return outputs;
}

std::vector<Tensor> Session::runNamed(const std::map<std::string, Tensor>& inputs, const RunOptions& options) {
  std::vector<Tensor> outputs;
  runNamed(inputs, outputs, options);
  return outputs;
}

void Session::runNamed(const std::map<std::string, Tensor>& inputs, std::vector<Tensor>& outputs,
                       const RunOptions& options) {
  std::vector<std::string> names;
  std::vector<Tensor> given;
  for (const auto& [name, tensor] : inputs) {
    names.push_back(name);
    given.push_back(tensor);
  }
  runBound(names, given, outputs, options);
}

void Session::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, const RunOptions& options) {
  runBound(std::vector<std::string>(inputs.size()), inputs, outputs, options);
}

void Session::runBound(const std::vector<std::string>& names, const std::vector<Tensor>& given,
                       std::vector<Tensor>& outputs, const RunOptions&) {
  const auto start = std::chrono::steady_clock::now();
  const api::Model& model = *state_->model->model;
  api::Session& session = state_->session;
  const std::string& source = model.loaded().path();
  std::vector<api::Model::BoundInput> bound = unwrap(model.bindInputs(names));
  std::vector<Tensor> inputs;
  for (const api::Model::BoundInput& b : bound) inputs.push_back(b.fallback ? viewOf(*b.fallback) : given[b.given]);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!isModelType(t.dtype())) {
      raiseInvalid(fmt::format("{}: input '{}': expected dtype {}, got FP64", source, session.inputs()[i].name,
                               tosa::toString(session.inputs()[i].dtype)));
    }
    unwrap(withContext(session.checkInput(i, toDType(t.dtype()), t.shape(), t.byteSize()), source));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::span<std::uint8_t> memory = session.inputMemory(i);
    if (!memory.empty()) std::memcpy(memory.data(), inputs[i].data(), memory.size());
  }
  unwrap(withContext(session.runInPlace(), source));
  outputs.resize(session.outputs().size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const runner::TensorInfo& info = session.outputs()[i];
    Tensor& out = outputs[i];
    if (out.dtype() != fromDType(info.dtype) || out.shape() != info.shape || out.data() == nullptr) {
      out = Tensor(fromDType(info.dtype), info.shape);
    }
    std::span<const std::uint8_t> memory = session.outputMemory(i);
    if (!memory.empty()) std::memcpy(out.data(), memory.data(), memory.size());
  }
  state_->hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

Profile Session::profile() const {
  Profile profile;
  profile.hostMs = state_->hostMs;
  const runner::RunTiming& timing = state_->session.lastTiming();
  profile.gpuMs = timing.gpuMs();
  const std::vector<std::string>& names = state_->session.segmentNames();
  for (std::size_t i = 0; i + 1 < timing.timestampsNs.size() && i < names.size(); ++i) {
    profile.segments.push_back(
        {names[i], static_cast<double>(timing.timestampsNs[i + 1] - timing.timestampsNs[i]) * 1e-6});
  }
  return profile;
}

//===------------------------------------------------------------------===//
// Free functions
//===------------------------------------------------------------------===//

ConvertStats convert(const std::string& input, const std::string& output, const ConvertOptions& options) {
  ConvertStats stats;
  stats.target = options.target;
  if (api::isEthosUTarget(options.target)) {
    if (!options.passes.empty()) raiseInvalid("passes: expected none for an Ethos-U target");
    converter::ethosu::CompiledModel model = unwrap(api::convertToEthosU(input, output, options.target));
    stats.outputBytes = model.velaBinStream.size();
    stats.kernels = model.stats.npuOperations;
    stats.constantBytes = model.stats.weightBytes + model.stats.scaleBytes + model.stats.constantBytes;
    return stats;
  }
  converter::ConvertOptions convert;
  convert.target = options.target;
  convert.useCache = options.cache;
  if (!options.passes.empty()) convert.passes = unwrap(converter::passes::parsePassList(options.passes));
  if (api::detectFileKind(unwrap(MappedFile::open(input)).bytes()) == api::FileKind::Vgf) {
    // A VGF with GRAPH segments is lowered to COMPUTE segments, as `openvgf convert arm.vgf` does.
    converter::LowerOptions lower;
    lower.convert = std::move(convert);
    lower.useCache = options.cache;
    converter::LoweredModel lowered = unwrap(api::lowerVgfFile(input, output, lower));
    stats.outputBytes = lowered.vgf.size();
    stats.kernels = lowered.kernels;
    return stats;
  }
  converter::ConvertedModel model = unwrap(api::convertToVgf(input, output, convert));
  stats.target = model.stats.target;
  stats.outputBytes = model.vgf.size();
  stats.kernels = model.stats.kernels;
  stats.uniqueModules = model.stats.uniqueModules;
  stats.constantBytes = model.stats.constantBytes;
  stats.peakLiveBytes = model.stats.peakLiveBytes;
  return stats;
}

std::string inspect(const std::string& path, bool json) {
  api::Inspection inspection = unwrap(api::inspectFile(path, json));
  unwrap(std::move(inspection.problem));
  return inspection.text;
}

std::vector<NamedTensor> reference(const std::string& path, const std::vector<NamedTensor>& inputs,
                                   const ReferenceOptions& options) {
  tosa::Graph graph = unwrap(api::readVerifiedGraph(path, options.dynamic));
  const tosa::Block& main = *graph.mainBlock();
  std::vector<std::string> names;
  for (const NamedTensor& input : inputs) names.push_back(input.name);
  std::vector<std::size_t> order = unwrap(api::bindNames(main.inputs, names, path));
  std::vector<tosa::HostTensor> hostInputs;
  for (std::size_t k : order) {
    if (!isModelType(inputs[k].tensor.dtype())) {
      raiseInvalid(fmt::format("{}: input '{}': expected a TOSA type, got FP64", path, main.inputs[hostInputs.size()]));
    }
    hostInputs.push_back(toHost(inputs[k].tensor));
  }
  tosa::reference::RunOptions run;
  run.precise = options.precise;
  run.strict = options.strict;
  tosa::reference::RunResult result = unwrap(api::runReference(graph, path, hostInputs, run));
  std::vector<NamedTensor> outputs;
  for (const tosa::reference::OutputValue& out : result.outputs) {
    if (options.precise && !out.precise.empty()) {
      outputs.push_back({out.name, Tensor::copyOf(DataType::Float64, out.value.shape, out.precise.data(),
                                                  out.precise.size() * sizeof(double))});
    } else {
      outputs.push_back({out.name, viewOf(out.value).clone()});
    }
  }
  return outputs;
}

std::vector<std::string> extract(const std::string& path, const std::string& outputDir, const std::string& plan,
                                 int delegate) {
  pte::ExtractionFilter filter;
  if (!plan.empty()) filter.plan = plan;
  if (delegate >= 0) filter.delegate = static_cast<std::size_t>(delegate);
  std::vector<std::string> files;
  for (const api::ExtractedPayload& payload : unwrap(api::extractPayloads(path, outputDir, filter))) {
    files.push_back(payload.fileName);
  }
  return files;
}

}  // namespace openvgf
