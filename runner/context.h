// SPDX-License-Identifier: Apache-2.0
// runner::Context: the Vulkan instance, the chosen device (with exactly the features the
// models need) and the shared pipeline cache. One per process is typical; any number of
// Sessions, on any threads, may use one Context at the same time; it must outlive them.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "common/error.h"
#include "runner/model.h"
#include "vulkan/device.h"
#include "vulkan/instance.h"
#include "vulkan/pipeline.h"

namespace openvgf::runner {

struct ContextOptions {
  bool validate = false;          ///< VK_LAYER_KHRONOS_validation (also OPENVGF_VALIDATE=1)
  std::string device;             ///< "" best device, digits = index, else name substring
  bool pipelineCache = true;      ///< read/write the on-disk pipeline cache
  std::filesystem::path cacheDir; ///< empty: vulkan::defaultPipelineCacheDir()
  /// Keep the driver's statistics of each compiled pipeline (Session::pipelineStatistics);
  /// needs VK_KHR_pipeline_executable_properties.
  bool pipelineStatistics = false;
  /// Optional features to enable besides those the models need (a scenario's compute shaders,
  /// runner/scenario.h); Unsupported naming the first one when the device lacks it.
  vulkan::FeatureSet features;
};

class Context {
 public:
  /// Picks the device, checks every model against it (Model::checkDevice: the capability is
  /// named before anything is built), and creates the device with the union of the features
  /// the models need plus synchronization2 and timelineSemaphore (the runner's barriers and
  /// submissions use them).
  static Result<std::unique_ptr<Context>> create(const ContextOptions& options, std::span<const Model* const> models);
  static Result<std::unique_ptr<Context>> create(const ContextOptions& options, const Model& model);

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const vulkan::Instance& instance() const { return instance_; }
  const vulkan::Device& device() const { return device_; }
  const vulkan::PipelineCache& pipelineCache() const { return *cache_; }
  /// Writes the pipeline cache to disk (no-op when caching is off).
  Status savePipelineCache() const { return cache_->save(); }
  /// An error when the validation layer has reported errors so far.
  Status checkValidation() const;

 private:
  Context(vulkan::Instance instance, vulkan::Device device)
      : instance_(std::move(instance)), device_(std::move(device)) {}
  // Declaration order = creation order; destroyed in reverse (cache, device, instance).
  vulkan::Instance instance_;
  vulkan::Device device_;
  std::optional<vulkan::PipelineCache> cache_;  // set right after construction
};

}  // namespace openvgf::runner
