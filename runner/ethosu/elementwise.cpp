// SPDX-License-Identifier: Apache-2.0
// NPU_OP_ELEMENTWISE (specs/ethosu.md §4.4). Operands are (IFM - zero point) and
// (IFM2 - zero point), where IFM2 may be broadcast along H/W/C or be a scalar.
// U55/U65: ADD/SUB scale their operands by the IFM_PRECISION scale mode (OPA_OPB_16 16-bit
// multipliers, or OPA_32/OPB_32 where one operand is rescaled and the other shifted left by
// 19 for 8-bit / 14 for 16-bit data); MUL, MIN, MAX, ABS, CLZ and the shifts use the operands
// as they are (SHR rounds with the OFM rounding mode, SHL wraps to 32 bits).
// U85: each operand is first rescaled by IFM_SCALE / IFM2_SCALE (with their rounding and
// double-rounding shift; LRELU uses IFM2_SCALE as the negative slope), then every mode of the
// ISA: arithmetic, MIN/MAX, ABS, CLZ, shifts (SHR rounds with the OFM rounding mode), DIV,
// comparisons (true is -1, Regor's internal boolean) and bitwise logic. The result goes
// through the OFM scale and output stage.
#include <algorithm>
#include <bit>

#include "runner/ethosu/operations.h"

namespace openvgf::runner::ethosu {

using namespace ::openvgf::ethosu;

namespace {

enum : unsigned {
  kMul = 0, kAdd = 1, kSub = 2, kMin = 3, kMax = 4, kLrelu = 5, kAbs = 6, kClz = 7, kShr = 8, kShl = 9, kLsr = 10,
  kDiv = 11, kCmpEq = 16, kCmpNe = 17, kCmpGe = 18, kCmpGt = 19, kAnd = 33, kOr = 34, kXor = 35, kNot = 36, kAndNot = 42
};

bool isUnary(unsigned mode) { return mode == kAbs || mode == kClz || mode == kNot || mode == kLrelu; }

/// An input scale register of the U85 (IFM_SCALE, IFM2_SCALE).
struct InputScale {
  std::uint32_t scale = 1;
  unsigned shift = 0, dblRnd = 0, round = 0;
  std::int64_t apply(std::int64_t v) const { return rescaleU85(v, scale, shift, round == 1 ? 1 : 0, dblRnd); }
};

Result<InputScale> loadInputScale(const RegisterFile& r, std::uint16_t code, const char* name) {
  InputScale s{r.d(code) & 0x7FFFFFFF, r.dp(code) & 0x3Fu, (r.dp(code) >> 6) & 31u, (r.dp(code) >> 13) & 1u};
  if (s.dblRnd > 30) return invalidInput("{}: dbl_rnd: expected 0..30, got {}", name, s.dblRnd);
  return s;
}

/// The U55/U65 operand scaling of ADD/SUB.
struct U55AddScaling {
  unsigned mode = 0, round = 0, implicitShift = 19;
  std::uint32_t opa = 0, opb = 0;
  unsigned opaShift = 0;
  bool swapped = false;
};

Result<std::int64_t> u55Combine(unsigned mode, std::int64_t a, std::int64_t b, const U55AddScaling& s, unsigned ofmRound) {
  switch (mode) {
    case kMul: return a * b;
    case kMin: return std::min(a, b);
    case kMax: return std::max(a, b);
    case kAbs: return a < 0 ? -a : a;
    case kClz: return std::countl_zero(static_cast<std::uint32_t>(a));
    case kShr:  // rounds with the OFM rounding mode (Vela's softmax asks for NATURAL)
      if (b < 0 || b > 63) return invalidInput("SHR: shift {} is outside 0..63", b);
      return rescaleValue(a, 1, static_cast<unsigned>(b), ofmRound);
    case kShl:
      if (b < 0 || b > 63) return invalidInput("SHL: shift {} is outside 0..63", b);
      return static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(a) << (b & 31)));
    default: break;
  }
  std::int64_t sa = 0, sb = 0;
  if (s.mode == 0) {
    sa = a * (s.opa & 0xFFFF);
    sb = b * s.opb;
  } else if (s.mode == 1) {
    sa = rescaleValue(a, s.opa, s.opaShift, s.round);
    sb = b * (std::int64_t{1} << s.implicitShift);
  } else {
    sa = a * (std::int64_t{1} << s.implicitShift);
    sb = rescaleValue(b, s.opa, s.opaShift, s.round);
  }
  if (mode == kAdd) return sa + sb;
  return s.swapped ? sb - sa : sa - sb;
}

