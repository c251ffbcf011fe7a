// SPDX-License-Identifier: Apache-2.0
// Graph -> .tosa with flatbuffers::FlatBufferBuilder. Attribute tables are written for the
// operator's recorded union tag (Operator::attributeTag, derived from the op when unset), so
// files that carried an unusual tag keep it.
#include "tosa/writer.h"

#include <flatbuffers/flatbuffers.h>
#include <fmt/format.h>

#include <limits>
#include <optional>

#include "common/file_io.h"
#include "tosa/attribute_layout.h"
#include "tosa/packing.h"
#include "tosa/tosa_generated.h"

namespace openvgf::tosa {

namespace {

namespace fb = ::openvgf::tosa::fb;
using detail::AttrLayout;
using detail::attrLayout;
using flatbuffers::Offset;

// FlatBuffers addresses at most 2 GiB; leave room for tables and strings.
constexpr std::uint64_t kMaxPayloadBytes = (std::uint64_t{1} << 31) - (std::uint64_t{64} << 20);

class Writer {
 public:
  Result<std::vector<std::uint8_t>> run(const Graph& graph) {
    OPENVGF_TRY(checkSize(graph));
    std::vector<Offset<fb::TosaRegion>> regions;
    for (std::size_t r = 0; r < graph.regions.size(); ++r) {
      const Region& region = graph.regions[r];
      std::vector<Offset<fb::TosaBasicBlock>> blocks;
      for (std::size_t b = 0; b < region.blocks.size(); ++b) {
        std::string path =
            fmt::format("regions[{}] '{}'.blocks[{}] '{}'", r, region.name, b, region.blocks[b].name);
        OPENVGF_ASSIGN_OR_RETURN(auto block, writeBlock(region.blocks[b], path));
        blocks.push_back(block);
      }
      auto name = fbb_.CreateString(region.name);
      auto blockVec = fbb_.CreateVector(blocks);
      regions.push_back(fb::CreateTosaRegion(fbb_, name, blockVec));
    }
    auto regionVec = fbb_.CreateVector(regions);
    auto version = fb::CreateVersion(fbb_, graph.version.major, graph.version.minor, graph.version.patch,
                                     graph.version.draft);
    auto root = fb::CreateTosaGraph(fbb_, version, regionVec);
    fb::FinishTosaGraphBuffer(fbb_, root);
    return std::vector<std::uint8_t>(fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize());
  }

 private:
  static Status checkSize(const Graph& graph) {
    std::uint64_t total = 0;
    for (const Region& r : graph.regions) {
      for (const Block& b : r.blocks) {
        for (const Tensor& t : b.tensors) {
          if (t.data) total += t.data->size();
        }
      }
    }
    if (total > kMaxPayloadBytes) {
      return invalidInput("graph: expected constant data below 2 GiB (the flatbuffer limit), got {} bytes",
                          total);
    }
    return {};
  }

  Offset<flatbuffers::Vector<std::uint8_t>> paddedBytes(const std::vector<std::uint8_t>& packed) {
    std::size_t padded = (packed.size() + 7) / 8 * 8;
    fbb_.ForceVectorAlignment(padded, sizeof(std::uint8_t), 8);
    std::uint8_t* dst = nullptr;
    auto vec = fbb_.CreateUninitializedVector(padded, &dst);
    std::copy(packed.begin(), packed.end(), dst);
    std::fill(dst + packed.size(), dst + padded, std::uint8_t{0});
    return vec;
  }

  Result<std::vector<std::uint8_t>> packed(const Tensor& t, const std::string& what) {
    std::optional<std::int64_t> count = checkedElementCount(t.shape);
    std::size_t elementBytes = hostElementBytes(t.dtype);
    if (!count || elementBytes == 0 || t.data->size() != static_cast<std::size_t>(*count) * elementBytes) {
      return invalidInput("{}: data: expected {} host bytes for shape {} of {}, got {}", what,
                          count ? static_cast<std::size_t>(*count) * elementBytes : 0, shapeToString(t.shape),
                          toString(t.dtype), t.data->size());
    }
    return packFromHost(t.dtype, *t.data);
  }

