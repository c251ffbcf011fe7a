// SPDX-License-Identifier: Apache-2.0
// Judges a converted graph run on the test device against the reference interpreter
// (tosa/reference, precise mode) under TOSA's compliance rules (tosa/compliance.h):
// integer outputs bit-exact, floating-point outputs with the producing operator's rule.
// Also makes seeded random host tensors of any TOSA type for the family tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/converter/graph_util.h"
#include "tosa/float_types.h"
#include "tosa/reference/reference.h"

namespace openvgf::testing {

/// Random values of `type` in [lo, hi] (integers) or [lo, hi) (floats, rounded to the type).
inline tosa::HostTensor randomTensor(std::mt19937& rng, tosa::DType type, tosa::Shape shape, double lo,
                                     double hi) {
  tosa::HostTensor t(type, std::move(shape));
  const auto n = static_cast<std::size_t>(t.size());
  if (tosa::isFloat(type)) {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (std::size_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(dist(rng));
      switch (type) {
        case tosa::DType::Fp32: t.as<float>()[i] = v; break;
        case tosa::DType::Fp16: t.as<std::uint16_t>()[i] = tosa::floatToFp16(v); break;
        case tosa::DType::Bf16: t.as<std::uint16_t>()[i] = tosa::floatToBf16(v); break;
        default: ADD_FAILURE() << "randomTensor: no generator for " << tosa::toString(type); return t;
      }
    }
    return t;
  }
  std::uniform_int_distribution<std::int64_t> dist(static_cast<std::int64_t>(lo),
                                                   static_cast<std::int64_t>(hi));
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t v = dist(rng);
    switch (tosa::hostElementBytes(type)) {
      case 1: t.as<std::int8_t>()[i] = static_cast<std::int8_t>(v); break;
      case 2: t.as<std::int16_t>()[i] = static_cast<std::int16_t>(v); break;
      case 4: t.as<std::int32_t>()[i] = static_cast<std::int32_t>(v); break;
      default: t.as<std::int64_t>()[i] = v; break;
    }
  }
  return t;
}

/// One type row of the convolution family: input, weight, output, acc_type and bias types.
struct GemmRow {
  tosa::DType in, weight, out, acc, bias;
};

inline const std::vector<GemmRow> kGemmRows = {
    {tosa::DType::Int8, tosa::DType::Int8, tosa::DType::Int32, tosa::DType::Int32, tosa::DType::Int32},
    {tosa::DType::Int8, tosa::DType::Int4, tosa::DType::Int32, tosa::DType::Int32, tosa::DType::Int32},
    {tosa::DType::Int16, tosa::DType::Int8, tosa::DType::Int48, tosa::DType::Int48, tosa::DType::Int48},
    {tosa::DType::Fp16, tosa::DType::Fp16, tosa::DType::Fp16, tosa::DType::Fp16, tosa::DType::Fp16},
    {tosa::DType::Fp16, tosa::DType::Fp16, tosa::DType::Fp16, tosa::DType::Fp32, tosa::DType::Fp16},
    {tosa::DType::Fp32, tosa::DType::Fp32, tosa::DType::Fp32, tosa::DType::Fp32, tosa::DType::Fp32},
    {tosa::DType::Bf16, tosa::DType::Bf16, tosa::DType::Bf16, tosa::DType::Fp32, tosa::DType::Bf16},
};

/// Value range used for random data of a type in convolution tests.
inline std::pair<double, double> rangeOf(tosa::DType t) {
  switch (t) {
    case tosa::DType::Int4: return {-7, 7};
    case tosa::DType::Int8: return {-128, 127};
    case tosa::DType::Int16: return {-32768, 32767};
    case tosa::DType::Int32: return {-5000, 5000};
    case tosa::DType::Int48: return {-100000, 100000};
    default: return {-1.0, 1.0};
  }
}

/// A one-element tensor holding `v` (zero points).
inline tosa::HostTensor scalarTensor(tosa::DType t, double v) {
  tosa::HostTensor s(t, {1});
  if (t == tosa::DType::Fp32) {
    s.as<float>()[0] = static_cast<float>(v);
  } else if (t == tosa::DType::Fp16) {
    s.as<std::uint16_t>()[0] = tosa::floatToFp16(static_cast<float>(v));
  } else if (t == tosa::DType::Bf16) {
    s.as<std::uint16_t>()[0] = tosa::floatToBf16(static_cast<float>(v));
  } else if (tosa::hostElementBytes(t) == 1) {
    s.as<std::int8_t>()[0] = static_cast<std::int8_t>(v);
  } else {
    s.as<std::int16_t>()[0] = static_cast<std::int16_t>(v);
  }
  return s;
}

/// Adds `t` as a constant tensor of the graph.
inline void addConstant(GraphBuilder& g, const std::string& name, const tosa::HostTensor& t) {
  g.constant<std::uint8_t>(name, t.dtype, t.shape, t.bytes);
}

/// Converts and runs `graph` on the device, runs the reference in precise mode and checks
/// every output with its compliance rule. Storage bytes equal host bytes for every type
/// the converter stores (INT4 one byte per element, INT48 as int64).
inline void expectCompliant(const tosa::Graph& graph, const std::vector<tosa::HostTensor>& inputs) {
  std::vector<std::vector<std::uint8_t>> bytes;
  for (const auto& t : inputs) bytes.push_back(t.bytes);
  auto out = convertAndRun(graph, bytes);
  tosa::reference::RunOptions options;
  options.precise = true;
  auto ref = tosa::reference::run(graph, inputs, options);
  ASSERT_TRUE(ref) << ref.error().message();
  ASSERT_EQ(out.size(), ref->outputs.size());
  std::vector<tosa::HostTensor> actual;
  for (std::size_t i = 0; i < out.size(); ++i) {
    tosa::HostTensor t(ref->outputs[i].value.dtype, ref->outputs[i].value.shape);
    ASSERT_EQ(out[i].size(), t.bytes.size()) << "output " << i;
    t.bytes = out[i];
    actual.push_back(std::move(t));
  }
  auto verdicts = tosa::reference::checkOutputs(*ref, actual);
  ASSERT_TRUE(verdicts) << verdicts.error().message();
  for (std::size_t i = 0; i < verdicts->size(); ++i) {
    const auto& v = (*verdicts)[i];
    EXPECT_TRUE(v.pass) << "output " << i << ": " << tosa::compliance::summary(v) << " " << v.message;
    if (!tosa::isFloat(actual[i].dtype)) {
      EXPECT_EQ(v.mode, tosa::compliance::CheckMode::Exact) << "output " << i;
    }
  }
}

/// Converts and runs `graph` and requires every output to equal, byte for byte, the
/// reference run in the types' own precision (not precise mode): for operators whose
/// floating-point results are selections or exact, e.g. RESIZE NEAREST, where the spec's
/// rounding of intermediate fractions to the input type decides which element is picked.
inline void expectBitExact(const tosa::Graph& graph, const std::vector<tosa::HostTensor>& inputs) {
  std::vector<std::vector<std::uint8_t>> bytes;
  for (const auto& t : inputs) bytes.push_back(t.bytes);
  auto out = convertAndRun(graph, bytes);
  auto ref = tosa::reference::run(graph, inputs);
  ASSERT_TRUE(ref) << ref.error().message();
  ASSERT_EQ(out.size(), ref->outputs.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i], ref->outputs[i].value.bytes) << "output " << i;
}

}  // namespace openvgf::testing
