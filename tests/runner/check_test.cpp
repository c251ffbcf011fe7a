// SPDX-License-Identifier: Apache-2.0
// run --check's judgement (runner::checkAgainstReference, formatCheck): a FAIL on inputs for
// which the reference reports REQUIRE failures says so, since TOSA calls those results
// unpredictable.
#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runner/check.h"
#include "tosa/builder.h"

namespace openvgf::runner {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// GATHER of 5 rows of 2 floats (row r holds r, -r) by 3 indices.
struct GatherCase {
  tosa::Graph graph;
  tosa::HostTensor values{tosa::DType::Fp32, {1, 5, 2}};
  tosa::HostTensor indices{tosa::DType::Int32, {1, 3}};
  std::vector<std::string> inputNames{"values", "indices"}, outputNames;

  GatherCase() {
    tosa::Builder b;
    tosa::Value v = b.input("values", tosa::DType::Fp32, {1, 5, 2});
    tosa::Value i = b.input("indices", tosa::DType::Int32, {1, 3});
    b.output(b.gather(v, i, "rows"));
    graph = *std::move(b).build();
    outputNames = graph.mainBlock()->outputs;
    float rows[10];
    for (int r = 0; r < 5; ++r) {
      rows[2 * r] = static_cast<float>(r);
      rows[2 * r + 1] = -static_cast<float>(r);
    }
    std::memcpy(values.bytes.data(), rows, sizeof(rows));
  }
  Result<std::vector<OutputCheck>> check(std::vector<std::int32_t> index, std::vector<float> result) {
    std::memcpy(indices.bytes.data(), index.data(), 12);
    tosa::HostTensor out(tosa::DType::Fp32, {1, 3, 2});
    std::memcpy(out.bytes.data(), result.data(), 24);
    const std::vector<tosa::HostTensor> inputs{values, indices}, outputs{out};
    return checkAgainstReference(graph, inputNames, inputs, outputNames, outputs);
  }
};

TEST(Check, AFailOnInputsThatBreakARequireSaysTheResultIsUnpredictable) {
  GatherCase c;
  // In range: rows 4, 0, 2.
  auto good = c.check({4, 0, 2}, {4, -4, 0, 0, 2, -2});
  ASSERT_TRUE(good) << good.error().message();
  EXPECT_TRUE((*good)[0].verdict.pass);
  EXPECT_TRUE((*good)[0].unpredictable.empty());
  auto wrong = c.check({4, 0, 2}, {4, -4, 0, 0, 2, 2});
  ASSERT_TRUE(wrong);
  EXPECT_FALSE((*wrong)[0].verdict.pass);
  EXPECT_THAT(formatCheck((*wrong)[0]), Not(HasSubstr("REQUIRE")));
  // Index 7 of 5 rows breaks GATHER's REQUIRE; an output that disagrees with the reference's
  // (whatever it chose) FAILs, and the line names the REQUIRE failure.
  auto outside = c.check({7, 0, 2}, {1e6f, 1e6f, 0, 0, 2, -2});
  ASSERT_TRUE(outside);
  EXPECT_FALSE((*outside)[0].verdict.pass);
  EXPECT_THAT((*outside)[0].unpredictable, HasSubstr("GATHER"));
  const std::string line = formatCheck((*outside)[0]);
  EXPECT_THAT(line, HasSubstr("FAIL"));
  EXPECT_THAT(line, HasSubstr("the reference reports REQUIRE failures (1 recorded), the first: block main: operator"));
  EXPECT_THAT(line, HasSubstr("TOSA calls this run's results unpredictable"));
}

}  // namespace
}  // namespace openvgf::runner
