// SPDX-License-Identifier: Apache-2.0
// One Session shared by many threads (issue 33): calls take turns on the Session's lock, so
// every run, synchronous or not, returns its own answer (checked against the ADD fixture's
// sum computed here, with inputs distinct per thread and run); handles dropped unwaited finish
// their runs into their own outputs; runs beyond SessionOptions::inFlight wait instead of
// failing; two shared Sessions chained by device-resident tensors never deadlock and never
// answer with another run's value. Also built and run under ThreadSanitizer.
#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openvgf/openvgf.hpp"
#include "tests/api/api_test_util.h"

namespace openvgf {
namespace {

namespace fs = std::filesystem;

constexpr int kThreads = 8;
constexpr int kRuns = 50;

// Runs work(id) on kThreads threads at once; returns each thread's error ("" for none).
template <typename Work>
std::vector<std::string> onThreads(const Work& work) {
  std::vector<std::string> errors(kThreads);
  std::vector<std::jthread> running;
  for (int id = 0; id < kThreads; ++id) {
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

// Inputs of the ADD fixture that no other (thread, run) uses: a = 1000 * thread + 20 * run + i,
// b = -i / 8 - thread.
std::vector<Tensor> distinctInputs(int thread, int run) {
  Tensor a(DataType::Float32, testing::kAddShape0);
  Tensor b(DataType::Float32, testing::kAddShape1);
  for (int i = 0; i < 16; ++i) a.dataAs<float>()[i] = static_cast<float>(thread * 1000 + run * 20 + i);
  for (int i = 0; i < 64; ++i) b.dataAs<float>()[i] = -static_cast<float>(i) / 8 - static_cast<float>(thread);
  return {a, b};
}

// Elements of `output` that differ from the sum of `inputs` (hand-computed broadcast ADD).
int wrongElements(const std::vector<Tensor>& inputs, const Tensor& output) {
  if (output.byteSize() != 64 * sizeof(float) || output.data() == nullptr) return 64;
  int wrong = 0;
  for (int i = 0; i < 64; ++i) wrong += output.dataAs<float>()[i] != testing::addResult(inputs[0], inputs[1], i);
  return wrong;
}

class SessionThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::freshTestDir("session-threads");
    options_ = testing::modelOptions(dir_ / "cache");
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  ModelOptions options_;
};

// The storm: 50 handles dropped unwaited, then 8 threads x 50 runs on the one Session
// (run, runAsync + wait, and runAsync into given outputs whose handle is dropped), inFlight 2
// so threads also meet a full Session.
TEST_F(SessionThreadsTest, EveryThreadGetsItsOwnAnswerAfterDroppedHandles) {
  Model model = Model::open(testing::addModel(), options_);
  Session session = model.createSession({.inFlight = 2});
  for (int run = 0; run < kRuns; ++run) session.runAsync(distinctInputs(kThreads, run));
  std::atomic<int> wrong{0};
  std::atomic<int> checked{0};
  auto work = [&](int id) {
    for (int run = 0; run < kRuns; ++run) {
      std::vector<Tensor> inputs = distinctInputs(id, run);
      switch ((id + run) % 3) {
        case 0:
          wrong += wrongElements(inputs, session.run(inputs)[0]);
          break;
        case 1:
          wrong += wrongElements(inputs, session.runAsync(inputs).wait()[0]);
          break;
        default: {
          // Dropped unwaited: its run still lands in these outputs, and only there.
          std::vector<Tensor> outputs{Tensor(DataType::Float32, testing::kAddShape1)};
          session.runAsync(inputs, outputs);
          wrong += wrongElements(inputs, outputs[0]);
        }
      }
      ++checked;
    }
  };
  std::vector<std::string> errors = onThreads(work);
  for (int id = 0; id < kThreads; ++id) EXPECT_EQ(errors[id], "") << "thread " << id;
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(checked.load(), kThreads * kRuns);
}

// Handles started on one thread are waited for on others, in any order, while more runs start.
TEST_F(SessionThreadsTest, HandlesAreWaitedForOnOtherThreads) {
  Model model = Model::open(testing::addModel(), options_);
  Session session = model.createSession({.inFlight = 3});
  std::vector<std::vector<Tensor>> inputs;
  std::vector<RunHandle> handles;
  for (int k = 0; k < kThreads; ++k) {
    inputs.push_back(distinctInputs(k, kRuns));
    handles.push_back(session.runAsync(inputs.back()));
  }
  std::atomic<int> wrong{0};
  auto work = [&](int id) {
    const auto k = static_cast<std::size_t>(kThreads - 1 - id);
    wrong += wrongElements(inputs[k], handles[k].wait()[0]);
    for (int run = 0; run < kRuns / 5; ++run) {
      std::vector<Tensor> mine = distinctInputs(id, run);
      wrong += wrongElements(mine, session.run(mine)[0]);
    }
  };
  std::vector<std::string> errors = onThreads(work);
  for (int id = 0; id < kThreads; ++id) EXPECT_EQ(errors[id], "") << "thread " << id;
  EXPECT_EQ(wrong.load(), 0);
  for (RunHandle& handle : handles) {
    EXPECT_FALSE(handle.valid());
    testing::expectError([&] { handle.wait(); }, ErrorCode::InvalidInput, "already waited for");
  }
}

// Two shared Sessions chained on the device: `first` keeps its sum on the device, `second`
// adds input 0 once more. Another thread's run of `first` may come between: then the kept
// tensor is stale and `second` refuses it; otherwise the chained sum is this thread's.
TEST_F(SessionThreadsTest, SharedSessionsChainedOnTheDeviceNeverDeadlockOrMixAnswers) {
  Model firstModel = Model::open(testing::addModel(), options_);
  Model secondModel = Model::open(testing::addModel(), options_, firstModel);
  Session first = firstModel.createSession({.inFlight = 2});
  Session second = secondModel.createSession({.inFlight = 2});
  std::atomic<int> wrong{0};
  std::atomic<int> chained{0};
  auto work = [&](int id) {
    for (int run = 0; run < kRuns / 2; ++run) {
      std::vector<Tensor> inputs = distinctInputs(id, run);
      std::vector<Tensor> kept = first.run(inputs, {.keepOnDevice = true});
      std::optional<RunHandle> reading;
      try {
        reading = second.runAsync({inputs[0], kept[0]});
      } catch (const Exception& e) {
        if (e.code() != ErrorCode::InvalidInput || std::string(e.what()).find("earlier run") == std::string::npos) throw;
        continue;
      }
      // `first` runs again before `second`'s run is waited for: it waits for that reader first.
      wrong += wrongElements(inputs, first.run(inputs)[0]);
      Tensor sum = reading->wait()[0];
      for (int i = 0; i < 64; ++i) {
        wrong += sum.dataAs<float>()[i] != inputs[0].dataAs<float>()[i / 4] + testing::addResult(inputs[0], inputs[1], i);
      }
      ++chained;
    }
  };
  std::vector<std::string> errors = onThreads(work);
  for (int id = 0; id < kThreads; ++id) EXPECT_EQ(errors[id], "") << "thread " << id;
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(chained.load(), 0);
}

}  // namespace
}  // namespace openvgf
