// SPDX-License-Identifier: Apache-2.0
// Converts a graph, runs it with runner::Session on the default device (validation on)
// and judges it with runner::checkAgainstReference, the logic behind `run --check`.
#pragma once

#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "converter/convert.h"
#include "converter/targets/target.h"
#include "runner/check.h"
#include "runner/context.h"
#include "runner/model.h"
#include "runner/session.h"
#include "vulkan/instance.h"
#include "tosa/graph.h"
#include "vgf/decoder.h"

namespace openvgf::testing {

/// An fp32 tensor of values drawn uniformly from [lo, hi).
inline tosa::HostTensor randomFp32(tosa::Shape shape, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  tosa::HostTensor t(tosa::DType::Fp32, std::move(shape));
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& v : t.as<float>()) v = dist(rng);
  return t;
}

struct RunOutcome {
  bool ran = false;
  converter::ConvertStats stats;
  std::vector<tosa::HostTensor> outputs;
  std::vector<runner::OutputCheck> checks;
};

/// Runs a VGF once on the default device with the validation layer on. An Environment error
/// (no Vulkan driver) is passed on so callers can skip.
inline Result<std::vector<tosa::HostTensor>> runOnDevice(const vgf::File& file, const std::vector<tosa::HostTensor>& inputs) {
  OPENVGF_ASSIGN_OR_RETURN(runner::Model model, runner::Model::create(file, "model.vgf"));
  runner::ContextOptions contextOptions;
  contextOptions.validate = true;
  contextOptions.pipelineCache = false;
  OPENVGF_ASSIGN_OR_RETURN(auto context, runner::Context::create(contextOptions, model));
  OPENVGF_ASSIGN_OR_RETURN(runner::Session session, runner::Session::create(*context, model));
  return session.run(inputs);
}

/// The facts of the device runner::Context opens by default (the best one), for "native"
/// conversions that run there; nullopt without a Vulkan device.
inline std::optional<DeviceCaps> localDeviceCaps() {
  static const std::optional<DeviceCaps> caps = []() -> std::optional<DeviceCaps> {
    auto instance = vulkan::Instance::create({});
    if (!instance) return std::nullopt;
    auto index = vulkan::chooseDevice(instance->devices(), "");
    if (!index) return std::nullopt;
    return vulkan::deviceCaps(instance->devices()[*index]);
  }();
  return caps;
}

inline RunOutcome convertRunCheck(const tosa::Graph& graph, const std::vector<tosa::HostTensor>& inputs,
                                  converter::ConvertOptions options = {}) {
  RunOutcome outcome;
  if (options.target == "native" && !options.device) options.device = localDeviceCaps();
  if (options.cacheDir.empty()) options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
  auto converted = converter::convert(graph, options);
  if (!converted) {
    ADD_FAILURE() << converted.error().message();
    return outcome;
  }
  outcome.stats = converted->stats;
  auto file = vgf::decode(converted->vgf);
  if (!file) {
    ADD_FAILURE() << file.error().message();
    return outcome;
  }
  auto model = runner::Model::create(*file, "model.vgf");
  if (!model) {
    ADD_FAILURE() << model.error().message();
    return outcome;
  }
  runner::ContextOptions contextOptions;
  contextOptions.validate = true;
  contextOptions.pipelineCache = false;
  auto context = runner::Context::create(contextOptions, *model);
  if (!context) {
    ADD_FAILURE() << context.error().message();
    return outcome;
  }
  auto session = runner::Session::create(**context, *model);
  if (!session) {
    ADD_FAILURE() << session.error().message();
    return outcome;
  }
  auto actual = session->run(inputs);
  if (!actual) {
    ADD_FAILURE() << actual.error().message();
    return outcome;
  }
  std::vector<std::string> inNames, outNames;
  for (const auto& t : model->inputs()) inNames.push_back(t.name);
  for (const auto& t : model->outputs()) outNames.push_back(t.name);
  auto checks = runner::checkAgainstReference(graph, inNames, inputs, outNames, *actual);
  if (!checks) {
    ADD_FAILURE() << checks.error().message();
    return outcome;
  }
  outcome.ran = true;
  outcome.outputs = std::move(*actual);
  outcome.checks = std::move(*checks);
  return outcome;
}

inline void expectAllPass(const RunOutcome& outcome) {
  ASSERT_TRUE(outcome.ran);
  for (const auto& c : outcome.checks) EXPECT_TRUE(c.verdict.pass) << runner::formatCheck(c);
}

/// A target as lavapipe's device gives it: the portable target with 8-lane subgroups and fp64
/// arithmetic (GEMM operands as 64-bit words, GEMM_A64), tuned by the table's CPU entry
/// (Tuning::runtimeShapes among others).
inline converter::Target lavapipeLikeTarget() {
  converter::Target cpu = converter::portableTarget();
  cpu.caps.subgroupSize = 8;
  cpu.caps.float64 = true;
  converter::applyTuningTable(cpu, converter::DeviceClass::Cpu);
  return cpu;
}

/// Run-time shapes on a CPU device (Tuning::runtimeShapes): converts `graph` for the tuning
/// table's CPU entry with 8-lane subgroups (lavapipe's), checks every output against the
/// reference interpreter on the default device and expects its `kernels` kernels in `modules`
/// distinct modules; with compile-time shapes the same graph has a module per kernel.
inline void expectRuntimeShapesShareModules(const tosa::Graph& graph, const std::vector<tosa::HostTensor>& inputs,
                                            std::size_t kernels, std::size_t modules) {
  converter::Target cpu = lavapipeLikeTarget();
  ASSERT_TRUE(cpu.tuning.runtimeShapes);
  converter::ConvertOptions options;
  options.customTarget = cpu;
  RunOutcome outcome = convertRunCheck(graph, inputs, options);
  expectAllPass(outcome);
  EXPECT_EQ(outcome.stats.kernels, kernels);
  EXPECT_EQ(outcome.stats.uniqueModules, modules);
  cpu.tuning.runtimeShapes = false;
  options.customTarget = cpu;
  auto converted = converter::convert(graph, options);
  ASSERT_TRUE(converted) << converted.error().message();
  EXPECT_EQ(converted->stats.uniqueModules, kernels);
}

}  // namespace openvgf::testing
