// SPDX-License-Identifier: Apache-2.0
// .pte reader on programs built here with flatbuffers (tests/pte/pte_writer.h): INLINE and
// SEGMENT payloads, no / 24-byte / 32-byte extended headers, a 64-byte header block,
// several plans and delegates, shared payloads, absent processed fields, a VGF payload and
// an Ethos-U vela_bin_stream payload; then corruption of the container.
#include "pte/program.h"

#include <gtest/gtest.h>

#include "ethosu/vela_bin_stream.h"
#include "pte_writer.h"
#include "vgf/builder.h"

namespace openvgf::pte {
namespace {

using testing::TestProgram;
using testing::WrittenProgram;

std::vector<std::uint8_t> sampleVgf() {
  vgf::Builder b;
  vgf::ModuleId m = b.addModule("add", "main", {0x07230203u, 1, 2, 3});
  vgf::ResourceId in = b.addResource(vgf::ResourceCategory::Input, 100, {1, 4});
  vgf::ResourceId out = b.addResource(vgf::ResourceCategory::Output, 100, {1, 4});
  b.addSegment("add", m, {vgf::DescriptorSet{vgf::kUnset, {{0, in}, {1, out}}}}, {{0, in}}, {{1, out}}, {},
               {1, 1, 1});
  b.setInputs({{0, in}}, {"x"});
  b.setOutputs({{1, out}}, {"y"});
  return *b.finish();
}

std::vector<std::uint8_t> sampleVela() {
  std::vector<std::uint8_t> cmd = {'C', 'O', 'P', '1', 1, 0, 16, 0, 9, 9, 9, 9, 7, 7, 7, 7};
  std::vector<std::uint8_t> weights(40, 0xAB);
  VelaIo in{{1, 1, 1, 3, 4, 4}, 1, 0, 1};
  VelaIo out{{1, 1, 1, 1, 1, 4}, 1, 64, 1};
  return *ethosu::makeVelaBinStream(cmd, weights, 4096, {in}, {out});
}

TestProgram sampleProgram() {
  TestProgram spec;
  spec.payloads = {sampleVgf(), sampleVela(), {1, 2, 3, 4, 5}};
  spec.plans = {
      {"forward",
       {{"VgfBackend", 0, {{"output_format", "vgf"}, {"tosa_spec", "TOSA-1.0+FP"}}},
        {"EthosUBackend", 1, {{"output_format", "vela"}, {"target", "ethos-u55-128"}}},
        {"XnnpackBackend", 2, {}}}},
      {"other", {{"VgfBackend", 0, {}}, {"ArmBackend", 1, {}}}},
  };
  return spec;
}

void expectSample(const Program& program, const TestProgram& spec, const WrittenProgram& written) {
  ASSERT_EQ(program.plans.size(), 2u);
  EXPECT_EQ(program.plans[0].name, "forward");
  EXPECT_EQ(program.plans[1].name, "other");
  ASSERT_EQ(program.plans[0].delegates.size(), 3u);
  ASSERT_EQ(program.plans[1].delegates.size(), 2u);
  for (std::size_t p = 0; p < 2; ++p) {
    for (std::size_t d = 0; d < spec.plans[p].delegates.size(); ++d) {
      SCOPED_TRACE(p * 10 + d);
      const Delegate& delegate = program.plans[p].delegates[d];
      const auto& expected = spec.plans[p].delegates[d];
      EXPECT_EQ(delegate.backendId, expected.backendId);
      EXPECT_EQ(delegate.dataIndex, expected.payload);
      EXPECT_EQ(delegate.location, spec.segments ? DataLocation::Segment : DataLocation::Inline);
      const auto& payload = spec.payloads[expected.payload];
      EXPECT_TRUE(
          std::equal(delegate.payload.begin(), delegate.payload.end(), payload.begin(), payload.end()));
      EXPECT_EQ(delegate.payloadOffset, written.payloadOffsets[expected.payload]);
      EXPECT_EQ(delegate.payloadOffset % 16, 0u);
      EXPECT_EQ(delegate.payloadProblem, "");
      ASSERT_EQ(delegate.compileSpecs.size(), expected.compileSpecs.size());
      for (std::size_t s = 0; s < expected.compileSpecs.size(); ++s) {
        EXPECT_EQ(delegate.compileSpecs[s].key, expected.compileSpecs[s].first);
        EXPECT_EQ(std::string(delegate.compileSpecs[s].value.begin(), delegate.compileSpecs[s].value.end()),
                  expected.compileSpecs[s].second);
      }
    }
  }
  EXPECT_EQ(program.plans[0].delegates[0].kind, PayloadKind::Vgf);
  EXPECT_EQ(program.plans[0].delegates[1].kind, PayloadKind::VelaBinStream);
  EXPECT_EQ(program.plans[0].delegates[2].kind, PayloadKind::Raw);
  EXPECT_EQ(program.plans[1].delegates[1].kind, PayloadKind::VelaBinStream);  // legacy ArmBackend
  ASSERT_TRUE(program.plans[0].delegates[1].vela.has_value());
  const VelaStream& vela = *program.plans[0].delegates[1].vela;
  EXPECT_EQ(vela.commandStreamMagic, "COP1");
  EXPECT_EQ(vela.commandStream.size(), 16u);
  EXPECT_EQ(vela.weights.size(), 40u);
  EXPECT_EQ(vela.scratchSize, 4096u);
  EXPECT_EQ(vela.layout, ethosu::VelaLayout::ScratchSize6D);
  ASSERT_EQ(vela.inputs.size(), 1u);
  EXPECT_EQ(vela.outputs[0].offset, 64);
}

TEST(PteReader, InlineWithoutHeader) {
  TestProgram spec = sampleProgram();
  WrittenProgram written = testing::writeProgram(spec);
  Result<Program> program = readProgram(written.bytes);
  ASSERT_TRUE(program) << program.error().message();
  EXPECT_FALSE(program->extendedHeader);
  EXPECT_EQ(program->programSize, written.bytes.size());
  EXPECT_EQ(program->inlineDataCount, 3u);
  ASSERT_EQ(program->segments.size(), 1u);  // the zero-size constant segment
  expectSample(*program, spec, written);
}

TEST(PteReader, SegmentsWith32ByteHeader) {
  TestProgram spec = sampleProgram();
  spec.segments = true;
  spec.headerLength = 32;
  WrittenProgram written = testing::writeProgram(spec);
  Result<Program> program = readProgram(written.bytes);
  ASSERT_TRUE(program) << program.error().message();
  ASSERT_TRUE(program->extendedHeader);
  EXPECT_EQ(program->extendedHeader->length, 32u);
  EXPECT_EQ(program->programSize, written.programSize);
  EXPECT_EQ(program->segmentBaseOffset, written.segmentBase);
  EXPECT_EQ(program->segmentBaseOffset % 128, 0u);
  EXPECT_EQ(program->extendedHeader->segmentDataSize, written.bytes.size() - written.segmentBase);
  ASSERT_EQ(program->segments.size(), 3u);
  EXPECT_EQ(program->segments[0].offset, 0u);
  EXPECT_EQ(program->segments[1].offset % 128, 0u);
  expectSample(*program, spec, written);
}

TEST(PteReader, SegmentsWith24ByteHeader) {
  TestProgram spec = sampleProgram();
  spec.segments = true;
  spec.headerLength = 24;
  WrittenProgram written = testing::writeProgram(spec);
  Result<Program> program = readProgram(written.bytes);
  ASSERT_TRUE(program) << program.error().message();
  EXPECT_EQ(program->extendedHeader->length, 24u);
  EXPECT_EQ(program->extendedHeader->segmentDataSize, 0u);  // not in a 24-byte header
  expectSample(*program, spec, written);
}

TEST(PteReader, HeaderBlockPaddedTo64) {
  TestProgram spec = sampleProgram();
  spec.segments = true;
  spec.headerLength = 32;
  spec.headerBlock = 64;
  WrittenProgram written = testing::writeProgram(spec);
  Result<Program> program = readProgram(written.bytes);
  ASSERT_TRUE(program) << program.error().message();
  expectSample(*program, spec, written);
}

TEST(PteReader, InlineWithHeader) {
  TestProgram spec = sampleProgram();
  spec.headerLength = 32;
  WrittenProgram written = testing::writeProgram(spec);
  Result<Program> program = readProgram(written.bytes);
  ASSERT_TRUE(program) << program.error().message();
  expectSample(*program, spec, written);
}

TEST(PteReader, AbsentProcessedMeansInlineIndexZeroAndNamedData) {
  TestProgram spec;
  spec.payloads = {sampleVela()};
  spec.plans = {{"forward", {{"EthosUBackend", 0, {}, true}}}};
  spec.namedData = {{"weights_key", 0}};
  WrittenProgram written = testing::writeProgram(spec);
  Result<Program> program = readProgram(written.bytes);
  ASSERT_TRUE(program) << program.error().message();
  const Delegate& d = program->plans[0].delegates[0];
  EXPECT_EQ(d.location, DataLocation::Inline);
  EXPECT_EQ(d.dataIndex, 0u);
  EXPECT_EQ(d.payload.size(), spec.payloads[0].size());
  ASSERT_EQ(program->namedData.size(), 1u);
  EXPECT_EQ(program->namedData[0].key, "weights_key");
}

TEST(PteReader, InvalidPayloadsAreRecordedNotFatal) {
  TestProgram spec;
  std::vector<std::uint8_t> brokenVgf = sampleVgf();
  brokenVgf.resize(200);
  spec.payloads = {brokenVgf, {'n', 'o', 't', ' ', 'v', 'e', 'l', 'a'}};
  spec.plans = {{"forward", {{"VgfBackend", 0, {}}, {"EthosUBackend", 1, {}}}}};
  WrittenProgram written = testing::writeProgram(spec);
  Result<Program> program = readProgram(written.bytes);
  ASSERT_TRUE(program) << program.error().message();
  EXPECT_EQ(program->plans[0].delegates[0].payloadProblem.rfind("header: module_section.size", 0), 0u)
      << program->plans[0].delegates[0].payloadProblem;
  EXPECT_EQ(program->plans[0].delegates[1].payloadProblem,
            "vela_bin_stream: block 0: expected a 32-byte block header at offset 0, got 8 bytes");
}

std::string readError(std::vector<std::uint8_t> bytes) {
  Result<Program> program = readProgram(bytes);
  if (program) return "read";
  EXPECT_EQ(program.error().kind(), ErrorKind::InvalidInput);
  return program.error().message();
}

TEST(PteCorruption, HeaderFields) {
  TestProgram spec = sampleProgram();
  spec.segments = true;
  spec.headerLength = 32;
  const std::vector<std::uint8_t> good = testing::writeProgram(spec).bytes;
  auto bytes = good;
  bytes[5] = 'X';
  EXPECT_EQ(readError(bytes), "file identifier: expected \"ET12\" at offset 4, got 45 58 31 32");
  bytes = good;
  testing::putLe<std::uint32_t>(bytes, 12, 16);
  EXPECT_EQ(readError(bytes), "extended header: length: expected at least 24, got 16");
  bytes = good;
  testing::putLe<std::uint64_t>(bytes, 16, good.size() + 1);
  EXPECT_EQ(readError(bytes),
            fmt::format("extended header: program_size: expected 40 to {} (the file size), got {}",
                        good.size(), good.size() + 1));
  bytes = good;
  testing::putLe<std::uint64_t>(bytes, 24, ~0ull);
  EXPECT_EQ(readError(bytes),
            fmt::format("extended header: segment_base_offset: expected at most the file size {}, "
                        "got 18446744073709551615",
                        good.size()));
  bytes = good;
  testing::putLe<std::uint64_t>(bytes, 32, ~0ull);
  EXPECT_EQ(readError(bytes).rfind("extended header: segment_data_size: expected at most", 0), 0u);
  bytes = good;
  testing::putLe<std::uint64_t>(bytes, 16, 64);  // program cut short: the flatbuffer no longer verifies
  EXPECT_EQ(readError(bytes),
            "program: expected a valid ExecuTorch Program flatbuffer in bytes [0, 64), got data "
            "that fails verification");
  bytes = good;
  testing::putLe<std::uint32_t>(bytes, 0, 0x7FFFFFF0u);  // root offset out of range
  EXPECT_EQ(readError(bytes).rfind("program: expected a valid ExecuTorch Program flatbuffer", 0), 0u);
  EXPECT_EQ(readError({0, 0, 0}), "file identifier: expected \"ET12\" at offset 4, got a 3-byte file");
}

TEST(PteCorruption, SegmentRangesAndIndexes) {
  TestProgram spec = sampleProgram();
  spec.segments = true;
  spec.headerLength = 32;
  WrittenProgram written = testing::writeProgram(spec);
  // Cut the file inside the last segment: the header's segment_data_size and the segment
  // ranges no longer fit.
  std::vector<std::uint8_t> cut(written.bytes.begin(), written.bytes.end() - 3);
  testing::putLe<std::uint64_t>(cut, 32, 0);  // so that the header check passes
  EXPECT_EQ(readError(cut).rfind(
                "execution_plan[0] 'forward': delegates[2]: segments[2]: expected offset + size <= ", 0),
            0u)
      << readError(cut);

  TestProgram badIndex = sampleProgram();
  badIndex.plans[0].delegates[1].payload = 7;
  EXPECT_EQ(readError(testing::writeProgram(badIndex).bytes),
            "execution_plan[0] 'forward': delegates[1]: processed.index: expected < 3 (backend_delegate_data "
            "entries), "
            "got 7");
  badIndex.segments = true;
  badIndex.headerLength = 32;
  EXPECT_EQ(readError(testing::writeProgram(badIndex).bytes),
            "execution_plan[0] 'forward': delegates[1]: processed.index: expected < 3 (segments), got 7");
  TestProgram noHeader = sampleProgram();
  noHeader.segments = true;
  EXPECT_EQ(readError(testing::writeProgram(noHeader).bytes),
            "execution_plan[0] 'forward': delegates[0]: processed.location: expected INLINE in a file "
            "without the eh00 "
            "extended header, got SEGMENT");
  TestProgram badNamed = sampleProgram();
  badNamed.namedData = {{"k", 9}};
  EXPECT_EQ(readError(testing::writeProgram(badNamed).bytes),
            "program: named_data 'k': segment_index: expected < 1 (segment count), got 9");
}

TEST(PteCorruption, TruncationsAndGarbage) {
  for (bool segments : {false, true}) {
    TestProgram spec = sampleProgram();
    spec.segments = segments;
    spec.headerLength = segments ? 32 : 0;
    const std::vector<std::uint8_t> good = testing::writeProgram(spec).bytes;
    for (std::size_t length = 0; length < good.size(); length += 16) {
      std::string error = readError(std::vector<std::uint8_t>(good.begin(), good.begin() + length));
      EXPECT_NE(error, "read") << length;
    }
    std::uint32_t state = 99;
    for (int round = 0; round < 2000; ++round) {
      auto bytes = good;
      for (int flips = 0; flips < 4; ++flips) {
        state = state * 1664525u + 1013904223u;
        bytes[8 + (state >> 8) % (good.size() - 8)] ^= static_cast<std::uint8_t>(1u << (state & 7));
      }
      Result<Program> program = readProgram(bytes);  // any outcome but a crash
      (void)program;
    }
  }
}

}  // namespace
}  // namespace openvgf::pte
