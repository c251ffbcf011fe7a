// SPDX-License-Identifier: Apache-2.0
// The lowering's shared state and helpers, and the driver that walks the program.
#include "converter/ethosu/lowering.h"

#include <algorithm>

#include "common/limits.h"

namespace openvgf::converter::ethosu {

using tosa::DType;
using tosa::Op;

View denseView(int buffer, int h, int w, int c, int elem) {
  View v;
  v.buffer = buffer;
  v.h = h;
  v.w = w;
  v.c = c;
  v.elem = elem;
  v.strideX = static_cast<std::uint32_t>(c * elem);
  v.strideY = static_cast<std::uint32_t>(c * w * elem);
  return v;
}

unsigned precisionCode(const View& v) { return v.elem == 4 ? 2u : v.elem == 2 ? 1u : 0u; }

int roundUp(int v, int m) { return (v + m - 1) / m * m; }

bool isExactPowerOfTwoScale(std::int64_t m, std::int64_t s, int target) {
  if (m <= 0 || (m & (m - 1)) != 0) return false;
  int k = 0;
  while ((std::int64_t{1} << k) != m) ++k;
  return k - s == target;
}

Lowering::Lowering(const Program& program, const AcceleratorConfig& config) : program_(program), config_(config) {}

std::string Lowering::label(std::size_t index) const {
  const tosa::Operator& o = op(index);
  return fmt::format("{} '{}' (operator {})", tosa::toString(o.op), o.outputs.empty() ? std::string() : o.outputs[0],
                     program_.nodes[index].index);
}

Result<Dims3> Lowering::dims3(const std::string& name, const std::string& what) const {
  const tosa::Tensor* t = tensor(name);
  if (!t) return invalidInput("{}: tensor '{}' is not defined", what, name);
  const tosa::Shape& s = t->shape;
  Dims3 d;
  for (std::int64_t v : s) {
    if (v < 1 || v > 65536) return unsupported("{}: tensor '{}': dimension {} is outside 1..65536", what, name, v);
  }
  switch (s.size()) {
    case 0: break;
    case 1: d.c = static_cast<int>(s[0]); break;
    case 2: d.w = static_cast<int>(s[0]); d.c = static_cast<int>(s[1]); break;
    case 3: d.h = static_cast<int>(s[0]); d.w = static_cast<int>(s[1]); d.c = static_cast<int>(s[2]); break;
    case 4:
      if (s[0] != 1) return unsupported("{}: tensor '{}': batch {} (only batch 1 runs on the NPU)", what, name, s[0]);
      d.h = static_cast<int>(s[1]);
      d.w = static_cast<int>(s[2]);
      d.c = static_cast<int>(s[3]);
      break;
    default:
      return unsupported("{}: tensor '{}': rank {} (at most 4)", what, name, s.size());
  }
  // Also keeps every byte count below (int32 accumulators are 4x) within 32 bits.
  if (static_cast<std::int64_t>(d.h) * d.w * d.c > kMaxEthosUScratchBytes) {
    return unsupported("{}: tensor '{}': {} elements: expected at most {} (the scratch arena's limit)", what, name,
                       static_cast<std::int64_t>(d.h) * d.w * d.c, kMaxEthosUScratchBytes);
  }
  return d;
}

Result<std::vector<std::int64_t>> Lowering::intValues(const std::string& name, const std::string& what) const {
  auto it = constants_.find(name);
  if (it == constants_.end()) return unsupported("{}: input '{}' must be a constant", what, name);
  const tosa::HostTensor& t = it->second;
  std::vector<std::int64_t> out;
  switch (t.dtype) {
    case DType::Int8: for (std::int8_t v : t.as<std::int8_t>()) out.push_back(v); break;
    case DType::Int16: for (std::int16_t v : t.as<std::int16_t>()) out.push_back(v); break;
    case DType::Int32: for (std::int32_t v : t.as<std::int32_t>()) out.push_back(v); break;
    case DType::Int48:
    case DType::Shape: for (std::int64_t v : t.as<std::int64_t>()) out.push_back(v); break;
    default:
      return unsupported("{}: constant '{}' has type {}, expected an integer type", what, name, tosa::toString(t.dtype));
  }
  return out;
}

Result<std::int64_t> Lowering::scalarValue(const std::string& name, const std::string& what) const {
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int64_t> v, intValues(name, what));
  if (v.size() != 1) return invalidInput("{}: constant '{}': expected one element, got {}", what, name, v.size());
  return v[0];
}

