// SPDX-License-Identifier: Apache-2.0
// The installed C++ API's Model, Session and RunHandle (openvgf/openvgf.hpp) over api::Model and
// api::Session. Every run, synchronous or not, is a runner runAsync + wait on a model of one
// part, so pinned inputs and outputs move by DMA and device-resident tensors are copied on the
// device; a .pte plan runs its parts through host memory (api::Session::runInPlace).
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/devices.h"
#include "api/public_state.h"
#include "common/input_binding.h"
#include "tosa/intermediates.h"
#include "tosa/reader.h"

namespace openvgf {
namespace {

using Clock = std::chrono::steady_clock;

api::LoadOptions loadOptions(const ModelOptions& options, const std::string& path) {
  api::LoadOptions load;
  load.target = options.target;
  load.device = options.device;  // "native": converted for the device the model opens
  load.tuning = api::tuningFromEnvironment();
  load.plan = options.plan;
  load.modelCache = options.modelCache;
  load.cacheDir = options.cacheDir;
  load.keepIntermediates = options.keepIntermediates;
  if (!options.inputShapeNames.empty() && options.inputShapeNames.size() != options.inputShapes.size()) {
    raiseInvalid(fmt::format("inputShapeNames: expected one name per inputShapes entry ({}), got {}",
                             options.inputShapes.size(), options.inputShapeNames.size()));
  }
  if (!options.inputShapes.empty()) {
    load.inputShapes = [shapes = options.inputShapes, given = options.inputShapeNames, source = path + ": inputShapes"](
                        const std::vector<std::string>& names) -> Result<std::vector<tosa::Shape>> {
      if (given.empty()) {
        if (shapes.size() != names.size()) {
          return invalidInput("{}: expected {} shapes (one per input), got {}", source, names.size(), shapes.size());
        }
        return std::vector<tosa::Shape>(shapes.begin(), shapes.end());
      }
      OPENVGF_ASSIGN_OR_RETURN(std::vector<std::size_t> binding, bindInputs(declaredInputs(names), given, source));
      std::vector<tosa::Shape> ordered;
      for (std::size_t k : binding) ordered.push_back(shapes[k]);
      return ordered;
    };
  }
  return load;
}

api::DeviceOptions deviceOptions(const ModelOptions& options) {
  api::DeviceOptions device;
  device.device = options.device;
  device.validate = options.validate;
  device.pipelineCache = options.pipelineCache;
  device.cacheDir = options.cacheDir;
  device.pipelineStatistics = options.pipelineStatistics;
  return device;
}


// What Session::check judges against: ModelOptions::reference, or with ModelOptions::check the
// graphs the model carries, read before the model gets its device (the reference's variables'
// initial values become the defaults of the `state:` inputs).
struct CheckGraphs {
  std::optional<tosa::Graph> reference;
  std::string referencePath;
  std::vector<tosa::Graph> carried;
};

CheckGraphs readCheckGraphs(api::LoadedModel& loaded, const ModelOptions& options) {
  CheckGraphs graphs;
  if (options.reference.empty()) {
    if (options.check) graphs.carried = unwrap(loaded.carriedGraphs());
    return graphs;
  }
  if (loaded.program()) {
    raiseInvalid(fmt::format("{}: reference {}: expected none for a .pte (each delegate is checked against the TOSA "
                             "graph its VGF carries)", loaded.path(), options.reference));
  }
  graphs.reference = unwrap(tosa::readGraph(std::filesystem::path(options.reference)));
  if (options.keepIntermediates) tosa::keepIntermediates(*graphs.reference);  // its tensors judged by name
  graphs.referencePath = options.reference;
  loaded.addInitialStates(*graphs.reference);
  return graphs;
}

std::shared_ptr<detail::ModelState> modelState(std::unique_ptr<api::Model> model, CheckGraphs graphs) {
  auto state = std::make_shared<detail::ModelState>();
  state->model = std::move(model);
  state->reference = std::move(graphs.reference);
  state->referencePath = std::move(graphs.referencePath);
  state->carried = std::move(graphs.carried);
  const api::LoadedModel& loaded = state->model->loaded();
  state->format = loaded.kind() == api::FileKind::Tosa ? ModelFormat::Tosa
                  : loaded.kind() == api::FileKind::Pte ? ModelFormat::Pte
                                                        : ModelFormat::Vgf;
  state->inputs = publicInfos(loaded.inputs());
  state->outputs = publicInfos(loaded.outputs());
  for (TensorInfo& input : state->inputs) input.hasDefault = loaded.defaultInputs().contains(input.name);
  for (std::size_t i = 0; i < state->inputs.size() && i < loaded.unsignedInputs().size(); ++i) {
    state->inputs[i].isUnsigned = loaded.unsignedInputs()[i];
  }
  for (std::size_t i = 0; i < state->outputs.size() && i < loaded.unsignedOutputs().size(); ++i) {
    state->outputs[i].isUnsigned = loaded.unsignedOutputs()[i];
  }
  std::map<std::string, TensorInfo*> byName;  // ModelOptions::keepIntermediates: what computes each output
  for (TensorInfo& out : state->outputs) byName[out.name] = &out;
  for (const tosa::ComputedTensor& c : loaded.computedTensors()) {
    auto it = byName.find(c.tensor);
    if (it == byName.end()) continue;
    it->second->producer = std::string(tosa::toString(c.op));
    it->second->producerIndex = static_cast<int>(c.opIndex);
    it->second->intermediate = !c.graphOutput;
  }
  return state;
}

void splitNamed(const std::map<std::string, Tensor>& inputs, std::vector<std::string>& names,
                std::vector<Tensor>& given) {
  for (const auto& [name, tensor] : inputs) {
    names.push_back(name);
    given.push_back(tensor);
  }
}

template <typename T>
void eraseValue(std::vector<T>& list, const T& value) {
  list.erase(std::remove(list.begin(), list.end(), value), list.end());
}

}  // namespace

//===------------------------------------------------------------------===//
// Shared state
//===------------------------------------------------------------------===//

namespace detail {
namespace {

std::mutex pinnedMutex;
// Never destroyed: buffers held by static objects may go after it at exit.
std::map<const std::uint8_t*, std::weak_ptr<const PinnedBuffer>>& pinnedRegistry() {
  static auto* registry = new std::map<const std::uint8_t*, std::weak_ptr<const PinnedBuffer>>;
  return *registry;
}

}  // namespace

std::shared_ptr<const PinnedBuffer> PinnedBuffer::create(std::shared_ptr<const ModelState> model,
                                                         runner::PinnedMemory memory) {
  auto buffer = std::make_shared<const PinnedBuffer>(std::move(model), std::move(memory));
  std::lock_guard lock(pinnedMutex);
  pinnedRegistry()[buffer->memory.bytes().data()] = buffer;
  return buffer;
}

PinnedBuffer::~PinnedBuffer() {
  std::lock_guard lock(pinnedMutex);
  auto it = pinnedRegistry().find(memory.bytes().data());
  if (it != pinnedRegistry().end() && it->second.expired()) pinnedRegistry().erase(it);
}

std::shared_ptr<const PinnedBuffer> PinnedBuffer::find(const void* data, std::size_t bytes) {
  const auto* start = static_cast<const std::uint8_t*>(data);
  std::lock_guard lock(pinnedMutex);
  auto it = pinnedRegistry().upper_bound(start);
  if (it == pinnedRegistry().begin()) return nullptr;
  --it;
  std::shared_ptr<const PinnedBuffer> buffer = it->second.lock();
  if (!buffer) return nullptr;
  std::span<std::uint8_t> whole = buffer->memory.bytes();
  // In integers: start + bytes may lie past the end of the address space (a hostile view).
  const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(start) - reinterpret_cast<std::uintptr_t>(whole.data());
  return offset <= whole.size() && bytes <= whole.size() - offset ? buffer : nullptr;
}

void SessionState::finishUpTo(RunState& target) {
  // Runs of a .pte plan are finished when started (and its session has no single part).
  while (!target.finished && !pending.empty()) {
    RunState* run = pending.front();
    pending.erase(pending.begin());
    Status status = withContext(session->single()->wait(run->ticket), session->model().loaded().path());
    if (!status) run->failure = status.error();
    run->finished = true;
    for (SessionState* producer : run->producers) eraseValue(producer->readers, run);
    run->producers.clear();
    run->inputs.clear();  // the device has read them
  }
}

namespace {

bool holds(const std::vector<std::shared_ptr<SessionState>>& list, const SessionState* state) {
  return std::any_of(list.begin(), list.end(), [state](const auto& s) { return s.get() == state; });
}

// Adds to `need` `state` and, where its lists can be read (its lock is in `held`), the sessions
// a call on it may touch (SessionLocks).
void addInvolved(SessionState& state, const std::vector<std::shared_ptr<SessionState>>& held,
                 std::vector<std::shared_ptr<SessionState>>& need) {
  if (holds(need, &state)) return;
  need.push_back(state.shared_from_this());
  if (!holds(held, &state)) return;
  for (RunState* run : state.pending) {
    for (SessionState* producer : run->producers) addInvolved(*producer, held, need);
  }
  for (RunState* reader : state.readers) addInvolved(*reader->session, held, need);
}

}  // namespace

SessionLocks::SessionLocks(SessionState& first, const std::vector<std::shared_ptr<SessionState>>& extra) {
  held_.push_back(first.shared_from_this());
  held_.insert(held_.end(), extra.begin(), extra.end());
  for (;;) {
    std::sort(held_.begin(), held_.end(), [](const auto& a, const auto& b) { return std::less<>()(a.get(), b.get()); });
    held_.erase(std::unique(held_.begin(), held_.end()), held_.end());
    for (const auto& state : held_) state->mutex.lock();
    std::vector<std::shared_ptr<SessionState>> need(extra.begin(), extra.end());
    addInvolved(first, held_, need);
    if (std::all_of(need.begin(), need.end(), [this](const auto& s) { return holds(held_, s.get()); })) return;
    for (auto it = held_.rbegin(); it != held_.rend(); ++it) (*it)->mutex.unlock();
    held_.insert(held_.end(), need.begin(), need.end());
  }
}

SessionLocks::~SessionLocks() {
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) (*it)->mutex.unlock();
}

// A handle dropped unwaited: its run finishes here, into its own outputs (which the handle's
// state still holds), before they go.
RunState::~RunState() {
  SessionLocks locks(*session);
  if (!finished) session->finishUpTo(*this);
}

Tensor TensorAccess::pinnedTensor(DataType dtype, Shape shape, std::shared_ptr<const PinnedBuffer> buffer, void* data,
                                  bool owning) {
  Tensor t;
  t.dtype_ = dtype;
  t.bytes_ = byteSizeOf(dtype, shape);
  t.shape_ = std::move(shape);
  t.data_ = data;
  if (owning) t.owner_ = std::const_pointer_cast<PinnedBuffer>(buffer);
  t.pinned_ = std::move(buffer);
  return t;
}

Tensor TensorAccess::deviceTensor(const TensorInfo& info, std::shared_ptr<const DeviceValue> value) {
  Tensor t;
  t.dtype_ = info.dtype;
  t.shape_ = info.shape;
  t.bytes_ = info.byteSize;
  t.device_ = std::move(value);
  return t;
}

}  // namespace detail

