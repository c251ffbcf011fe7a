// SPDX-License-Identifier: Apache-2.0
// api::LoadedModel and api::Model: any model file made runnable. Opening goes
//   detect kind -> lower to VGFs of COMPUTE segments where needed -> runner::Models
// (lowerPart in model.cpp is the one place where a VGF becomes a COMPUTE VGF), and api::Model
// adds the device: one runner::Context for all parts (api::Session runs them).
//
// Kinds: a .tosa is converted in-process (converter::convert) for the chosen target, and the
// VGF is cached by content (model_cache.h); a .vgf of COMPUTE segments runs as it is; a .vgf
// with GRAPH segments (Arm's encoding) is lowered (converter/lower_vgf.h, cached); a .pte runs
// its plan (pte/run_plan.h): each VgfBackend delegate call is a part, lowered like a .vgf, with
// plain copies between them.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/file_kind.h"
#include "common/error.h"
#include "common/file_io.h"
#include "converter/graph_segments.h"
#include "runner/context.h"
#include "runner/model.h"
#include "runner/session.h"
#include "tosa/graph.h"
#include "tosa/host_tensor.h"
#include "tosa/intermediates.h"
#include "vgf/file.h"

namespace openvgf::api {

struct LoadOptions {
  std::string target = "portable";  // .tosa conversion / GRAPH-segment lowering target
  /// "native": the device selector the model will be opened with (DeviceOptions::device; ""
  /// = the best device), so it is converted for that device (nativeDeviceCaps).
  std::string device;
  std::string tuning;               // "native": OPENVGF_TUNING spec, read at the edge ("" = none)
  std::string plan;                 // .pte execution plan (name or index); "" = the only one, or 'forward'
  bool modelCache = true;           // read and write the converted-model and lowered-VGF caches
  std::filesystem::path cacheDir;   // cache root; empty = cacheRoot()
  /// A VGF with GRAPH segments: the shape of each model input (given their names, in input
  /// order) to lower for; it fixes the dimensions the file leaves dynamic and must agree with
  /// the static ones. Unset: the file's shapes.
  std::function<Result<std::vector<tosa::Shape>>(const std::vector<std::string>& inputNames)> inputShapes;
  /// A .tosa: every tensor its operators compute becomes an extra output, after the graph's
  /// own (tosa/intermediates.h); refused for other kinds, whose kernels are fused already.
  bool keepIntermediates = false;
};

/// One VGF of COMPUTE segments that runs on the device: the whole model, or one VgfBackend
/// delegate call of a .pte plan.
struct ModelPart {
  std::string where;                 // names the part in messages: the file, or "<file>: plan 'p' delegates[d] (instruction i)"
  std::vector<std::uint8_t> owned;   // VGF bytes made here (converted, lowered, unpacked payload)
  std::optional<vgf::File> file;     // the COMPUTE VGF (views `owned` or the model file)
  std::optional<runner::Model> model;
  std::vector<bool> unsignedInputs;   // inputs stored unsigned (R8/R16/R32_UINT)
  std::vector<bool> unsignedOutputs;  // outputs stored unsigned (R8/R16/R32_UINT, ExecuTorch Byte)
  // A VGF with GRAPH segments: its bytes (owned by the LoadedModel) and the input shapes it
  // was lowered for, from which carriedGraph() decodes the TOSA graph it carries.
  std::span<const std::uint8_t> graphVgf;
  std::vector<std::uint8_t> graphVgfStorage;
  converter::KnownShapes loweredShapes;
  bool fromCache = false;
};

/// A .pte plan as openvgf runs it: delegate calls (a part each) and copies between them, over
/// the plan's values.
struct ProgramStep {
  std::optional<std::size_t> part;    // the part it runs; none: a copy of inputs[0] into outputs[0]
  std::vector<std::int32_t> inputs;   // value indexes
  std::vector<std::int32_t> outputs;
};
struct Program {
  std::vector<std::int32_t> inputs;   // the plan's inputs and outputs (value indexes)
  std::vector<std::int32_t> outputs;
  std::vector<ProgramStep> steps;
  std::map<std::int32_t, tosa::Shape> shapes;  // every value a copy writes: its shape
};

/// A model file lowered to COMPUTE VGFs and validated for execution; no device yet.
class LoadedModel {
 public:
  static Result<LoadedModel> load(const std::filesystem::path& path, const LoadOptions& options = {});

  LoadedModel(LoadedModel&&) noexcept = default;
  LoadedModel& operator=(LoadedModel&&) noexcept = default;

  const std::string& path() const { return path_; }
  FileKind kind() const { return kind_; }
  /// The model's inputs and outputs (a .pte: its plan's, named input_<i> / output_<i>).
  const std::vector<runner::TensorInfo>& inputs() const { return inputs_; }
  const std::vector<runner::TensorInfo>& outputs() const { return outputs_; }
  std::optional<std::size_t> findInput(std::string_view name) const;
  /// Outputs stored unsigned: their .npy files are written as uint8/16/32.
  const std::vector<bool>& unsignedOutputs() const { return unsigned_; }
  /// Inputs stored unsigned (R8/R16/R32_UINT, ExecuTorch Byte): they take uint8/16/32 arrays.
  const std::vector<bool>& unsignedInputs() const { return unsignedInputs_; }

