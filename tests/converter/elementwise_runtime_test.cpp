// SPDX-License-Identifier: Apache-2.0
// The elementwise kernel with run-time shapes (Tuning::runtimeShapes, the tuning table's CPU
// entry): standalone RESCALE and broadcasting elementwise operators that differ in shapes,
// strides, zero points and scales share one module per operator sequence and types, and
// each still matches the reference interpreter bit for bit.
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "converter/convert.h"
#include "converter/targets/target.h"
#include "tests/converter/run_util.h"
#include "tests/support/op_sweep_cases.h"
#include "tosa/builder.h"

namespace openvgf::testing {
namespace {

TEST(RuntimeShapes, ElementwiseOperatorsOfEveryShapeShareAModule) {
  std::mt19937 rng(36);
  tosa::Builder b;
  std::vector<HostTensor> inputs;
  auto in = [&](DType t, tosa::Shape shape) {
    const double hi = t == DType::Int8 ? 127 : 1 << 20;
    return input(b, inputs, rng, t, std::move(shape), -hi, hi);
  };
  // Per-tensor INT8 -> INT8 rescales: three shapes, zero points and scales (one module).
  auto rescale8 = [&](tosa::Shape shape, std::int32_t multiplier, std::int32_t shift, std::int64_t inZp,
                      std::int64_t outZp) {
    tosa::RescaleParams p{.outType = DType::Int8, .multiplier = {multiplier}, .shift = {shift}, .inputZp = inZp,
                          .outputZp = outZp};
    b.output(b.rescale(in(DType::Int8, std::move(shape)), p));
  };
  rescale8({1, 7, 9, 5}, 1518500250, 31, -5, 17);
  rescale8({2, 3, 33}, 1073741824, 33, 100, -128);
  rescale8({1, 64}, 2040109465, 30, 0, 3);
  // Per-channel INT32 -> INT8 rescales with 8 and 12 channels (one module).
  auto rescaleChannels = [&](tosa::Shape shape, std::int64_t outZp) {
    const auto channels = static_cast<std::size_t>(shape.back());
    tosa::RescaleParams p{.outType = DType::Int8, .outputZp = outZp};
    for (std::size_t c = 0; c < channels; ++c) {
      p.multiplier.push_back(static_cast<std::int32_t>(1 << 30) + static_cast<std::int32_t>(c * 37'000'003));
      p.shift.push_back(static_cast<std::int32_t>(36 + c % 5));
    }
    b.output(b.rescale(in(DType::Int32, std::move(shape)), p));
  };
  rescaleChannels({1, 4, 4, 8}, -9);
  rescaleChannels({2, 6, 12}, 21);
  // INT32 ADDs whose second input broadcasts along different dims of different sizes (one
  // module; which inputs are indexed like the output stays structural).
  b.output(b.add(in(DType::Int32, {2, 5, 6}), in(DType::Int32, {1, 5, 1})));
  b.output(b.add(in(DType::Int32, {3, 4, 7}), in(DType::Int32, {3, 1, 7})));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();

  expectRuntimeShapesShareModules(*graph, inputs, 7, 3);
}

// Outputs of 2^31 elements or more keep compile-time shapes (ovgf_udiv is exact below 2^31):
// two such INT8 CLAMPs of different sizes get a module each, two smaller ones share one.
TEST(RuntimeShapes, ElementwiseOutputsOf2Pow31ElementsKeepCompileTimeShapes) {
  const converter::Target cpu = lavapipeLikeTarget();
  auto modules = [&](std::int64_t rows) {
    tosa::Builder b;
    for (std::int64_t r : {rows, rows + 2}) {
      b.output(b.clamp(b.input(fmt::format("x{}", r), DType::Int8, {r, 1 << 20}), -3, 5));
    }
    auto graph = b.build();
    EXPECT_TRUE(graph) << graph.error().message();
    converter::ConvertOptions options;
    options.customTarget = cpu;
    options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
    auto converted = converter::convert(*graph, options);
    EXPECT_TRUE(converted) << converted.error().message();
    return converted ? converted->stats.uniqueModules : 0u;
  };
  EXPECT_EQ(modules(2040), 1u);  // 2040 * 2^20 and 2042 * 2^20 elements: below 2^31
  EXPECT_EQ(modules(2048), 2u);  // 2^31 and 2^31 + 2^21
}

}  // namespace
}  // namespace openvgf::testing