//===------------------------------------------------------------------===//
// Model
//===------------------------------------------------------------------===//

Model Model::open(const std::string& path, const ModelOptions& options) {
  if (std::shared_ptr<detail::ModelState> ethosu = detail::openEthosU(path, options)) return Model(std::move(ethosu));
  api::LoadedModel loaded = unwrap(api::LoadedModel::load(path, loadOptions(options, path)));
  CheckGraphs graphs = readCheckGraphs(loaded, options);
  return Model(modelState(unwrap(api::Model::create(std::move(loaded), deviceOptions(options))), std::move(graphs)));
}

Model Model::open(const std::string& path, const ModelOptions& options, const Model& shareDeviceOf) {
  if (shareDeviceOf.state_->ethosu) detail::refuseForEthosU(*shareDeviceOf.state_, "shareDeviceOf (for " + path + ")");
  if (std::shared_ptr<detail::ModelState> ethosu = detail::openEthosU(path, options)) {
    detail::refuseForEthosU(*ethosu, "shareDeviceOf");
  }
  api::LoadOptions load = loadOptions(options, path);
  // The device is the shared one: "native" converts for it, named by its index.
  const std::shared_ptr<const runner::Context> shared = shareDeviceOf.state_->model->sharedContext();
  load.device = std::to_string(shared->device().snapshot().index);
  api::LoadedModel loaded = unwrap(api::LoadedModel::load(path, load));
  CheckGraphs graphs = readCheckGraphs(loaded, options);
  return Model(modelState(unwrap(api::Model::create(std::move(loaded), shared)), std::move(graphs)));
}

