// SPDX-License-Identifier: Apache-2.0
// The C API (openvgf/openvgf.h): a model opened from the ADD fixture runs into caller
// buffers and matches TensorFlow's result; bad arguments come back as statuses with the
// code, exit code and a message naming the argument, never as a crash.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openvgf/openvgf.h"
#include "tests/api/api_test_util.h"
#include "tests/pte/vgf_program.h"
#include "tosa/reference/reference.h"

namespace openvgf {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

using testing::StatusGuard;

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::freshTestDir("c-api");
    cache_ = (dir_ / "cache").string();
    ModelOptions defaults = testing::modelOptions(dir_ / "cache");
    device_ = defaults.device;
    openvgf_model_options_init(&options_);
    options_.device = device_.c_str();
    options_.cache_dir = cache_.c_str();
    options_.validate = 1;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string cache_;
  std::string device_;
  openvgf_model_options options_{};
};

TEST_F(CApiTest, RunsIntoCallerBuffers) {
  openvgf_model* model = nullptr;
  StatusGuard opened{openvgf_model_open(testing::addModel().c_str(), &options_, &model)};
  ASSERT_EQ(opened.status, nullptr) << openvgf_status_message(opened.status);
  ASSERT_EQ(openvgf_model_input_count(model), 2u);
  ASSERT_EQ(openvgf_model_output_count(model), 1u);
  openvgf_tensor_info info{};
  ASSERT_EQ(openvgf_model_output(model, 0, &info), nullptr);
  EXPECT_EQ(info.dtype, OPENVGF_FLOAT32);
  ASSERT_EQ(info.rank, 4u);
  EXPECT_EQ(info.shape[3], 4);
  EXPECT_EQ(info.byte_size, 256u);
  EXPECT_STREQ(openvgf_dtype_name(info.dtype), "FP32");
  EXPECT_EQ(openvgf_dtype_size(OPENVGF_INT48), 8u);
  EXPECT_NE(std::string(openvgf_model_device_name(model)), "");
  StatusGuard outOfRange{openvgf_model_input(model, 2, &info)};
  EXPECT_THAT(openvgf_status_message(outOfRange.status), HasSubstr("openvgf_model_input: index: expected < 2, got 2"));

  openvgf_session_options sessionOptions;
  openvgf_session_options_init(&sessionOptions);
  sessionOptions.profile = 1;
  openvgf_session* session = nullptr;
  StatusGuard created{openvgf_session_create(model, &sessionOptions, &session)};
  ASSERT_EQ(created.status, nullptr) << openvgf_status_message(created.status);
  openvgf_model_release(model);  // the session keeps the device alive

  std::vector<Tensor> inputs = testing::addInputs();
  const std::int64_t shape0[] = {1, 4, 4, 1};
  const std::int64_t shape[] = {1, 4, 4, 4};
  openvgf_tensor in[2] = {{OPENVGF_FLOAT32, 4, shape0, inputs[0].data(), 64}, {OPENVGF_FLOAT32, 4, shape, inputs[1].data(), 256}};
  std::vector<float> y(64, -1.0f);
  openvgf_tensor out{OPENVGF_FLOAT32, 4, shape, y.data(), 256};
  StatusGuard ran{openvgf_session_run(session, in, 2, &out, 1)};
  ASSERT_EQ(ran.status, nullptr) << openvgf_status_message(ran.status);
  const std::vector<float> expected = testing::readFloats(testing::addDir() / "tf_result.npy");
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(y[i], expected[i]) << i;
  double host = 0, gpu = 0;
  openvgf_session_last_timing(session, &host, &gpu);
  EXPECT_GT(host, 0.0);
  EXPECT_GT(gpu, 0.0);

  // Wrong shape, wrong output size, wrong count: statuses, and the session still runs.
  const std::int64_t small[] = {1, 4, 4};
  openvgf_tensor bad[2] = {{OPENVGF_FLOAT32, 3, small, inputs[0].data(), 16 * 4}, in[1]};  // [1,4,4] is 16 elements
  StatusGuard badShape{openvgf_session_run(session, bad, 2, &out, 1)};
  EXPECT_EQ(openvgf_status_code(badShape.status), OPENVGF_INVALID_INPUT);
  EXPECT_EQ(openvgf_status_exit_code(badShape.status), 2);
  EXPECT_THAT(openvgf_status_message(badShape.status), HasSubstr("expected shape [1,4,4,1], got [1,4,4]"));
  openvgf_tensor shortOut = out;
  shortOut.byte_size = 128;
  StatusGuard badOut{openvgf_session_run(session, in, 2, &shortOut, 1)};
  EXPECT_THAT(openvgf_status_message(badOut.status), HasSubstr("outputs[0]"));
  StatusGuard badCount{openvgf_session_run(session, in, 1, &out, 1)};
  EXPECT_THAT(openvgf_status_message(badCount.status), HasSubstr("expected 2 inputs"));
  StatusGuard again{openvgf_session_run(session, in, 2, &out, 1)};
  EXPECT_EQ(again.status, nullptr);
  openvgf_session_release(session);
}

