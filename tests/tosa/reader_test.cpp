// SPDX-License-Identifier: Apache-2.0
// Reader and writer: the real fixture files (oracle: flatc's JSON rendering of the same files
// with our schema, checked by hand against specs/tosa.md), read -> write -> read losslessness,
// every constant encoding, and malformed files (each an error that names the problem).
#include "tosa/reader.h"

#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>

#include <cstring>

#include "common/file_io.h"
#include "tests/tosa/raw_graph.h"
#include "tosa/packing.h"
#include "tosa/tosa_generated.h"
#include "tosa/writer.h"

namespace openvgf::tosa {
namespace {

std::string dataPath(const char* rel) {
  return std::string(OPENVGF_TEST_DATA) + "/tosa/" + rel;
}

const char* kMaxPool = "simple_maxpool2d/model.tosa";
const char* kAdd = "test_add_1x4x4x4_f32/model.tosa";
const char* kConv = "test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11/model.tosa";

TEST(TosaReader, SimpleMaxPool) {
  auto g = readGraph(std::filesystem::path(dataPath(kMaxPool)));
  ASSERT_TRUE(g) << g.error().message();
  EXPECT_EQ(g->version, (Version{1, 0, 0, false}));
  ASSERT_EQ(g->regions.size(), 1u);
  const Block* main = g->mainBlock();
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->name, "main");
  ASSERT_EQ(main->operators.size(), 1u);
  const Operator& op = main->operators[0];
  EXPECT_EQ(op.op, Op::MaxPool2d);
  EXPECT_EQ(op.attributeTag, 8);
  EXPECT_EQ(op.location, std::optional<std::string>("loc(unknown)"));
  const auto& a = std::get<MaxPool2dAttrs>(op.attrs);
  EXPECT_EQ(a.kernel, (std::vector<std::int32_t>{2, 2}));
  EXPECT_EQ(a.stride, (std::vector<std::int32_t>{2, 2}));
  EXPECT_EQ(a.pad, (std::vector<std::int32_t>{0, 0, 0, 0}));
  EXPECT_EQ(a.nanMode, NanMode::Propagate);
  ASSERT_EQ(main->tensors.size(), 2u);
  EXPECT_EQ(main->tensors[0].name, "TosaInput_0");
  EXPECT_EQ(main->tensors[0].dtype, DType::Int8);
  EXPECT_EQ(main->tensors[0].shape, (Shape{1, 16, 16, 16}));
  EXPECT_FALSE(main->tensors[0].data.has_value());
  EXPECT_EQ(main->tensors[1].shape, (Shape{1, 8, 8, 16}));
  EXPECT_EQ(main->inputs, (std::vector<std::string>{"TosaInput_0"}));
  EXPECT_EQ(main->outputs, (std::vector<std::string>{"TosaOutput_0"}));
}

TEST(TosaReader, AddFixtureIs11Draft) {
  auto g = readGraph(std::filesystem::path(dataPath(kAdd)));
  ASSERT_TRUE(g) << g.error().message();
  EXPECT_EQ(g->version, (Version{1, 1, 0, true}));
  const Block& b = *g->mainBlock();
  ASSERT_EQ(b.operators.size(), 1u);
  EXPECT_EQ(b.operators[0].op, Op::Add);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(b.operators[0].attrs));
  EXPECT_EQ(b.findTensor("TosaInput_0")->shape, (Shape{1, 4, 4, 1}));
  EXPECT_EQ(b.findTensor("TosaInput_1")->shape, (Shape{1, 4, 4, 4}));
  EXPECT_EQ(b.findTensor("TosaOutput_0")->dtype, DType::Fp32);
}

