// SPDX-License-Identifier: Apache-2.0
// The tuning table of the native target: GEMM tile configs per device class, each entry with
// the measurement that decided it, and the OPENVGF_TUNING overrides used to measure entries.
#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "converter/targets/target.h"

namespace openvgf::converter {
namespace {

constexpr std::uint32_t kNvidiaVendorId = 0x10DE;

/// Splits `text` at every `sep`.
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == sep) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

/// Non-negative integers separated by 'x' and '/' in the order given, e.g. "128x128x8/8x8/2".
std::optional<std::vector<int>> numbers(std::string_view text) {
  std::vector<int> out;
  for (std::string_view group : split(text, '/')) {
    for (std::string_view item : split(group, 'x')) {
      int v = 0;
      auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
      if (ec != std::errc() || end != item.data() + item.size() || v < 0) return std::nullopt;
      out.push_back(v);
    }
  }
  return out;
}

// The cooperative-matrix tile in the first five numbers of a tuning value
// (SGMxSGN/BLOCKMxBLOCKN/BK).
CoopMatTile coopMatTileOf(const std::vector<int>& v) { return CoopMatTile{v[0], v[1], v[2], v[3], v[4]}; }

// A tuning value that lists tiles joined by '+': each item's positive numbers, every item
// `least` to `most` of them; none for "0"; nullopt for anything else.
std::optional<std::vector<std::vector<int>>> tileItems(std::string_view value, std::size_t least,
                                                       std::size_t most) {
  std::vector<std::vector<int>> items;
  if (value == "0") return items;
  for (std::string_view item : split(value, '+')) {
    auto t = numbers(item);
    const bool positive = t && std::ranges::all_of(*t, [](int x) { return x > 0; });
    if (!positive || t->size() < least || t->size() > most) {
      return std::nullopt;
    }
    items.push_back(std::move(*t));
  }
  if (items.empty()) return std::nullopt;
  return items;
}

// One OPENVGF_TUNING entry, KEY=VALUE.
struct TuningEntry {
  std::string_view text;  // the whole entry, for messages
  std::string_view key;
  std::string_view value;
  std::optional<std::vector<int>> parsed;  // the value's numbers
  // The same numbers if every one is positive, as most keys need; switches (0 or 1), "0" (off)
  // and a few depths and counts take parsed.
  std::optional<std::vector<int>> positive;