int Lowering::newBuffer(std::uint32_t size) {
  buffers.push_back(Buffer{(size + 15) / 16 * 16, INT_MAX, -1, 0});
  return static_cast<int>(buffers.size()) - 1;
}

View Lowering::allocateOutput(const std::string& name, const Dims3& d) {
  auto it = concatTargets_.find(name);
  if (it != concatTargets_.end()) return it->second;
  return denseView(newBuffer(static_cast<std::uint32_t>(d.h * d.w * d.c)), d.h, d.w, d.c);
}

std::uint32_t Lowering::appendReadOnly(std::span<const std::uint8_t> data) {
  readOnly.resize((readOnly.size() + 15) / 16 * 16, 0);
  const auto at = static_cast<std::uint32_t>(readOnly.size());
  readOnly.insert(readOnly.end(), data.begin(), data.end());
  readOnly.resize((readOnly.size() + 15) / 16 * 16, 0);
  return at;
}

Result<View> Lowering::viewOf(const std::string& name, const std::string& what) {
  auto it = views.find(name);
  if (it != views.end()) return it->second;
  if (pads_.count(name)) {
    return unsupported("{}: input '{}' comes from a PAD that can only be folded into a CONV2D, DEPTHWISE_CONV2D, MAX_POOL2D or "
                       "AVG_POOL2D",
                       what, name);
  }
  auto c = constants_.find(name);
  if (c != constants_.end()) {
    if (c->second.dtype != DType::Int8) {
      return unsupported("{}: constant feature map '{}' of type {} (only INT8)", what, name, tosa::toString(c->second.dtype));
    }
    OPENVGF_ASSIGN_OR_RETURN(Dims3 d, dims3(name, what));
    View v = denseView(-1, d.h, d.w, d.c);
    v.region = 0;
    v.offset = appendReadOnly(c->second.bytes);
    constantBytes += c->second.bytes.size();
    views[name] = v;
    return v;
  }
  return unsupported("{}: input '{}' is produced by an operation the NPU does not run", what, name);
}

std::optional<std::size_t> Lowering::singleConsumer(const std::string& name) const {
  if (graphOutputs_.count(name)) return std::nullopt;
  auto it = consumers_.find(name);
  if (it == consumers_.end() || it->second.size() != 1) return std::nullopt;
  return it->second[0];
}

const tosa::Operator* Lowering::producerBefore(std::size_t index, const std::string& name) const {
  const tosa::Operator* producer = nullptr;
  for (std::size_t i = 0; i < index; ++i) {
    if (!op(i).outputs.empty() && op(i).outputs[0] == name) producer = &op(i);
  }
  return producer;
}

void Lowering::pushOp(NpuOp&& npu, const std::string& finalName, const Dims3& od) {
  npu.ofm = allocateOutput(finalName, od);
  views[finalName] = npu.ofm;
  producerOp_[finalName] = ops.size();
  ops.push_back(std::move(npu));
}

void Lowering::copy(const View& from, const View& to, const std::string& what) {
  // A 1x1 MAX pool with unit scale moves int8 data unchanged (strided reads and writes).
  NpuOp op;
  op.kind = Kind::Pool;
  op.mode = mode::kMax;
  op.what = what;
  op.ifm = from;
  op.ofm = to;
  ops.push_back(op);
}

