// SPDX-License-Identifier: Apache-2.0
// End-to-end runner tests on lavapipe with the validation layer on (any validation message
// fails the test): elementwise ops on every storage type, a chain through aliased
// intermediates with a constant, several inputs/outputs, errors, repeatability, memory,
// profiling output. Expected values are computed independently in the test.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runner/context.h"
#include "runner/formats.h"
#include "runner/model.h"
#include "runner/profile.h"
#include "runner/session.h"
#include "shaders/affine_s3b1.h"
#include "shaders/binary_bool.h"
#include "shaders/binary_f16.h"
#include "shaders/binary_f32.h"
#include "shaders/binary_i16.h"
#include "shaders/binary_i32.h"
#include "shaders/binary_i64.h"
#include "shaders/binary_i8.h"
#include "shaders/chain_add.h"
#include "shaders/chain_minus1.h"
#include "shaders/chain_scale2.h"
#include "test_models.h"

namespace openvgf::runner {
namespace {

using ::testing::HasSubstr;
using tosa::DType;
using tosa::HostTensor;

// lavapipe unless OPENVGF_TEST_DEVICE names another device (to run the suite on a GPU).
ContextOptions testOptions() {
  ContextOptions options;
  options.validate = true;
  const char* device = std::getenv("OPENVGF_TEST_DEVICE");
  options.device = device != nullptr ? device : "llvmpipe";
  options.pipelineCache = false;
  return options;
}

struct Loaded {
  std::vector<std::uint8_t> bytes;  // the encoded .vgf
  vgf::File file;                   // decoded from bytes
  std::optional<Model> model;
  std::unique_ptr<Context> context;
};

// Builds a model with `build`, encodes and decodes it (as a file would be), validates it and
// creates a Context for it.
template <typename Build>
std::unique_ptr<Loaded> load(Build build, ContextOptions options = testOptions()) {
  auto loaded = std::make_unique<Loaded>();
  vgf::Builder builder;
  build(builder);
  Result<std::vector<std::uint8_t>> bytes = builder.finish();
  EXPECT_TRUE(bytes) << bytes.error().message();
  if (!bytes) return nullptr;
  loaded->bytes = std::move(*bytes);
  Result<vgf::File> file = vgf::decode(loaded->bytes);
  EXPECT_TRUE(file) << file.error().message();
  if (!file) return nullptr;
  loaded->file = std::move(*file);
  Result<Model> model = Model::create(loaded->file, "test.vgf");
  EXPECT_TRUE(model) << model.error().message();
  if (!model) return nullptr;
  loaded->model.emplace(std::move(*model));
  Result<std::unique_ptr<Context>> context = Context::create(options, *loaded->model);
  EXPECT_TRUE(context) << context.error().message();
  if (!context) return nullptr;
  loaded->context = std::move(*context);
  return loaded;
}

void expectNoValidationMessages(const Context& context) {
  EXPECT_EQ(context.instance().validationErrors(), 0u);
  EXPECT_EQ(context.instance().validationWarnings(), 0u);
}

template <typename T>
HostTensor tensorOf(DType dtype, tosa::Shape shape, const std::vector<T>& values) {
  HostTensor t(dtype, std::move(shape));
  EXPECT_EQ(t.bytes.size(), values.size() * sizeof(T));
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

// IEEE binary16 bits of a float that fp16 represents exactly (normal numbers and zero).
std::uint16_t halfBits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  std::uint32_t sign = (bits >> 16) & 0x8000u;
  if ((bits & 0x7FFFFFFFu) == 0) return static_cast<std::uint16_t>(sign);
  std::int32_t exponent = static_cast<std::int32_t>((bits >> 23) & 0xFF) - 127 + 15;
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exponent) << 10) | ((bits >> 13) & 0x3FFu));
}

template <typename T, typename Op>
void checkBinary(vgf::VkFormatValue format, DType dtype, std::span<const std::uint32_t> spirv,
                 std::vector<T> a, std::vector<T> b, Op op) {
  SCOPED_TRACE(std::string(tosa::toString(dtype)));
  auto loaded = load([&](vgf::Builder& fb) { openvgf::testing::buildBinary(fb, format, spirv); });
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->model->inputs()[0].dtype, dtype);
  Result<Session> session = Session::create(*loaded->context, *loaded->model);
  ASSERT_TRUE(session) << session.error().message();
  HostTensor inputs[] = {tensorOf(dtype, {37}, a), tensorOf(dtype, {37}, b)};
  Result<std::vector<HostTensor>> outputs = session->run(inputs);
  ASSERT_TRUE(outputs) << outputs.error().message();
  ASSERT_EQ(outputs->size(), 1u);
  const HostTensor& c = (*outputs)[0];
  EXPECT_EQ(c.dtype, dtype);
  EXPECT_EQ(c.shape, tosa::Shape{37});
  std::span<const T> got = c.as<T>();
  ASSERT_EQ(got.size(), 37u);
  for (std::size_t i = 0; i < 37; ++i) EXPECT_EQ(got[i], op(a[i], b[i])) << "element " << i;
  expectNoValidationMessages(*loaded->context);
}

