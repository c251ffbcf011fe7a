// SPDX-License-Identifier: Apache-2.0
// Several devices in one process (openvgf/openvgf.hpp, "Several devices in one process"):
// selectDevices as a pure function over made-up device lists; a DevicePool on the test device
// (lavapipe here), named three times so three sessions and threads share the items: results in
// input order, bit for bit those of single Session runs and the hand-computed sums, a bad item
// failing alone, streams, and a run stopped by its consumer. The C API's pool the same way.
// A lost device: the decision (api::afterFailure) over made-up pool states, and on the pool
// with device-lost failures injected by the test-only run hook (api/pool_retry.h).
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/pool_retry.h"
#include "openvgf/openvgf.h"
#include "openvgf/openvgf.hpp"
#include "tests/api/api_test_util.h"
#include "vulkan/check.h"

namespace openvgf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

DeviceInfo device(int index, const std::string& name, const std::string& type, bool usable = true,
                  bool isDefault = false) {
  DeviceInfo d;
  d.index = index;
  d.name = name;
  d.type = type;
  d.usable = usable;
  d.isDefault = isDefault;
  return d;
}

// Two GPUs of one kind, an integrated one, lavapipe, and an old device; the types as
// listDevices() gives them (`openvgf devices` prints the same).
std::vector<DeviceInfo> machine() {
  return {device(0, "NVIDIA H200", "discrete-gpu", true, true), device(1, "NVIDIA H200", "discrete-gpu"),
          device(2, "Intel(R) UHD Graphics", "integrated-gpu"), device(3, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu"),
          device(4, "Old GPU (Vulkan 1.1)", "discrete-gpu", false)};
}

TEST(SelectDevices, NamesDevicesByDefaultAllIndexAndName) {
  EXPECT_THAT(selectDevices("", machine()), ElementsAre(0));
  EXPECT_THAT(selectDevices("all", machine()), ElementsAre(0, 1));  // the best kind only: no iGPU, no lavapipe
  EXPECT_THAT(selectDevices("h200", machine()), ElementsAre(0, 1));  // a name names every device that has it
  EXPECT_THAT(selectDevices("3,1", machine()), ElementsAre(3, 1));
  EXPECT_THAT(selectDevices("llvmpipe,llvmpipe", machine()), ElementsAre(3, 3));  // a session per mention
  // Where lavapipe is all there is, `all` is lavapipe.
  EXPECT_THAT(selectDevices("all", {device(0, "llvmpipe", "cpu", true, true)}), ElementsAre(0));
}

TEST(SelectDevices, RefusesWhatNamesNoUsableDevice) {
  using testing::expectError;
  expectError([] { selectDevices("5", machine()); }, ErrorCode::InvalidInput, "device 5: expected an index below 5");
  expectError([] { selectDevices("radeon", machine()); }, ErrorCode::InvalidInput,
              "'radeon': expected an index or a substring of a device name");
  expectError([] { selectDevices("0,,1", machine()); }, ErrorCode::InvalidInput, "got an empty entry");
  expectError([] { selectDevices("4", machine()); }, ErrorCode::Environment, "'4': expected a usable device");
  expectError([] { selectDevices("all", {device(0, "old", "cpu", false)}); }, ErrorCode::Environment,
              "expected a usable device");
  expectError([] { selectDevices("", {device(0, "old", "cpu", false)}); }, ErrorCode::Environment,
              "expected a usable device");
  expectError([] { selectDevices("all", {}); }, ErrorCode::Environment, "no Vulkan device found");
}

TEST(SelectDevices, AllOnThisMachineIsOneKindOfUsableDevice) {
  const std::vector<DeviceInfo> devices = listDevices();
  const std::vector<int> all = selectDevices("all", devices);
  ASSERT_FALSE(all.empty());
  for (int index : all) {
    EXPECT_TRUE(devices[static_cast<std::size_t>(index)].usable);
    EXPECT_EQ(devices[static_cast<std::size_t>(index)].type, devices[static_cast<std::size_t>(all[0])].type);
  }
}

// The messages the runtime gives a failed Vulkan call (vulkan::vkError), as a run reports them.
std::string vulkanFailure(VkResult result) {
  return "add.tosa: run: " + vulkan::vkError(result, "vkWaitForFences(device_, 1, &fence)").message();
}

TEST(AfterFailure, OnlyALostDeviceIsRetriedAndOnlyWhileAnotherMemberIsLive) {
  const std::string lost = vulkanFailure(VK_ERROR_DEVICE_LOST);
  EXPECT_TRUE(api::deviceLost(ErrorCode::Runtime, lost));
  EXPECT_FALSE(api::deviceLost(ErrorCode::Runtime, vulkanFailure(VK_ERROR_OUT_OF_DEVICE_MEMORY)));
  // A bad input never is, whatever its text holds (a file may be named anything).
  EXPECT_FALSE(api::deviceLost(ErrorCode::InvalidInput, "VK_ERROR_DEVICE_LOST.npy: expected a .npy file"));

  using api::AfterFailure;
  EXPECT_EQ(api::afterFailure(ErrorCode::Runtime, lost, 1, {true, true, true}), AfterFailure::RunElsewhere);
  EXPECT_EQ(api::afterFailure(ErrorCode::Runtime, lost, 1, {false, true, false}), AfterFailure::RetireReport);
  EXPECT_EQ(api::afterFailure(ErrorCode::Runtime, lost, 0, {true}), AfterFailure::RetireReport);
  // A member already retired (a second run it had in flight) still hands its item on.
  EXPECT_EQ(api::afterFailure(ErrorCode::Runtime, lost, 0, {false, true}), AfterFailure::RunElsewhere);
  EXPECT_EQ(api::afterFailure(ErrorCode::Runtime, lost, 0, {false, false}), AfterFailure::RetireReport);
  EXPECT_EQ(api::afterFailure(ErrorCode::InvalidInput, "input 'x': expected shape [4]", 0, {true, true}),
            AfterFailure::Report);
  EXPECT_EQ(api::afterFailure(ErrorCode::Runtime, vulkanFailure(VK_ERROR_OUT_OF_DEVICE_MEMORY), 0, {true, true}),
            AfterFailure::Report);
}

// Installs a run hook for one test and records (member, item) of every run submitted.
class RunHook {
 public:
  explicit RunHook(std::function<void(std::size_t member, std::size_t item)> fault) : fault_(std::move(fault)) {
    api::setPoolRunHookForTesting([this](std::size_t member, std::size_t item) {
      {
        std::lock_guard lock(mutex_);
        calls_.emplace_back(member, item);
      }
      fault_(member, item);
    });
  }
  ~RunHook() { api::setPoolRunHookForTesting({}); }
  RunHook(const RunHook&) = delete;
  RunHook& operator=(const RunHook&) = delete;

  std::vector<std::pair<std::size_t, std::size_t>> calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  std::function<void(std::size_t, std::size_t)> fault_;
  mutable std::mutex mutex_;
  std::vector<std::pair<std::size_t, std::size_t>> calls_;
};

class Pool : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::freshTestDir("device-pool"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The test device named three times: three sessions, three threads.
  PoolOptions options(unsigned inFlight = 2) const {
    PoolOptions pool;
    pool.model = testing::modelOptions(dir_ / "cache");
    const std::string device = pool.model.device;
    pool.model.device.clear();
    pool.devices = device + "," + device + "," + device;
    pool.inFlight = inFlight;
    return pool;
  }

  // ADD inputs that differ per item: a = item * 100 + i, b = i / 4.
  static std::vector<Tensor> item(int n) {
    Tensor a(DataType::Float32, testing::kAddShape0);
    Tensor b(DataType::Float32, testing::kAddShape1);
    for (int i = 0; i < 16; ++i) a.dataAs<float>()[i] = static_cast<float>(n * 100 + i);
    for (int i = 0; i < 64; ++i) b.dataAs<float>()[i] = static_cast<float>(i) / 4;
    return {a, b};
  }

  std::filesystem::path dir_;
};

TEST_F(Pool, RunManyKeepsInputOrderAndMatchesSingleRunsBitForBit) {
  DevicePool pool = DevicePool::open(testing::addModel(), options());
  ASSERT_EQ(pool.models().size(), 3u);
  EXPECT_EQ(pool.deviceIndices()[0], pool.deviceIndices()[2]);
  std::vector<std::vector<Tensor>> items;
  for (int n = 0; n < 40; ++n) items.push_back(item(n));
  const std::vector<PoolResult> results = pool.runMany(items);
  ASSERT_EQ(results.size(), items.size());

  Model single = Model::open(testing::addModel(), testing::modelOptions(dir_ / "cache"));
  Session session = single.createSession();
  for (std::size_t n = 0; n < items.size(); ++n) {
    ASSERT_TRUE(results[n].ok) << "item " << n << ": " << results[n].error;
    EXPECT_EQ(results[n].device, pool.deviceIndices()[0]);
    const Tensor& out = results[n].outputs.at(0);
    const std::vector<Tensor> alone = session.run(items[n]);
    ASSERT_EQ(out.byteSize(), alone[0].byteSize());
    EXPECT_EQ(std::memcmp(out.data(), alone[0].data(), out.byteSize()), 0) << "item " << n;
    for (int i = 0; i < 64; ++i) {
      ASSERT_EQ(out.dataAs<float>()[i], testing::addResult(items[n][0], items[n][1], i)) << "item " << n << " [" << i << "]";
    }
  }
}

TEST_F(Pool, ABadItemFailsAloneWithItsError) {
  DevicePool pool = DevicePool::open(testing::addModel(), options(1));
  std::vector<std::vector<Tensor>> items;
  for (int n = 0; n < 9; ++n) items.push_back(item(n));
  items[4][1] = Tensor(DataType::Float32, {1, 4, 4, 3});  // the wrong shape
  const std::vector<PoolResult> results = pool.runMany(items);
  for (std::size_t n = 0; n < items.size(); ++n) {
    if (n == 4) {
      EXPECT_FALSE(results[n].ok);
      EXPECT_EQ(results[n].code, ErrorCode::InvalidInput);
      EXPECT_THAT(results[n].error, HasSubstr("shape"));
      EXPECT_TRUE(results[n].outputs.empty());
    } else {
      ASSERT_TRUE(results[n].ok) << results[n].error;
      EXPECT_EQ(results[n].outputs[0].dataAs<float>()[63], testing::addResult(items[n][0], items[n][1], 63));
    }
  }
}

TEST_F(Pool, StreamsEndWhenNextSaysSoAndNextErrorsFailTheirItem) {
  DevicePool pool = DevicePool::open(testing::addModel(), options());
  std::vector<std::size_t> order;
  std::vector<float> last;
  pool.runStream(
      [](std::size_t index, std::vector<Tensor>& inputs) {
        if (index == 11) return false;
        if (index == 3) throw Exception(ErrorCode::InvalidInput, "item 3: unreadable");
        inputs = item(static_cast<int>(index));
        return true;
      },
      [&](std::size_t index, PoolResult result) {
        order.push_back(index);
        if (index == 3) {
          EXPECT_FALSE(result.ok);
          EXPECT_EQ(result.error, "item 3: unreadable");
          EXPECT_EQ(result.device, -1);
          return;
        }
        ASSERT_TRUE(result.ok) << result.error;
        last.push_back(result.outputs[0].dataAs<float>()[0]);
      });
  EXPECT_THAT(order, ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
  ASSERT_EQ(last.size(), 10u);
  EXPECT_EQ(last[9], 1000.0f);  // item 10: a[0] = 1000, b[0] = 0
}

TEST_F(Pool, AConsumerThatThrowsStopsTheRunAndThePoolRunsAgain) {
  DevicePool pool = DevicePool::open(testing::addModel(), options());
  std::vector<std::vector<Tensor>> items;
  for (int n = 0; n < 30; ++n) items.push_back(item(n));
  std::size_t seen = 0;
  EXPECT_THROW(pool.run(
                   items.size(), [&](std::size_t i, std::vector<Tensor>& in) { in = items[i]; },
                   [&](std::size_t index, PoolResult) {
                     seen = index + 1;
                     if (index == 2) throw std::runtime_error("stop here");
                   }),
               std::runtime_error);
  EXPECT_EQ(seen, 3u);
  const std::vector<PoolResult> again = pool.runMany({item(7)});
  ASSERT_TRUE(again[0].ok) << again[0].error;
  EXPECT_EQ(again[0].outputs[0].dataAs<float>()[0], 700.0f);
}

TEST_F(Pool, ARunWhoseDeviceIsLostRunsAgainElsewhereAndTheDeviceIsRetired) {
  DevicePool pool = DevicePool::open(testing::addModel(), options(1));
  const int device = pool.deviceIndices()[1];
  std::once_flag lostOnce;
  std::size_t lostItem = 0;
  RunHook hook([&](std::size_t member, std::size_t index) {
    // Member 1's device is lost on its first run from item 3 on (7 and 9 aside); item 9's run
    // fails on any member in a way a device survives, item 7 has a bad input: neither is retried.
    if (member == 1 && index >= 3 && index != 7 && index != 9) {
      std::call_once(lostOnce, [&] { lostItem = index; });
      throw Exception(ErrorCode::Runtime, vulkanFailure(VK_ERROR_DEVICE_LOST));
    }
    if (index == 9) throw Exception(ErrorCode::Runtime, vulkanFailure(VK_ERROR_OUT_OF_DEVICE_MEMORY));
  });
  std::vector<std::vector<Tensor>> items;
  for (int n = 0; n < 24; ++n) items.push_back(item(n));
  items[7][1] = Tensor(DataType::Float32, {1, 4, 4, 3});  // a bad input: the wrong shape
  const std::vector<PoolResult> results = pool.runMany(items);

  const auto calls = hook.calls();
  std::map<std::size_t, int> runsOf;
  bool member1Lost = false;
  for (const auto& [member, index] : calls) {
    ++runsOf[index];
    EXPECT_FALSE(member1Lost && member == 1) << "item " << index << " went to the retired member";
    if (member == 1 && index == lostItem) member1Lost = true;
  }
  ASSERT_TRUE(member1Lost) << "member 1 never ran an item from 3 on";
  for (std::size_t n = 0; n < items.size(); ++n) {
    if (n == 7 || n == 9) {
      EXPECT_FALSE(results[n].ok);
      EXPECT_EQ(results[n].code, n == 7 ? ErrorCode::InvalidInput : ErrorCode::Runtime);
      EXPECT_THAT(results[n].error, HasSubstr(n == 7 ? "shape" : "VK_ERROR_OUT_OF_DEVICE_MEMORY"));
      EXPECT_EQ(runsOf[n], 1) << "item " << n << " is not retried";
      continue;
    }
    ASSERT_TRUE(results[n].ok) << "item " << n << ": " << results[n].error;
    EXPECT_EQ(results[n].outputs[0].dataAs<float>()[63], testing::addResult(items[n][0], items[n][1], 63));
    EXPECT_EQ(runsOf[n], n == lostItem ? 2 : 1) << "item " << n;
    EXPECT_EQ(results[n].lostDevices, n == lostItem ? std::vector<int>{device} : std::vector<int>{}) << "item " << n;
  }

  // The member stays retired for the next call; the others run everything.
  const std::size_t before = hook.calls().size();
  const std::vector<PoolResult> again = pool.runMany({item(30), item(31), item(32), item(33)});
  for (const PoolResult& result : again) ASSERT_TRUE(result.ok) << result.error;
  const auto later = hook.calls();
  for (std::size_t c = before; c < later.size(); ++c) EXPECT_NE(later[c].first, 1u);
}

TEST_F(Pool, WhenEveryDeviceIsLostTheItemsFailWithTheLostError) {
  DevicePool pool = DevicePool::open(testing::addModel(), options(1));
  RunHook hook([](std::size_t, std::size_t) { throw Exception(ErrorCode::Runtime, vulkanFailure(VK_ERROR_DEVICE_LOST)); });
  std::vector<std::vector<Tensor>> items;
  for (int n = 0; n < 10; ++n) items.push_back(item(n));
  const std::vector<PoolResult> results = pool.runMany(items);
  // Each member ran one item and lost its device; no item ran more than three times.
  std::map<std::size_t, int> members;
  for (const auto& [member, index] : hook.calls()) ++members[member];
  EXPECT_EQ(hook.calls().size(), 3u);
  EXPECT_EQ(members.size(), 3u);
  for (const PoolResult& result : results) {
    EXPECT_FALSE(result.ok);
    EXPECT_EQ(result.code, ErrorCode::Runtime);
    EXPECT_THAT(result.error, HasSubstr("VK_ERROR_DEVICE_LOST"));
  }
  // A later call runs nothing: every item fails at once, naming the lost devices' error.
  const std::vector<PoolResult> again = pool.runMany({item(1)});
  EXPECT_FALSE(again[0].ok);
  EXPECT_THAT(again[0].error, HasSubstr("not run: every device of the pool was lost (the last: "));
  EXPECT_EQ(hook.calls().size(), 3u);
}

TEST_F(Pool, OpenRefusesADeviceInTheModelOptionsAndBadCounts) {
  PoolOptions named = options();
  named.model.device = "0";
  testing::expectError([&] { DevicePool::open(testing::addModel(), named); }, ErrorCode::InvalidInput,
                       "PoolOptions::model.device: expected \"\"");
  PoolOptions none = options();
  none.inFlight = 0;
  testing::expectError([&] { DevicePool::open(testing::addModel(), none); }, ErrorCode::InvalidInput,
                       "runs in flight per device: expected 1 to 8, got 0");
  PoolOptions missing = options();
  missing.devices = "99";
  testing::expectError([&] { DevicePool::open(testing::addModel(), missing); }, ErrorCode::InvalidInput,
                       "device 99: expected an index below");
}

TEST_F(Pool, CApiRunsItemsAndReportsEachItemsStatus) {
  const PoolOptions o = options();
  openvgf_model_options modelOptions;
  openvgf_model_options_init(&modelOptions);
  const std::string cache = (dir_ / "cache").string();
  modelOptions.cache_dir = cache.c_str();
  openvgf_pool_options poolOptions;
  openvgf_pool_options_init(&poolOptions);
  poolOptions.devices = o.devices.c_str();
  openvgf_pool* pool = nullptr;
  testing::StatusGuard opened{openvgf_pool_open(testing::addModel().c_str(), &modelOptions, &poolOptions, &pool)};
  ASSERT_EQ(opened.status, nullptr) << openvgf_status_message(opened.status);
  EXPECT_EQ(openvgf_pool_device_count(pool), 3u);
  EXPECT_EQ(openvgf_model_input_count(openvgf_pool_model(pool, 2)), 2u);
  EXPECT_EQ(openvgf_pool_model(pool, 3), nullptr);

  const std::int64_t shape0[] = {1, 4, 4, 1};
  const std::int64_t shape1[] = {1, 4, 4, 4};
  std::vector<std::vector<Tensor>> items{item(1), item(2), item(3)};
  std::vector<openvgf_tensor> inputs;
  for (std::vector<Tensor>& in : items) {
    inputs.push_back({OPENVGF_FLOAT32, 4, shape0, in[0].data(), in[0].byteSize()});
    inputs.push_back({OPENVGF_FLOAT32, 4, shape1, in[1].data(), in[1].byteSize()});
  }
  inputs[3].byte_size = 4;  // item 1's second input: too few bytes
  std::vector<std::vector<float>> out(3, std::vector<float>(64, -1.0f));
  std::vector<openvgf_tensor> outputs;
  for (std::vector<float>& o3 : out) outputs.push_back({OPENVGF_FLOAT32, 4, shape1, o3.data(), 64 * sizeof(float)});
  openvgf_status* statuses[3];
  testing::StatusGuard ran{openvgf_pool_run_many(pool, inputs.data(), 2, outputs.data(), 1, 3, statuses)};
  ASSERT_EQ(ran.status, nullptr) << openvgf_status_message(ran.status);
  EXPECT_EQ(statuses[0], nullptr);
  EXPECT_EQ(statuses[2], nullptr);
  ASSERT_NE(statuses[1], nullptr);
  EXPECT_EQ(openvgf_status_code(statuses[1]), OPENVGF_INVALID_INPUT);
  EXPECT_THAT(openvgf_status_message(statuses[1]), HasSubstr("inputs[1]"));
  openvgf_status_free(statuses[1]);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(out[0][static_cast<std::size_t>(i)], testing::addResult(items[0][0], items[0][1], i));
    EXPECT_EQ(out[2][static_cast<std::size_t>(i)], testing::addResult(items[2][0], items[2][1], i));
  }
  EXPECT_EQ(out[1][0], -1.0f);  // a failed item's outputs are not written

  testing::StatusGuard counts{openvgf_pool_run_many(pool, inputs.data(), 3, outputs.data(), 1, 1, statuses)};
  EXPECT_EQ(openvgf_status_code(counts.status), OPENVGF_INVALID_INPUT);
  EXPECT_EQ(statuses[0], nullptr);
  openvgf_pool_release(pool);
}

}  // namespace
}  // namespace openvgf
