// SPDX-License-Identifier: Apache-2.0
// The elementwise family in TOSA's int8 forms (specs/ethosu.md §4.4, §4.6): ADD/SUB fed by
// RESCALE INT8 -> INT32 on both inputs and followed by RESCALE INT32 -> INT8; MUL with
// zero-point-only input rescales; a standalone RESCALE INT8 -> INT8 (a 1x1 average pool, or a
// 1x1 depthwise convolution for per-channel scales); CLAMP; TABLE (a lookup table applied by
// the output stage of the operation before it when it is that result's only reader).
#include <optional>

#include "converter/ethosu/lowering.h"

namespace openvgf::converter::ethosu {

using tosa::DType;
using tosa::Op;

namespace {

/// m·2^-s when that is a non-negative integer below 2^32: apply_scale_32/16 then multiply
/// exactly, whatever the rounding mode (the rounding term stays below 2^s).
std::optional<std::uint32_t> exactIntegerScale(std::int64_t m, std::int64_t s) {
  if (m < 0 || s < 0 || s > 62) return std::nullopt;
  if ((m & ((std::int64_t{1} << s) - 1)) != 0) return std::nullopt;
  const std::int64_t q = m >> s;
  if (q > 0xFFFFFFFF) return std::nullopt;
  return static_cast<std::uint32_t>(q);
}

}  // namespace

Status Lowering::lowerAddSub(std::size_t index) {
  const tosa::Operator& o = op(index);
  const std::string what = label(index);
  if (o.inputs.size() != 2 || o.outputs.size() != 1) return invalidInput("{}: expected 2 inputs", what);
  const tosa::Tensor* out = tensor(o.outputs[0]);
  if (!out || out->dtype != DType::Int32) {
    return unsupported("{}: only the INT32 form fed by RESCALEs from INT8 runs on the NPU", what);
  }
  // Both inputs: RESCALE INT8 -> INT32 used only here.
  struct Operand {
    std::string source;
    Rescale r;
    Dims3 d;
  };
  Operand in[2];
  for (int k = 0; k < 2; ++k) {
    const std::string& name = o.inputs[static_cast<std::size_t>(k)];
    const tosa::Operator* prod = producerBefore(index, name);
    const tosa::Tensor* source = prod && !prod->inputs.empty() ? tensor(prod->inputs[0]) : nullptr;
    if (!prod || prod->op != Op::Rescale || !singleConsumer(name) || !source || source->dtype != DType::Int8) {
      return unsupported("{}: input '{}' must come from a RESCALE INT8 -> INT32 used only by it", what, name);
    }
    OPENVGF_ASSIGN_OR_RETURN(in[k].r, readRescale(*prod, what));
    if (in[k].r.multiplier.size() != 1) return unsupported("{}: per-channel input RESCALE '{}'", what, name);
    if (in[k].r.outputZp != 0) return invalidInput("{}: RESCALE '{}' to INT32 must have output_zp 0", what, name);
    in[k].source = prod->inputs[0];
    OPENVGF_ASSIGN_OR_RETURN(in[k].d, dims3(name, what));
  }
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(o.outputs[0], what));
  auto full = [&](const Dims3& d) { return d.h == od.h && d.w == od.w && d.c == od.c; };
  // IFM must be full size; IFM2 may broadcast.
  int ifmIdx = full(in[0].d) ? 0 : 1;
  if (!full(in[ifmIdx].d)) return unsupported("{}: both inputs broadcast", what);
  const int ifm2Idx = 1 - ifmIdx;
  NpuOp npu;
  npu.kind = Kind::Elementwise;
  npu.mode = o.op == Op::Add ? mode::kAdd : mode::kSub;
  npu.what = what;
  npu.hasIfm2 = true;
  const Dims3& d2 = in[ifm2Idx].d;
  auto bcast = [&](int a, int b) { return a == 1 && b != 1; };
  if ((d2.h != od.h && d2.h != 1) || (d2.w != od.w && d2.w != 1) || (d2.c != od.c && d2.c != 1)) {
    return invalidInput("{}: input shapes do not broadcast to the output", what);
  }
  npu.broadcast = (bcast(d2.h, od.h) ? 1u : 0u) | (bcast(d2.w, od.w) ? 2u : 0u) | (bcast(d2.c, od.c) ? 4u : 0u);
  // SUB is input1 - input2: with the operands swapped the hardware computes IFM2 - IFM.
  npu.swapOperands = ifmIdx == 1;
  if (npu.swapOperands && npu.mode == mode::kAdd) npu.swapOperands = false;
  const Rescale& ra = in[ifmIdx].r;
  const Rescale& rb = in[ifm2Idx].r;
  const std::optional<std::uint32_t> qa = exactIntegerScale(ra.multiplier[0], ra.shift[0]);
  const std::optional<std::uint32_t> qb = exactIntegerScale(rb.multiplier[0], rb.shift[0]);
  if (config_.product == ::openvgf::ethosu::Product::U85) {
    // IFM_SCALE / IFM2_SCALE apply each input RESCALE with its own rounding.
    npu.inputScales = std::array{
        NpuOp::InputScale{static_cast<std::uint32_t>(ra.multiplier[0]), static_cast<unsigned>(ra.shift[0]), ra.doubleRound},
        NpuOp::InputScale{static_cast<std::uint32_t>(rb.multiplier[0]), static_cast<unsigned>(rb.shift[0]), rb.doubleRound}};
  } else if (qa && qb && *qa <= 0xFFFF && *qb <= 0xFFFF) {
    // Both input rescales multiply by an integer (no rounding): OPA_OPB_16 multiplies each
    // operand by a 16-bit integer, so A and B equal TOSA's int32 operands exactly.
    npu.ifmScaleMode = 0;
    npu.opaScale = *qa;
    npu.opbScale = *qb;
  } else if (isExactPowerOfTwoScale(rb.multiplier[0], rb.shift[0], 19)) {
    // The hardware shifts one operand left by 19 (8-bit) and rescales the other (specs §4.4).
    npu.ifmScaleMode = 1;  // OPA_32: IFM rescaled
    npu.opaScale = static_cast<std::uint32_t>(ra.multiplier[0]);
    npu.opaShift = static_cast<unsigned>(ra.shift[0]);
    npu.ifmDoubleRound = ra.doubleRound;
  } else if (isExactPowerOfTwoScale(ra.multiplier[0], ra.shift[0], 19)) {
    npu.ifmScaleMode = 2;  // OPB_32: IFM2 rescaled
    npu.opaScale = static_cast<std::uint32_t>(rb.multiplier[0]);
    npu.opaShift = static_cast<unsigned>(rb.shift[0]);
    npu.ifmDoubleRound = rb.doubleRound;
  } else {
    // No single operation computes round(a*ma) + round(b*mb) with both roundings: each input
    // RESCALE runs as its own elementwise ADD of a scalar 0 whose IFM path applies the
    // multiplier, shift and rounding and whose int32 OFM is written unscaled; the int32
    // operands are then combined with unit OPA_OPB_16 scales and the output RESCALE.
    View scaled[2];
    for (int k = 0; k < 2; ++k) {
      const Operand& operand = in[k];
      NpuOp pre;
      pre.kind = Kind::Elementwise;
      pre.mode = mode::kAdd;
      pre.what = fmt::format("{} (RESCALE of input {} to INT32)", what, k + 1);
      pre.ifm2Scalar = true;
      pre.ifmZp = static_cast<int>(operand.r.inputZp);
      pre.ifmScaleMode = 1;
      pre.opaScale = static_cast<std::uint32_t>(operand.r.multiplier[0]);
      pre.opaShift = static_cast<unsigned>(operand.r.shift[0]);
      pre.ifmDoubleRound = operand.r.doubleRound;
      pre.globalScale = true;
      pre.actMin = -32768;
      pre.actMax = 32767;
      OPENVGF_ASSIGN_OR_RETURN(pre.ifm, viewOf(operand.source, what));
      pre.ofm = denseView(newBuffer(static_cast<std::uint32_t>(operand.d.h * operand.d.w * operand.d.c * 4)), operand.d.h, operand.d.w, operand.d.c, 4);
      scaled[k] = pre.ofm;
      ops.push_back(std::move(pre));
    }
    npu.ifmScaleMode = 0;
    npu.opaScale = 1;
    npu.opbScale = 1;
    npu.ifm = scaled[ifmIdx];
    npu.ifm2 = scaled[ifm2Idx];
    std::string finalName;
    OPENVGF_TRY(fuseOutputStage(index, o.outputs[0], npu, od.c, finalName, false));
    pushOp(std::move(npu), finalName, od);
    return {};
  }
  npu.ifmZp = static_cast<int>(ra.inputZp);
  npu.ifm2Zp = static_cast<int>(rb.inputZp);
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(in[ifmIdx].source, what));
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm2, viewOf(in[ifm2Idx].source, what));
  std::string finalName;
  OPENVGF_TRY(fuseOutputStage(index, o.outputs[0], npu, od.c, finalName, false));
  pushOp(std::move(npu), finalName, od);
  return {};
}

