// SPDX-License-Identifier: Apache-2.0
// Walks the fields of an attribute layout (tosa/attributes.def) over its attribute struct
// (tosa/graph.h), so the reader, writer, JSON dump and SPIR-V codec each handle a field kind
// once instead of listing every operator's fields:
//
//   visitLayout(layout, [&](auto l) {                  // l: the layout as a compile-time constant
//     constexpr AttrLayout L = decltype(l)::value;
//     LayoutStruct<L> attrs{};                         // e.g. AvgPool2dAttrs
//     forEachField<L>(attrs, [&](auto kind, std::string_view name, std::uint16_t slot, auto& member) {
//       // decltype(kind)::value: the FieldKind; slot: the field's index (flatbuffer slot)
//     });
//   });
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "tosa/attribute_layout.h"
#include "tosa/graph.h"

namespace openvgf::tosa::detail {

template <AttrLayout L>
struct LayoutStructOf;
#define OVGF_ATTR_LAYOUT(Layout, Struct) \
  template <>                            \
  struct LayoutStructOf<AttrLayout::Layout> { using type = Struct; };
#include "tosa/attributes.def"

/// The attribute struct an operator of layout L holds.
template <AttrLayout L>
using LayoutStruct = typename LayoutStructOf<L>::type;

/// The member type each field kind is held in.
template <FieldKind K>
struct FieldValueOf;
template <> struct FieldValueOf<FieldKind::Int32> { using type = std::int32_t; };
template <> struct FieldValueOf<FieldKind::Int32List> { using type = std::vector<std::int32_t>; };
template <> struct FieldValueOf<FieldKind::Bool> { using type = bool; };
template <> struct FieldValueOf<FieldKind::AccType> { using type = DType; };
template <> struct FieldValueOf<FieldKind::NanMode> { using type = NanMode; };
template <> struct FieldValueOf<FieldKind::ResizeMode> { using type = ResizeMode; };
template <> struct FieldValueOf<FieldKind::RoundingMode> { using type = RoundingMode; };
template <> struct FieldValueOf<FieldKind::ElementBytes> { using type = std::vector<std::uint8_t>; };
template <> struct FieldValueOf<FieldKind::Bytes> { using type = std::vector<std::uint8_t>; };
template <> struct FieldValueOf<FieldKind::String> { using type = std::string; };
template <FieldKind K>
using FieldValue = typename FieldValueOf<K>::type;

template <FieldKind K>
using KindConstant = std::integral_constant<FieldKind, K>;

/// Calls f(KindConstant<kind>, name, slot, member) for every field of layout L, in schema order;
/// `attrs` is a LayoutStruct<L>, const or not.
template <AttrLayout L, typename S, typename F>
constexpr void forEachField(S& attrs, F&& f) {
  static_assert(std::is_same_v<std::remove_const_t<S>, LayoutStruct<L>>, "attrs must be the layout's struct");
  [[maybe_unused]] std::uint16_t slot = 0;
#define OVGF_ATTR_FIELD(Layout, Member, Name, Kind)                                                             \
  if constexpr (L == AttrLayout::Layout) {                                                                      \
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(attrs.Member)>, FieldValue<FieldKind::Kind>>, \
                  "tosa/attributes.def: " #Layout "." #Member " is not held as a " #Kind);                     \
    f(KindConstant<FieldKind::Kind>{}, std::string_view(Name), slot++, attrs.Member);                           \
  }
#include "tosa/attributes.def"
}

/// Calls f(std::integral_constant<AttrLayout, layout>) and returns what it returns.
template <typename F>
decltype(auto) visitLayout(AttrLayout layout, F&& f) {
  switch (layout) {
#define OVGF_ATTR_LAYOUT(Layout, Struct) \
  case AttrLayout::Layout: return f(std::integral_constant<AttrLayout, AttrLayout::Layout>{});
#include "tosa/attributes.def"
  }
  return f(std::integral_constant<AttrLayout, AttrLayout::Empty>{});
}

}  // namespace openvgf::tosa::detail
