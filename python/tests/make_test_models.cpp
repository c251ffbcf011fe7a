// SPDX-License-Identifier: Apache-2.0
// Writes the small .tosa graphs the Python tests run, into the folder given as argv[1]:
//   reverse_<dtype>.tosa  REVERSE along axis 1 of a [2,3] tensor, one per element type, so
//                         every numpy dtype the bindings map goes in and comes out;
//   rescale_int48.tosa    RESCALE of an INT48 [2,3] input by 1.0 to INT32 (INT48 is an
//                         input type of RESCALE only);
//   accumulate.tosa       y = acc + x with acc an EXT-VARIABLE (initial value 10, 20, 30);
//   two_delegates.pte     an ExecuTorch program with two GRAPH-segment VgfBackend delegates
//                         and a view between them (tests/pte/vgf_program.h), and
//   two_delegates.tosa    the same model as one TOSA graph (the oracle);
//   simple_conv2d_rescale_graph.tosa  the TOSA graph that model-converter's GRAPH-segment
//                         fixture (argv[2]) carries, decoded, for the reference interpreter.
#include <cstdio>
#include <filesystem>
#include <string>

#include "common/file_io.h"
#include "converter/graph_segments.h"
#include "tests/pte/vgf_program.h"
#include "tosa/builder.h"
#include "tosa/writer.h"
#include "vgf/decoder.h"

namespace {

int report(const openvgf::Status& status, const std::filesystem::path& path) {
  if (!status) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), status.error().message().c_str());
    return 1;
  }
  return 0;
}

int write(const openvgf::tosa::Builder& builder, const std::filesystem::path& path) {
  return report(builder.write(path), path);
}

// The graph a GRAPH-segment VGF carries, as a .tosa.
openvgf::Status writeCarriedGraph(const std::filesystem::path& vgfPath, const std::filesystem::path& path) {
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, openvgf::readFile(vgfPath));
  OPENVGF_ASSIGN_OR_RETURN(openvgf::vgf::File file, openvgf::vgf::decode(bytes));
  OPENVGF_ASSIGN_OR_RETURN(openvgf::converter::GraphRun run, openvgf::converter::decodeGraphModel(file, {}, vgfPath.string()));
  return openvgf::tosa::writeGraph(run.graph, path);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace openvgf::tosa;
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR GRAPH_VGF\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  int failures = 0;
  const std::pair<const char*, DType> types[] = {{"bool", DType::Bool},    {"int8", DType::Int8},
                                                 {"int16", DType::Int16},  {"int32", DType::Int32},
                                                 {"float16", DType::Fp16},
                                                 {"float32", DType::Fp32}, {"bfloat16", DType::Bf16}};
  for (const auto& [name, type] : types) {
    Builder b;
    b.output(b.reverse(b.input("x", type, {2, 3}), 1, "y"));
    failures += write(b, dir / (std::string("reverse_") + name + ".tosa"));
  }
  {
    Builder b;
    // multiplier 2^14 with shift 14 scales by exactly 1 (INT48 needs the 16-bit multiplier).
    b.output(b.rescale(b.input("x", DType::Int48, {2, 3}),
                       {.outType = DType::Int32, .multiplier = {1 << 14}, .shift = {14}, .scale32 = false, .name = "y"}));
    failures += write(b, dir / "rescale_int48.tosa");
  }
  HostTensor init(DType::Int32, {3});
  for (int i = 0; i < 3; ++i) init.as<std::int32_t>()[i] = 10 * (i + 1);
  Builder b;
  Value acc = b.variable("acc", init);
  Value sum = b.add(b.variableRead(acc, "old"), b.input("x", DType::Int32, {3}), "y");
  b.variableWrite(acc, sum);
  b.output(sum);
  failures += write(b, dir / "accumulate.tosa");
  const auto program = openvgf::pte::testing::writeProgram(openvgf::pte::testing::vgfProgram("aten::view_copy", "out", true));
  failures += report(openvgf::writeFileAtomic(dir / "two_delegates.pte", program.bytes), dir / "two_delegates.pte");
  failures += report(openvgf::tosa::writeGraph(openvgf::pte::testing::composedModel(), dir / "two_delegates.tosa"),
                     dir / "two_delegates.tosa");
  failures += report(writeCarriedGraph(argv[2], dir / "simple_conv2d_rescale_graph.tosa"),
                     dir / "simple_conv2d_rescale_graph.tosa");
  return failures == 0 ? 0 : 1;
}
