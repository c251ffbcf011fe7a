// SPDX-License-Identifier: Apache-2.0
// NPU_OP_CONV and NPU_OP_DEPTHWISE (specs/ethosu.md §4.1): the weights are decoded from the
// weight streams and put back into OHWI order with the format library's weight order; the
// per-channel bias/scale/shift records come from the scale stream (or the global OFM scale),
// and every OFM element is the bias plus the sum of (IFM - zero point) x weight over the
// dilated, strided, padded window, rescaled by the output stage.
#include <algorithm>

#include "ethosu/scale_stream.h"
#include "ethosu/weight_codec.h"
#include "ethosu/weight_order.h"
#include "runner/ethosu/operations.h"

namespace openvgf::runner::ethosu {
namespace {

using namespace ::openvgf::ethosu;

struct ConvShape {
  std::int64_t ofmH = 0, ofmW = 0, ofmD = 0, ifmH = 0, ifmW = 0, ifmD = 0;
  KernelGeometry kernel;
  std::int64_t padTop = 0, padLeft = 0;
  bool depthwise = false;
};

/// Decoded weights (OHWI; depthwise: O = channels, I = 1) and per-channel records.
struct ConvParameters {
  std::vector<std::int32_t> weights;
  std::vector<ScaleRecord> scales;
};

std::span<const std::uint8_t> streamBytes(const OpContext& ctx, unsigned region, std::uint64_t base, std::uint64_t length,
                                          const char* what, Status& status) {
  std::span<std::uint8_t> mem = ctx.memory[region];
  if (base > mem.size() || length > mem.size() - base) {
    status = invalidInput("{} [0x{:x}, +{}): expected within region {} of {} bytes", what, base, length, region, mem.size());
    return {};
  }
  return mem.subspan(base, length);
}

/// Puts decoded values back through an order; core-local channel o is OFM channel
/// o * channelStep + channelOffset (U65 dual core), identity otherwise.
Status scatter(std::span<const std::int64_t> order, std::span<const std::int16_t> decoded, std::size_t perChannel,
               std::size_t channelStep, std::size_t channelOffset, std::vector<std::int32_t>& weights, const char* what) {
  if (decoded.size() != order.size()) {
    return invalidInput("{}: expected {} decoded values for the operation's weight order, got {}", what, order.size(),
                        decoded.size());
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i] >= 0) {
      const auto local = static_cast<std::size_t>(order[i]);
      weights[(local / perChannel * channelStep + channelOffset) * perChannel + local % perChannel] = decoded[i];
    } else if (decoded[i] != 0) {
      return invalidInput("{}: value {}: expected 0 at a padding position of the weight order, got {}", what, i, decoded[i]);
    }
  }
  return {};
}