Status Lowering::lowerMul(std::size_t index) {
  const tosa::Operator& o = op(index);
  const std::string what = label(index);
  if (o.inputs.size() != 3 || o.outputs.size() != 1) return invalidInput("{}: expected 3 inputs", what);
  const tosa::Tensor* out = tensor(o.outputs[0]);
  if (!out || out->dtype != DType::Int32) return unsupported("{}: only the INT32 product of INT8 values runs on the NPU", what);
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t shift, scalarValue(o.inputs[2], what + ": shift"));
  if (shift != 0) return unsupported("{}: shift {} (only 0)", what, shift);
  std::string sources[2];
  int zps[2] = {0, 0};
  Dims3 dims[2];
  for (int k = 0; k < 2; ++k) {
    const std::string& name = o.inputs[static_cast<std::size_t>(k)];
    const tosa::Tensor* t = tensor(name);
    if (!t) return invalidInput("{}: undefined input '{}'", what, name);
    OPENVGF_ASSIGN_OR_RETURN(dims[k], dims3(name, what));
    if (t->dtype == DType::Int8) {
      sources[k] = name;
      continue;
    }
    const tosa::Operator* prod = producerBefore(index, name);
    const tosa::Tensor* source = prod && !prod->inputs.empty() ? tensor(prod->inputs[0]) : nullptr;
    if (!prod || prod->op != Op::Rescale || !singleConsumer(name) || !source || source->dtype != DType::Int8) {
      return unsupported("{}: input '{}' must be INT8 or a RESCALE INT8 -> INT32 used only by it", what, name);
    }
    OPENVGF_ASSIGN_OR_RETURN(Rescale r, readRescale(*prod, what));
    if (r.multiplier.size() != 1 || !isExactPowerOfTwoScale(r.multiplier[0], r.shift[0], 0) || r.outputZp != 0) {
      return unsupported("{}: input RESCALE '{}' must only remove the zero point (scale exactly 1)", what, name);
    }
    sources[k] = prod->inputs[0];
    zps[k] = static_cast<int>(r.inputZp);
  }
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(o.outputs[0], what));
  auto full = [&](const Dims3& d) { return d.h == od.h && d.w == od.w && d.c == od.c; };
  const int ifmIdx = full(dims[0]) ? 0 : 1;
  if (!full(dims[ifmIdx])) return unsupported("{}: both inputs broadcast", what);
  const int ifm2Idx = 1 - ifmIdx;
  NpuOp npu;
  npu.kind = Kind::Elementwise;
  npu.mode = mode::kMul;
  npu.what = what;
  npu.hasIfm2 = true;
  const Dims3& d2 = dims[ifm2Idx];
  if ((d2.h != od.h && d2.h != 1) || (d2.w != od.w && d2.w != 1) || (d2.c != od.c && d2.c != 1)) {
    return invalidInput("{}: input shapes do not broadcast to the output", what);
  }
  npu.broadcast = (d2.h != od.h ? 1u : 0u) | (d2.w != od.w ? 2u : 0u) | (d2.c != od.c ? 4u : 0u);
  npu.ifmZp = zps[ifmIdx];
  npu.ifm2Zp = zps[ifm2Idx];
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(sources[ifmIdx], what));
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm2, viewOf(sources[ifm2Idx], what));
  std::string finalName;
  OPENVGF_TRY(fuseOutputStage(index, o.outputs[0], npu, od.c, finalName, false));
  pushOp(std::move(npu), finalName, od);
  return {};
}