Result<std::int64_t> u85Combine(unsigned mode, std::int64_t a, std::int64_t b, std::int64_t rawA, const InputScale& scale2,
                                const OutputStage& stage, unsigned ifmBits) {
  const auto ua = static_cast<std::uint64_t>(a) & ((ifmBits >= 64) ? ~std::uint64_t{0} : ((std::uint64_t{1} << ifmBits) - 1));
  switch (mode) {
    case kMul: return a * b;
    case kAdd: return a + b;
    case kSub: return a - b;
    case kMin: return std::min(a, b);
    case kMax: return std::max(a, b);
    case kLrelu: return rawA >= 0 ? a : scale2.apply(rawA);
    case kAbs: return a < 0 ? -a : a;
    case kClz: return std::countl_zero(static_cast<std::uint32_t>(a));
    case kShr:
      if (b < 0 || b > 63) return invalidInput("SHR: shift {} is outside 0..63", b);
      return rescaleU85(a, 1, static_cast<unsigned>(b), stage.roundMode, 0);
    case kShl:
      if (b < 0 || b > 63) return invalidInput("SHL: shift {} is outside 0..63", b);
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) << b);
    case kLsr:
      if (b < 0 || b > 63) return invalidInput("LSR: shift {} is outside 0..63", b);
      return static_cast<std::int64_t>(ua >> b);
    case kDiv:
      if (b == 0) return invalidInput("DIV: division by zero");
      return a / b;
    case kCmpEq: return a == b ? -1 : 0;
    case kCmpNe: return a != b ? -1 : 0;
    case kCmpGe: return a >= b ? -1 : 0;
    case kCmpGt: return a > b ? -1 : 0;
    case kAnd: return a & b;
    case kOr: return a | b;
    case kXor: return a ^ b;
    case kNot: return ~a;
    case kAndNot: return a & ~b;
    default: return unsupported("elementwise mode {} is not modelled", mode);
  }
}

}  // namespace

