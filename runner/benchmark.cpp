// SPDX-License-Identifier: Apache-2.0
// runner::runBenchmark implementation (see benchmark.h for what is measured and why).
#include "runner/benchmark.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "runner/context.h"
#include "runner/session.h"
#include "tosa/float_types.h"

namespace openvgf::runner {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// splitmix64: the same stream on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double symmetric() { return static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0; }

 private:
  std::uint64_t state_;
};

/// A private pipeline-cache folder; removed on destruction when this object created it.
class CacheFolder {
 public:
  static Result<CacheFolder> create(const std::filesystem::path& requested) {
    CacheFolder folder;
    std::error_code ec;
    if (requested.empty()) {
      folder.path_ = std::filesystem::temp_directory_path(ec) /
                     fmt::format("openvgf-bench-{}-{}", ::getpid(), Clock::now().time_since_epoch().count());
      folder.owned_ = true;
    } else {
      folder.path_ = requested;
      if (std::filesystem::exists(folder.path_, ec) && !std::filesystem::is_empty(folder.path_, ec)) {
        return invalidInput("{}: --cache-dir: expected an empty or absent folder (cold pipeline creation), got a "
                            "non-empty one", folder.path_.string());
      }
    }
    std::filesystem::create_directories(folder.path_, ec);
    if (ec) return environmentError("{}: cannot create the pipeline-cache folder: {}", folder.path_.string(), ec.message());
    return folder;
  }
  CacheFolder() = default;
  CacheFolder(CacheFolder&& other) noexcept : path_(std::move(other.path_)), owned_(other.owned_) { other.owned_ = false; }
  CacheFolder& operator=(CacheFolder&&) = delete;
  CacheFolder(const CacheFolder&) = delete;
  CacheFolder& operator=(const CacheFolder&) = delete;
  ~CacheFolder() {
    if (owned_) {
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
    }
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool owned_ = false;
};

std::int64_t batchOf(const Model& model) {
  for (const TensorInfo& t : model.inputs()) {
    if (t.shape.size() == 4) return t.shape[0];
  }
  return 1;
}

SessionOptions optionsFor(const BenchmarkOptions& options) {
  SessionOptions session;
  session.upload = options.uploadViaHost ? UploadMemory::Host : UploadMemory::Auto;
  session.uploadChunkBytes = options.uploadChunkBytes;
  session.overlapSegments = options.overlapSegments;
  return session;
}

// Step 4 of benchmark.h: runAsync/wait with `inFlight` runs in flight, each with its own
// output memory (in PinnedMemory with `pinned`).
Result<AsyncStats> measureAsync(const Context& context, const Model& model, const std::vector<tosa::HostTensor>& inputs,
                                unsigned inFlight, bool pinned, const BenchmarkOptions& options) {
  SessionOptions sessionOptions = optionsFor(options);
  sessionOptions.inFlight = inFlight;
  OPENVGF_ASSIGN_OR_RETURN(Session session, Session::create(context, model, sessionOptions));
  // Per run: every input, then every output, each at a 4 KiB boundary.
  auto page = [](std::uint64_t bytes) { return static_cast<std::size_t>((bytes + 4095) & ~std::uint64_t{4095}); };
  std::size_t perRun = 0;
  for (const TensorInfo& t : model.inputs()) perRun += page(t.bytes);
  for (const TensorInfo& t : model.outputs()) perRun += page(t.bytes);
  std::optional<PinnedMemory> pinnedMemory;
  std::vector<std::uint8_t> hostMemory;
  std::uint8_t* base = nullptr;
  if (pinned) {
    OPENVGF_ASSIGN_OR_RETURN(pinnedMemory, PinnedMemory::allocate(context, perRun * inFlight));
    base = pinnedMemory->bytes().data();
  } else {
    hostMemory.resize(perRun * inFlight);
    base = hostMemory.data();
  }
  std::vector<std::vector<InputRef>> inputRefs(inFlight);
  std::vector<std::vector<OutputRef>> outputRefs(inFlight);
  for (unsigned k = 0; k < inFlight; ++k) {
    std::uint8_t* at = base + k * perRun;
    for (const tosa::HostTensor& t : inputs) {
      std::memcpy(at, t.bytes.data(), t.bytes.size());
      inputRefs[k].push_back({.host = {at, t.bytes.size()}, .pinned = pinned ? &*pinnedMemory : nullptr});
      at += page(t.bytes.size());
    }
    for (const TensorInfo& t : model.outputs()) {
      outputRefs[k].push_back({.host = {at, static_cast<std::size_t>(t.bytes)}, .pinned = pinned ? &*pinnedMemory : nullptr});
      at += page(t.bytes);
    }
  }
  for (int i = 0; i < options.warmup; ++i) {
    OPENVGF_ASSIGN_OR_RETURN(RunTicket t, session.runAsync(inputRefs[0], outputRefs[0]));
    OPENVGF_TRY(session.wait(t));
  }
  std::vector<double> samples;
  std::vector<std::pair<RunTicket, Clock::time_point>> flying;  // oldest first
  auto retire = [&]() -> Status {
    OPENVGF_TRY(session.wait(flying.front().first));
    samples.push_back(msSince(flying.front().second));
    flying.erase(flying.begin());
    return {};
  };
  constexpr std::size_t kMaxRuns = 100000;
  std::size_t runs = 0;
  Clock::time_point start = Clock::now();
  while ((static_cast<int>(runs) < options.iterations || msSince(start) < options.minTimeS * 1000.0) && runs < kMaxRuns) {
    if (flying.size() == inFlight) OPENVGF_TRY(retire());
    Clock::time_point runStart = Clock::now();
    std::size_t k = runs % inFlight;
    OPENVGF_ASSIGN_OR_RETURN(RunTicket t, session.runAsync(inputRefs[k], outputRefs[k]));
    flying.emplace_back(t, runStart);
    ++runs;
  }
  while (!flying.empty()) OPENVGF_TRY(retire());
  double totalMs = msSince(start);
  AsyncStats stats;
  stats.inFlight = inFlight;
  stats.pinned = pinned;
  stats.latency = summarize(samples);
  stats.periodMs = totalMs / static_cast<double>(runs);
  stats.inferencesPerS = 1000.0 / stats.periodMs;
  return stats;
}

}  // namespace

