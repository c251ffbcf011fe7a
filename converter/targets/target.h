// SPDX-License-Identifier: Apache-2.0
// Conversion targets: the device features a VGF may use (Capabilities), the numerics the user
// accepts (Precision) and the tile/workgroup configs of the heavy kernels (Tuning), kept apart
// from lowering (STYLE.md item 8: strategy apart from lowering). `portable` uses only what
// Vulkan 1.3 desktop GPUs and lavapipe share; `native` the facts of the device that will run
// the model (DeviceCaps, probed by vulkan/).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/device_caps.h"
#include "common/error.h"

namespace openvgf::converter {

struct GemmTile {
  int bm = 64, bn = 64, bk = 16;  // workgroup tile (M x N) and K step
  int tm = 4, tn = 4;             // register block per invocation
  int stages = 1;                 // shared-memory buffers per operand (2: double-buffered)
  bool operator==(const GemmTile&) const = default;
};

// The device facts (common/device_caps.h), named here as the converter always has.
using openvgf::CoopMatShape;
using openvgf::CoopMatTypes;
using openvgf::CoopMatWorkgroupLimits;
using openvgf::DeviceCaps;

/// Cooperative-matrix GEMM tiling (include/gemm_coopmat.glsl): subgroups per workgroup
/// along M and N, the output block each subgroup owns (multiples of the fragment shape) and
/// the K slice staged in shared memory per step.
struct CoopMatTile {
  int subgroupsM = 2, subgroupsN = 2;
  int blockM = 64, blockN = 64;
  int bk = 32;
  bool operator==(const CoopMatTile&) const = default;
};

/// A cooperative-matrix tile for GEMMs at most maxN wide (Tuning::coopMatTilesNarrow).
struct CoopMatNarrowTile {
  int maxN = 0;
  CoopMatTile tile;
  bool operator==(const CoopMatNarrowTile&) const = default;
};

/// A cooperative-matrix tile between the common and the small one (Tuning::coopMatTilesMid),
/// for GEMMs at least as wide as the tile, at least minDepth deep and with at least minTiles
/// of its workgroups.
struct CoopMatMidTile {
  CoopMatTile tile;
  int minTiles = 0;
  int minDepth = 0;
  bool operator==(const CoopMatMidTile&) const = default;
};

/// Workgroup-scope cooperative-matrix GEMM tiling (include/gemm_coopmat_wg.glsl): the
/// workgroup tile, its K step and the rows of each accumulator matrix. bm = 0: never, which is
/// the default until a tuning-table entry measures it faster (OPENVGF_TUNING coopmat-wg=...).
/// invocations: the workgroup size, one the device lists (coopmat-wg-threads); 0: the device's
/// largest (CoopMatWorkgroupLimits::invocations).
struct CoopMatWorkgroupTile {
  int bm = 0, bn = 128, bk = 32;
  int partM = 64;
  int invocations = 0;
  bool operator==(const CoopMatWorkgroupTile&) const = default;
};

/// What the device lets kernels use: the converter's view of DeviceCaps (common/device_caps.h),
/// made by nativeTarget from the device that will run the model (limits clamped to what the
/// kernels are written for, matrix shapes filtered to the kinds they use); portableTarget's is
/// what every Vulkan 1.3 desktop GPU and lavapipe share. Nothing here is a choice.
struct Capabilities {
  int maxSharedBytes = 16384;             // shared memory a kernel may use
  int maxInvocations = 256;               // per workgroup
  std::uint32_t subgroupSize = 0;         // 0 = unknown (portable)
  bool fp16Arithmetic = false;            // shaderFloat16 (fp16 math in shaders)
  bool fp16RoundingRte = false;           // shaderRoundingModeRTEFloat16
  bool integerDotProduct = false;         // GL_EXT_integer_dot_product
  bool float64 = false;                   // shaderFloat64 (the CPU GEMM core moves 64-bit words as doubles)
  bool cooperativeMatrixNv = false;       // GL_NV_cooperative_matrix (+ fp16, memory model), with shapes
  bool cooperativeMatrixKhr = false;      // VK_KHR_cooperative_matrix (+ fp16, memory model)
  std::vector<CoopMatShape> coopMatShapes;  // shapes the device lists (subgroup scope)
  CoopMatWorkgroupLimits coopMatWorkgroup;  // VK_NV_cooperative_matrix2 workgroup scope
  bool operator==(const Capabilities&) const = default;
};

/// The numerics the user accepts for fp32 MATMUL / CONV2D (--precision, ConvertOptions::precision).
/// Off Fp32, fp32 operands are rounded as they are loaded and multiplied on cooperative
/// matrices with fp32 accumulators: TOSA judges fp32 GEMMs at fp32 accuracy, which K-deep fp16
/// products do not meet, so Fp32 is the default.
enum class Precision {
  Fp32,
  // fp16 operands on fp16 matrices (for GEMMs at least Tuning::fp16OperandsMinDepth deep), and
  // fp32 tensors between kernels stored as fp16 where Tuning::fp16Storage allows.
  Fp16,
  // bf16 operands (fp32's exponent range, 8-bit significand) on bf16 matrices (KHR encoding);
  // Tuning::fp16OperandsMinDepth applies to it too.
  Bf16,
  // Each fp32 operand split into two fp16 (a rounded value and its scaled remainder) and
  // multiplied as three fp16 products with fp32 accumulators (CM_SPLIT,
  // include/gemm_coopmat.glsl): 22 of fp32's 24 significant bits, at a third of the fp16
  // products' rate, on Tuning::coopMatTileSplit (fp16OperandsMinDepth does not apply;
  // coopMatSplitMinDepth does).
  Fp16x3,
  // Each fp32 operand split by truncation into bf16 parts, multiplied as three bf16 products
  // (hi x hi + hi x mid + mid x hi) with fp32 accumulators on bf16 matrices (CM_SPLIT with
  // CM_BF16): fp32's range, about 2^-16 relative error per product, on the split tile as
  // Fp16x3. Not within TOSA's dot-product bound for every input (converter/kernels/bf16_split.h).
  Bf16x3,
  // fp32 GEMMs within TOSA's dot-product bound on bf16 matrices: per GEMM, from its reduction
  // depth KS, three or six bf16 products (bf16SplitProducts, converter/kernels/bf16_split.h), or
  // the fp32 FMA core where neither is within the bound; split tile and its thresholds as Bf16x3.
  Fp32Bf16,
};

/// How kernels use what the device has: tiles, workgroup sizes and the thresholds that choose
/// between them. Set per device class by the tuning table (applyTuningTable, tuning.cpp), each
/// entry with the measurement that decided it, and by OPENVGF_TUNING (applyTuningOverrides,
/// for measuring entries). Changing a value changes speed, never which device features a VGF
/// needs (coopMatKhrEncoding picks between encodings the device has) nor the accuracy the
/// precision promises (fp16Storage and coopMatResidualAccumulators act only off
/// Precision::Fp32, where the user accepted fp16 rounding).
struct Tuning {
  GemmTile gemm;                          // CONV2D / MATMUL / CONV3D / TRANSPOSE_CONV2D
  GemmTile gemmSmall{16, 64, 16, 4, 4};   // GEMMs whose M or N is small (transposed for small N)
  // Large register blocks (fewer invocations, more work each) for GEMMs whose grid has at
  // least gemmLargeMinGroups workgroups of this tile and whose padding it does not grow by
  // more than an eighth; 0 = never.
  GemmTile gemmLarge{64, 64, 16, 8, 8};
  int gemmLargeMinGroups = 0;
  bool gemmLargeConvolutions = true;  // false: MATMUL only (implicit-GEMM gathers keep `gemm`)
  // Split-K (include/gemm_split.glsl): a GEMM whose tile grid has fewer than
  // gemmSplitKGroups workgroups is cut along K into slices at least gemmSplitKMinDepth deep,
  // computed as partial GEMMs, then summed by a reduction pass that applies the epilogue.
  // ResNet-50's 7x7 and 14x14 stages at batch 1 are 8-16 tiles of 64x64 with K up to 4608,
  // which leaves most of a GPU idle. 0 groups = never.
  // GEMMs that would get fewer than gemmSplitKMinSlices slices stay whole. 2 (split whenever
  // it helps a GPU) was measured against 4 on an H100: with 4, ResNet-50 took 1.63 instead
  // of 1.46 ms GPU time and MobileNetV2 0.74 instead of 0.66 ms. The 2-3-slice GEMMs that
  // 4 keeps whole cost lavapipe 17-30 % each (conv1x1 56x56x256x64: 14.3 ms whole, 18.8 ms
  // split), which disappears in its run-to-run noise on whole models.
  int gemmSplitKGroups = 128;
  int gemmSplitKMinDepth = 128;
  int gemmSplitKMinSlices = 2;
  int elementwiseWg = 256;                // invocations per elementwise workgroup
  int elementsPerInvocation = 4;
  int reduceThreads = 256;                // RX*RY of reductions
  // The subgroup-scope core is written against GL_NV_cooperative_matrix and re-encoded as KHR
  // (converter/coopmat_khr.h) when this is set: on devices whose matrices come only through
  // VK_KHR_cooperative_matrix (nativeTarget), where the tuning table measured it faster, or
  // by the override coopmat-khr=1. Only with Capabilities::cooperativeMatrixKhr.
  bool coopMatKhrEncoding = false;
  // Only this fragment shape (m x n x k; types ignored) when m != 0, else the largest that fits.
  CoopMatShape coopMatFragment{0, 0, 0};
  CoopMatWorkgroupTile coopMatWorkgroupTile;
  // Precision::Fp16 / Bf16 only for GEMMs at least this deep. On an H100 fp16 fragments were
  // faster for 33 of the 34 ResNet-50 convolutions with K >= 512 and slower for 16 of the 20
  // with K < 512, whose staging and epilogue cost more than the products save
  // (benchmarks/results/experiments/h100-precision-fp16.md).
  int fp16OperandsMinDepth = 0;
  // Precision::Fp16x3's tile: two sets of accumulators per subgroup, so its block is a quarter
  // of coopMatTile's, and four operand buffers. GEMMs with fewer than coopMatSplitMinTiles of
  // its workgroups, or less deep than coopMatSplitMinDepth, stay on the scalar core.
  CoopMatTile coopMatTileSplit{2, 2, 32, 32, 32};
  int coopMatSplitMinTiles = 0;
  int coopMatSplitMinDepth = 0;
  // Default tile: the fastest of the variants measured on an H100 for fp16 MATMUL 4096 with
  // both fp16 and fp32 accumulators (docs/performance.md). GEMMs that would get fewer than
  // coopMatLargeMinTiles workgroups of it use the mid or the small tile, so more of the GPU is
  // busy (chooseCoopMat in converter/kernels/gemm_choice.cpp has the whole order).
  CoopMatTile coopMatTile;
  CoopMatTile coopMatTileSmall{2, 2, 32, 32, 32};
  // The large tile for fp16 accumulators, for GEMMs with at least coopMatHalfAccMinTiles of
  // its workgroups (0: coopMatLargeMinTiles); subgroupsM = 0: coopMatTile.
  CoopMatTile coopMatTileHalfAcc{0, 0, 64, 64, 32};
  int coopMatHalfAccMinTiles = 0;
  // Tiles for narrow GEMMs, where the common tile would leave part of each workgroup
  // multiplying zeros: the first whose maxN covers N and of which the GEMM has at least
  // coopMatLargeMinTiles workgroups.
  std::vector<CoopMatNarrowTile> coopMatTilesNarrow;
  int coopMatLargeMinTiles = 256;
  // A GEMM whose accumulators start from a residual (coopMatResidualAccumulators) takes
  // coopMatTile only with at least coopMatResidualMinTiles of its workgroups (and
  // coopMatLargeMinTiles), else coopMatTileResidual; subgroupsM = 0: such GEMMs choose as
  // the others do.
  CoopMatTile coopMatTileResidual{0, 0, 32, 32, 32};
  int coopMatResidualMinTiles = 0;
  // Convolutions whose A operand the core gathers element by element (GEMM_RUN_A: input
  // channels not a multiple of the 16-byte chunk, such as a 3-channel stem) and that are at
  // least as wide as this tile take it before any other; subgroupsM = 0: they choose as the
  // others do.
  CoopMatTile coopMatTileGather{0, 0, 32, 32, 32};
  // Such a convolution with constant weights and no column dilation reads each filter row's
  // KW * IC operands as one contiguous run of the input row (GEMM_ROW_A), with K laid out as
  // KH runs padded to whole chunks, where the padding adds at most this many percent to K
  // (0: never). A chunk then costs one decode and a bounds test per operand instead of
  // stepping through channels, columns and rows. On an H200 (--precision fp16, batch 32)
  // ResNet-50's 7x7 stem (K 147 -> 168) took 124.9 against 135.7 us and MobileNetV2's 3x3
  // stem (27 -> 48, 78 % more) 59.9 against 69.9 us
  // (benchmarks/results/experiments/h100-gemm-limits.md, call 30).
  int coopMatRowRunsMaxPadding = 100;
  // GEMMs at most this deep (0: none) keep two K slices in flight in the subgroup core
  // (CM_PREFETCH 2, a second set of fetch registers) rather than one, where A is read in
  // 16-byte chunks, the operands are not split (fp16x3) and each invocation fetches at most
  // coopMatPrefetchMaxChunks chunks per slice (the second set costs 4 registers per chunk).
  int coopMatPrefetchMaxDepth = 0;
  int coopMatPrefetchMaxChunks = 4;
  // Tiles between coopMatTile and coopMatTileSmall for GEMMs without a residual start that have
  // fewer than coopMatLargeMinTiles common tiles: the first that the GEMM fits.
  std::vector<CoopMatMidTile> coopMatTilesMid;
  // MATMUL's subgroup core stages its accumulators for the epilogue a band of fragments at a
  // time in the operand buffers, where a band fits (CoopMatPlan::stagingBuffer), rather than
  // one fragment at a time. Convolutions keep the fragment staging, which measured faster for
  // them.
  bool coopMatBandEpilogue = false;
  // Off Precision::Fp32: a GEMM whose epilogue starts by adding a tensor shaped like the
  // output (a residual ADD) starts its accumulators from that tensor (CM_RESIDUAL_ACC,
  // include/gemm_coopmat.glsl) instead of reading it element by element in the epilogue.
  bool coopMatResidualAccumulators = false;
  // Precision::Fp16: fp32 tensors between kernels that type each binding by its storage
  // (KernelSpec::narrowStorage) are stored as fp16, halving the bytes they move; the values
  // are rounded to fp16 once, where they are stored. The OPENVGF_TUNING key fp16-storage=0
  // turns it off (for measuring it).
  bool fp16Storage = true;
  // Convolutions on fp32-accumulator fragments start their accumulators from the bias (and a
  // residual stored as fp16, added through an identity fragment), apply a per-element
  // epilogue to the fragments' components and store whole fragments to the output
  // (CM_DIRECT_STORE, include/gemm_coopmat.glsl) instead of staging each through shared
  // memory for an element-wise epilogue. Only GEMMs at most this deep (0: none): deeper ones,
  // whose epilogue is a small part of their time, measured slower with it.
  int coopMatDirectStoreMaxDepth = 0;
  // spirv-opt's performance passes over every module. Off for CPU devices (the tuning table;
  // ConvertOptions::forCpuDevice for the portable target), whose driver runs its own optimizer
  // anyway: on lavapipe they were 95 % of converting the zoo's int8 MobileNetV2 (10.2 of
  // 10.7 s CPU for 60 modules) and the unoptimized modules run as fast (inference CPU time
  // ratio 0.99) with the same output bytes (benchmarks/results/cold-start-lavapipe.md).
  bool spirvOptimizer = true;
  // Kernels that support it take their shapes (sizes, strides, pads, zero points) at run time
  // from their parameter buffer instead of as compile-time defines, so that operators that
  // differ only in shape share one module. For CPU devices (the tuning table), whose driver
  // compiles each module at its first dispatch: lavapipe spends most of a cold run there.
  // GPUs keep compile-time shapes, which their compilers fold into addressing.
  bool runtimeShapes = false;
  bool operator==(const Tuning&) const = default;
};

/// A conversion target: what the device has, the precision the user asked for and how kernels
/// are tuned for the device. Each choice reads the part it belongs to (chooseGemm: can the
/// device, may the numerics, which tile is fastest). fingerprint() keys every cache on all of it.
struct Target {
  std::string name;        // "portable", "native"
  Capabilities caps;       // written only by portableTarget / nativeTarget
  Precision precision = Precision::Fp32;  // written only by resolveTarget (--precision)
  Tuning tuning;           // written only by the tuning table and OPENVGF_TUNING
  std::string deviceName;  // native: the device converted for