Status Lowering::lowerRescale(std::size_t index) {
  const tosa::Operator& o = op(index);
  const std::string what = label(index);
  const tosa::Tensor* in = o.inputs.empty() ? nullptr : tensor(o.inputs[0]);
  const tosa::Tensor* out = o.outputs.empty() ? nullptr : tensor(o.outputs[0]);
  if (!in || !out) return invalidInput("{}: undefined tensor", what);
  if (in->dtype == DType::Int8 && out->dtype == DType::Int32) {
    // Part of an ADD/SUB/MUL pattern; the consumer lowers it.
    auto consumer = singleConsumer(o.outputs[0]);
    if (consumer) {
      const Op c = op(*consumer).op;
      if (c == Op::Add || c == Op::Sub || c == Op::Mul) return {};
    }
    return unsupported("{}: an INT8 -> INT32 RESCALE must feed a single ADD, SUB or MUL", what);
  }
  if (in->dtype != DType::Int8 || out->dtype != DType::Int8) {
    return unsupported("{}: standalone RESCALE {} -> {} (only INT8 -> INT8, or INT32 -> INT8 after a convolution)", what,
                       tosa::toString(in->dtype), tosa::toString(out->dtype));
  }
  OPENVGF_ASSIGN_OR_RETURN(Rescale r, readRescale(o, what));
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(o.outputs[0], what));
  NpuOp npu;
  npu.what = what;
  npu.ifmZp = static_cast<int>(r.inputZp);
  npu.ofmZp = static_cast<int>(r.outputZp);
  npu.doubleRound = r.doubleRound;
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(o.inputs[0], what));
  if (r.multiplier.size() == 1) {
    // 1x1 AVERAGE pool: (x - zp) rescaled by the global OFM scale.
    npu.kind = Kind::Pool;
    npu.mode = mode::kAverage;
    npu.globalScale = true;
    npu.ofmScale = static_cast<std::uint32_t>(r.multiplier[0]);
    npu.ofmShift = static_cast<unsigned>(r.shift[0]);
  } else {
    if (static_cast<int>(r.multiplier.size()) != od.c) return invalidInput("{}: expected {} multipliers", what, od.c);
    // 1x1 depthwise convolution with unit weights carries the per-channel scales.
    npu.kind = Kind::Depthwise;
    npu.weights.ofmDepth = od.c;
    npu.weights.kernelHeight = npu.weights.kernelWidth = npu.weights.ifmDepth = 1;
    npu.weights.values.assign(static_cast<std::size_t>(od.c), 1);
    npu.weights.traversal = WeightTraversal::Depthwise;
    npu.bias.assign(static_cast<std::size_t>(od.c), 0);
    npu.perChannel = true;
    for (int c = 0; c < od.c; ++c) {
      npu.scales.push_back(static_cast<std::uint32_t>(r.multiplier[static_cast<std::size_t>(c)]));
      npu.shifts.push_back(static_cast<std::uint8_t>(r.shift[static_cast<std::size_t>(c)]));
    }
  }
  std::string finalName = o.outputs[0];
  fuseClamp(finalName, npu);
  pushOp(std::move(npu), finalName, od);
  return {};
}