LatencyStats summarize(std::span<const double> samples) {
  LatencyStats s;
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  std::size_t n = sorted.size();
  s.count = static_cast<int>(n);
  s.minMs = sorted.front();
  s.medianMs = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  // Nearest rank: the smallest sample with at least 90% of the samples at or below it.
  std::size_t rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n)));
  s.p90Ms = sorted[std::max<std::size_t>(rank, 1) - 1];
  s.meanMs = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  return s;
}

tosa::HostTensor benchmarkInput(const TensorInfo& info, std::uint64_t seed) {
  tosa::HostTensor t(info.dtype, info.shape);
  Rng rng(seed);
  std::int64_t n = t.size();
  switch (info.dtype) {
    case tosa::DType::Fp32:
      for (float& v : t.as<float>()) v = static_cast<float>(rng.symmetric());
      break;
    case tosa::DType::Fp16:
      for (std::uint16_t& v : t.as<std::uint16_t>()) v = tosa::floatToFp16(static_cast<float>(rng.symmetric()));
      break;
    case tosa::DType::Int8:
      for (std::int64_t i = 0; i < n; ++i) t.as<std::int8_t>()[i] = static_cast<std::int8_t>(rng.next() & 0xFF);
      break;
    case tosa::DType::Int16:
      for (std::int64_t i = 0; i < n; ++i) t.as<std::int16_t>()[i] = static_cast<std::int16_t>(rng.next() & 0xFFFF);
      break;
    case tosa::DType::Int32:
      for (std::int64_t i = 0; i < n; ++i) t.as<std::int32_t>()[i] = static_cast<std::int32_t>(rng.next() % 2001) - 1000;
      break;
    case tosa::DType::Bool:
      for (std::int64_t i = 0; i < n; ++i) t.as<std::uint8_t>()[i] = static_cast<std::uint8_t>(rng.next() & 1);
      break;
    default:
      // Other types (bf16, fp8, int48) get raw random bytes: any bit pattern is a valid input
      // for a timing run.
      for (std::uint8_t& b : t.bytes) b = static_cast<std::uint8_t>(rng.next());
      break;
  }
  return t;
}

