// SPDX-License-Identifier: Apache-2.0
// 240 deterministically mutated SPIR-V graph modules (bit flips, truncations, word swaps,
// changed ids, opcodes, word counts and TOSA instruction numbers) wrapped into GRAPH VGFs and
// given to the `openvgf` CLI as a user would: every one must either run (exit 0) or be refused
// with exit 2 and an error message; a crash, a signal or an internal error fails the test.
// Seeds: two Vulkan-Samples modules (run), two modules written by the SPIR-V encoder (run) and
// the model-converter module of the 720p fixture (converted, to keep the test short).
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include <fmt/format.h>

#include "common/spirv_words.h"
#include "tests/converter/graph_vgf_util.h"
#include "tests/support/cli_runner.h"
#include "tests/tosa/spirv_test_util.h"
#include "tosa/builder.h"
#include "tosa/npy.h"
#include "tosa/spirv/encoder.h"
#include "vgf/decoder.h"

namespace openvgf::testing {
namespace {

namespace fs = std::filesystem;
const fs::path kData = OPENVGF_TEST_DATA;

struct Seed {
  std::string name;
  GraphVgfSpec spec;         // the module is the one mutated
  bool run = true;           // `run` with an input, else `convert`
  tosa::HostTensor input;    // for `run`
};

std::uint32_t f32() { return static_cast<std::uint32_t>(vgf::VkFormatValue::R32Sfloat); }

Seed encoded(const std::string& name, const tosa::Graph& graph, tosa::HostTensor input) {
  Seed s{name, {}, true, std::move(input)};
  auto e = tosa::spirv::encodeGraph(graph);
  EXPECT_TRUE(e) << e.error().message();
  s.spec.module = e->words;
  for (const auto& t : e->inputs) s.spec.inputs.push_back({converter::vkFormatOf(t.dtype), t.shape, t.name});
  for (const auto& t : e->outputs) s.spec.outputs.push_back({converter::vkFormatOf(t.dtype), t.shape, t.name});
  for (const auto& c : e->constants) s.spec.constants.push_back(c.value);
  return s;
}

std::vector<Seed> seeds() {
  std::vector<Seed> out;
  Seed pooling{"pooling", {}, true, tosa::HostTensor(tosa::DType::Fp32, {1, 10, 10, 3})};
  pooling.spec.module = loadSpirv(kData / "vgf-graph/pooling.spvasm.spv");
  pooling.spec.inputs = {{f32(), {1, 10, 10, 3}, "x"}};
  pooling.spec.outputs = {{f32(), {1, 5, 5, 3}, "y"}};
  out.push_back(std::move(pooling));
  Seed conv{"conv2d", {}, true, tosa::HostTensor(tosa::DType::Fp32, {1, 20, 20, 3})};
  conv.spec.module = loadSpirv(kData / "vgf-graph/conv2d.spvasm.spv");
  conv.spec.inputs = {{f32(), {1, 20, 20, 3}, "x"}};
  conv.spec.outputs = {{f32(), {1, 20, 20, 3}, "y"}};
  conv.spec.constants = {tosa::HostTensor(tosa::DType::Fp32, {3, 3, 3, 3}), tosa::HostTensor(tosa::DType::Fp32, {3})};
  out.push_back(std::move(conv));
  {
    tosa::Builder b;
    tosa::Value x = b.input("x", tosa::DType::Fp32, {2, 3, 5});
    tosa::Value c = b.constant(tosa::DType::Fp32, {1, 3, 1}, std::vector<float>{1.0f, -2.0f, 0.5f}, "c");
    tosa::Value t = b.reshape(b.mul(b.add(x, c), x), {6, 5});
    b.output(b.reduceMax(b.transpose(t, {1, 0}), 1));
    out.push_back(encoded("elementwise", *b.build(), tosa::HostTensor(tosa::DType::Fp32, {2, 3, 5})));
  }
  {
    tosa::Builder b;
    tosa::Value x = b.input("x", tosa::DType::Int8, {1, 4, 4, 3});
    std::vector<std::int32_t> w(2 * 3 * 3 * 3);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int32_t>(i % 5) - 2;
    tosa::Value y = b.conv2d(x, b.constant(tosa::DType::Int8, {2, 3, 3, 3}, w, "w"), std::nullopt, {.pad = {1, 1, 1, 1}});
    tosa::RescaleParams p;
    p.multiplier = {1 << 30};
    p.shift = {34};
    b.output(b.clamp(b.rescale(y, p), -100, 100));
    out.push_back(encoded("int8_conv", *b.build(), tosa::HostTensor(tosa::DType::Int8, {1, 4, 4, 3})));
  }
  {
    auto bytes = [] {
      std::ifstream in(kData / "vgf-graph/simple_conv2d_rescale_graph.vgf", std::ios::binary);
      return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }();
    auto file = vgf::decode(bytes);
    EXPECT_TRUE(file);
    Seed fixture{"model_converter", {}, false, {}};
    fixture.spec.module.assign(file->modules[0].spirv.begin(), file->modules[0].spirv.end());
    fixture.spec.entryPoint = file->modules[0].entryPoint;
    const std::uint32_t u8 = static_cast<std::uint32_t>(vgf::VkFormatValue::R8Uint);
    fixture.spec.inputs = {{u8, {1, 720, 1280, 4}, "input"}};
    fixture.spec.outputs = {{u8, {1, 720, 1280, 4}, "output"}};
    tosa::HostTensor weights(tosa::DType::Int8, {4, 3, 3, 4});
    std::copy(file->constants[0].data.begin(), file->constants[0].data.end(), weights.bytes.begin());
    fixture.spec.constants = {weights};
    fixture.spec.sparsity = {3};
    out.push_back(std::move(fixture));
  }
  return out;
}

/// Word offsets of the instructions after the header.
std::vector<std::size_t> instructionOffsets(const std::vector<std::uint32_t>& w) {
  std::vector<std::size_t> out;
  std::size_t i = openvgf::spirv::kHeaderWords;
  while (const auto inst = openvgf::spirv::instructionAt(w, i)) {
    out.push_back(i);
    i += inst->wordCount;
  }
  return out;
}

/// One mutation of `w`, described in `what`.
std::vector<std::uint32_t> mutate(std::vector<std::uint32_t> w, std::mt19937& rng, std::string& what) {
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  const std::vector<std::size_t> insts = instructionOffsets(w);
  const std::size_t inst = insts[pick(insts.size())];
  const std::uint32_t count = w[inst] >> 16;
  switch (pick(7)) {
    case 0: {
      const std::size_t at = pick(w.size());
      const int bit = static_cast<int>(pick(32));
      w[at] ^= 1u << bit;
      what = fmt::format("bit {} of word {} flipped", bit, at);
      break;
    }
    case 1: {
      const std::size_t keep = pick(w.size());
      w.resize(keep);
      what = fmt::format("truncated to {} words", keep);
      break;
    }
    case 2: {
      const std::size_t a = pick(w.size()), b = pick(w.size());
      std::swap(w[a], w[b]);
      what = fmt::format("words {} and {} swapped", a, b);
      break;
    }
    case 3: {
      if (count < 2) return mutate(std::move(w), rng, what);
      const std::size_t at = inst + 1 + pick(count - 1);
      w[at] = static_cast<std::uint32_t>(pick(w[3] + 8));
      what = fmt::format("word {} (an operand of the instruction at {}) set to {}", at, inst, w[at]);
      break;
    }
    case 4: {
      static const std::uint32_t kOpcodes[] = {1, 5, 12, 20, 21, 22, 28, 30, 32, 41, 42, 43, 44, 46, 50, 54, 59, 71, 81,
                                               4163, 4181, 4182, 4183, 4184, 4185, 4186, 4190, 4461, 999};
      const std::uint32_t op = kOpcodes[pick(std::size(kOpcodes))];
      w[inst] = (w[inst] & 0xFFFF0000u) | op;
      what = fmt::format("opcode of the instruction at {} set to {}", inst, op);
      break;
    }
    case 5: {
      const std::uint32_t newCount = static_cast<std::uint32_t>(pick(count + 3));
      w[inst] = (newCount << 16) | (w[inst] & 0xFFFFu);
      what = fmt::format("word count of the instruction at {} set to {}", inst, newCount);
      break;
    }
    default: {
      const std::vector<std::size_t> ext = findInstructions(w, 12);
      if (ext.empty()) return mutate(std::move(w), rng, what);
      const std::size_t at = ext[pick(ext.size())] + 4;
      w[at] = static_cast<std::uint32_t>(pick(70));
      what = fmt::format("TOSA instruction number at word {} set to {}", at, w[at]);
      break;
    }
  }
  return w;
}

TEST(GraphVgfMutation, EveryMutatedModuleRunsOrIsRefusedWithExitTwo) {
  ScratchDir dir("graph_mutation");
  const std::string env = "XDG_CACHE_HOME=" + dir / "cache";
  std::mt19937 rng(20261125);
  std::size_t total = 0, refused = 0, ran = 0;
  for (const Seed& seed : seeds()) {
    std::string input;
    if (seed.run) {
      input = dir / (seed.name + "_x.npy");
      ASSERT_TRUE(tosa::npy::writeTensor(input, seed.input));
    }
    for (std::size_t k = 0; k < 48; k += kSanitizerStride, ++total) {
      std::string what;
      GraphVgfSpec spec = seed.spec;
      spec.module = mutate(seed.spec.module, rng, what);
      const std::string model = dir / fmt::format("{}_{}.vgf", seed.name, k);
      const std::vector<std::uint8_t> bytes = writeGraphVgf(spec);
      ASSERT_FALSE(bytes.empty());
      std::ofstream(model, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      const std::string command = seed.run ? fmt::format("run {} --input {} -o {}", model, input, dir / "y.npy")
                                           : fmt::format("convert {} -o {}", model, dir / "lowered.vgf");
      CommandResult r = runCli(command, env);
      SCOPED_TRACE(fmt::format("{} mutation {}: {}", seed.name, k, what));
      if (r.exitCode == 0) {
        ++ran;
      } else {
        EXPECT_EQ(r.exitCode, 2) << r.output;
        EXPECT_NE(r.output.find("openvgf: error: " + model), std::string::npos) << r.output;
        ++refused;
      }
      fs::remove(model);
    }
  }
  EXPECT_GE(total, 200u / kSanitizerStride);
  EXPECT_GT(refused, total / 2);  // the mutations reach the checks, not only harmless words
  std::printf("%zu mutated modules: %zu ran, %zu refused with exit 2\n", total, ran, refused);
}

}  // namespace
}  // namespace openvgf::testing
