// SPDX-License-Identifier: Apache-2.0
// The operator table (tosa/ops.def) as data: for each TOSA 1.0 operator its spelling,
// category, operand counts, serialized attribute layout, type-support rows and the rules that
// verify it and infer its outputs (tosa/ops/<family>.cpp). The reader, writer, JSON dump,
// builder, verifier, shape inference and reference interpreter look operators up here
// instead of keeping their own lists.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "tosa/attribute_layout.h"
#include "tosa/types.h"

namespace openvgf::tosa {

/// The spec section an operator belongs to (specs/tosa.md §2.3).
enum class OpCategory {
  Unknown,
  Tensor,
  Activation,
  ElementwiseBinary,
  ElementwiseUnary,
  ElementwiseTernary,
  Comparison,
  Reduction,
  DataLayout,
  ScatterGather,
  Image,
  TypeConversion,
  DataNode,
  Custom,
  ControlFlow,
  Variable,
};

/// Profiles a type combination belongs to (a bit set: either one suffices).
enum ProfileBits : std::uint8_t { kProInt = 1, kProFp = 2, kProBoth = 3 };

/// Extensions a type combination or an operator needs (a bit set: all of them).
enum ExtensionBits : std::uint32_t {
  kExtInt16 = 1u << 0,
  kExtInt4 = 1u << 1,
  kExtBf16 = 1u << 2,
  kExtFp8E4M3 = 1u << 3,
  kExtFp8E5M2 = 1u << 4,
  kExtFft = 1u << 5,
  kExtVariable = 1u << 6,
  kExtControlFlow = 1u << 7,
  kExtDynamic = 1u << 8,
  kExtDoubleRound = 1u << 9,
  kExtInexactRound = 1u << 10,
};
/// Spelling of extension bit i ("EXT-INT16", ...).
inline constexpr std::array<std::string_view, 11> kExtensionNames = {
    "EXT-INT16",    "EXT-INT4",        "EXT-BF16",    "EXT-FP8E4M3",     "EXT-FP8E5M2",     "EXT-FFT",
    "EXT-VARIABLE", "EXT-CONTROLFLOW", "EXT-DYNAMIC", "EXT-DOUBLEROUND", "EXT-INEXACTROUND"};

/// One allowed type combination of an operator (the key its verify rule builds: e.g. input x
/// weight x acc_type for CONV2D), with the profiles that define it and the extensions it needs.
struct TypeRow {
  std::array<DType, 3> key{};
  std::uint8_t size = 0;  // used entries of key
  std::uint8_t profiles = kProBoth;
  std::uint32_t extensions = 0;

  constexpr TypeRow(std::initializer_list<DType> types, std::uint8_t profile, std::uint32_t ext = 0)
      : size(static_cast<std::uint8_t>(types.size())), profiles(profile), extensions(ext) {
    std::size_t i = 0;
    for (DType t : types) key[i++] = t;
  }
  bool matches(std::span<const DType> types) const;
};

namespace ops {
struct OpRules;  // tosa/ops/rules.h
}

struct OpInfo {
  Op op = Op::Unknown;
  std::string_view name;               // spec spelling, "CONV2D"
  OpCategory category = OpCategory::Unknown;
  OpArity arity;
  detail::AttrLayout attributes = detail::AttrLayout::Empty;
  const ops::OpRules* rules = nullptr;  // verify and shape rules; nullptr for UNKNOWN
  std::span<const TypeRow> types;       // empty: the type combination is not checked by a table
};

/// The entry of `op`; the UNKNOWN entry for a number outside the table.
const OpInfo& opInfo(Op op);
/// Every entry, indexed by operator number.
std::span<const OpInfo> opTable();

/// True for the operators a fused elementwise kernel can compute: activations, elementwise
/// unary / binary / ternary operators, comparisons, CAST, RESCALE and IDENTITY.
bool isElementwise(Op op);

}  // namespace openvgf::tosa
