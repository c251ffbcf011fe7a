// SPDX-License-Identifier: Apache-2.0
// `openvgf bench model.vgf`: prints openvgf::benchmark (session creation with cold / warm
// pipeline cache, first inference, wall latency statistics, GPU time from timestamps,
// throughput and device memory of one model on one device). `--pipelined N` adds host-to-host
// timings of runAsync with pinned memory and N runs in flight; `openvgf bench --transfer MIB`
// (no model) prints openvgf::benchmarkTransfers (host <-> device bandwidth against a plain
// vkCmdCopyBuffer). `--start N` times whole `openvgf run` processes started cold (empty
// caches) and warm (the caches the cold one left), as a fresh CI runner and a second run see them.
// `--devices LIST` measures a DevicePool instead (bench_devices.cpp): each device alone, then
// all together, and the scaling efficiency.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_devices.h"
#include "command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

extern "C" char** environ;

namespace fs = std::filesystem;

struct BenchOptions {
  std::string path;
  BenchmarkOptions bench;
  double transferMiB = 0;
  std::string uploadMemory = "auto";
  double uploadChunkMiB = -1;
  int startPairs = 0;
  std::string devices;  // --devices: the DevicePool measurement instead of the one-device one
  unsigned jobs = 2;    // --jobs: its runs in flight per device
};

// This process's environment with every cache a run reads pointed into `cacheHome`: openvgf's
// model and pipeline caches ($XDG_CACHE_HOME/openvgf), Mesa's and NVIDIA's shader caches.
std::vector<std::string> startEnvironment(const fs::path& cacheHome) {
  const std::vector<std::pair<std::string, std::string>> caches = {
      {"XDG_CACHE_HOME", cacheHome.string()},
      {"MESA_SHADER_CACHE_DIR", (cacheHome / "mesa").string()},
      {"__GL_SHADER_DISK_CACHE_PATH", (cacheHome / "nvidia").string()}};
  std::vector<std::string> variables;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string entry(*variable);
    const bool replaced = std::any_of(caches.begin(), caches.end(),
                                      [&](const auto& c) { return entry.starts_with(c.first + "="); });
    if (!replaced) variables.push_back(entry);
  }
  for (const auto& [name, value] : caches) variables.push_back(name + "=" + value);
  return variables;
}

// Seconds that `openvgf run MODEL --random-inputs` takes as a whole process (this binary) with
// its caches in `cacheHome`; a run that fails is an error that quotes its output.
double timeRunProcess(const BenchOptions& options, const fs::path& cacheHome, const char* which) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) fail(ErrorCode::Environment, fmt::format("bench --start: cannot find this executable: {}", ec.message()));
  std::vector<std::string> arguments{self.string(), "run", options.path, "--random-inputs"};
  if (!options.bench.device.empty()) arguments.insert(arguments.end(), {"--device", options.bench.device});
  arguments.insert(arguments.end(), {"--target", options.bench.target});
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::vector<std::string> variables = startEnvironment(cacheHome);
  std::vector<char*> envp;
  for (std::string& variable : variables) envp.push_back(variable.data());
  envp.push_back(nullptr);
  const std::string log = (cacheHome / "run.log").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int error = ::posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    fail(ErrorCode::Environment, fmt::format("bench --start: cannot start {}: {}", self.string(), std::strerror(error)));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream in(log);
    std::stringstream output;
    output << in.rdbuf();
    fail(ErrorCode::Environment, fmt::format("bench --start: the {} `openvgf run {} --random-inputs` failed ({}): {}",
                                             which, options.path,
                                             WIFEXITED(status) ? fmt::format("exit code {}", WEXITSTATUS(status))
                                                               : std::string("killed by a signal"),
                                             output.str()));
  }
  return seconds;
}

// `--start N`: N pairs of a cold process (a new, empty cache folder) and a warm one (the folder
// the cold one filled); the medians and every sample, as text or as JSON members.
std::string measureStart(const BenchOptions& options, bool json) {
  std::vector<double> cold, warm;
  for (int i = 0; i < options.startPairs; ++i) {
    std::string pattern = (fs::temp_directory_path() / "openvgf-bench-start-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      fail(ErrorCode::Environment, fmt::format("bench --start: cannot create a cache folder in {}: {}",
                                               fs::temp_directory_path().string(), std::strerror(errno)));
    }
    const fs::path cacheHome = pattern;
    cold.push_back(timeRunProcess(options, cacheHome, "cold"));
    warm.push_back(timeRunProcess(options, cacheHome, "warm"));
    std::error_code ec;
    fs::remove_all(cacheHome, ec);
  }
  auto list = [](const std::vector<double>& v) {
    std::string text;
    for (double x : v) text += fmt::format("{}{:.3f}", text.empty() ? "" : ", ", x);
    return text;
  };
  if (json) {
    return fmt::format("\"start_cold_s\": {:.3f}, \"start_warm_s\": {:.3f}, \"start_cold_samples_s\": [{}], "
                       "\"start_warm_samples_s\": [{}], ",
                       median(cold), median(warm), list(cold), list(warm));
  }
  return fmt::format("  process start (`openvgf run --random-inputs`, whole process, median of {}): {:.2f} s cold "
                     "(empty openvgf and driver caches), {:.2f} s warm (the caches of the cold run) [cold {} s; warm "
                     "{} s]\n",
                     options.startPairs, median(cold), median(warm), list(cold), list(warm));
}

