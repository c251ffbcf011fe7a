// SPDX-License-Identifier: Apache-2.0
// Compliance rule derivation for the precise run (see rules.h and compliance.h for the
// policy on operator chains).
#include "tosa/reference/rules.h"

#include <cmath>
#include <numbers>

#include "tosa/reference/broadcast.h"

namespace openvgf::tosa::reference {

namespace {

using compliance::CheckMode;
using compliance::Rule;

bool isDotProductOp(Op op) {
  switch (op) {
    case Op::Conv2d:
    case Op::Conv3d:
    case Op::DepthwiseConv2d:
    case Op::TransposeConv2d:
    case Op::MatMul:
    case Op::AvgPool2d:
    case Op::ReduceSum:
    case Op::Fft2d:
    case Op::Rfft2d: return true;
    default: return false;
  }
}

bool isAbsErrorOp(Op op) {
  switch (op) {
    case Op::Exp:
    case Op::Log:
    case Op::Sin:
    case Op::Cos:
    case Op::Sigmoid:
    case Op::Tanh:
    case Op::Pow:
    case Op::ReduceProduct:
    case Op::Resize: return true;
    default: return false;
  }
}

std::int64_t dim(const Value& v, std::size_t i) { return i < v.shape.size() ? v.shape[i] : 1; }

std::int64_t kernelSizeOf(const Operator& op, Inputs in) {
  switch (op.op) {
    case Op::Conv2d:
    case Op::TransposeConv2d: return dim(*in[1], 1) * dim(*in[1], 2) * dim(*in[1], 3);
    case Op::Conv3d: return dim(*in[1], 1) * dim(*in[1], 2) * dim(*in[1], 3) * dim(*in[1], 4);
    case Op::DepthwiseConv2d: return dim(*in[1], 0) * dim(*in[1], 1);
    case Op::MatMul: return dim(*in[0], 2);
    case Op::AvgPool2d: {
      const auto* a = attrsAs<AvgPool2dAttrs>(op);
      return (a != nullptr && a->kernel.size() == 2) ? std::int64_t{a->kernel[0]} * a->kernel[1] : 1;
    }
    case Op::ReduceSum: {
      const auto* a = attrsAs<AxisAttrs>(op);
      return a != nullptr ? dim(*in[0], static_cast<std::size_t>(std::max(0, a->axis))) : 1;
    }
    case Op::Fft2d: return 2 * dim(*in[0], 1) * dim(*in[0], 2);
    case Op::Rfft2d: return dim(*in[0], 1) * dim(*in[0], 2);
    default: return 1;
  }
}

DType accTypeOf(const Operator& op, DType outType) {
  if (const auto* a = attrsAs<ConvAttrs>(op); a != nullptr && a->accType != DType::Unknown) return a->accType;
  if (const auto* a = attrsAs<TransposeConv2dAttrs>(op); a != nullptr && a->accType != DType::Unknown) return a->accType;
  if (const auto* a = attrsAs<AvgPool2dAttrs>(op); a != nullptr && a->accType != DType::Unknown) return a->accType;
  if (op.op == Op::ReduceSum && outType == DType::Bf16) return DType::Fp32;
  if (op.op == Op::MatMul && outType == DType::Bf16) return DType::Fp32;
  return outType;
}

constexpr double kControlFlowUlps = 16.0;

double errBase(DType t) { return t == DType::Fp32 ? 3.0 : 1.0; }

// Per-element absolute bounds of the ABS_ERROR operators (§3.3).
std::vector<double> absErrorBounds(const Context& ctx, Inputs in, const Value& out) {
  const Op op = ctx.op().op;
  const DType t = out.dtype;
  const std::size_t n = out.floats.size();
  std::vector<double> bound(n, 0.0);
  auto x = [&](std::size_t i) { return in[0]->floats[i]; };
  using compliance::calcAbsErrorBound;
  switch (op) {
    case Op::Exp:
      for (std::size_t i = 0; i < n; ++i) bound[i] = calcAbsErrorBound(out.floats[i], errBase(t) + 2 * std::fabs(x(i)), 0, 1, t);
      break;
    case Op::Log:
      for (std::size_t i = 0; i < n; ++i) bound[i] = calcAbsErrorBound(out.floats[i], 5, 0.5, 1, t);
      break;
    case Op::Sin:
      for (std::size_t i = 0; i < n; ++i) {
        bound[i] = std::max(calcAbsErrorBound(x(i), 2, 0, 2, t), std::numbers::pi * normalMin(t));
      }
      break;
    case Op::Cos:
      for (std::size_t i = 0; i < n; ++i) bound[i] = calcAbsErrorBound(1 + std::fabs(x(i)), 1, 0, 2, t);
      break;
    case Op::Sigmoid:
      for (std::size_t i = 0; i < n; ++i) bound[i] = calcAbsErrorBound(out.floats[i], 2 * (1 + std::fabs(x(i))), 0, 1, t);
      break;
    case Op::Tanh:
      for (std::size_t i = 0; i < n; ++i) {
        bound[i] = calcAbsErrorBound(out.floats[i], 4 * (errBase(t) + 2 * std::fabs(x(i))), 0.5, 1, t);
      }
      break;
    case Op::Pow: {
      const auto ma = broadcastMap(out.shape, in[0]->shape);
      const auto mb = broadcastMap(out.shape, in[1]->shape);
      for (std::size_t i = 0; i < n; ++i) {
        const double base = in[0]->floats[static_cast<std::size_t>(ma[i])];
        const double e = in[1]->floats[static_cast<std::size_t>(mb[i])];
        const double ylogx = e * std::log(base);
        const double mulErr = calcAbsErrorBound(ylogx, 5.5, std::fabs(0.55 * e), 1, t);
        const double expErr = calcAbsErrorBound(out.floats[i], errBase(t) + 2 * std::fabs(ylogx + mulErr), 0, 1, t);
        bound[i] = std::fabs(out.floats[i] * std::expm1(mulErr)) + expErr;
      }
      break;
    }
    case Op::ReduceProduct: {
      const auto* a = attrsAs<AxisAttrs>(ctx.op());
      const std::int64_t count = a != nullptr ? dim(*in[0], static_cast<std::size_t>(std::max(0, a->axis))) : 1;
      for (std::size_t i = 0; i < n; ++i) bound[i] = compliance::reduceProductBound(out.floats[i], count, t);
      break;
    }
    case Op::Resize: {
      double maxIn = 0.0;
      for (double v : in[0]->floats) maxIn = std::max(maxIn, std::fabs(v));
      const double b = std::max(calcAbsErrorBound(maxIn, 20, 0, 1, t), 0.006 * maxIn);
      std::fill(bound.begin(), bound.end(), b);
      break;
    }
    default: break;
  }
  return bound;
}

Context scratchContext(const Context& ctx, std::vector<Diagnostic>& scratch) {
  Context c(ctx.op(), ctx.index(), "compliance", true, scratch, false);
  c.outTypes = ctx.outTypes;
  c.outShapes = ctx.outShapes;
  c.outShapeKnown = ctx.outShapeKnown;
  return c;
}

/// Upstream error carried through a non-dot-product operator: the operator re-run with each
/// floating-point input shifted by +-its tolerance, element by element where the input has
/// one per element (`inElementTol`, else its largest `inTol`), keeping the largest deviation
/// per element. Per element, so that one wide element (an overflow) does not widen all.
std::vector<std::vector<double>> propagateUpstream(const Context& ctx, Inputs in, const Outputs& outs,
                                                   const std::vector<double>& inTol,
                                                   const std::vector<const std::vector<double>*>& inElementTol,
                                                   const RuleTracker::Dispatch& dispatch) {
  std::vector<std::vector<double>> propagated(outs.size());
  for (std::size_t k = 0; k < outs.size(); ++k) propagated[k].assign(outs[k].floats.size(), 0.0);
  for (std::size_t j = 0; j < in.size(); ++j) {
    if (inTol[j] <= 0.0) continue;
    for (double sign : {1.0, -1.0}) {
      Value shifted = *in[j];
      const std::vector<double>* perElement = inElementTol[j];
      if (perElement != nullptr && perElement->size() == shifted.floats.size()) {
        for (std::size_t i = 0; i < shifted.floats.size(); ++i) shifted.floats[i] += sign * (*perElement)[i];
      } else {
        for (double& v : shifted.floats) v += sign * inTol[j];
      }
      std::vector<const Value*> args(in.begin(), in.end());
      args[j] = &shifted;
      std::vector<Diagnostic> scratch;
      Context c = scratchContext(ctx, scratch);
      Result<Outputs> moved = dispatch(c, args);
      if (!moved) continue;  // e.g. a shifted CLAMP bound; the own-rule bound still applies
      for (std::size_t k = 0; k < outs.size() && k < moved->size(); ++k) {
        const auto& a = outs[k].floats;
        const auto& b = (*moved)[k].floats;
        for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
          const double d = std::fabs(b[i] - a[i]);
          if (std::isfinite(d)) propagated[k][i] = std::max(propagated[k][i], d);
        }
      }
    }
  }
  return propagated;
}

bool isConvolution(Op op) {
  return op == Op::Conv2d || op == Op::Conv3d || op == Op::DepthwiseConv2d || op == Op::TransposeConv2d;
}

/// The dot-product rule of output `info` (tolerance per element in `tol`) and, with upstream
/// error, what a dot product makes of it (`propagated`).
template <typename Info>
void dotProductRule(const Operator& op, Inputs in, const Value* boundsOut, const std::vector<double>& inTol,
                    bool hasUpstream, Info& info, std::vector<double>& tol, std::vector<double>& propagated) {
  Rule& rule = info.rule;
  const DType t = rule.outType;
  rule.mode = CheckMode::DotProduct;
  rule.kernelSize = kernelSizeOf(op, in);
  rule.accType = accTypeOf(op, t);
  if (isConvolution(op.op)) {
    for (double b : in[2]->floats) rule.biasNonZero = rule.biasNonZero || std::fabs(b) > 0.0;
  }
  if (boundsOut != nullptr) info.bounds = boundsOut->floats;
  const int frac = normalFrac(t);
  const int accFrac = normalFrac(rule.accType);
  const double ksb = std::ceil(static_cast<double>(rule.kernelSize) / std::exp2((accFrac - frac) / 2.0)) +
                     (rule.biasNonZero ? 1.0 : 0.0);
  for (std::size_t i = 0; i < tol.size() && i < info.bounds.size(); ++i) {
    tol[i] = 2 * ksb * std::max(info.bounds[i] * std::exp2(-1 - frac), normalMin(t));
  }
  if (!hasUpstream) return;
  // A dot product scales an input error by about sum|w| = bounds / max|input|.
  propagated.assign(tol.size(), 0.0);
  for (std::size_t j = 0; j < in.size(); ++j) {
    if (inTol[j] <= 0.0) continue;
    if (j == 2 && isConvolution(op.op)) {
      for (double& p : propagated) p += inTol[j];
      continue;
    }
    double maxAbs = normalMin(t);
    for (double v : in[j]->floats) maxAbs = std::max(maxAbs, std::fabs(v));
    for (std::size_t i = 0; i < tol.size() && i < info.bounds.size(); ++i) {
      propagated[i] += inTol[j] * info.bounds[i] / maxAbs;
    }
  }
}

}  // namespace

