// SPDX-License-Identifier: Apache-2.0
// .tosa -> Graph. Order of work: identifier, flatbuffers Verifier, version, then each region,
// block, tensor, shape and operator with meaning checks. Every message carries the element
// path, e.g. "m.tosa: regions[0].blocks[0] 'main': tensors[2] 'w': ...".
#include "tosa/reader.h"

#include <flatbuffers/flatbuffers.h>
#include <fmt/format.h>

#include <cstring>
#include <memory>

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

// Big models have many tables; the default (1M) would refuse a legitimate graph with a few
// hundred thousand tensors. Depth stays small: the schema nests at most six levels.
constexpr flatbuffers::uoffset_t kMaxTables = 50'000'000;
constexpr flatbuffers::uoffset_t kMaxDepth = 64;

std::string str(const flatbuffers::String* s) {
  return s == nullptr ? std::string() : s->str();
}

std::vector<std::int32_t> ints(const flatbuffers::Vector<std::int32_t>* v) {
  if (v == nullptr) return {};
  return {v->begin(), v->end()};
}

std::vector<std::uint8_t> bytesOf(const flatbuffers::Vector<std::uint8_t>* v) {
  if (v == nullptr) return {};
  return {v->begin(), v->end()};
}

std::vector<std::string> strings(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* v) {
  std::vector<std::string> out;
  if (v == nullptr) return out;
  out.reserve(v->size());
  for (const flatbuffers::String* s : *v) out.push_back(str(s));
  return out;
}

/// nan_mode absent in a file decodes as UNKNOWN(0); the spec default is PROPAGATE.
NanMode nanMode(fb::NanPropagationMode m) {
  auto v = static_cast<std::uint32_t>(m);
  return v == 0 ? NanMode::Propagate : static_cast<NanMode>(v);
}

class Reader {
 public:
  Reader(std::span<const std::uint8_t> file, std::string_view source) : file_(file), source_(source) {}

  Result<Graph> run() {
    if (file_.size() < 8) {
      return invalidInput("{}: expected a TOSA flatbuffer of at least 8 bytes, got {} bytes", source_,
                          file_.size());
    }
    if (!flatbuffers::BufferHasIdentifier(file_.data(), fb::TosaGraphIdentifier())) {
      return invalidInput("{}: expected file identifier 'TOSA' at bytes 4..7, got '{}'", source_,
                          printable(file_.subspan(4, 4)));
    }
    flatbuffers::Verifier::Options options;
    options.max_depth = kMaxDepth;
    options.max_tables = kMaxTables;
    flatbuffers::Verifier verifier(file_.data(), file_.size(), options);
    if (!fb::VerifyTosaGraphBuffer(verifier)) {
      return invalidInput(
          "{}: expected a valid TOSA flatbuffer, got a buffer that fails flatbuffers "
          "verification (truncated or corrupt: offsets out of bounds or bad tables)",
          source_);
    }
    const fb::TosaGraph* root = fb::GetTosaGraph(file_.data());
    Graph graph;
    OPENVGF_TRY(readVersion(*root->version(), graph.version));
    if (root->regions() == nullptr || root->regions()->size() == 0) {
      return invalidInput("{}: regions: expected at least one region (the main graph), got none", source_);
    }
    for (flatbuffers::uoffset_t r = 0; r < root->regions()->size(); ++r) {
      const fb::TosaRegion* region = root->regions()->Get(r);
      Region out;
      out.name = str(region->name());
      std::string path = fmt::format("{}: regions[{}] '{}'", source_, r, out.name);
      if (region->blocks() != nullptr) {
        for (flatbuffers::uoffset_t b = 0; b < region->blocks()->size(); ++b) {
          const fb::TosaBasicBlock* block = region->blocks()->Get(b);
          std::string blockPath = fmt::format("{}.blocks[{}] '{}'", path, b, str(block->name()));
          OPENVGF_ASSIGN_OR_RETURN(Block converted, readBlock(*block, blockPath));
          out.blocks.push_back(std::move(converted));
        }
      }
      graph.regions.push_back(std::move(out));
    }
    if (graph.regions[0].blocks.empty()) {
      return invalidInput("{}: regions[0]: expected the main region to hold at least one block, got none",
                          source_);
    }
    trimClampBounds(graph);
    return graph;
  }

