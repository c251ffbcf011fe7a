// SPDX-License-Identifier: Apache-2.0
// The operator table (see op_table.h and tosa/ops.def) and the type-support rows it names:
// specs/tosa.md §2.2, one row per type combination with the profiles that define it and the
// extensions it needs. Rows keep the spec's order; where several profiles allow a
// combination, requirements() prefers the earlier row.
#include "tosa/op_table.h"

#include <algorithm>

#include "tosa/ops/rules.h"

namespace openvgf::tosa {

bool TypeRow::matches(std::span<const DType> types) const {
  return types.size() == size && std::equal(types.begin(), types.end(), key.begin());
}

namespace {

constexpr DType Bool = DType::Bool, I4 = DType::Int4, I8 = DType::Int8, I16 = DType::Int16, I32 = DType::Int32,
                I48 = DType::Int48, F16 = DType::Fp16, F32 = DType::Fp32, BF16 = DType::Bf16,
                E4M3 = DType::Fp8E4M3, E5M2 = DType::Fp8E5M2, SHAPE = DType::Shape;

// clang-format off
constexpr TypeRow kArgMaxTypes[] = {
    {{I8}, kProInt}, {{F16}, kProFp}, {{F32}, kProFp}, {{I16}, kProInt, kExtInt16},
    {{E4M3}, kProFp, kExtFp8E4M3}, {{E5M2}, kProFp, kExtFp8E5M2}, {{BF16}, kProFp, kExtBf16}};
constexpr TypeRow kAvgPoolTypes[] = {  // input x acc_type
    {{I8, I32}, kProInt}, {{F16, F16}, kProFp}, {{F16, F32}, kProFp}, {{F32, F32}, kProFp},
    {{I16, I32}, kProInt, kExtInt16}, {{E4M3, F16}, kProFp, kExtFp8E4M3}, {{E5M2, F16}, kProFp, kExtFp8E5M2},
    {{BF16, F32}, kProFp, kExtBf16}};
constexpr TypeRow kConvTypes[] = {  // input x weight x acc_type
    {{I8, I8, I32}, kProInt}, {{I8, I4, I32}, kProInt, kExtInt4}, {{I16, I8, I48}, kProInt, kExtInt16},
    {{F16, F16, F16}, kProFp}, {{F16, F16, F32}, kProFp}, {{F32, F32, F32}, kProFp},
    {{E4M3, E4M3, F16}, kProFp, kExtFp8E4M3}, {{E5M2, E5M2, F16}, kProFp, kExtFp8E5M2},
    {{BF16, BF16, F32}, kProFp, kExtBf16}};
constexpr TypeRow kFftTypes[] = {{{F32}, kProFp, kExtFft}};
constexpr TypeRow kMatMulTypes[] = {  // A x B x output
    {{I8, I8, I32}, kProInt}, {{I16, I16, I48}, kProInt, kExtInt16}, {{F16, F16, F16}, kProFp},
    {{F16, F16, F32}, kProFp}, {{F32, F32, F32}, kProFp}, {{E4M3, E4M3, F16}, kProFp, kExtFp8E4M3},
    {{E5M2, E5M2, F16}, kProFp, kExtFp8E5M2}, {{BF16, BF16, F32}, kProFp, kExtBf16}};
constexpr TypeRow kClampTypes[] = {
    {{I8}, kProInt}, {{F16}, kProFp}, {{F32}, kProFp}, {{I16}, kProInt, kExtInt16}, {{BF16}, kProFp, kExtBf16}};
constexpr TypeRow kFpUnaryTypes[] = {{{F16}, kProFp}, {{F32}, kProFp}, {{BF16}, kProFp, kExtBf16}};
constexpr TypeRow kAddLikeTypes[] = {{{F16}, kProFp}, {{F32}, kProFp}, {{BF16}, kProFp, kExtBf16}, {{I32}, kProBoth}};
constexpr TypeRow kIntBitwiseTypes[] = {{{I8}, kProInt}, {{I16}, kProInt}, {{I32}, kProInt}};
constexpr TypeRow kIntShiftTypes[] = {{{I8}, kProBoth}, {{I16}, kProBoth}, {{I32}, kProBoth}};
constexpr TypeRow kIntDivTypes[] = {{{I32}, kProBoth}};
constexpr TypeRow kClzTypes[] = {{{I32}, kProInt}};
constexpr TypeRow kBoolTypes[] = {{{Bool}, kProBoth}};
constexpr TypeRow kMulTypes[] = {  // input x output
    {{I8, I32}, kProInt}, {{I16, I32}, kProInt}, {{I32, I32}, kProBoth}, {{F16, F16}, kProFp},
    {{F32, F32}, kProFp}, {{BF16, BF16}, kProFp, kExtBf16}};
constexpr TypeRow kTableTypes[] = {{{I8}, kProInt}, {{I16}, kProInt, kExtInt16}};
constexpr TypeRow kNegateTypes[] = {
    {{I8}, kProInt}, {{I16}, kProInt}, {{I32}, kProInt}, {{F16}, kProFp}, {{F32}, kProFp}, {{BF16}, kProFp, kExtBf16}};
constexpr TypeRow kSelectTypes[] = {
    {{Bool}, kProBoth}, {{I8}, kProInt}, {{I16}, kProInt}, {{I32}, kProInt}, {{F16}, kProFp}, {{F32}, kProFp},
    {{BF16}, kProFp, kExtBf16}};
constexpr TypeRow kReduceMaxTypes[] = {
    {{I8}, kProInt}, {{I16}, kProInt}, {{I32}, kProInt}, {{F16}, kProFp}, {{F32}, kProFp}, {{BF16}, kProFp, kExtBf16}};
constexpr TypeRow kConcatTypes[] = {
    {{Bool}, kProBoth}, {{I8}, kProInt}, {{I16}, kProInt, kExtInt16}, {{I32}, kProInt}, {{F16}, kProFp},
    {{F32}, kProFp}, {{E4M3}, kProFp, kExtFp8E4M3}, {{E5M2}, kProFp, kExtFp8E5M2}, {{BF16}, kProFp, kExtBf16}};
constexpr TypeRow kDataLayoutTypes[] = {
    {{Bool}, kProBoth}, {{I8}, kProInt}, {{I16}, kProInt}, {{I32}, kProInt}, {{F16}, kProFp}, {{F32}, kProFp},
    {{E4M3}, kProFp, kExtFp8E4M3}, {{E5M2}, kProFp, kExtFp8E5M2}, {{BF16}, kProFp, kExtBf16}};
constexpr TypeRow kGatherTypes[] = {
    {{I8}, kProInt}, {{I16}, kProInt}, {{I32}, kProInt}, {{F16}, kProFp}, {{F32}, kProFp},
    {{E4M3}, kProFp, kExtFp8E4M3}, {{E5M2}, kProFp, kExtFp8E5M2}, {{BF16}, kProFp, kExtBf16}};
constexpr TypeRow kResizeTypes[] = {  // input x output
    {{I8, I32}, kProInt}, {{I8, I8}, kProInt}, {{I16, I48}, kProInt, kExtInt16}, {{I16, I16}, kProInt, kExtInt16},
    {{F16, F16}, kProFp}, {{F32, F32}, kProFp}, {{BF16, BF16}, kProFp, kExtBf16}};
constexpr TypeRow kCastTypes[] = {  // input x output
    {{Bool, I8}, kProInt}, {{I8, Bool}, kProInt}, {{I8, I16}, kProInt}, {{I8, I32}, kProInt},
    {{I8, F16}, kProFp}, {{F16, I8}, kProFp}, {{I8, F32}, kProFp}, {{F32, I8}, kProFp},
    {{I8, BF16}, kProFp, kExtBf16}, {{BF16, I8}, kProFp, kExtBf16}, {{Bool, I16}, kProInt},
    {{I16, Bool}, kProInt}, {{I16, I8}, kProInt}, {{I16, I32}, kProInt}, {{I16, F16}, kProFp},
    {{F16, I16}, kProFp}, {{I16, F32}, kProFp}, {{F32, I16}, kProFp}, {{I16, BF16}, kProFp, kExtBf16},
    {{BF16, I16}, kProFp, kExtBf16}, {{Bool, I32}, kProInt}, {{I32, Bool}, kProInt}, {{I32, I8}, kProInt},
    {{I32, I16}, kProInt}, {{I32, F16}, kProFp}, {{F16, I32}, kProFp}, {{I32, F32}, kProFp},
    {{F32, I32}, kProFp}, {{I32, BF16}, kProFp, kExtBf16}, {{BF16, I32}, kProFp, kExtBf16},
    {{F16, F32}, kProFp}, {{F32, F16}, kProFp}, {{BF16, F32}, kProFp, kExtBf16},
    {{F32, BF16}, kProFp, kExtBf16}, {{E4M3, F16}, kProFp, kExtFp8E4M3}, {{F16, E4M3}, kProFp, kExtFp8E4M3},
    {{E4M3, F32}, kProFp, kExtFp8E4M3}, {{F32, E4M3}, kProFp, kExtFp8E4M3},
    {{E4M3, BF16}, kProFp, kExtFp8E4M3 | kExtBf16}, {{BF16, E4M3}, kProFp, kExtFp8E4M3 | kExtBf16},
    {{E5M2, F16}, kProFp, kExtFp8E5M2}, {{F16, E5M2}, kProFp, kExtFp8E5M2},
    {{E5M2, F32}, kProFp, kExtFp8E5M2}, {{F32, E5M2}, kProFp, kExtFp8E5M2},
    {{E5M2, BF16}, kProFp, kExtFp8E5M2 | kExtBf16}, {{BF16, E5M2}, kProFp, kExtFp8E5M2 | kExtBf16},
};
constexpr TypeRow kRescaleTypes[] = {  // input x output
    {{I8, I8}, kProInt}, {{I8, I16}, kProInt}, {{I8, I32}, kProInt}, {{I16, I8}, kProInt},
    {{I16, I16}, kProInt}, {{I16, I32}, kProInt}, {{I32, I8}, kProInt}, {{I32, I16}, kProInt},
    {{I32, I32}, kProInt}, {{I48, I8}, kProInt, kExtInt16}, {{I48, I16}, kProInt, kExtInt16},
    {{I48, I32}, kProInt, kExtInt16},
};
constexpr TypeRow kConstTypes[] = {
    {{Bool}, kProBoth}, {{I8}, kProBoth}, {{I16}, kProBoth}, {{I32}, kProBoth}, {{F16}, kProFp}, {{F32}, kProFp},
    {{I4}, kProInt, kExtInt4}, {{I48}, kProInt, kExtInt16}, {{E4M3}, kProFp, kExtFp8E4M3},
    {{E5M2}, kProFp, kExtFp8E5M2}, {{BF16}, kProFp, kExtBf16}};
constexpr TypeRow kConstShapeTypes[] = {{{SHAPE}, kProBoth}};
constexpr std::span<const TypeRow> kNoneTypes;

constexpr OpInfo kOps[] = {
#define OVGF_OP(Name, Number, Spelling, Category, RulesName, Reference, Layout, Inputs, Outputs, Defaulted, TypesName) \
  {Op::Name, Spelling, OpCategory::Category, OpArity{Inputs, Outputs, Defaulted}, detail::AttrLayout::Layout,          \
   &ops::k##RulesName##Rules, k##TypesName##Types},
#include "tosa/ops.def"
#undef OVGF_OP
};
// clang-format on

constexpr bool denselyNumbered() {
  for (std::size_t i = 0; i < std::size(kOps); ++i) {
    if (static_cast<std::size_t>(kOps[i].op) != i) return false;
  }
  return std::size(kOps) == kMaxOp + 1;
}
static_assert(denselyNumbered(), "tosa/ops.def: operators must be listed by number, without gaps");

}  // namespace

const OpInfo& opInfo(Op op) {
  const auto i = static_cast<std::uint32_t>(op);
  return i <= kMaxOp ? kOps[i] : kOps[0];
}

std::span<const OpInfo> opTable() { return kOps; }

bool isElementwise(Op op) {
  switch (opInfo(op).category) {
    case OpCategory::Activation:
    case OpCategory::ElementwiseBinary:
    case OpCategory::ElementwiseUnary:
    case OpCategory::ElementwiseTernary:
    case OpCategory::Comparison: return true;
    default: return op == Op::Cast || op == Op::Rescale || op == Op::Identity;
  }
}

}  // namespace openvgf::tosa

namespace openvgf::tosa::detail {

AttrLayout attrLayout(std::uint32_t tag) {
  return tag <= kMaxOp ? opInfo(static_cast<Op>(tag)).attributes : AttrLayout::Empty;
}

AttrLayout attrLayout(Op op) { return attrLayout(static_cast<std::uint32_t>(op)); }

}  // namespace openvgf::tosa::detail
