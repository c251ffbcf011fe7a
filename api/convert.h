// SPDX-License-Identifier: Apache-2.0
// `convert` as library calls: a .tosa file to a VGF (Vulkan targets: COMPUTE segments, or one
// GRAPH segment as Arm's model-converter writes it) or an Ethos-U vela_bin_stream, and a VGF
// with GRAPH segments lowered to COMPUTE segments; every output is written atomically. The
// input is checked to be what the call reads first, so a .pte or a VGF of COMPUTE segments
// given by mistake gets a message that says what to do with it instead.
#pragma once

#include <string>
#include <vector>

#include "common/error.h"
#include "converter/convert.h"
#include "converter/lower_vgf.h"
#include "converter/ethosu/compiler.h"

namespace openvgf::api {

/// Every conversion target: "portable", "native", then the Ethos-U configurations.
std::vector<std::string> conversionTargets();
bool isEthosUTarget(const std::string& target);
/// InvalidInput listing every target when `target` is none of them.
Status checkTarget(const std::string& target);

/// Completes `options` for `--target native`: the facts of the device `deviceSelector` picks
/// (the one the model will run on; "" = the best) and the OPENVGF_TUNING spec `tuning`.
/// Other targets are left as they are.
Status prepareNativeTarget(converter::ConvertOptions& options, std::string_view deviceSelector, std::string tuning);

/// Reads and verifies `input` and converts it for a Vulkan target (`options.target`).
Result<converter::ConvertedModel> convertTosaFile(const std::string& input, const converter::ConvertOptions& options);

/// convertTosaFile, then writes the VGF to `output`.
Result<converter::ConvertedModel> convertToVgf(const std::string& input, const std::string& output,
                                               const converter::ConvertOptions& options);

/// Reads and verifies `input` and writes it as a VGF of one GRAPH segment
/// (converter/arm_graph_vgf.h); returns the VGF bytes.
Result<std::vector<std::uint8_t>> convertToArmGraph(const std::string& input, const std::string& output);

/// Lowers the GRAPH segments of the VGF `input` (its shapes must all be static) and writes the
/// VGF of COMPUTE segments to `output`.
Result<converter::LoweredModel> lowerVgfFile(const std::string& input, const std::string& output,
                                             const converter::LowerOptions& options);

/// Reads `input`, compiles it for an Ethos-U configuration, writes the vela_bin_stream.
Result<converter::ethosu::CompiledModel> convertToEthosU(const std::string& input, const std::string& output,
                                                         const std::string& target);

}  // namespace openvgf::api
