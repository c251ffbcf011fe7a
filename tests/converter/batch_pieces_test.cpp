// SPDX-License-Identifier: Apache-2.0
// A batch's first layers run a piece of the batch at a time (SessionOptions::overlapSegments,
// runner/piece_plan.h), from the batch grids the converter records in the modules
// (vgf::SpirvBatchGrid). Judged on the default device (the validation layer on): outputs
// byte for byte equal to the same session run whole (runs from pinned memory in pieces, from
// host memory whole, two in flight), every output within the reference interpreter's bounds,
// and a record that does not fit its segment refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

#include "common/spirv_words.h"
#include "converter/convert.h"
#include "runner/piece_plan.h"
#include "tests/converter/run_util.h"
#include "tosa/builder.h"
#include "vgf/spirv_info.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::HostTensor;
using tosa::Value;

constexpr std::int64_t kBatch = 4;

// x [4,32,32,3] -> 3x3 convolution + CLAMP -> 2x2 MAX_POOL2D -> two 1x1 convolutions whose
// sum is output s (per image: four dispatches with batch grids), then a REDUCE_SUM over the
// channels (no batch grid: the pieces stop there) plus input y, output z.
tosa::Graph piecesGraph(std::mt19937& rng) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {kBatch, 32, 32, 3});
  Value y = b.input("y", DType::Fp32, {kBatch, 16, 16, 1});
  tosa::ConvParams p3;
  p3.pad = {1, 1, 1, 1};
  p3.stride = {1, 1};
  p3.dilation = {1, 1};
  tosa::ConvParams p1 = p3;
  p1.pad = {0, 0, 0, 0};
  Value c = b.conv2d(x, b.constant(randomFp32({8, 3, 3, 3}, rng)), b.constant(randomFp32({8}, rng)), p3);
  Value pooled = b.maxPool2d(b.clamp(c, 0.0, 6.0),
                             tosa::MaxPoolParams{.kernel = {2, 2}, .stride = {2, 2}, .pad = {0, 0, 0, 0}});
  Value left = b.conv2d(pooled, b.constant(randomFp32({8, 1, 1, 8}, rng)), std::nullopt, p1);
  Value right = b.conv2d(pooled, b.constant(randomFp32({8, 1, 1, 8}, rng)), std::nullopt, p1);
  Value s = b.add(left, right);
  b.output(s);
  b.output(b.add(b.reduceSum(s, 3), y));
  auto graph = b.build();
  EXPECT_TRUE(graph) << (graph ? "" : graph.error().message());
  return graph ? std::move(*graph) : tosa::Graph{};
}

// The converted graph: its VGF bytes, the decoded file and the model opened from it (which
// point into one another, hence held by pointer).
struct Converted {
  std::vector<std::uint8_t> bytes;
  vgf::File file;
  std::optional<runner::Model> model;
};

std::unique_ptr<Converted> convertGraph(const tosa::Graph& graph) {
  converter::ConvertOptions options;
  options.cacheDir = std::filesystem::temp_directory_path() / "openvgf-converter-test-cache";
  auto converted = converter::convert(graph, options);
  if (!converted) {
    ADD_FAILURE() << converted.error().message();
    return nullptr;
  }
  auto out = std::make_unique<Converted>();
  out->bytes = std::move(converted->vgf);
  auto file = vgf::decode(out->bytes);
  if (!file) {
    ADD_FAILURE() << file.error().message();
    return nullptr;
  }
  out->file = std::move(*file);
  auto model = runner::Model::create(out->file, "pieces.vgf");
  if (!model) {
    ADD_FAILURE() << model.error().message();
    return nullptr;
  }
  out->model = std::move(*model);
  return out;
}

// The validation layer is on, except where OPENVGF_TEST_WITHOUT_VALIDATION=1 says the machine
// has none (a GPU host running this binary from benchmarks/bundle.sh's folder).
runner::ContextOptions testContextOptions() {
  runner::ContextOptions options;
  const char* without = std::getenv("OPENVGF_TEST_WITHOUT_VALIDATION");
  options.validate = without == nullptr || std::string_view(without) != "1";
  options.pipelineCache = false;
  return options;
}

struct SessionRuns {
  std::size_t pieces = 0, segments = 0;  // the session's piece plan
  std::uint64_t piecewiseRuns = 0;       // runs that dispatched pieces
  // Per run, every output's bytes: from host memory, from PinnedMemory, then one of each in
  // flight together, then from PinnedMemory again (the recorded buffers reused).
  std::vector<std::vector<std::vector<std::uint8_t>>> runs;
};

