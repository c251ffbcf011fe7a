// SPDX-License-Identifier: Apache-2.0
// Test helper: an ExecuTorch program with two VgfBackend delegates as ExecuTorch lays it out
// (tests/pte/pte_writer.h: each delegate payload a whole GRAPH-segment VGF written by
// converter::writeArmGraphVgf, DelegateCall args = inputs then outputs, an operator between
// the two delegates), and the same model as one TOSA graph: the oracle for the program's output.
//   A: x [1,4,4,2] -> CONV2D 3x3 -> CLAMP -> a [1,4,4,4];  view [1,64];  B: ADD c -> SIGMOID -> y [1,64]
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "converter/arm_graph_vgf.h"
#include "tests/pte/pte_writer.h"
#include "tosa/builder.h"

namespace openvgf::pte::testing {

inline constexpr std::int64_t kChannels = 4;

inline std::vector<float> ramp(std::size_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * scale + offset;
  return v;
}

/// A: x [1,4,4,2] -> CONV2D 3x3 (36-element weights: a graph constant) -> CLAMP -> a [1,4,4,4].
inline tosa::Value partA(tosa::Builder& b, const tosa::Value& x) {
  tosa::Value w = b.constant(tosa::DType::Fp32, {kChannels, 3, 3, 2}, ramp(kChannels * 18, 0.25f, 0.0f), "w");
  return b.clamp(b.conv2d(x, w, std::nullopt, {.pad = {1, 1, 1, 1}}), -2.0, 2.0, tosa::NanMode::Propagate, "a");
}

/// B: a2 [1,64] -> ADD c (64 elements) -> SIGMOID -> y [1,64].
inline tosa::Value partB(tosa::Builder& b, const tosa::Value& a2) {
  return b.sigmoid(b.add(a2, b.constant(tosa::DType::Fp32, {1, 64}, ramp(64, 0.5f, 0.1f), "c")), "y");
}

inline std::vector<std::uint8_t> delegateA() {
  tosa::Builder b;
  b.output(partA(b, b.input("x", tosa::DType::Fp32, {1, 4, 4, 2})));
  auto vgf = converter::writeArmGraphVgf(*b.build());
  return vgf ? *vgf : std::vector<std::uint8_t>{};
}

inline std::vector<std::uint8_t> delegateB() {
  tosa::Builder b;
  b.output(partB(b, b.input("a2", tosa::DType::Fp32, {1, 64})));
  auto vgf = converter::writeArmGraphVgf(*b.build());
  return vgf ? *vgf : std::vector<std::uint8_t>{};
}

/// The whole model as one TOSA graph: the oracle for the program's output.
inline tosa::Graph composedModel() {
  tosa::Builder b;
  tosa::Value a = partA(b, b.input("x", tosa::DType::Fp32, {1, 4, 4, 2}));
  b.output(partB(b, b.reshape(a, {1, 64})));
  return *b.build();
}

/// Values 0 x, 1 a, 2 [1,64] (sizes), 3 a2, 4 y; DelegateCall A, `betweenOp`, DelegateCall B.
inline TestProgram vgfProgram(const std::string& betweenOp, const std::string& overload, bool segments) {
  TestProgram p;
  p.payloads = {delegateA(), delegateB()};
  p.segments = segments;
  p.headerLength = segments ? 32 : 0;
  TestPlan plan;
  plan.name = "forward";
  plan.delegates = {{"VgfBackend", 0, {{"output_format", "vgf"}}}, {"VgfBackend", 1, {{"output_format", "vgf"}}}};
  using K = TestValue::Kind;
  plan.values = {{K::Tensor, 6, {1, 4, 4, 2}}, {K::Tensor, 6, {1, 4, 4, kChannels}}, {K::IntList, 6, {}, {1, 64}},
                 {K::Tensor, 6, {1, 64}}, {K::Tensor, 6, {1, 64}}};
  plan.inputs = {0};
  plan.outputs = {4};
  plan.operators = {{betweenOp, overload}};
  using I = TestInstruction::Kind;
  plan.instructions = {{I::Delegate, 0, 0, {0, 1}}, {I::Kernel, 0, 0, {1, 2, 3}}, {I::Delegate, 1, 0, {3, 4}},
                       {I::Free, 1, 0, {}}};
  p.plans.push_back(std::move(plan));
  return p;
}

}  // namespace openvgf::pte::testing