template <typename T>
std::vector<T> ramp(int start, int step) {
  std::vector<T> v(37);
  for (int i = 0; i < 37; ++i) v[i] = static_cast<T>(static_cast<std::int64_t>(start) + std::int64_t{step} * i);
  return v;
}

TEST(Session, ElementwiseOnEveryStorageType) {
  using V = vgf::VkFormatValue;
  // Integer adds wrap in the element type (two's complement), as TOSA ADD does for INT32.
  checkBinary<std::int8_t>(V::R8Sint, DType::Int8, k_binary_i8, ramp<std::int8_t>(-100, 7), ramp<std::int8_t>(90, 3),
                           [](std::int8_t x, std::int8_t y) { return static_cast<std::int8_t>(x + y); });
  checkBinary<std::int16_t>(V::R16Sint, DType::Int16, k_binary_i16, ramp<std::int16_t>(-32000, 1700),
                            ramp<std::int16_t>(500, 3),
                            [](std::int16_t x, std::int16_t y) { return static_cast<std::int16_t>(x + y); });
  checkBinary<std::int32_t>(V::R32Sint, DType::Int32, k_binary_i32, ramp<std::int32_t>(-2000000000, 110000000),
                            ramp<std::int32_t>(7, -13), [](std::int32_t x, std::int32_t y) {
                              return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) + static_cast<std::uint32_t>(y));
                            });
  std::vector<std::int64_t> big = ramp<std::int64_t>(-5, 3);
  for (std::int64_t& v : big) v *= 1000000000000LL;  // beyond 32 bits, within INT48
  checkBinary<std::int64_t>(V::R64Sint, DType::Int48, k_binary_i64, big, ramp<std::int64_t>(1, 1),
                            [](std::int64_t x, std::int64_t y) { return x + y; });
  std::vector<std::uint16_t> ha(37), hb(37);
  for (int i = 0; i < 37; ++i) {
    ha[i] = halfBits(static_cast<float>(i - 18));
    hb[i] = halfBits(static_cast<float>(2 * i) + 0.5f);
  }
  std::vector<std::uint16_t> hsum(37);
  for (int i = 0; i < 37; ++i) hsum[i] = halfBits(static_cast<float>(i - 18) + static_cast<float>(2 * i) + 0.5f);
  std::size_t index = 0;
  checkBinary<std::uint16_t>(V::R16Sfloat, DType::Fp16, k_binary_f16, ha, hb,
                             [&](std::uint16_t, std::uint16_t) { return hsum[index++ % 37]; });
  checkBinary<float>(V::R32Sfloat, DType::Fp32, k_binary_f32, ramp<float>(-18, 1), ramp<float>(3, 5),
                     [](float x, float y) { return x + y; });
  std::vector<std::uint8_t> ba(37), bb(37);
  for (int i = 0; i < 37; ++i) {
    ba[i] = i % 2;
    bb[i] = (i / 2) % 2;
  }
  checkBinary<std::uint8_t>(V::R8BoolArm, DType::Bool, k_binary_bool, ba, bb,
                            [](std::uint8_t x, std::uint8_t y) { return static_cast<std::uint8_t>(x != y); });
}

std::vector<float> chainInput(float offset) {
  std::vector<float> x(openvgf::testing::kChainN);
  for (int i = 0; i < openvgf::testing::kChainN; ++i) x[i] = static_cast<float>((i * 7) % 23) - 11.0f + offset;
  return x;
}

void expectChainResult(const std::vector<float>& x, const HostTensor& y) {
  std::span<const float> got = y.as<float>();
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], 3.0f * x[i] + 2.0f * static_cast<float>(i) - 1.0f) << "element " << i;
  }
}

void buildChainModel(vgf::Builder& b) { openvgf::testing::buildChain(b, k_chain_add, k_chain_scale2, k_chain_minus1); }

