// SPDX-License-Identifier: Apache-2.0
// `convert` as a library call: a .tosa file to a VGF (Vulkan targets) or an Ethos-U
// vela_bin_stream, written atomically. The file is checked to be a TOSA graph first, so a
// .pte or .vgf given by mistake gets a message that says what to do with it instead.
#pragma once

#include <string>
#include <vector>

#include "common/error.h"
#include "converter/convert.h"
#include "converter/ethosu/compiler.h"

namespace openvgf::api {

/// Every conversion target: "portable", "native", then the Ethos-U configurations.
std::vector<std::string> conversionTargets();
bool isEthosUTarget(const std::string& target);
/// InvalidInput listing every target when `target` is none of them.
Status checkTarget(const std::string& target);

/// Reads and verifies `input` and converts it for a Vulkan target (`options.target`).
Result<converter::ConvertedModel> convertTosaFile(const std::string& input, const converter::ConvertOptions& options);

/// convertTosaFile, then writes the VGF to `output`.
Result<converter::ConvertedModel> convertToVgf(const std::string& input, const std::string& output,
                                               const converter::ConvertOptions& options);

/// Reads `input`, compiles it for an Ethos-U configuration, writes the vela_bin_stream.
Result<converter::ethosu::CompiledModel> convertToEthosU(const std::string& input, const std::string& output,
                                                         const std::string& target);

}  // namespace openvgf::api