TEST(TosaReader, ConvFixtureConstants) {
  auto g = readGraph(std::filesystem::path(dataPath(kConv)));
  ASSERT_TRUE(g) << g.error().message();
  const Block& b = *g->mainBlock();
  ASSERT_EQ(b.operators.size(), 5u);
  EXPECT_EQ(b.operators[3].op, Op::Transpose);
  EXPECT_EQ(std::get<TransposeAttrs>(b.operators[3].attrs).perms, (std::vector<std::int32_t>{3, 0, 1, 2}));
  const Operator& conv = b.operators[4];
  EXPECT_EQ(conv.op, Op::Conv2d);
  EXPECT_EQ(conv.inputs,
            (std::vector<std::string>{"TosaInput_0", "layer_3", "layer_2", "layer_0", "layer_0"}));
  const auto& ca = std::get<ConvAttrs>(conv.attrs);
  EXPECT_EQ(ca.accType, DType::Fp32);
  EXPECT_EQ(ca.dilation, (std::vector<std::int32_t>{1, 1}));
  // layer_1: FP32 [1,1,8,16]; file data 512 bytes; first values decoded by flatc+struct.
  const Tensor* w = b.findTensor("layer_1");
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->data);
  EXPECT_EQ(w->data->size(), 512u);
  HostTensor wv = constantValue(*w);
  EXPECT_FLOAT_EQ(wv.as<float>()[0], 1.090503215789795f);
  EXPECT_FLOAT_EQ(wv.as<float>()[2], -0.7956364154815674f);
  // layer_0: FP32 [1] stored in 8 padded bytes -> 4 host bytes.
  EXPECT_EQ(b.findTensor("layer_0")->data->size(), 4u);
}

TEST(TosaReader, FixturesRoundTripLosslessly) {
  for (const char* f : {kMaxPool, kAdd, kConv}) {
    auto g = readGraph(std::filesystem::path(dataPath(f)));
    ASSERT_TRUE(g) << f;
    auto bytes = writeGraph(*g);
    ASSERT_TRUE(bytes) << bytes.error().message();
    EXPECT_EQ(std::memcmp(bytes->data() + 4, "TOSA", 4), 0);
    auto again = readGraph(*bytes, "rewritten");
    ASSERT_TRUE(again) << again.error().message();
    EXPECT_EQ(*again, *g) << f;
  }
}

/// A graph with one CONST per dtype exercising the packed encodings.
Graph constantsGraph() {
  Graph g;
  g.regions.push_back({"main", {}});
  Block b;
  b.name = "main";
  auto add = [&](std::string name, DType t, Shape shape, std::vector<std::uint8_t> host) {
    Tensor tensor;
    tensor.name = name;
    tensor.shape = shape;
    tensor.dtype = t;
    tensor.data = std::move(host);
    b.tensors.push_back(tensor);
    Operator op;
    op.op = Op::Const;
    op.attributeTag = 67;
    op.outputs = {name};
    b.operators.push_back(op);
  };
  add("i4", DType::Int4, {3}, {0x07, 0xF9, 0xFF});  // 7, -7, -1
  std::vector<std::uint8_t> i48(16);
  std::int64_t v0 = -(std::int64_t{1} << 47), v1 = 0x123456789A;
  std::memcpy(i48.data(), &v0, 8);
  std::memcpy(i48.data() + 8, &v1, 8);
  add("i48", DType::Int48, {2}, i48);
  add("bf16", DType::Bf16, {1}, {0x80, 0x3F});
  add("e4m3", DType::Fp8E4M3, {2}, {0x38, 0xFE});
  add("e5m2", DType::Fp8E5M2, {1}, {0x3C});
  add("b", DType::Bool, {2}, {1, 0});
  add("scalar", DType::Int32, {}, {1, 2, 3, 4});
  b.outputs = {"i4"};
  Tensor shape;
  shape.name = "s";
  shape.shape = {2};
  shape.dtype = DType::Shape;
  shape.inShapeTable = true;
  shape.data = std::vector<std::uint8_t>(16, 0);
  shape.data->at(0) = 5;
  shape.data->at(8) = 6;
  b.tensors.push_back(shape);
  g.regions[0].blocks.push_back(b);
  return g;
}