const std::string& Model::path() const {
  return state_->ethosu ? state_->ethosu->path() : state_->model->loaded().path();
}
const std::string& Model::source() const {
  return state_->ethosu ? state_->ethosu->source() : state_->model->loaded().path();
}
ModelFormat Model::format() const { return state_->format; }
const std::vector<TensorInfo>& Model::inputs() const { return state_->inputs; }
const std::vector<TensorInfo>& Model::outputs() const { return state_->outputs; }
const std::string& Model::deviceName() const {
  return state_->ethosu ? state_->ethosu->simulatorName() : state_->model->deviceName();
}
bool Model::fromCache() const { return state_->model && state_->model->loaded().fromCache(); }

bool Model::sharesDeviceWith(const Model& other) const {
  return state_->model && other.state_->model && &state_->model->context() == &other.state_->model->context();
}

Tensor Model::allocatePinned(DataType dtype, Shape shape) const {
  if (state_->ethosu) detail::refuseForEthosU(*state_, "allocatePinned (pinned memory of a Vulkan device)");
  const std::size_t bytes = byteSizeOf(dtype, shape);
  runner::PinnedMemory memory =
      unwrap(runner::PinnedMemory::allocate(state_->model->context(), std::max<std::size_t>(bytes, 1)));
  std::shared_ptr<const detail::PinnedBuffer> buffer = detail::PinnedBuffer::create(state_, std::move(memory));
  void* data = buffer->memory.bytes().data();
  return detail::TensorAccess::pinnedTensor(dtype, std::move(shape), std::move(buffer), data, true);
}