Result<BenchmarkResult> runBenchmark(const Model& model, const BenchmarkOptions& options) {
  BenchmarkResult result;
  result.model = model.source();
  result.segments = model.segments().size();
  for (const ModuleInfo& m : model.modules()) result.modules += m.spirv.empty() ? 0 : 1;
  result.batch = batchOf(model);

  std::vector<tosa::HostTensor> inputs;
  for (std::size_t i = 0; i < model.inputs().size(); ++i) {
    inputs.push_back(benchmarkInput(model.inputs()[i], options.seed + i));
  }
  std::vector<const tosa::HostTensor*> ordered;
  for (const tosa::HostTensor& t : inputs) ordered.push_back(&t);
  std::vector<tosa::HostTensor> outputs;

  OPENVGF_ASSIGN_OR_RETURN(CacheFolder cache, CacheFolder::create(options.cacheDir));
  if (options.isolateDriverCaches) {
    // The drivers' own shader caches start empty too, in the same folder, so "cold" is cold
    // for Mesa and NVIDIA and the warm session reads what the cold one wrote. They read these
    // variables when a device is created (NVIDIA: when the process first loads the driver).
    const std::string driverCache = (cache.path() / "driver").string();
    ::setenv("MESA_SHADER_CACHE_DIR", driverCache.c_str(), 1);
    ::setenv("__GL_SHADER_DISK_CACHE_PATH", driverCache.c_str(), 1);
  }
  ContextOptions contextOptions;
  contextOptions.device = options.device;
  contextOptions.validate = options.validate;
  contextOptions.pipelineCache = true;
  contextOptions.cacheDir = cache.path();

  {
    // Cold: empty pipeline cache.
    Clock::time_point start = Clock::now();
    OPENVGF_ASSIGN_OR_RETURN(std::unique_ptr<Context> context, Context::create(contextOptions, model));
    result.contextCreateMs = msSince(start);
    const vulkan::DeviceSnapshot& device = context->device().snapshot();
    result.device = device.name;
    result.deviceType = std::string(vulkan::toString(device.type));
    result.driver = device.driverInfo.empty() ? device.driverName : fmt::format("{} {}", device.driverName, device.driverInfo);

    start = Clock::now();
    OPENVGF_ASSIGN_OR_RETURN(Session session, Session::create(*context, model, optionsFor(options)));
    result.sessionCreateColdMs = msSince(start);
    result.deviceBytes = session.deviceBytes();
    result.stagingBytes = session.stagingBytes();
    result.io = session.ioSummary();
    OPENVGF_TRY(context->savePipelineCache());

    start = Clock::now();
    OPENVGF_TRY(session.run(ordered, outputs));
    result.firstInferenceMs = msSince(start);
    for (int i = 0; i < options.warmup; ++i) OPENVGF_TRY(session.run(ordered, outputs));

    std::vector<double> samples;
    Clock::time_point timedStart = Clock::now();
    double minTimeMs = options.minTimeS * 1000.0;
    // At least `iterations` runs and `minTimeS` seconds; a hard cap keeps tiny models finite.
    constexpr std::size_t kMaxSamples = 100000;
    while ((static_cast<int>(samples.size()) < options.iterations || msSince(timedStart) < minTimeMs) &&
           samples.size() < kMaxSamples) {
      Clock::time_point runStart = Clock::now();
      OPENVGF_TRY(session.run(ordered, outputs));
      samples.push_back(msSince(runStart));
    }
    double totalMs = msSince(timedStart);
    result.wall = summarize(samples);
    result.inferencesPerS = totalMs > 0 ? 1000.0 * static_cast<double>(samples.size()) / totalMs : 0.0;
    result.imagesPerS = result.inferencesPerS * static_cast<double>(result.batch);
    if (options.validate) OPENVGF_TRY(context->checkValidation());
  }

  // Warm: a new context loads the cache the cold run saved; the session is created exactly
  // like the cold one, then replaced by a profiled one for the GPU time.
  OPENVGF_ASSIGN_OR_RETURN(std::unique_ptr<Context> context, Context::create(contextOptions, model));
  {
    Clock::time_point start = Clock::now();
    OPENVGF_ASSIGN_OR_RETURN(Session warm, Session::create(*context, model, optionsFor(options)));
    result.sessionCreateWarmMs = msSince(start);
  }
  SessionOptions profiled = optionsFor(options);
  profiled.profile = context->device().snapshot().timestampValidBits != 0;
  OPENVGF_ASSIGN_OR_RETURN(Session session, Session::create(*context, model, profiled));
  if (profiled.profile) {
    std::vector<double> gpu;
    OPENVGF_TRY(session.run(ordered, outputs));
    int gpuRuns = options.gpuIterations > 0 ? options.gpuIterations : std::min(20, std::max(1, options.iterations));
    for (int i = 0; i < gpuRuns; ++i) {
      OPENVGF_TRY(session.run(ordered, outputs));
      gpu.push_back(session.lastTiming().gpuMs());
    }
    result.gpu = summarize(gpu);
  }
  if (options.pipelined > 0) {
    OPENVGF_ASSIGN_OR_RETURN(result.serialPinned, measureAsync(*context, model, inputs, 1, true, options));
    OPENVGF_ASSIGN_OR_RETURN(result.pipelined, measureAsync(*context, model, inputs, options.pipelined, false, options));
    OPENVGF_ASSIGN_OR_RETURN(result.pipelinedPinned,
                             measureAsync(*context, model, inputs, options.pipelined, true, options));
  }
  if (options.validate) OPENVGF_TRY(context->checkValidation());
  return result;
}