TEST(Session, ChainThroughAliasedIntermediatesWithConstantInBothIoModes) {
  auto loaded = load(buildChainModel);
  ASSERT_TRUE(loaded);
  bool unified = vulkan::hasUnifiedMemory(loaded->context->device());
  for (IoMode mode : {IoMode::Direct, IoMode::Copy, IoMode::Auto}) {
    SCOPED_TRACE(static_cast<int>(mode));
    if (mode == IoMode::Direct && !unified) continue;  // discrete GPUs
    Result<Session> session = Session::create(*loaded->context, *loaded->model, {.io = mode});
    ASSERT_TRUE(session) << session.error().message();
    EXPECT_EQ(session->directIo(), mode == IoMode::Direct || (mode == IoMode::Auto && unified));
    // Barriers of the recorded compute buffer: one against the previous run at the start, seg1
    // RAW on t1, seg2 RAW on t2 + WAR on t1/t3's memory (one barrier), seg3 RAW on t3, one
    // before the output copies or host reads. None between independent commands; the copies
    // in and out are recorded per run outside it.
    EXPECT_EQ(session->barrierCount(), 5u);
    // Constants + two alias-group ranges (t1/t3 and t2) in device memory, I/O in staging.
    std::uint64_t tensor = 4 * openvgf::testing::kChainN;
    EXPECT_GE(session->deviceBytes(), 3 * tensor);
    EXPECT_LT(session->deviceBytes(), (session->directIo() ? 4 : 6) * tensor);
    std::vector<float> x = chainInput(0.25f);
    HostTensor input = tensorOf(DType::Fp32, {1, openvgf::testing::kChainN}, x);
    Result<std::vector<HostTensor>> out = session->run(std::span(&input, 1));
    ASSERT_TRUE(out) << out.error().message();
    expectChainResult(x, (*out)[0]);
  }
  expectNoValidationMessages(*loaded->context);
}

TEST(Session, SeveralInputsAndOutputsWithAnOutputThatIsAlsoAnIntermediate) {
  auto loaded = load([](vgf::Builder& b) { openvgf::testing::buildMultiIo(b, k_binary_f32, k_affine_s3b1); });
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->model->outputs()[0].name, "sum");
  EXPECT_EQ(loaded->model->outputs()[1].name, "scaled");
  for (IoMode mode : {IoMode::Direct, IoMode::Copy}) {
    if (mode == IoMode::Direct && !vulkan::hasUnifiedMemory(loaded->context->device())) continue;
    Result<Session> session = Session::create(*loaded->context, *loaded->model, {.io = mode});
    ASSERT_TRUE(session) << session.error().message();
    std::vector<float> a = ramp<float>(-10, 2), b = ramp<float>(4, -1);
    HostTensor ta = tensorOf(DType::Fp32, {37}, a), tb = tensorOf(DType::Fp32, {37}, b);
    const HostTensor* ordered[] = {&ta, &tb};
    std::vector<HostTensor> outputs;
    ASSERT_TRUE(session->run(ordered, outputs));
    ASSERT_EQ(outputs.size(), 2u);
    for (std::size_t i = 0; i < 37; ++i) {
      EXPECT_EQ(outputs[0].as<float>()[i], a[i] + b[i]);
      EXPECT_EQ(outputs[1].as<float>()[i], 3.0f * (a[i] + b[i]) + 1.0f);
    }
  }
  expectNoValidationMessages(*loaded->context);
}

TEST(Session, RejectsWrongInputCountShapeAndDtype) {
  auto loaded = load(buildChainModel);
  ASSERT_TRUE(loaded);
  Result<Session> session = Session::create(*loaded->context, *loaded->model);
  ASSERT_TRUE(session);
  std::vector<HostTensor> none;
  Result<std::vector<HostTensor>> r = session->run(none);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind(), ErrorKind::InvalidInput);
  EXPECT_EQ(r.error().message(), "expected 1 input(s) ('x' FP32 [1,1000]), got 0");
  HostTensor wrongShape(DType::Fp32, {1000});
  r = session->run(std::span(&wrongShape, 1));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "input 'x': expected shape [1,1000], got [1000]");
  HostTensor wrongType(DType::Int32, {1, 1000});
  r = session->run(std::span(&wrongType, 1));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "input 'x': expected dtype FP32, got INT32");
  // The session is still usable after rejected calls.
  std::vector<float> x = chainInput(1.0f);
  HostTensor good = tensorOf(DType::Fp32, {1, openvgf::testing::kChainN}, x);
  r = session->run(std::span(&good, 1));
  ASSERT_TRUE(r);
  expectChainResult(x, (*r)[0]);
  expectNoValidationMessages(*loaded->context);
}

TEST(Session, RepeatedRunsAreBitIdentical) {
  auto loaded = load(buildChainModel);
  ASSERT_TRUE(loaded);
  Result<Session> session = Session::create(*loaded->context, *loaded->model);
  ASSERT_TRUE(session);
  std::vector<float> x = chainInput(0.1f);
  HostTensor input = tensorOf(DType::Fp32, {1, openvgf::testing::kChainN}, x);
  const HostTensor* inputs[] = {&input};
  std::vector<HostTensor> first, again;
  ASSERT_TRUE(session->run(inputs, first));
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(session->run(inputs, again));
    ASSERT_EQ(again[0].bytes, first[0].bytes) << "run " << i;
  }
  // Zero-copy path gives the same bytes.
  std::memcpy(session->inputMemory(0).data(), input.bytes.data(), input.bytes.size());
  ASSERT_TRUE(session->runInPlace());
  std::span<const std::uint8_t> direct = session->outputMemory(0);
  EXPECT_TRUE(std::equal(direct.begin(), direct.end(), first[0].bytes.begin()));
  expectNoValidationMessages(*loaded->context);
}

long residentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

TEST(Session, ThousandRunsDoNotGrowResidentMemory) {
#if defined(__SANITIZE_ADDRESS__)
  // ASan keeps freed memory in quarantine (and the validation layer frees per submit), so the
  // resident set grows without any leak; the check is meaningful in the plain builds only.
  GTEST_SKIP() << "resident memory is not meaningful under AddressSanitizer";
#endif
  auto loaded = load(buildChainModel);
  ASSERT_TRUE(loaded);
  Result<Session> session = Session::create(*loaded->context, *loaded->model);
  ASSERT_TRUE(session);
  std::vector<float> x = chainInput(0.5f);
  HostTensor input = tensorOf(DType::Fp32, {1, openvgf::testing::kChainN}, x);
  const HostTensor* inputs[] = {&input};
  std::vector<HostTensor> outputs;
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(session->run(inputs, outputs));  // warm up
  long before = residentKiB();
  ASSERT_GT(before, 0);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(session->run(inputs, outputs));
  long after = residentKiB();
  // A leak of even 1 KiB per run would show as 1000 KiB.
  EXPECT_LT(after - before, 512) << "VmRSS " << before << " KiB -> " << after << " KiB";
  expectChainResult(x, outputs[0]);
  expectNoValidationMessages(*loaded->context);
}

TEST(Session, ProfilingWritesOneSlicePerSegmentAndASummary) {
  auto loaded = load(buildChainModel);
  ASSERT_TRUE(loaded);
  Result<Session> session = Session::create(*loaded->context, *loaded->model, {.profile = true});
  ASSERT_TRUE(session) << session.error().message();
  ProfileRecorder recorder(session->segmentNames());
  std::vector<float> x = chainInput(0.0f);
  HostTensor input = tensorOf(DType::Fp32, {1, openvgf::testing::kChainN}, x);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(session->run(std::span(&input, 1)));
    const RunTiming& timing = session->lastTiming();
    ASSERT_EQ(timing.timestampsNs.size(), 5u);
    for (std::size_t t = 1; t < timing.timestampsNs.size(); ++t) {
      EXPECT_GE(timing.timestampsNs[t], timing.timestampsNs[t - 1]);
    }
    EXPECT_GE(timing.hostMs, timing.gpuMs());
    recorder.add(timing);
  }
  nlohmann::json trace = nlohmann::json::parse(recorder.chromeTrace());
  std::vector<std::string> slices;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["ph"] == "X") slices.push_back(event["name"]);
  }
  ASSERT_EQ(slices.size(), 12u);
  EXPECT_EQ(std::vector<std::string>(slices.begin(), slices.begin() + 4),
            (std::vector<std::string>{"add_const", "scale", "add_input", "minus_one"}));
  std::string summary = recorder.summary(2);
  EXPECT_THAT(summary, HasSubstr("GPU profile (3 runs, medians)"));
  EXPECT_THAT(summary, HasSubstr("total GPU time"));
  EXPECT_THAT(summary, HasSubstr("host overhead"));
  EXPECT_THAT(summary, HasSubstr("... 2 more segment(s)"));
  expectNoValidationMessages(*loaded->context);
}

TEST(Session, PipelineCacheIsWrittenAndReused) {
  ContextOptions options = testOptions();
  options.pipelineCache = true;
  options.cacheDir = std::filesystem::path(::testing::TempDir()) / "openvgf-runner-cache";
  std::filesystem::remove_all(options.cacheDir);
  for (int pass = 0; pass < 2; ++pass) {
    auto loaded = load(buildChainModel, options);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->context->pipelineCache().loadedFromDisk(), pass == 1);
    ASSERT_TRUE(Session::create(*loaded->context, *loaded->model));
    ASSERT_TRUE(loaded->context->savePipelineCache());
    expectNoValidationMessages(*loaded->context);
  }
  std::filesystem::remove_all(options.cacheDir);
}

// --- Host I/O paths (runAsync, pinned memory, pipelining, device-resident outputs) --------
// Every path is checked against the chain's hand-computed result y = 3x + 2i - 1 (exact in
// fp32 for these inputs), in both I/O modes where the device allows, so a path that skips or
// misplaces a copy shows as wrong numbers.

std::vector<IoMode> ioModes(const Context& context) {
  if (vulkan::hasUnifiedMemory(context.device())) return {IoMode::Direct, IoMode::Copy};
  return {IoMode::Copy};
}

std::span<const std::uint8_t> bytesOf(const std::vector<float>& v) {
  return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(float)};
}

