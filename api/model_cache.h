// SPDX-License-Identifier: Apache-2.0
// The converted-model cache: a .tosa opened through the API is converted once per content,
// target and openvgf build; later opens read the VGF from
// <cache root>/models/<sha256>.vgf. The key hashes the file bytes, the resolved target
// (for `native`, the probed device and the features it offers) and a fingerprint of the
// sources that decide what the converter writes, so a rebuilt openvgf never reads a VGF an
// older converter wrote. Entries carry their key and a content hash (common/cache_entry.h) and
// are written atomically; an entry that is not intact for its key is ignored and rewritten.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace openvgf::api {

/// SHA-256 (hex) of everything that decides the converted VGF.
std::string modelCacheKey(std::span<const std::uint8_t> tosaBytes, std::string_view targetDescription);

/// <root>/models/<key>.vgf
std::filesystem::path modelCachePath(const std::filesystem::path& root, const std::string& key);

/// The bytes cached under `key`, or nullopt when absent or not an intact entry for that key
/// (common/cache_entry.h: a warning names a damaged or foreign entry).
std::optional<std::vector<std::uint8_t>> readCachedModel(const std::filesystem::path& path, const std::string& key);

/// Stores the bytes under `key` (creating the folder); failures are returned for the caller to log.
Status writeCachedModel(const std::filesystem::path& path, const std::string& key, std::span<const std::uint8_t> vgf);

/// Fingerprint of the converter's sources (generated at build time).
std::string_view converterFingerprint();

}  // namespace openvgf::api