namespace {

// What a run costs beyond the GPU's own work: staging copies, submission, waking the host.
double hostOverheadUs(const BenchmarkResult& r, const LatencyStats& hostToHost) {
  return 1000.0 * (hostToHost.medianMs - r.gpu.medianMs);
}

}  // namespace

std::string formatText(const BenchmarkResult& r) {
  std::string text = fmt::format("{} on {} ({}, {})\n", r.model, r.device, r.deviceType, r.driver);
  text += fmt::format("  session creation: {:.1f} ms cold (empty caches), {:.1f} ms warm (caches from disk) "
                      "({} dispatches, {} modules); context {:.1f} ms\n",
                      r.sessionCreateColdMs, r.sessionCreateWarmMs, r.segments, r.modules, r.contextCreateMs);
  text += fmt::format("  first inference: {:.3f} ms\n", r.firstInferenceMs);
  text += fmt::format("  host-to-host latency over {} runs: min {:.3f} ms, median {:.3f} ms, p90 {:.3f} ms\n",
                      r.wall.count, r.wall.minMs, r.wall.medianMs, r.wall.p90Ms);
  if (r.gpu.count > 0) {
    text += fmt::format("  GPU-resident latency (timestamps, {} runs): median {:.3f} ms, min {:.3f} ms\n", r.gpu.count,
                        r.gpu.medianMs, r.gpu.minMs);
    text += fmt::format("  host overhead (host-to-host minus GPU, medians): {:.1f} us", hostOverheadUs(r, r.wall));
    if (r.serialPinned.inFlight != 0) {
      text += fmt::format("; {:.1f} us with pinned memory", hostOverheadUs(r, r.serialPinned.latency));
    }
    text += "\n";
  } else {
    text += "  GPU time: the device has no timestamp queries\n";
  }
  for (const AsyncStats* a : {&r.serialPinned, &r.pipelined, &r.pipelinedPinned}) {
    if (a->inFlight == 0) continue;
    text += fmt::format("  {} in flight, {} memory: {:.3f} ms per inference ({:.1f} inferences/s); latency median "
                        "{:.3f} ms, p90 {:.3f} ms over {} runs",
                        a->inFlight, a->pinned ? "pinned" : "pageable", a->periodMs, a->inferencesPerS,
                        a->latency.medianMs, a->latency.p90Ms, a->latency.count);
    if (r.gpu.count > 0) text += fmt::format("; {:.2f}x GPU time", a->periodMs / r.gpu.medianMs);
    text += "\n";
  }
  text += fmt::format("  I/O: {}\n", r.io);
  if (r.batch > 1) {
    text += fmt::format("  throughput: {:.1f} inferences/s, {:.1f} images/s (batch {})\n", r.inferencesPerS,
                        r.imagesPerS, r.batch);
  } else {
    text += fmt::format("  throughput: {:.1f} inferences/s\n", r.inferencesPerS);
  }
  text += fmt::format("  device memory: {:.1f} MiB (+ {:.1f} MiB host-visible staging)\n",
                      static_cast<double>(r.deviceBytes) / 1048576.0, static_cast<double>(r.stagingBytes) / 1048576.0);
  return text;
}

