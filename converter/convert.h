// SPDX-License-Identifier: Apache-2.0
// The Vulkan backend's public entry point: TOSA graph -> passes -> kernels -> compiled
// SPIR-V -> memory and constant plans -> a VGF model (vgf::File) ready for the encoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "converter/program.h"
#include "converter/targets/target.h"
#include "tosa/graph.h"
#include "vgf/file.h"
#include <span>

namespace openvgf::converter {

struct ConvertOptions {
  std::string target = "portable";  // "portable" | "native"
  /// A target built by hand (tests, tools); when set, `target` is not looked up.
  std::optional<Target> customTarget;
  /// "native": the device that will run the model (vulkan::deviceCaps of its snapshot).
  std::optional<DeviceCaps> device;
  /// "native": an OPENVGF_TUNING spec (applyTuningOverrides), read by the caller; "" = none.
  std::string tuning;
  /// "fp32" (default: TOSA's precision), "fp16", "bf16", "fp16x3", "bf16x3" or "fp32-bf16": fp32
  /// MATMUL / CONV2D operands rounded to fp16 / bf16 (or split into fp16 pairs or bf16 parts) on
  /// such cooperative matrices with fp32 accumulators (Target::precision, converter::Precision);
  /// a target without such cooperative-matrix shapes (bf16: in the KHR encoding) is Unsupported.
  std::string precision = "fp32";
  /// The model will run on a CPU device (lavapipe): any target then skips the SPIR-V optimizer
  /// (Tuning::spirvOptimizer), which such a driver's own compiler makes redundant, and the
  /// portable target takes the tuning table's CPU entry (applyTuningTable, DeviceClass::Cpu).
  bool forCpuDevice = false;
  bool useCache = true;             // on-disk SPIR-V cache (--no-cache turns it off)
  std::filesystem::path cacheDir;   // empty: $XDG_CACHE_HOME/openvgf/spirv
  unsigned threads = 0;             // shader compilation threads; 0 = all cores
  /// Progress of shader compilation: (modules done, modules total).
  std::function<void(std::size_t, std::size_t)> progress;
  /// Graph passes to run (names from passes::passPipeline(), run in pipeline order);
  /// nullopt runs all of them (--passes).
  std::optional<std::vector<std::string>> passes;
  /// Re-check the graph after every pass (always on in Debug builds; --verify-each).
  bool verifyEach = false;
  /// Called with "input" before the passes, then after each pass that ran (--dump-after).
  std::function<void(std::string_view pass, bool changed, const Program& program)> afterPass;
};

struct ConvertStats {
  std::uint64_t peakLiveBytes = 0;    // max bytes of intermediates live at one kernel
  std::uint64_t unaliasedBytes = 0;   // sum of intermediate sizes without aliasing
  std::uint64_t plannedBytes = 0;     // intermediate memory after aliasing (sum of groups)
  std::uint64_t constantBytes = 0;    // CONST00 payload bytes (after dedup and packing)
  std::size_t kernels = 0;            // compute segments / dispatches
  std::size_t splitKGemms = 0;        // GEMMs run as split-K partial + reduction kernels
  std::size_t uniqueModules = 0;      // distinct SPIR-V modules
  std::size_t aliasGroups = 0;
  std::size_t cacheHits = 0;          // modules taken from the SPIR-V cache
  std::vector<std::string> capabilities;  // union of SPIR-V OpCapability names the VGF needs
  std::string target;                     // describeTarget(): name, device, fast paths it offered
};

/// A converted model: the encoded VGF file (format 0.4.3, validated by vgf::Builder) and
/// what the conversion did.
struct ConvertedModel {
  std::vector<std::uint8_t> vgf;
  ConvertStats stats;
};

/// The target `options` asks for: customTarget, or `target` for `device` with `tuning`, then
/// `precision` applied. Every cache key is the fingerprint of this (converter/targets/fingerprint.h).
Result<Target> resolveTarget(const ConvertOptions& options);

/// Converts the main block of `graph`. Errors: Unsupported for an op/type without a
/// kernel (message names operators[i], the op and its types), InvalidInput for an
/// inconsistent graph, Internal for a shader that fails to compile (with its source).
Result<ConvertedModel> convert(const tosa::Graph& graph, const ConvertOptions& options = {});

/// Names of the SPIR-V capabilities a module declares (e.g. "Int64", "StorageBuffer8BitAccess").
std::vector<std::string> spirvCapabilities(std::span<const std::uint32_t> module);

}  // namespace openvgf::converter
