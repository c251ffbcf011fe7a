// SPDX-License-Identifier: Apache-2.0
// openvgf-runner-view FILE.vgf: prints what the runner executes from a VGF (runner::Model),
// one canonical line per fact, or "refused: <message>". The mutation campaign
// (mutation_campaign.py) compares the views of an original and a mutated VGF: when they are
// equal the mutation changed nothing the runner uses (names, padding, unused entries), so a
// run of the mutated file must give bit-identical outputs. Names are left out on purpose.
#include <cstdio>
#include <span>

#include <fmt/format.h>

#include "common/file_io.h"
#include "common/sha256.h"
#include "runner/formats.h"
#include "runner/model.h"
#include "vgf/decoder.h"

int main(int argc, char** argv) {
  using namespace openvgf;
  if (argc != 2) {
    std::fprintf(stderr, "usage: openvgf-runner-view FILE.vgf\n");
    return 2;
  }
  Result<std::vector<std::uint8_t>> bytes = readFile(argv[1]);
  Result<vgf::File> file = bytes ? vgf::decode(*bytes) : Result<vgf::File>(Unexpected(bytes.error()));
  Result<runner::Model> model = file ? runner::Model::create(*file, argv[1]) : Result<runner::Model>(Unexpected(file.error()));
  if (!model) {
    fmt::print("refused: {}\n", model.error().message());
    return 0;
  }
  auto tensor = [](const runner::TensorInfo& t) {
    return fmt::format("mrt {} {} {} {}", t.mrtIndex, tosa::toString(t.dtype), tosa::shapeToString(t.shape), t.bytes);
  };
  for (const runner::TensorInfo& t : model->inputs()) fmt::print("input {}\n", tensor(t));
  for (const runner::TensorInfo& t : model->outputs()) fmt::print("output {}\n", tensor(t));
  for (std::size_t i = 0; i < model->resources().size(); ++i) {
    const runner::ResourceInfo& r = model->resources()[i];
    if (!r.used) continue;
    fmt::print("resource {} {} {} {} bytes {} alias {} constant {}\n", i, vgf::toString(r.category),
               runner::formatShortName(r.vkFormat), tosa::shapeToString(r.shape), r.bytes,
               r.aliasGroup == vgf::kUnset ? std::string("-") : std::to_string(r.aliasGroup),
               r.constantIndex ? sha256Hex(model->constantData()[*r.constantIndex]) : std::string("-"));
  }
  for (std::size_t m = 0; m < model->modules().size(); ++m) {
    const runner::ModuleInfo& module = model->modules()[m];
    if (module.spirv.empty()) continue;
    auto words = std::as_bytes(module.spirv);
    fmt::print("module {} entry {} spirv {}\n", m, module.entryPoint,
               sha256Hex(std::span(reinterpret_cast<const std::uint8_t*>(words.data()), words.size())));
  }
  for (const runner::SegmentInfo& s : model->segments()) {
    fmt::print("segment module {} dispatch {}x{}x{}", s.moduleIndex, s.dispatch[0], s.dispatch[1], s.dispatch[2]);
    for (const runner::BindingInfo& b : s.bindings) {
      fmt::print(" | set {} binding {} mrt {} access {}{}", b.set, b.binding, b.mrtIndex, static_cast<int>(b.access),
                 b.used ? "" : " unused");
    }
    fmt::print("\n");
  }
  return 0;
}