  Result<Offset<fb::TosaBasicBlock>> writeBlock(const Block& block, const std::string& path) {
    std::vector<Offset<fb::TosaTensor>> tensors;
    std::vector<Offset<fb::TosaShape>> shapes;
    for (const Tensor& t : block.tensors) {
      std::string what = fmt::format("{}: tensors '{}'", path, t.name);
      if (!isValid(t.dtype) || t.dtype == DType::Unknown) {
        return invalidInput("{}: type: expected a TOSA 1.0 DType, got {}", what,
                            static_cast<std::uint32_t>(t.dtype));
      }
      if (t.inShapeTable) {
        if (t.dtype != DType::Shape || t.shape.size() != 1 || !t.data ||
            t.data->size() != static_cast<std::size_t>(t.shape[0]) * 8 ||
            t.shape[0] > std::numeric_limits<std::uint32_t>::max()) {
          return invalidInput(
              "{}: expected a shape value (SHAPE type, shape [rank], rank int64 values) to write "
              "in TosaBasicBlock.shapes",
              what);
        }
        auto name = fbb_.CreateString(t.name);
        auto data = paddedBytes(*t.data);
        shapes.push_back(fb::CreateTosaShape(fbb_, name, static_cast<std::uint32_t>(t.shape[0]), data));
        continue;
      }
      std::vector<std::int32_t> dims;
      for (std::int64_t d : t.shape) {
        if (d < 0 || d > std::numeric_limits<std::int32_t>::max()) {
          return invalidInput("{}: shape: expected dimensions in [0, 2^31), got {}", what,
                              shapeToString(t.shape));
        }
        dims.push_back(static_cast<std::int32_t>(d));
      }
      Offset<flatbuffers::Vector<std::uint8_t>> data;
      if (t.data) {
        OPENVGF_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, packed(t, what));
        data = paddedBytes(bytes);
      }
      auto name = fbb_.CreateString(t.name);
      auto shape = fbb_.CreateVector(dims);
      Offset<flatbuffers::String> variableName;
      if (!t.variableName.empty()) variableName = fbb_.CreateString(t.variableName);
      fb::TosaTensorBuilder tb(fbb_);
      tb.add_name(name);
      tb.add_shape(shape);
      tb.add_type(static_cast<fb::DType>(t.dtype));
      if (t.data) tb.add_data(data);
      tb.add_variable(t.variable);
      tb.add_is_unranked(t.isUnranked);
      if (!t.variableName.empty()) tb.add_variable_name(variableName);
      tb.add_offset(t.externalOffset);
      tb.add_size(t.externalSize);
      tensors.push_back(tb.Finish());
    }
    std::vector<Offset<fb::TosaOperator>> ops;
    for (std::size_t i = 0; i < block.operators.size(); ++i) {
      OPENVGF_ASSIGN_OR_RETURN(auto op,
                               writeOperator(block.operators[i], fmt::format("{}: operators[{}]", path, i)));
      ops.push_back(op);
    }
    auto name = fbb_.CreateString(block.name);
    auto opVec = fbb_.CreateVector(ops);
    auto tensorVec = fbb_.CreateVector(tensors);
    auto inputs = fbb_.CreateVectorOfStrings(block.inputs);
    auto outputs = fbb_.CreateVectorOfStrings(block.outputs);
    auto shapeVec = fbb_.CreateVector(shapes);
    return fb::CreateTosaBasicBlock(fbb_, name, opVec, tensorVec, inputs, outputs, shapeVec);
  }

  Offset<flatbuffers::Vector<std::int32_t>> vec(const std::vector<std::int32_t>& v) {
    return fbb_.CreateVector(v);
  }

  /// CLAMP bounds: exactly the element's bytes (8-byte aligned, not padded), so a bound of
  /// any length reads back unchanged.
  Offset<flatbuffers::Vector<std::uint8_t>> alignedBytes(const std::vector<std::uint8_t>& v) {
    fbb_.ForceVectorAlignment(v.size(), sizeof(std::uint8_t), 8);
    return fbb_.CreateVector(v);
  }

  static fb::NanPropagationMode nan(NanMode m) { return static_cast<fb::NanPropagationMode>(m); }
  static fb::DType dt(DType t) { return static_cast<fb::DType>(t); }

  /// Writes `op`'s attributes as a table of the op's own type (the caller makes sure the tag
  /// has the same layout).
  template <typename T>
  static const T* get(const Attributes& attrs) {
    return std::get_if<T>(&attrs);
  }

