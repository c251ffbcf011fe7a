// SPDX-License-Identifier: Apache-2.0
// What the installed C++ API's handles hold (openvgf/openvgf.hpp declares them opaque), and the
// conversions between the api/ layer and the public types that public_api.cpp and
// public_session.cpp share. Internal: never installed.
#pragma once

#include <chrono>
#include <map>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/ethosu_model.h"
#include "api/model.h"
#include "api/session.h"
#include "common/error.h"
#include "openvgf/openvgf.hpp"
#include "runner/session.h"

namespace openvgf {

[[noreturn]] void raise(const Error& error);
[[noreturn]] void raiseInvalid(const std::string& message);

template <typename T>
T unwrap(Result<T>&& result) {
  if (!result) raise(result.error());
  return std::move(*result);
}

inline void unwrap(Status&& status) {
  if (!status) raise(status.error());
}

// Public DataType values are tosa::DType's numbering, plus Float64.
inline bool isModelType(DataType type) { return type != DataType::Float64; }
inline tosa::DType toDType(DataType type) { return static_cast<tosa::DType>(static_cast<int>(type)); }
inline DataType fromDType(tosa::DType type) { return static_cast<DataType>(static_cast<int>(type)); }

/// Bytes of a dense tensor; InvalidInput for a negative dimension.
std::size_t byteSizeOf(DataType dtype, const Shape& shape);
/// The public form of model inputs or outputs (names, types, shapes, sizes).
std::vector<TensorInfo> publicInfos(const std::vector<runner::TensorInfo>& infos);
/// A read-only view of a HostTensor (the reference interpreter's and the defaults' type).
Tensor viewOf(const tosa::HostTensor& t);

namespace detail {

struct ModelState {
  std::unique_ptr<api::Model> model;  // null for an Ethos-U model
  std::unique_ptr<const api::EthosUModel> ethosu;  // an Ethos-U stream, run in the simulator
  ModelFormat format = ModelFormat::Vgf;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  std::optional<tosa::Graph> reference;  // ModelOptions::reference, read once at open
  std::string referencePath;
  std::vector<tosa::Graph> carried;  // ModelOptions::check without a reference: the graphs the model carries
};

/// Pinned memory of Model::allocatePinned / importPinned. Every live one is listed in a
/// process-wide registry, so that Tensor::view of memory inside one is pinned too (that is
/// how the C API and the Python module pass pinned memory).
struct PinnedBuffer {
  PinnedBuffer(std::shared_ptr<const ModelState> owner, runner::PinnedMemory pinned)
      : model(std::move(owner)), memory(std::move(pinned)) {}
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer();

  std::shared_ptr<const ModelState> model;  // keeps the device alive
  runner::PinnedMemory memory;

  static std::shared_ptr<const PinnedBuffer> create(std::shared_ptr<const ModelState> model,
                                                    runner::PinnedMemory memory);
  /// The live buffer holding all of [data, data + bytes), or null.
  static std::shared_ptr<const PinnedBuffer> find(const void* data, std::size_t bytes);
};

struct RunState;

// Thread safety: every field below, and the runs in `pending` and `readers`, are read and
// written only under `mutex` (taken through SessionLocks), so threads sharing a Session or its
// RunHandles serialise: a second caller waits for the first.
struct SessionState : std::enable_shared_from_this<SessionState> {
  SessionState(std::shared_ptr<const ModelState> owner, std::optional<api::Session> made, unsigned runsInFlight)
      : model(std::move(owner)), session(std::move(made)), inFlight(runsInFlight) {}

  std::shared_ptr<const ModelState> model;  // keeps the device alive
  std::optional<api::Session> session;      // none for an Ethos-U model
  runner::ethosu::SimulatorStats simulated;  // an Ethos-U model: the last run's counts
  double hostMs = 0;
  unsigned inFlight = 1;   // SessionOptions::inFlight
  std::uint64_t runs = 0;  // runs started; a device-resident output names the run it came from
  // Async runs not waited for, in start order (the runner finishes runs in ticket order).
  std::vector<RunState*> pending;
  // Runs of other sessions still reading this session's device-resident outputs: finished
  // before this session's next run overwrites them.
  std::vector<RunState*> readers;

