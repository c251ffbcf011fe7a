// SPDX-License-Identifier: Apache-2.0
// Host I/O through the C API (openvgf/openvgf.h) on lavapipe with validation on: runs in
// flight waited for in reverse order, pinned memory (allocated, and an unaligned import refused
// with its documented status), a device-resident output feeding a session of a model that
// shares the device; results against sums computed here; misuse is a status, never a crash.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openvgf/openvgf.h"
#include "tests/api/api_test_util.h"

namespace openvgf {
namespace {

using ::testing::HasSubstr;
using testing::StatusGuard;
namespace fs = std::filesystem;

constexpr std::int64_t kShape0[] = {1, 4, 4, 1};
constexpr std::int64_t kShape[] = {1, 4, 4, 4};

class CHostIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::freshTestDir("c-host-io");
    cache_ = (dir_ / "cache").string();
    device_ = testing::modelOptions(dir_ / "cache").device;
    openvgf_model_options_init(&options_);
    options_.device = device_.c_str();
    options_.cache_dir = cache_.c_str();
    options_.validate = 1;
  }
  void TearDown() override { fs::remove_all(dir_); }

  openvgf_model* openAdd(const openvgf_model* shareDeviceOf = nullptr) {
    openvgf_model* model = nullptr;
    StatusGuard opened{shareDeviceOf ? openvgf_model_open_shared(testing::addModel().c_str(), &options_,
                                                                 shareDeviceOf, &model)
                                     : openvgf_model_open(testing::addModel().c_str(), &options_, &model)};
    EXPECT_EQ(opened.status, nullptr) << openvgf_status_message(opened.status);
    return model;
  }

  static openvgf_session* createSession(const openvgf_model* model, unsigned inFlight) {
    openvgf_session_options options;
    openvgf_session_options_init(&options);
    options.in_flight = inFlight;
    openvgf_session* session = nullptr;
    StatusGuard created{openvgf_session_create(model, &options, &session)};
    EXPECT_EQ(created.status, nullptr) << openvgf_status_message(created.status);
    return session;
  }

  // The ADD fixture's inputs with `k` added to every element.
  static std::vector<std::vector<float>> shifted(float k) {
    std::vector<std::vector<float>> values;
    for (const Tensor& t : testing::addInputs()) {
      values.emplace_back(t.dataAs<float>(), t.dataAs<float>() + t.elementCount());
      for (float& v : values.back()) v += k;
    }
    return values;
  }

  fs::path dir_;
  std::string cache_;
  std::string device_;
  openvgf_model_options options_{};
};

TEST_F(CHostIoTest, RunsInFlightFromPinnedMemoryWaitedForInReverseOrder) {
  openvgf_model* model = openAdd();
  ASSERT_NE(model, nullptr);
  openvgf_session* session = createSession(model, 2);
  ASSERT_NE(session, nullptr);
  openvgf_pinned* pinned = nullptr;
  StatusGuard allocated{openvgf_pinned_allocate(model, 2 * 256, &pinned)};
  ASSERT_EQ(allocated.status, nullptr) << openvgf_status_message(allocated.status);
  ASSERT_EQ(openvgf_pinned_size(pinned), 512u);
  auto* memory = static_cast<float*>(openvgf_pinned_data(pinned));

  std::vector<std::vector<float>> values[2] = {shifted(0), shifted(5)};
  std::vector<float> y[2] = {std::vector<float>(64, -1), std::vector<float>(64, -1)};
  openvgf_run* runs[2] = {nullptr, nullptr};
  for (int k = 0; k < 2; ++k) {
    std::memcpy(memory + 64 * k, values[k][1].data(), 256);  // input 1 of run k in pinned memory
    openvgf_tensor in[2] = {{OPENVGF_FLOAT32, 4, kShape0, values[k][0].data(), 64},
                            {OPENVGF_FLOAT32, 4, kShape, memory + 64 * k, 256}};
    openvgf_tensor out{OPENVGF_FLOAT32, 4, kShape, y[k].data(), 256};
    StatusGuard started{openvgf_session_run_async(session, in, 2, &out, 1, nullptr, &runs[k])};
    ASSERT_EQ(started.status, nullptr) << openvgf_status_message(started.status);
  }
  // A third run with two in flight finishes the oldest first; its handle keeps its status.
  openvgf_run* third = nullptr;
  const std::vector<std::vector<float>> thirdValues = shifted(-2);
  openvgf_tensor in[2] = {{OPENVGF_FLOAT32, 4, kShape0, const_cast<float*>(thirdValues[0].data()), 64},
                          {OPENVGF_FLOAT32, 4, kShape, const_cast<float*>(thirdValues[1].data()), 256}};
  std::vector<float> thirdY(64, -1);
  openvgf_tensor out{OPENVGF_FLOAT32, 4, kShape, thirdY.data(), 256};
  StatusGuard full{openvgf_session_run_async(session, in, 2, &out, 1, nullptr, &third)};
  ASSERT_EQ(full.status, nullptr) << openvgf_status_message(full.status);
  StatusGuard thirdWaited{openvgf_run_wait(third)};
  ASSERT_EQ(thirdWaited.status, nullptr) << openvgf_status_message(thirdWaited.status);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(thirdY[i], thirdValues[0][i / 4] + thirdValues[1][i]) << i;
  openvgf_run_release(third);

  for (int k : {1, 0}) {
    StatusGuard waited{openvgf_run_wait(runs[k])};
    ASSERT_EQ(waited.status, nullptr) << openvgf_status_message(waited.status);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(y[k][i], values[k][0][i / 4] + values[k][1][i]) << k << " " << i;
  }
  StatusGuard twice{openvgf_run_wait(runs[0])};
  EXPECT_THAT(openvgf_status_message(twice.status), HasSubstr("already waited for"));
  for (openvgf_run* run : runs) openvgf_run_release(run);
  openvgf_pinned_release(pinned);
  openvgf_session_release(session);
  openvgf_model_release(model);
}