  // One writer per serialized attribute layout (tosa/ops.def names each op's).
  Result<Offset<void>> attributeTable(const Operator& o, const std::string& what) {
    auto mismatch = [&]() {
      return invalidInput("{} {}: expected attributes of the op's kind, got another attribute struct", what,
                          toString(o.op));
    };
    switch (attrLayout(o.op)) {
      case AttrLayout::AxisNan: {
        if (o.op == Op::ArgMax) {
          const auto* a = get<ArgMaxAttrs>(o.attrs);
          if (!a) return mismatch();
          return fb::CreateArgMaxAttribute(fbb_, a->axis, nan(a->nanMode)).Union();
        }
        const auto* a = get<AxisAttrs>(o.attrs);
        if (!a) return mismatch();
        return fb::CreateReduceMaxAttribute(fbb_, a->axis, nan(a->nanMode)).Union();
      }
      case AttrLayout::Axis: {
        const auto* a = get<AxisAttrs>(o.attrs);
        if (!a) return mismatch();
        return fb::CreateReduceAllAttribute(fbb_, a->axis).Union();
      }
      case AttrLayout::AvgPool: {
        const auto* a = get<AvgPool2dAttrs>(o.attrs);
        if (!a) return mismatch();
        auto k = vec(a->kernel);
        auto s = vec(a->stride);
        auto p = vec(a->pad);
        return fb::CreateAvgPool2dAttribute(fbb_, k, s, p, dt(a->accType)).Union();
      }
      case AttrLayout::Conv: {
        const auto* a = get<ConvAttrs>(o.attrs);
        if (!a) return mismatch();
        auto p = vec(a->pad);
        auto s = vec(a->stride);
        auto d = vec(a->dilation);
        return fb::CreateConv2dAttribute(fbb_, p, s, d, a->localBound, dt(a->accType)).Union();
      }
      case AttrLayout::TransposeConv: {
        const auto* a = get<TransposeConv2dAttrs>(o.attrs);
        if (!a) return mismatch();
        auto p = vec(a->outPad);
        auto s = vec(a->stride);
        return fb::CreateTransposeConv2dAttribute(fbb_, p, s, a->localBound, dt(a->accType)).Union();
      }
      case AttrLayout::Fft:
      case AttrLayout::Rfft: {
        const auto* a = get<FftAttrs>(o.attrs);
        if (!a) return mismatch();
        if (attrLayout(o.op) == AttrLayout::Fft) return fb::CreateFFT2dAttribute(fbb_, a->inverse, a->localBound).Union();
        return fb::CreateRFFT2dAttribute(fbb_, a->localBound).Union();
      }
      case AttrLayout::MaxPool: {
        const auto* a = get<MaxPool2dAttrs>(o.attrs);
        if (!a) return mismatch();
        auto k = vec(a->kernel);
        auto s = vec(a->stride);
        auto p = vec(a->pad);
        return fb::CreateMaxPool2dAttribute(fbb_, k, s, p, nan(a->nanMode)).Union();
      }
      default: {
        auto table = otherAttributeTable(o);
        if (!table) return mismatch();
        return *table;
      }
    }
  }

  // The remaining layouts; nullopt when the attribute struct is not the layout's.
  std::optional<Offset<void>> otherAttributeTable(const Operator& o) {
    switch (attrLayout(o.op)) {
      case AttrLayout::Clamp: {
        const auto* a = get<ClampAttrs>(o.attrs);
        if (!a) return std::nullopt;
        auto lo = alignedBytes(a->minVal);
        auto hi = alignedBytes(a->maxVal);
        return fb::CreateClampAttribute(fbb_, lo, hi, nan(a->nanMode)).Union();
      }
      case AttrLayout::ArithmeticRightShift: {
        const auto* a = get<ArithmeticRightShiftAttrs>(o.attrs);
        if (!a) return std::nullopt;
        return fb::CreateArithmeticRightShiftAttribute(fbb_, a->round).Union();
      }
      case AttrLayout::NanOnly: {
        const auto* a = get<NanModeAttrs>(o.attrs);
        if (!a) return std::nullopt;
        return fb::CreateMaximumAttribute(fbb_, nan(a->nanMode)).Union();
      }
      case AttrLayout::Transpose: {
        const auto* a = get<TransposeAttrs>(o.attrs);
        if (!a) return std::nullopt;
        auto p = vec(a->perms);
        return fb::CreateTransposeAttribute(fbb_, p).Union();
      }
      case AttrLayout::Resize: {
        const auto* a = get<ResizeAttrs>(o.attrs);
        if (!a) return std::nullopt;
        return fb::CreateResizeAttribute(fbb_, static_cast<fb::ResizeMode>(a->mode)).Union();
      }
      case AttrLayout::Rescale: {
        const auto* a = get<RescaleAttrs>(o.attrs);
        if (!a) return std::nullopt;
        return fb::CreateRescaleAttribute(fbb_, a->scale32, static_cast<fb::RoundingMode>(a->roundingMode),
                                          a->perChannel, a->inputUnsigned, a->outputUnsigned)
            .Union();
      }
      default: return controlAttributeTable(o);
    }
  }

