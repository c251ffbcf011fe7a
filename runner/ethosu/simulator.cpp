// SPDX-License-Identifier: Apache-2.0
// The simulator's register file, command dispatch, DMA and U85 branches.
#include "runner/ethosu/simulator.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "runner/ethosu/operations.h"

namespace openvgf::runner::ethosu {

using namespace ::openvgf::ethosu;

struct Simulator::State {
  AcceleratorConfig config;
  Limits limits;
  RegisterFile regs;
  /// U55/U65: every core's SHRAM (LUTs live in its last 2 KB); U85: the LUT RAM.
  std::vector<std::uint8_t> lut;
  std::array<ChainBuffer, 8> chains;
  Accumulators accumulators;
  SimulatorStats stats;

  OpContext context(const MemoryRegions& memory) {
    return OpContext{regs, config, memory, lut, chains, accumulators, stats, limits};
  }
  std::size_t coreShramBytes() const { return static_cast<std::size_t>(config.shramBanks) * 1024; }
  Status execute(const Command& op, const MemoryRegions& memory);
  Status checkParallelTables() const;
  Status runDma(const MemoryRegions& memory);
};

namespace {

std::string regionName(unsigned reg) {
  return (reg >> 8) & 1 ? std::string("the NPU's internal memory") : fmt::format("region {}", reg & 7);
}

/// The bytes a DMA side covers: `rows` rows of `length` bytes `stride` apart in `planes` planes.
Status checkDmaRange(std::span<std::uint8_t> mem, std::uint64_t start, std::uint64_t length, std::uint64_t rows,
                     std::uint64_t rowStride, std::uint64_t planes, std::uint64_t planeStride, const char* side,
                     const std::string& where) {
  __extension__ typedef unsigned __int128 U128;
  const U128 last = U128{start} + U128{rows - 1} * rowStride + U128{planes - 1} * planeStride + length;
  if (last > mem.size()) {
    return invalidInput("DMA {} [0x{:x}, +{} x {} x {}) in {}: expected within {} bytes", side, start, length, rows, planes,
                        where, mem.size());
  }
  return {};
}

}  // namespace

Status Simulator::State::checkParallelTables() const {
  // Each core applies a table from its own SHRAM, and which core computes which channel of a
  // pooling or elementwise operation is not documented; identical tables make it moot.
  const unsigned act = regs.p(cmd0::kActivation) & 0x1F;
  if (act < 16) return {};
  const std::size_t coreBytes = coreShramBytes();
  const std::size_t slot = coreBytes - 2048 + (act - 16) * 256;
  const auto first = lut.begin() + static_cast<std::ptrdiff_t>(slot);
  if (!std::equal(first, first + 256, lut.begin() + static_cast<std::ptrdiff_t>(coreBytes + slot))) {
    return unsupported("PARALLEL_MODE 1: ACTIVATION TABLE_{} differs between the two cores' SHRAM (load it with DMA "
                       "core mask 3): which core computes which channel is not modelled",
                       act - 16);
  }
  return {};
}

Status Simulator::State::execute(const Command& op, const MemoryRegions& memory) {
  const bool kernelOp = op.code == cmd0::kOpConv || op.code == cmd0::kOpDepthwise || op.code == cmd0::kOpPool ||
                        op.code == cmd0::kOpElementwise;
  if (regs.product == Product::U65 && kernelOp && (regs.p(cmd0::kParallelMode) & 1) != 0) {
    if (config.cores < 2) return invalidInput("PARALLEL_MODE 1: expected a two-core configuration, got {} core", config.cores);
    OPENVGF_TRY(checkParallelTables());
  }
  const OpContext ctx = context(memory);
  if (kernelOp || op.code == cmd0::kOpResize) ++stats.operations;
  switch (op.code) {
    case cmd0::kOpConv: return runConvolution(ctx, false);
    case cmd0::kOpDepthwise: return runConvolution(ctx, true);
    case cmd0::kOpPool: return runPool(ctx, op.param & 7);
    case cmd0::kOpElementwise: return runElementwise(ctx, op.param & 0x3F);
    case cmd0::kOpResize: return runResize(ctx, op.param & 3);
    case cmd0::kOpDmaStart: return runDma(memory);
    // Synchronisation and interrupts have no functional effect in a sequential model.
    case cmd0::kOpIrq:
    case cmd0::kOpDmaWait:
    case cmd0::kOpKernelWait:
    case cmd0::kOpPmuMask:
      return {};
    default:
      return unsupported("operation 0x{:03x} is not simulated", op.code);
  }
}

Status Simulator::State::runDma(const MemoryRegions& memory) {
  const unsigned srcReg = regs.p(cmd0::kDmaSrcRegion);
  const unsigned dstReg = regs.p(cmd0::kDmaDstRegion);
  const unsigned strideMode = (srcReg >> 9) & 3;
  if (regs.product != Product::U85 && (strideMode != 0 || ((dstReg >> 9) & 3) != 0)) {
    return unsupported("DMA: only 1D transfers are supported on {}", productName(regs.product));
  }
  if (regs.product == Product::U85 && (((srcReg >> 11) & 1) != 0 || ((dstReg >> 11) & 1) != 0)) {
    return unsupported("DMA: indexed (gather/scatter) transfers are not modelled");
  }
  const std::uint64_t length = regs.address(cmd1::kDmaLen);
  const std::uint64_t src = regs.address(cmd1::kDmaSrc);
  const std::uint64_t dst = regs.address(cmd1::kDmaDst);
  // 2D/3D (U85): SIZE0 rows and SIZE1 planes of LEN bytes, each side with its own strides.
  const std::uint64_t rows = strideMode >= 1 ? std::max<std::uint64_t>(1, regs.p(cmd0::kDmaSize0)) : 1;
  const std::uint64_t planes = strideMode == 2 ? std::max<std::uint64_t>(1, regs.p(cmd0::kDmaSize1)) : 1;
  const std::uint64_t srcRow = strideMode >= 1 ? regs.address(cmd1::kDmaSrcStride0) : 0;
  const std::uint64_t srcPlane = strideMode == 2 ? regs.address(cmd1::kDmaSrcStride1) : 0;
  const std::uint64_t dstRow = strideMode >= 1 ? regs.address(cmd1::kDmaDstStride0) : 0;
  const std::uint64_t dstPlane = strideMode == 2 ? regs.address(cmd1::kDmaDstStride1) : 0;
  // INTERNAL addresses are in SHRAM (U55/U65, per core) or the LUT RAM (U85); for a U55/U65
  // destination, region bits 2:0 are a core mask (bit k = core k). A source is read from core 0.
  const std::size_t coreBytes = regs.product == Product::U85 ? lut.size() : coreShramBytes();
  auto view = [&](unsigned reg, int core) -> std::span<std::uint8_t> {
    if ((reg >> 8) & 1) return std::span<std::uint8_t>(lut).subspan(static_cast<std::size_t>(core) * coreBytes, coreBytes);
    return memory[reg & 7];
  };
  const std::span<std::uint8_t> from = view(srcReg, 0);
  OPENVGF_TRY(checkDmaRange(from, src, length, rows, srcRow, planes, srcPlane, "source", regionName(srcReg)));
  OPENVGF_TRY(checkDmaRange(view(dstReg, 0), dst, length, rows, dstRow, planes, dstPlane, "destination", regionName(dstReg)));
  OPENVGF_TRY(context(memory).chargeWork({length, rows, planes}));
  std::vector<int> cores{0};
  if (((dstReg >> 8) & 1) && regs.product != Product::U85 && config.cores > 1) {
    if ((dstReg & 3) == 0) return invalidInput("DMA destination SHRAM: core mask: expected 1..3, got 0");
    cores.clear();
    for (int core = 0; core < config.cores; ++core) {
      if ((dstReg >> core) & 1) cores.push_back(core);
    }
  }
  for (int core : cores) {
    const std::span<std::uint8_t> to = view(dstReg, core);
    for (std::uint64_t p = 0; p < planes; ++p) {
      for (std::uint64_t r = 0; r < rows; ++r) {
        // A copy within one region may overlap.
        std::memmove(to.data() + dst + p * dstPlane + r * dstRow, from.data() + src + p * srcPlane + r * srcRow, length);
      }
    }
  }
  stats.dmaBytes += length * rows * planes;
  return {};
}

Simulator::Simulator(AcceleratorConfig config, Limits limits) : state_(std::make_unique<State>()) {
  state_->config = config;
  state_->limits = limits;
  reset();
}

Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

void Simulator::reset() {
  State& s = *state_;
  s.regs = RegisterFile{};
  s.regs.product = s.config.product;
  s.lut.assign(s.config.product == Product::U85 ? kU85LutBytes : s.coreShramBytes() * static_cast<std::size_t>(s.config.cores),
               0);
  s.chains = {};
  s.accumulators = {};
  s.stats = {};
}

const SimulatorStats& Simulator::stats() const { return state_->stats; }

Status Simulator::run(std::span<const Command> commands, const MemoryRegions& memory) {
  State& s = *state_;
  // Branch targets are byte offsets into the stream.
  std::map<std::uint64_t, std::size_t> byOffset;
  for (std::size_t i = 0; i < commands.size(); ++i) byOffset[std::uint64_t{commands[i].wordOffset} * 4] = i;
  std::uint64_t executed = 0;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const Command& c = commands[i];
    auto fail = [&](Status st) {
      return Unexpected(std::move(st).error().addContext(
          fmt::format("command {} ({})", c.index, commandName(s.regs.product, c.code, c.isCmd1))));
    };
    if (++executed > s.limits.maxCommands) {
      return fail(unsupported("more than {} commands executed (a branch loop?)", s.limits.maxCommands));
    }
    if (Status st = validateCommand(c, s.regs.product); !st) return fail(std::move(st));
    if (c.isCmd1 && c.code == cmd1::kOpBranch) {
      if ((c.param & 1) != 0) return fail(unsupported("NPU_OP_BRANCH on RF_TRUE: the condition flag is not modelled"));
      auto target = byOffset.find(c.data);
      if (target == byOffset.end()) {
        return fail(invalidInput("NPU_OP_BRANCH: target byte {} is not the start of a command", c.data));
      }
      i = target->second - 1;
      continue;
    }
    if (c.isCmd1) {
      s.regs.data[c.code] = c.data;
      s.regs.param[c.code] = c.param;
      continue;
    }
    if (!isOperation(c)) {
      s.regs.cmd0[c.code] = c.param;
      continue;
    }
    if (c.code == cmd0::kOpStop) return {};
    if (Status st = s.execute(c, memory); !st) return fail(std::move(st));
  }
  return {};
}

Status runResize(const OpContext&, unsigned mode) {
  return unsupported("NPU_OP_RESIZE mode {} is not modelled yet", mode);
}

}  // namespace openvgf::runner::ethosu
