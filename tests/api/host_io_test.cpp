// SPDX-License-Identifier: Apache-2.0
// Host I/O through the installed C++ API on lavapipe with the validation layer on:
// asynchronous runs (several in flight, waited for in any order) equal synchronous runs and
// the reference interpreter; pinned tensors (allocated, imported, and refused when unaligned);
// outputs kept on the device feeding a session of another model on the same device, equal to
// the same chain through host memory; misuse is an exception naming what was expected.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openvgf/openvgf.hpp"
#include "tests/api/api_test_util.h"
#include "tosa/builder.h"

namespace openvgf {
namespace {

namespace fs = std::filesystem;
using testing::expectError;

class HostIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::freshTestDir("host-io");
    options_ = testing::modelOptions(dir_ / "cache");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The ADD fixture's inputs with `k` added to every element of both.
  static std::vector<Tensor> shiftedInputs(float k) {
    std::vector<Tensor> inputs = testing::addInputs();
    for (Tensor& t : inputs) {
      for (std::int64_t i = 0; i < t.elementCount(); ++i) t.dataAs<float>()[i] += k;
    }
    return inputs;
  }

  // The ADD fixture's output for `inputs` on the reference interpreter.
  static Tensor referenceAdd(const std::vector<Tensor>& inputs) {
    std::vector<NamedTensor> outputs = reference(testing::addModel(), {{"", inputs[0]}, {"", inputs[1]}});
    return outputs.at(0).tensor;
  }

  // y = x + x over [1,4,4,4] fp32 (exact in floating point, so every path gives the same
  // bits): a second model that takes the ADD's output.
  std::string writeDoubling() {
    tosa::Builder b;
    tosa::Value x = b.input("x", tosa::DType::Fp32, {1, 4, 4, 4});
    b.output(b.add(x, x, "y"));
    const std::string path = (dir_ / "doubling.tosa").string();
    EXPECT_TRUE(b.write(path));
    return path;
  }

  static bool sameBytes(const Tensor& a, const Tensor& b) {
    return a.byteSize() == b.byteSize() && std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
  }

