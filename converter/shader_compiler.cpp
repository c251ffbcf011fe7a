// SPDX-License-Identifier: Apache-2.0
// glslang + SPIRV-Tools driver for shader templates (see shader_compiler.h).
#include "converter/shader_compiler.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <glslang/build_info.h>
#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

#include "common/cache_dir.h"
#include "common/cache_entry.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "converter/coopmat_khr.h"
#include "shaders/library.h"

namespace openvgf::converter {
namespace {

constexpr std::string_view kTargetEnv = "vulkan1.3/spirv1.6";

void initGlslangOnce() {
  static std::once_flag flag;
  std::call_once(flag, [] { glslang::InitializeProcess(); });
}

// Resolves `#include "include/x.glsl"` from the embedded library (relative to shaders/).
class EmbeddedIncluder : public glslang::TShader::Includer {
 public:
  IncludeResult* includeLocal(const char* headerName, const char* /*includerName*/, size_t /*depth*/) override {
    return lookup(headerName);
  }
  IncludeResult* includeSystem(const char* headerName, const char* /*includerName*/, size_t /*depth*/) override {
    return lookup(headerName);
  }
  void releaseInclude(IncludeResult* result) override { delete result; }

 private:
  IncludeResult* lookup(const char* headerName) {
    auto text = shaders::find(headerName);
    if (!text) return nullptr;
    return new IncludeResult(headerName, text->data(), text->size(), nullptr);
  }
};

std::string numbered(const std::string& text) {
  std::string out;
  int line = 1;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += fmt::format("{:5} | {}\n", line++, std::string_view(text).substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string glslangVersion() {
  return fmt::format("glslang {}.{}.{}{}", GLSLANG_VERSION_MAJOR, GLSLANG_VERSION_MINOR, GLSLANG_VERSION_PATCH,
                     GLSLANG_VERSION_FLAVOR);
}

// The module cached under `key`: an intact entry for that key (common/cache_entry.h), so
// exactly the words compileShader validated when it wrote them.
std::optional<std::vector<std::uint32_t>> readCached(const std::filesystem::path& file, const std::string& key) {
  std::optional<std::vector<std::uint8_t>> bytes = readCacheEntry(file, "spirv/" + key);
  if (!bytes || bytes->size() < 20 || bytes->size() % 4 != 0) return std::nullopt;
  std::vector<std::uint32_t> words(bytes->size() / 4);
  std::memcpy(words.data(), bytes->data(), bytes->size());
  if (words[0] != 0x07230203u) return std::nullopt;
  return words;
}

}  // namespace

std::filesystem::path defaultCacheDir() {
  const std::filesystem::path root = cacheRoot();
  return (root.empty() ? std::filesystem::temp_directory_path() / "openvgf" : root) / "spirv";
}

Result<std::string> instantiatedSource(const ShaderInstance& instance) {
  auto text = shaders::find(instance.templateName);
  if (!text) return internalError("shader template {}: not in the embedded library", instance.templateName);
  // glslang inserts the preamble right after #version; show it the same way.
  std::string source(*text);
  std::size_t version = source.find("#version");
  std::size_t lineEnd = version == std::string::npos ? 0 : source.find('\n', version) + 1;
  return source.substr(0, lineEnd) + instance.defines.preamble() + source.substr(lineEnd);
}

Result<std::string> cacheKey(const ShaderInstance& instance, bool optimize) {
  auto text = shaders::find(instance.templateName);
  if (!text) return internalError("shader template {}: not in the embedded library", instance.templateName);
  Sha256 hash;
  hash.update(instance.templateName).update(std::string_view("\0", 1));
  hash.update(*text).update(std::string_view("\0", 1));
  // Includes are part of what glslang compiles, so they are part of the key.
  for (const auto& source : shaders::all()) {
    if (source.name.starts_with("include/")) hash.update(source.name).update(source.text);
  }
  hash.update(instance.defines.preamble()).update(std::string_view("\0", 1));
  hash.update(glslangVersion()).update(kTargetEnv).update(optimize ? "opt:performance" : "opt:none");
  return hash.hexDigest();
}

Result<std::vector<std::uint32_t>> compileShader(const ShaderInstance& instance, bool optimize) {
  initGlslangOnce();
  auto text = shaders::find(instance.templateName);
  if (!text) return internalError("shader template {}: not in the embedded library", instance.templateName);
  const std::string preamble = instance.defines.preamble();
  auto failure = [&](std::string_view stage, std::string_view log) -> Unexpected {
    auto source = instantiatedSource(instance);
    return internalError("shader {}: {} failed (a converter bug):\n{}\ninstantiated source:\n{}",
                         instance.templateName, stage, log, source ? numbered(*source) : std::string());
  };

  glslang::TShader shader(EShLangCompute);
  const char* strings[] = {text->data()};
  const int lengths[] = {static_cast<int>(text->size())};
  const char* names[] = {instance.templateName.c_str()};
  shader.setStringsWithLengthsAndNames(strings, lengths, names, 1);
  shader.setPreamble(preamble.c_str());
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_3);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_6);
  shader.setEntryPoint("main");
  EmbeddedIncluder includer;
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 460, false, messages, includer)) {
    return failure("glslang parse", shader.getInfoLog());
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) return failure("glslang link", program.getInfoLog());

  std::vector<std::uint32_t> spirv;
  spv::SpvBuildLogger logger;
  glslang::SpvOptions spvOptions;
  spvOptions.disableOptimizer = true;  // spirv-opt below, with the flags the cache key names
  spvOptions.validate = false;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv, &logger, &spvOptions);
  if (spirv.empty()) return failure("SPIR-V generation", logger.getAllMessages());

  std::string diagnostics;
  auto consumer = [&diagnostics](spv_message_level_t, const char*, const spv_position_t& position,
                                 const char* message) {
    diagnostics += fmt::format("word {}: {}\n", position.index, message);
  };
  if (optimize) {
    spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_3);
    optimizer.SetMessageConsumer(consumer);
    optimizer.RegisterPerformancePasses();
    std::vector<std::uint32_t> optimized;
    if (!optimizer.Run(spirv.data(), spirv.size(), &optimized)) return failure("spirv-opt", diagnostics);
    spirv = std::move(optimized);
  }
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_3);
  tools.SetMessageConsumer(consumer);
  if (!tools.Validate(spirv)) return failure("spirv-val", diagnostics);
  // CM_ENCODING (include/gemm_coopmat_ext.glsl): the NV module spirv-val has just accepted is
  // re-encoded as KHR cooperative matrices, which Debian's glslang and spirv-val do not know.
  const auto encoding = instance.defines.entries().find("CM_ENCODING");
  if (encoding != instance.defines.entries().end() && encoding->second != "0") {
    const CoopMatScope scope = encoding->second == "2" ? CoopMatScope::Workgroup : CoopMatScope::Subgroup;
    const auto bf16 = instance.defines.entries().find("CM_BF16");
    auto khr = cooperativeMatrixNvToKhr(spirv, scope, bf16 != instance.defines.entries().end() && bf16->second == "1");
    if (!khr) return failure("KHR cooperative-matrix encoding", khr.error().message());
    spirv = std::move(*khr);
  }
  return spirv;
}

