// SPDX-License-Identifier: Apache-2.0
// Shader instantiation and compilation: a template from the embedded shader library plus
// its defines -> glslang (in process) -> SPIR-V 1.6 for Vulkan 1.3 -> spirv-opt
// (performance passes) -> spirv-val. Identical instances are compiled once, compilation
// runs on all cores, and results are cached on disk by content hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"
#include "converter/shader_defines.h"

namespace openvgf::converter {

struct ShaderInstance {
  std::string templateName;  // e.g. "conv2d.comp"
  ShaderDefines defines;
};

struct CompileOptions {
  bool useCache = true;              // read and write the on-disk SPIR-V cache
  std::filesystem::path cacheDir;    // empty: $XDG_CACHE_HOME/openvgf/spirv (or ~/.cache/...)
  unsigned threads = 0;              // 0: all cores
  bool optimize = true;              // run spirv-opt's performance passes
  /// Called after each unique module finishes (from worker threads, serialised).
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct CompileResult {
  std::vector<std::vector<std::uint32_t>> modules;  // unique SPIR-V modules
  std::vector<std::size_t> moduleOf;                // instance index -> modules index
  std::size_t cacheHits = 0;
};

/// The full GLSL text glslang sees for an instance (for error messages and tests).
Result<std::string> instantiatedSource(const ShaderInstance& instance);

/// The cache key: SHA-256 over template text, defines, glslang version, target env and
/// optimiser flags.
Result<std::string> cacheKey(const ShaderInstance& instance, bool optimize);

/// Compiles one instance without cache or dedup (a failure carries the instantiated source).
Result<std::vector<std::uint32_t>> compileShader(const ShaderInstance& instance, bool optimize = true);

/// Compiles every instance; modules are ordered by first use, so the result does not
/// depend on thread scheduling.
Result<CompileResult> compileShaders(const std::vector<ShaderInstance>& instances, const CompileOptions& options);

/// Default SPIR-V cache folder: cacheRoot()/spirv (common/cache_dir.h), else <temp>/openvgf/spirv.
std::filesystem::path defaultCacheDir();

}  // namespace openvgf::converter
