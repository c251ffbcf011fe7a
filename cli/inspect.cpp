// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect FILE`: detects the file kind from its content and hands it to the
// inspector registered for that kind (cli/inspect_<kind>.cpp).
#include "cli/command.h"
#include "common/file_io.h"

namespace openvgf::cli {
namespace {

void setup(CLI::App& sub, Action& action) {
  auto options = std::make_shared<InspectOptions>();
  sub.add_option("file", options->path, "A .tosa, .vgf, .pte or Ethos-U command-stream file")->required();
  sub.add_flag("--json", options->json, "Print JSON instead of a text summary");
  sub.add_option("--dump-spirv", options->dumpSpirv, "VGF: write module N's SPIR-V code to -o FILE");
  sub.add_option("--dump-constant", options->dumpConstant,
                 "Write a constant to -o FILE (.npy, else raw bytes). TOSA: the tensor NAME or N-th constant of the "
                 "main block, in TOSA layout. VGF: constant N with its resource's shape and dtype, in the layout the "
                 "kernels read (openvgf stores CONV2D weights as [KH*KW*IC, OC]); dump the .tosa for TOSA layout")
      ->type_name("NAME|N");
  sub.add_option("-o,--output", options->output, "Output file for --dump-spirv / --dump-constant");
  action = [options]() -> Result<int> {
    if (!options->output.empty()) OPENVGF_TRY(checkOutputPath(options->output, "--output"));
    OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(options->path));
    FileKind kind = detectFileKind(file.bytes());
    if (kind == FileKind::Unknown) {
      return invalidInput("{}: unrecognised file ({}): expected a TOSA flatbuffer, VGF, ExecuTorch .pte or "
                          "Ethos-U command stream (detected from the first bytes)",
                          options->path, describeFile(file.bytes()));
    }
    const InspectHandler* handler = findInspectHandler(kind);
    if (handler == nullptr) {
      return unsupported("{}: inspecting {} is not supported", options->path, describeFile(file.bytes()));
    }
    return (*handler)(*options, file.bytes());
  };
}

OPENVGF_REGISTER_COMMAND({"inspect", "Show what a .tosa / .vgf / .pte / Ethos-U stream contains", 20, setup});

}  // namespace
}  // namespace openvgf::cli