 private:
  static std::string printable(std::span<const std::uint8_t> b) {
    std::string out;
    for (std::uint8_t c : b)
      out += (c >= 0x20 && c < 0x7F) ? fmt::format("{}", static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
    return out;
  }

  /// CLAMP min_val/max_val are one element of the input type padded to 8 bytes; keep just the
  /// element (graph.h ClampAttrs) when the input's type is known.
  static void trimClampBounds(Graph& graph) {
    for (Region& r : graph.regions) {
      for (Block& b : r.blocks) {
        for (Operator& op : b.operators) {
          auto* a = std::get_if<ClampAttrs>(&op.attrs);
          if (a == nullptr || op.inputs.empty()) continue;
          const Tensor* input = graph.findTensor(b, op.inputs[0]);
          if (input == nullptr) continue;
          std::size_t n = hostElementBytes(input->dtype);
          if (n == 0) continue;
          if (a->minVal.size() > n) a->minVal.resize(n);
          if (a->maxVal.size() > n) a->maxVal.resize(n);
        }
      }
    }
  }

  Status readVersion(const fb::Version& v, Version& out) {
    out.major = v._major();
    out.minor = v._minor();
    out.patch = v._patch();
    out.draft = v._draft();
    std::string text =
        fmt::format("{}.{}.{}{}", out.major, out.minor, out.patch, out.draft ? " (draft)" : "");
    if (out.major == 0) {
      return unsupported(
          "{}: version: TOSA format {} is a pre-1.0 (0.x) file; openvgf reads TOSA 1.0 files "
          "only (0.x uses different op and type numbering); re-export the model with a TOSA 1.0 "
          "serializer",
          source_, text);
    }
    if (out.major != 1 || out.minor < 0 || out.minor > 1 || out.patch < 0) {
      return unsupported("{}: version: expected TOSA format 1.0.x or a 1.1 draft, got {}", source_, text);
    }
    return {};
  }

  Result<DType> dtype(std::uint32_t raw, std::string_view what) {
    if (raw == 0 || raw > kMaxDType) {
      return invalidInput("{}: expected a TOSA 1.0 DType number 1..{}, got {}{}", what, kMaxDType, raw,
                          raw == 0    ? " (UNKNOWN)"
                          : raw <= 18 ? " (a TOSA 1.1 draft type, not supported)"
                                      : "");
    }
    return static_cast<DType>(raw);
  }

  /// Host-layout payload for `count` elements, or an error if the data is too short.
  Result<std::vector<std::uint8_t>> payload(DType type, const Shape& shape, std::span<const std::uint8_t> raw,
                                            std::string_view what) {
    std::optional<std::int64_t> count = checkedElementCount(shape);
    std::optional<std::uint64_t> need =
        count ? packedByteSize(type, static_cast<std::uint64_t>(*count)) : std::nullopt;
    if (!need || *need > raw.size()) {
      return invalidInput(
          "{}: data: expected {} bytes for shape {} of {}, got {} bytes (data shorter than shape)", what,
          need ? fmt::to_string(*need) : std::string("more than 2^64"), shapeToString(shape), toString(type),
          raw.size());
    }
    // Writers pad each payload to whole 8-byte words (specs/tosa.md); bytes past that belong to
    // no element: a file that has them disagrees with itself.
    if (raw.size() - *need >= 8) {
      return invalidInput("{}: data: expected {} bytes for shape {} of {} (with padding to 8 bytes, at most {}), "
                          "got {} bytes (data longer than shape)",
                          what, *need, shapeToString(shape), toString(type), (*need + 7) / 8 * 8, raw.size());
    }
    return unpackToHost(type, static_cast<std::uint64_t>(*count), raw);
  }

  Result<Tensor> readTensor(const fb::TosaTensor& t, const std::string& path) {
    Tensor out;
    out.name = str(t.name());
    std::string what = fmt::format("{}: tensors '{}'", path, out.name);
    if (out.name.empty()) return invalidInput("{}: name: expected a non-empty tensor name", what);
    OPENVGF_ASSIGN_OR_RETURN(out.dtype, dtype(static_cast<std::uint32_t>(t.type()), what + ": type"));
    if (t.shape() != nullptr) {
      for (flatbuffers::uoffset_t i = 0; i < t.shape()->size(); ++i) {
        std::int32_t d = t.shape()->Get(i);
        if (d < 0) {
          return invalidInput(
              "{}: shape[{}]: expected a dimension >= 0 (TOSA 1.0 has no dynamic dimensions), got {}", what,
              i, d);
        }
        out.shape.push_back(d);
      }
    }
    out.variable = t.variable();
    out.isUnranked = t.is_unranked();
    out.variableName = str(t.variable_name());
    out.externalOffset = t.offset();
    out.externalSize = t.size();
    std::span<const std::uint8_t> raw;
    const bool inlineData = t.data() != nullptr && t.data()->size() > 0;
    const bool externalData = out.externalOffset > 1 && out.externalSize > 0;
    if (inlineData && externalData) {
      return invalidInput("{}: data and offset/size: expected the values inline or in an external range, got both "
                          "({} bytes inline, {} bytes at offset {})",
                          what, t.data()->size(), out.externalSize, out.externalOffset);
    }
    if (inlineData) {
      raw = {t.data()->data(), t.data()->size()};
    } else if (externalData) {
      // Data kept outside the flatbuffer (models > 2 GB): offset from the start of the file.
      if (out.externalOffset > file_.size() || out.externalSize > file_.size() - out.externalOffset) {
        return invalidInput(
            "{}: offset/size: expected external data inside the file ({} bytes), got offset {} "
            "size {}",
            what, file_.size(), out.externalOffset, out.externalSize);
      }
      raw = file_.subspan(static_cast<std::size_t>(out.externalOffset),
                          static_cast<std::size_t>(out.externalSize));
    }
    if (!raw.empty()) {
      OPENVGF_ASSIGN_OR_RETURN(std::vector<std::uint8_t> host, payload(out.dtype, out.shape, raw, what));
      // A shape with a zero dimension holds no elements: no payload, as when data is absent.
      if (!host.empty()) out.data = std::move(host);
    }
    return out;
  }

  Result<Tensor> readShape(const fb::TosaShape& s, const std::string& path) {
    Tensor out;
    out.name = str(s.name());
    std::string what = fmt::format("{}: shapes '{}'", path, out.name);
    if (out.name.empty()) return invalidInput("{}: name: expected a non-empty shape name", what);
    out.dtype = DType::Shape;
    out.shape = {static_cast<std::int64_t>(s.rank())};
    out.inShapeTable = true;
    std::span<const std::uint8_t> raw;
    if (s.data() != nullptr) raw = {s.data()->data(), s.data()->size()};
    OPENVGF_ASSIGN_OR_RETURN(out.data, payload(DType::Shape, out.shape, raw, what));
    return out;
  }

  Result<Block> readBlock(const fb::TosaBasicBlock& b, const std::string& path) {
    Block out;
    out.name = str(b.name());
    if (b.tensors() != nullptr) {
      out.tensors.reserve(b.tensors()->size() + (b.shapes() ? b.shapes()->size() : 0));
      for (const fb::TosaTensor* t : *b.tensors()) {
        OPENVGF_ASSIGN_OR_RETURN(Tensor tensor, readTensor(*t, path));
        out.tensors.push_back(std::move(tensor));
      }
    }
    if (b.shapes() != nullptr) {
      for (const fb::TosaShape* s : *b.shapes()) {
        OPENVGF_ASSIGN_OR_RETURN(Tensor tensor, readShape(*s, path));
        out.tensors.push_back(std::move(tensor));
      }
    }
    out.inputs = strings(b.inputs());
    out.outputs = strings(b.outputs());
    if (b.operators() != nullptr) {
      out.operators.reserve(b.operators()->size());
      for (flatbuffers::uoffset_t i = 0; i < b.operators()->size(); ++i) {
        OPENVGF_ASSIGN_OR_RETURN(Operator op, readOperator(*b.operators()->Get(i), path, i));
        out.operators.push_back(std::move(op));
      }
    }
    return out;
  }

  Result<Operator> readOperator(const fb::TosaOperator& o, const std::string& path, std::size_t index) {
    Operator out;
    auto rawOp = static_cast<std::uint32_t>(o.op());
    if (rawOp == 0 || rawOp > kMaxOp) {
      return invalidInput("{}: operators[{}]: op: expected a TOSA 1.0 operator number 1..{}, got {}{}", path,
                          index, kMaxOp, rawOp,
                          rawOp == 0    ? " (UNKNOWN)"
                          : rawOp <= 96 ? " (a TOSA 1.1 draft operator, not supported)"
                                        : "");
    }
    out.op = static_cast<Op>(rawOp);
    std::string what = fmt::format("{}: operators[{}] {}", path, index, toString(out.op));
    auto tag = static_cast<std::uint32_t>(o.attribute_type());
    if (tag > kMaxOp) {
      return invalidInput("{}: attribute_type: expected an attribute tag 0..{}, got {}", what, kMaxOp, tag);
    }
    out.attributeTag = static_cast<std::uint8_t>(tag);
    out.inputs = strings(o.inputs());
    out.outputs = strings(o.outputs());
    if (o.location() != nullptr) out.location = str(o.location()->text());

    AttrLayout want = attrLayout(out.op);
    if (want == AttrLayout::Empty) return out;  // empty attribute struct; the tag is kept
    const void* table = o.attribute();
    if (tag != 0 && !detail::sameTable(attrLayout(tag), want)) {
      return invalidInput(
          "{}: attribute_type: expected {}'s attribute table (tag {}), got tag {} ({}Attribute)", what,
          toString(out.op), rawOp, tag, toString(static_cast<Op>(tag)));
    }
    if (tag == 0) table = nullptr;  // NONE: every attribute takes its default
    OPENVGF_ASSIGN_OR_RETURN(out.attrs, readAttributes(out.op, table, what));
    return out;
  }

  // Defined before readAttributes, its caller: clang 14 does not instantiate a member template
  // first used inside a generic lambda when its definition follows.
  template <FieldKind K, typename T>
  Status readField(const flatbuffers::Table& table, std::uint16_t slot, T& field, const std::string& what,
                   std::string_view name) {
    const flatbuffers::voffset_t at = flatbuffers::FieldIndexToOffset(slot);
    if constexpr (K == FieldKind::Int32) {
      field = table.GetField<std::int32_t>(at, 0);
    } else if constexpr (K == FieldKind::Bool) {
      field = table.GetField<std::uint8_t>(at, 0) != 0;
    } else if constexpr (K == FieldKind::Int32List) {
      field = ints(table.GetPointer<const flatbuffers::Vector<std::int32_t>*>(at));
    } else if constexpr (K == FieldKind::ElementBytes || K == FieldKind::Bytes) {
      field = bytesOf(table.GetPointer<const flatbuffers::Vector<std::uint8_t>*>(at));
    } else if constexpr (K == FieldKind::String) {
      field = str(table.GetPointer<const flatbuffers::String*>(at));
    } else if constexpr (K == FieldKind::NanMode) {
      field = nanMode(static_cast<fb::NanPropagationMode>(table.GetField<std::uint32_t>(at, 0)));
    } else if constexpr (K == FieldKind::ResizeMode) {
      field = static_cast<ResizeMode>(table.GetField<std::uint32_t>(at, 0));
    } else if constexpr (K == FieldKind::RoundingMode) {
      field = static_cast<RoundingMode>(table.GetField<std::uint32_t>(at, 0));
    } else {
      static_assert(K == FieldKind::AccType);
      const std::uint32_t raw = table.GetField<std::uint32_t>(at, 0);
      if (raw == 0) {
        field = DType::Unknown;  // absent: the verifier reports it
      } else {
        OPENVGF_ASSIGN_OR_RETURN(field, dtype(raw, fmt::format("{}: {}", what, name)));
      }
    }
    return {};
  }

  // One reader for every layout: the fields tosa/attributes.def lists for the op's layout, each
  // at its slot; a null table (tag NONE) leaves every field at its default.
  Result<Attributes> readAttributes(Op op, const void* raw, const std::string& what) {
    const auto* table = static_cast<const flatbuffers::Table*>(raw);
    return detail::visitLayout(attrLayout(op), [&](auto layout) -> Result<Attributes> {
      detail::LayoutStruct<decltype(layout)::value> attrs{};
      Status status;
      if (table != nullptr) {
        detail::forEachField<decltype(layout)::value>(
            attrs, [&](auto kind, std::string_view name, std::uint16_t slot, auto& field) {
              if (status) status = readField<decltype(kind)::value>(*table, slot, field, what, name);
            });
      }
      OPENVGF_TRY(status);
      return Attributes(std::move(attrs));
    });
  }

  std::span<const std::uint8_t> file_;
  std::string source_;
};

}  // namespace

Result<Graph> readGraph(std::span<const std::uint8_t> bytes, std::string_view sourceName) {
  // The flatbuffers accessors read scalars in place, so the buffer must be 8-byte aligned for
  // the Verifier's alignment checks to make those reads safe. Mapped files and vectors are;
  // copy anything else.
  if (reinterpret_cast<std::uintptr_t>(bytes.data()) % 8 != 0) {
    std::vector<std::uint64_t> aligned((bytes.size() + 7) / 8);
    if (!bytes.empty()) std::memcpy(aligned.data(), bytes.data(), bytes.size());
    std::span<const std::uint8_t> view(reinterpret_cast<const std::uint8_t*>(aligned.data()), bytes.size());
    return Reader(view, sourceName).run();
  }
  return Reader(bytes, sourceName).run();
}

Result<Graph> readGraph(const std::filesystem::path& path) {
  OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  return readGraph(file.bytes(), path.string());
}

}  // namespace openvgf::tosa
