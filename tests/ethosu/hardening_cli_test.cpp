// SPDX-License-Identifier: Apache-2.0
// Malformed input to the Ethos-U commands, through the CLI as a user meets it:
// * `convert --target ethos-u55-128 / ethos-u65-512 / ethos-u85-256 / ethos-u85-2048` of graphs
//   broken one field at a time (operators without outputs or inputs, unknown tensors, rank-16 /
//   zero / negative / huge dimensions, wrong types): tosa::verify runs before any lowering, so every one is exit 2
//   naming the file, never a crash or exit 1;
// * `run` of a U55 or U85 stream that claims a scratch arena beyond the documented bound
//   (RunLimits::maxScratchBytes, 256 MiB): exit 2
//   naming the file and the limit, without allocating it (checked under a virtual-memory
//   limit where the build has no sanitizer that needs a large address space).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "common/file_io.h"
#include "ethosu/vela_bin_stream.h"
#include "runner/ethosu/session.h"
#include "tests/ethosu/graph_util.h"
#include "tests/support/cli_runner.h"
#include "tosa/npy.h"
#include "tosa/writer.h"

namespace openvgf::ethosu_test {
namespace {

using openvgf::testing::CommandResult;
using openvgf::testing::kSanitizerStride;
using openvgf::testing::runCli;
using openvgf::testing::ScratchDir;

/// conv 3x3 + RESCALE + CLAMP, a max pool, and an ADD of two rescaled branches.
tosa::Graph baseGraph() {
  std::mt19937 rng(3);
  GraphBuilder g;
  std::string x = g.input("x", {1, 6, 6, 4});
  std::string y = g.clamp(g.conv(x, 4, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, -3, 5, rng), 5, 127);
  tosa::MaxPool2dAttrs a{{2, 2}, {2, 2}, {0, 0, 0, 0}, tosa::NanMode::Propagate};
  std::string p = g.op(Op::MaxPool2d, a, {y}, {1, 3, 3, 4}, DType::Int8, "pooled");
  std::string r = g.op(Op::Reshape, std::monostate{}, {p, g.shapeConst({1, 3, 3, 4})}, {1, 3, 3, 4}, DType::Int8, "same");
  g.output(r);
  return g.graph();
}

struct Mutant {
  std::string name;
  tosa::Graph graph;
};

std::vector<Mutant> malformedGraphs() {
  const tosa::Graph base = baseGraph();
  const tosa::Block& block = *base.mainBlock();
  std::vector<Mutant> out;
  auto mutate = [&](const std::string& name, auto&& change) {
    Mutant m{name, base};
    change(*m.graph.mainBlock());
    out.push_back(std::move(m));
  };
  for (std::size_t i = 0; i < block.operators.size(); ++i) {
    mutate(fmt::format("op{}_no_outputs", i), [&](tosa::Block& b) { b.operators[i].outputs.clear(); });
    mutate(fmt::format("op{}_no_inputs", i), [&](tosa::Block& b) { b.operators[i].inputs.clear(); });
    mutate(fmt::format("op{}_unknown_input", i), [&](tosa::Block& b) { b.operators[i].inputs[0] = "nowhere"; });
    mutate(fmt::format("op{}_extra_input", i), [&](tosa::Block& b) { b.operators[i].inputs.push_back(b.operators[i].inputs[0]); });
    mutate(fmt::format("op{}_two_outputs", i), [&](tosa::Block& b) { b.operators[i].outputs.push_back(b.inputs[0]); });
    mutate(fmt::format("op{}_reordered", i), [&](tosa::Block& b) {
      std::rotate(b.operators.begin(), b.operators.begin() + static_cast<std::ptrdiff_t>(i), b.operators.end());
    });
  }
  for (std::size_t j = 0; j < block.tensors.size(); ++j) {
    mutate(fmt::format("t{}_rank16", j), [&](tosa::Block& b) { b.tensors[j].shape = tosa::Shape(16, 1); });
    mutate(fmt::format("t{}_rank0", j), [&](tosa::Block& b) { b.tensors[j].shape.clear(); });
    if (block.tensors[j].shape.empty()) continue;
    mutate(fmt::format("t{}_zero_dim", j), [&](tosa::Block& b) { b.tensors[j].shape[0] = 0; });
    mutate(fmt::format("t{}_negative_dim", j), [&](tosa::Block& b) { b.tensors[j].shape[0] = -3; });
    mutate(fmt::format("t{}_huge_dim", j), [&](tosa::Block& b) { b.tensors[j].shape.back() = std::int64_t{1} << 40; });
    mutate(fmt::format("t{}_float", j), [&](tosa::Block& b) { b.tensors[j].dtype = DType::Fp32; });
    mutate(fmt::format("t{}_int16", j), [&](tosa::Block& b) { b.tensors[j].dtype = DType::Int16; });
  }
  mutate("no_block_outputs", [](tosa::Block& b) { b.outputs.clear(); });
  mutate("unknown_block_output", [](tosa::Block& b) { b.outputs = {"nowhere"}; });
  mutate("no_operators", [](tosa::Block& b) { b.operators.clear(); });
  mutate("reshape_without_inputs", [](tosa::Block& b) {
    tosa::Operator o;
    o.op = Op::Reshape;
    o.outputs = {"orphan"};
    b.operators.push_back(o);
    tosa::Tensor t;
    t.name = "orphan";
    t.shape = {1, 4};
    t.dtype = DType::Int8;
    b.tensors.push_back(t);
  });
  return out;
}

TEST(EthosUHardening, MalformedGraphsAreRefusedWithExitTwoNamingTheFile) {
  ScratchDir dir("ethosu_malformed");
  int refused = 0, written = 0;
  const std::vector<Mutant> mutants = malformedGraphs();
  for (std::size_t i = 0; i < mutants.size(); i += kSanitizerStride) {
    const Mutant& m = mutants[i];
    const std::string file = dir / (m.name + ".tosa");
    if (!tosa::writeGraph(m.graph, file)) continue;  // not representable as a .tosa at all
    ++written;
    for (const char* target : {"ethos-u55-128", "ethos-u65-512", "ethos-u85-256", "ethos-u85-2048"}) {
      CommandResult r = runCli(fmt::format("convert {} --target {} -o {}", file, target, dir / "out.ethosu"));
      if (r.exitCode == 0) continue;  // a mutation that leaves a valid graph (e.g. a reordered chain)
      ++refused;
      EXPECT_EQ(r.exitCode, 2) << m.name << " " << target << ": " << r.output;
      EXPECT_NE(r.output.find(m.name + ".tosa"), std::string::npos) << m.name << ": " << r.output;
    }
  }
  EXPECT_GT(written, 60 / static_cast<int>(kSanitizerStride));
  EXPECT_GT(refused, 200 / static_cast<int>(kSanitizerStride));
}

TEST(EthosUHardening, ScratchClaimsBeyondTheLimitAreRefusedBeforeAllocating) {
  ScratchDir dir("ethosu_scratch");
  std::mt19937 rng(4);
  ASSERT_TRUE(tosa::npy::writeTensor(dir / "x.npy", randomInt8({1, 6, 6, 4}, rng)));
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const std::string limit;  // sanitizers reserve terabytes of address space up front
#else
  const std::string limit = "ulimit -v 1048576;";  // 1 GiB of address space for the whole CLI
#endif
  EXPECT_EQ(runner::ethosu::RunLimits{}.maxScratchBytes, std::uint64_t{256} << 20);  // as docs/ethosu.md documents
  for (const char* target : {"ethos-u55-128", "ethos-u85-256"}) {
    auto model = converter::ethosu::compile(baseGraph(), {target}, "base.tosa");
    ASSERT_TRUE(model) << model.error().message();
    auto stream = ::openvgf::ethosu::parseVelaBinStream(model->velaBinStream);
    ASSERT_TRUE(stream);
    for (std::uint32_t claim : {0x7FFFFFF0u, 0xFFFFFFF0u, 0x10000010u}) {
      std::vector<::openvgf::ethosu::VelaIo> ins = stream->inputs, outs = stream->outputs;
      auto bytes = ::openvgf::ethosu::makeVelaBinStream(model->cop1, model->weightData, claim, ins, outs);
      ASSERT_TRUE(bytes) << bytes.error().message();
      const std::string name = fmt::format("{}_claims_{:x}.ethosu", target, claim);
      ASSERT_TRUE(writeFileAtomic(dir / name, *bytes));
      CommandResult r = runCli(fmt::format("run {} -i {} -o {}", dir / name, dir / "x.npy", dir / "y.npy"), limit);
      EXPECT_EQ(r.exitCode, 2) << r.output;
      EXPECT_NE(r.output.find(name + ": scratch_size"), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("limit"), std::string::npos) << r.output;
    }
  }
}

}  // namespace
}  // namespace openvgf::ethosu_test
