// SPDX-License-Identifier: Apache-2.0
// 450 mutated Ethos-U streams through the CLI, generated deterministically (fixed seeds): 300
// U85 ones (Vela's keyword-spotting streams for ethos-u85-256, -2048, -512 and -1024, and
// streams openvgf compiles for ethos-u85-256 and -1024) and 150 U55/U65 ones (Vela's U55-128
// stream and streams openvgf compiles for ethos-u55-128 and ethos-u65-512). Mutations flip bytes anywhere, overwrite command words and parameters,
// corrupt weight bytes, block sizes and IO records, and truncate. `openvgf run` (and, for a
// third of them, `openvgf inspect`) must exit 0, or exit 2 with the file named in the message;
// never exit 1 (an internal error), never a signal. Outside sanitizer builds each command runs
// under `ulimit -v` (2 GiB of address space), so a stream that makes the simulator allocate
// what it claims fails the test.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "common/file_io.h"
#include "ethosu/vela_bin_stream.h"
#include "tests/ethosu/graph_util.h"
#include "tests/ethosu/vela_data.h"
#include "tests/support/cli_runner.h"
#include "tosa/npy.h"

namespace openvgf::ethosu_test {
namespace {

namespace fs = std::filesystem;
using openvgf::testing::CommandResult;
using openvgf::testing::runCli;
using openvgf::testing::ScratchDir;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
const std::string kLimit;  // sanitizers reserve terabytes of address space up front
#else
const std::string kLimit = "ulimit -v 2097152;";
#endif

struct Base {
  std::string name;
  std::vector<std::uint8_t> bytes;
  std::string input;  // .npy for `run`
  int mutants = 0;
};

std::size_t offsetOf(std::span<const std::uint8_t> part, const std::vector<std::uint8_t>& whole) {
  return part.empty() ? 0 : static_cast<std::size_t>(part.data() - whole.data());
}

/// One mutation of `bytes`, chosen and placed by `rng`.
std::vector<std::uint8_t> mutate(const std::vector<std::uint8_t>& bytes, std::mt19937& rng) {
  std::vector<std::uint8_t> out = bytes;
  auto stream = ::openvgf::ethosu::parseVelaBinStream(bytes);
  const std::size_t cmdAt = stream ? offsetOf(stream->commandStream, bytes) : 0;
  const std::size_t cmdSize = stream ? stream->commandStream.size() : bytes.size();
  const std::size_t weightAt = stream ? offsetOf(stream->weights, bytes) : 0;
  const std::size_t weightSize = stream ? stream->weights.size() : 0;
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  auto word = [&]() { return static_cast<std::uint32_t>(rng()); };
  switch (pick(8)) {
    case 0:  // flip 1..4 bytes anywhere
      for (std::size_t k = 0, n = 1 + pick(4); k < n; ++k) out[pick(out.size())] ^= static_cast<std::uint8_t>(1 + pick(255));
      break;
    case 1:  // a command-stream word becomes random
    case 2: {
      const std::size_t at = cmdAt + 4 * pick(std::max<std::size_t>(cmdSize / 4, 1));
      const std::uint32_t w = word();
      if (at + 4 <= out.size()) std::memcpy(out.data() + at, &w, 4);
      break;
    }
    case 3: {  // a command's parameter (upper half of its header word) becomes random
      const std::size_t at = cmdAt + 4 * pick(std::max<std::size_t>(cmdSize / 4, 1)) + 2;
      if (at + 2 <= out.size()) {
        out[at] = static_cast<std::uint8_t>(rng());
        out[at + 1] = static_cast<std::uint8_t>(rng());
      }
      break;
    }
    case 4:  // weight bytes
      if (weightSize == 0) return mutate(bytes, rng);
      for (std::size_t k = 0, n = 1 + pick(16); k < n; ++k) out[weightAt + pick(weightSize)] = static_cast<std::uint8_t>(rng());
      break;
    case 5: {  // a block header's size field (blocks start at 16-byte boundaries)
      const std::size_t at = 16 * pick(out.size() / 16) + 16;
      const std::uint32_t sizes[] = {0, 1, 0x7FFFFFFF, 0xFFFFFFFF, word()};
      if (at + 4 <= out.size()) std::memcpy(out.data() + at, &sizes[pick(5)], 4);
      break;
    }
    case 6: {  // a 32-bit field near the end (scratch_size, IO shapes, offsets, regions)
      const std::size_t tail = std::min<std::size_t>(out.size(), 256);
      const std::size_t at = (out.size() - tail + pick(tail)) & ~std::size_t{3};
      const std::uint32_t values[] = {0, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, word(), 1u << pick(32)};
      if (at + 4 <= out.size()) std::memcpy(out.data() + at, &values[pick(6)], 4);
      break;
    }
    default:  // truncation
      out.resize(pick(out.size()));
      break;
  }
  return out;
}

std::vector<std::uint8_t> velaStream(const std::string& network, const std::string& folder, const std::string& model,
                                     const ScratchDir& dir) {
  const fs::path file = repackageVelaModel(network, folder, model, dir.path());
  if (file.empty()) return {};
  auto bytes = readFile(file);
  return bytes ? *bytes : std::vector<std::uint8_t>{};
}

std::vector<std::uint8_t> compiledStream(const char* target) {
  std::mt19937 rng(9);
  GraphBuilder g;
  std::string x = g.input("x", {1, 6, 6, 4});
  std::string y = g.clamp(g.conv(x, 20, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, -3, 5, rng), 5, 127);
  tosa::AvgPool2dAttrs a{{2, 2}, {2, 2}, {0, 0, 0, 0}, DType::Int32};
  g.output(g.op(Op::AvgPool2d, a, {y, g.scalar(DType::Int8, 5), g.scalar(DType::Int8, 5)}, {1, 3, 3, 20}, DType::Int8));
  auto model = converter::ethosu::compile(g.graph(), {target}, "m.tosa");
  return model ? model->velaBinStream : std::vector<std::uint8_t>{};
}

TEST(EthosUMutation, MutatedU85AndU55StreamsExitZeroOrTwoNamingTheFile) {
  ScratchDir dir("ethosu_mutation");
  std::mt19937 rng(2024);
  auto writeInput = [&](const std::string& network, std::int64_t size) {
    tosa::HostTensor t(DType::Int8, {1, size});
    auto bytes = readFile(velaDataFolder(network, "u85") / "input.bin");
    if (bytes) t.bytes = *bytes;
    const std::string file = dir / (network + ".npy");
    EXPECT_TRUE(tosa::npy::writeTensor(file, t)) << network;
    return file;
  };
  const std::string cnn = writeInput("kws_cnn_small_int8", 490);
  const std::string dnn = writeInput("kws_dnn_medium_int8", 250);
  const std::string dsCnn = writeInput("kws_ds_cnn_large_clustered_int8", 490);
  ASSERT_TRUE(tosa::npy::writeTensor(dir / "x.npy", randomInt8({1, 6, 6, 4}, rng)));
  const std::vector<Base> bases = {
      // U85: 300
      {"vela_u85_256", velaStream("kws_cnn_small_int8", "u85", "model_u85_256", dir), cnn, 90},
      {"vela_u85_2048", velaStream("kws_cnn_small_int8", "u85", "model_u85_2048", dir), cnn, 60},
      {"vela_dnn_u85_512", velaStream("kws_dnn_medium_int8", "u85", "model_u85_512", dir), dnn, 50},
      {"vela_ds_cnn_u85_1024", velaStream("kws_ds_cnn_large_clustered_int8", "u85", "model_u85_1024", dir), dsCnn, 20},
      {"openvgf_u85_256", compiledStream("ethos-u85-256"), dir / "x.npy", 40},
      {"openvgf_u85_1024", compiledStream("ethos-u85-1024"), dir / "x.npy", 40},
      // U55 / U65: 150
      {"vela_u55_128", velaStream("kws_cnn_small_int8", "u55", "model_u55_128", dir), cnn, 60},
      {"openvgf_u55_128", compiledStream("ethos-u55-128"), dir / "x.npy", 45},
      {"openvgf_u65_512", compiledStream("ethos-u65-512"), dir / "x.npy", 45},
  };
  int total = 0, failures = 0, ran = 0, u85 = 0;
  for (const Base& base : bases) {
    ASSERT_FALSE(base.bytes.empty()) << base.name;
    if (base.name.find("u85") != std::string::npos) u85 += base.mutants;
    // The unmutated stream runs.
    const std::string original = dir / (base.name + ".ethosu");
    ASSERT_TRUE(writeFileAtomic(original, base.bytes));
    CommandResult ok = runCli(fmt::format("run {} -i {} -o {}", original, base.input, dir / "out.npy"), kLimit);
    ASSERT_EQ(ok.exitCode, 0) << ok.output;
    for (int i = 0; i < base.mutants; ++i, ++total) {
      const std::string name = fmt::format("{}_m{:03}.ethosu", base.name, i);
      const std::string file = dir / name;
      ASSERT_TRUE(writeFileAtomic(file, mutate(base.bytes, rng)));
      std::vector<std::string> commands = {fmt::format("run {} -i {} -o {}", file, base.input, dir / "out.npy")};
      if (i % 3 == 0) commands.push_back("inspect " + file);
      for (const std::string& command : commands) {
        CommandResult r = runCli(command, kLimit);
        ran += r.exitCode == 0;
        const bool good = r.exitCode == 0 || (r.exitCode == 2 && r.output.find(name) != std::string::npos);
        EXPECT_TRUE(good) << command << " -> exit " << r.exitCode << ":\n" << r.output.substr(0, 2000);
        failures += !good;
        if (failures > 10) FAIL() << "stopping after 10 failures";
      }
      fs::remove(file);
    }
  }
  std::printf("%d mutated streams, %d commands exited 0, the rest exit 2\n", total, ran);
  EXPECT_EQ(total, 450);
  EXPECT_EQ(u85, 300);
  EXPECT_GT(ran, 0);  // some mutations leave a runnable stream (e.g. weight values)
}

}  // namespace
}  // namespace openvgf::ethosu_test
