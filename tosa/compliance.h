// SPDX-License-Identifier: Apache-2.0
// TOSA 1.0 compliance checks (specs/tosa.md §3.3, §3.4): compares an implementation's result
// with the reference interpreter's under the rule of the operator that produced it.
//
// Rules (CheckMode):
// - Exact: integers, booleans, RESCALE SINGLE/DOUBLE_ROUND and the exact fp ops (ABS,
//   NEGATE, MAX/MIN, CLAMP, data layout, ...). Bit-exact, except that for fp types NaN matches
//   any NaN, a subnormal expected value may come back as a zero of the same sign, and zero
//   signs are free.
// - Ulp: |test - ref| within `ulp` units in the last place of the fp64 reference (check_fp).
// - CastFp: fp->fp CAST: |ref| - 1 ulp <= |test| <= |ref| + 0.5 ulp, same sign.
// - AbsError: |test - ref| <= absBound[i] (EXP, LOG, SIN, COS, SIGMOID, TANH, POW,
//   REDUCE_PRODUCT, fp RESIZE); the bounds are computed by the reference from its inputs.
// - DotProduct: the per-element and statistical error test of §3.4 over the fp64 reference
//   and the "bounds" run on absolute values (the operators that
//   tosa/reference/rules.cpp:isDotProductOp names: convolutions, MATMUL, average pooling, ...).
// - IntRange: INEXACT_ROUND RESCALE: each result within [minInt[i], maxInt[i]].
//
// Multi-operator graphs (`openvgf run --check`): TOSA specifies accuracy per operator only,
// so for a graph output we do this (an engineering rule, not a spec guarantee):
// - The reference runs the whole graph in precise mode (fp64 end to end).
// - An output whose producer reads only exact data (graph inputs, constants, outputs of
//   exact operators on those) is judged with the producer's own rule above.
// - Otherwise the output is judged with AbsError: per element, the producer's own bound
//   (expressed in absolute terms: n ulp, the ABS_ERROR bound, or for dot products the
//   per-element part of §3.4, 2*KSB*bnd*2^(-1-frac)) plus the upstream error propagated
//   through it. Every tensor carries the absolute tolerance of each of its elements; an
//   operator propagates it by re-running on each input shifted by +-those tolerances (largest
//   deviation per element), and a dot product by the input's largest tolerance * sum|w|
//   (bnd / max|input|). The statistical part of §3.4 is not applied to chained outputs.
// - Worst-case propagation compounds: over tens of operators the bound at the output can
//   grow past the output itself, and then any answer passes. Measured on the zoo (fp32, its
//   own inputs; largest bound / largest |output|): MobileNetV2 224x224 126 / 4.64 (32x32:
//   332 / 7.95), ResNet-50 3.3e39 / 4.04, the BERT layer 0.0997 / 3.03. So a chained rule
//   (Rule::chained) whose bound is at least |reference| at every element (vacuousTolerance:
//   an all-zero answer would pass) gives no PASS: the verdict is INCONCLUSIVE
//   (Verdict::inconclusive, pass false), unless some element fails even that bound (FAIL).
//   The operator-level rules above are TOSA's own and never inconclusive.
// - Floating-point outputs of COND_IF / WHILE_LOOP are judged with a 16-ulp rule plus the
//   upstream tolerance: the operators inside the bodies are not tracked (a known limitation).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "tosa/host_tensor.h"
#include "tosa/types.h"

