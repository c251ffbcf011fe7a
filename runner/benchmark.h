// SPDX-License-Identifier: Apache-2.0
// runner::runBenchmark: what `openvgf bench` measures for one VGF on one device.
//
//   1. Context creation (instance, device, pipeline cache load) with a private, empty
//      pipeline-cache folder, so the first Session::create builds every pipeline (cold). With
//      isolateDriverCaches, Mesa's and NVIDIA's shader caches are pointed at that folder too.
//   2. First inference, then `warmup` runs, then timed runs until both `iterations` runs and
//      `minTimeS` seconds are reached: wall latency per inference (inputs in to outputs out,
//      as Session::run's caller sees it) -> min / median / p90 / mean, inferences/s.
//   3. The cache is saved, context and session are destroyed, and a second context loads the
//      cache from disk: Session::create again (warm). A third session, with GPU timestamps,
//      gives the GPU time of the recorded command buffer; timestamps stay out of the wall
//      measurements of step 2.
//   4. With `pipelined` (N runs in flight): host-to-host latency of Session::runAsync + wait,
//      serial with inputs/outputs in PinnedMemory, then pipelined (N in flight) with plain
//      host memory and with PinnedMemory: per-inference period (elapsed / runs, the
//      steady-state host-to-host time per inference), latency of each run (runAsync to its
//      wait's return) and inferences/s.
// Inputs are deterministic pseudo-random tensors of the model's input types and shapes.
// Other drivers' shader caches are outside openvgf's control.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "common/error.h"
#include "runner/model.h"
#include "runner/session.h"
#include "tosa/host_tensor.h"

namespace openvgf::runner {

struct BenchmarkOptions {
  std::string device;  // as ContextOptions::device
  bool validate = false;
  int warmup = 5;
  int iterations = 50;
  double minTimeS = 0.0;
  int gpuIterations = 0;  // profiled runs for the GPU time; 0: min(20, iterations)
  /// Pipeline-cache folder used for cold then warm creation; must be empty or absent
  /// (empty path: a fresh temporary folder, removed afterwards).
  std::filesystem::path cacheDir;
  /// Set MESA_SHADER_CACHE_DIR and __GL_SHADER_DISK_CACHE_PATH to <cache folder>/driver for
  /// the rest of the process (a process-wide change: for a benchmark process, before any other
  /// Vulkan use).
  bool isolateDriverCaches = true;
  std::uint64_t seed = 0x0BE7C4;
  unsigned pipelined = 0;  // runs in flight for step 4 (0: step 4 skipped)
  bool uploadViaHost = false;  // SessionOptions::upload = Host (never the resizable BAR) for every session
  std::uint64_t uploadChunkBytes = kDefaultUploadChunkBytes;  // SessionOptions::uploadChunkBytes of every session
  std::optional<std::size_t> overlapSegments = std::nullopt;  // SessionOptions::overlapSegments of every session
};

struct LatencyStats {
  int count = 0;
  double minMs = 0;
  double medianMs = 0;
  double p90Ms = 0;
  double meanMs = 0;
};

/// min / median / p90 (nearest rank) / mean of `samples` (ms). Empty input: all zero.
LatencyStats summarize(std::span<const double> samples);

/// Host-to-host timing of runAsync + wait with `inFlight` runs in flight.
struct AsyncStats {
  unsigned inFlight = 0;  // 0: not measured
  bool pinned = false;    // inputs and outputs in PinnedMemory
  LatencyStats latency;   // per run: runAsync called -> its wait returned
  double periodMs = 0;    // elapsed / runs
  double inferencesPerS = 0;
};

struct BenchmarkResult {
  std::string model;
  std::string device;
  std::string deviceType;
  std::string driver;
  std::size_t segments = 0;
  std::size_t modules = 0;
  double contextCreateMs = 0;
  double sessionCreateColdMs = 0;
  double sessionCreateWarmMs = 0;
  double firstInferenceMs = 0;
  LatencyStats wall;
  LatencyStats gpu;  // count 0 when the device has no timestamps
  double inferencesPerS = 0;
  std::int64_t batch = 1;      // leading dimension of the first rank-4 input, else 1
  double imagesPerS = 0;       // batch * inferences/s
  std::uint64_t deviceBytes = 0;
  std::uint64_t stagingBytes = 0;
  std::string io;              // Session::ioSummary() of the measured session
  AsyncStats serialPinned;     // step 4
  AsyncStats pipelined;
  AsyncStats pipelinedPinned;
};

/// A deterministic pseudo-random input for `info`: U(-1, 1) for float types, the full range
/// for int8/int16/bool, [-1000, 1000] for int32.
tosa::HostTensor benchmarkInput(const TensorInfo& info, std::uint64_t seed);

/// Runs the measurement on a decoded, validated model.
Result<BenchmarkResult> runBenchmark(const Model& model, const BenchmarkOptions& options);

/// Human-readable multi-line report.
std::string formatText(const BenchmarkResult& result);
/// One JSON object (keys used by benchmarks/report.py); `extra` key/values are added as strings.
std::string formatJson(const BenchmarkResult& result, std::span<const std::pair<std::string, std::string>> extra = {});

}  // namespace openvgf::runner