TEST_F(CHostIoTest, UnalignedImportIsUnsupportedWithTheAlignment) {
  openvgf_model* model = openAdd();
  ASSERT_NE(model, nullptr);
  const size_t alignment = openvgf_model_import_alignment(model);
  std::unique_ptr<std::uint8_t, decltype(&std::free)> memory(
      static_cast<std::uint8_t*>(std::aligned_alloc(4096, 8192)), &std::free);
  openvgf_pinned* pinned = nullptr;
  StatusGuard unaligned{openvgf_pinned_import(model, memory.get() + 4, 256, &pinned)};
  EXPECT_EQ(openvgf_status_code(unaligned.status), OPENVGF_UNSUPPORTED);
  EXPECT_EQ(pinned, nullptr);
  if (alignment != 0) {
    EXPECT_THAT(openvgf_status_message(unaligned.status),
                HasSubstr("minImportedHostPointerAlignment = " + std::to_string(alignment)));
    if (4096 % alignment == 0) {
      StatusGuard aligned{openvgf_pinned_import(model, memory.get(), 4096, &pinned)};
      EXPECT_EQ(aligned.status, nullptr) << openvgf_status_message(aligned.status);
      EXPECT_EQ(openvgf_pinned_data(pinned), memory.get());
      openvgf_pinned_release(pinned);
    }
  }
  openvgf_model_release(model);
}

TEST_F(CHostIoTest, DeviceOutputFeedsASessionOfAModelOnTheSameDevice) {
  openvgf_model* first = openAdd();
  ASSERT_NE(first, nullptr);
  openvgf_model* second = openAdd(first);
  openvgf_model* apart = openAdd();
  ASSERT_NE(second, nullptr);
  openvgf_session* a = createSession(first, 1);
  openvgf_session* b = createSession(second, 1);
  openvgf_session* c = createSession(apart, 1);
  std::vector<std::vector<float>> values = shifted(1.25f);
  openvgf_tensor in[2] = {{OPENVGF_FLOAT32, 4, kShape0, values[0].data(), 64},
                          {OPENVGF_FLOAT32, 4, kShape, values[1].data(), 256}};

  openvgf_run_options keep;
  openvgf_run_options_init(&keep);
  keep.keep_on_device = 1;
  openvgf_run* run = nullptr;
  StatusGuard started{openvgf_session_run_async(a, in, 2, nullptr, 0, &keep, &run)};
  ASSERT_EQ(started.status, nullptr) << openvgf_status_message(started.status);
  StatusGuard waited{openvgf_run_wait(run)};
  ASSERT_EQ(waited.status, nullptr) << openvgf_status_message(waited.status);
  openvgf_device_tensor* sum = nullptr;
  StatusGuard taken{openvgf_run_device_output(run, 0, &sum)};
  ASSERT_EQ(taken.status, nullptr) << openvgf_status_message(taken.status);
  openvgf_run_release(run);
  openvgf_tensor_info info{};
  ASSERT_EQ(openvgf_device_tensor_info(sum, &info), nullptr);
  EXPECT_EQ(info.rank, 4u);
  EXPECT_EQ(info.byte_size, 256u);

  // B adds input 0 once more to A's sum, read on the device.
  const openvgf_device_tensor* deviceInputs[2] = {nullptr, sum};
  openvgf_run_options feed;
  openvgf_run_options_init(&feed);
  feed.device_inputs = deviceInputs;
  std::vector<float> y(64, -1);
  openvgf_tensor out{OPENVGF_FLOAT32, 4, kShape, y.data(), 256};
  openvgf_run* chained = nullptr;
  StatusGuard fed{openvgf_session_run_async(b, in, 2, &out, 1, &feed, &chained)};
  ASSERT_EQ(fed.status, nullptr) << openvgf_status_message(fed.status);
  StatusGuard done{openvgf_run_wait(chained)};
  ASSERT_EQ(done.status, nullptr) << openvgf_status_message(done.status);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(y[i], values[0][i / 4] + (values[0][i / 4] + values[1][i])) << i;
  openvgf_run_release(chained);

  // A session of a model on its own device cannot read it.
  openvgf_run* mixed = nullptr;
  StatusGuard wrongDevice{openvgf_session_run_async(c, in, 2, &out, 1, &feed, &mixed)};
  EXPECT_EQ(openvgf_status_code(wrongDevice.status), OPENVGF_INVALID_INPUT);
  EXPECT_THAT(openvgf_status_message(wrongDevice.status), HasSubstr("expected an output of a session on the same device"));
  EXPECT_EQ(mixed, nullptr);
  // Outputs given with keep_on_device, a device output of a run that kept none: statuses.
  StatusGuard outputsToo{openvgf_session_run_async(a, in, 2, &out, 1, &keep, &mixed)};
  EXPECT_THAT(openvgf_status_message(outputsToo.status), HasSubstr("output_count: expected 0 with keep_on_device"));

  openvgf_device_tensor_release(sum);
  for (openvgf_session* s : {a, b, c}) openvgf_session_release(s);
  for (openvgf_model* m : {first, second, apart}) openvgf_model_release(m);
}

}  // namespace
}  // namespace openvgf
