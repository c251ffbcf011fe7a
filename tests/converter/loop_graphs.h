// SPDX-License-Identifier: Apache-2.0
// Graphs of nested WHILE_LOOPs with constant trip counts, for the inlining budget's tests
// (tests/converter/control_flow_test.cpp, tests/converter/cli_test.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "tosa/builder.h"

namespace openvgf::testing {

/// y = x + outer * inner * x, as two nested counted loops over x: INT32 [4] (exact, so the
/// unrolled chain of adds matches the reference bit for bit):
///   acc = x; for (i = 0; i < outer; ++i) for (j = 0; j < inner; ++j) acc = acc + x
/// Unrolled, the inner body (a counter ADD and an accumulator ADD) appears outer * inner times.
inline tosa::Builder nestedCountedLoops(std::int32_t outer, std::int32_t inner) {
  using tosa::DType;
  using tosa::Value;
  tosa::Builder b;
  Value x = b.input("x", DType::Int32, {4});
  auto below = [](std::int32_t trips) {
    return [trips](tosa::Builder& c, const std::vector<Value>& in) {
      return c.greater(c.constant<std::int32_t>(DType::Int32, {1}, {trips}), in[0]);
    };
  };
  auto next = [](tosa::Builder& c, const Value& counter) {
    return c.add(counter, c.constant<std::int32_t>(DType::Int32, {1}, {1}));
  };
  Value zero = b.constant<std::int32_t>(DType::Int32, {1}, {0});
  auto outs = b.whileLoop({zero, x}, below(outer), [&](tosa::Builder& ob, const std::vector<Value>& o) {
    Value innerZero = ob.constant<std::int32_t>(DType::Int32, {1}, {0});
    auto sums = ob.whileLoop({innerZero, o[1]}, below(inner), [&](tosa::Builder& ib, const std::vector<Value>& i) {
      return std::vector<Value>{next(ib, i[0]), ib.add(i[1], x)};
    });
    return std::vector<Value>{next(ob, o[0]), sums[1]};
  });
  b.output(outs[1]);
  return b;
}

}  // namespace openvgf::testing