void setup(CLI::App& sub, Action& action) {
  auto options = std::make_shared<BenchOptions>();
  sub.add_option("model", options->path,
                 "A .vgf, or a .tosa (converted first, then cached) or .pte (not with --transfer)");
  sub.add_option("--device", options->bench.device, "Vulkan device index or name substring (see `openvgf devices`)");
  sub.add_option("--warmup", options->bench.warmup, "Untimed runs before the measurement")
      ->check(atLeast(0))
      ->capture_default_str();
  sub.add_option("--iterations", options->bench.iterations, "Timed runs (at least)")
      ->check(atLeast(1))
      ->capture_default_str();
  sub.add_option("--min-time", options->bench.minTimeS, "Keep timing until S seconds have passed as well")
      ->check(atLeast(0, false))
      ->capture_default_str();
  sub.add_option("--gpu-iterations", options->bench.gpuIterations,
                 "Runs with GPU timestamps, in a separate session (default: min(20, iterations))")
      ->check(atLeast(1));
  sub.add_option("--cache-dir", options->bench.cacheDir,
                 "Empty folder for the pipeline cache (and Mesa's and NVIDIA's shader caches) of the cold/warm "
                 "measurement (default: a temporary one)");
  sub.add_option("--target", options->bench.target,
                 "How a .tosa is converted and GRAPH segments are lowered: portable (default) or native");
  sub.add_option("--start", options->startPairs,
                 "Also time N pairs of whole `openvgf run MODEL --random-inputs` processes: cold (a new empty folder "
                 "for openvgf's model and pipeline caches and Mesa's and NVIDIA's shader caches) and warm (the caches "
                 "the cold one left); medians and samples in seconds")
      ->check(atLeast(1));
  sub.add_flag("--validate", options->bench.validate, "Enable the Vulkan validation layer (slows everything down)");
  sub.add_flag("--json", options->bench.json, "Print one JSON object instead of text");
  sub.add_option("--pipelined", options->bench.pipelined,
                 "Also time runAsync: serial with pinned memory, and N runs in flight with pageable and pinned memory")
      ->check(CLI::Range(1, 8));
  sub.add_option("--upload-memory", options->uploadMemory,
                 "Upload staging: auto (device-local host-visible when the device has a resizable BAR) or host")
      ->check(oneOf({"auto", "host"}))
      ->capture_default_str();
  sub.add_option("--upload-chunk", options->uploadChunkMiB,
                 "Stage and upload host inputs in pieces of MIB mebibytes, pipelined (0: whole; default: the "
                 "session's)")
      ->check(atLeast(0, false, false));
  sub.add_option("--overlap", options->bench.overlapSegments,
                 "Run at most N of the first dispatches a piece of the batch at a time, each piece as soon as its "
                 "images are uploaded, where the converter recorded them as per-image; in the runs from pinned memory "
                 "(0: off; default: 6 on a device with a transfer queue, else off; the report's io line says what "
                 "ran)")
      ->check(atLeast(0));
  sub.add_option("--transfer", options->transferMiB,
                 "No model: host<->device bandwidth of MIB mebibytes against vkCmdCopyBuffer (--iterations, max 20)")
      ->check(atLeast(0, false, true));
  CLI::Option* devices =
      sub.add_option("--devices", options->devices,
                     "Measure a DevicePool instead: throughput (items/s) of each device alone, of all together, and "
                     "the scaling efficiency (together / sum of alone). Devices as `openvgf batch --devices` takes "
                     "them: all, indices and name substrings (0,1 or H200). --iterations items per device, --warmup "
                     "untimed ones, median of 3 repeats");
  sub.add_option("--jobs", options->jobs, "With --devices: runs in flight per device (1..8)")
      ->check(CLI::Range(1, 8))
      ->capture_default_str()
      ->needs(devices);
  for (const char* single : {"--device", "--pipelined", "--start", "--transfer", "--gpu-iterations", "--cache-dir",
                             "--upload-memory", "--upload-chunk", "--overlap", "--min-time"}) {
    devices->excludes(sub.get_option(single));
  }
  action = [options]() -> int {
    if (!options->devices.empty()) {
      if (options->path.empty()) fail(ErrorCode::InvalidInput, "bench --devices: expected a model, got none");
      DevicesBenchOptions pool;
      pool.path = options->path;
      pool.devices = options->devices;
      pool.inFlight = options->jobs;
      pool.warmup = options->bench.warmup;
      pool.iterations = options->bench.iterations;
      pool.target = options->bench.target;
      pool.validate = options->bench.validate;
      pool.json = options->bench.json;
      std::fputs(benchmarkDevices(pool).c_str(), stdout);
      return 0;
    }
    if (options->transferMiB > 0) {
      if (!options->path.empty()) fail(ErrorCode::InvalidInput, "bench: expected a model or --transfer, got both");
      std::fputs(benchmarkTransfers(static_cast<std::uint64_t>(options->transferMiB * 1048576.0), options->bench).c_str(),
                 stdout);
      return 0;
    }
    if (options->path.empty()) fail(ErrorCode::InvalidInput, "bench: expected a model (or --transfer MIB), got none");
    options->bench.uploadViaHost = options->uploadMemory == "host";
    if (options->uploadChunkMiB >= 0) {
      options->bench.uploadChunkBytes = static_cast<std::int64_t>(options->uploadChunkMiB * 1048576.0);
    }
    std::string report = benchmark(options->path, options->bench);
    if (options->startPairs > 0) {
      // After the in-process measurement, whose model cache the cold processes do not see.
      const std::string start = measureStart(*options, options->bench.json);
      if (options->bench.json) {
        report.insert(report.find('{') + 1, start);
      } else {
        report += start;
      }
    }
    std::fputs(report.c_str(), stdout);
    return 0;
  };
}

OPENVGF_REGISTER_COMMAND({"bench", "Measure session creation, latency, GPU time, throughput and memory of a model", 45,
                          setup});

}  // namespace
}  // namespace openvgf::cli
