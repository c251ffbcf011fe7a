// SPDX-License-Identifier: Apache-2.0
// The API's thread-safety rules (openvgf/openvgf.hpp): one Model shared by several threads,
// each creating its own Session at the same time and running it many times, gets correct
// results; Sessions outlive the Model handle; threads allocating pinned memory and keeping
// runs in flight on their own sessions, each chaining a device-resident output into a session
// of a second model on the same device. Also built and run under ThreadSanitizer.
#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "openvgf/openvgf.hpp"
#include "tests/api/api_test_util.h"

namespace openvgf {
namespace {

// Runs work(id) on `threads` threads at once; returns each thread's error ("" for none).
template <typename Work>
std::vector<std::string> onThreads(int threads, const Work& work) {
  std::vector<std::string> errors(static_cast<std::size_t>(threads));
  std::vector<std::jthread> running;
  for (int id = 0; id < threads; ++id) {
    running.emplace_back([&errors, &work, id] {
      try {
        work(id);
      } catch (const Exception& e) {
        errors[static_cast<std::size_t>(id)] = e.what();
      }
    });
  }
  running.clear();  // joins
  return errors;
}

TEST(ApiConcurrency, ThreadsShareOneModelWithOneSessionEach) {
  const std::filesystem::path dir = testing::freshTestDir("api-concurrency");
  std::optional<Model> model = Model::open(testing::addModel(), testing::modelOptions(dir / "cache"));
  constexpr int kThreads = 3;
  constexpr int kRuns = 40;
  std::atomic<int> wrong{0};
  auto work = [&](int id) {
    Session session = model->createSession();
    Tensor a(DataType::Float32, testing::kAddShape0);
    Tensor b(DataType::Float32, testing::kAddShape1);
    std::vector<Tensor> outputs;
    for (int run = 0; run < kRuns; ++run) {
      for (int i = 0; i < 16; ++i) a.dataAs<float>()[i] = static_cast<float>(id * 1000 + run * 20 + i);
      for (int i = 0; i < 64; ++i) b.dataAs<float>()[i] = static_cast<float>(i);
      session.run({a, b}, outputs);
      for (int i = 0; i < 64; ++i) {
        if (outputs[0].dataAs<float>()[i] != testing::addResult(a, b, i)) ++wrong;
      }
    }
  };
  std::vector<std::string> errors = onThreads(kThreads, work);
  for (int id = 0; id < kThreads; ++id) EXPECT_EQ(errors[id], "") << "thread " << id;
  EXPECT_EQ(wrong.load(), 0);

  // A Session keeps the device alive after the last Model handle is gone.
  Session survivor = model->createSession();
  model.reset();
  Tensor a(DataType::Float32, testing::kAddShape0);
  Tensor b(DataType::Float32, testing::kAddShape1);
  for (int i = 0; i < 16; ++i) a.dataAs<float>()[i] = 1.0f;
  for (int i = 0; i < 64; ++i) b.dataAs<float>()[i] = 1.0f;
  std::vector<Tensor> outputs = survivor.run({a, b});
  EXPECT_EQ(outputs[0].dataAs<float>()[63], 2.0f);
  std::filesystem::remove_all(dir);
}

TEST(ApiConcurrency, ThreadsWithPinnedMemoryRunsInFlightAndDeviceChains) {
  const std::filesystem::path dir = testing::freshTestDir("api-concurrency-host-io");
  const ModelOptions options = testing::modelOptions(dir / "cache");
  Model first = Model::open(testing::addModel(), options);
  Model second = Model::open(testing::addModel(), options, first);
  constexpr int kThreads = 3;
  constexpr int kRuns = 12;
  std::atomic<int> wrong{0};
  auto work = [&](int id) {
    Session session = first.createSession({.inFlight = 2});
    Session next = second.createSession();
    for (int run = 0; run < kRuns; ++run) {
      // Fresh pinned buffers every run: allocation and release race with the other threads.
      Tensor a = first.allocatePinned(DataType::Float32, testing::kAddShape0);
      Tensor b = first.allocatePinned(DataType::Float32, testing::kAddShape1);
      for (int i = 0; i < 16; ++i) a.dataAs<float>()[i] = static_cast<float>(id * 1000 + run * 20 + i);
      for (int i = 0; i < 64; ++i) b.dataAs<float>()[i] = static_cast<float>(i);
      RunHandle one = session.runAsync({a, b});
      RunHandle two = session.runAsync({a, b}, {}, {.keepOnDevice = true});
      std::vector<Tensor> kept = two.wait();
      std::vector<Tensor> host = one.wait();
      std::vector<Tensor> chained = next.run({a, kept[0]});
      for (int i = 0; i < 64; ++i) {
        const float sum = testing::addResult(a, b, i);
        if (host[0].dataAs<float>()[i] != sum) ++wrong;
        if (chained[0].dataAs<float>()[i] != a.dataAs<float>()[i / 4] + sum) ++wrong;
      }
    }
  };
  std::vector<std::string> errors = onThreads(kThreads, work);
  for (int id = 0; id < kThreads; ++id) EXPECT_EQ(errors[id], "") << "thread " << id;
  EXPECT_EQ(wrong.load(), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace openvgf
