// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the Ethos-U readers: vela_bin_stream, COP1 payload, command-stream
// decoder, disassembler, weight/scale stream decoders, and a bounded simulator run of
// whatever decodes (small regions, so hostile sizes must be caught by the bounds checks).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "runner/ethosu/disassembler.h"
#include "runner/ethosu/session.h"
#include "runner/ethosu/weights.h"

namespace eu = openvgf::runner::ethosu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> bytes(data, size);
  auto model = eu::loadModel(bytes, "fuzz");
  (void)eu::readCop1(bytes);
  (void)eu::decodeCommandStream(bytes, eu::Product::U65);
  (void)eu::decodeWeightStream(bytes, 1u << 16);
  (void)eu::decodeScaleStream(bytes, size / 10);
  if (!model) return 0;
  (void)eu::disassemble(model->commands, model->accelerator.product);
  // Only run models whose work is bounded: a few operations on small regions.
  std::size_t ops = 0;
  for (const eu::Command& c : model->commands) ops += eu::isOperation(c) ? 1 : 0;
  if (ops > 8 || !model->hasIo || model->stream.scratchSize > (1u << 16)) return 0;
  for (const eu::Command& c : model->commands) {
    // Sizes, depths and kernels up to 64K each would make one op run for hours; keep them tiny.
    if (!c.isCmd1 && c.code >= 0x104 && c.code <= 0x121 && c.param > 8) return 0;
  }
  std::vector<std::vector<std::uint8_t>> inputs;
  for (const eu::VelaIo& io : model->stream.inputs) {
    if (eu::ioByteSize(io) > (1u << 16)) return 0;
    inputs.emplace_back(static_cast<std::size_t>(eu::ioByteSize(io)), 0x11);
  }
  (void)eu::runModel(*model, inputs);
  return 0;
}
