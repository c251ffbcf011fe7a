// SPDX-License-Identifier: Apache-2.0
// Binding values given by name or in order to a model's (or graph's) inputs, with messages
// that list the expected names.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace openvgf::api {

/// For each name of `expected`, the index into `given` of its value: given names bind by
/// name, empty ones in order to the inputs left. Messages start with `source` and list the
/// expected names (unknown name, a name twice, a wrong count).
Result<std::vector<std::size_t>> bindNames(std::span<const std::string> expected, std::span<const std::string> given,
                                           const std::string& source);

}  // namespace openvgf::api
