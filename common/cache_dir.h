// SPDX-License-Identifier: Apache-2.0
// The one folder under which openvgf caches what it computes (SPIR-V modules, pipeline
// caches, converted models): $XDG_CACHE_HOME/openvgf, else ~/.cache/openvgf.
#pragma once

#include <filesystem>

namespace openvgf {

/// $XDG_CACHE_HOME/openvgf when XDG_CACHE_HOME is an absolute path (the XDG base-directory
/// rules ignore relative ones), else $HOME/.cache/openvgf; empty when neither is set.
std::filesystem::path cacheRoot();

}  // namespace openvgf
