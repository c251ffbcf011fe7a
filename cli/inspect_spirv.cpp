// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect graph.spv`: a SPIR-V TOSA graph module (what a VGF GRAPH segment holds):
// its graph inputs and outputs with their declared types and bindings, the graph constants it
// reads, and one line per TOSA instruction.
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "cli/command.h"
#include "tosa/spirv/decoder.h"

namespace openvgf::cli {
namespace {

std::string describe(const tosa::spirv::InterfaceTensor& t) {
  const std::string type = t.shape ? fmt::format("{}{}", tosa::toString(t.dtype), tosa::shapeToString(*t.shape))
                           : t.rank ? fmt::format("{} of rank {}", tosa::toString(t.dtype), *t.rank)
                                    : fmt::format("{} of any rank", tosa::toString(t.dtype));
  return fmt::format("{} '{}' {}{}", t.index, t.name, type,
                     t.binding ? fmt::format(" (set {} binding {})", t.descriptorSet.value_or(0), *t.binding) : "");
}

Result<int> inspectSpirv(const InspectOptions& options, std::span<const std::uint8_t> bytes) {
  if (options.json || options.dumpSpirv || options.dumpConstant) {
    return invalidInput("{}: --json / --dump-*: expected a .vgf, .tosa or .pte; a SPIR-V module is listed as text", options.path);
  }
  std::vector<std::uint32_t> words(bytes.size() / 4);
  if (!words.empty()) std::memcpy(words.data(), bytes.data(), words.size() * 4);
  OPENVGF_ASSIGN_OR_RETURN(tosa::spirv::Module module, tosa::spirv::parseModule(words, options.path));
  std::string text;
  for (const tosa::spirv::GraphEntryPoint& entry : module.entryPoints) {
    OPENVGF_ASSIGN_OR_RETURN(tosa::spirv::GraphSignature sig, tosa::spirv::graphSignature(module, entry.name));
    text += fmt::format("graph '{}': {} inputs, {} outputs, {} graph constants\n", sig.entryPoint, sig.inputs.size(),
                        sig.outputs.size(), sig.constants.size());
    for (const auto& t : sig.inputs) text += "  input " + describe(t) + "\n";
    for (const auto& t : sig.outputs) text += "  output " + describe(t) + "\n";
    for (const auto& c : sig.constants) {
      text += fmt::format("  graph constant {}: {}{}\n", c.id, tosa::toString(c.dtype), tosa::shapeToString(c.shape));
    }
    text += tosa::spirv::listGraph(module, sig);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

OPENVGF_REGISTER_INSPECT(FileKind::SpirV, inspectSpirv);

}  // namespace
}  // namespace openvgf::cli