Status runElementwise(const OpContext& ctx, unsigned mode) {
  const RegisterFile& r = ctx.regs;
  if (!r.u85() && !(mode <= kMax || mode == kAbs || mode == kClz || mode == kShr || mode == kShl)) {
    static constexpr const char* kNames[] = {"MUL", "ADD", "SUB", "MIN", "MAX", "LRELU", "ABS", "CLZ", "SHR", "SHL"};
    return unsupported("elementwise mode {} ({}) is not supported", mode, kNames[mode < 10 ? mode : 0]);
  }
  const bool unary = isUnary(mode);
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ifm, loadFeatureMap(r, MapKind::Ifm));
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ifm2, loadFeatureMap(r, MapKind::Ifm2));
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ofm, loadFeatureMap(r, MapKind::Ofm));
  if (!unary && ifm2.elemBytes != ifm.elemBytes && !ifm2.scalar) {
    return invalidInput("IFM2_PRECISION: expected the IFM's {}-bit precision, got {}-bit", 8 * ifm.elemBytes, 8 * ifm2.elemBytes);
  }
  const std::int64_t ofmH = std::int64_t{r.p(cmd0::kOfmHeightM1)} + 1;
  const std::int64_t ofmW = std::int64_t{r.p(cmd0::kOfmWidthM1)} + 1;
  const std::int64_t ofmD = std::int64_t{r.p(cmd0::kOfmDepthM1)} + 1;
  OPENVGF_TRY(ctx.chargeWork({static_cast<std::uint64_t>(ofmH), static_cast<std::uint64_t>(ofmW), static_cast<std::uint64_t>(ofmD)}));
  Accessor in(ifm, ctx), in2(ifm2, ctx), out(ofm, ctx);
  OPENVGF_TRY(in.checkExtent(ofmH, ofmW, ofmD));
  if (!unary) OPENVGF_TRY(in2.checkExtent(ofmH, ofmW, ofmD));
  OPENVGF_ASSIGN_OR_RETURN(const OutputStage stage, loadOutputStage(ctx, ofm));
  const bool globalScale = (r.p(cmd0::kOfmPrecision) >> 8) & 1;
  GlobalScale scale = globalScale || r.u85() ? globalOfmScale(r) : GlobalScale{};
  // A U85 MUL of 32-bit operands scales by shift only: the 64-bit product is rounded and
  // shifted, the multiplier is not applied (Regor: "Mul with 32-bit IFM supports shift-only";
  // its softmax relies on OFM_SCALE (2^30, 31) giving round(a*b / 2^31)).
  if (r.u85() && mode == kMul && ifm.elemBytes == 4) scale.scale = 1;
  const std::int64_t ifmZp = r.signed16(cmd0::kIfmZeroPoint), ifm2Zp = r.signed16(cmd0::kIfm2ZeroPoint);
  U55AddScaling u55;
  InputScale scale1, scale2;
  if (r.u85()) {
    OPENVGF_ASSIGN_OR_RETURN(scale1, loadInputScale(r, cmd1::kIfmScale, "IFM_SCALE"));
    OPENVGF_ASSIGN_OR_RETURN(scale2, loadInputScale(r, cmd1::kIfm2Scale, "IFM2_SCALE"));
  } else {
    const unsigned ifmPrec = r.p(cmd0::kIfmPrecision);
    u55.mode = (ifmPrec >> 8) & 3;
    u55.round = (ifmPrec >> 14) & 3;
    u55.opa = r.d(cmd1::kOpaScale);
    u55.opaShift = r.dp(cmd1::kOpaScale) & 0x3F;
    u55.opb = r.d(cmd1::kOpbScale) & 0xFFFF;
    u55.swapped = (r.p(cmd0::kIfm2Broadcast) >> 6) & 1;
    u55.implicitShift = ifm.elemBytes == 1 ? 19 : 14;
    if ((mode == kAdd || mode == kSub) && u55.mode != 0 && ifm.elemBytes == 4) {
      // The fixed left shift of the unscaled operand is only known for 8-bit (19) and 16-bit (14) inputs.
      return unsupported("IFM_PRECISION: scale mode {} with a 32-bit IFM is not modelled (only OPA_OPB_16)", u55.mode);
    }
  }
  auto element = [&](std::int64_t y, std::int64_t x, std::int64_t c) -> Result<std::int64_t> {
    OPENVGF_ASSIGN_OR_RETURN(const std::int64_t av, in.read(y, x, c));
    std::int64_t bv = ifm2Zp;
    if (!unary) {
      OPENVGF_ASSIGN_OR_RETURN(bv, in2.read(y, x, c));
    }
    const std::int64_t a = av - ifmZp, b = bv - ifm2Zp;
    if (!r.u85()) {
      OPENVGF_ASSIGN_OR_RETURN(const std::int64_t result, u55Combine(mode, a, b, u55, stage.roundMode));
      return stage.apply(result, scale.scale, scale.shift);
    }
    OPENVGF_ASSIGN_OR_RETURN(const std::int64_t result,
                             u85Combine(mode, scale1.apply(a), scale2.apply(b), a, scale2, stage, 8 * ifm.elemBytes));
    return stage.apply(result, scale.scale, scale.shift);
  };
  // A chained OFM may replace a chained input's buffer: compute everything before writing.
  std::vector<std::int64_t> results;
  if (ofm.chained) {
    if (ofmH * ofmW * ofmD > kMaxChainElements) {
      return invalidInput("OFM: a chained OFM of {}x{}x{} exceeds {} elements", ofmH, ofmW, ofmD, kMaxChainElements);
    }
    results.reserve(static_cast<std::size_t>(ofmH * ofmW * ofmD));
    for (std::int64_t y = 0; y < ofmH; ++y)
      for (std::int64_t x = 0; x < ofmW; ++x)
        for (std::int64_t c = 0; c < ofmD; ++c) {
          OPENVGF_ASSIGN_OR_RETURN(const std::int64_t v, element(y, x, c));
          results.push_back(v);
        }
  }
  OPENVGF_TRY(prepareOutput(ofm, ofmH, ofmW, ofmD, ctx));
  OPENVGF_TRY(out.checkExtent(ofmH, ofmW, ofmD));
  for (std::int64_t y = 0, i = 0; y < ofmH; ++y) {
    for (std::int64_t x = 0; x < ofmW; ++x) {
      for (std::int64_t c = 0; c < ofmD; ++c, ++i) {
        if (ofm.chained) {
          OPENVGF_TRY(out.write(y, x, c, results[static_cast<std::size_t>(i)]));
        } else {
          OPENVGF_ASSIGN_OR_RETURN(const std::int64_t v, element(y, x, c));
          OPENVGF_TRY(out.write(y, x, c, v));
        }
      }
    }
  }
  return {};
}

}  // namespace openvgf::runner::ethosu
