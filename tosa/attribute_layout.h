// SPDX-License-Identifier: Apache-2.0
// The attribute table (tosa/attributes.def) as plain data: each serialized attribute layout and
// the names and kinds of its fields, in schema order. tosa/ops.def names each operator's
// layout; tosa/attribute_fields.h walks a layout's fields over its attribute struct.
//
// A file may carry a union tag that differs from the op (specs/tosa.md §1.3): a table whose
// fields are the op's fields (sameTable) can still be read as the op's attributes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "tosa/types.h"

namespace openvgf::tosa::detail {

enum class AttrLayout {
#define OVGF_ATTR_LAYOUT(Layout, Struct) Layout,
#include "tosa/attributes.def"
};

/// How a field is typed and encoded (the Kind column of tosa/attributes.def).
enum class FieldKind { Int32, Int32List, Bool, AccType, NanMode, ResizeMode, RoundingMode, ElementBytes, Bytes, String };

struct AttrField {
  AttrLayout layout;
  std::string_view name;  // schema field name = SPIR-V operand name = JSON key
  FieldKind kind;
};

/// Every field of every layout, grouped by layout in table order.
inline constexpr AttrField kAttrFields[] = {
#define OVGF_ATTR_FIELD(Layout, Member, Name, Kind) {AttrLayout::Layout, Name, FieldKind::Kind},
#include "tosa/attributes.def"
};

/// Every layout in table order, and its name ("AvgPool").
inline constexpr AttrLayout kAttrLayouts[] = {
#define OVGF_ATTR_LAYOUT(Layout, Struct) AttrLayout::Layout,
#include "tosa/attributes.def"
};
inline constexpr std::string_view kAttrLayoutNames[] = {
#define OVGF_ATTR_LAYOUT(Layout, Struct) #Layout,
#include "tosa/attributes.def"
};

/// The fields of `layout` in schema order (a field's flatbuffer slot is its index here).
constexpr std::span<const AttrField> attrFields(AttrLayout layout) {
  const std::span<const AttrField> all(kAttrFields);
  std::size_t begin = 0;
  while (begin < all.size() && all[begin].layout != layout) ++begin;
  std::size_t end = begin;
  while (end < all.size() && all[end].layout == layout) ++end;
  return all.subspan(begin, end - begin);
}

/// True when tables of the two layouts have the same fields (names and kinds, in order), so
/// either can be read as the other.
constexpr bool sameTable(AttrLayout a, AttrLayout b) {
  const std::span<const AttrField> x = attrFields(a), y = attrFields(b);
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i].name != y[i].name || x[i].kind != y[i].kind) return false;
  }
  return true;
}

constexpr std::string_view layoutName(AttrLayout layout) {
  return kAttrLayoutNames[static_cast<std::size_t>(layout)];
}

/// Layout of the attribute table with union tag (= op number) `tag`, from the operator table
/// (tosa/ops.def); Empty for unknown tags.
AttrLayout attrLayout(std::uint32_t tag);
AttrLayout attrLayout(Op op);

}  // namespace openvgf::tosa::detail