Tensor Model::importPinned(DataType dtype, Shape shape, void* data, std::size_t byteSize) const {
  if (state_->ethosu) detail::refuseForEthosU(*state_, "importPinned (pinned memory of a Vulkan device)");
  Tensor checked = Tensor::view(dtype, shape, data, byteSize);
  Result<runner::PinnedMemory> memory =
      runner::PinnedMemory::import(state_->model->context(), {static_cast<std::uint8_t*>(data), byteSize});
  if (!memory && memory.error().kind() == ErrorKind::InvalidInput) {
    raiseInvalid(fmt::format("importPinned: {}", memory.error().message()));
  }
  if (!memory) {
    throw Exception(ErrorCode::Unsupported,
                    fmt::format("importPinned: {}; pass the memory as a plain Tensor::view (copied through staging) "
                                "or use allocatePinned", memory.error().message()));
  }
  std::shared_ptr<const detail::PinnedBuffer> buffer = detail::PinnedBuffer::create(state_, std::move(*memory));
  return detail::TensorAccess::pinnedTensor(dtype, std::move(shape), std::move(buffer), data, false);
}

std::size_t Model::importAlignment() const {
  if (state_->ethosu) return 0;
  const vulkan::Device& device = state_->model->context().device();
  return device.canImportHostMemory()
             ? static_cast<std::size_t>(std::max<std::uint64_t>(device.snapshot().minImportedHostPointerAlignment, 1))
             : 0;
}

Session Model::createSession(const SessionOptions& options) const {
  if (state_->ethosu) {
    if (options.profile) detail::refuseForEthosU(*state_, "SessionOptions::profile (GPU timestamps)");
    if (options.inFlight < 1 || options.inFlight > 8) {
      raiseInvalid(fmt::format("{}: runs in flight: expected 1 to 8, got {}", source(), options.inFlight));
    }
    return Session(std::make_shared<detail::SessionState>(state_, std::nullopt, options.inFlight));
  }
  runner::SessionOptions sessionOptions;
  sessionOptions.profile = options.profile;
  sessionOptions.inFlight = options.inFlight;
  api::Session session = unwrap(api::Session::create(*state_->model, sessionOptions));
  return Session(std::make_shared<detail::SessionState>(state_, std::move(session), options.inFlight));
}

//===------------------------------------------------------------------===//
// Session
//===------------------------------------------------------------------===//

Session::Session(std::shared_ptr<detail::SessionState> state) : state_(std::move(state)) {}
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
  splitNamed(inputs, names, given);
  outputs = RunHandle(start(names, given, std::move(outputs), options)).wait();
}

void Session::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, const RunOptions& options) {
  outputs = RunHandle(start(std::vector<std::string>(inputs.size()), inputs, std::move(outputs), options)).wait();
}