namespace openvgf::tosa::compliance {

enum class CheckMode { Exact, Ulp, CastFp, AbsError, DotProduct, IntRange };
std::string_view toString(CheckMode mode);

/// How to judge one output tensor. Produced by the reference interpreter (precise mode) for
/// each graph output, or filled by hand for single-rule checks.
struct Rule {
  CheckMode mode = CheckMode::Exact;
  Op op = Op::Unknown;           // producing operator (for messages)
  DType outType = DType::Unknown;
  double ulp = 0.0;              // Ulp: allowed error in ulps
  std::vector<double> absBound;  // AbsError: per-element absolute bound (size 1 = uniform)
  // DotProduct (§3.4).
  std::int64_t kernelSize = 0;   // KS
  DType accType = DType::Unknown;
  bool biasNonZero = false;      // max |bias| > 0
  // IntRange: allowed integer interval per element.
  std::vector<std::int64_t> minInt;
  std::vector<std::int64_t> maxInt;
  int unsignedBits = 0;          // IntRange: >0 = results are unsigned values of this many bits
  /// Multiplies the tolerance (Ulp, CastFp, AbsError, DotProduct ABS_BOUND and variance
  /// bound). The reference sets 1; callers may widen a rule deliberately.
  double chainFactor = 1.0;
  /// The bound includes error propagated from upstream operators (the multi-operator rule
  /// above), so it may be too wide to judge anything (vacuousTolerance).
  bool chained = false;
};

struct Verdict {
  bool pass = true;
  CheckMode mode = CheckMode::Exact;
  std::int64_t elements = 0;
  std::int64_t failures = 0;          // elements that broke the per-element rule
  std::int64_t firstFailIndex = -1;   // flat index of the first failing element
  double maxAbsError = 0.0;           // max |test - ref| over finite pairs
  double maxUlpError = 0.0;           // max |test - ref| / ulp(ref) (fp outputs)
  // DotProduct statistics.
  double maxDotError = 0.0;           // max |err| (limit: absBoundLimit)
  double absBoundLimit = 0.0;
  double sumSquaredError = 0.0;       // limit: varianceLimit
  double varianceLimit = 0.0;
  double sumError = 0.0;
  // AbsError: the largest bound applied (inf when an element had none) and the largest
  // finite |reference value| (shown beside the verdict).
  double maxTolerance = 0.0;
  double maxMagnitude = 0.0;
  /// A chained rule's tolerance too wide to tell a right answer from a wrong one (pass is
  /// false, failures 0): neither PASS nor FAIL.
  bool inconclusive = false;
  std::string message;                // one line, names the first failure (or why inconclusive)
};

/// Whether a chained tolerance judges nothing: some bound is positive and every element's
/// bound (`bound` per element, or one uniform value) is at least its |reference value|, so an
/// all-zero answer would pass (see "Multi-operator graphs" above).
bool vacuousTolerance(std::span<const double> bound, std::span<const double> ref);

/// One unit in the last place of `ref` in `type` (§3.3 ulp(); 0 for zero/inf/NaN).
double ulpOf(double ref, DType type);
/// calcAbsErrorBound of §3.3.
double calcAbsErrorBound(double magnitude, double boundsValue, double lowerBound, double normalDivisor,
                         DType type);

/// Element access of an implementation's tensor: integer tensors as int64, float tensors
/// (FP32/FP16/BF16/FP8, bit patterns decoded) as double. Fails for an unknown dtype.
Result<std::vector<double>> toDoubles(const HostTensor& tensor);

/// Judges `actual` against the reference: `expected` is the reference rounded to the output
/// type (used by Exact), `precise` the fp64 reference (Ulp, CastFp, AbsError, DotProduct;
/// falls back to `expected` when empty), `bounds` the bounds run (DotProduct).
/// Errors only for unusable arguments (dtype/shape mismatch, missing data).
Result<Verdict> check(const Rule& rule, const HostTensor& actual, const HostTensor& expected,
                      std::span<const double> precise = {}, std::span<const double> bounds = {});

// The element rules, usable on their own.
Verdict checkExact(const HostTensor& actual, const HostTensor& expected);
Verdict checkUlp(std::span<const double> test, std::span<const double> ref, double ulps, DType type);
Verdict checkCastFp(std::span<const double> test, std::span<const double> ref, DType type, double factor = 1.0);
Verdict checkAbsError(std::span<const double> test, std::span<const double> ref,
                      std::span<const double> bound, DType type);
Verdict checkDotProduct(std::span<const double> test, std::span<const double> ref,
                        std::span<const double> bounds, std::int64_t kernelSize, DType accType, DType outType,
                        bool biasNonZero, double factor = 1.0);
Verdict checkIntRange(std::span<const double> test, std::span<const std::int64_t> minInt,
                      std::span<const std::int64_t> maxInt, int unsignedBits = 0);

/// REDUCE_PRODUCT bound: max(|ref|, normal_min) * ((1 + 2^(-frac-1))^n - 1).
double reduceProductBound(double ref, std::int64_t n, DType type);

/// One-line summary, e.g. "pass (ULP, max 0.5 ulp)".
std::string summary(const Verdict& verdict);

}  // namespace openvgf::tosa::compliance
