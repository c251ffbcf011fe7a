// SPDX-License-Identifier: Apache-2.0
// TOSA -> SPIR-V graph -> TOSA on every case of the operator sweep (tests/support/
// op_sweep_cases.h): the decoded graph must have the original's operators, attributes,
// constant payloads and interface names, and the reference interpreter must give bit-identical
// outputs on both. Also what the encoder refuses, and the layout it writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/op_sweep_cases.h"
#include "tests/tosa/spirv_test_util.h"
#include "tosa/reference/reference.h"
#include "tosa/spirv/decoder.h"
#include "tosa/spirv/encoder.h"
#include "tosa/spirv/grammar.h"

namespace openvgf::tosa::spirv {
namespace {

using ::testing::HasSubstr;

/// The graph with constants resolved to their payloads, one line per non-constant operator.
/// INT4 reads back as INT8 (encoder.h), so both print as INT8.
std::vector<std::string> canonical(const Graph& g) {
  const Block& b = *g.mainBlock();
  auto typeName = [](DType t) { return toString(t == DType::Int4 ? DType::Int8 : t); };
  auto describe = [&](const std::string& name) {
    const Tensor* t = b.findTensor(name);
    if (t == nullptr) return fmt::format("?{}", name);
    if (!t->data) return fmt::format("{}:{}{}", name, typeName(t->dtype), shapeToString(t->shape));
    return fmt::format("const {}{} {}", typeName(t->dtype), shapeToString(t->shape),
                       fmt::join(*t->data, ","));
  };
  std::vector<std::string> out;
  out.push_back(fmt::format("inputs {}", fmt::join(b.inputs, ",")));
  out.push_back(fmt::format("outputs {}", fmt::join(b.outputs, ",")));
  for (const Operator& op : b.operators) {
    if (op.op == Op::Const || op.op == Op::ConstShape) continue;
    std::vector<std::string> ins, outs;
    for (const auto& i : op.inputs) ins.push_back(describe(i));
    for (const auto& o : op.outputs) outs.push_back(describe(o));
    out.push_back(fmt::format("{}({}) -> {}", toString(op.op), fmt::join(ins, "; "), fmt::join(outs, "; ")));
  }
  return out;
}

/// True when both graphs carry the same attributes on their non-constant operators, in order.
bool sameAttributes(const Graph& a, const Graph& b) {
  std::vector<const Operator*> x, y;
  for (const Operator& op : a.mainBlock()->operators) {
    if (op.op != Op::Const && op.op != Op::ConstShape) x.push_back(&op);
  }
  for (const Operator& op : b.mainBlock()->operators) {
    if (op.op != Op::Const && op.op != Op::ConstShape) y.push_back(&op);
  }
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i]->attrs == y[i]->attrs)) return false;
  }
  return true;
}

Result<Graph> roundTrip(const Graph& g, EncodeOptions options = {}) {
  OPENVGF_ASSIGN_OR_RETURN(EncodedGraph encoded, encodeGraph(g, options));
  OPENVGF_ASSIGN_OR_RETURN(Module m, parseModule(encoded.words, "encoded.spv"));
  OPENVGF_ASSIGN_OR_RETURN(GraphSignature sig, graphSignature(m));
  DecodeInputs in;
  in.graphConstant = [&](const GraphConstantRef& ref) -> Result<HostTensor> {
    for (const EncodedGraphConstant& c : encoded.constants) {
      if (c.id == ref.id) return c.value;
    }
    return invalidInput("no graph constant {}", ref.id);
  };
  return decodeGraph(m, sig, in);
}

class SpirvRoundTrip : public ::testing::TestWithParam<testing::Case> {};

