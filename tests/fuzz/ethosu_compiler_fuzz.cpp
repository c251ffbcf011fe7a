// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the Ethos-U compiler: any .tosa input is read, then compiled for a
// U55, a two-core U65 or a U85 (chosen by the input's size). The compiler must verify first
// and refuse what it cannot lower with a clean error; whatever it accepts must be a stream the
// runner's loader takes back (abort otherwise), and it is then run in the simulator under
// lowered limits.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "converter/ethosu/compiler.h"
#include "runner/ethosu/session.h"
#include "tosa/reader.h"

namespace eu = openvgf::runner::ethosu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto graph = openvgf::tosa::readGraph(std::span<const std::uint8_t>(data, size), "fuzz.tosa");
  if (!graph) return 0;
  static const char* const kTargets[] = {"ethos-u55-128", "ethos-u65-512", "ethos-u85-256"};
  openvgf::converter::ethosu::CompileOptions options;
  options.target = kTargets[size % 3];
  auto compiled = openvgf::converter::ethosu::compile(*graph, options, "fuzz.tosa");
  if (!compiled) return 0;
  auto model = eu::loadModel(compiled->velaBinStream, "compiled.ethosu");
  if (!model) std::abort();  // the compiler wrote a stream its own runner cannot read
  std::vector<std::vector<std::uint8_t>> inputs;
  for (const eu::VelaIo& io : model->inputs) {
    const std::uint64_t bytesNeeded = eu::ioByteSize(*model, io);
    if (bytesNeeded > (1u << 20)) return 0;
    inputs.emplace_back(static_cast<std::size_t>(bytesNeeded), 0x11);
  }
  eu::RunLimits limits;
  limits.maxScratchBytes = std::uint64_t{1} << 24;
  limits.simulator.maxWork = std::uint64_t{1} << 22;
  (void)eu::runModel(*model, inputs, "compiled.ethosu", nullptr, limits);
  return 0;
}