std::string formatJson(const BenchmarkResult& r, std::span<const std::pair<std::string, std::string>> extra) {
  nlohmann::json j;
  j["model"] = r.model;
  j["device"] = r.device;
  j["device_type"] = r.deviceType;
  j["driver"] = r.driver;
  j["dispatches"] = r.segments;
  j["modules"] = r.modules;
  j["context_create_ms"] = r.contextCreateMs;
  j["session_create_cold_ms"] = r.sessionCreateColdMs;
  j["session_create_warm_ms"] = r.sessionCreateWarmMs;
  j["first_inference_ms"] = r.firstInferenceMs;
  j["iterations"] = r.wall.count;
  j["min_ms"] = r.wall.minMs;
  j["median_ms"] = r.wall.medianMs;
  j["p90_ms"] = r.wall.p90Ms;
  j["mean_ms"] = r.wall.meanMs;
  if (r.gpu.count > 0) {
    j["gpu_median_ms"] = r.gpu.medianMs;
    j["gpu_min_ms"] = r.gpu.minMs;
    j["gpu_iterations"] = r.gpu.count;
    j["host_overhead_us"] = hostOverheadUs(r, r.wall);
    if (r.serialPinned.inFlight != 0) j["host_overhead_pinned_us"] = hostOverheadUs(r, r.serialPinned.latency);
  } else {
    j["gpu_median_ms"] = nullptr;
  }
  j["inferences_per_s"] = r.inferencesPerS;
  j["batch"] = r.batch;
  j["images_per_s"] = r.batch > 1 ? nlohmann::json(r.imagesPerS) : nlohmann::json(nullptr);
  j["peak_device_memory_bytes"] = r.deviceBytes;
  j["staging_bytes"] = r.stagingBytes;
  j["io"] = r.io;
  auto async = [](const AsyncStats& a) {
    if (a.inFlight == 0) return nlohmann::json(nullptr);
    return nlohmann::json{{"in_flight", a.inFlight},           {"pinned", a.pinned},
                          {"period_ms", a.periodMs},           {"inferences_per_s", a.inferencesPerS},
                          {"latency_median_ms", a.latency.medianMs}, {"latency_p90_ms", a.latency.p90Ms},
                          {"runs", a.latency.count}};
  };
  j["serial_pinned"] = async(r.serialPinned);
  j["pipelined"] = async(r.pipelined);
  j["pipelined_pinned"] = async(r.pipelinedPinned);
  for (const auto& [key, value] : extra) j[key] = value;
  return j.dump(1) + "\n";
}

}  // namespace openvgf::runner