TEST(TosaWriter, PackedEncodingsAndPadding) {
  Graph g = constantsGraph();
  auto bytes = writeGraph(g);
  ASSERT_TRUE(bytes) << bytes.error().message();
  // Inspect the raw flatbuffer: INT4 packs low nibble first, INT48 is 6 bytes, all data
  // vectors are padded to 8 bytes.
  const fb::TosaGraph* root = fb::GetTosaGraph(bytes->data());
  const auto* tensors = root->regions()->Get(0)->blocks()->Get(0)->tensors();
  const auto* i4 = tensors->Get(0)->data();
  ASSERT_EQ(i4->size(), 8u);
  EXPECT_EQ(i4->Get(0), 0x97);  // 7 | (-7 & 0xF) << 4
  EXPECT_EQ(i4->Get(1), 0x0F);  // -1, high nibble 0
  const auto* i48 = tensors->Get(1)->data();
  ASSERT_EQ(i48->size(), 16u);
  EXPECT_EQ(i48->Get(5), 0x80);  // sign bit of -2^47
  EXPECT_EQ(i48->Get(6), 0x9A);  // second element starts at byte 6
  for (flatbuffers::uoffset_t i = 0; i < tensors->size(); ++i) {
    EXPECT_EQ(tensors->Get(i)->data()->size() % 8, 0u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(tensors->Get(i)->data()->data()) % 8, 0u);
  }
  const auto* shapes = root->regions()->Get(0)->blocks()->Get(0)->shapes();
  ASSERT_EQ(shapes->size(), 1u);
  EXPECT_EQ(shapes->Get(0)->rank(), 2u);
  auto back = readGraph(*bytes, "mem");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(*back, g);
  EXPECT_EQ(back->mainBlock()->findTensor("i4")->data, (std::vector<std::uint8_t>{0x07, 0xF9, 0xFF}));
}

TEST(TosaReader, UnalignedBufferAndShapeTensorEncoding) {
  Graph g = constantsGraph();
  // Old encoding: a SHAPE-typed tensor in the tensor list.
  g.regions[0].blocks[0].tensors.back().inShapeTable = false;
  auto bytes = writeGraph(g);
  ASSERT_TRUE(bytes);
  std::vector<std::uint8_t> shifted(bytes->size() + 1);
  std::memcpy(shifted.data() + 1, bytes->data(), bytes->size());
  auto back = readGraph(std::span<const std::uint8_t>(shifted.data() + 1, bytes->size()), "mem");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(*back, g);
}

TEST(TosaReader, ExternalTensorData) {
  // A tensor whose data lives after the flatbuffer (TosaTensor.offset/size, models > 2 GB).
  Graph g;
  g.regions.push_back({"main", {}});
  Block b;
  b.name = "main";
  Tensor t;
  t.name = "big";
  t.dtype = DType::Int16;
  t.shape = {3};
  t.externalOffset = 1000;  // any value > 1 first, to learn the flatbuffer's size
  t.externalSize = 6;
  b.tensors.push_back(t);
  b.outputs = {"big"};
  g.regions[0].blocks.push_back(b);
  auto first = writeGraph(g);
  ASSERT_TRUE(first);
  g.regions[0].blocks[0].tensors[0].externalOffset = first->size();
  auto bytes = writeGraph(g);
  ASSERT_TRUE(bytes);
  ASSERT_EQ(bytes->size(), first->size());
  for (std::uint8_t v : {1, 0, 0xFE, 0xFF, 7, 0}) bytes->push_back(v);
  auto read = readGraph(*bytes, "ext.tosa");
  ASSERT_TRUE(read) << read.error().message();
  const Tensor* big = read->mainBlock()->findTensor("big");
  ASSERT_TRUE(big->data);
  EXPECT_EQ(*big->data, (std::vector<std::uint8_t>{1, 0, 0xFE, 0xFF, 7, 0}));
  // Out of the file: a clear error.
  bytes->resize(bytes->size() - 1);
  EXPECT_NE(readGraph(*bytes, "ext.tosa").error().message().find("expected external data inside the file"),
            std::string::npos);
}

//===------------------------------------------------------------------===//
// Hand-built flatbuffers for the malformed cases.
//===------------------------------------------------------------------===//

