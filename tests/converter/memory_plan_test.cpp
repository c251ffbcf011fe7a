// SPDX-License-Identifier: Apache-2.0
// Memory plan: intermediates of a chain share alias groups, members of one group never
// live at the same time, and the statistics add up.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "converter/kernels/registry.h"
#include "converter/memory_plan.h"
#include "converter/passes/passes.h"
#include "converter/targets/target.h"
#include "tests/converter/graph_util.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Op;

TEST(MemoryPlan, ChainReusesBuffers) {
  // x -> REDUCE_SUM -> a -> REDUCE_SUM -> b ... (reductions do not fuse): five intermediates.
  GraphBuilder g;
  g.input("x", DType::Fp32, {64, 32, 16, 8, 4});
  std::string prev = "x";
  tosa::Shape shape = {64, 32, 16, 8, 4};
  for (int axis = 4; axis >= 0; --axis) {
    shape[static_cast<std::size_t>(axis)] = 1;
    std::string name = fmt::format("r{}", axis);
    g.tensor(name, DType::Fp32, shape);
    g.op(Op::ReduceSum, tosa::AxisAttrs{axis, tosa::NanMode::Propagate}, {prev}, {name});
    prev = name;
  }
  g.output(prev);
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  ASSERT_TRUE(converter::passes::runPasses(*program));
  auto plan = converter::lowerProgram(*program, converter::portableTarget());
  ASSERT_TRUE(plan) << plan.error().message();
  auto memory = converter::planMemory(*plan);
  // r4, r3, r2, r1 are intermediates; each lives for two kernels, so two groups suffice.
  EXPECT_EQ(memory.groups, 2u);
  EXPECT_LT(memory.plannedBytes, memory.unaliasedBytes);
  EXPECT_LE(memory.peakLiveBytes, memory.plannedBytes);
  // Members of a group never overlap in lifetime.
  std::vector<std::size_t> first(plan->tensors.size(), SIZE_MAX), last(plan->tensors.size(), 0);
  for (std::size_t k = 0; k < plan->kernels.size(); ++k) {
    for (std::size_t id : plan->kernels[k].bindings) {
      first[id] = std::min(first[id], k);
      last[id] = k;
    }
  }
  for (std::size_t a = 0; a < plan->tensors.size(); ++a) {
    for (std::size_t b = a + 1; b < plan->tensors.size(); ++b) {
      if (memory.aliasGroup[a] == vgf::kUnset || memory.aliasGroup[a] != memory.aliasGroup[b]) continue;
      EXPECT_TRUE(last[a] < first[b] || last[b] < first[a]) << plan->tensors[a].name << " vs " << plan->tensors[b].name;
    }
  }
}

}  // namespace
}  // namespace openvgf::testing
