// SPDX-License-Identifier: Apache-2.0
// Converted-model cache (see model_cache.h).
#include "api/model_cache.h"

#include "common/cache_entry.h"
#include "common/sha256.h"

namespace openvgf::api {

std::string modelCacheKey(std::span<const std::uint8_t> tosaBytes, std::string_view targetDescription) {
  Sha256 hash;
  // Each part is length-prefixed so that no two different inputs hash the same text.
  auto part = [&](std::string_view text) {
    hash.update(std::to_string(text.size()) + ":");
    hash.update(text);
  };
  part("openvgf converted model v1");
  part(converterFingerprint());
  part(targetDescription);
  hash.update(std::to_string(tosaBytes.size()) + ":");
  hash.update(tosaBytes);
  return hash.hexDigest();
}

std::filesystem::path modelCachePath(const std::filesystem::path& root, const std::string& key) {
  return root / "models" / (key + ".vgf");
}

std::optional<std::vector<std::uint8_t>> readCachedModel(const std::filesystem::path& path, const std::string& key) {
  return readCacheEntry(path, "models/" + key);
}

Status writeCachedModel(const std::filesystem::path& path, const std::string& key, std::span<const std::uint8_t> vgf) {
  return writeCacheEntry(path, "models/" + key, vgf);
}

}  // namespace openvgf::api