  explicit TuningEntry(std::string_view entry) : text(entry) {
    const std::size_t eq = entry.find('=');
    key = entry.substr(0, eq);
    value = eq == std::string_view::npos ? std::string_view{} : entry.substr(eq + 1);
    parsed = numbers(value);
    if (parsed && std::ranges::all_of(*parsed, [](int x) { return x > 0; })) positive = parsed;
  }
  // The value as a switch: the one number 0 or 1.
  std::optional<bool> flag() const {
    if (!parsed || parsed->size() != 1 || (*parsed)[0] > 1) return std::nullopt;
    return (*parsed)[0] == 1;
  }
  // The value is "0": the feature off.
  bool off() const { return parsed && parsed->size() == 1 && (*parsed)[0] == 0; }
  Unexpected bad(std::string_view expected) const {
    return invalidInput("OPENVGF_TUNING: entry '{}': expected {}", text, expected);
  }
};

// The scalar GEMM core.

// Every number positive but STAGES, which may be 0 (no shared memory, include/gemm.glsl).
bool gemmTileNumbers(const std::optional<std::vector<int>>& v) {
  return v && v->size() == 6 && std::all_of(v->begin(), v->end() - 1, [](int x) { return x > 0; });
}

Status setGemmLarge(Target& target, const TuningEntry& e) {
  const auto& v = e.parsed;
  if (!gemmTileNumbers(v)) return e.bad("gemm=BMxBNxBK/TMxTN/STAGES, e.g. gemm=128x128x8/8x8/2");
  target.tuning.gemmLarge = GemmTile{(*v)[0], (*v)[1], (*v)[2], (*v)[3], (*v)[4], (*v)[5]};
  if (target.tuning.gemmLargeMinGroups <= 0) target.tuning.gemmLargeMinGroups = 1;
  return {};
}

Status setGemmDefault(Target& target, const TuningEntry& e) {
  const auto& v = e.parsed;
  if (!gemmTileNumbers(v)) return e.bad("gemm-default=BMxBNxBK/TMxTN/STAGES, e.g. gemm-default=64x64x16/4x4/2");
  target.tuning.gemm = GemmTile{(*v)[0], (*v)[1], (*v)[2], (*v)[3], (*v)[4], (*v)[5]};
  return {};
}

Status setGemmLargeConvolutions(Target& target, const TuningEntry& e) {
  const std::optional<bool> on = e.flag();
  if (!on) return e.bad("gemm-convolutions=0 or 1 (1: the large tile for convolutions too)");
  target.tuning.gemmLargeConvolutions = *on;
  return {};
}

Status setGemmLargeMinGroups(Target& target, const TuningEntry& e) {
  if (!e.positive || e.positive->size() != 1) return e.bad("gemm-min-groups=N (N >= 1)");
  target.tuning.gemmLargeMinGroups = (*e.positive)[0];
  return {};
}

Status setSplitK(Target& target, const TuningEntry& e) {
  const auto& parsed = e.parsed;
  if (!parsed || parsed->empty() || parsed->size() > 2 || (parsed->size() == 2 && (*parsed)[1] == 0)) {
    return e.bad(
        "splitk-groups=N[/DEPTH] (split GEMMs of fewer than N workgroups along K, in slices at least "
        "DEPTH deep; 0: never)");
  }
  target.tuning.gemmSplitKGroups = (*parsed)[0];
  if (parsed->size() == 2) target.tuning.gemmSplitKMinDepth = (*parsed)[1];
  return {};
}

// Cooperative-matrix tiles and the GEMMs that take them.

Status setCoopMatTile(Target& target, const TuningEntry& e) {
  const auto& v = e.positive;
  if (!v || v->size() != 5) return e.bad("coopmat=SGMxSGN/BLOCKMxBLOCKN/BK, e.g. coopmat=2x2/64x64/32");
  target.tuning.coopMatTile = coopMatTileOf(*v);
  return {};
}

Status setCoopMatLargeMinTiles(Target& target, const TuningEntry& e) {
  if (!e.positive || e.positive->size() != 1) return e.bad("coopmat-min-tiles=N (N >= 1)");
  target.tuning.coopMatLargeMinTiles = (*e.positive)[0];
  return {};
}

Status setCoopMatTileHalfAcc(Target& target, const TuningEntry& e) {
  const auto& v = e.positive;
  if (!v || (v->size() != 5 && v->size() != 6)) {
    return e.bad("coopmat-acc16=SGMxSGN/BLOCKMxBLOCKN/BK[/MINTILES], e.g. coopmat-acc16=2x2/64x128/16/256");
  }
  target.tuning.coopMatTileHalfAcc = coopMatTileOf(*v);
  if (v->size() == 6) target.tuning.coopMatHalfAccMinTiles = (*v)[5];
  return {};
}

Status setCoopMatTileSmall(Target& target, const TuningEntry& e) {
  const auto& v = e.positive;
  if (!v || v->size() != 5) {
    return e.bad("coopmat-small=SGMxSGN/BLOCKMxBLOCKN/BK, e.g. coopmat-small=2x2/32x32/32");
  }
  target.tuning.coopMatTileSmall = coopMatTileOf(*v);
  return {};
}

Status setCoopMatTileSplit(Target& target, const TuningEntry& e) {
  const auto& v = e.positive;
  if (!v || v->size() < 5 || v->size() > 7) {
    return e.bad(
        "coopmat-split=SGMxSGN/BLOCKMxBLOCKN/BK[/MINTILES[/MINK]], e.g. "
        "coopmat-split=2x2/32x64/16/128/256");
  }
  target.tuning.coopMatTileSplit = coopMatTileOf(*v);
  if (v->size() >= 6) target.tuning.coopMatSplitMinTiles = (*v)[5];
  if (v->size() == 7) target.tuning.coopMatSplitMinDepth = (*v)[6];
  return {};
}

// Each tile with the workgroups and the depth a GEMM needs for it.
Status setCoopMatTilesMid(Target& target, const TuningEntry& e) {
  const auto items = tileItems(e.value, 7, 7);
  if (!items) {
    return e.bad("coopmat-mid=SGMxSGN/BLOCKMxBLOCKN/BK/MINTILES/MINK+..., the first that a GEMM fits "
                 "wins, e.g. coopmat-mid=2x4/32x32/32/392/256+4x2/16x32/32/392/1, or coopmat-mid=0");
  }
  std::vector<CoopMatMidTile> tiles;
  for (const std::vector<int>& t : *items) tiles.push_back({coopMatTileOf(t), t[5], t[6]});
  target.tuning.coopMatTilesMid = std::move(tiles);
  return {};
}

// Each tile for N up to its own width or up to a given MAXN.
Status setCoopMatTilesNarrow(Target& target, const TuningEntry& e) {
  const auto items = tileItems(e.value, 5, 6);
  if (!items) {
    return e.bad("coopmat-narrow=SGMxSGN/BLOCKMxBLOCKN/BK[/MAXN]+..., tiles for N up to MAXN (default: "
                 "the tile's width), the first that fits wins, e.g. "
                 "coopmat-narrow=8x1/16x64/32/32+4x2/32x32/32, or coopmat-narrow=0");
  }
  std::vector<CoopMatNarrowTile> tiles;
  for (const std::vector<int>& t : *items) {
    const CoopMatTile tile = coopMatTileOf(t);
    tiles.push_back({t.size() == 6 ? t[5] : tile.subgroupsN * tile.blockN, tile});
  }
  target.tuning.coopMatTilesNarrow = std::move(tiles);
  return {};
}

Status setCoopMatTileResidual(Target& target, const TuningEntry& e) {
  const auto& v = e.positive;
  if (e.off()) {
    target.tuning.coopMatTileResidual.subgroupsM = 0;
  } else if (v && v->size() == 6) {
    target.tuning.coopMatTileResidual = coopMatTileOf(*v);
    target.tuning.coopMatResidualMinTiles = (*v)[5];
  } else {
    return e.bad("coopmat-residual=SGMxSGN/BLOCKMxBLOCKN/BK/MINTILES, e.g. "
                 "coopmat-residual=2x2/32x32/32/2000, or coopmat-residual=0");
  }
  return {};
}

Status setCoopMatTileGather(Target& target, const TuningEntry& e) {
  const auto& v = e.positive;
  if (e.off()) {
    target.tuning.coopMatTileGather.subgroupsM = 0;
  } else if (v && v->size() == 5) {
    target.tuning.coopMatTileGather = coopMatTileOf(*v);
  } else {
    return e.bad(
        "coopmat-gather=SGMxSGN/BLOCKMxBLOCKN/BK (convolutions that gather A element by element), "
        "e.g. coopmat-gather=2x2/32x32/80, or coopmat-gather=0");
  }
  return {};
}

// How the cooperative-matrix core reads, stages and stores.

Status setCoopMatRowRuns(Target& target, const TuningEntry& e) {
  if (!e.parsed || e.parsed->size() != 1) {
    return e.bad(
        "coopmat-row-runs=PERCENT (gathered convolutions read filter rows as contiguous runs where "
        "padding the runs to whole chunks adds at most PERCENT % to K; 0: never)");
  }
  target.tuning.coopMatRowRunsMaxPadding = (*e.parsed)[0];
  return {};
}

Status setCoopMatPrefetch(Target& target, const TuningEntry& e) {
  const auto& parsed = e.parsed;
  if (!parsed || (parsed->size() != 1 && parsed->size() != 2) || (parsed->size() == 2 && (*parsed)[1] == 0)) {
    return e.bad(
        "coopmat-prefetch=K[/CHUNKS] (GEMMs at most K deep, fetching at most CHUNKS 16-byte chunks "
        "per invocation and K slice, keep two slices in flight; 0: none)");
  }
  target.tuning.coopMatPrefetchMaxDepth = (*parsed)[0];
  if (parsed->size() == 2) target.tuning.coopMatPrefetchMaxChunks = (*parsed)[1];
  return {};
}

Status setCoopMatBandEpilogue(Target& target, const TuningEntry& e) {
  const std::optional<bool> on = e.flag();
  if (!on) return e.bad("coopmat-band=0 or 1 (1: MATMUL stages its epilogue a band at a time)");
  target.tuning.coopMatBandEpilogue = *on;
  return {};
}

Status setCoopMatResidualAccumulators(Target& target, const TuningEntry& e) {
  const std::optional<bool> on = e.flag();
  if (!on) {
    return e.bad("coopmat-residual-acc=0 or 1 (1: --precision GEMMs start their accumulators from a residual input)");
  }
  target.tuning.coopMatResidualAccumulators = *on;
  return {};
}

Status setCoopMatDirectStore(Target& target, const TuningEntry& e) {
  if (!e.parsed || e.parsed->size() != 1) {
    return e.bad("coopmat-direct-store=K (convolutions at most K deep store whole fragments, their epilogue per "
                 "component; 0: none)");
  }
  target.tuning.coopMatDirectStoreMaxDepth = static_cast<int>((*e.parsed)[0]);
  return {};
}

// The cooperative-matrix encoding and workgroup-scope matrices.

Status setCoopMatKhrEncoding(Target& target, const TuningEntry& e) {
  const std::optional<bool> on = e.flag();
  if (!on) return e.bad("coopmat-khr=0 or 1 (1: KHR encoding)");
  if (*on && !target.caps.cooperativeMatrixKhr) {
    return invalidInput("OPENVGF_TUNING: coopmat-khr=1: the device has no VK_KHR_cooperative_matrix");
  }
  target.tuning.coopMatKhrEncoding = *on;
  return {};
}

Status setCoopMatFragment(Target& target, const TuningEntry& e) {
  const auto& v = e.positive;
  if (!v || v->size() != 3) return e.bad("coopmat-fragment=MxNxK, e.g. coopmat-fragment=16x8x16");
  target.tuning.coopMatFragment = CoopMatShape{(*v)[0], (*v)[1], (*v)[2]};
  return {};
}

// 0: never; else the workgroup-scope tile and the rows of each accumulator.
Status setCoopMatWorkgroupTile(Target& target, const TuningEntry& e) {
  const auto& v = e.positive;
  if (e.off()) {
    target.tuning.coopMatWorkgroupTile.bm = 0;
  } else if (v && v->size() == 4) {
    // Field by field: the invocations that coopmat-wg-threads set stay.
    CoopMatWorkgroupTile& tile = target.tuning.coopMatWorkgroupTile;
    tile.bm = (*v)[0];
    tile.bn = (*v)[1];
    tile.bk = (*v)[2];
    tile.partM = (*v)[3];
  } else {
    return e.bad("coopmat-wg=BMxBNxBK/PARTM, e.g. coopmat-wg=128x128x32/64, or coopmat-wg=0 (never)");
  }
  return {};
}

Status setCoopMatWorkgroupInvocations(Target& target, const TuningEntry& e) {
  const auto& v = e.positive;
  const auto& counts = target.caps.coopMatWorkgroup.invocationCounts;
  if (!v || v->size() != 1 || std::find(counts.begin(), counts.end(), (*v)[0]) == counts.end()) {
    return e.bad("coopmat-wg-threads=N, one of the workgroup sizes the device lists for workgroup-scope matrices");
  }
  target.tuning.coopMatWorkgroupTile.invocations = (*v)[0];
  return {};
}

// fp16 operands and storage.

Status setFp16OperandsMinDepth(Target& target, const TuningEntry& e) {
  if (!e.positive || e.positive->size() != 1) return e.bad("fp16-min-depth=K (K >= 1)");
  target.tuning.fp16OperandsMinDepth = (*e.positive)[0];
  return {};
}

Status setFp16Storage(Target& target, const TuningEntry& e) {
  const std::optional<bool> on = e.flag();
  if (!on) return e.bad("fp16-storage=0 or 1 (1: --precision fp16 stores intermediate tensors as fp16)");
  target.tuning.fp16Storage = *on;
  return {};
}

struct TuningKey {
  std::string_view key;
  Status (*apply)(Target&, const TuningEntry&);
};

// Every key OPENVGF_TUNING knows, in the order an unknown key's message lists them.
constexpr TuningKey kTuningKeys[] = {
    {"gemm", setGemmLarge},
    {"gemm-default", setGemmDefault},
    {"gemm-convolutions", setGemmLargeConvolutions},
    {"gemm-min-groups", setGemmLargeMinGroups},
    {"splitk-groups", setSplitK},
    {"coopmat", setCoopMatTile},
    {"coopmat-small", setCoopMatTileSmall},
    {"coopmat-split", setCoopMatTileSplit},
    {"coopmat-mid", setCoopMatTilesMid},
    {"coopmat-min-tiles", setCoopMatLargeMinTiles},
    {"coopmat-residual", setCoopMatTileResidual},
    {"coopmat-gather", setCoopMatTileGather},
    {"coopmat-row-runs", setCoopMatRowRuns},
    {"coopmat-prefetch", setCoopMatPrefetch},
    {"coopmat-acc16", setCoopMatTileHalfAcc},
    {"coopmat-khr", setCoopMatKhrEncoding},
    {"coopmat-fragment", setCoopMatFragment},
    {"coopmat-wg", setCoopMatWorkgroupTile},
    {"coopmat-wg-threads", setCoopMatWorkgroupInvocations},
    {"coopmat-band", setCoopMatBandEpilogue},
    {"coopmat-residual-acc", setCoopMatResidualAccumulators},
    {"coopmat-narrow", setCoopMatTilesNarrow},
    {"coopmat-direct-store", setCoopMatDirectStore},
    {"fp16-min-depth", setFp16OperandsMinDepth},
    {"fp16-storage", setFp16Storage},
};

std::string knownTuningKeys() {
  std::string keys = "one of ";
  for (const TuningKey& k : kTuningKeys) {
    if (&k != &kTuningKeys[0]) keys += ", ";
    keys += k.key;
  }
  return keys;
}

}  // namespace