TEST_P(SpirvRoundTrip, DecodesToTheSameGraphAndOutputs) {
  auto [original, inputs] = testing::buildCase(GetParam());
  ASSERT_TRUE(original) << original.error().message();
  auto decoded = roundTrip(*original);
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_EQ(canonical(*decoded), canonical(*original));
  EXPECT_TRUE(sameAttributes(*decoded, *original));
  auto expected = reference::run(*original, inputs);
  ASSERT_TRUE(expected) << expected.error().message();
  auto actual = reference::run(*decoded, inputs);
  ASSERT_TRUE(actual) << actual.error().message();
  ASSERT_EQ(actual->outputs.size(), expected->outputs.size());
  for (std::size_t i = 0; i < expected->outputs.size(); ++i) {
    EXPECT_TRUE(actual->outputs[i].value == expected->outputs[i].value) << "output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, SpirvRoundTrip, ::testing::ValuesIn(testing::allCases()),
                         [](const ::testing::TestParamInfo<testing::Case>& param) { return param.param.name; });

TEST(SpirvEncoder, WritesModelConverterLayout) {
  Builder b;
  Value x = b.input("x", DType::Fp32, {1, 4, 4, 2});
  std::vector<float> w(2 * 3 * 3 * 2, 0.25f);
  Value weights = b.constant(DType::Fp32, {2, 3, 3, 2}, w, "weights");
  Value y = b.conv2d(x, weights, std::nullopt, {.pad = {1, 1, 1, 1}});
  b.output(b.clamp(y, 0.0, 6.0, NanMode::Propagate, "y"));
  auto g = b.build();
  ASSERT_TRUE(g) << g.error().message();
  auto encoded = encodeGraph(*g, {.firstGraphConstantId = 7});
  ASSERT_TRUE(encoded) << encoded.error().message();
  // The 36-element weights become graph constant 7; the 2-element bias is inlined.
  ASSERT_EQ(encoded->constants.size(), 1u);
  EXPECT_EQ(encoded->constants[0].id, 7u);
  EXPECT_EQ(encoded->constants[0].tensor, "weights");
  ASSERT_EQ(encoded->inputs.size(), 1u);
  EXPECT_EQ(encoded->inputs[0].binding, 0u);
  EXPECT_EQ(encoded->outputs[0].binding, 1u);
  EXPECT_EQ(encoded->outputs[0].name, "y");
  const auto& words = encoded->words;
  EXPECT_EQ(words[0], kSpirvMagic);
  EXPECT_EQ(testing::findInstructions(words, kOpGraphEntryPointARM).size(), 1u);
  EXPECT_EQ(testing::findInstructions(words, kOpGraphConstantARM).size(), 1u);
  EXPECT_EQ(testing::findInstructions(words, kOpExtInst, 2).size(), 1u);   // CONV2D
  EXPECT_EQ(testing::findInstructions(words, kOpExtInst, 10).size(), 1u);  // CLAMP
  auto m = parseModule(words, "e.spv");
  ASSERT_TRUE(m) << m.error().message();
  EXPECT_THAT(m->extInstImports.begin()->second, "TOSA.001000.1");
  auto sig = graphSignature(*m, "main");
  ASSERT_TRUE(sig) << sig.error().message();
  EXPECT_EQ(sig->inputs[0].name, "x");
  EXPECT_EQ(sig->outputs[0].name, "y");
}

TEST(SpirvEncoder, RefusesWhatHasNoSpirvForm) {
  Builder b;
  Value c = b.input("c", DType::Bool, {1});
  Value x = b.input("x", DType::Int32, {4});
  auto outs = b.condIf(c, {x}, [](Builder& t, const std::vector<Value>& in) { return std::vector<Value>{t.add(in[0], in[0])}; },
                       [](Builder& e, const std::vector<Value>& in) { return std::vector<Value>{e.sub(in[0], in[0])}; });
  b.output(outs[0]);
  auto g = b.build();
  ASSERT_TRUE(g) << g.error().message();
  auto encoded = encodeGraph(*g);
  ASSERT_FALSE(encoded);
  EXPECT_EQ(encoded.error().kind(), ErrorKind::Unsupported);
  EXPECT_THAT(encoded.error().message(), HasSubstr("COND_IF: expected an operator with a TOSA.001000.1 instruction"));
}

}  // namespace
}  // namespace openvgf::tosa::spirv