RunHandle Session::runAsync(const std::vector<Tensor>& inputs, std::vector<Tensor> outputs, const RunOptions& options) {
  return RunHandle(start(std::vector<std::string>(inputs.size()), inputs, std::move(outputs), options));
}

RunHandle Session::runNamedAsync(const std::map<std::string, Tensor>& inputs, std::vector<Tensor> outputs,
                                 const RunOptions& options) {
  std::vector<std::string> names;
  std::vector<Tensor> given;
  splitNamed(inputs, names, given);
  return RunHandle(start(names, given, std::move(outputs), options));
}

namespace {

// The pinned memory of `t` when it belongs to the session's device (memory pinned for
// another device goes through staging like any host memory).
const runner::PinnedMemory* pinnedOn(const detail::SessionState& state, const Tensor& t) {
  const auto& pinned = detail::TensorAccess::pinned(t);
  if (!pinned || pinned->memory.device() != state.model->model->context().device().handle()) return nullptr;
  return &pinned->memory;
}

// The runner input of `t`, model input `index` of `state`'s session, recorded in `run`.
runner::InputRef inputRef(detail::SessionState& state, std::size_t index, const Tensor& t, detail::RunState& run) {
  const std::string& source = state.session->model().loaded().path();
  const std::string& name = state.model->inputs[index].name;
  runner::InputRef ref;
  if (const auto& value = detail::TensorAccess::device(t)) {
    if (value->producer->runs != value->run) {
      raiseInvalid(fmt::format("{}: input '{}': expected a device-resident output of its session's latest run, got "
                               "one of an earlier run (that session has run {} time(s) since)",
                               source, name, value->producer->runs - value->run));
    }
    ref.producer = value->producer->session->single();
    ref.producerOutput = value->output;
    if (std::find(run.producers.begin(), run.producers.end(), value->producer.get()) == run.producers.end()) {
      run.producers.push_back(value->producer.get());
    }
  } else {
    ref.host = {static_cast<const std::uint8_t*>(t.data()), t.byteSize()};
    ref.pinned = pinnedOn(state, t);
  }
  run.inputs.push_back(t);
  return ref;
}

}  // namespace

