// SPDX-License-Identifier: Apache-2.0
// `extract` as a library call: the delegate payloads of a .pte, byte for byte, plus
// manifest.json, written to a folder.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/error.h"
#include "pte/extract.h"

namespace openvgf::api {

struct ExtractedPayload {
  std::string plan;
  std::size_t delegateIndex = 0;
  std::string backendId;
  std::string fileName;  // under the output folder
  std::string problem;   // why the payload is not a valid VGF / vela_bin_stream (still written)
};

/// Writes each payload the filter selects and manifest.json to `outputDir` (created if
/// needed). InvalidInput when `path` is not a .pte or the filter selects nothing that exists.
Result<std::vector<ExtractedPayload>> extractPayloads(const std::string& path, const std::filesystem::path& outputDir,
                                                      const pte::ExtractionFilter& filter);

}  // namespace openvgf::api
