// SPDX-License-Identifier: Apache-2.0
// Run-time loading of the Vulkan loader library (see api.h).
#include "vulkan/api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <optional>

namespace openvgf {

#define OPENVGF_DEFINE_VULKAN_FUNCTION(name) PFN_##name name = nullptr;
OPENVGF_VULKAN_FUNCTIONS(OPENVGF_DEFINE_VULKAN_FUNCTION)
#undef OPENVGF_DEFINE_VULKAN_FUNCTION

namespace vulkan {
namespace {

Status load() {
  const char* override = std::getenv("OPENVGF_VULKAN_LIBRARY");
  const char* library = override != nullptr && override[0] != '\0' ? override : "libvulkan.so.1";
  // Never closed: the function pointers live as long as the process.
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return environmentError(
        "the Vulkan loader {} cannot be loaded: expected it installed (Debian/Ubuntu: apt-get install libvulkan1 "
        "mesa-vulkan-drivers; mesa-vulkan-drivers provides lavapipe, which runs on the CPU)",
        library);
  }
  // The loader exports every core Vulkan 1.3 entry point (the same symbols a link would use).
#define OPENVGF_RESOLVE_VULKAN_FUNCTION(name)                                                           \
  name = reinterpret_cast<PFN_##name>(dlsym(handle, #name));                                           \
  if (name == nullptr) {                                                                                \
    return environmentError("the Vulkan loader {}: expected it to export {} (Vulkan 1.3), it does not; " \
                            "update libvulkan1",                                                        \
                            library, #name);                                                            \
  }
  OPENVGF_VULKAN_FUNCTIONS(OPENVGF_RESOLVE_VULKAN_FUNCTION)
#undef OPENVGF_RESOLVE_VULKAN_FUNCTION
  return {};
}

}  // namespace

Status loadVulkanLibrary() {
  static std::once_flag once;
  static std::optional<Status> result;
  std::call_once(once, [] { result.emplace(load()); });
  return *result;
}

}  // namespace vulkan
}  // namespace openvgf
