// SPDX-License-Identifier: Apache-2.0
// Writes the small .tosa graphs the Python tests run, into the folder given as argv[1]:
//   reverse_<dtype>.tosa  REVERSE along axis 1 of a [2,3] tensor, one per element type, so
//                         every numpy dtype the bindings map goes in and comes out;
//   rescale_int48.tosa    RESCALE of an INT48 [2,3] input by 1.0 to INT32 (INT48 is an
//                         input type of RESCALE only);
//   accumulate.tosa       y = acc + x with acc an EXT-VARIABLE (initial value 10, 20, 30).
#include <cstdio>
#include <filesystem>
#include <string>

#include "tosa/builder.h"

namespace {

int write(const openvgf::tosa::Builder& builder, const std::filesystem::path& path) {
  openvgf::Status status = builder.write(path);
  if (!status) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), status.error().message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace openvgf::tosa;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
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
  return failures == 0 ? 0 : 1;
}