void RuleTracker::onConstant(const std::string& name) { infos_[name] = Info{}; }

Result<void> RuleTracker::onOperator(Context& ctx, Inputs in, const Outputs& outs, const Dispatch& dispatch) {
  const Operator& op = ctx.op();
  // Upstream tolerance of each floating-point input (0 for graph inputs and constants).
  std::vector<double> inTol(in.size(), 0.0);
  std::vector<const std::vector<double>*> inElementTol(in.size(), nullptr);
  int upstreamDepth = 0;
  double upstreamTol = 0.0;
  for (std::size_t i = 0; i < op.inputs.size() && i < in.size(); ++i) {
    if (!in[i]->isFloat()) continue;
    auto it = infos_.find(op.inputs[i]);
    if (it == infos_.end()) continue;
    inTol[i] = it->second.maxAbsTol;
    if (!it->second.elementTol.empty()) inElementTol[i] = &it->second.elementTol;
    upstreamDepth = std::max(upstreamDepth, it->second.depth);
    upstreamTol = std::max(upstreamTol, it->second.maxAbsTol);
  }
  const bool hasUpstream = upstreamTol > 0.0;
  // Bounds run for dot-product operators (shared by all outputs, e.g. FFT real/imag).
  Outputs boundsOuts;
  const bool anyFloatOut = std::any_of(outs.begin(), outs.end(), [](const Value& v) { return v.isFloat(); });
  if (isDotProductOp(op.op) && anyFloatOut) {
    std::vector<Diagnostic> scratch;
    Context boundsCtx = scratchContext(ctx, scratch);
    boundsCtx.bounds = true;
    OPENVGF_ASSIGN_OR_RETURN(boundsOuts, dispatch(boundsCtx, in));
  }
  // Propagation of upstream errors through a non-dot-product operator.
  std::vector<std::vector<double>> propagated(outs.size());
  if (hasUpstream && anyFloatOut && !isDotProductOp(op.op) && op.op != Op::CondIf && op.op != Op::WhileLoop) {
    propagated = propagateUpstream(ctx, in, outs, inTol, inElementTol, dispatch);
  }
  for (std::size_t k = 0; k < outs.size() && k < op.outputs.size(); ++k) {
    const Value& out = outs[k];
    Info info;
    Rule& rule = info.rule;
    rule.op = op.op;
    rule.outType = out.dtype;
    const bool keepFull = outputs_.contains(op.outputs[k]);
    if (!out.isFloat()) {
      if (op.op == Op::Rescale) {
        const auto* a = attrsAs<RescaleAttrs>(op);
        if (a != nullptr && a->roundingMode == RoundingMode::InexactRound) {
          rule.mode = CheckMode::IntRange;
          OPENVGF_TRY(rescaleInexactRange(ctx, in, rule.minInt, rule.maxInt));
          rule.unsignedBits = a->outputUnsigned ? valueBits(out.dtype) : 0;
        }
      }
      infos_[op.outputs[k]] = std::move(info);
      continue;
    }
    const DType t = out.dtype;
    // Own tolerance of this operator per element, in absolute terms.
    std::vector<double> tol(out.floats.size(), 0.0);
    bool inexact = true;
    if (isDotProductOp(op.op)) {
      dotProductRule(op, in, k < boundsOuts.size() ? &boundsOuts[k] : nullptr, inTol, hasUpstream, info, tol,
                     propagated[k]);
    } else if (isAbsErrorOp(op.op)) {
      rule.mode = CheckMode::AbsError;
      rule.absBound = absErrorBounds(ctx, in, out);
      tol = rule.absBound;
    } else if (op.op == Op::CondIf || op.op == Op::WhileLoop) {
      // The operators inside the bodies are not tracked: a fixed ulp rule (compliance.h).
      rule.mode = CheckMode::Ulp;
      rule.ulp = kControlFlowUlps;
      for (std::size_t i = 0; i < tol.size(); ++i) tol[i] = compliance::ulpOf(out.floats[i], t) * kControlFlowUlps;
      if (hasUpstream) propagated[k].assign(tol.size(), upstreamTol);
    } else if (op.op == Op::Cast && in[0]->isFloat()) {
      rule.mode = CheckMode::CastFp;
      for (std::size_t i = 0; i < tol.size(); ++i) tol[i] = compliance::ulpOf(out.floats[i], t);
    } else {
      double ulps = 0.0;
      switch (op.op) {
        case Op::Add:
        case Op::Sub:
        case Op::Mul:
        case Op::Ceil:
        case Op::Floor:
        case Op::Cast: ulps = 0.5; break;
        case Op::Reciprocal: ulps = 1.0; break;
        case Op::Rsqrt: ulps = 2.0; break;
        case Op::Erf: ulps = 5.0; break;
        default: inexact = false; break;
      }
      if (inexact) {
        rule.mode = CheckMode::Ulp;
        rule.ulp = ulps;
        for (std::size_t i = 0; i < tol.size(); ++i) tol[i] = compliance::ulpOf(out.floats[i], t) * ulps;
      }
    }
    info.depth = upstreamDepth + (inexact ? 1 : 0);
    if (hasUpstream) {
      // Own bound plus the propagated upstream error, judged as one absolute bound per element.
      rule.mode = CheckMode::AbsError;
      rule.chained = true;
      rule.absBound.assign(tol.size(), 0.0);
      for (std::size_t i = 0; i < tol.size(); ++i) {
        const double p = i < propagated[k].size() ? propagated[k][i] : upstreamTol;
        rule.absBound[i] = tol[i] + p;
      }
      if (!inexact && propagated[k].empty()) rule.absBound.assign(tol.size(), upstreamTol);
      tol = rule.absBound;
    } else if (!inexact) {
      rule.mode = CheckMode::Exact;
    }
    for (double v : tol) {
      if (std::isfinite(v)) info.maxAbsTol = std::max(info.maxAbsTol, v);
    }
    if (info.maxAbsTol > 0.0) {
      // Non-finite bounds stay out of the chain, as from maxAbsTol.
      info.elementTol = tol;
      for (double& v : info.elementTol) v = std::isfinite(v) ? v : 0.0;
    }
    if (!keepFull) {
      rule.absBound.clear();
      info.bounds.clear();
    }
    infos_[op.outputs[k]] = std::move(info);
  }
  return {};
}

void RuleTracker::finish(const std::string& name, const Value& value, Rule& rule, std::vector<double>& bounds) const {
  auto it = infos_.find(name);
  if (it == infos_.end()) {
    rule = Rule{};
    rule.outType = value.dtype;
    return;
  }
  rule = it->second.rule;
  bounds = it->second.bounds;
}

}  // namespace openvgf::tosa::reference