Result<Lowering::Rescale> Lowering::readRescale(const tosa::Operator& rescale, const std::string& what) const {
  const auto* attrs = std::get_if<tosa::RescaleAttrs>(&rescale.attrs);
  if (!attrs || rescale.inputs.size() != 5) return invalidInput("{}: expected 5 inputs and RESCALE attributes", what);
  if (attrs->inputUnsigned || attrs->outputUnsigned) {
    return unsupported("{}: unsigned RESCALE is not supported by the Ethos-U backend", what);
  }
  Rescale r;
  OPENVGF_ASSIGN_OR_RETURN(r.multiplier, intValues(rescale.inputs[1], what + ": multiplier"));
  OPENVGF_ASSIGN_OR_RETURN(r.shift, intValues(rescale.inputs[2], what + ": shift"));
  OPENVGF_ASSIGN_OR_RETURN(r.inputZp, scalarValue(rescale.inputs[3], what + ": input_zp"));
  OPENVGF_ASSIGN_OR_RETURN(r.outputZp, scalarValue(rescale.inputs[4], what + ": output_zp"));
  r.perChannel = attrs->perChannel;
  if (r.multiplier.size() != r.shift.size() || r.multiplier.empty()) {
    return invalidInput("{}: expected as many multipliers as shifts, got {} and {}", what, r.multiplier.size(), r.shift.size());
  }
  for (std::size_t i = 0; i < r.multiplier.size(); ++i) {
    if (r.multiplier[i] < 0) return unsupported("{}: negative multiplier {} cannot be encoded", what, r.multiplier[i]);
    if (r.shift[i] < 0 || r.shift[i] > 63) return unsupported("{}: shift {} is outside 0..63", what, r.shift[i]);
  }
  // DOUBLE_ROUND is the hardware's DBL mode; SINGLE_ROUND (and INEXACT_ROUND, which allows it)
  // is NATURAL; a 16-bit multiplier (scale32 = false) is apply_scale_16 = NATURAL rounding.
  r.doubleRound = attrs->scale32 && attrs->roundingMode == tosa::RoundingMode::DoubleRound;
  return r;
}

