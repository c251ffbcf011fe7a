// SPDX-License-Identifier: Apache-2.0
// Graph -> .tosa with flatbuffers::FlatBufferBuilder. Attribute tables are written for the
// operator's recorded union tag (Operator::attributeTag, derived from the op when unset), so
// files that carried an unusual tag keep it.
#include "tosa/writer.h"

#include <flatbuffers/flatbuffers.h>
#include <fmt/format.h>

#include <array>
#include <limits>
#include <optional>

#include "common/file_io.h"
#include "tosa/attribute_fields.h"
#include "tosa/packing.h"
#include "tosa/tosa_generated.h"

namespace openvgf::tosa {

namespace {

namespace fb = ::openvgf::tosa::fb;
using detail::AttrLayout;
using detail::attrLayout;
using detail::FieldKind;
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

  /// CLAMP bounds: exactly the element's bytes (8-byte aligned, not padded), so a bound of
  /// any length reads back unchanged.
  Offset<flatbuffers::Vector<std::uint8_t>> alignedBytes(const std::vector<std::uint8_t>& v) {
    fbb_.ForceVectorAlignment(v.size(), sizeof(std::uint8_t), 8);
    return fbb_.CreateVector(v);
  }

  /// A field as flatc's Create<Table> adds it: its byte size (4: ints, enums and offsets; 1:
  /// booleans) and its value or offset.
  struct PendingField {
    std::uint8_t size = 0;
    bool isOffset = false;
    std::uint32_t value = 0;
  };

  // The templates come before attributeTable, their caller: clang 14 does not instantiate a
  // member template first used inside a generic lambda when its definition follows.
  template <FieldKind K, typename T>
  PendingField pendingField(const T& value) {
    if constexpr (K == FieldKind::Int32List || K == FieldKind::Bytes) {
      return {4, true, fbb_.CreateVector(value).o};
    } else if constexpr (K == FieldKind::ElementBytes) {
      return {4, true, alignedBytes(value).o};
    } else if constexpr (K == FieldKind::String) {
      return {4, true, fbb_.CreateString(value).o};
    } else if constexpr (K == FieldKind::Bool) {
      return {1, false, value ? 1u : 0u};
    } else {
      // int32 and the uint32 enumerations (DType, NanPropagationMode, ResizeMode, RoundingMode)
      return {4, false, static_cast<std::uint32_t>(value)};
    }
  }

  template <AttrLayout L>
  Offset<void> writeTable(const detail::LayoutStruct<L>& attrs) {
    constexpr std::size_t kFields = detail::attrFields(L).size();
    std::array<PendingField, kFields> fields{};
    // Vectors and strings are built before the table, in field order.
    detail::forEachField<L>(attrs, [&](auto kind, std::string_view, std::uint16_t slot, const auto& value) {
      fields[slot] = pendingField<decltype(kind)::value>(value);
    });
    // Then the fields in the order flatc's Create<Table> adds them (by size, largest first, and
    // within a size the last field first), so the bytes are those of a flatc-built file.
    const flatbuffers::uoffset_t start = fbb_.StartTable();
    for (std::uint8_t size : {4, 1}) {
      for (std::size_t i = kFields; i-- > 0;) {
        const PendingField& f = fields[i];
        if (f.size != size) continue;
        const auto at = flatbuffers::FieldIndexToOffset(static_cast<flatbuffers::voffset_t>(i));
        if (f.isOffset) {
          fbb_.AddOffset(at, Offset<void>(f.value));
        } else if (size == 4) {
          fbb_.AddElement<std::uint32_t>(at, f.value, 0);
        } else {
          fbb_.AddElement<std::uint8_t>(at, static_cast<std::uint8_t>(f.value), 0);
        }
      }
    }
    return Offset<void>(fbb_.EndTable(start));
  }

  // One writer for every layout: the fields tosa/attributes.def lists for the op's layout, each
  // at its slot, from the op's attribute struct.
  Result<Offset<void>> attributeTable(const Operator& o, const std::string& what) {
    return detail::visitLayout(attrLayout(o.op), [&](auto layout) -> Result<Offset<void>> {
      const auto* attrs = std::get_if<detail::LayoutStruct<decltype(layout)::value>>(&o.attrs);
      if (attrs == nullptr) {
        return invalidInput("{} {}: expected attributes of the op's kind, got another attribute struct", what,
                            toString(o.op));
      }
      return writeTable<decltype(layout)::value>(*attrs);
    });
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
      if (want != AttrLayout::Empty && !detail::sameTable(attrLayout(tag), want)) {
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