HostTensor chainOutput(std::span<const std::uint8_t> bytes) {
  HostTensor y(DType::Fp32, {1, openvgf::testing::kChainN});
  std::memcpy(y.bytes.data(), bytes.data(), y.bytes.size());
  return y;
}

TEST(HostIo, RunAsyncWithHostAndPinnedMemoryInEveryIoMode) {
  auto loaded = load(buildChainModel);
  ASSERT_TRUE(loaded);
  const Context& context = *loaded->context;
  const std::size_t bytes = 4 * openvgf::testing::kChainN;
  for (IoMode mode : ioModes(context)) {
    for (UploadMemory upload : {UploadMemory::Auto, UploadMemory::Host}) {
      SCOPED_TRACE(fmt::format("io mode {}, upload memory {}", static_cast<int>(mode), static_cast<int>(upload)));
      Result<Session> session = Session::create(context, *loaded->model, {.io = mode, .upload = upload});
      ASSERT_TRUE(session) << session.error().message();
      // Plain host spans (staged).
      std::vector<float> x = chainInput(0.25f);
      std::vector<std::uint8_t> y(bytes);
      InputRef in{.host = bytesOf(x)};
      OutputRef out{.host = y};
      Result<RunTicket> ticket = session->runAsync(std::span(&in, 1), std::span(&out, 1));
      ASSERT_TRUE(ticket) << ticket.error().message();
      ASSERT_TRUE(session->wait(*ticket));
      expectChainResult(x, chainOutput(y));
      // Pinned memory (imported when the device can): input and output by DMA.
      Result<PinnedMemory> pinned = PinnedMemory::allocate(context, 2 * bytes);
      ASSERT_TRUE(pinned) << pinned.error().message();
      EXPECT_EQ(pinned->imported(), context.device().canImportHostMemory());
      std::vector<float> x2 = chainInput(-0.5f);
      std::memcpy(pinned->bytes().data(), x2.data(), bytes);
      InputRef pinnedIn{.host = pinned->bytes().first(bytes), .pinned = &*pinned};
      OutputRef pinnedOut{.host = pinned->bytes().subspan(bytes, bytes), .pinned = &*pinned};
      ticket = session->runAsync(std::span(&pinnedIn, 1), std::span(&pinnedOut, 1));
      ASSERT_TRUE(ticket) << ticket.error().message();
      ASSERT_TRUE(session->wait(*ticket));
      expectChainResult(x2, chainOutput(pinned->bytes().subspan(bytes, bytes)));
    }
  }
  expectNoValidationMessages(context);
}

// A slot keeps its recorded copies while runs pass the same kind of memory, and records
// them again when a run's memory differs: each run's result must come from its own input.
TEST(HostIo, EachRunCopiesFromTheMemoryItWasGiven) {
  auto loaded = load(buildChainModel);
  ASSERT_TRUE(loaded);
  const Context& context = *loaded->context;
  const std::size_t bytes = 4 * openvgf::testing::kChainN;
  for (unsigned inFlight : {1u, 2u}) {
    Result<Session> session = Session::create(context, *loaded->model, {.inFlight = inFlight});
    ASSERT_TRUE(session) << session.error().message();
    Result<PinnedMemory> pinned = PinnedMemory::allocate(context, 4 * bytes);
    ASSERT_TRUE(pinned) << pinned.error().message();
    // host, host, pinned at offset 0, pinned at offset 2, host, pinned at 0 again, ...
    const int kinds[] = {0, 0, 1, 2, 0, 1, 1, 2, 2, 0};
    for (std::size_t r = 0; r < std::size(kinds); ++r) {
      SCOPED_TRACE(fmt::format("{} in flight, run {}, memory kind {}", inFlight, r, kinds[r]));
      std::vector<float> x = chainInput(0.125f * static_cast<float>(r) - 0.5f);
      std::vector<std::uint8_t> y(bytes);
      InputRef in{.host = bytesOf(x)};
      OutputRef out{.host = y};
      std::span<std::uint8_t> result = y;
      if (kinds[r] != 0) {
        std::span<std::uint8_t> region = pinned->bytes().subspan(kinds[r] == 1 ? 0 : 2 * bytes, 2 * bytes);
        std::memcpy(region.data(), x.data(), bytes);
        std::memset(region.data() + bytes, 0, bytes);
        in = {.host = region.first(bytes), .pinned = &*pinned};
        out = {.host = region.subspan(bytes, bytes), .pinned = &*pinned};
        result = region.subspan(bytes, bytes);
      }
      Result<RunTicket> ticket = session->runAsync(std::span(&in, 1), std::span(&out, 1));
      ASSERT_TRUE(ticket) << ticket.error().message();
      ASSERT_TRUE(session->wait(*ticket));
      expectChainResult(x, chainOutput(result));
    }
  }
  expectNoValidationMessages(context);
}