/// U55/U65. With PARALLEL_MODE 1 (DUAL_CORE_DEPTH) the OFM channels are split between the
/// two cores by parity: core k computes channels k, k+2, ... and reads its own weight stream
/// (WEIGHT_BASE/LENGTH for core 0, WEIGHT1_BASE/LENGTH for core 1), encoded for its channels
/// only with a per-core block depth of (OFM_BLK_DEPTH + 1 - k) / 2, and its own scale stream
/// (SCALE_BASE/LENGTH, SCALE1_BASE/LENGTH). See docs/ethosu-multicore.md.
Result<ConvParameters> loadU55Parameters(const OpContext& ctx, const ConvShape& s, unsigned ifmBits, bool globalScale) {
  const RegisterFile& r = ctx.regs;
  const bool dualCore = (r.p(cmd0::kParallelMode) & 1) != 0;
  const int cores = dualCore ? 2 : 1;
  const int blockDepth = r.p(cmd0::kOfmBlkDepthM1) + 1;
  if (dualCore && blockDepth % 2 != 0) {
    return unsupported("PARALLEL_MODE 1: OFM_BLK_DEPTH {}: an odd block depth does not split evenly between the cores "
                       "(the channel order of later blocks is not documented)",
                       blockDepth);
  }
  WeightLayout layout;
  layout.kernelHeight = static_cast<int>(s.kernel.height);
  layout.kernelWidth = static_cast<int>(s.kernel.width);
  layout.ifmDepth = static_cast<int>(s.depthwise ? 1 : s.ifmD);
  layout.ofmUblockDepth = ctx.config.ofmUblock.d;
  layout.ifmUblockDepth = ctx.config.ifmUblock.d;
  layout.dilationX = static_cast<int>(s.kernel.dilationX);
  layout.dilationY = static_cast<int>(s.kernel.dilationY);
  layout.ifm16Bit = ifmBits == 16;
  layout.traversal = s.depthwise ? WeightTraversal::Depthwise
                                 : (s.kernel.partKernel ? WeightTraversal::PartKernelFirst : WeightTraversal::DepthFirst);
  const std::size_t perChannel = static_cast<std::size_t>(s.kernel.height * s.kernel.width * layout.ifmDepth);
  ConvParameters p;
  p.weights.assign(static_cast<std::size_t>(s.ofmD) * perChannel, 0);
  p.scales.resize(static_cast<std::size_t>(s.ofmD));
  for (int core = 0; core < cores; ++core) {
    const int channels = static_cast<int>((s.ofmD + cores - 1 - core) / cores);
    if (channels == 0) continue;  // one OFM channel: core 1 has nothing to do
    const char* const weightName = core == 0 ? "WEIGHT_BASE/LENGTH" : "WEIGHT1_BASE/LENGTH";
    layout.ofmDepth = channels;
    layout.ofmBlockDepth = (blockDepth + cores - 1 - core) / cores;
    if (dualCore && channels > layout.ofmBlockDepth && layout.ofmBlockDepth % layout.ofmUblockDepth != 0) {
      return unsupported("PARALLEL_MODE 1: core {} block depth {} is not a multiple of the OFM micro-block depth {}: "
                         "how the hardware orders that core's weights across blocks is not documented",
                         core, layout.ofmBlockDepth, layout.ofmUblockDepth);
    }
    Status status;
    std::span<const std::uint8_t> bytes =
        streamBytes(ctx, r.p(cmd0::kWeightRegion) & 7, r.address(core == 0 ? cmd1::kWeightBase : cmd1::kWeight1Base),
                    r.d(core == 0 ? cmd1::kWeightLength : cmd1::kWeight1Length), weightName, status);
    OPENVGF_TRY(status);
    const std::uint64_t length = weightStreamLength(layout, ctx.limits.maxWeights);
    if (length > ctx.limits.maxWeights) {
      return unsupported("{}: the operation needs more than {} weights", weightName, ctx.limits.maxWeights);
    }
    OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int16_t> decoded,
                             withContext(decodeWeightStream(bytes, length, StreamEnd::First), weightName));
    OPENVGF_TRY(scatter(weightStreamOrder(layout), decoded, perChannel, static_cast<std::size_t>(cores),
                        static_cast<std::size_t>(core), p.weights, weightName));
    if (globalScale) continue;
    const char* const scaleName = core == 0 ? "SCALE_BASE/LENGTH" : "SCALE1_BASE/LENGTH";
    std::span<const std::uint8_t> scaleBytes =
        streamBytes(ctx, r.p(cmd0::kScaleRegion) & 7, r.address(core == 0 ? cmd1::kScaleBase : cmd1::kScale1Base),
                    r.d(core == 0 ? cmd1::kScaleLength : cmd1::kScale1Length), scaleName, status);
    OPENVGF_TRY(status);
    OPENVGF_ASSIGN_OR_RETURN(std::vector<ScaleRecord> records,
                             withContext(decodeScaleStream(scaleBytes, static_cast<std::size_t>(channels)), scaleName));
    for (int o = 0; o < channels; ++o) {
      p.scales[static_cast<std::size_t>(o * cores + core)] = records[static_cast<std::size_t>(o)];
    }
  }
  return p;
}