TEST_F(CApiTest, BadArgumentsAreStatuses) {
  openvgf_model* model = nullptr;
  StatusGuard nullPath{openvgf_model_open(nullptr, &options_, &model)};
  EXPECT_EQ(openvgf_status_code(nullPath.status), OPENVGF_INVALID_INPUT);
  EXPECT_THAT(openvgf_status_message(nullPath.status), HasSubstr("openvgf_model_open: path"));
  const std::string missing = (dir_ / "missing.vgf").string();
  StatusGuard notThere{openvgf_model_open(missing.c_str(), &options_, &model)};
  EXPECT_EQ(openvgf_status_code(notThere.status), OPENVGF_INVALID_INPUT);
  EXPECT_THAT(openvgf_status_message(notThere.status), HasSubstr(missing));
  EXPECT_EQ(model, nullptr);
  openvgf_model_options unset{};
  StatusGuard noInit{openvgf_model_open(testing::addModel().c_str(), &unset, &model)};
  EXPECT_THAT(openvgf_status_message(noInit.status), HasSubstr("openvgf_model_options_init"));
  openvgf_model_options wrongTarget = options_;
  wrongTarget.target = "fastest";
  StatusGuard target{openvgf_model_open(testing::addModel().c_str(), &wrongTarget, &model)};
  EXPECT_THAT(openvgf_status_message(target.status), HasSubstr("expected portable or native"));
  const std::string out = (dir_ / "never.vgf").string();
  StatusGuard convertBad{openvgf_convert(missing.c_str(), out.c_str(), nullptr)};
  EXPECT_EQ(openvgf_status_exit_code(convertBad.status), 2);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(openvgf_status_code(nullptr), OPENVGF_OK);
  EXPECT_STREQ(openvgf_status_message(nullptr), "");
  EXPECT_EQ(openvgf_dtype_name(static_cast<openvgf_dtype>(42)), nullptr);
  EXPECT_STREQ(openvgf_version(), version());
}

// A page of readable memory followed by a hole: the last `n` T of the page are followed by
// memory whose read faults.
class GuardedPage {
 public:
  GuardedPage() {
    page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* mapped = mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(mapped, MAP_FAILED);
    base_ = static_cast<std::uint8_t*>(mapped);
    EXPECT_EQ(munmap(base_ + page_, page_), 0);
  }
  ~GuardedPage() { munmap(base_, page_); }
  template <typename T>
  T* last(std::size_t n) {
    return reinterpret_cast<T*>(base_ + page_) - n;
  }

 private:
  std::size_t page_ = 0;
  std::uint8_t* base_ = nullptr;
};

// input_count is checked against the model before the caller's arrays are read (issue 33):
// a count above the model's inputs reads nothing past the two tensors given.
TEST_F(CApiTest, InputCountIsCheckedBeforeTheArraysAreRead) {
  openvgf_model* model = nullptr;
  StatusGuard opened{openvgf_model_open(testing::addModel().c_str(), &options_, &model)};
  ASSERT_EQ(opened.status, nullptr) << openvgf_status_message(opened.status);
  openvgf_session* session = nullptr;
  StatusGuard created{openvgf_session_create(model, nullptr, &session)};
  ASSERT_EQ(created.status, nullptr) << openvgf_status_message(created.status);
  std::vector<Tensor> inputs = testing::addInputs();
  const std::int64_t shape0[] = {1, 4, 4, 1};
  const std::int64_t shape[] = {1, 4, 4, 4};
  GuardedPage tensorPage;
  openvgf_tensor* in = tensorPage.last<openvgf_tensor>(2);
  in[0] = {OPENVGF_FLOAT32, 4, shape0, inputs[0].data(), 64};
  in[1] = {OPENVGF_FLOAT32, 4, shape, inputs[1].data(), 256};
  std::vector<float> y(64, -1.0f);
  openvgf_tensor out{OPENVGF_FLOAT32, 4, shape, y.data(), 256};
  StatusGuard tooMany{openvgf_session_run(session, in, 1000, &out, 1)};
  EXPECT_EQ(openvgf_status_code(tooMany.status), OPENVGF_INVALID_INPUT);
  EXPECT_THAT(openvgf_status_message(tooMany.status),
              HasSubstr("openvgf_session_run: input_count: expected at most 2 (the model's inputs), got 1000"));
  openvgf_run* run = nullptr;
  StatusGuard asyncTooMany{openvgf_session_run_async(session, in, 3, &out, 1, nullptr, &run)};
  EXPECT_THAT(openvgf_status_message(asyncTooMany.status),
              HasSubstr("openvgf_session_run_async: input_count: expected at most 2 (the model's inputs), got 3"));
  EXPECT_EQ(run, nullptr);
  // device_inputs has input_count entries too.
  GuardedPage devicePage;
  const openvgf_device_tensor** deviceInputs = devicePage.last<const openvgf_device_tensor*>(2);
  deviceInputs[0] = deviceInputs[1] = nullptr;
  openvgf_run_options options;
  openvgf_run_options_init(&options);
  options.device_inputs = deviceInputs;
  StatusGuard deviceTooMany{openvgf_session_run_async(session, in, 5, &out, 1, &options, &run)};
  EXPECT_THAT(openvgf_status_message(deviceTooMany.status), HasSubstr("input_count: expected at most 2"));
  // The exact count still runs, from the same arrays.
  StatusGuard ran{openvgf_session_run_async(session, in, 2, &out, 1, &options, &run)};
  ASSERT_EQ(ran.status, nullptr) << openvgf_status_message(ran.status);
  StatusGuard waited{openvgf_run_wait(run)};
  ASSERT_EQ(waited.status, nullptr) << openvgf_status_message(waited.status);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(y[i], testing::addResult(inputs[0], inputs[1], i)) << i;
  openvgf_run_release(run);
  openvgf_session_release(session);
  openvgf_model_release(model);
}