DeviceClass deviceClass(std::uint32_t vendorId, bool cpu) {
  if (cpu) return DeviceClass::Cpu;
  return vendorId == kNvidiaVendorId ? DeviceClass::NvidiaGpu : DeviceClass::OtherGpu;
}

void applyTuningTable(Target& target, DeviceClass device) {
  switch (device) {
    case DeviceClass::Cpu:
      // lavapipe runs every GEMM fastest with the 8x8 register block, whatever the grid
      // (about 2x the 4x4 block: docs/performance.md, lavapipe); its few cores are filled by
      // a handful of tiles, so no split-K. The portable target takes this entry too when the
      // model runs on a CPU device (ConvertOptions::forCpuDevice).
      target.tuning.gemmLarge = GemmTile{64, 64, 16, 8, 8};
      // Where the device's subgroup is a row of that tile's invocations (8 lanes: llvmpipe
      // with 256-bit vectors), the core without shared memory that broadcasts A between the
      // lanes (GEMM_STAGES 0, include/gemm.glsl). On this 2-core machine under load, `run
      // --repeat 5` medians: conv1x1 56x56x64x256 62 ms against 104 with shared memory (164 on
      // the portable tile), conv3x3 28x28x128 92 against 140-197 (398). 128x64 tiles of 16x8
      // blocks were 5-15 % faster still but doubled llvmpipe's compile of every GEMM module
      // (a cold MobileNetV2 28 against 15 s of CPU), which a CI runner pays each time
      // (benchmarks/results/lavapipe-speed-2026-11-29.md).
      if (target.caps.subgroupSize == 8) target.tuning.gemmLarge.stages = 0;
      target.tuning.gemmLargeMinGroups = 1;
      target.tuning.gemmSplitKGroups = 0;
      target.tuning.spirvOptimizer = false;  // llvmpipe optimizes the NIR itself (Tuning::spirvOptimizer)
      target.tuning.runtimeShapes = true;    // fewer modules for llvmpipe to compile (Tuning::runtimeShapes)
      break;
    case DeviceClass::NvidiaGpu:
      // H100, benchmarks/results/experiments/h100-gemm-tiles.md (benchmarks/gemm_tiles.sh):
      // - every GEMM: 64x64 tiles of 4x4 blocks with two shared buffers. ResNet-50 batch 32
      //   took 10.2 ms of GPU time, against 11.9 ms with one buffer; 128x64 tiles of 8x4
      //   blocks lost 20-40 % at batch 1 (ResNet-50, before split-K).
      // - MATMUL with at least 264 tiles (2 per SM): 128x128 tiles of 8x8 blocks, K step 8,
      //   two buffers: 33.4 TFLOP/s at 4096 fp32 against 30.3 (64x64). Convolutions keep the
      //   64x64 tile: with the large one on full grids ResNet-50 batch 32 took 12.4 ms.
      target.tuning.gemm = GemmTile{64, 64, 16, 4, 4, 2};
      target.tuning.gemmLarge = GemmTile{128, 128, 8, 8, 8, 2};
      target.tuning.gemmLargeMinGroups = 264;
      target.tuning.gemmLargeConvolutions = false;
      // --precision fp16 / bf16: every fp32 GEMM on fp16 fragments (fp16OperandsMinDepth stays
      // 0), residual ADDs in the accumulators' initial value, and a 128x64 tile of eight
      // subgroups for N <= 64 (since benchmarks/results/experiments/h100-gemm-limits.md, call 16,
      // only up to 32, below). ResNet-50 batch 32 --precision fp16 took 4.89 ms with the three,
      // against 6.00 ms for the rule before them (fp16 fragments for K >= 512, or N >= 128 without
      // a residual ADD, which a residual ADD read element by element made 2-4x slower);
      // residual accumulators alone 5.30 ms, with the 4x1-subgroup narrow tile 5.08; MobileNetV2
      // batch 32 1.69 against 1.84 ms; BERT unchanged at 0.17 ms
      // (benchmarks/results/experiments/h100-gemm-limits.md, call 9).
      target.tuning.coopMatResidualAccumulators = true;
      // Tiles by grid size: the common tile from 600 of its workgroups (not 256); the small
      // tile below 2000 for GEMMs that start from a residual; a 64x128 mid tile of 2x4
      // subgroups for GEMMs at least 128 wide and 256 deep with 392 of its tiles (three per
      // multiprocessor); 4x2 subgroups of 32x32 for 32 < N <= 64, the 8x1 of 16x64 up to 32.
      // ResNet-50 batch 32 --precision fp16 2.973 against 3.231 ms, MobileNetV2 batch 32 1.279
      // against 1.300, BERT fp16 0.116 either way (H100, one call; an H200 gave 2.989 / 3.228
      // and 1.262 / 1.289, batch 1 and BERT --precision fp16 unchanged). Per dispatch the
      // stage-2 3x3 convolutions went from 72 to 52-65 us and the stage-1 residual ones from
      // 91-105 to 81-90 (benchmarks/results/experiments/h100-gemm-limits.md, call 16).
      target.tuning.coopMatTilesNarrow = {{32, CoopMatTile{8, 1, 16, 64, 32}},
                                          {64, CoopMatTile{4, 2, 32, 32, 32}}};
      target.tuning.coopMatLargeMinTiles = 600;
      target.tuning.coopMatTileResidual = CoopMatTile{2, 2, 32, 32, 32};
      target.tuning.coopMatResidualMinTiles = 2000;
      // Then (benchmarks/results/experiments/h100-gemm-limits.md, call 18) 4x2 subgroups of 16x32
      // (64x64, eight subgroups) where they give 392 workgroups: the stage-3 3x3 convolutions of
      // ResNet-50 batch 32 55-57 against 60-65 us, its K = 1024 ones 28-29 against 31-35, where the
      // stage-4 ones (200 of these tiles) lost 15 us each with it; the whole network 2.923 against
      // 2.970 ms, MobileNetV2 batch 32 1.276 against 1.281, BERT unchanged.
      target.tuning.coopMatTilesMid = {{CoopMatTile{2, 4, 32, 32, 32}, 392, 256},
                                       {CoopMatTile{4, 2, 16, 32, 32}, 392, 1}};
      // Split-K below 264 workgroups (two per multiprocessor) rather than 128: ResNet-50 batch
      // 32 --precision fp16 4.53 against 4.74 ms, batch 1 fp32 1.10 against 1.17 ms,
      // MobileNetV2 batch 32 1.60 against 1.65 ms, BERT --precision fp16 0.161 against
      // 0.172 ms; ResNet-50 batch 32 fp32 10.22 against 10.12 ms and BERT fp16 0.116 against
      // 0.114 ms (benchmarks/results/experiments/h100-gemm-limits.md, call 10).
      target.tuning.gemmSplitKGroups = 264;
      // Convolutions at most 576 deep store whole fragments with a per-element epilogue
      // (CM_DIRECT_STORE): ResNet-50 batch 32 --precision fp16 3.29 against 3.65 ms with every
      // depth, MobileNetV2 batch 32 1.30 against 1.50 ms; convolutions 1024 and more deep were
      // 2-10 % slower with it (benchmarks/results/experiments/h100-gemm-limits.md, call 14).
      target.tuning.coopMatDirectStoreMaxDepth = 576;
      // Cooperative matrices encoded as KHR rather than NV (converter/coopmat_khr.h), which the
      // KHR encoding's 16x8x16 fragments bring with them: fp16 MATMUL 4096 at 265-267 TFLOP/s
      // against 179-180 (NV, 16x16x16), 2048 at 210 against 152, ResNet-50 batch 32 with
      // --precision fp16 in 7.77 against 8.23 ms, BERT fp16 0.114 against 0.118 ms
      // (benchmarks/results/experiments/h100-coopmat-khr.md). Workgroup-scope matrices
      // (VK_NV_cooperative_matrix2) stay off: their best tile ran MATMUL 4096 at 192 TFLOP/s.
      target.tuning.coopMatKhrEncoding = target.caps.cooperativeMatrixKhr;
      // fp16 accumulators: 2x2 subgroups of 64x128 with a K slice of 16 ran fp16 MATMUL 4096 at
      // 311-319 TFLOP/s against 276 with the common tile; 2048 keeps the common tile (128 of
      // the larger tiles: 153 TFLOP/s against 218), and BERT fp16 is unchanged at 0.113 ms
      // (benchmarks/results/experiments/h100-coopmat-khr.md, call 5).
      target.tuning.coopMatTileHalfAcc = CoopMatTile{2, 2, 64, 128, 16};
      // From 256 of these tiles, as measured (MATMUL 4096 has 512), whatever coopMatLargeMinTiles.
      target.tuning.coopMatHalfAccMinTiles = 256;
      // MATMUL stages its epilogue a band at a time: MATMUL 4096 --precision fp16 in 0.845
      // against 0.913 ms. Convolutions lost with it (ResNet-50 batch 32 --precision fp16 6.68
      // against 6.60 ms; its 3x3 and N <= 128 convolutions 10-50 % each), so they keep
      // staging one fragment at a time (benchmarks/results/experiments/h100-gemm-limits.md,
      // call 6).
      target.tuning.coopMatBandEpilogue = true;
      // --precision fp16x3: 2x2 subgroups of 32x32 (the default tile) from 16 of its workgroups.
      // H200, against the fp32 scalar core in the same call: MATMUL 4096 52.0 against 33.4
      // TFLOP/s (torch.matmul fp32 51.0), ResNet-50 batch 32 8.81 against 10.12 ms, MobileNetV2
      // batch 32 1.92 against 1.96, BERT 0.194 against 0.198 (every GEMM: 0.204; from 32
      // tiles: 0.208). 64x128 workgroups ran MATMUL 4096 at 55.7 TFLOP/s but ResNet-50 at 9.81
      // ms; a minimum depth of 256 or 512 made both CNNs slower
      // (benchmarks/results/experiments/h100-gemm-limits.md, call 20).
      target.tuning.coopMatSplitMinTiles = 16;
      // ResNet-50's 3-channel stem convolution, whose A operand the core gathers element by
      // element, on 2x2 subgroups of 32x32 (64x64, 128 invocations) rather than the narrow
      // tile of 4x2 (128x64, 256): 134-136 against 142-144 us at batch 32 --precision fp16 in
      // four H200 calls; deeper K slices (48-80) took 176-362 us. MobileNetV2's 32-wide stem
      // lost 7 us with it, so only GEMMs as wide as the tile take it
      // (benchmarks/results/experiments/h100-gemm-limits.md, calls 23-26). Since the stem
      // reads its filter rows as runs (coopMatRowRunsMaxPadding), a K slice of 16: 117.8
      // against 124.9 us with 32, 134-135 without runs (same H200 call;
      // benchmarks/results/experiments/h100-gemm-limits.md, call 30).
      target.tuning.coopMatTileGather = CoopMatTile{2, 2, 32, 32, 16};
      // Two K slices in flight for GEMMs at most 512 deep whose invocations fetch at most 4
      // chunks per slice: ResNet-50 batch 32 --precision fp16 2.815 / 2.807 against 2.843 /
      // 2.841 ms with the stem tile above (its 1x1 convolutions 1-6 us faster each), BERT
      // --precision fp16 and MobileNetV2 batch 32 unchanged. For every GEMM it cost 12 % (the
      // 3x3 convolutions of the third stage 57 -> 88 us, the deep split ones 40 -> 57) and
      // fp16x3 MATMUL 4096 52.5 -> 48.8 TFLOP/s; fp16 MATMUL 4096 stayed at 304 TFLOP/s
      // (benchmarks/results/experiments/h100-gemm-limits.md, calls 24 and 25).
      target.tuning.coopMatPrefetchMaxDepth = 512;
      break;
    case DeviceClass::OtherGpu:
      // No measurement yet: the portable tiles.
      target.tuning.gemmLargeMinGroups = 0;
      break;
  }
}

Status applyTuningOverrides(Target& target, std::string_view spec) {
  for (std::string_view text : split(spec, ',')) {
    if (text.empty()) continue;
    const TuningEntry entry(text);
    const auto* known = std::ranges::find(kTuningKeys, entry.key, &TuningKey::key);
    if (known == std::ranges::end(kTuningKeys)) return entry.bad(knownTuningKeys());
    OPENVGF_TRY(known->apply(target, entry));
  }
  if (Status ok = verifyTarget(target); !ok) return invalidInput("OPENVGF_TUNING '{}': {}", spec, ok.error().message());
  return {};
}

}  // namespace openvgf::converter
