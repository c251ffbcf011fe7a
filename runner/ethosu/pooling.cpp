// SPDX-License-Identifier: Apache-2.0
// NPU_OP_POOL (specs/ethosu.md §4.3): MAX, AVERAGE (global OFM scale only), REDUCE_SUM (the
// window and every IFM channel into one OFM channel); U85 adds SUM (window sum per channel),
// MIN and NONE (the IFM element itself, or with ACC_FORMAT acc_input IFM2 the IFM2 element as
// the accumulator, which is how 32/64-bit data is rescaled). Padding never wins a max or a min
// and contributes nothing to a sum.
#include <algorithm>

#include "runner/ethosu/operations.h"

namespace openvgf::runner::ethosu {

using namespace ::openvgf::ethosu;

namespace {

enum : unsigned { kMax = 0, kAverage = 1, kReduceSum = 2, kSum = 3, kNone = 4, kMin = 5 };

const char* modeName(unsigned mode) {
  static constexpr const char* kNames[] = {"MAX", "AVERAGE", "REDUCE_SUM", "SUM", "NONE", "MIN", "ARGMAX_X", "ARGMAX_Y"};
  return mode < 8 ? kNames[mode] : "?";
}

}  // namespace

Status runPool(const OpContext& ctx, unsigned mode) {
  const RegisterFile& r = ctx.regs;
  if (mode > kMin || (!r.u85() && mode > kReduceSum)) return unsupported("pooling mode {} is not modelled", modeName(mode));
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ifm, loadFeatureMap(r, MapKind::Ifm));
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ofm, loadFeatureMap(r, MapKind::Ofm));
  if (r.p(cmd0::kIfmUpscale) != 0) return unsupported("IFM_UPSCALE {} is not supported", r.p(cmd0::kIfmUpscale));
  const unsigned accFormat = r.p(cmd0::kAccFormat);
  const unsigned accInput = r.u85() ? (accFormat >> 4) & 3 : 0;
  if (r.u85() && (accInput == 1 || ((accFormat >> 6) & 1) != 0)) {
    return unsupported("ACC_FORMAT: kept accumulators and disabled output are not modelled for pooling");
  }
  if (accInput == 2 && mode != kNone) return unsupported("ACC_FORMAT acc_input IFM2 with pooling mode {}", modeName(mode));
  const std::int64_t ofmH = std::int64_t{r.p(cmd0::kOfmHeightM1)} + 1;
  const std::int64_t ofmW = std::int64_t{r.p(cmd0::kOfmWidthM1)} + 1;
  const std::int64_t ofmD = std::int64_t{r.p(cmd0::kOfmDepthM1)} + 1;
  const std::int64_t ifmD = std::int64_t{r.p(cmd0::kIfmDepthM1)} + 1;
  const bool reduceDepth = mode == kReduceSum && ofmD == 1;
  if (!reduceDepth && ifmD != ofmD) {
    return invalidInput("NPU_OP_POOL {}: expected IFM depth = OFM depth {}, got {}", modeName(mode), ofmD, ifmD);
  }
  OPENVGF_ASSIGN_OR_RETURN(const KernelGeometry k, loadKernel(r));
  if (k.dilationX != 1 || k.dilationY != 1) return unsupported("KERNEL_STRIDE: dilation is not supported for pooling");
  const std::int64_t padTop = r.p(cmd0::kIfmPadTop), padLeft = r.p(cmd0::kIfmPadLeft);
  const std::int64_t ifmH = (ofmH - 1) * k.strideY + k.height - padTop - r.p(cmd0::kIfmPadBottom);
  const std::int64_t ifmW = (ofmW - 1) * k.strideX + k.width - padLeft - r.p(cmd0::kIfmPadRight);
  if (ifmH < 1 || ifmW < 1) {
    return invalidInput("IFM extent {}x{} implied by OFM, kernel, stride and padding: expected >= 1", ifmH, ifmW);
  }
  const bool globalScale = (r.p(cmd0::kOfmPrecision) >> 8) & 1;
  const bool padded = padTop + padLeft + r.p(cmd0::kIfmPadBottom) + r.p(cmd0::kIfmPadRight) > 0;
  if (mode == kAverage && !globalScale) {
    return unsupported("AVERAGE pool with hardware division (per-channel scale mode, no scale stream{}) is not modelled",
                       padded ? ", padded" : "");
  }
  auto u64 = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  OPENVGF_TRY(ctx.chargeWork({u64(ofmH), u64(ofmW), u64(ofmD), u64(k.height), u64(k.width), reduceDepth ? u64(ifmD) : 1}));
  std::optional<FeatureMap> ifm2;
  if (accInput == 2) {
    OPENVGF_ASSIGN_OR_RETURN(ifm2, loadFeatureMap(r, MapKind::Ifm2));
  }
  Accessor in(accInput == 2 ? *ifm2 : ifm, ctx);
  Accessor out(ofm, ctx);
  OPENVGF_TRY(in.checkExtent(accInput == 2 ? ofmH : ifmH, accInput == 2 ? ofmW : ifmW, ifmD));
  OPENVGF_TRY(prepareOutput(ofm, ofmH, ofmW, ofmD, ctx));
  OPENVGF_TRY(out.checkExtent(ofmH, ofmW, ofmD));
  OPENVGF_ASSIGN_OR_RETURN(const OutputStage stage, loadOutputStage(ctx, ofm));
  // Per-channel mode without a scale stream passes values through unscaled (Vela's MAX pool).
  const GlobalScale scale = globalScale ? globalOfmScale(r) : GlobalScale{};
  const std::int64_t zp = accInput == 2 ? r.signed16(cmd0::kIfm2ZeroPoint) : r.signed16(cmd0::kIfmZeroPoint);
  for (std::int64_t y = 0; y < ofmH; ++y) {
    for (std::int64_t x = 0; x < ofmW; ++x) {
      for (std::int64_t c = 0; c < ofmD; ++c) {
        std::int64_t value = 0;
        bool any = false;
        for (std::int64_t ky = 0; ky < k.height; ++ky) {
          const std::int64_t iy = y * k.strideY - padTop + ky;
          if (iy < 0 || iy >= ifmH) continue;
          for (std::int64_t kx = 0; kx < k.width; ++kx) {
            const std::int64_t ix = x * k.strideX - padLeft + kx;
            if (ix < 0 || ix >= ifmW) continue;
            for (std::int64_t i = reduceDepth ? 0 : c; i < (reduceDepth ? ifmD : c + 1); ++i) {
              OPENVGF_ASSIGN_OR_RETURN(std::int64_t v, in.read(iy, ix, i));
              if (mode == kMax) {
                value = any ? std::max(value, v) : v;
              } else if (mode == kMin) {
                value = any ? std::min(value, v) : v;
              } else {
                value += v - zp;
              }
              any = true;
            }
          }
        }
        if (!any) {
          return invalidInput("OFM (y {}, x {}): expected a pooling window with at least one IFM element, got only padding", y,
                              x);
        }
        if (mode == kMax || mode == kMin) value -= zp;
        OPENVGF_TRY(out.write(y, x, c, stage.apply(value, scale.scale, scale.shift)));
      }
    }
  }
  return {};
}

}  // namespace openvgf::runner::ethosu