  // CUSTOM, COND_IF, WHILE_LOOP (strings), and the empty table of every other op.
  std::optional<Offset<void>> controlAttributeTable(const Operator& o) {
    switch (attrLayout(o.op)) {
      case AttrLayout::Custom: {
        const auto* a = get<CustomAttrs>(o.attrs);
        if (!a) return std::nullopt;
        auto n = fbb_.CreateString(a->operatorName);
        auto d = fbb_.CreateString(a->domainName);
        auto i = fbb_.CreateVector(a->implementationAttrs);
        return fb::CreateCustomAttribute(fbb_, n, d, i).Union();
      }
      case AttrLayout::CondIf: {
        const auto* a = get<CondIfAttrs>(o.attrs);
        if (!a) return std::nullopt;
        auto t = fbb_.CreateString(a->thenGraph);
        auto e = fbb_.CreateString(a->elseGraph);
        return fb::CreateCondIfAttribute(fbb_, t, e).Union();
      }
      case AttrLayout::WhileLoop: {
        const auto* a = get<WhileLoopAttrs>(o.attrs);
        if (!a) return std::nullopt;
        auto c = fbb_.CreateString(a->condGraph);
        auto b = fbb_.CreateString(a->bodyGraph);
        return fb::CreateWhileLoopAttribute(fbb_, c, b).Union();
      }
      default: {
        // Every attribute-less table is an empty table; any tag can name one.
        flatbuffers::uoffset_t start = fbb_.StartTable();
        return Offset<void>(fbb_.EndTable(start));
      }
    }
  }

  Result<Offset<fb::TosaOperator>> writeOperator(const Operator& o, const std::string& what) {
    if (!isValid(o.op) || o.op == Op::Unknown) {
      return invalidInput("{}: op: expected a TOSA 1.0 operator, got {}", what,
                          static_cast<std::uint32_t>(o.op));
    }
    std::uint32_t tag = o.attributeTag == 0xFF ? static_cast<std::uint32_t>(o.op) : o.attributeTag;
    if (tag > kMaxOp) {
      return invalidInput("{} {}: attribute_type: expected a tag 0..{}, got {}", what, toString(o.op), kMaxOp,
                          tag);
    }
    Offset<void> table;
    if (tag != 0) {
      AttrLayout want = attrLayout(o.op);
      if (want != AttrLayout::Empty && attrLayout(tag) != want) {
        return invalidInput("{} {}: attribute_type: tag {} cannot carry {}'s attributes", what,
                            toString(o.op), tag, toString(o.op));
      }
      if (want == AttrLayout::Empty) {
        flatbuffers::uoffset_t start = fbb_.StartTable();
        table = Offset<void>(fbb_.EndTable(start));
      } else {
        OPENVGF_ASSIGN_OR_RETURN(table, attributeTable(o, what));
      }
    }
    auto inputs = fbb_.CreateVectorOfStrings(o.inputs);
    auto outputs = fbb_.CreateVectorOfStrings(o.outputs);
    Offset<fb::OpLocation> location;
    if (o.location) location = fb::CreateOpLocation(fbb_, fbb_.CreateString(*o.location));
    return fb::CreateTosaOperator(fbb_, static_cast<fb::Op>(o.op), static_cast<fb::Attribute>(tag), table,
                                  inputs, outputs, location);
  }

  flatbuffers::FlatBufferBuilder fbb_{1 << 16};
};

}  // namespace

Result<std::vector<std::uint8_t>> writeGraph(const Graph& graph) {
  return Writer().run(graph);
}

Status writeGraph(const Graph& graph, const std::filesystem::path& path) {
  auto bytes = writeGraph(graph);
  if (!bytes) return Unexpected(std::move(bytes).error().addContext(path.string()));
  return writeFileAtomic(path, std::span<const std::uint8_t>(*bytes));
}

}  // namespace openvgf::tosa
