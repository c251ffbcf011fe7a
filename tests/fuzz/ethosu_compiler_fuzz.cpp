// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the Ethos-U compiler, TOSA in: any graph must be refused cleanly or
// compile into a stream that loads and runs in the simulator; when the reference interpreter
// defines the result (no REQUIRE diagnostics), the simulator's outputs must equal it bit for
// bit. A difference is a silent wrong answer and aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "converter/ethosu/compiler.h"
#include "runner/ethosu/session.h"
#include "tosa/reader.h"
#include "tosa/reference/reference.h"

namespace {

// Keeps one execution in milliseconds: larger graphs are compiled, not run.
constexpr std::int64_t kMaxRunElements = std::int64_t{1} << 16;
constexpr std::uint64_t kMaxRunMacs = std::uint64_t{1} << 22;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openvgf;
  auto graph = tosa::readGraph(std::span<const std::uint8_t>(data, size), "fuzz.tosa");
  if (!graph) return 0;
  auto compiled = converter::ethosu::compile(*graph, {}, "fuzz.tosa");
  if (!compiled) return 0;
  auto model = runner::ethosu::loadModel(compiled->velaBinStream, "fuzz.ethosu");
  if (!model) std::abort();  // the compiler wrote a stream its own runner refuses
  if (compiled->stats.macs > kMaxRunMacs) return 0;
  const tosa::Block* block = graph->mainBlock();
  for (const tosa::Tensor& t : block->tensors) {
    if (!t.isUnranked && tosa::elementCount(t.shape) > kMaxRunElements) return 0;
  }
  std::vector<tosa::HostTensor> inputs;
  std::vector<std::vector<std::uint8_t>> raw;
  for (std::size_t k = 0; k < block->inputs.size(); ++k) {
    const tosa::Tensor* t = block->findTensor(block->inputs[k]);
    tosa::HostTensor value(t->dtype, t->shape);
    for (std::size_t i = 0; i < value.bytes.size(); ++i) value.bytes[i] = static_cast<std::uint8_t>(i * 37 + k * 11 + 5);
    raw.push_back(value.bytes);
    inputs.push_back(std::move(value));
  }
  auto reference = tosa::reference::run(*graph, inputs);
  if (!reference || !reference->diagnostics.empty()) return 0;
  auto outputs = runner::ethosu::runModel(*model, raw);
  if (!outputs || outputs->size() != reference->outputs.size()) std::abort();
  for (std::size_t i = 0; i < outputs->size(); ++i) {
    if ((*outputs)[i] != reference->outputs[i].value.bytes) std::abort();
  }
  return 0;
}
