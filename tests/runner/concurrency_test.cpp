// SPDX-License-Identifier: Apache-2.0
// Two threads, each with its own Session of one Model on one Context, run concurrently and
// get correct results. Also built and run under ThreadSanitizer (label tsan).
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

#include "runner/context.h"
#include "runner/session.h"
#include "shaders/chain_add.h"
#include "shaders/chain_minus1.h"
#include "shaders/chain_scale2.h"
#include "test_models.h"

namespace openvgf::runner {
namespace {

TEST(Concurrency, TwoThreadsRunSessionsOfOneModel) {
  vgf::Builder builder;
  openvgf::testing::buildChain(builder, k_chain_add, k_chain_scale2, k_chain_minus1);
  Result<Model> model = Model::create(builder.file(), "chain.vgf");
  ASSERT_TRUE(model) << model.error().message();
  ContextOptions options;
  options.validate = true;
  const char* device = std::getenv("OPENVGF_TEST_DEVICE");
  options.device = device != nullptr ? device : "llvmpipe";
  options.pipelineCache = false;
  Result<std::unique_ptr<Context>> context = Context::create(options, *model);
  ASSERT_TRUE(context) << context.error().message();

  constexpr int kThreads = 2;
  constexpr int kRuns = 100;
  int failures[kThreads] = {};
  std::string errors[kThreads];
  auto work = [&](int id) {
    Result<Session> session = Session::create(**context, *model, {.io = id == 0 ? IoMode::Auto : IoMode::Copy});
    if (!session) {
      errors[id] = session.error().message();
      failures[id] = -1;
      return;
    }
    tosa::HostTensor input(tosa::DType::Fp32, {1, openvgf::testing::kChainN});
    std::vector<tosa::HostTensor> outputs;
    const tosa::HostTensor* inputs[] = {&input};
    for (int run = 0; run < kRuns; ++run) {
      std::span<float> x = input.as<float>();
      for (int i = 0; i < openvgf::testing::kChainN; ++i) x[i] = static_cast<float>(id * 1000 + run + (i % 5));
      Status status = session->run(inputs, outputs);
      if (!status) {
        errors[id] = status.error().message();
        failures[id] = -1;
        return;
      }
      std::span<const float> y = outputs[0].as<float>();
      for (int i = 0; i < openvgf::testing::kChainN; ++i) {
        if (y[i] != 3.0f * x[i] + 2.0f * static_cast<float>(i) - 1.0f) ++failures[id];
      }
    }
  };
  {
    std::vector<std::jthread> threads;
    for (int id = 0; id < kThreads; ++id) threads.emplace_back(work, id);
  }
  for (int id = 0; id < kThreads; ++id) {
    EXPECT_EQ(failures[id], 0) << "thread " << id << ": " << errors[id];
  }
  EXPECT_EQ((*context)->instance().validationErrors(), 0u);
  EXPECT_EQ((*context)->instance().validationWarnings(), 0u);
}

}  // namespace
}  // namespace openvgf::runner