  std::mutex mutex;

  /// Waits for `run` and every run started before it; each keeps its own outcome. Needs the
  /// SessionLocks of this session.
  void finishUpTo(RunState& run);
};

/// The locks of every session one call may touch: its own; the sessions whose runs it may
/// finish (those reading its device-resident outputs); the producers of device-resident
/// tensors those runs read (finishing a run edits its producer's `readers`); and `extra`
/// (the producers of a new run's inputs). Which sessions these are is only known by looking
/// under the locks, so the set is taken in address order and, when a look names one more
/// session, released and taken again, larger: two threads never hold one lock each while
/// waiting for the other's. The sessions stay alive while held.
class SessionLocks {
 public:
  explicit SessionLocks(SessionState& first, const std::vector<std::shared_ptr<SessionState>>& extra = {});
  SessionLocks(const SessionLocks&) = delete;
  SessionLocks& operator=(const SessionLocks&) = delete;
  ~SessionLocks();

 private:
  std::vector<std::shared_ptr<SessionState>> held_;  // in address order, each once
};

/// An output a session kept on the device: output `output` of run `run` of `producer`.
struct DeviceValue {
  std::shared_ptr<SessionState> producer;
  std::uint64_t run = 0;
  std::size_t output = 0;
};

struct RunState {
  std::shared_ptr<SessionState> session;
  runner::RunTicket ticket;       // 0: finished when started (a .pte plan)
  std::vector<Tensor> inputs;     // what the device still reads (pinned and device-resident inputs)
  std::vector<Tensor> outputs;
  std::vector<SessionState*> producers;  // sessions whose device outputs this run reads
  std::chrono::steady_clock::time_point start;
  bool finished = false;  // under the session's lock, like the rest
  bool waited = false;
  std::optional<Error> failure;

  RunState() = default;
  RunState(const RunState&) = delete;
  RunState& operator=(const RunState&) = delete;
  ~RunState();
};

/// Model::open of an Ethos-U model (openvgf.hpp, "Ethos-U models"); null when `path` is not
/// one (a .tosa, a .vgf, a .pte with other delegates).
std::shared_ptr<ModelState> openEthosU(const std::string& path, const ModelOptions& options);
/// Session::start of an Ethos-U model: binds and checks the inputs (throws), then runs to the
/// end into `outputs`; a failure of the run goes to run.failure.
void runEthosU(SessionState& state, const std::vector<std::string>& names, const std::vector<Tensor>& given,
               std::vector<Tensor> outputs, const RunOptions& options, RunState& run);
/// Session::check of an Ethos-U model: bit for bit against the reference interpreter.
CheckReport checkEthosU(const ModelState& model, const std::map<std::string, Tensor>& inputs,
                        const std::vector<Tensor>& outputs);
/// Model::bindInputs of an Ethos-U model (no input has a default).
std::vector<std::size_t> bindEthosUInputs(const ModelState& model, const std::vector<std::string>& names,
                                          const std::string& source);
/// Unsupported: `what` (an option or a call) needs a Vulkan device, and `model` (an Ethos-U
/// model) runs in the simulator.
[[noreturn]] void refuseForEthosU(const ModelState& model, const std::string& what);

/// Tensor's private parts, for the API's implementation.
struct TensorAccess {
  static const std::shared_ptr<const PinnedBuffer>& pinned(const Tensor& t) { return t.pinned_; }
  static void setPinned(Tensor& t, std::shared_ptr<const PinnedBuffer> buffer) { t.pinned_ = std::move(buffer); }
  static const std::shared_ptr<const DeviceValue>& device(const Tensor& t) { return t.device_; }
  static Tensor pinnedTensor(DataType dtype, Shape shape, std::shared_ptr<const PinnedBuffer> buffer, void* data,
                             bool owning);
  static Tensor deviceTensor(const TensorInfo& info, std::shared_ptr<const DeviceValue> value);
};

}  // namespace detail
}  // namespace openvgf