// Host inputs staged and uploaded in pieces (SessionOptions::uploadChunkBytes) give the bytes
// the whole-input path gives and the hand-computed result: pieces that do not divide an input,
// several inputs, runs in flight, a pinned input beside a staged one. Copy mode, so the pieces
// are real copies (lavapipe would read the staging in place), each submitted alone.
TEST(HostIo, PipelinedUploadsEqualTheWholeInputPath) {
  auto loaded = load([](vgf::Builder& b) { openvgf::testing::buildMultiIo(b, k_binary_f32, k_affine_s3b1); });
  ASSERT_TRUE(loaded);
  const Context& context = *loaded->context;
  constexpr std::size_t kBytes = 37 * sizeof(float);
  Result<PinnedMemory> pinned = PinnedMemory::allocate(context, kBytes);
  ASSERT_TRUE(pinned) << pinned.error().message();
  std::vector<std::vector<std::uint8_t>> whole;  // per run: both outputs of the whole-input path
  for (std::uint64_t chunk : {std::uint64_t{0}, std::uint64_t{4}, std::uint64_t{64}, std::uint64_t{100},
                              std::uint64_t{kBytes}, std::uint64_t{4096}}) {
    for (unsigned inFlight : {1u, 2u}) {
      SCOPED_TRACE(fmt::format("pieces of {} bytes, {} in flight", chunk, inFlight));
      Result<Session> session = Session::create(
          context, *loaded->model, {.io = IoMode::Copy, .inFlight = inFlight, .uploadChunkBytes = chunk});
      ASSERT_TRUE(session) << session.error().message();
      EXPECT_EQ(session->ioSummary().find("in pieces of") != std::string::npos, chunk != 0);
      std::vector<std::vector<std::uint8_t>> outputs(4, std::vector<std::uint8_t>(2 * kBytes));
      std::vector<RunTicket> tickets;
      for (int r = 0; r < 4; ++r) {
        std::vector<float> a = ramp<float>(-10 + r, 2), b = ramp<float>(4, -1 - r);
        InputRef in[2] = {{.host = bytesOf(a)}, {.host = bytesOf(b)}};
        if (r == 3) {  // input a by DMA from pinned memory, b staged in pieces
          std::memcpy(pinned->bytes().data(), a.data(), kBytes);
          in[0] = {.host = pinned->bytes().first(kBytes), .pinned = &*pinned};
        }
        OutputRef out[2] = {{.host = std::span(outputs[r]).first(kBytes)},
                            {.host = std::span(outputs[r]).subspan(kBytes)}};
        if (tickets.size() == inFlight) {
          ASSERT_TRUE(session->wait(tickets.front()));
          tickets.erase(tickets.begin());
        }
        Result<RunTicket> ticket = session->runAsync(in, out);
        ASSERT_TRUE(ticket) << ticket.error().message();
        tickets.push_back(*ticket);
        // Host inputs may be reused once runAsync returns: clobbering them must not matter.
        std::fill(a.begin(), a.end(), -1.0f);
        std::fill(b.begin(), b.end(), -1.0f);
      }
      for (RunTicket t : tickets) ASSERT_TRUE(session->wait(t));
      for (int r = 0; r < 4; ++r) {
        std::vector<float> a = ramp<float>(-10 + r, 2), b = ramp<float>(4, -1 - r);
        const auto* sum = reinterpret_cast<const float*>(outputs[r].data());
        for (std::size_t i = 0; i < 37; ++i) {
          ASSERT_EQ(sum[i], a[i] + b[i]) << "run " << r << ", element " << i;
          ASSERT_EQ(sum[37 + i], 3.0f * (a[i] + b[i]) + 1.0f) << "run " << r << ", element " << i;
        }
      }
      if (whole.empty()) whole = outputs;
      EXPECT_EQ(outputs, whole);
    }
  }
  expectNoValidationMessages(context);
}

