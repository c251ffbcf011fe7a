// SPDX-License-Identifier: Apache-2.0
// What `openvgf extract` writes for a program: which delegate payloads (optionally one plan
// and/or one delegate index), their output file names
// (<plan>_<delegate index>_<backend id>.vgf | .ethosu.bin | .bin) and the manifest.json
// document. Also the text and JSON views of a program used by `openvgf inspect`.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "pte/program.h"

namespace openvgf::pte {

struct ExtractionFilter {
  std::optional<std::string> plan;  // plan name, or its position as a decimal number
  std::optional<std::size_t> delegate;
};

struct ExtractionItem {
  std::string plan;
  std::size_t planIndex = 0;
  std::size_t delegateIndex = 0;
  const Delegate* delegate = nullptr;  // points into the Program
  std::string fileName;
};

/// The payloads the filter selects, in plan / delegate order. Fails (InvalidInput) when the
/// filter names no existing plan or delegate.
Result<std::vector<ExtractionItem>> selectPayloads(const Program& program, const ExtractionFilter& filter);

/// manifest.json: {"source": ..., "delegates": [{plan, plan_index, index, backend_id,
/// location, data_index, offset, size, sha256, payload_kind, file[, problem]}]}.
nlohmann::json manifestJson(const std::string& source, const std::vector<ExtractionItem>& items);

/// `inspect` views of a program.
std::string formatSummary(const Program& program);
nlohmann::json toJson(const Program& program);

}  // namespace openvgf::pte