Status Lowering::fuseOutputStage(std::size_t producer, const std::string& accTensor, NpuOp& npu, int channels,
                                 std::string& finalTensor, bool allowPerChannel) {
  auto consumer = singleConsumer(accTensor);
  if (!consumer || op(*consumer).op != Op::Rescale) {
    return unsupported("{}: its int32 result must feed exactly one RESCALE to INT8 (the NPU output stage)", label(producer));
  }
  const tosa::Operator& rescale = op(*consumer);
  const tosa::Tensor* out = tensor(rescale.outputs[0]);
  if (!out || out->dtype != DType::Int8) {
    return unsupported("{}: RESCALE after {} must produce INT8", label(*consumer), label(producer));
  }
  OPENVGF_ASSIGN_OR_RETURN(Rescale r, readRescale(rescale, label(*consumer)));
  if (r.inputZp != 0) return invalidInput("{}: input_zp must be 0 for an INT32 input, got {}", label(*consumer), r.inputZp);
  npu.ofmZp = static_cast<int>(r.outputZp);
  npu.doubleRound = r.doubleRound;
  if (r.perChannel && r.multiplier.size() != 1) {
    if (!allowPerChannel) {
      return unsupported("{}: per-channel scaling after {} cannot be run (global output scale only)", label(*consumer),
                         label(producer));
    }
    if (static_cast<int>(r.multiplier.size()) != channels) {
      return invalidInput("{}: expected {} per-channel multipliers, got {}", label(*consumer), channels, r.multiplier.size());
    }
  }
  if (allowPerChannel) {
    npu.perChannel = true;
    npu.scales.resize(static_cast<std::size_t>(channels));
    npu.shifts.resize(static_cast<std::size_t>(channels));
    for (int c = 0; c < channels; ++c) {
      const std::size_t k = r.multiplier.size() == 1 ? 0 : static_cast<std::size_t>(c);
      npu.scales[static_cast<std::size_t>(c)] = static_cast<std::uint32_t>(r.multiplier[k]);
      npu.shifts[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(r.shift[k]);
    }
  } else {
    npu.globalScale = true;
    npu.ofmScale = static_cast<std::uint32_t>(r.multiplier[0]);
    npu.ofmShift = static_cast<unsigned>(r.shift[0]);
  }
  done_[*consumer] = true;
  finalTensor = rescale.outputs[0];
  fuseClamp(finalTensor, npu);
  return {};
}

void Lowering::fuseClamp(std::string& tensorName, NpuOp& npu) {
  auto consumer = singleConsumer(tensorName);
  if (!consumer) return;
  const tosa::Operator& clamp = op(*consumer);
  if (clamp.op != Op::Clamp) return;
  const auto* attrs = std::get_if<tosa::ClampAttrs>(&clamp.attrs);
  const tosa::Tensor* out = tensor(clamp.outputs[0]);
  if (!attrs || attrs->minVal.size() != 1 || attrs->maxVal.size() != 1 || !out || out->dtype != DType::Int8) return;
  // Clamping twice is clamping to the intersection.
  npu.actMin = std::max(npu.actMin, static_cast<int>(static_cast<std::int8_t>(attrs->minVal[0])));
  npu.actMax = std::min(npu.actMax, static_cast<int>(static_cast<std::int8_t>(attrs->maxVal[0])));
  done_[*consumer] = true;
  tensorName = clamp.outputs[0];
}

Status Lowering::run() {
  for (const auto& [name, t] : program_.tensors) {
    if (t.data) constants_[name] = tosa::constantValue(t);
  }
  for (std::size_t i = 0; i < operatorCount(); ++i) {
    for (const std::string& in : op(i).inputs) consumers_[in].push_back(i);
  }
  graphOutputs_.insert(program_.outputs.begin(), program_.outputs.end());
  done_.assign(operatorCount(), false);
  for (const std::string& name : program_.inputs) {
    const tosa::Tensor* t = tensor(name);
    if (!t) return invalidInput("graph input '{}' is not defined", name);
    if (t->dtype != DType::Int8) {
      return unsupported("graph input '{}' has type {}; the Ethos-U backend takes INT8 inputs", name, tosa::toString(t->dtype));
    }
    OPENVGF_ASSIGN_OR_RETURN(Dims3 d, dims3(name, "graph input"));
    views[name] = denseView(newBuffer(static_cast<std::uint32_t>(d.h * d.w * d.c)), d.h, d.w, d.c);
    inputNames.push_back(name);
  }
  OPENVGF_TRY(planConcat());
  for (std::size_t i = 0; i < operatorCount(); ++i) {
    if (done_[i]) continue;
    const LowerFunction lower = findLowering(op(i).op);
    if (!lower) {
      return unsupported("{}: operator {} is not supported by the Ethos-U backend", label(i), tosa::toString(op(i).op));
    }
    OPENVGF_TRY((this->*lower)(i));
    done_[i] = true;
  }
  OPENVGF_TRY(placeOutputs());
  if (ops.empty()) return unsupported("the graph has no operation for the NPU to run");
  return {};
}

Status Lowering::placeOutputs() {
  // Graph outputs need dense storage of their own in the scratch arena.
  std::set<int> inputBuffers;
  for (const std::string& name : inputNames) inputBuffers.insert(views[name].buffer);
  std::set<int> usedOutputBuffers;
  for (const std::string& name : program_.outputs) {
    const tosa::Tensor* t = tensor(name);
    if (!t || t->dtype != DType::Int8) return unsupported("graph output '{}' must be INT8", name);
    OPENVGF_ASSIGN_OR_RETURN(View v, viewOf(name, "graph output"));
    if (v.region != 1 || !v.dense() || inputBuffers.count(v.buffer) || usedOutputBuffers.count(v.buffer)) {
      OPENVGF_ASSIGN_OR_RETURN(Dims3 d, dims3(name, "graph output"));
      View dst = denseView(newBuffer(static_cast<std::uint32_t>(d.h * d.w * d.c)), d.h, d.w, d.c);
      copy(v, dst, fmt::format("output copy '{}'", name));
      v = dst;
    }
    usedOutputBuffers.insert(v.buffer);
    outputNames.push_back(name);
    outputViews.push_back(v);
  }
  return {};
}

}  // namespace openvgf::converter::ethosu
