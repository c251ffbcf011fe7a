// SPDX-License-Identifier: Apache-2.0
// The attribute table (tosa/attributes.def) against its independent sources, and every field
// of it through every encoding:
//  - each operator's fields (names, order, types) against its table in the flatbuffer schema
//    text, tosa/schema/tosa.fbs, parsed here;
//  - against the attribute operands of its TOSA.001000.1 instruction (the grammar);
//  - a property, walked over the table rather than a hand list: every field set to a
//    non-default value comes back equal through writer -> reader, shows in the JSON dump under
//    its name, and comes back equal through the SPIR-V attribute encoder -> decoder.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tosa/attribute_fields.h"
#include "tosa/json.h"
#include "tosa/op_table.h"
#include "tosa/reader.h"
#include "tosa/spirv/attributes.h"
#include "tosa/spirv/grammar.h"
#include "tosa/writer.h"

namespace openvgf::tosa {
namespace {

using detail::AttrField;
using detail::AttrLayout;
using detail::FieldKind;

struct SchemaField {
  std::string name;
  std::string type;
  bool forceAlign8 = false;
};

/// The schema's tables ("table X { name: type (attrs); ... }") and the members of its
/// Attribute union in order (member i has union tag i + 1).
struct Schema {
  std::map<std::string, std::vector<SchemaField>> tables;
  std::vector<std::string> attributeUnion;
};

Schema parseSchema() {
  std::ifstream in(std::string(OPENVGF_TEST_DATA) + "/../../tosa/schema/tosa.fbs");
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  Schema schema;
  const std::regex table(R"(table\s+(\w+)\s*\{([^}]*)\})");
  const std::regex field(R"((\w+)\s*:\s*([\w\[\]]+)\s*(\([^)]*\))?\s*;)");
  for (auto t = std::sregex_iterator(s.begin(), s.end(), table); t != std::sregex_iterator(); ++t) {
    std::vector<SchemaField>& fields = schema.tables[(*t)[1]];
    const std::string body = (*t)[2];
    for (auto f = std::sregex_iterator(body.begin(), body.end(), field); f != std::sregex_iterator(); ++f) {
      fields.push_back({(*f)[1], (*f)[2], (*f)[3].str().find("force_align: 8") != std::string::npos});
    }
  }
  std::smatch u;
  const std::regex unionDecl(R"(union\s+Attribute\s*\{([^}]*)\})");
  if (std::regex_search(s, u, unionDecl)) {
    const std::string body = u[1];
    const std::regex member(R"(\w+)");
    for (auto m = std::sregex_iterator(body.begin(), body.end(), member); m != std::sregex_iterator(); ++m) {
      schema.attributeUnion.push_back(m->str());
    }
  }
  return schema;
}

/// The schema type a field of each kind is declared with.
std::string schemaType(FieldKind kind) {
  switch (kind) {
    case FieldKind::Int32: return "int32";
    case FieldKind::Int32List: return "[int32]";
    case FieldKind::Bool: return "bool";
    case FieldKind::AccType: return "DType";
    case FieldKind::NanMode: return "NanPropagationMode";
    case FieldKind::ResizeMode: return "ResizeMode";
    case FieldKind::RoundingMode: return "RoundingMode";
    case FieldKind::ElementBytes:
    case FieldKind::Bytes: return "[ubyte]";
    case FieldKind::String: return "string";
  }
  return "?";
}

std::vector<Op> allOps() {
  std::vector<Op> ops;
  for (std::uint32_t n = 1; n <= kMaxOp; ++n) ops.push_back(static_cast<Op>(n));
  return ops;
}

TEST(AttributeTable, MatchesTheFlatbufferSchema) {
  const Schema schema = parseSchema();
  ASSERT_EQ(schema.attributeUnion.size(), static_cast<std::size_t>(kMaxOp));
  for (Op op : allOps()) {
    const std::string& tableName = schema.attributeUnion[static_cast<std::size_t>(op) - 1];
    SCOPED_TRACE(fmt::format("{} ({})", toString(op), tableName));
    ASSERT_TRUE(schema.tables.contains(tableName));
    const std::vector<SchemaField>& want = schema.tables.at(tableName);
    const std::span<const AttrField> have = detail::attrFields(opInfo(op).attributes);
    ASSERT_EQ(have.size(), want.size());
    for (std::size_t i = 0; i < have.size(); ++i) {
      EXPECT_EQ(have[i].name, want[i].name) << "slot " << i;
      EXPECT_EQ(schemaType(have[i].kind), want[i].type) << have[i].name;
      EXPECT_EQ(have[i].kind == FieldKind::ElementBytes, want[i].forceAlign8) << have[i].name;
    }
  }
}

TEST(AttributeTable, LayoutsAreGroupedUsedAndDistinctByStruct) {
  std::size_t total = 0;
  for (AttrLayout layout : detail::kAttrLayouts) {
    SCOPED_TRACE(std::string(detail::layoutName(layout)));
    const auto fields = detail::attrFields(layout);
    std::size_t listed = 0;
    for (const AttrField& f : detail::kAttrFields) listed += f.layout == layout ? 1 : 0;
    EXPECT_EQ(fields.size(), listed) << "a layout's fields must follow its OVGF_ATTR_LAYOUT line together";
    total += listed;
    bool used = false;
    for (Op op : allOps()) used = used || opInfo(op).attributes == layout;
    EXPECT_TRUE(used || layout == AttrLayout::Empty) << "no operator of tosa/ops.def has this layout";
  }
  EXPECT_EQ(total, std::size(detail::kAttrFields));
  // Tables with equal fields are one table: ARGMAX's and REDUCE_MAX's, not RFFT2D's and
  // ARITHMETIC_RIGHT_SHIFT's (one bool each, by other names).
  EXPECT_TRUE(detail::sameTable(opInfo(Op::ArgMax).attributes, opInfo(Op::ReduceMax).attributes));
  EXPECT_FALSE(detail::sameTable(opInfo(Op::Rfft2d).attributes, opInfo(Op::ArithmeticRightShift).attributes));
}

TEST(AttributeTable, MatchesTheSpirvGrammar) {
  for (Op op : allOps()) {
    SCOPED_TRACE(std::string(toString(op)));
    const auto fields = detail::attrFields(opInfo(op).attributes);
    bool encodable = true;
    std::vector<std::string_view> names;
    for (const AttrField& f : fields) {
      encodable = encodable && f.kind != FieldKind::String && f.kind != FieldKind::Bytes;
      names.push_back(f.name);
    }
    const spirv::ExtInstruction* inst = spirv::findExtInstruction(op);
    if (inst == nullptr) {
      // CUSTOM, control flow (strings) and the data nodes and variables (no attributes).
      EXPECT_TRUE(!encodable || fields.empty());
      continue;
    }
    EXPECT_TRUE(encodable);
    const std::span<const std::string_view> operands = inst->operandNames().first(spirv::attributeCount(*inst));
    std::vector<std::string_view> grammar(operands.begin(), operands.end());
    std::sort(names.begin(), names.end());
    std::sort(grammar.begin(), grammar.end());
    EXPECT_EQ(names, grammar);
  }
}

/// A non-default value for a field of kind K (slot varies the numbers between fields). CLAMP's
/// bounds are INT16 elements.
template <FieldKind K>
detail::FieldValue<K> nonDefault(std::uint16_t slot) {
  const int n = static_cast<int>(slot);
  if constexpr (K == FieldKind::Int32) return -3 - n;
  else if constexpr (K == FieldKind::Int32List) return {n + 2, -1, 7};
  else if constexpr (K == FieldKind::Bool) return true;
  else if constexpr (K == FieldKind::AccType) return DType::Int48;
  else if constexpr (K == FieldKind::NanMode) return NanMode::Ignore;
  else if constexpr (K == FieldKind::ResizeMode) return ResizeMode::Bilinear;
  else if constexpr (K == FieldKind::RoundingMode) return RoundingMode::DoubleRound;
  else if constexpr (K == FieldKind::ElementBytes) return {static_cast<std::uint8_t>(0x34 + n), 0x92};
  else if constexpr (K == FieldKind::Bytes) return {1, 0, 255};
  else return "graph_" + std::to_string(n);
}
constexpr DType kClampElement = DType::Int16;

/// `op`'s attributes with every field non-default, or with only the field of slot `only`
/// non-default (none for a slot past the last).
Attributes attributesOf(Op op, std::optional<std::uint16_t> only = std::nullopt) {
  return detail::visitLayout(opInfo(op).attributes, [&](auto layout) -> Attributes {
    detail::LayoutStruct<decltype(layout)::value> attrs{};
    detail::forEachField<decltype(layout)::value>(attrs, [&](auto kind, std::string_view, std::uint16_t slot, auto& f) {
      if (!only || *only == slot) f = nonDefault<decltype(kind)::value>(slot);
    });
    return attrs;
  });
}

Graph oneOperator(Op op, const Attributes& attrs) {
  Operator o;
  o.op = op;
  o.attrs = attrs;
  Block block;
  block.name = "main";
  block.operators.push_back(o);
  Graph g;
  g.regions.push_back({"main", {block}});
  return g;
}

TEST(AttributeTable, EveryFieldIsNonDefaultInTheProperty) {
  for (Op op : allOps()) {
    SCOPED_TRACE(std::string(toString(op)));
    const Attributes defaults = attributesOf(op, std::uint16_t{0xFFFF});
    const auto fields = detail::attrFields(opInfo(op).attributes);
    for (std::uint16_t slot = 0; slot < fields.size(); ++slot) {
      EXPECT_NE(attributesOf(op, slot), defaults) << fields[slot].name << " would not show a lost field";
    }
  }
}

TEST(AttributeTable, EveryFieldRoundTripsThroughWriterReaderAndJson) {
  for (Op op : allOps()) {
    SCOPED_TRACE(std::string(toString(op)));
    const Attributes attrs = attributesOf(op);
    auto bytes = writeGraph(oneOperator(op, attrs));
    ASSERT_TRUE(bytes) << bytes.error().message();
    auto back = readGraph(*bytes, "attributes.tosa");
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_EQ(back->mainBlock()->operators.at(0).attrs, attrs);

    const auto json = nlohmann::ordered_json::parse(toJson(*back));
    const auto& shown = json["regions"][0]["blocks"][0]["operators"][0]["attributes"];
    std::vector<std::string> keys, names;
    for (const auto& [key, value] : shown.items()) keys.push_back(key);
    for (const AttrField& f : detail::attrFields(opInfo(op).attributes)) names.emplace_back(f.name);
    EXPECT_EQ(keys, names);
  }
}

TEST(AttributeTable, EveryFieldRoundTripsThroughTheSpirvAttributeOperands) {
  for (Op op : allOps()) {
    const spirv::ExtInstruction* inst = spirv::findExtInstruction(op);
    if (inst == nullptr) continue;
    SCOPED_TRACE(std::string(toString(op)));
    const Attributes attrs = attributesOf(op);
    auto named = spirv::attributesToOperands(op, attrs, kClampElement);
    ASSERT_TRUE(named) << named.error().message();
    // The decoder hands the operands over in the instruction's order.
    spirv::NamedAttributes inOrder;
    for (std::string_view name : inst->operandNames().first(spirv::attributeCount(*inst))) {
      for (const auto& operand : *named) {
        if (operand.first == name) inOrder.push_back(operand);
      }
    }
    EXPECT_EQ(inOrder.size(), named->size());
    auto back = spirv::attributesFromOperands(op, inOrder);
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_EQ(*back, attrs);
  }
}

}  // namespace
}  // namespace openvgf::tosa
