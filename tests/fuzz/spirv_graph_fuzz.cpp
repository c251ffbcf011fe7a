// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the SPIR-V TOSA graph reader (tosa/spirv): any input must parse,
// decode and list without faults or fail cleanly. A decoded graph (graph constants filled with
// zeros, unshaped inputs given small shapes) must pass the verifier (decodeGraph guarantees
// it) and survive encode -> decode.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tosa/spirv/decoder.h"
#include "tosa/spirv/encoder.h"

namespace {

using namespace openvgf;

constexpr std::int64_t kMaxConstantElements = std::int64_t{1} << 20;

Result<tosa::Graph> decode(const std::vector<std::uint32_t>& words,
                           const std::vector<tosa::spirv::EncodedGraphConstant>* constants) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::spirv::Module m, tosa::spirv::parseModule(words, "fuzz.spv"));
  OPENVGF_ASSIGN_OR_RETURN(tosa::spirv::GraphSignature sig, tosa::spirv::graphSignature(m));
  (void)tosa::spirv::listGraph(m, sig);
  tosa::spirv::DecodeInputs in;
  for (const tosa::spirv::InterfaceTensor& t : sig.inputs) {
    in.inputShapes.push_back(t.shape ? *t.shape : tosa::Shape(t.rank.value_or(1), 2));
  }
  in.graphConstant = [&](const tosa::spirv::GraphConstantRef& ref) -> Result<tosa::HostTensor> {
    if (constants != nullptr) {
      for (const auto& c : *constants) {
        if (c.id == ref.id) return c.value;
      }
      return invalidInput("no graph constant {}", ref.id);
    }
    std::int64_t n = 1;
    for (std::int64_t d : ref.shape) {
      if (d > kMaxConstantElements / n) return invalidInput("graph constant too large");
      n *= d;
    }
    return tosa::HostTensor(ref.dtype, ref.shape);
  };
  return tosa::spirv::decodeGraph(m, sig, in);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint32_t> words(size / 4);
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);
  Result<tosa::Graph> graph = decode(words, nullptr);
  if (!graph) return 0;
  Result<tosa::spirv::EncodedGraph> encoded = tosa::spirv::encodeGraph(*graph);
  if (!encoded) return 0;
  if (!decode(encoded->words, &encoded->constants)) std::abort();
  return 0;
}
