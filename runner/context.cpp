// SPDX-License-Identifier: Apache-2.0
// Context creation: instance, device choice, model checks, device, pipeline cache.
#include "runner/context.h"

namespace openvgf::runner {

Result<std::unique_ptr<Context>> Context::create(const ContextOptions& options, std::span<const Model* const> models) {
  OPENVGF_ASSIGN_OR_RETURN(vulkan::Instance instance, vulkan::Instance::create({.validate = options.validate}));
  OPENVGF_ASSIGN_OR_RETURN(std::size_t index, vulkan::chooseDevice(instance.devices(), options.device));
  const vulkan::DeviceSnapshot& snapshot = instance.devices()[index];
  vulkan::FeatureSet features;
  features.add(vulkan::Feature::Synchronization2);
  features.add(vulkan::Feature::TimelineSemaphore);  // sessions order their submissions with timelines
  if (vulkan::FeatureSet missing = options.features.minus(snapshot.features); !missing.empty()) {
    vulkan::Feature first = vulkan::features(missing).front();
    return unsupported("a compute shader needs SPIR-V capability {} (device feature {}), expected {} to support it",
                       vulkan::capabilityForFeature(first), vulkan::featureName(first), snapshot.name);
  }
  features |= options.features;
  for (const Model* model : models) {
    OPENVGF_TRY(model->checkDevice(snapshot));
    features |= model->requiredFeatures();
  }
  OPENVGF_ASSIGN_OR_RETURN(vulkan::Device device, vulkan::Device::create(instance, index, {.features = features, .pipelineStatistics = options.pipelineStatistics}));
  std::filesystem::path dir;
  if (options.pipelineCache) dir = options.cacheDir.empty() ? vulkan::defaultPipelineCacheDir() : options.cacheDir;
  // The cache keeps a pointer to the device, so it is created against the device's final home.
  auto context = std::unique_ptr<Context>(new Context(std::move(instance), std::move(device)));
  OPENVGF_ASSIGN_OR_RETURN(context->cache_, vulkan::PipelineCache::create(context->device_, dir));
  OPENVGF_TRY(context->checkValidation());
  return context;
}

Result<std::unique_ptr<Context>> Context::create(const ContextOptions& options, const Model& model) {
  const Model* models[] = {&model};
  return create(options, models);
}

Status Context::checkValidation() const {
  std::uint64_t errors = instance_.validationErrors();
  if (errors != 0) {
    return runtimeError("the Vulkan validation layer reported {} error(s); see the messages above", errors);
  }
  return {};
}

}  // namespace openvgf::runner
