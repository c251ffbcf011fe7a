// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the Ethos-U compiler, TOSA in: any .tosa input is read, then compiled
// for a U55, a two-core U65 or a U85 (chosen by the input's size). The compiler must verify
// first and refuse what it cannot lower with a clean error; whatever it accepts must be a
// stream the runner's loader takes back and the simulator runs (abort otherwise). When the
// reference interpreter defines the result (no REQUIRE diagnostics), the simulator's outputs
// must equal it bit for bit: a difference is a silent wrong answer and aborts. Graphs with
// EXT-VARIABLE state only have to run (their streams carry extra state inputs and outputs).
#include <algorithm>
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

namespace eu = openvgf::runner::ethosu;

// Keeps one execution in milliseconds: larger graphs are compiled, not run.
constexpr std::int64_t kMaxRunElements = std::int64_t{1} << 16;
constexpr std::uint64_t kMaxRunMacs = std::uint64_t{1} << 22;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openvgf;
  auto graph = tosa::readGraph(std::span<const std::uint8_t>(data, size), "fuzz.tosa");
  if (!graph) return 0;
  static const char* const kTargets[] = {"ethos-u55-128", "ethos-u65-512", "ethos-u85-256"};
  converter::ethosu::CompileOptions options;
  options.target = kTargets[size % 3];
  auto compiled = converter::ethosu::compile(*graph, options, "fuzz.tosa");
  if (!compiled) return 0;
  auto model = eu::loadModel(compiled->velaBinStream, "compiled.ethosu");
  if (!model) std::abort();  // the compiler wrote a stream its own runner cannot read
  if (compiled->stats.macs > kMaxRunMacs) return 0;
  const tosa::Block* block = graph->mainBlock();
  for (const tosa::Tensor& t : block->tensors) {
    if (!t.isUnranked && tosa::elementCount(t.shape) > kMaxRunElements) return 0;
  }
  // EXT-VARIABLE state adds input/output pairs the graph's block does not list: such a stream
  // must still run, but the reference's interface is not the stream's, so it is not compared.
  const bool blockInterface =
      model->inputs.size() == block->inputs.size() &&
      std::none_of(block->tensors.begin(), block->tensors.end(), [](const tosa::Tensor& t) { return t.variable; });
  std::vector<tosa::HostTensor> inputs;
  std::vector<std::vector<std::uint8_t>> raw;
  for (std::size_t k = 0; k < model->inputs.size(); ++k) {
    std::vector<std::uint8_t> bytes(eu::ioByteSize(*model, model->inputs[k]));
    if (blockInterface) {
      const tosa::Tensor* t = block->findTensor(block->inputs[k]);
      inputs.emplace_back(t->dtype, t->shape);
      bytes.resize(inputs.back().bytes.size());
    }
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 37 + k * 11 + 5);
    if (blockInterface) inputs.back().bytes = bytes;
    raw.push_back(std::move(bytes));
  }
  eu::RunLimits limits;
  limits.maxScratchBytes = std::uint64_t{1} << 24;
  limits.simulator.maxWork = std::uint64_t{1} << 24;
  auto outputs = eu::runModel(*model, raw, "compiled.ethosu", nullptr, limits);
  // Only the lowered limits above may refuse a stream the compiler accepted.
  if (!outputs && outputs.error().message().find("limit") != std::string::npos) return 0;
  if (!outputs) std::abort();
  if (!blockInterface) return 0;
  auto reference = tosa::reference::run(*graph, inputs);
  if (!reference || !reference->diagnostics.empty()) return 0;
  if (outputs->size() != reference->outputs.size()) std::abort();
  for (std::size_t i = 0; i < outputs->size(); ++i) {
    if ((*outputs)[i] != reference->outputs[i].value.bytes) std::abort();
  }
  return 0;
}