/// U85: one standard-decoder stream per core (WEIGHT, WEIGHT1..3), or one fast-decoder
/// stream; the order interleaves the cores' channels in groups of four within each
/// micro-block; one scale stream whose record layout follows the accumulator format.
Result<ConvParameters> loadU85Parameters(const OpContext& ctx, const ConvShape& s, unsigned ifmBits, bool globalScale) {
  const RegisterFile& r = ctx.regs;
  const unsigned weightFormat = r.p(cmd0::kWeightFormat);
  if ((weightFormat >> 4) & 1) return unsupported("WEIGHT_FORMAT: 2:4 sparse weights are not modelled");
  const bool fast = weightFormat & 1;
  const unsigned accFormat = r.p(cmd0::kAccFormat);
  const std::optional<Block3> ublock = u85Microblock(ctx.config, (accFormat >> 8) & 7);
  if (!ublock) {
    return invalidInput("ACC_FORMAT: microblock {} is not one of {}'s micro-blocks", (accFormat >> 8) & 7, ctx.config.name);
  }
  U85WeightLayout layout;
  layout.ofmDepth = static_cast<int>(s.ofmD);
  layout.kernelHeight = static_cast<int>(s.kernel.height);
  layout.kernelWidth = static_cast<int>(s.kernel.width);
  layout.ifmDepth = static_cast<int>(s.depthwise ? 1 : s.ifmD);
  layout.ofmBlockDepth = r.p(cmd0::kOfmBlkDepthM1) + 1;
  layout.ofmUblockDepth = ublock->d;
  layout.strideX = static_cast<int>(s.kernel.strideX);
  layout.strideY = static_cast<int>(s.kernel.strideY);
  layout.dilationX = static_cast<int>(s.kernel.dilationX);
  layout.dilationY = static_cast<int>(s.kernel.dilationY);
  layout.ifm16Bit = ifmBits == 16;
  layout.macs = ctx.config.macs;
  layout.cores = ctx.config.cores;
  layout.traversal = s.depthwise ? WeightTraversal::Depthwise
                                 : (s.kernel.partKernel ? WeightTraversal::PartKernelFirst : WeightTraversal::DepthFirst);
  layout.ifmBlockDepth = u85IfmBlockDepth(layout.traversal, static_cast<int>(ifmBits), layout.macs, ublock->d, false);
  const std::size_t perChannel = static_cast<std::size_t>(s.kernel.height * s.kernel.width * layout.ifmDepth);
  const std::uint64_t length = u85WeightStreamLength(layout, ctx.limits.maxWeights);
  if (length * static_cast<std::uint64_t>(fast ? layout.cores : 1) > ctx.limits.maxWeights) {
    return unsupported("WEIGHT_BASE/LENGTH: the operation needs more than {} weights", ctx.limits.maxWeights);
  }
  ConvParameters p;
  p.weights.assign(static_cast<std::size_t>(s.ofmD) * perChannel, 0);
  static constexpr std::array<std::uint16_t, 4> kBase = {cmd1::kWeightBase, cmd1::kWeight1Base, cmd1::kWeight2Base,
                                                         cmd1::kWeight3Base};
  static constexpr std::array<const char*, 4> kNames = {"WEIGHT_BASE/LENGTH", "WEIGHT1_BASE/LENGTH", "WEIGHT2_BASE/LENGTH",
                                                        "WEIGHT3_BASE/LENGTH"};
  for (int stream = 0; stream < (fast ? 1 : layout.cores); ++stream) {
    const auto k = static_cast<std::size_t>(stream);
    Status status;
    std::span<const std::uint8_t> bytes = streamBytes(ctx, r.p(cmd0::kWeightRegion) & 7, r.address(kBase[k]),
                                                      r.d(static_cast<std::uint16_t>(kBase[k] + 1)), kNames[k], status);
    OPENVGF_TRY(status);
    const std::vector<std::int64_t> order = fast ? u85FastWeightOrder(layout) : u85WeightStreamOrder(layout, stream);
    Result<std::vector<std::int16_t>> decoded =
        fast ? decodeFastWeightStream(bytes, order.size()) : decodeWeightStream(bytes, order.size(), StreamEnd::AllBytes);
    if (!decoded) return Unexpected(std::move(decoded).error().addContext(kNames[k]));
    OPENVGF_TRY(scatter(order, *decoded, perChannel, 1, 0, p.weights, kNames[k]));
  }
  if (globalScale) return p;
  Status status;
  std::span<const std::uint8_t> scaleBytes = streamBytes(ctx, r.p(cmd0::kScaleRegion) & 7, r.address(cmd1::kScaleBase),
                                                         r.d(cmd1::kScaleLength), "SCALE_BASE/LENGTH", status);
  OPENVGF_TRY(status);
  const ScaleFormat format = (accFormat & 3) == 1 ? ScaleFormat::U85Acc48 : ScaleFormat::U85Acc32;
  OPENVGF_ASSIGN_OR_RETURN(p.scales, withContext(decodeScaleStream(scaleBytes, static_cast<std::size_t>(s.ofmD), format),
                                                 "SCALE_BASE/LENGTH"));
  return p;
}

}  // namespace