// Binds and checks the inputs, then starts the run (a .pte plan: runs it to the end).
std::shared_ptr<detail::RunState> Session::start(const std::vector<std::string>& names,
                                                 const std::vector<Tensor>& given, std::vector<Tensor> outputs,
                                                 const RunOptions& options) {
  detail::SessionState& state = *state_;
  auto run = std::make_shared<detail::RunState>();  // before the locks: it may go after them
  run->session = state_;
  run->start = Clock::now();
  run->finished = true;  // until submitted
  std::vector<std::shared_ptr<detail::SessionState>> producers;
  for (const Tensor& t : given) {
    if (const auto& value = detail::TensorAccess::device(t)) producers.push_back(value->producer);
  }
  detail::SessionLocks locks(state, producers);
  if (state.model->ethosu) {
    detail::runEthosU(state, names, given, std::move(outputs), options, *run);
    return run;
  }
  const api::Model& model = *state.model->model;
  const std::string& source = model.loaded().path();
  std::vector<api::Model::BoundInput> bound = unwrap(model.bindInputs(names));
  std::vector<Tensor> inputs;
  for (const api::Model::BoundInput& b : bound) inputs.push_back(b.fallback ? viewOf(*b.fallback) : given[b.given]);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    const TensorInfo& info = state.model->inputs[i];
    if (!isModelType(t.dtype())) {
      raiseInvalid(fmt::format("{}: input '{}': expected dtype {}, got FP64", source, info.name, toString(info.dtype)));
    }
    unwrap(withContext(state.session->checkInput(i, toDType(t.dtype()), t.shape(), t.byteSize()), source));
  }
  outputs.resize(state.model->outputs.size());
  runner::Session* single = state.session->single();
  if (single == nullptr) {
    const bool device = std::any_of(inputs.begin(), inputs.end(),
                                    [](const Tensor& t) { return t.location() != MemoryLocation::Host; });
    if (options.keepOnDevice || device) {
      throw Exception(ErrorCode::Unsupported,
                      fmt::format("{}: device-resident {}: expected a model of one part (.tosa, .vgf), got a .pte "
                                  "plan (its delegate calls exchange tensors through host memory)",
                                  source, device ? "inputs" : "outputs (keepOnDevice)"));
    }
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      std::span<std::uint8_t> memory = state.session->inputMemory(i);
      if (!memory.empty()) std::memcpy(memory.data(), inputs[i].data(), memory.size());
    }
    ++state.runs;
    Status status = withContext(state.session->runInPlace(), source);
    if (!status) run->failure = status.error();
    for (std::size_t o = 0; o < outputs.size() && status; ++o) {
      const TensorInfo& info = state.model->outputs[o];
      Tensor& out = outputs[o];
      if (out.dtype() != info.dtype || out.shape() != info.shape || out.data() == nullptr) out = Tensor(info.dtype, info.shape);
      std::span<const std::uint8_t> memory = state.session->outputMemory(o);
      if (!memory.empty()) std::memcpy(out.data(), memory.data(), memory.size());
    }
    run->outputs = std::move(outputs);
    return run;
  }

  // Every slot in use (runs of this thread or of others): the oldest run finishes first, into
  // its own outputs (its handle keeps them), so callers wait rather than fail.
  while (state.pending.size() >= state.inFlight) state.finishUpTo(*state.pending.front());
  std::vector<runner::InputRef> inputRefs;
  for (std::size_t i = 0; i < inputs.size(); ++i) inputRefs.push_back(inputRef(state, i, inputs[i], *run));
  std::vector<runner::OutputRef> outputRefs(outputs.size());
  for (std::size_t o = 0; o < outputs.size() && !options.keepOnDevice; ++o) {
    const TensorInfo& info = state.model->outputs[o];
    Tensor& out = outputs[o];
    if (out.dtype() != info.dtype || out.shape() != info.shape || out.data() == nullptr) out = Tensor(info.dtype, info.shape);
    outputRefs[o].host = {static_cast<std::uint8_t*>(out.data()), out.byteSize()};
    outputRefs[o].pinned = pinnedOn(state, out);
  }
  // This run overwrites the device-resident outputs of the last one: runs of other sessions
  // still reading them finish first.
  while (!state.readers.empty()) {
    detail::RunState* reader = state.readers.back();
    reader->session->finishUpTo(*reader);
    eraseValue(state.readers, reader);
  }
  run->ticket = unwrap(withContext(single->runAsync(inputRefs, outputRefs), source));
  run->finished = false;
  ++state.runs;
  state.pending.push_back(run.get());
  for (detail::SessionState* producer : run->producers) producer->readers.push_back(run.get());
  for (std::size_t o = 0; o < outputs.size() && options.keepOnDevice; ++o) {
    outputs[o] = detail::TensorAccess::deviceTensor(
        state.model->outputs[o], std::make_shared<detail::DeviceValue>(detail::DeviceValue{state_, state.runs, o}));
  }
  run->outputs = std::move(outputs);
  return run;
}

Profile Session::profile() const {
  std::lock_guard lock(state_->mutex);
  Profile profile;
  profile.hostMs = state_->hostMs;
  if (!state_->session) {
    profile.npuOperations = state_->simulated.operations;
    profile.macs = state_->simulated.macs;
    return profile;
  }
  const runner::RunTiming& timing = state_->session->lastTiming();
  profile.gpuMs = timing.gpuMs();
  profile.timestampsNs = timing.timestampsNs;
  const std::vector<std::string>& names = state_->session->segmentNames();
  for (std::size_t i = 0; i + 1 < timing.timestampsNs.size() && i < names.size(); ++i) {
    profile.segments.push_back(
        {names[i], static_cast<double>(timing.timestampsNs[i + 1] - timing.timestampsNs[i]) * 1e-6});
  }
  return profile;
}

//===------------------------------------------------------------------===//
// RunHandle
//===------------------------------------------------------------------===//

bool RunHandle::valid() const {
  if (!state_) return false;
  std::lock_guard lock(state_->session->mutex);
  return !state_->waited;
}

std::vector<Tensor> RunHandle::wait() {
  if (!state_) raiseInvalid("RunHandle::wait: expected a run not waited for yet, got none");
  detail::RunState& run = *state_;
  detail::SessionLocks locks(*run.session);
  if (run.waited) raiseInvalid("RunHandle::wait: expected a run not waited for yet, got one already waited for");
  run.session->finishUpTo(run);
  run.waited = true;
  run.session->hostMs = std::chrono::duration<double, std::milli>(Clock::now() - run.start).count();
  if (run.failure) raise(*run.failure);
  return std::move(run.outputs);
}

}  // namespace openvgf