// Five runs of one session (two in flight at most). Pieces run where the inputs are pinned.
Result<SessionRuns> runSession(const runner::Model& model, std::optional<std::size_t> overlap,
                               const std::vector<HostTensor>& inputs) {
  OPENVGF_ASSIGN_OR_RETURN(auto context, runner::Context::create(testContextOptions(), model));
  runner::SessionOptions options;
  options.overlapSegments = overlap;
  options.io = runner::IoMode::Copy;            // pieces overlap copies (lavapipe defaults to direct I/O)
  options.overlapPieceBytes = 32 * 32 * 3 * 4;  // pieces of one image of x where the grids allow
  options.inFlight = 2;
  OPENVGF_ASSIGN_OR_RETURN(runner::Session session, runner::Session::create(*context, model, options));
  SessionRuns out;
  out.pieces = session.piecePlan().pieces();
  out.segments = session.piecePlan().segments;
  std::size_t inputBytes = 0;
  for (const HostTensor& t : inputs) inputBytes += t.bytes.size();
  OPENVGF_ASSIGN_OR_RETURN(runner::PinnedMemory pinned, runner::PinnedMemory::allocate(*context, inputBytes));
  std::vector<runner::InputRef> hostRefs, pinnedRefs;
  std::size_t at = 0;
  for (const HostTensor& t : inputs) {
    std::memcpy(pinned.bytes().data() + at, t.bytes.data(), t.bytes.size());
    hostRefs.push_back({.host = t.bytes});
    pinnedRefs.push_back({.host = pinned.bytes().subspan(at, t.bytes.size()), .pinned = &pinned});
    at += t.bytes.size();
  }
  constexpr std::size_t kRuns = 5;
  out.runs.resize(kRuns);
  std::vector<std::vector<runner::OutputRef>> outputRefs(kRuns);
  for (std::size_t run = 0; run < kRuns; ++run) {
    out.runs[run].reserve(model.outputs().size());  // the OutputRefs point into them
    for (const runner::TensorInfo& t : model.outputs()) {
      out.runs[run].emplace_back(t.bytes);
      outputRefs[run].push_back({.host = out.runs[run].back()});
    }
  }
  const bool pinnedRun[kRuns] = {false, true, false, true, true};
  auto start = [&](std::size_t run) {
    return session.runAsync(pinnedRun[run] ? pinnedRefs : hostRefs, outputRefs[run]);
  };
  for (std::size_t run : {0, 1}) {
    OPENVGF_ASSIGN_OR_RETURN(runner::RunTicket ticket, start(run));
    OPENVGF_TRY(session.wait(ticket));
  }
  OPENVGF_ASSIGN_OR_RETURN(runner::RunTicket third, start(2));
  OPENVGF_ASSIGN_OR_RETURN(runner::RunTicket fourth, start(3));
  OPENVGF_TRY(session.wait(third));
  OPENVGF_TRY(session.wait(fourth));
  OPENVGF_ASSIGN_OR_RETURN(runner::RunTicket fifth, start(4));
  OPENVGF_TRY(session.wait(fifth));
  out.piecewiseRuns = session.piecewiseRuns();
  return out;
}

