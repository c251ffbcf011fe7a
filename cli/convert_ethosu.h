// SPDX-License-Identifier: Apache-2.0
// The Ethos-U part of `openvgf convert`: `--target ethos-u*` compiles a .tosa file into a
// vela_bin_stream (.ethosu). Kept apart from convert.cpp so that the command file only parses.
#pragma once

#include <string>

#include "common/error.h"

namespace openvgf::cli {

/// Reads `input` (.tosa), compiles it for `target` (e.g. "ethos-u55-128"), writes `output`
/// atomically and, with `stats`, prints command count, weight/scale bytes, scratch size, MACs
/// and the cycle estimate. Returns the exit code (0).
Result<int> convertEthosU(const std::string& input, const std::string& output, const std::string& target, bool stats);

}  // namespace openvgf::cli