TEST(HostIo, ImportNeedsAlignedCallerMemoryElseStagingIsUsed) {
  auto loaded = load(buildChainModel);
  ASSERT_TRUE(loaded);
  const Context& context = *loaded->context;
  if (!context.device().canImportHostMemory()) GTEST_SKIP() << "the device cannot import host memory";
  const std::size_t alignment = context.device().snapshot().minImportedHostPointerAlignment;
  ASSERT_GT(alignment, 0u);
  const std::size_t bytes = 4 * openvgf::testing::kChainN;
  const std::size_t size = (2 * bytes + alignment - 1) / alignment * alignment;
  std::unique_ptr<std::uint8_t, decltype(&std::free)> memory(
      static_cast<std::uint8_t*>(std::aligned_alloc(alignment, size + alignment)), &std::free);
  ASSERT_TRUE(memory);
  // Unaligned start or size: refused, naming the alignment.
  Result<PinnedMemory> unaligned = PinnedMemory::import(context, {memory.get() + 4, size});
  ASSERT_FALSE(unaligned);
  EXPECT_THAT(unaligned.error().message(), HasSubstr(fmt::format("multiples of minImportedHostPointerAlignment = {}",
                                                                 alignment)));
  EXPECT_FALSE(PinnedMemory::import(context, {memory.get(), size - 4}));
  // Aligned: imported; the session reads and writes the caller's memory itself.
  Result<PinnedMemory> pinned = PinnedMemory::import(context, {memory.get(), size});
  ASSERT_TRUE(pinned) << pinned.error().message();
  EXPECT_TRUE(pinned->imported());
  EXPECT_EQ(pinned->bytes().data(), memory.get());
  Result<Session> session = Session::create(context, *loaded->model, {.io = IoMode::Copy});
  ASSERT_TRUE(session) << session.error().message();
  std::vector<float> x = chainInput(1.75f);
  std::memcpy(memory.get(), x.data(), bytes);
  InputRef in{.host = {memory.get(), bytes}, .pinned = &*pinned};
  OutputRef out{.host = {memory.get() + bytes, bytes}, .pinned = &*pinned};
  Result<RunTicket> ticket = session->runAsync(std::span(&in, 1), std::span(&out, 1));
  ASSERT_TRUE(ticket) << ticket.error().message();
  ASSERT_TRUE(session->wait(*ticket));
  expectChainResult(x, chainOutput({memory.get() + bytes, bytes}));
  // The unaligned pointer goes through staging and gives the same result.
  std::memmove(memory.get() + 4, x.data(), bytes);
  std::vector<std::uint8_t> y(bytes);
  InputRef staged{.host = {memory.get() + 4, bytes}};
  OutputRef plain{.host = y};
  ticket = session->runAsync(std::span(&staged, 1), std::span(&plain, 1));
  ASSERT_TRUE(ticket) << ticket.error().message();
  ASSERT_TRUE(session->wait(*ticket));
  expectChainResult(x, chainOutput(y));
  // Bytes outside the pinned memory named are refused.
  std::vector<float> other = chainInput(0);
  InputRef wrong{.host = bytesOf(other), .pinned = &*pinned};
  Result<RunTicket> refused = session->runAsync(std::span(&wrong, 1), std::span(&plain, 1));
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message(), HasSubstr("input 'x': expected its bytes inside the given pinned memory"));
  expectNoValidationMessages(context);
}

TEST(HostIo, ManyRunsInFlightGiveTheSerialResults) {
  auto loaded = load(buildChainModel);
  ASSERT_TRUE(loaded);
  const Context& context = *loaded->context;
  const std::size_t bytes = 4 * openvgf::testing::kChainN;
  constexpr int kRuns = 40;
  std::vector<std::vector<float>> xs;
  for (int r = 0; r < kRuns; ++r) xs.push_back(chainInput(0.25f * static_cast<float>(r % 9) - 1.0f));
  // Serial results of the plain run() path (itself checked against the formula above).
  Result<Session> serial = Session::create(context, *loaded->model);
  ASSERT_TRUE(serial) << serial.error().message();
  std::vector<std::vector<std::uint8_t>> expected;
  for (const std::vector<float>& x : xs) {
    HostTensor input = tensorOf(DType::Fp32, {1, openvgf::testing::kChainN}, x);
    Result<std::vector<HostTensor>> out = serial->run(std::span(&input, 1));
    ASSERT_TRUE(out) << out.error().message();
    expected.push_back((*out)[0].bytes);
  }
  for (IoMode mode : ioModes(context)) {
    for (unsigned inFlight : {2u, 3u}) {
      SCOPED_TRACE(fmt::format("io mode {}, {} in flight", static_cast<int>(mode), inFlight));
      Result<Session> session = Session::create(context, *loaded->model, {.io = mode, .inFlight = inFlight});
      ASSERT_TRUE(session) << session.error().message();
      std::vector<std::vector<std::uint8_t>> ys(kRuns, std::vector<std::uint8_t>(bytes));
      std::vector<RunTicket> tickets;
      for (int r = 0; r < kRuns; ++r) {
        // The input buffer is overwritten right after runAsync returns: it must have been taken.
        std::vector<float> x = xs[r];
        InputRef in{.host = bytesOf(x)};
        OutputRef out{.host = ys[r]};
        Result<RunTicket> ticket = session->runAsync(std::span(&in, 1), std::span(&out, 1));
        ASSERT_TRUE(ticket) << "run " << r << ": " << ticket.error().message();
        std::fill(x.begin(), x.end(), 1e9f);
        tickets.push_back(*ticket);
        if (tickets.size() == inFlight) {
          // Every slot is busy: one more is refused until the oldest is waited for.
          Result<RunTicket> extra = session->runAsync(std::span(&in, 1), std::span(&out, 1));
          ASSERT_FALSE(extra);
          EXPECT_THAT(extra.error().message(), HasSubstr("already in flight"));
          ASSERT_TRUE(session->wait(tickets.front()));
          tickets.erase(tickets.begin());
        }
      }
      for (RunTicket t : tickets) ASSERT_TRUE(session->wait(t));
      for (int r = 0; r < kRuns; ++r) EXPECT_EQ(ys[r], expected[r]) << "run " << r;
      Status again = session->wait(tickets.back());
      ASSERT_FALSE(again);
      EXPECT_THAT(again.error().message(), HasSubstr("is not in flight"));
    }
  }
  expectNoValidationMessages(context);
}