  /// Whether subgroup cooperative matrices can be written: the device's NV matrices, or its KHR
  /// ones in the KHR encoding.
  bool subgroupMatrices() const { return caps.cooperativeMatrixNv || tuning.coopMatKhrEncoding; }
  /// The workgroup size of workgroup-scope matrices: the tuning's, else the device's largest.
  int workgroupMatrixInvocations() const {
    const int tuned = tuning.coopMatWorkgroupTile.invocations;
    return tuned > 0 ? tuned : caps.coopMatWorkgroup.invocations;
  }
};

Target portableTarget();
/// The target for the device `device` describes (the one that will run the model): its
/// limits, optional shader features and cooperative-matrix shapes, and the tuning table's
/// tiles for its class. A pure function: no Vulkan call.
Target nativeTarget(const DeviceCaps& device);
/// Device classes of the tuning table (tuning.cpp): what the probe can tell apart.
enum class DeviceClass { Cpu, NvidiaGpu, OtherGpu };
DeviceClass deviceClass(std::uint32_t vendorId, bool cpu);
/// Sets target.tuning to what the tuning table holds for `device` (some entries depend on
/// target.caps, which nativeTarget has set).
void applyTuningTable(Target& target, DeviceClass device);
/// Overrides tuning entries from a spec such as "gemm=128x128x8/8x8/2,gemm-min-groups=256,
/// gemm-default=64x64x16/4x4/2,gemm-convolutions=0,coopmat=2x2/64x64/32,coopmat-min-tiles=256,
/// fp16-min-depth=512" (the OPENVGF_TUNING environment variable of `--target native`, for
/// measuring table entries) in target.tuning; an invalid spec, or one the capabilities cannot
/// take (coopmat-khr=1 without KHR matrices), is an invalid-input error.
Status applyTuningOverrides(Target& target, std::string_view spec);

/// "portable" | "native". `device`: the facts of the device that will run the model, which
/// "native" needs (an invalid-input error without them: the caller chooses the device).
/// `tuning`: an OPENVGF_TUNING spec (applyTuningOverrides), read by the caller where the
/// command or API call starts; only "native" takes one.
Result<Target> targetByName(const std::string& name, const DeviceCaps* device = nullptr,
                            std::string_view tuning = {});

/// One line for `convert --stats`: the target's name, probed device and the optional features
/// kernels may use, e.g. "native (NVIDIA H100): subgroup 32, fp16, integer dot product,
/// cooperative matrix 16x16x16 f16+f32 ...".
std::string describeTarget(const Target& target);

/// Checks a target's tile configs against its limits (invocations, shared memory).
Status verifyTarget(const Target& target);

}  // namespace openvgf::converter
