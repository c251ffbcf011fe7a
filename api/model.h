// SPDX-License-Identifier: Apache-2.0
// api::LoadedModel and api::Model: any model file made runnable. Opening goes
//   detect kind -> lower to a VGF of COMPUTE segments where needed -> runner::Model
// (lowerToCompute in model.cpp is the one place where a file becomes a COMPUTE VGF), and
// api::Model adds the device: a runner::Context whose Sessions run the model.
//
// Kinds: a .tosa is converted in-process (converter::convert) for the chosen target, and the
// VGF is cached by content (model_cache.h); a .vgf runs as it is; a .pte runs the VGF payload
// of its VgfBackend delegate.
#pragma once

#include <filesystem>
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
#include "runner/context.h"
#include "runner/model.h"
#include "runner/session.h"
#include "tosa/graph.h"
#include "tosa/host_tensor.h"
#include "vgf/file.h"

namespace openvgf::api {

struct LoadOptions {
  std::string target = "portable";  // .tosa conversion target
  std::string plan;                 // .pte execution plan (name or index); "" = the only one
  bool modelCache = true;           // .tosa: read and write the converted-model cache
  std::filesystem::path cacheDir;   // cache root; empty = cacheRoot()
};

/// A model file lowered to a COMPUTE VGF and validated for execution; no device yet.
class LoadedModel {
 public:
  static Result<LoadedModel> load(const std::filesystem::path& path, const LoadOptions& options = {});

  LoadedModel(LoadedModel&&) noexcept = default;
  LoadedModel& operator=(LoadedModel&&) noexcept = default;

  const std::string& path() const { return path_; }
  FileKind kind() const { return kind_; }
  const vgf::File& vgf() const { return *file_; }
  const runner::Model& model() const { return *model_; }
  /// .tosa: the converted VGF was read from the model cache.
  bool fromCache() const { return fromCache_; }
  /// Values for inputs the caller may leave out: the initial value of each EXT-VARIABLE
  /// state input (`state:<name>`), known when the source is a .tosa graph.
  const std::map<std::string, tosa::HostTensor>& defaultInputs() const { return defaults_; }
  /// Adds the initial values of `graph`'s variables as defaults of the `state:` inputs that
  /// have none yet (a VGF does not hold them; the graph it came from does).
  void addInitialStates(const tosa::Graph& graph);

 private:
  LoadedModel() = default;

  std::string path_;
  FileKind kind_ = FileKind::Unknown;
  // The VGF bytes: the mapped file itself (.vgf) or a buffer (converted, cached, extracted).
  // vgf::File and runner::Model view these bytes; both storages keep their address on move.
  MappedFile mapped_;
  std::vector<std::uint8_t> owned_;
  std::optional<vgf::File> file_;
  std::optional<runner::Model> model_;
  bool fromCache_ = false;
  std::map<std::string, tosa::HostTensor> defaults_;
};

struct DeviceOptions {
  std::string device;              // as runner::ContextOptions::device
  bool validate = false;
  bool pipelineCache = true;
  std::filesystem::path cacheDir;  // cache root; empty = cacheRoot()
};

/// A LoadedModel on a device. Immutable after open(): several threads may create Sessions
/// at once.
class Model {
 public:
  static Result<std::unique_ptr<Model>> open(const std::filesystem::path& path, const LoadOptions& load,
                                             const DeviceOptions& device);
  static Result<std::unique_ptr<Model>> create(LoadedModel loaded, const DeviceOptions& device);

  const LoadedModel& loaded() const { return loaded_; }
  const runner::Model& model() const { return loaded_.model(); }
  const runner::Context& context() const { return *context_; }
  const std::string& deviceName() const;

  /// A Session on the model's device; the first one writes the pipeline cache to disk.
  Result<runner::Session> createSession(const runner::SessionOptions& options = {}) const;

  /// Where each model input's value comes from, for values given with `names` (a name binds
  /// by name, "" in order): an index into `names`, or a default (LoadedModel::defaultInputs)
  /// for an input left out. Messages name the model file.
  struct BoundInput {
    std::size_t given = 0;                        // index into names, when fallback is null
    const tosa::HostTensor* fallback = nullptr;   // the default value used instead
  };
  Result<std::vector<BoundInput>> bindInputs(std::span<const std::string> names) const;

 private:
  Model(LoadedModel loaded, std::unique_ptr<runner::Context> context)
      : loaded_(std::move(loaded)), context_(std::move(context)) {}

  LoadedModel loaded_;
  std::unique_ptr<runner::Context> context_;
  mutable std::once_flag cacheSaved_;
};

/// runner::Context options of a DeviceOptions.
runner::ContextOptions contextOptions(const DeviceOptions& device);

}  // namespace openvgf::api
