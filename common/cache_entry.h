// SPDX-License-Identifier: Apache-2.0
// Cache entries as untrusted input (DESIGN.md "Trust", docs/limits.md "Caches"). Every file
// openvgf keeps under its cache folder (converted models, lowered GRAPH VGFs, SPIR-V modules,
// pipeline caches) is written through writeCacheEntry: a header with the full key the entry
// was stored under and a SHA-256 over key and payload, then the payload. readCacheEntry
// returns the payload only when the header names the same key and the hash matches; any
// other file there (another entry copied over it, a flipped bit, a truncated write, an older
// format) is a miss: the caller rebuilds and overwrites it, and a warning names the file.
// A folder that another user could write to (owned by another user, or group/other-writable
// without the sticky bit) is not trusted: nothing is read from or written to it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace openvgf {

/// Writes `payload` under `key` to `path` atomically, creating its folder; refuses a folder
/// that cacheFolderTrusted rejects. A failure costs the caller only time on the next run.
Status writeCacheEntry(const std::filesystem::path& path, std::string_view key, std::span<const std::uint8_t> payload);

/// The payload stored under `key` at `path`, or nullopt: absent, in an untrusted folder, or not
/// an intact entry for this key (then a warning names the file and why).
std::optional<std::vector<std::uint8_t>> readCacheEntry(const std::filesystem::path& path, std::string_view key);

/// Why `folder` (an existing one) must not hold cache entries, or "" when it may: owned by
/// another user, or writable by group or others without the sticky bit.
std::string untrustedCacheFolder(const std::filesystem::path& folder);

}  // namespace openvgf