Result<CompileResult> compileShaders(const std::vector<ShaderInstance>& instances, const CompileOptions& options) {
  CompileResult result;
  // Dedup by instantiated text; module order = order of first use (deterministic).
  std::map<std::string, std::size_t> unique;  // template + preamble -> module index
  std::vector<std::size_t> firstInstance;
  result.moduleOf.reserve(instances.size());
  for (std::size_t i = 0; i < instances.size(); ++i) {
    std::string identity = instances[i].templateName + '\0' + instances[i].defines.preamble();
    auto [it, inserted] = unique.emplace(std::move(identity), firstInstance.size());
    if (inserted) firstInstance.push_back(i);
    result.moduleOf.push_back(it->second);
  }
  const std::size_t total = firstInstance.size();
  result.modules.resize(total);
  std::vector<std::optional<Error>> errors(total);
  const std::filesystem::path cacheDir = options.cacheDir.empty() ? defaultCacheDir() : options.cacheDir;

  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> hits{0};
  std::mutex progressMutex;
  std::size_t done = 0;
  auto work = [&] {
    for (std::size_t m = next.fetch_add(1); m < total; m = next.fetch_add(1)) {
      const ShaderInstance& instance = instances[firstInstance[m]];
      std::filesystem::path cacheFile;
      std::string key;
      bool fromCache = false;
      if (options.useCache) {
        if (auto computed = cacheKey(instance, options.optimize)) {
          key = std::move(*computed);
          cacheFile = cacheDir / (key + ".spv");
          if (auto cached = readCached(cacheFile, key)) {
            result.modules[m] = std::move(*cached);
            fromCache = true;
            hits.fetch_add(1);
          }
        }
      }
      if (!fromCache) {
        auto compiled = compileShader(instance, options.optimize);
        if (!compiled) {
          errors[m] = std::move(compiled).error();
        } else {
          result.modules[m] = std::move(*compiled);
          if (!cacheFile.empty()) {
            // A cache that cannot be written only costs time on the next conversion.
            const auto& words = result.modules[m];
            (void)writeCacheEntry(cacheFile, "spirv/" + key,
                                  std::span(reinterpret_cast<const std::uint8_t*>(words.data()), words.size() * 4));
          }
        }
      }
      if (options.progress) {
        std::lock_guard lock(progressMutex);
        options.progress(++done, total);
      }
    }
  };
  unsigned threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(total, 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& thread : pool) thread.join();
  for (auto& error : errors) {
    if (error) return Unexpected(std::move(*error));
  }
  result.cacheHits = hits.load();
  return result;
}

}  // namespace openvgf::converter
