// SPDX-License-Identifier: Apache-2.0
// The SPIR-V TOSA graph decoder on the hand-written graph modules of Khronos' Vulkan-Samples
// (tests/data/vgf-graph, see third_party_notes.md) and on modules written here word by word:
// the decoded graphs are checked field by field against the .spvasm texts and run through
// the reference interpreter against hand-computed outputs; corrupted modules must fail with a
// message that names the instruction and the rule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "tests/tosa/spirv_test_util.h"
#include "tosa/reference/reference.h"
#include "tosa/spirv/decoder.h"
#include "tosa/spirv/grammar.h"

namespace openvgf::tosa::spirv {
namespace {

using ::testing::HasSubstr;
using testing::findInstructions;
using testing::loadSpirv;
using testing::SpirvWriter;
using testing::unshapedPoolClamp;

std::vector<std::uint32_t> fixture(const std::string& name) {
  return loadSpirv(std::string(OPENVGF_TEST_DATA) + "/vgf-graph/" + name + ".spvasm.spv");
}

const Operator* findOp(const Graph& g, Op op) {
  for (const Operator& o : g.mainBlock()->operators) {
    if (o.op == op) return &o;
  }
  return nullptr;
}

/// Decodes `words` with `constants` as graph-constant payloads (by id).
Result<Graph> decodeWords(const std::vector<std::uint32_t>& words, const std::map<std::uint32_t, HostTensor>& constants = {},
                          std::vector<Shape> inputShapes = {}) {
  OPENVGF_ASSIGN_OR_RETURN(Module m, parseModule(words, "test.spv"));
  OPENVGF_ASSIGN_OR_RETURN(GraphSignature sig, graphSignature(m));
  DecodeInputs in;
  in.inputShapes = std::move(inputShapes);
  in.graphConstant = [&](const GraphConstantRef& ref) -> Result<HostTensor> {
    auto it = constants.find(ref.id);
    if (it == constants.end()) return invalidInput("no payload for graph constant {}", ref.id);
    return it->second;
  };
  return decodeGraph(m, sig, in);
}

TEST(SpirvDecoder, Conv2dFp32SignatureAndGraph) {
  auto m = parseModule(fixture("conv2d"), "conv2d.spv");
  ASSERT_TRUE(m) << m.error().message();
  auto sig = graphSignature(*m);
  ASSERT_TRUE(sig) << sig.error().message();
  EXPECT_EQ(sig->entryPoint, "main");
  ASSERT_EQ(sig->inputs.size(), 1u);
  ASSERT_EQ(sig->outputs.size(), 1u);
  EXPECT_EQ(sig->inputs[0].dtype, DType::Fp32);
  EXPECT_EQ(sig->inputs[0].shape, (Shape{1, 20, 20, 3}));
  EXPECT_EQ(sig->inputs[0].binding, 0u);
  EXPECT_EQ(sig->inputs[0].descriptorSet, 0u);
  EXPECT_EQ(sig->outputs[0].binding, 1u);
  ASSERT_EQ(sig->constants.size(), 2u);
  EXPECT_EQ(sig->constants[0].id, 0u);
  EXPECT_EQ(sig->constants[0].shape, (Shape{3, 3, 3, 3}));
  EXPECT_EQ(sig->constants[1].id, 1u);
  EXPECT_EQ(sig->constants[1].shape, (Shape{3}));
  EXPECT_THAT(listGraph(*m, *sig), HasSubstr("CONV2D(%40, graph_constant[0], graph_constant[1], const %34 = [0], const %35 = [0]) : FP32[1,20,20,3]"));

  // Weights: the centre tap copies channel c to channel c; bias 0.5, 1, 2. Output = input + bias.
  HostTensor weights(DType::Fp32, {3, 3, 3, 3});
  for (int c = 0; c < 3; ++c) weights.as<float>()[static_cast<std::size_t>(((c * 3 + 1) * 3 + 1) * 3 + c)] = 1.0f;
  HostTensor bias(DType::Fp32, {3});
  bias.as<float>()[0] = 0.5f;
  bias.as<float>()[1] = 1.0f;
  bias.as<float>()[2] = 2.0f;
  auto g = decodeWords(fixture("conv2d"), {{0, weights}, {1, bias}});
  ASSERT_TRUE(g) << g.error().message();
  const Operator* conv = findOp(*g, Op::Conv2d);
  ASSERT_NE(conv, nullptr);
  const auto& attrs = std::get<ConvAttrs>(conv->attrs);
  EXPECT_EQ(attrs.pad, (std::vector<std::int32_t>{1, 1, 1, 1}));
  EXPECT_EQ(attrs.stride, (std::vector<std::int32_t>{1, 1}));
  EXPECT_EQ(attrs.dilation, (std::vector<std::int32_t>{1, 1}));
  EXPECT_EQ(attrs.accType, DType::Fp32);
  EXPECT_FALSE(attrs.localBound);
  HostTensor x(DType::Fp32, {1, 20, 20, 3});
  for (std::int64_t i = 0; i < x.size(); ++i) x.as<float>()[static_cast<std::size_t>(i)] = static_cast<float>(i % 17) - 8.0f;
  auto run = reference::run(*g, std::vector<HostTensor>{x});
  ASSERT_TRUE(run) << run.error().message();
  const HostTensor& y = run->outputs[0].value;
  ASSERT_EQ(y.shape, x.shape);
  for (std::int64_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(y.as<float>()[static_cast<std::size_t>(i)], x.as<float>()[static_cast<std::size_t>(i)] + bias.as<float>()[static_cast<std::size_t>(i % 3)])
        << "element " << i;
  }
}

TEST(SpirvDecoder, Conv2dInt8RescaleChainIsTheIdentityForCentreTapWeights) {
  // RESCALE u8 -> i8 (x - 128), CONV2D with input_zp -128 (x), CAST i32 -> i16, RESCALE
  // i16 -> u8 (x): with a centre-tap identity kernel the graph returns its input. The sample
  // passes rounding_mode 0 and an i32 zero point for the i16 RESCALE, which openvgf accepts.
  HostTensor weights(DType::Int8, {4, 3, 3, 4});
  for (int c = 0; c < 4; ++c) weights.as<std::int8_t>()[static_cast<std::size_t>(((c * 3 + 1) * 3 + 1) * 4 + c)] = 1;
  auto g = decodeWords(fixture("conv2d_int8"), {{0, weights}});
  ASSERT_TRUE(g) << g.error().message();
  std::vector<Op> ops;
  for (const Operator& o : g->mainBlock()->operators) {
    if (o.op != Op::Const) ops.push_back(o.op);
  }
  EXPECT_EQ(ops, (std::vector<Op>{Op::Rescale, Op::Conv2d, Op::Cast, Op::Rescale}));
  const auto& first = std::get<RescaleAttrs>(findOp(*g, Op::Rescale)->attrs);
  EXPECT_TRUE(first.scale32);
  EXPECT_EQ(first.roundingMode, RoundingMode::SingleRound);
  EXPECT_TRUE(first.inputUnsigned);
  EXPECT_FALSE(first.outputUnsigned);
  HostTensor x(DType::Int8, {1, 720, 1280, 4});
  for (std::int64_t i = 0; i < x.size(); ++i) x.as<std::uint8_t>()[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>((i * 7) % 256);
  auto run = reference::run(*g, std::vector<HostTensor>{x});
  ASSERT_TRUE(run) << run.error().message();
  EXPECT_TRUE(run->outputs[0].value == x);
}

TEST(SpirvDecoder, AvgPoolOfAConstantIsTheConstant) {
  auto g = decodeWords(fixture("pooling"));
  ASSERT_TRUE(g) << g.error().message();
  const Operator* pool = findOp(*g, Op::AvgPool2d);
  ASSERT_NE(pool, nullptr);
  const auto& attrs = std::get<AvgPool2dAttrs>(pool->attrs);
  EXPECT_EQ(attrs.kernel, (std::vector<std::int32_t>{3, 3}));
  EXPECT_EQ(attrs.stride, (std::vector<std::int32_t>{2, 2}));
  EXPECT_EQ(attrs.pad, (std::vector<std::int32_t>{1, 0, 1, 0}));
  EXPECT_EQ(attrs.accType, DType::Fp32);
  HostTensor x(DType::Fp32, {1, 10, 10, 3});
  for (float& v : x.as<float>()) v = 2.5f;
  auto run = reference::run(*g, std::vector<HostTensor>{x});
  ASSERT_TRUE(run) << run.error().message();
  ASSERT_EQ(run->outputs[0].value.shape, (Shape{1, 5, 5, 3}));
  for (float v : run->outputs[0].value.as<float>()) EXPECT_EQ(v, 2.5f);
}

TEST(SpirvDecoder, UnshapedInterfaceTakesTheCallersShapeAndInfersTheRest) {
  auto m = parseModule(unshapedPoolClamp(), "hand.spv");
  ASSERT_TRUE(m) << m.error().message();
  auto sig = graphSignature(*m);
  ASSERT_TRUE(sig) << sig.error().message();
  EXPECT_EQ(sig->inputs[0].rank, 4u);
  EXPECT_FALSE(sig->inputs[0].shape.has_value());
  // Without a shape the graph cannot be decoded.
  auto missing = decodeGraph(*m, *sig, {});
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message(), HasSubstr("input 0: expected a declared shape or one given by the caller"));
  DecodeInputs in;
  in.inputShapes = {{1, 8, 6, 2}};
  auto g = decodeGraph(*m, *sig, in);
  ASSERT_TRUE(g) << g.error().message();
  EXPECT_EQ(g->mainBlock()->findTensor(g->mainBlock()->outputs[0])->shape, (Shape{1, 4, 3, 2}));
  HostTensor x(DType::Fp32, {1, 8, 6, 2});
  for (std::int64_t i = 0; i < x.size(); ++i) x.as<float>()[static_cast<std::size_t>(i)] = static_cast<float>(i % 11) - 3.0f;
  auto run = reference::run(*g, std::vector<HostTensor>{x});
  ASSERT_TRUE(run) << run.error().message();
  const auto y = run->outputs[0].value.as<float>();
  // Hand-computed: max over each 2x2 window, then clamp to [0, 6].
  for (std::int64_t oy = 0; oy < 4; ++oy) {
    for (std::int64_t ox = 0; ox < 3; ++ox) {
      for (std::int64_t c = 0; c < 2; ++c) {
        float best = -1e9f;
        for (std::int64_t ky = 0; ky < 2; ++ky) {
          for (std::int64_t kx = 0; kx < 2; ++kx) {
            best = std::max(best, x.as<float>()[static_cast<std::size_t>(((oy * 2 + ky) * 6 + ox * 2 + kx) * 2 + c)]);
          }
        }
        EXPECT_EQ(y[static_cast<std::size_t>((oy * 3 + ox) * 2 + c)], std::clamp(best, 0.0f, 6.0f));
      }
    }
  }
  // A shape of the wrong rank is refused.
  in.inputShapes = {{8, 6, 2}};
  auto wrongRank = decodeGraph(*m, *sig, in);
  ASSERT_FALSE(wrongRank);
  EXPECT_THAT(wrongRank.error().message(), HasSubstr("expected shape [8,6,2] to fit the declared type FP32 of rank 4"));
}

TEST(SpirvDecoder, UnknownTosaInstructionNamesTheWordAndTheRule) {
  auto words = fixture("conv2d");
  const std::size_t at = findInstructions(words, kOpExtInst, 2).at(0);
  words[at + 4] = 99;
  auto g = decodeWords(words);
  ASSERT_FALSE(g);
  EXPECT_THAT(g.error().message(), HasSubstr(fmt::format("test.spv: word {} OpExtInst: expected a TOSA.001000.1 instruction "
                                                         "number, got 99", at)));
}

TEST(SpirvDecoder, NonConstantAttributeIsRefused) {
  auto words = fixture("conv2d");
  const std::size_t at = findInstructions(words, kOpExtInst, 2).at(0);
  words[at + 5] = words[at + 10];  // pad := the input tensor
  auto g = decodeWords(words);
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().kind(), ErrorKind::InvalidInput);
  EXPECT_THAT(g.error().message(), HasSubstr(fmt::format("word {} CONV2D: pad <id> 40: expected a constant instruction", at)));
}

// Found by the spirv_graph fuzz target: a CONV2D whose stride is a replicated composite of
// millions of elements took 11 s to decode (under ASan). TOSA's list attributes hold one entry
// per dimension, so a long one is refused from its type, before the constant is expanded.
TEST(SpirvDecoder, ListAttributesLongerThanAnyTosaListAreRefusedBeforeExpanding) {
  const auto words = loadSpirv(std::string(OPENVGF_TEST_DATA) + "/vgf-graph/fuzz_long_stride_attribute.spv");
  auto m = parseModule(words, "fuzz.spv");
  ASSERT_TRUE(m) << m.error().message();
  auto sig = graphSignature(*m);
  ASSERT_TRUE(sig) << sig.error().message();
  DecodeInputs in;
  for (const InterfaceTensor& t : sig->inputs) in.inputShapes.push_back(t.shape ? *t.shape : Shape(t.rank.value_or(1), 2));
  in.graphConstant = [](const GraphConstantRef& ref) -> Result<HostTensor> { return HostTensor(ref.dtype, ref.shape); };
  auto g = decodeGraph(*m, *sig, in);
  ASSERT_FALSE(g);
  EXPECT_THAT(g.error().message(), HasSubstr("stride <id>"));
  EXPECT_THAT(g.error().message(), HasSubstr("expected a rank-1 integer tensor constant of at most 64 elements, got shape"));
}

TEST(SpirvDecoder, UndefinedIdIsRefused) {
  auto words = fixture("conv2d");
  const std::size_t at = findInstructions(words, kOpExtInst, 2).at(0);
  words[at + 10] = 5000;
  auto g = decodeWords(words);
  ASSERT_FALSE(g);
  EXPECT_THAT(g.error().message(), HasSubstr(fmt::format("word {} OpExtInst: operand 5 <id> 5000: expected an id defined "
                                                         "before this instruction", at)));
}

TEST(SpirvDecoder, DeclaredResultTypeMustMatchTheInferredShape) {
  auto words = fixture("pooling");
  const std::size_t at = findInstructions(words, kOpExtInst, 1).at(0);
  const std::size_t input = findInstructions(words, kOpGraphInputARM).at(0);
  words[at + 1] = words[input + 1];  // declare the 10x10 input type as the pool's result
  auto g = decodeWords(words);
  ASSERT_FALSE(g);
  EXPECT_THAT(g.error().message(), HasSubstr(fmt::format("word {} AVG_POOL2D: result 0: expected the declared type "
                                                         "FP32[1,10,10,3] to match the inferred FP32[1,5,5,3]", at)));
}

TEST(SpirvDecoder, NonSemanticInstructionsInTheGlobalSectionAreIgnored) {
  auto words = fixture("pooling");
  const std::uint32_t set = words[3], voidType = set + 1, debug = set + 2;
  words[3] += 3;
  SpirvWriter extra(0);
  extra.opString(kOpExtInstImport, {set}, "NonSemantic.Test");
  std::vector<std::uint32_t> import(extra.words().begin() + 5, extra.words().end());
  words.insert(words.begin() + static_cast<std::ptrdiff_t>(findInstructions(words, kOpExtInstImport).at(0)), import.begin(),
               import.end());
  const std::vector<std::uint32_t> global{(2u << 16) | kOpTypeVoid, voidType, (5u << 16) | kOpExtInst, voidType, debug, set, 1};
  words.insert(words.begin() + static_cast<std::ptrdiff_t>(findInstructions(words, kOpGraphEntryPointARM).at(0)), global.begin(),
               global.end());
  auto g = decodeWords(words);
  ASSERT_TRUE(g) << g.error().message();
  EXPECT_NE(findOp(*g, Op::AvgPool2d), nullptr);
}

TEST(SpirvDecoder, TruncatedAndForeignModulesAreRefused) {
  auto words = fixture("pooling");
  words.resize(words.size() - 2);
  auto truncated = parseModule(words, "t.spv");
  ASSERT_FALSE(truncated);
  EXPECT_THAT(truncated.error().message(), HasSubstr("t.spv: word"));
  EXPECT_THAT(truncated.error().message(), HasSubstr("before the end of the module"));
  auto bad = fixture("pooling");
  bad[0] = 0x03022307;
  auto magic = parseModule(bad, "m.spv");
  ASSERT_FALSE(magic);
  EXPECT_THAT(magic.error().message(), HasSubstr("m.spv: word 0: expected the SPIR-V magic number 0x07230203"));
  auto function = fixture("pooling");
  function[findInstructions(function, kOpGraphARM).at(0)] = (3u << 16) | kOpFunction;
  auto shader = parseModule(function, "f.spv");
  ASSERT_FALSE(shader);
  EXPECT_EQ(shader.error().kind(), ErrorKind::Unsupported);
  EXPECT_THAT(shader.error().message(), HasSubstr("OpFunction: expected an instruction of a TOSA graph module"));
}

}  // namespace
}  // namespace openvgf::tosa::spirv