TEST(BatchPieces, ConvolutionsAndPoolsRecordTheirBatchGrid) {
  std::mt19937 rng(5);
  std::unique_ptr<Converted> converted = convertGraph(piecesGraph(rng));
  ASSERT_TRUE(converted);
  const std::optional<runner::Model>& model = converted->model;
  const auto& segments = model->segments();
  ASSERT_GE(segments.size(), 5u);
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const runner::SegmentInfo& seg = segments[s];
    SCOPED_TRACE(seg.name);
    const bool perImage = seg.name.starts_with("CONV2D") || seg.name.starts_with("MAX_POOL2D");
    ASSERT_EQ(seg.batchGrid.has_value(), perImage);
    if (!perImage) continue;
    // Independent of the tile: the grid covers the batch's rows (convolutions: output pixels,
    // pool: output rows) exactly along its axis, and lists the input and output.
    const vgf::SpirvBatchGrid& grid = *seg.batchGrid;
    EXPECT_EQ(grid.images, static_cast<std::uint64_t>(kBatch));
    EXPECT_EQ(grid.unitsPerImage, seg.name.starts_with("MAX_POOL2D") ? 16u : (s == 0 ? 32u * 32 : 16u * 16));
    EXPECT_EQ(grid.groups(), seg.dispatch[grid.axis]);
    EXPECT_GE(grid.bindings.size(), 2u);
  }

  runner::PiecePlan plan = runner::planPieces(*model, 100, 1);
  EXPECT_GE(plan.segments, 4u) << "both convolutions after the pool, and the one that adds them";
  EXPECT_EQ(plan.inputs, std::vector<std::size_t>{0}) << "x, not y: y is read after the pieces";
  EXPECT_EQ(runner::planPieces(*model, 1, 1).segments, 1u);
  EXPECT_EQ(runner::planPieces(*model, 0, 1).segments, 0u);
  // Piece sizes: the smallest that holds the bytes asked for, else the largest with two pieces.
  const std::uint64_t image = 32 * 32 * 3 * 4;
  EXPECT_EQ(plan.imageBounds, (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(runner::planPieces(*model, 100, image + 1).imageBounds, (std::vector<std::uint64_t>{0, 2, 4}));
  EXPECT_EQ(runner::planPieces(*model, 100, 1 << 30).imageBounds, (std::vector<std::uint64_t>{0, 3, 4}));
}

TEST(BatchPieces, RunInPiecesGivesTheSameBytesAsWhole) {
  std::mt19937 rng(6);
  const tosa::Graph graph = piecesGraph(rng);
  std::unique_ptr<Converted> converted = convertGraph(graph);
  ASSERT_TRUE(converted);
  const std::optional<runner::Model>& model = converted->model;
  const std::vector<HostTensor> inputs = {randomFp32({kBatch, 32, 32, 3}, rng),
                                          randomFp32({kBatch, 16, 16, 1}, rng)};
  auto whole = runSession(*model, 0, inputs);
  if (!whole && whole.error().kind() == ErrorKind::Environment) GTEST_SKIP() << whole.error().message();
  ASSERT_TRUE(whole) << whole.error().message();
  EXPECT_EQ(whole->pieces, 0u);
  EXPECT_EQ(whole->piecewiseRuns, 0u);
  auto inPieces = runSession(*model, 100, inputs);
  ASSERT_TRUE(inPieces) << inPieces.error().message();
  EXPECT_EQ(inPieces->pieces, 4u);
  EXPECT_GE(inPieces->segments, 4u);
  EXPECT_EQ(inPieces->piecewiseRuns, 3u) << "the runs from pinned memory; those from host memory run whole";
  const auto& expected = whole->runs[0];
  for (const SessionRuns* session : {&*whole, &*inPieces}) {
    for (std::size_t run = 0; run < session->runs.size(); ++run) {
      for (std::size_t o = 0; o < expected.size(); ++o) {
        EXPECT_EQ(session->runs[run][o], expected[o])
            << "output " << o << " of run " << run << " of the session with " << session->pieces << " pieces";
      }
    }
  }
  std::vector<HostTensor> outputs;
  for (std::size_t o = 0; o < model->outputs().size(); ++o) {
    HostTensor t(model->outputs()[o].dtype, model->outputs()[o].shape);
    t.bytes = inPieces->runs[1][o];
    outputs.push_back(std::move(t));
  }
  const std::vector<std::string> inNames = {"x", "y"};
  const std::vector<std::string> outNames = {model->outputs()[0].name, model->outputs()[1].name};
  auto checks = runner::checkAgainstReference(graph, inNames, inputs, outNames, outputs);
  ASSERT_TRUE(checks) << checks.error().message();
  for (const auto& c : *checks) EXPECT_TRUE(c.verdict.pass) << runner::formatCheck(c);
}

// The module's words without its batch-grid records.
std::vector<std::uint32_t> withoutBatchGrids(std::span<const std::uint32_t> words) {
  std::vector<std::uint32_t> out(words.begin(), words.begin() + spirv::kHeaderWords);
  for (std::size_t pos = spirv::kHeaderWords; pos < words.size();) {
    const auto inst = spirv::instructionAt(words, pos);
    if (!inst) break;
    const bool record =
        inst->opcode == 330 &&
        std::strncmp(reinterpret_cast<const char*>(inst->operands.data()), "openvgf.batch-grid ", 19) == 0;
    if (!record)
      out.insert(out.end(), words.begin() + static_cast<std::ptrdiff_t>(pos),
                 words.begin() + static_cast<std::ptrdiff_t>(pos + inst->wordCount));
    pos += inst->wordCount;
  }
  return out;
}

TEST(BatchPieces, ARecordThatDoesNotFitItsSegmentIsRefused) {
  std::mt19937 rng(7);
  std::unique_ptr<Converted> converted = convertGraph(piecesGraph(rng));
  ASSERT_TRUE(converted);
  const std::optional<runner::Model>& model = converted->model;
  const runner::SegmentInfo& first = model->segments()[0];
  ASSERT_TRUE(first.batchGrid);
  const std::span<const std::uint32_t> original = converted->file.modules[first.moduleIndex].spirv;
  auto refusal = [&](const vgf::SpirvBatchGrid& grid) {
    std::vector<std::uint32_t> words =
        vgf::recordBatchGrids(withoutBatchGrids(original), std::span(&grid, 1));
    vgf::File file = converted->file;
    file.modules[first.moduleIndex].spirv = words;
    auto tampered = runner::Model::create(file, "tampered.vgf");
    return tampered ? std::string("accepted") : tampered.error().message();
  };
  vgf::SpirvBatchGrid grid = *first.batchGrid;
  EXPECT_EQ(refusal(grid), "accepted");  // the record as the converter wrote it
  // Twice the images at half the rows: the same groups, but the tensors hold 4 images.
  vgf::SpirvBatchGrid twice = grid;
  twice.images *= 2;
  twice.unitsPerImage /= 2;
  EXPECT_THAT(refusal(twice), ::testing::HasSubstr("expected a tensor of 8 images"));
  // A binding the segment does not bind.
  vgf::SpirvBatchGrid unbound = grid;
  unbound.bindings.push_back(40);
  EXPECT_THAT(refusal(unbound),
              ::testing::HasSubstr("binding 40 is read per image, but the segment does not bind it"));
  // The output not listed: it would be written whole by every piece.
  vgf::SpirvBatchGrid inputOnly = grid;
  inputOnly.bindings = {0};
  EXPECT_THAT(refusal(inputOnly), ::testing::HasSubstr("is written but not listed as read per image"));
}

}  // namespace
}  // namespace openvgf::testing
