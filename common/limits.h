// SPDX-License-Identifier: Apache-2.0
// Limits shared by libraries that may not depend on each other. docs/limits.md lists every
// size a file can claim, its limit and where it is checked.
#pragma once

#include <cstddef>
#include <cstdint>

namespace openvgf {

/// The largest Ethos-U scratch arena (region 1): the simulator allocates the arena a
/// vela_bin_stream claims before running, so a few bytes of file must not buy gigabytes of
/// memory, and the compiler refuses graphs whose arena would not load. Vela's arenas for whole
/// networks are a few MiB (an Ethos-U55 system addresses SRAM of that order); 256 MiB leaves
/// room for Ethos-U65 DRAM models and keeps the simulator well under 1 GB.
inline constexpr std::uint32_t kMaxEthosUScratchBytes = std::uint32_t{256} << 20;

/// The most operators inlining control flow may produce (`convert`, inline-control-flow pass):
/// each WHILE_LOOP is capped at its own trip count, but nested loops multiply, so 1000 trips
/// of 1000 trips would unroll to a million operators, and the passes after inlining cost at
/// least that much again. Real unrolled loops (an RNN over a sequence) need a few thousand.
inline constexpr std::size_t kMaxInlinedNodes = std::size_t{1} << 14;

}  // namespace openvgf