  /// What runs on the device: one part, or a .pte's delegate calls in program order.
  std::size_t partCount() const { return parts_.size(); }
  const ModelPart& part(std::size_t index) const { return *parts_[index]; }
  /// A .pte: the steps of its plan; null for a single VGF.
  const Program* program() const { return program_ ? &*program_ : nullptr; }

  /// Every part's lowered or converted VGF was read from a cache.
  bool fromCache() const;
  /// Values for inputs the caller may leave out: the initial value of each EXT-VARIABLE
  /// state input (`state:<name>`), known when the source is a .tosa graph.
  const std::map<std::string, tosa::HostTensor>& defaultInputs() const { return defaults_; }
  /// Adds the initial values of `graph`'s variables as defaults of the `state:` inputs that
  /// have none yet (a VGF does not hold them; the graph it came from does).
  void addInitialStates(const tosa::Graph& graph);

  /// The TOSA graph each part carries, to check its outputs against (`run --check` without a
  /// file): a .tosa's own graph, or the graph of a VGF's GRAPH segments, decoded with the
  /// shapes it was lowered for. InvalidInput naming the part when one carries none.
  Result<std::vector<tosa::Graph>> carriedGraphs() const;
  /// LoadOptions::keepIntermediates: what computes each tensor of the graph (the graph's own
  /// outputs included), in operator order; empty otherwise.
  const std::vector<tosa::ComputedTensor>& computedTensors() const { return computed_; }

 private:
  LoadedModel() = default;
  Status loadProgram(const LoadOptions& options);

  std::string path_;
  FileKind kind_ = FileKind::Unknown;
  MappedFile mapped_;  // the model file; parts view it (keeps its address on move)
  std::vector<std::unique_ptr<ModelPart>> parts_;
  std::optional<Program> program_;
  std::vector<runner::TensorInfo> inputs_;
  std::vector<runner::TensorInfo> outputs_;
  std::vector<bool> unsigned_;
  std::vector<bool> unsignedInputs_;
  std::map<std::string, tosa::HostTensor> defaults_;
  std::vector<tosa::ComputedTensor> computed_;
};

struct DeviceOptions {
  std::string device;              // as runner::ContextOptions::device
  bool validate = false;
  bool pipelineCache = true;
  std::filesystem::path cacheDir;  // cache root; empty = cacheRoot()
  bool pipelineStatistics = false;  // as runner::ContextOptions::pipelineStatistics
};

/// A LoadedModel on a device. Immutable after open(): several threads may create Sessions
/// at once.
class Model {
 public:
  static Result<std::unique_ptr<Model>> open(const std::filesystem::path& path, const LoadOptions& load,
                                             const DeviceOptions& device);
  static Result<std::unique_ptr<Model>> create(LoadedModel loaded, const DeviceOptions& device);
  /// On the device and context of another Model, so sessions of both can pass device-resident
  /// tensors to each other. Unsupported, naming the feature, when `loaded` needs one the shared
  /// device was not created with.
  static Result<std::unique_ptr<Model>> create(LoadedModel loaded, std::shared_ptr<const runner::Context> shared);

  const LoadedModel& loaded() const { return loaded_; }
  const runner::Context& context() const { return *context_; }
  /// The context, to share with another Model (create's second form).
  const std::shared_ptr<const runner::Context>& sharedContext() const { return context_; }
  const std::string& deviceName() const;

  /// A runner::Session of part `part` on the model's device; the first one writes the
  /// pipeline cache to disk. (api::Session runs the whole model.)
  Result<runner::Session> createPartSession(std::size_t part, const runner::SessionOptions& options = {}) const;

  /// Where each model input's value comes from, for values given with `names` (a name binds
  /// by name, "" in order): an index into `names`, or a default (LoadedModel::defaultInputs)
  /// for an input left out. Messages name the model file.
  struct BoundInput {
    std::size_t given = 0;                        // index into names, when fallback is null
    const tosa::HostTensor* fallback = nullptr;   // the default value used instead
  };
  /// `source` starts the messages ("" = the model file).
  Result<std::vector<BoundInput>> bindInputs(std::span<const std::string> names, std::string_view source = {}) const;

 private:
  Model(LoadedModel loaded, std::shared_ptr<const runner::Context> context)
      : loaded_(std::move(loaded)), context_(std::move(context)) {}

  LoadedModel loaded_;
  std::shared_ptr<const runner::Context> context_;
  mutable std::once_flag cacheSaved_;
};

/// runner::Context options of a DeviceOptions.
runner::ContextOptions contextOptions(const DeviceOptions& device);

}  // namespace openvgf::api
