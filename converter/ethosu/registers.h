// SPDX-License-Identifier: Apache-2.0
// The Ethos-U55/U65 register numbers the backend writes (specs/ethosu.md §1.2-1.3) and an
// emitter that encodes cmd0/cmd1 words and drops writes that would not change a register
// (registers are sticky, so only changed values need to be sent).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace openvgf::converter::ethosu::reg {

// cmd0 (param in bits 16..31)
inline constexpr std::uint16_t kOpStop = 0x000, kOpConv = 0x002, kOpDepthwise = 0x003, kOpPool = 0x005,
                               kOpElementwise = 0x006, kOpDmaStart = 0x010, kOpDmaWait = 0x011, kOpKernelWait = 0x012;
inline constexpr std::uint16_t kIfmPadTop = 0x100, kIfmPadLeft = 0x101, kIfmPadRight = 0x102, kIfmPadBottom = 0x103,
                               kIfmDepthM1 = 0x104, kIfmPrecision = 0x105, kIfmUpscale = 0x107, kIfmZeroPoint = 0x109,
                               kIfmWidth0M1 = 0x10A, kIfmHeight0M1 = 0x10B, kIfmHeight1M1 = 0x10C, kIfmIbEnd = 0x10D,
                               kIfmRegion = 0x10F;
inline constexpr std::uint16_t kOfmWidthM1 = 0x111, kOfmHeightM1 = 0x112, kOfmDepthM1 = 0x113, kOfmPrecision = 0x114,
                               kOfmBlkWidthM1 = 0x115, kOfmBlkHeightM1 = 0x116, kOfmBlkDepthM1 = 0x117,
                               kOfmZeroPoint = 0x118, kOfmWidth0M1 = 0x11A, kOfmHeight0M1 = 0x11B, kOfmHeight1M1 = 0x11C,
                               kOfmRegion = 0x11F;
inline constexpr std::uint16_t kKernelWidthM1 = 0x120, kKernelHeightM1 = 0x121, kKernelStride = 0x122,
                               kParallelMode = 0x123, kAccFormat = 0x124, kActivation = 0x125, kActivationMin = 0x126, kActivationMax = 0x127,
                               kWeightRegion = 0x128, kScaleRegion = 0x129, kAbStart = 0x12D, kBlockDep = 0x12F,
                               kDmaSrcRegion = 0x130, kDmaDstRegion = 0x131;
inline constexpr std::uint16_t kIfm2Broadcast = 0x180, kIfm2Scalar = 0x181, kIfm2Precision = 0x185,
                               kIfm2ZeroPoint = 0x189, kIfm2Width0M1 = 0x18A, kIfm2Height0M1 = 0x18B,
                               kIfm2Height1M1 = 0x18C, kIfm2IbStart = 0x18D, kIfm2Region = 0x18F;
// cmd1 (32-bit payload word)
inline constexpr std::uint16_t kIfmBase0 = 0x000, kIfmStrideX = 0x004, kIfmStrideY = 0x005, kIfmStrideC = 0x006,
                               kOfmBase0 = 0x010, kOfmStrideX = 0x014, kOfmStrideY = 0x015, kOfmStrideC = 0x016,
                               kWeightBase = 0x020, kWeightLength = 0x021, kScaleBase = 0x022, kScaleLength = 0x023,
                               kOfmScale = 0x024, kOpaScale = 0x025, kOpbScale = 0x026, kDmaSrc = 0x030, kDmaDst = 0x031,
                               kDmaLen = 0x032, kIfm2Base0 = 0x080, kIfm2StrideX = 0x084, kIfm2StrideY = 0x085,
                               kIfm2StrideC = 0x086, kWeight1Base = 0x090, kWeight1Length = 0x091,
                               kScale1Base = 0x092, kScale1Length = 0x093;

/// Appends command words; remembers every register's last value to skip redundant writes.
class Emitter {
 public:
  void cmd0(std::uint16_t code, std::uint16_t param) {
    auto it = shadow0_.find(code);
    if (it != shadow0_.end() && it->second == param) return;
    shadow0_[code] = param;
    push(code, param);
  }
  void cmd1(std::uint16_t code, std::uint32_t data, std::uint16_t param = 0) {
    const std::uint64_t value = (std::uint64_t{param} << 32) | data;
    auto it = shadow1_.find(code);
    if (it != shadow1_.end() && it->second == value) return;
    shadow1_[code] = value;
    words_.push_back(std::uint32_t{code} | 0x4000u | (std::uint32_t{param} << 16));
    words_.push_back(data);
    ++commands_;
  }
  /// Operations are never elided.
  void op(std::uint16_t code, std::uint16_t param = 0) { push(code, param); }

  const std::vector<std::uint32_t>& words() const { return words_; }
  std::size_t commandCount() const { return commands_; }

 private:
  void push(std::uint16_t code, std::uint16_t param) {
    words_.push_back(std::uint32_t{code} | (std::uint32_t{param} << 16));
    ++commands_;
  }
  std::map<std::uint16_t, std::uint16_t> shadow0_;
  std::map<std::uint16_t, std::uint64_t> shadow1_;
  std::vector<std::uint32_t> words_;
  std::size_t commands_ = 0;
};

}  // namespace openvgf::converter::ethosu::reg