std::string errorOf(std::span<const std::uint8_t> bytes) {
  auto g = readGraph(bytes, "bad.tosa");
  if (g) return "(no error)";
  EXPECT_EQ(g.error().exitCode(), 2);
  return g.error().message();
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

TEST(TosaReaderMalformed, TruncatedAtEveryOffset) {
  auto bytes = readFile(dataPath(kConv));
  ASSERT_TRUE(bytes);
  auto full = readGraph(*bytes, "full.tosa");
  ASSERT_TRUE(full);
  std::size_t failures = 0;
  for (std::size_t n = 0; n < bytes->size(); n += 1) {
    std::vector<std::uint8_t> cut(bytes->begin(), bytes->begin() + static_cast<std::ptrdiff_t>(n));
    auto g = readGraph(cut, "cut.tosa");
    if (g) {
      // Only trailing alignment padding may be cut without losing anything.
      EXPECT_EQ(*g, *full) << "truncated at " << n;
      EXPECT_GT(n + 8, bytes->size());
      continue;
    }
    ++failures;
    EXPECT_EQ(g.error().message().rfind("cut.tosa: ", 0), 0u);
  }
  EXPECT_GT(failures + 8, bytes->size());
}

TEST(TosaReaderMalformed, WrongIdentifier) {
  auto bytes = readFile(dataPath(kAdd));
  ASSERT_TRUE(bytes);
  std::memcpy(bytes->data() + 4, "TOSB", 4);
  EXPECT_CONTAINS(errorOf(*bytes), "expected file identifier 'TOSA' at bytes 4..7, got 'TOSB'");
}

TEST(TosaReaderMalformed, OffsetsOutOfBounds) {
  auto bytes = readFile(dataPath(kAdd));
  ASSERT_TRUE(bytes);
  std::vector<std::uint8_t> root = *bytes;
  root[0] = 0xF0;
  root[1] = 0xFF;
  EXPECT_CONTAINS(errorOf(root), "fails flatbuffers verification");
  // Corrupt every 4-byte word in turn: never a crash, either a clean error or a graph.
  for (std::size_t i = 8; i + 4 <= bytes->size(); i += 4) {
    std::vector<std::uint8_t> c = *bytes;
    c[i] ^= 0xFF;
    c[i + 3] ^= 0x7F;
    auto g = readGraph(c, "c.tosa");
    if (!g) {
      EXPECT_EQ(g.error().message().rfind("c.tosa: ", 0), 0u);
    }
  }
}

TEST(TosaReaderMalformed, VersionChecks) {
  std::vector<RawTensor> t = {{"x", {1}, 5, {}}};
  EXPECT_CONTAINS(errorOf(rawGraph(0, 80, 68, t)), "pre-1.0 (0.x) file");
  EXPECT_CONTAINS(errorOf(rawGraph(2, 0, 68, t)), "expected TOSA format 1.0.x or a 1.1 draft, got 2.0.0");
  EXPECT_EQ(errorOf(rawGraph(1, 0, 68, t)), "(no error)");
  EXPECT_EQ(errorOf(rawGraph(1, 1, 68, t)), "(no error)");
}

TEST(TosaReaderMalformed, UnknownOpAndDTypeNumbers) {
  std::vector<RawTensor> t = {{"x", {1}, 5, {}}};
  EXPECT_CONTAINS(errorOf(rawGraph(1, 0, 99, t)),
                  "operators[0]: op: expected a TOSA 1.0 operator number 1..75, got 99");
  EXPECT_CONTAINS(errorOf(rawGraph(1, 0, 80, t)), "TOSA 1.1 draft operator");
  EXPECT_CONTAINS(errorOf(rawGraph(1, 0, 0, t)), "got 0 (UNKNOWN)");
  std::vector<RawTensor> badType = {{"x", {1}, 40, {}}};
  EXPECT_CONTAINS(errorOf(rawGraph(1, 0, 68, badType)),
                  "tensors 'x': type: expected a TOSA 1.0 DType number 1..12, got 40");
  EXPECT_CONTAINS(errorOf(rawGraph(1, 0, 68, t, 200)),
                  "attribute_type: expected an attribute tag 0..75, got 200");
}

TEST(TosaReaderMalformed, DataShorterThanShape) {
  std::vector<RawTensor> t = {{"weights", {2, 3}, 5, std::vector<std::uint8_t>(20, 1)}};
  EXPECT_CONTAINS(errorOf(rawGraph(1, 0, 67, t)),
                  "tensors 'weights': data: expected 24 bytes for shape [2,3] of INT32, got 20 bytes (data "
                  "shorter than shape)");
  std::vector<RawTensor> i4 = {{"w4", {5}, 2, {1, 2}}};
  EXPECT_CONTAINS(errorOf(rawGraph(1, 0, 67, i4)), "expected 3 bytes for shape [5] of INT4");
  std::vector<RawTensor> i48 = {{"acc", {2}, 6, std::vector<std::uint8_t>(11, 0)}};
  EXPECT_CONTAINS(errorOf(rawGraph(1, 0, 67, i48)), "expected 12 bytes for shape [2] of INT48");
  std::vector<RawTensor> huge = {{"h", {65536, 65536, 65536}, 7, {1}}};
  EXPECT_CONTAINS(errorOf(rawGraph(1, 0, 67, huge)), "tensors 'h': data: expected");
  std::vector<RawTensor> negative = {{"n", {-1, 3}, 7, {}}};
  EXPECT_CONTAINS(errorOf(rawGraph(1, 0, 68, negative)), "shape[0]: expected a dimension >= 0");
}

TEST(TosaReaderMalformed, AttributeTagOfAnotherLayout) {
  // IDENTITY with a VariableReadAttribute tag is legal (dispatch on op; tag kept).
  std::vector<RawTensor> t = {{"x", {1}, 5, {}}};
  auto g = readGraph(rawGraph(1, 0, 68, t, 74), "m");
  ASSERT_TRUE(g) << g.error().message();
  EXPECT_EQ(g->mainBlock()->operators[0].op, Op::Identity);
  EXPECT_EQ(g->mainBlock()->operators[0].attributeTag, 74);
  auto again = writeGraph(*g);
  ASSERT_TRUE(again);
  EXPECT_EQ(*readGraph(*again, "m2"), *g);
  // CONV2D carrying an ADD attribute table cannot be read as convolution attributes. The tag
  // needs a table, so build it by hand.
  flatbuffers::FlatBufferBuilder fbb;
  auto add = fb::CreateAddAttribute(fbb);
  auto op = fb::CreateTosaOperator(fbb, fb::Op::CONV2D, fb::Attribute::AddAttribute, add.Union());
  std::vector<flatbuffers::Offset<fb::TosaOperator>> ops = {op};
  auto block = fb::CreateTosaBasicBlock(fbb, fbb.CreateString("main"), fbb.CreateVector(ops));
  std::vector<flatbuffers::Offset<fb::TosaBasicBlock>> blocks = {block};
  std::vector<flatbuffers::Offset<fb::TosaRegion>> regions = {
      fb::CreateTosaRegion(fbb, fbb.CreateString("main"), fbb.CreateVector(blocks))};
  fb::FinishTosaGraphBuffer(
      fbb, fb::CreateTosaGraph(fbb, fb::CreateVersion(fbb, 1, 0, 0, false), fbb.CreateVector(regions)));
  std::vector<std::uint8_t> bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  EXPECT_CONTAINS(
      errorOf(bytes),
      "operators[0] CONV2D: attribute_type: expected CONV2D's attribute table (tag 3), got tag 15");
}

TEST(TosaReaderMalformed, EmptyAndGarbage) {
  EXPECT_CONTAINS(errorOf({}), "at least 8 bytes");
  std::vector<std::uint8_t> garbage(64, 0xAB);
  std::memcpy(garbage.data() + 4, "TOSA", 4);
  EXPECT_CONTAINS(errorOf(garbage), "fails flatbuffers verification");
}

}  // namespace
}  // namespace openvgf::tosa
