// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the Ethos-U readers: vela_bin_stream, COP1 payload, command-stream
// decoder (every product), disassembler, weight/scale stream decoders, and a simulator run of
// whatever decodes. The run is not pre-filtered: the loader and simulator must bound every
// size a stream claims (scratch_size, weights, work) themselves; the limits here are only
// lowered so that each input finishes quickly.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ethosu/cop1.h"
#include "ethosu/disassembler.h"
#include "ethosu/scale_stream.h"
#include "ethosu/weight_codec.h"
#include "runner/ethosu/session.h"

namespace eu = openvgf::runner::ethosu;
namespace fu = openvgf::ethosu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> bytes(data, size);
  auto model = eu::loadModel(bytes, "fuzz");
  (void)fu::readCop1(bytes);
  for (fu::Product product : {fu::Product::U55, fu::Product::U65, fu::Product::U85}) {
    (void)fu::decodeCommandStream(bytes, product);
  }
  (void)fu::decodeWeightStream(bytes, 1u << 16, fu::StreamEnd::AllBytes);
  (void)fu::decodeFastWeightStream(bytes, size);
  (void)fu::decodeScaleStream(bytes, size / 10);
  (void)fu::decodeScaleStream(bytes, size / 10, fu::ScaleFormat::U85Acc48);
  if (!model) return 0;
  (void)fu::disassemble(model->commands, model->accelerator.product);
  std::vector<std::vector<std::uint8_t>> inputs;
  for (const eu::VelaIo& io : model->inputs) {
    const std::uint64_t bytesNeeded = eu::ioByteSize(*model, io);
    if (bytesNeeded > (1u << 20)) return 0;  // the caller's data, not the stream's claim
    inputs.emplace_back(static_cast<std::size_t>(bytesNeeded), 0x11);
  }
  eu::RunLimits limits;
  limits.maxScratchBytes = std::uint64_t{1} << 24;
  limits.simulator.maxWork = std::uint64_t{1} << 22;
  limits.simulator.maxWeights = std::uint64_t{1} << 20;
  (void)eu::runModel(*model, inputs, "fuzz", nullptr, limits);
  return 0;
}