Status runConvolution(const OpContext& ctx, bool depthwise) {
  const RegisterFile& r = ctx.regs;
  if (r.u85() && (r.p(cmd0::kOpConv) & 1) != 0 && !depthwise) {
    return unsupported("NPU_OP_CONV weights_ifm2 (activation x activation MATMUL) is not modelled");
  }
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ifm, loadFeatureMap(r, MapKind::Ifm));
  OPENVGF_ASSIGN_OR_RETURN(FeatureMap ofm, loadFeatureMap(r, MapKind::Ofm));
  if (ifm.elemBytes > 2) return unsupported("IFM: {}-bit input to a convolution is not supported", 8 * ifm.elemBytes);
  if (r.p(cmd0::kIfmUpscale) != 0) return unsupported("IFM_UPSCALE {} is not supported", r.p(cmd0::kIfmUpscale));
  ConvShape s;
  s.depthwise = depthwise;
  s.ofmH = std::int64_t{r.p(cmd0::kOfmHeightM1)} + 1;
  s.ofmW = std::int64_t{r.p(cmd0::kOfmWidthM1)} + 1;
  s.ofmD = std::int64_t{r.p(cmd0::kOfmDepthM1)} + 1;
  s.ifmD = depthwise ? s.ofmD : std::int64_t{r.p(cmd0::kIfmDepthM1)} + 1;
  if (depthwise && std::int64_t{r.p(cmd0::kIfmDepthM1)} + 1 != s.ofmD) {
    return invalidInput("NPU_OP_DEPTHWISE: expected IFM depth = OFM depth {}, got {}", s.ofmD, r.p(cmd0::kIfmDepthM1) + 1);
  }
  OPENVGF_ASSIGN_OR_RETURN(s.kernel, loadKernel(r));
  if ((r.p(cmd0::kKernelStride) >> 5) & 1) return unsupported("KERNEL_STRIDE: 4x4 sub-kernel decomposition is not supported");
  s.padTop = r.p(cmd0::kIfmPadTop);
  s.padLeft = r.p(cmd0::kIfmPadLeft);
  // The IFM extent is implied by the OFM size, kernel, stride and padding (§2.2).
  const std::int64_t extentH = (s.kernel.height - 1) * s.kernel.dilationY + 1;
  const std::int64_t extentW = (s.kernel.width - 1) * s.kernel.dilationX + 1;
  s.ifmH = (s.ofmH - 1) * s.kernel.strideY + extentH - s.padTop - r.p(cmd0::kIfmPadBottom);
  s.ifmW = (s.ofmW - 1) * s.kernel.strideX + extentW - s.padLeft - r.p(cmd0::kIfmPadRight);
  if (s.ifmH < 1 || s.ifmW < 1) {
    return invalidInput("IFM extent {}x{} implied by OFM, kernel, stride and padding: expected >= 1", s.ifmH, s.ifmW);
  }
  const unsigned acc = r.p(cmd0::kAccFormat) & 3;
  if (!r.u85() && acc == 2) return unsupported("ACC_FORMAT F16 is not supported");
  const unsigned accBits = acc == 1 ? (r.u85() ? 48 : 40) : 32;
  if (r.u85() && (((r.p(cmd0::kAccFormat) >> 4) & 3) != 0 || ((r.p(cmd0::kAccFormat) >> 6) & 1) != 0)) {
    return unsupported("ACC_FORMAT: kept or IFM2 accumulators and disabled output are not modelled for convolutions");
  }
  auto u64 = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  OPENVGF_TRY(ctx.chargeWork({u64(s.ofmH), u64(s.ofmW), u64(s.ofmD), u64(s.kernel.height), u64(s.kernel.width),
                              depthwise ? 1 : u64(s.ifmD)}));
  const std::uint64_t taps = u64(s.kernel.height * s.kernel.width * (depthwise ? 1 : s.ifmD));  // within maxWork now
  Accessor in(ifm, ctx);
  Accessor out(ofm, ctx);
  OPENVGF_TRY(in.checkExtent(s.ifmH, s.ifmW, s.ifmD));
  OPENVGF_TRY(prepareOutput(ofm, s.ofmH, s.ofmW, s.ofmD, ctx));
  OPENVGF_TRY(out.checkExtent(s.ofmH, s.ofmW, s.ofmD));
  const bool globalScale = (r.p(cmd0::kOfmPrecision) >> 8) & 1;
  const unsigned ifmBits = 8 * ifm.elemBytes;
  OPENVGF_ASSIGN_OR_RETURN(ConvParameters params, r.u85() ? loadU85Parameters(ctx, s, ifmBits, globalScale)
                                                           : loadU55Parameters(ctx, s, ifmBits, globalScale));
  if (globalScale) {
    const GlobalScale g = globalOfmScale(r);
    params.scales.assign(static_cast<std::size_t>(s.ofmD), ScaleRecord{0, g.scale, static_cast<std::uint8_t>(g.shift)});
  }
  OPENVGF_ASSIGN_OR_RETURN(const OutputStage stage, loadOutputStage(ctx, ofm));
  const std::int64_t ifmZp = r.signed16(cmd0::kIfmZeroPoint);
  const std::size_t kw = static_cast<std::size_t>(s.kernel.width), kd = depthwise ? 1 : static_cast<std::size_t>(s.ifmD);
  const std::uint64_t accMask = (std::uint64_t{1} << accBits) - 1;
  for (std::int64_t y = 0; y < s.ofmH; ++y) {
    for (std::int64_t x = 0; x < s.ofmW; ++x) {
      for (std::int64_t c = 0; c < s.ofmD; ++c) {
        std::int64_t sum = params.scales[static_cast<std::size_t>(c)].bias;
        for (std::int64_t ky = 0; ky < s.kernel.height; ++ky) {
          const std::int64_t iy = y * s.kernel.strideY - s.padTop + ky * s.kernel.dilationY;
          if (iy < 0 || iy >= s.ifmH) continue;
          for (std::int64_t kx = 0; kx < s.kernel.width; ++kx) {
            const std::int64_t ix = x * s.kernel.strideX - s.padLeft + kx * s.kernel.dilationX;
            if (ix < 0 || ix >= s.ifmW) continue;
            const std::size_t row =
                ((static_cast<std::size_t>(c) * static_cast<std::size_t>(s.kernel.height) + static_cast<std::size_t>(ky)) * kw +
                 static_cast<std::size_t>(kx)) * kd;
            if (depthwise) {
              OPENVGF_ASSIGN_OR_RETURN(std::int64_t v, in.read(iy, ix, c));
              sum += (v - ifmZp) * params.weights[row];
            } else {
              for (std::int64_t i = 0; i < s.ifmD; ++i) {
                OPENVGF_ASSIGN_OR_RETURN(std::int64_t v, in.read(iy, ix, i));
                sum += (v - ifmZp) * params.weights[row + static_cast<std::size_t>(i)];
              }
            }
          }
        }
        // The accumulator wraps at its width (TOSA forbids overflow, so valid graphs never do).
        std::uint64_t u = static_cast<std::uint64_t>(sum) & accMask;
        if (u >> (accBits - 1)) u |= ~accMask;
        const ScaleRecord& rec = params.scales[static_cast<std::size_t>(c)];
        OPENVGF_TRY(out.write(y, x, c, stage.apply(static_cast<std::int64_t>(u), rec.scale, rec.shift)));
      }
    }
  }
  ctx.stats.macs += static_cast<std::uint64_t>(s.ofmH * s.ofmW * s.ofmD) * taps;
  return {};
}

}  // namespace openvgf::runner::ethosu