// openvgf_pinned_import refuses what it can check of the pointer (issue 33), INVALID_INPUT
// naming it, before the device sees it: size 0, sizes above INT64_MAX, ranges past the end of
// the address space, unmapped pages.
TEST_F(CApiTest, PinnedImportRefusesPointersItCanCheck) {
  openvgf_model* model = nullptr;
  StatusGuard opened{openvgf_model_open(testing::addModel().c_str(), &options_, &model)};
  ASSERT_EQ(opened.status, nullptr) << openvgf_status_message(opened.status);
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* mapped = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  auto* memory = static_cast<std::uint8_t*>(mapped);
  ASSERT_EQ(munmap(memory + page, page), 0);  // the second page is a hole
  auto refused = [&](void* data, size_t bytes, const std::string& text) {
    openvgf_pinned* pinned = nullptr;
    StatusGuard status{openvgf_pinned_import(model, data, bytes, &pinned)};
    EXPECT_EQ(openvgf_status_code(status.status), OPENVGF_INVALID_INPUT) << openvgf_status_message(status.status);
    EXPECT_THAT(openvgf_status_message(status.status), HasSubstr(text));
    EXPECT_EQ(pinned, nullptr);
    if (pinned != nullptr) openvgf_pinned_release(pinned);
  };
  refused(nullptr, page, "openvgf_pinned_import: data: expected a pointer, got NULL");
  refused(memory, 0, "expected a size above 0 bytes, got 0");
  refused(memory, SIZE_MAX, "byte_size: expected at most INT64_MAX");
  refused(memory, 2 * page, "expected memory mapped in this process");
  refused(memory + page, page, "expected memory mapped in this process");
  auto* top = reinterpret_cast<void*>(std::numeric_limits<std::uintptr_t>::max() - page + 1);
  refused(top, 2 * page, "run past the end of the address space");
  munmap(memory, page);
  openvgf_model_release(model);
}

// A .pte with two GRAPH-segment VgfBackend delegates through the C API: the plan's input and
// output, against the reference interpreter on the whole model as one TOSA graph.
TEST_F(CApiTest, RunsAProgramOfGraphDelegates) {
  const fs::path pte = dir_ / "two.pte";
  testing::writeBytes(pte, pte::testing::writeProgram(pte::testing::vgfProgram("aten::view_copy", "out", false)).bytes);
  openvgf_model* model = nullptr;
  StatusGuard opened{openvgf_model_open(pte.c_str(), &options_, &model)};
  ASSERT_EQ(opened.status, nullptr) << openvgf_status_message(opened.status);
  openvgf_session* session = nullptr;
  StatusGuard created{openvgf_session_create(model, nullptr, &session)};
  ASSERT_EQ(created.status, nullptr) << openvgf_status_message(created.status);
  openvgf_model_release(model);
  tosa::HostTensor x(tosa::DType::Fp32, {1, 4, 4, 2});
  const std::vector<float> values = pte::testing::ramp(32, -0.5f, 0.25f);
  std::memcpy(x.bytes.data(), values.data(), x.bytes.size());
  tosa::HostTensor y(tosa::DType::Fp32, {1, 64});
  openvgf_tensor in{OPENVGF_FLOAT32, 4, x.shape.data(), x.bytes.data(), x.bytes.size()};
  openvgf_tensor out{OPENVGF_FLOAT32, 2, y.shape.data(), y.bytes.data(), y.bytes.size()};
  StatusGuard ran{openvgf_session_run(session, &in, 1, &out, 1)};
  ASSERT_EQ(ran.status, nullptr) << openvgf_status_message(ran.status);
  openvgf_session_release(session);
  tosa::reference::RunOptions precise;
  precise.precise = true;
  auto expected = tosa::reference::run(pte::testing::composedModel(), std::vector<tosa::HostTensor>{x}, precise);
  ASSERT_TRUE(expected) << expected.error().message();
  auto verdicts = tosa::reference::checkOutputs(*expected, std::vector<tosa::HostTensor>{y});
  ASSERT_TRUE(verdicts) << verdicts.error().message();
  for (const auto& v : *verdicts) EXPECT_TRUE(v.pass) << v.message;
}

}  // namespace
}  // namespace openvgf
