// SPDX-License-Identifier: Apache-2.0
// Conversion entry points (see convert.h).
#include "api/convert.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/devices.h"
#include "common/suggest.h"
#include "api/file_kind.h"
#include "common/file_io.h"
#include "converter/arm_graph_vgf.h"
#include "ethosu/accelerator.h"
#include "tosa/reader.h"
#include "tosa/verifier.h"
#include "vgf/decoder.h"

namespace openvgf::api {
namespace {

// The graph in `input`, after checking that it is a TOSA file at all.
Result<tosa::Graph> readTosaInput(const std::string& input) {
  OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(input));
  switch (detectFileKind(file.bytes())) {
    case FileKind::Tosa: return tosa::readGraph(file.bytes(), input);
    case FileKind::Pte:
      return invalidInput("{}: expected a TOSA flatbuffer, got an ExecuTorch program: `openvgf extract {} -o DIR` "
                          "writes its delegate payloads (VGF, Ethos-U) to files, and `openvgf run {}` runs a program "
                          "delegated to VgfBackend",
                          input, input, input);
    case FileKind::Vgf: return invalidInput("{}: expected a TOSA flatbuffer, got a VGF file", input);
    default: break;
  }
  return invalidInput("{}: expected a TOSA flatbuffer (\"TOSA\" at offset 4), got {}; convert the model to TOSA 1.0 "
                      "first",
                      input, describeFile(file.bytes()));
}

}  // namespace

std::vector<std::string> conversionTargets() {
  std::vector<std::string> targets{"portable", "native"};
  for (const ethosu::AcceleratorConfig& c : ethosu::acceleratorConfigs()) {
    targets.emplace_back(c.name);
  }
  return targets;
}

bool isEthosUTarget(const std::string& target) { return ethosu::findAccelerator(target).has_value(); }

Status checkTarget(const std::string& target) {
  std::vector<std::string> targets = conversionTargets();
  if (std::find(targets.begin(), targets.end(), target) != targets.end()) return {};
  return invalidInput("--target: expected one of {}, got '{}'{}", fmt::join(targets, ", "), target, didYouMean(target, targets));
}

Status prepareNativeTarget(converter::ConvertOptions& options, std::string_view deviceSelector, std::string tuning) {
  if (options.target != "native") return {};
  OPENVGF_ASSIGN_OR_RETURN(options.device, nativeDeviceCaps(deviceSelector));
  options.tuning = std::move(tuning);
  return {};
}

Result<converter::ConvertedModel> convertTosaFile(const std::string& input, const converter::ConvertOptions& options) {
  OPENVGF_TRY(checkTarget(options.target));
  if (isEthosUTarget(options.target)) {
    return invalidInput("--target {}: expected a Vulkan target (portable or native) for a VGF", options.target);
  }
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, readTosaInput(input));
  OPENVGF_TRY(withContext(tosa::verify(graph), input));
  Result<converter::ConvertedModel> model = converter::convert(graph, options);
  if (!model) return Unexpected(std::move(model).error().addContext(input));
  return model;
}

Result<converter::ConvertedModel> convertToVgf(const std::string& input, const std::string& output,
                                               const converter::ConvertOptions& options) {
  OPENVGF_ASSIGN_OR_RETURN(converter::ConvertedModel model, convertTosaFile(input, options));
  OPENVGF_TRY(writeFileAtomic(output, model.vgf));
  return model;
}

Result<std::vector<std::uint8_t>> convertToArmGraph(const std::string& input, const std::string& output) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, readTosaInput(input));
  OPENVGF_TRY(withContext(tosa::verify(graph), input));
  Result<std::vector<std::uint8_t>> vgf = converter::writeArmGraphVgf(graph);
  if (!vgf) return Unexpected(std::move(vgf).error().addContext(input));
  OPENVGF_TRY(writeFileAtomic(output, *vgf));
  return vgf;
}

Result<converter::LoweredModel> lowerVgfFile(const std::string& input, const std::string& output,
                                             const converter::LowerOptions& options) {
  OPENVGF_TRY(checkTarget(options.convert.target));
  OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(input));
  if (detectFileKind(file.bytes()) != FileKind::Vgf) {
    return invalidInput("{}: expected a VGF with GRAPH segments to lower, got {}", input, describeFile(file.bytes()));
  }
  Result<vgf::File> decoded = withContext(vgf::decode(file.bytes()), input);
  if (!decoded) return Unexpected(std::move(decoded).error());
  if (!converter::hasGraphSegments(*decoded)) {
    return invalidInput("{}: expected a TOSA flatbuffer or a VGF with GRAPH segments to lower, got a VGF file, which is "
                        "already converted: run it with `openvgf run {}` (it has COMPUTE segments only)",
                        input, input);
  }
  if (isEthosUTarget(options.convert.target)) {
    return invalidInput("--target {}: expected a Vulkan target (portable or native) to lower GRAPH segments",
                        options.convert.target);
  }
  OPENVGF_ASSIGN_OR_RETURN(converter::KnownShapes shapes, converter::modelInputShapes(*decoded, {}, input));
  OPENVGF_ASSIGN_OR_RETURN(converter::LoweredModel model,
                           converter::lowerGraphSegments(file.bytes(), *decoded, shapes, input, options));
  OPENVGF_TRY(writeFileAtomic(output, model.vgf));
  return model;
}

Result<converter::ethosu::CompiledModel> convertToEthosU(const std::string& input, const std::string& output,
                                                         const std::string& target) {
  OPENVGF_TRY(checkTarget(target));
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, readTosaInput(input));
  converter::ethosu::CompileOptions options;
  options.target = target;
  OPENVGF_ASSIGN_OR_RETURN(converter::ethosu::CompiledModel model, converter::ethosu::compile(graph, options, input));
  OPENVGF_TRY(writeFileAtomic(output, model.velaBinStream));
  return model;
}

}  // namespace openvgf::api