  fs::path dir_;
  ModelOptions options_;
};

TEST_F(HostIoTest, RunsInFlightEqualSynchronousRunsAndTheReferenceInAnyWaitOrder) {
  Model model = Model::open(testing::addModel(), options_);
  Session async = model.createSession({.inFlight = 3});
  Session sync = model.createSession();
  std::vector<std::vector<Tensor>> inputs{shiftedInputs(0), shiftedInputs(10), shiftedInputs(-3.5f)};
  std::vector<RunHandle> runs;
  for (const std::vector<Tensor>& in : inputs) runs.push_back(async.runAsync(in));
  for (RunHandle& run : runs) EXPECT_TRUE(run.valid());
  // A fourth run with three in flight finishes the oldest first (its handle keeps its outputs).
  RunHandle fourth = async.runAsync(inputs[1]);
  EXPECT_TRUE(runs[0].valid());
  EXPECT_TRUE(sameBytes(fourth.wait()[0], referenceAdd(inputs[1])));

  for (std::size_t k : {2u, 0u, 1u}) {
    std::vector<Tensor> outputs = runs[k].wait();
    EXPECT_FALSE(runs[k].valid());
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_TRUE(sameBytes(outputs[0], sync.run(inputs[k])[0])) << "run " << k;
    EXPECT_TRUE(sameBytes(outputs[0], referenceAdd(inputs[k]))) << "run " << k;
  }
  expectError([&] { runs[0].wait(); }, ErrorCode::InvalidInput, "already waited for");

  // A handle dropped unwaited is waited for; a synchronous run after runs in flight finishes
  // them first, and their handles keep their results.
  async.runAsync(inputs[1]);
  RunHandle kept = async.runAsync(inputs[2], {Tensor(DataType::Float32, {1, 4, 4, 4})});
  EXPECT_TRUE(sameBytes(async.run(inputs[0])[0], referenceAdd(inputs[0])));
  EXPECT_TRUE(sameBytes(kept.wait()[0], referenceAdd(inputs[2])));
  EXPECT_GT(async.profile().hostMs, 0.0);
}

TEST_F(HostIoTest, PinnedTensorsRunLikeHostTensors) {
  Model model = Model::open(testing::addModel(), options_);
  Session session = model.createSession({.inFlight = 2});
  std::vector<Tensor> host = shiftedInputs(1.5f);
  std::vector<Tensor> pinned;
  for (const Tensor& t : host) {
    pinned.push_back(model.allocatePinned(t.dtype(), t.shape()));
    EXPECT_TRUE(pinned.back().pinned());
    EXPECT_TRUE(pinned.back().ownsData());
    std::memcpy(pinned.back().data(), t.data(), t.byteSize());
  }
  Tensor out = model.allocatePinned(DataType::Float32, {1, 4, 4, 4});
  std::vector<Tensor> outputs = session.runAsync(pinned, {out}).wait();
  EXPECT_EQ(outputs[0].data(), out.data()) << "the pinned output is written in place";
  EXPECT_TRUE(sameBytes(outputs[0], referenceAdd(host)));
  // A view of memory inside a pinned buffer is pinned too.
  EXPECT_TRUE(Tensor::view(DataType::Float32, {4}, out.dataAs<float>() + 4, 16).pinned());
  EXPECT_FALSE(host[0].pinned());
}

TEST_F(HostIoTest, ImportPinnedTakesAlignedMemoryAndRefusesUnalignedMemory) {
  Model model = Model::open(testing::addModel(), options_);
  const std::size_t alignment = model.importAlignment();
  std::vector<Tensor> host = shiftedInputs(2);
  if (alignment == 0) {
    expectError([&] { model.importPinned(DataType::Float32, {1, 4, 4, 4}, host[1].data(), 256); },
                ErrorCode::Unsupported, "VK_EXT_external_memory_host");
    GTEST_SKIP() << "the device cannot import host memory";
  }
  const std::size_t bytes = ((256 + alignment - 1) / alignment) * alignment;
  std::unique_ptr<std::uint8_t, decltype(&std::free)> memory(
      static_cast<std::uint8_t*>(std::aligned_alloc(alignment, bytes + alignment)), &std::free);
  ASSERT_NE(memory, nullptr);

  // Unaligned start, then unaligned size: the documented Unsupported, naming the alignment.
  expectError([&] { model.importPinned(DataType::Float32, {1, 4, 4, 4}, memory.get() + 4, 256); },
              ErrorCode::Unsupported, "minImportedHostPointerAlignment = " + std::to_string(alignment));
  if (256 % alignment != 0) {
    expectError([&] { model.importPinned(DataType::Float32, {1, 4, 4, 4}, memory.get(), 256); },
                ErrorCode::Unsupported, "plain Tensor::view");
  }
  // The fallback the message names: the same unaligned memory as a plain view runs.
  std::memcpy(memory.get() + 4, host[1].data(), 256);
  Session session = model.createSession();
  Tensor plain = Tensor::view(DataType::Float32, {1, 4, 4, 4}, memory.get() + 4, 256);
  EXPECT_TRUE(sameBytes(session.run({host[0], plain})[0], referenceAdd(host)));

  // Aligned start and size: imported in place.
  const std::size_t whole = bytes / 4;
  Tensor imported = model.importPinned(DataType::Float32, {static_cast<std::int64_t>(whole)}, memory.get(), bytes);
  EXPECT_TRUE(imported.pinned());
  EXPECT_FALSE(imported.ownsData());
  std::memcpy(memory.get(), host[1].data(), 256);
  Tensor input = Tensor::view(DataType::Float32, {1, 4, 4, 4}, memory.get(), 256);
  EXPECT_TRUE(input.pinned());
  EXPECT_TRUE(sameBytes(session.run({host[0], input})[0], referenceAdd(host)));
}

TEST_F(HostIoTest, DeviceOutputsFeedASessionOfAnotherModelLikeTheHostChain) {
  const std::string second = writeDoubling();
  Model add = Model::open(testing::addModel(), options_);
  Model next = Model::open(second, options_, add);
  EXPECT_TRUE(next.sharesDeviceWith(add));
  Session a = add.createSession();
  Session b = next.createSession({.inFlight = 2});
  std::vector<Tensor> inputs = shiftedInputs(0.75f);

  // Through host memory: A, then B on A's output; and the reference of B on A's output.
  std::vector<Tensor> hostA = a.run(inputs);
  std::vector<Tensor> hostB = b.run(hostA);
  Tensor want = reference(second, {{"", hostA[0]}}).at(0).tensor;
  ASSERT_TRUE(sameBytes(hostB[0], want));

  // On the device: A keeps its output there, B reads it.
  std::vector<Tensor> onDevice = a.run(inputs, {.keepOnDevice = true});
  ASSERT_EQ(onDevice.size(), 1u);
  EXPECT_EQ(onDevice[0].location(), MemoryLocation::Device);
  EXPECT_EQ(onDevice[0].data(), nullptr);
  EXPECT_EQ(onDevice[0].shape(), (Shape{1, 4, 4, 4}));
  EXPECT_TRUE(sameBytes(b.run(onDevice)[0], want));
  // The same with both runs asynchronous, A not waited for before B starts.
  RunHandle runA = a.runAsync(inputs, {}, {.keepOnDevice = true});
  std::vector<Tensor> fromA = runA.wait();
  RunHandle runB = b.runAsync(fromA);
  EXPECT_TRUE(sameBytes(runB.wait()[0], want));
  // Chained twice on the device: B's output (kept) into B again.
  std::vector<Tensor> onceMore = b.run(b.run(fromA, {.keepOnDevice = true}));
  Tensor twice = reference(second, {{"", want}}).at(0).tensor;
  EXPECT_TRUE(sameBytes(onceMore[0], twice));
}

TEST_F(HostIoTest, DeviceTensorMisuseIsAnExceptionNamingTheInput) {
  const std::string second = writeDoubling();
  Model add = Model::open(testing::addModel(), options_);
  Model next = Model::open(second, options_, add);
  Model apart = Model::open(second, options_);  // its own device and context
  EXPECT_FALSE(apart.sharesDeviceWith(add));
  Session a = add.createSession();
  std::vector<Tensor> inputs = testing::addInputs();
  std::vector<Tensor> device = a.run(inputs, {.keepOnDevice = true});

  Session other = apart.createSession();
  expectError([&] { other.run(device); }, ErrorCode::InvalidInput, "input 'x': expected an output of a session on the same device");
  // The ADD's [1,4,4,4] output where its [1,4,4,1] input is expected.
  Session a2 = add.createSession();
  expectError([&] { a2.run({device[0], inputs[1]}); }, ErrorCode::InvalidInput, "input '" + add.inputs()[0].name + "'");
  expectError([&] { device[0].clone(); }, ErrorCode::InvalidInput, "device-resident");
  // A device tensor lives until its session's next run.
  a.run(inputs);
  Session b = next.createSession();
  expectError([&] { b.run(device); }, ErrorCode::InvalidInput, "earlier run");
  // No crash, and the sessions still work.
  EXPECT_TRUE(sameBytes(a.run(inputs)[0], referenceAdd(inputs)));
  expectError([&] { add.createSession({.inFlight = 9}); }, ErrorCode::InvalidInput, "expected 1 to 8, got 9");
}

}  // namespace
}  // namespace openvgf