Status Lowering::lowerClampOrTable(std::size_t index) {
  const tosa::Operator& o = op(index);
  const std::string what = label(index);
  const tosa::Tensor* in = o.inputs.empty() ? nullptr : tensor(o.inputs[0]);
  const tosa::Tensor* out = o.outputs.empty() ? nullptr : tensor(o.outputs[0]);
  if (!in || !out || in->dtype != DType::Int8 || out->dtype != DType::Int8) return unsupported("{}: only INT8 runs on the NPU", what);
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(o.outputs[0], what));
  NpuOp npu;
  npu.kind = Kind::Pool;
  npu.mode = mode::kMax;
  npu.what = what;
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(o.inputs[0], what));
  std::string finalName = o.outputs[0];
  if (o.op == Op::Clamp) {
    const auto* attrs = std::get_if<tosa::ClampAttrs>(&o.attrs);
    if (!attrs || attrs->minVal.size() != 1 || attrs->maxVal.size() != 1) return invalidInput("{}: expected INT8 bounds", what);
    npu.actMin = static_cast<std::int8_t>(attrs->minVal[0]);
    npu.actMax = static_cast<std::int8_t>(attrs->maxVal[0]);
  } else {
    if (o.inputs.size() != 2) return invalidInput("{}: expected 2 inputs", what);
    auto table = constants_.find(o.inputs[1]);
    if (table == constants_.end() || table->second.dtype != DType::Int8 || table->second.bytes.size() != 256) {
      return unsupported("{}: the table must be a constant INT8[256]", what);
    }
    // The LUT is indexed with value + 128 for signed 8-bit data, as TOSA's table[in + 128].
    const std::uint32_t lutOffset = appendReadOnly(table->second.bytes);
    constantBytes += 256;
    // The output stage applies the LUT last (after zero point and clamp), so a table that is
    // the only consumer of an NPU op's int8 result runs inside that op.
    auto producer = producerOp_.find(o.inputs[0]);
    if (producer != producerOp_.end() && singleConsumer(o.inputs[0]) && !concatTargets_.count(o.inputs[0]) &&
        ops[producer->second].lutSlot < 0) {
      NpuOp& fused = ops[producer->second];
      fused.lutSlot = 0;
      fused.lutOffset = lutOffset;
      fused.what += " + " + what;
      views.erase(o.inputs[0]);
      fused.ofm = allocateOutput(finalName, od);
      views[finalName] = fused.ofm;
      producerOp_[finalName] = producer->second;
      return {};
    }
    npu.lutSlot = 0;
    npu.lutOffset = lutOffset;
  }
  pushOp(std::move(npu), finalName, od);
  return {};
}

}  // namespace openvgf::converter::ethosu
