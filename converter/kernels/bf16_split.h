// SPDX-License-Identifier: Apache-2.0
// fp32 GEMM operands as bf16 parts on bf16 cooperative matrices (--precision bf16x3 and
// fp32-bf16; CM_SPLIT with CM_BF16, include/gemm_coopmat.glsl): the split the core applies as
// it stages operands, written here once in C++ so that tests can emulate the core exactly
// (tests/converter/bf16_split_test.cpp), and the choice of how many products a GEMM needs.
//
// The split, by truncation (bit masks, no rounding, so no part can overflow, even at FLT_MAX):
//   hi  = x with its low 16 bits cleared (x's sign, exponent and top 7 fraction bits)
//   mid = (x - hi) with its low 16 bits cleared       (x - hi is exact in fp32)
//   lo  = (x - hi - mid) with its low 16 bits cleared (exact too, up to bits below 2^-133)
// Each part is a bf16 (bf16 = the top 16 bits of an fp32), hi + mid + lo = x, and
// |mid| < 2^-7 |x|, |lo| < 2^-14 |x|. bf16 x bf16 products are exact in fp32 (8 x 8
// significant bits), so the cooperative matrices add exact products into fp32 accumulators.
// Special operands go to hi alone (mid = lo = 0) and make the tile's accumulators non-finite,
// which sends the tile to the core's fp32 path (cm_dot_f32: TOSA's fp32 semantics at FMA
// speed, for that tile only):
//   inf, NaN: hi = x (a NaN keeps a NaN's bits there: the quiet bit is set), not inf - inf;
//   0 < |x| < 2^-96 (kBf16SplitMinBits): hi = NaN. Parts of such an x could fall below fp32's
//     normal range, where a device's matrices may flush bf16 subnormals (TOSA lets an
//     implementation flush, specs/tosa.md §3.2, but the dot-product bound on max(|x|, 2^-126)
//     would not cover it). From 2^-96 up, whatever a device does with parts below 2^-126
//     loses less than 2^-125 <= 2^-29 |x|: 1/32 of a unit below per operand. (An H200 keeps
//     bf16 subnormal operands and flushes products below 2^-126 in its fp32 accumulation:
//     benchmarks/results/h200-bf16split-2026-11-29.md.)
#pragma once

#include <cstdint>

namespace openvgf::converter {

/// The bf16 parts of one fp32 (bit patterns), as the core splits it.
struct Bf16Parts {
  std::uint16_t hi = 0, mid = 0, lo = 0;
};
Bf16Parts splitToBf16(float x);
/// A bf16 bit pattern as the fp32 it denotes (exact).
float bf16ToFloat(std::uint16_t bits);

/// TOSA 1.0's dot-product rule (specs/tosa.md §3.4) for an fp32 MATMUL / CONV2D with fp32
/// accumulators, in units of u = 2^-24 * sum_k |a_k| |b_k| (bnd * 2^(-1-frac(fp32))):
///   per output:       |error| <= 2 * KS u        (ABS_BOUND = 2 * ksb, ksb >= KS)
///   over T outputs:   sum error^2 <= 1.6 * KS * T u^2   (VARIANCE_ERROR_BOUND = 4 * 0.4 * ksb)
/// A product a b = sum over the parts' cross products. Dropping some leaves, per term, at most
///   3 products (hh + hm + mh kept): hl + lh + mm + ml + lm + ll < (3 * 2^-14 + 2 * 2^-21 + 2^-28) |a b|
///                                  = 3088.0625 * 2^-24 |a b|
///   6 products (+ hl + lh + mm):     ml + lm + ll < (2 * 2^-21 + 2^-28) |a b| = 16.0625 * 2^-24 |a b|
/// plus 2 * 2^-5 for parts below 2^-126 a device may flush (above), so D = 3088.125 or 16.125
/// units per output. Truncation makes every dropped part carry its product's sign, so for
/// same-signed data the dropped terms add up to D in every output (a bias, not noise).
/// The other half of each bound is left to fp32's own accumulation rounding, which any fp32
/// implementation has: D <= KS (half of 2 KS) and D^2 <= 0.8 KS (half of 1.6 KS). So
///   6 products from KS >= max(16.125, 16.125^2 / 0.8 = 325.02)          = 326
///   3 products from KS >= max(3088.125, 3088.125^2 / 0.8 = 11920645.02) = 11920646
/// (three products are cheaper once both hold). Below 326 neither is within the bound for
/// every input: the GEMM stays on the fp32 FMA core.
inline constexpr double kBf16Split3DroppedUnits = 3 * 1024.0 + 2 * 8.0 + 1.0 / 16 + 2.0 / 32;
inline constexpr double kBf16Split6DroppedUnits = 2 * 8.0 + 1.0 / 16 + 2.0 / 32;
/// The bits of 2^-96: nonzero operands of smaller magnitude take the fp32 path.
inline constexpr std::uint32_t kBf16SplitMinBits = 0x0F800000u;
/// The smallest KS from which `dropped` units per output stay within half of both bounds.
std::int64_t bf16SplitMinDepth(double dropped);
/// Products per operand pair for an fp32 GEMM of reduction depth `ks` (KS as TOSA counts it:
/// MATMUL C, CONV2D KH * KW * IC) under --precision fp32-bf16: 3, 6, or 0 (the FMA core).
int bf16SplitProducts(std::int64_t ks);

}  // namespace openvgf::converter