TEST(HostIo, DeviceResidentOutputFeedsAnotherSession) {
  auto loaded = load(buildChainModel);
  ASSERT_TRUE(loaded);
  const Context& context = *loaded->context;
  const std::size_t bytes = 4 * openvgf::testing::kChainN;
  for (IoMode mode : ioModes(context)) {
    SCOPED_TRACE(static_cast<int>(mode));
    Result<Session> first = Session::create(context, *loaded->model, {.io = mode});
    Result<Session> second = Session::create(context, *loaded->model, {.io = mode});
    ASSERT_TRUE(first && second);
    std::vector<float> x = chainInput(0.5f);
    // Never run: nothing on the device to read yet.
    InputRef chained;
    chained.producer = &*first;
    chained.producerOutput = 0;
    std::vector<std::uint8_t> z(bytes);
    OutputRef out{.host = z};
    Result<RunTicket> early = second->runAsync(std::span(&chained, 1), std::span(&out, 1));
    ASSERT_FALSE(early);
    EXPECT_THAT(early.error().message(), HasSubstr("never ran"));
    // y = f(x) stays on the device (no output copy); z = f(y) reads it there. Both are in
    // flight together: the second run waits for the first on the device.
    InputRef in{.host = bytesOf(x)};
    OutputRef kept{};
    Result<RunTicket> t1 = first->runAsync(std::span(&in, 1), std::span(&kept, 1));
    ASSERT_TRUE(t1) << t1.error().message();
    Result<RunTicket> t2 = second->runAsync(std::span(&chained, 1), std::span(&out, 1));
    ASSERT_TRUE(t2) << t2.error().message();
    ASSERT_TRUE(second->wait(*t2));
    ASSERT_TRUE(first->wait(*t1));
    std::vector<float> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = 3.0f * x[i] + 2.0f * static_cast<float>(i) - 1.0f;
    expectChainResult(y, chainOutput(z));
  }
  expectNoValidationMessages(context);
}

TEST(Formats, MapVkFormatsToTosaTypes) {
  using V = vgf::VkFormatValue;
  EXPECT_EQ(dtypeForFormat(static_cast<std::uint32_t>(V::R8BoolArm)), DType::Bool);
  EXPECT_EQ(dtypeForFormat(static_cast<std::uint32_t>(V::R64Sint)), DType::Int48);
  // Unsigned model inputs and outputs hold the signless TOSA type of their width; a TOSA type
  // is stored in the signed format.
  EXPECT_EQ(dtypeForFormat(static_cast<std::uint32_t>(V::R8Uint)), DType::Int8);
  EXPECT_EQ(dtypeForFormat(static_cast<std::uint32_t>(V::R32Uint)), DType::Int32);
  EXPECT_EQ(formatForDType(DType::Int8), static_cast<std::uint32_t>(V::R8Sint));
  EXPECT_EQ(formatForDType(DType::Int32), static_cast<std::uint32_t>(V::R32Sint));
  EXPECT_EQ(dtypeForFormat(5), std::nullopt);
  EXPECT_EQ(formatForDType(DType::Int4), static_cast<std::uint32_t>(V::R8Sint));
  EXPECT_EQ(formatForDType(DType::Int48), static_cast<std::uint32_t>(V::R64Sint));
  EXPECT_EQ(formatForDType(DType::Shape), std::nullopt);
  for (DType t : {DType::Bool, DType::Int8, DType::Int16, DType::Int32, DType::Int48, DType::Fp16, DType::Fp32,
                  DType::Bf16, DType::Fp8E4M3, DType::Fp8E5M2}) {
    std::uint32_t format = *formatForDType(t);
    EXPECT_EQ(dtypeForFormat(format), t);
    EXPECT_EQ(storageElementBytes(format), tosa::hostElementBytes(t)) << tosa::toString(t);
  }
  EXPECT_EQ(formatShortName(1000460000), "R8_BOOL_ARM");
  EXPECT_EQ(formatShortName(5), "VkFormat(5)");
}

}  // namespace
}  // namespace openvgf::runner
