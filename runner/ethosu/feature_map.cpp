// SPDX-License-Identifier: Apache-2.0
// Feature maps as the registers describe them, and bounds-checked element access
// (specs/ethosu.md §2.2: tiles, NHWC and NHCWB16 addressing; U85 chaining, scalars,
// broadcast, OFM reverse and transpose).
#include <algorithm>

#include "runner/ethosu/operations.h"

namespace openvgf::runner::ethosu {
namespace {

using namespace ::openvgf::ethosu;

__extension__ typedef __int128 Int128;

struct MapRegisters {
  std::uint16_t region, base0, width0, height0, height1, strideX, precision, zeroPoint;
  unsigned precisionShift;  ///< element size field: bits 3:2 for inputs, 2:1 for the OFM
};

MapRegisters registersOf(MapKind kind) {
  switch (kind) {
    case MapKind::Ifm:
      return {cmd0::kIfmRegion, cmd1::kIfmBase0, cmd0::kIfmWidth0M1, cmd0::kIfmHeight0M1, cmd0::kIfmHeight1M1,
              cmd1::kIfmStrideX, cmd0::kIfmPrecision, cmd0::kIfmZeroPoint, 2};
    case MapKind::Ifm2:
      return {cmd0::kIfm2Region, cmd1::kIfm2Base0, cmd0::kIfm2Width0M1, cmd0::kIfm2Height0M1, cmd0::kIfm2Height1M1,
              cmd1::kIfm2StrideX, cmd0::kIfm2Precision, cmd0::kIfm2ZeroPoint, 2};
    case MapKind::Ofm:
      break;
  }
  return {cmd0::kOfmRegion, cmd1::kOfmBase0, cmd0::kOfmWidth0M1, cmd0::kOfmHeight0M1, cmd0::kOfmHeight1M1,
          cmd1::kOfmStrideX, cmd0::kOfmPrecision, cmd0::kOfmZeroPoint, 1};
}

/// Transposition of the OFM (U85 OFM_PRECISION transpose): memory (y, x, c) of logical (h, w, c).
std::array<std::int64_t, 3> transposed(unsigned transpose, std::int64_t h, std::int64_t w, std::int64_t c) {
  switch (transpose) {
    case 1: return {w, h, c};  // WHC
    case 2: return {h, c, w};  // HCW
    case 3: return {w, c, h};  // WCH
    case 6: return {c, h, w};  // CHW
    case 7: return {c, w, h};  // CWH
    default: return {h, w, c};
  }
}

}  // namespace

std::int64_t FeatureMap::minValue() const {
  if (elemBytes >= 8) return isSigned ? std::numeric_limits<std::int64_t>::min() : 0;
  return isSigned ? -(std::int64_t{1} << (8 * elemBytes - 1)) : 0;
}

std::int64_t FeatureMap::maxValue() const {
  if (elemBytes >= 8) return std::numeric_limits<std::int64_t>::max();
  return isSigned ? (std::int64_t{1} << (8 * elemBytes - 1)) - 1 : (std::int64_t{1} << (8 * elemBytes)) - 1;
}

Result<FeatureMap> loadFeatureMap(const RegisterFile& r, MapKind kind) {
  const MapRegisters m = registersOf(kind);
  FeatureMap fm;
  fm.name = kind == MapKind::Ifm ? "IFM" : kind == MapKind::Ifm2 ? "IFM2" : "OFM";
  fm.region = r.p(m.region) & 7;
  for (std::uint16_t t = 0; t < 4; ++t) fm.base[t] = r.address(static_cast<std::uint16_t>(m.base0 + t));
  fm.width0 = std::int64_t{r.p(m.width0)} + 1;
  fm.height0 = std::int64_t{r.p(m.height0)} + 1;
  fm.height1 = std::int64_t{r.p(m.height1)} + 1;
  fm.strideX = static_cast<std::int64_t>(r.address(m.strideX));
  fm.strideY = static_cast<std::int64_t>(r.address(static_cast<std::uint16_t>(m.strideX + 1)));
  fm.strideC = static_cast<std::int64_t>(r.address(static_cast<std::uint16_t>(m.strideX + 2)));
  const unsigned precision = r.p(m.precision);
  fm.isSigned = precision & 1;
  fm.elemBytes = 1u << ((precision >> m.precisionShift) & 3);
  fm.brick = ((precision >> 6) & 3) == 1;
  if (fm.brick && (fm.base[0] % 16 != 0 || fm.strideC % 16 != 0 || fm.strideY % 16 != 0)) {
    return invalidInput("{}: NHCWB16: expected 16-byte aligned base and C/Y strides, got base 0x{:x}, stride C {}, stride Y {}",
                        fm.name, fm.base[0], fm.strideC, fm.strideY);
  }
  if (r.u85()) {
    const unsigned storage = (precision >> 14) & 3;
    if (storage == 1) return unsupported("{}_PRECISION: storage TILE3X1 is not modelled", fm.name);
    fm.chained = storage == 2;
    if (kind == MapKind::Ofm) {
      fm.reverse = (precision >> 9) & 3;
      fm.transpose = (precision >> 11) & 7;
      if (fm.chained && (fm.reverse != 0 || fm.transpose != 0)) {
        return invalidInput("OFM_PRECISION: expected no reverse or transpose with CHAINED storage");
      }
    }
    if (kind != MapKind::Ofm) {
      const unsigned mode = r.p(kind == MapKind::Ifm ? cmd0::kIfmBroadcast : cmd0::kIfm2Broadcast) & 0xF;
      fm.scalar = mode == 8;
      fm.broadcast = mode < 8 ? mode : 0;
      if (fm.scalar) {
        const std::uint32_t raw = r.d(cmd1::kOpScalar);
        fm.scalarValue = fm.isSigned ? static_cast<std::int32_t>(raw) : static_cast<std::int64_t>(raw);
      }
    }
  } else if (kind == MapKind::Ifm2) {
    const unsigned bc = r.p(cmd0::kIfm2Broadcast);
    fm.scalar = (bc >> 7) & 1;
    fm.broadcast = bc & 7;
    fm.scalarValue = fm.isSigned ? r.signed16(cmd0::kIfm2Scalar) : std::int64_t{r.p(cmd0::kIfm2Scalar)};
  }
  return fm;
}

Accessor::Accessor(const FeatureMap& fm, const OpContext& ctx) : fm_(fm), mem_(ctx.memory[fm.region]) {
  if (fm.chained) chain_ = &ctx.chains[fm.region];
}

std::array<std::int64_t, 3> Accessor::placed(std::int64_t y, std::int64_t x, std::int64_t c) const {
  if (fm_.reverse == 1) y = extent_[0] - 1 - y;
  if (fm_.reverse == 2) x = extent_[1] - 1 - x;
  if (fm_.reverse == 3) c = extent_[2] - 1 - c;
  return transposed(fm_.transpose, y, x, c);
}

Status Accessor::checkExtent(std::int64_t h, std::int64_t w, std::int64_t c) {
  extent_ = {h, w, c};
  if (fm_.scalar) return {};
  const std::array<std::int64_t, 3> memoryExtent = transposed(fm_.transpose, h, w, c);
  h = memoryExtent[0];
  w = memoryExtent[1];
  c = memoryExtent[2];
  if (fm_.broadcast & 1) h = 1;
  if (fm_.broadcast & 2) w = 1;
  if (fm_.broadcast & 4) c = 1;
  if (chain_) {
    if (chain_->h < h || chain_->w < w || chain_->c < c) {
      return invalidInput("{}: chaining buffer {} holds {}x{}x{}, expected at least {}x{}x{}", fm_.name, fm_.region, chain_->h,
                          chain_->w, chain_->c, h, w, c);
    }
    return {};
  }
  // The last row and column of each tile the extent reaches.
  const std::int64_t lastY = h - 1, lastX = w - 1, lastC = c - 1;
  for (std::int64_t y : {std::min(lastY, fm_.height0 - 1), lastY, std::min(lastY, fm_.height1 - 1)}) {
    for (std::int64_t x : {std::min(lastX, fm_.width0 - 1), lastX}) {
      OPENVGF_TRY(address(y, x, lastC));
      OPENVGF_TRY(address(y, x, 0));
    }
  }
  OPENVGF_TRY(address(0, 0, 0));
  return {};
}

Result<std::uint64_t> Accessor::address(std::int64_t y, std::int64_t x, std::int64_t c) const {
  int tile = 0;
  if (x < fm_.width0) {
    if (y >= fm_.height0) {
      tile = 2;
      y -= fm_.height0;
    }
  } else {
    x -= fm_.width0;
    if (y < fm_.height1) {
      tile = 1;
    } else {
      tile = 3;
      y -= fm_.height1;
    }
  }
  const std::int64_t e = fm_.elemBytes;
  const Int128 offset = fm_.brick ? Int128{y} * fm_.strideY + Int128{c / 16} * fm_.strideC + Int128{x} * 16 * e + (c % 16) * e
                                  : Int128{y} * fm_.strideY + Int128{x} * fm_.strideX + Int128{c} * e;
  const Int128 addr = static_cast<Int128>(fm_.base[tile]) + offset;
  if (addr < 0 || addr + e > static_cast<Int128>(mem_.size())) {
    return invalidInput("{} element (y {}, x {}, c {}) at byte 0x{:x} of region {} (tile {}): expected within the region's {} bytes",
                        fm_.name, y, x, c, static_cast<std::int64_t>(addr), fm_.region, tile, mem_.size());
  }
  return static_cast<std::uint64_t>(addr);
}

Result<std::int64_t> Accessor::read(std::int64_t y, std::int64_t x, std::int64_t c) const {
  if (fm_.scalar) return fm_.scalarValue;
  if (fm_.broadcast & 1) y = 0;
  if (fm_.broadcast & 2) x = 0;
  if (fm_.broadcast & 4) c = 0;
  if (chain_) {
    if (y >= chain_->h || x >= chain_->w || c >= chain_->c) {
      return invalidInput("{}: element (y {}, x {}, c {}) is outside chaining buffer {}", fm_.name, y, x, c, fm_.region);
    }
    return chain_->values[static_cast<std::size_t>((y * chain_->w + x) * chain_->c + c)];
  }
  OPENVGF_ASSIGN_OR_RETURN(std::uint64_t addr, address(y, x, c));
  const std::uint8_t* b = mem_.data() + addr;
  std::uint64_t u = 0;
  for (unsigned i = 0; i < fm_.elemBytes; ++i) u |= std::uint64_t{b[i]} << (8 * i);
  if (fm_.elemBytes < 8) {
    const std::uint64_t sign = std::uint64_t{1} << (8 * fm_.elemBytes - 1);
    if (fm_.isSigned && (u & sign)) u |= ~((sign << 1) - 1);
  }
  return static_cast<std::int64_t>(u);
}

Status Accessor::write(std::int64_t y, std::int64_t x, std::int64_t c, std::int64_t value) const {
  if (chain_) {
    chain_->values[static_cast<std::size_t>((y * chain_->w + x) * chain_->c + c)] = value;
    return {};
  }
  const std::array<std::int64_t, 3> at = placed(y, x, c);
  OPENVGF_ASSIGN_OR_RETURN(std::uint64_t addr, address(at[0], at[1], at[2]));
  std::uint8_t* b = mem_.data() + addr;
  const auto u = static_cast<std::uint64_t>(value);
  for (unsigned i = 0; i < fm_.elemBytes; ++i) b[i] = static_cast<std::uint8_t>(u >> (8 * i));
  return {};
}

Status prepareOutput(const FeatureMap& ofm, std::int64_t h, std::int64_t w, std::int64_t c, const OpContext& ctx) {
  if (!ofm.chained) return {};
  if (h * w * c > kMaxChainElements) {
    return invalidInput("OFM: a chained OFM of {}x{}x{} exceeds {} elements", h, w, c, kMaxChainElements);
  }
  ChainBuffer& chain = ctx.chains[ofm.region];
  chain.h = h;
  chain.w = w;
  chain.c = c;
  chain.values.assign(static_cast<std::size_t>(h * w * c), 0);
  return {};
}

Status OpContext::chargeWork(std::initializer_list<std::uint64_t> factors) const {
  std::uint64_t amount = 1;
  bool overflow = false;
  for (std::uint64_t f : factors) overflow |= __builtin_mul_overflow(amount, f, &amount);
  if (overflow || amount > limits.maxWork - std::min(limits.maxWork, stats.work)) {
    return unsupported("the stream needs more than the simulator's work limit of {} element operations ({} used before "
                       "this operation)",
                       limits.maxWork, stats.work);
  }
  stats.work += amount;
  return {};
}

}  // namespace openvgf::runner::ethosu
