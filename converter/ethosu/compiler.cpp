// SPDX-License-Identifier: Apache-2.0
// Lowering of TOSA int8 graphs to Ethos-U NPU operations: pattern matching (RESCALE/CLAMP
// fusion), views for data movement, arena planning, block configuration, register emission.
#include "converter/ethosu/compiler.h"

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <optional>
#include <set>

#include "common/limits.h"
#include "converter/ethosu/encoding.h"
#include "converter/ethosu/registers.h"
#include "tosa/verifier.h"

namespace openvgf::converter::ethosu {
namespace {

using tosa::DType;
using tosa::Op;

/// Where a feature map lives: a buffer of the scratch arena (region 1) or read-only data
/// (region 0), with NHWC strides that may be larger than dense (slices, concatenation).
struct View {
  int region = 1;
  int buffer = -1;           // region 1: index into buffers; region 0: -1
  std::uint32_t offset = 0;  // within the buffer (region 1) or the read-only blob (region 0)
  int h = 1, w = 1, c = 1;
  std::uint32_t strideY = 0, strideX = 0;  // bytes
  int elem = 1;                            // bytes per element: 1 (int8) or 4 (int32 scratch)

  bool dense() const {
    return strideX == static_cast<std::uint32_t>(c * elem) && strideY == static_cast<std::uint32_t>(c * w * elem);
  }
};

View denseView(int buffer, int h, int w, int c, int elem = 1) {
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

/// The hardware precision field for an element size: 0 = 8-bit, 2 = 32-bit.
unsigned precisionBits(const View& v) { return v.elem == 4 ? 2u : 0u; }

struct Buffer {
  std::uint32_t size = 0;
  int first = INT_MAX;
  int last = -1;
  std::uint32_t address = 0;
};

enum class Kind { Conv, Depthwise, Pool, Elementwise };

struct NpuOp {
  Kind kind = Kind::Pool;
  unsigned mode = 0;  // pool: 0 MAX, 1 AVERAGE; elementwise: 0 MUL, 1 ADD, 2 SUB
  std::string what;
  View ifm, ifm2, ofm;
  bool hasIfm2 = false;
  int ifmZp = 0, ifm2Zp = 0, ofmZp = 0;
  int kh = 1, kw = 1, sy = 1, sx = 1, dy = 1, dx = 1;
  int padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  // Convolution weights and per-channel output stage.
  WeightVolume weights;
  std::vector<std::int64_t> bias;
  std::vector<std::uint32_t> scales;
  std::vector<std::uint8_t> shifts;
  bool perChannel = false;
  bool globalScale = false;
  std::uint32_t ofmScale = 1;
  unsigned ofmShift = 0;
  unsigned roundMode = 0;
  // Elementwise operand scaling.
  unsigned ifmScaleMode = 0;
  std::uint32_t opaScale = 0;
  unsigned opaShift = 0;
  std::uint32_t opbScale = 0;  // OPA_OPB_16 mode only
  bool ifm2Scalar = false;     // IFM2 is the IFM2_SCALAR register (broadcast bit 7)
  int ifm2ScalarValue = 0;
  unsigned ifmRound = 0;
  bool swapOperands = false;
  unsigned broadcast = 0;
  int actMin = -128, actMax = 127;
  int lutSlot = -1;
  std::uint32_t lutOffset = 0;
  // Filled by encoding: one weight and one scale stream per core (index = core).
  std::array<std::uint32_t, 2> weightOffset{}, weightLength{}, scaleOffset{}, scaleLength{};
  int blkW = 1, blkH = 1, blkD = 8;
  int ibEnd = 0, abStart = 0, ifm2IbStart = 0;
  std::uint64_t macs = 0;
};

struct Dims3 {
  int h = 1, w = 1, c = 1;
};

std::string opLabel(const tosa::Operator& op) {
  return fmt::format("{} '{}'", tosa::toString(op.op), op.outputs.empty() ? std::string() : op.outputs[0]);
}

int roundUp(int v, int m) { return (v + m - 1) / m * m; }

class Lowering {
 public:
  Lowering(const tosa::Block& block, const AcceleratorConfig& config) : block_(block), config_(config) {}

  Status run();
  /// Extends the lifetime of the buffer behind `v` to include operation `opIndex`.
  void use(const View& v, int opIndex);

  std::vector<NpuOp> ops;
  std::vector<Buffer> buffers;
  std::vector<std::uint8_t> readOnly;  // region 0
  std::map<std::string, View> views;
  std::vector<std::string> inputNames, outputNames;
  std::vector<View> outputViews;
  std::size_t weightBytes = 0, scaleBytes = 0, constantBytes = 0;

 private:
  const tosa::Tensor* tensor(const std::string& name) const { return block_.findTensor(name); }
  bool isConst(const std::string& name) const { return constants_.count(name) != 0; }

  Result<Dims3> dims3(const std::string& name, const std::string& what) const;
  Result<std::vector<std::int64_t>> intValues(const std::string& name, const std::string& what) const;
  Result<std::int64_t> scalarValue(const std::string& name, const std::string& what) const;
  Result<View> viewOf(const std::string& name, const std::string& what);
  int newBuffer(std::uint32_t size);
  View allocateOutput(const std::string& name, const Dims3& d);
  std::optional<std::size_t> singleConsumer(const std::string& name) const;
  std::uint32_t appendReadOnly(std::span<const std::uint8_t> data);

  struct Rescale {
    std::vector<std::int64_t> multiplier;
    std::vector<std::int64_t> shift;
    unsigned round = 0;  // hardware round mode
    std::int64_t inputZp = 0, outputZp = 0;
    bool perChannel = false;
  };
  Result<Rescale> readRescale(const tosa::Operator& op) const;
  Status fuseOutputStage(std::size_t producer, const std::string& accTensor, NpuOp& npu, int channels,
                         std::string& finalTensor, bool allowPerChannel);
  void fuseClamp(std::string& tensorName, NpuOp& npu);
  Status lowerConv(std::size_t index);
  Status lowerMatMul(std::size_t index);
  Status lowerPool(std::size_t index);
  static void setAveragePoolScale(NpuOp& npu, int count);
  struct CountedPadding {
    int top = 0, bottom = 0, left = 0, right = 0;
  };
  Status lowerPaddedAveragePool(NpuOp&& npu, const CountedPadding& counted, const std::string& finalName, const Dims3& od);
  Status lowerAddSub(std::size_t index);
  Status lowerMul(std::size_t index);
  Status lowerRescale(std::size_t index);
  Status lowerClampOrTable(std::size_t index);
  Status lowerViewOp(std::size_t index);
  Status planConcat();
  void copy(const View& from, const View& to, const std::string& what);
  /// Places the op's output (the last tensor of its fused chain) and appends the op.
  void pushOp(NpuOp&& npu, const std::string& finalName, const Dims3& od);

  const tosa::Block& block_;
  const AcceleratorConfig& config_;
  std::map<std::string, tosa::HostTensor> constants_;
  std::map<std::string, std::vector<std::size_t>> consumers_;
  std::set<std::string> graphOutputs_;
  std::vector<bool> done_;
  struct PendingPad {
    std::string input;
    int top = 0, bottom = 0, left = 0, right = 0;
    std::int64_t value = 0;
  };
  std::map<std::string, PendingPad> pads_;
  std::map<std::string, View> concatTargets_;
  std::map<std::string, std::size_t> producerOp_;  // tensor -> index in ops of the op that writes it
};

Result<Dims3> Lowering::dims3(const std::string& name, const std::string& what) const {
  const tosa::Tensor* t = tensor(name);
  if (!t) return invalidInput("{}: tensor '{}' is not defined", what, name);
  const tosa::Shape& s = t->shape;
  Dims3 d;
  auto fits = [](std::int64_t v) { return v >= 1 && v <= 65536; };
  for (std::int64_t v : s) {
    if (!fits(v)) return unsupported("{}: tensor '{}': dimension {} is outside 1..65536", what, name, v);
  }
  switch (s.size()) {
    case 0: break;
    case 1: d.c = static_cast<int>(s[0]); break;
    case 2: d.w = static_cast<int>(s[0]); d.c = static_cast<int>(s[1]); break;
    case 3: d.h = static_cast<int>(s[0]); d.w = static_cast<int>(s[1]); d.c = static_cast<int>(s[2]); break;
    case 4:
      if (s[0] != 1) return unsupported("{}: tensor '{}': batch {} (only batch 1 runs on the NPU)", what, name, s[0]);
      d.h = static_cast<int>(s[1]); d.w = static_cast<int>(s[2]); d.c = static_cast<int>(s[3]);
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
    case DType::Shape: for (std::int64_t v : t.as<std::int64_t>()) out.push_back(v); break;
    default: return unsupported("{}: constant '{}' has type {}, expected an integer type", what, name, tosa::toString(t.dtype));
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
  return internalError("{}: input '{}' has no producer that was lowered", what, name);
}

std::optional<std::size_t> Lowering::singleConsumer(const std::string& name) const {
  if (graphOutputs_.count(name)) return std::nullopt;
  auto it = consumers_.find(name);
  if (it == consumers_.end() || it->second.size() != 1) return std::nullopt;
  return it->second[0];
}

void Lowering::use(const View& v, int opIndex) {
  if (v.region != 1 || v.buffer < 0) return;
  Buffer& b = buffers[static_cast<std::size_t>(v.buffer)];
  b.first = std::min(b.first, opIndex);
  b.last = std::max(b.last, opIndex);
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
  op.mode = 0;
  op.what = what;
  op.ifm = from;
  op.ofm = to;
  ops.push_back(op);
}

Result<Lowering::Rescale> Lowering::readRescale(const tosa::Operator& op) const {
  const std::string what = opLabel(op);
  const auto* attrs = std::get_if<tosa::RescaleAttrs>(&op.attrs);
  if (!attrs || op.inputs.size() != 5) return invalidInput("{}: expected 5 inputs and RESCALE attributes", what);
  if (attrs->inputUnsigned || attrs->outputUnsigned) {
    return unsupported("{}: unsigned RESCALE is not supported by the Ethos-U backend", what);
  }
  Rescale r;
  OPENVGF_ASSIGN_OR_RETURN(r.multiplier, intValues(op.inputs[1], what + ": multiplier"));
  OPENVGF_ASSIGN_OR_RETURN(r.shift, intValues(op.inputs[2], what + ": shift"));
  OPENVGF_ASSIGN_OR_RETURN(r.inputZp, scalarValue(op.inputs[3], what + ": input_zp"));
  OPENVGF_ASSIGN_OR_RETURN(r.outputZp, scalarValue(op.inputs[4], what + ": output_zp"));
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
  r.round = (attrs->scale32 && attrs->roundingMode == tosa::RoundingMode::DoubleRound) ? 0 : 2;
  return r;
}

Status Lowering::fuseOutputStage(std::size_t producer, const std::string& accTensor, NpuOp& npu, int channels,
                                 std::string& finalTensor, bool allowPerChannel) {
  const tosa::Operator& prod = block_.operators[producer];
  auto consumer = singleConsumer(accTensor);
  const tosa::Operator* rescale = consumer ? &block_.operators[*consumer] : nullptr;
  if (!rescale || rescale->op != Op::Rescale) {
    return unsupported("{}: its int32 result must feed exactly one RESCALE to INT8 (the NPU output stage)", opLabel(prod));
  }
  const tosa::Tensor* out = tensor(rescale->outputs[0]);
  if (!out || out->dtype != DType::Int8) {
    return unsupported("{}: RESCALE after {} must produce INT8", opLabel(*rescale), opLabel(prod));
  }
  OPENVGF_ASSIGN_OR_RETURN(Rescale r, readRescale(*rescale));
  if (r.inputZp != 0) return invalidInput("{}: input_zp must be 0 for an INT32 input, got {}", opLabel(*rescale), r.inputZp);
  npu.ofmZp = static_cast<int>(r.outputZp);
  npu.roundMode = r.round;
  if (r.perChannel && r.multiplier.size() != 1) {
    if (!allowPerChannel) {
      return unsupported("{}: per-channel scaling after {} cannot be run (global output scale only)", opLabel(*rescale), opLabel(prod));
    }
    if (static_cast<int>(r.multiplier.size()) != channels) {
      return invalidInput("{}: expected {} per-channel multipliers, got {}", opLabel(*rescale), channels, r.multiplier.size());
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
  finalTensor = rescale->outputs[0];
  fuseClamp(finalTensor, npu);
  return {};
}

void Lowering::fuseClamp(std::string& tensorName, NpuOp& npu) {
  auto consumer = singleConsumer(tensorName);
  if (!consumer) return;
  const tosa::Operator& op = block_.operators[*consumer];
  if (op.op != Op::Clamp) return;
  const auto* attrs = std::get_if<tosa::ClampAttrs>(&op.attrs);
  const tosa::Tensor* out = tensor(op.outputs[0]);
  if (!attrs || attrs->minVal.size() != 1 || attrs->maxVal.size() != 1 || !out || out->dtype != DType::Int8) return;
  const int lo = static_cast<std::int8_t>(attrs->minVal[0]);
  const int hi = static_cast<std::int8_t>(attrs->maxVal[0]);
  // Clamping twice is clamping to the intersection.
  npu.actMin = std::max(npu.actMin, lo);
  npu.actMax = std::min(npu.actMax, hi);
  done_[*consumer] = true;
  tensorName = op.outputs[0];
}

Status Lowering::lowerConv(std::size_t index) {
  const tosa::Operator& op = block_.operators[index];
  const std::string what = opLabel(op);
  const bool depthwise = op.op == Op::DepthwiseConv2d;
  const auto* attrs = std::get_if<tosa::ConvAttrs>(&op.attrs);
  if (!attrs || op.inputs.size() != 5 || op.outputs.size() != 1 || attrs->pad.size() != 4 || attrs->stride.size() != 2 ||
      attrs->dilation.size() != 2) {
    return invalidInput("{}: expected 5 inputs, 1 output and 2-D pad/stride/dilation", what);
  }
  const tosa::Tensor* in = tensor(op.inputs[0]);
  const tosa::Tensor* wt = tensor(op.inputs[1]);
  const tosa::Tensor* out = tensor(op.outputs[0]);
  if (!in || !wt || !out) return invalidInput("{}: undefined tensor", what);
  if (in->dtype != DType::Int8 || wt->dtype != DType::Int8 || out->dtype != DType::Int32) {
    return unsupported("{}: only INT8 x INT8 -> INT32 runs on the NPU, got {} x {} -> {}", what, tosa::toString(in->dtype),
                       tosa::toString(wt->dtype), tosa::toString(out->dtype));
  }
  NpuOp npu;
  npu.kind = depthwise ? Kind::Depthwise : Kind::Conv;
  npu.what = what;
  npu.sy = attrs->stride[0];
  npu.sx = attrs->stride[1];
  npu.dy = attrs->dilation[0];
  npu.dx = attrs->dilation[1];
  npu.padTop = attrs->pad[0];
  npu.padBottom = attrs->pad[1];
  npu.padLeft = attrs->pad[2];
  npu.padRight = attrs->pad[3];
  std::string inputName = op.inputs[0];
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t inputZp, scalarValue(op.inputs[3], what + ": input_zp"));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t weightZp, scalarValue(op.inputs[4], what + ": weight_zp"));
  if (auto p = pads_.find(inputName); p != pads_.end()) {
    if (p->second.value != inputZp) {
      return unsupported("{}: the PAD before it pads with {}, but only the input zero point {} can be folded", what,
                         p->second.value, inputZp);
    }
    npu.padTop += p->second.top;
    npu.padBottom += p->second.bottom;
    npu.padLeft += p->second.left;
    npu.padRight += p->second.right;
    inputName = p->second.input;
  }
  if (npu.sy < 1 || npu.sy > 3 || npu.sx < 1 || npu.sx > 3) return unsupported("{}: stride {}x{} (NPU: 1..3)", what, npu.sy, npu.sx);
  if (npu.dy < 1 || npu.dy > 2 || npu.dx < 1 || npu.dx > 2) {
    return unsupported("{}: dilation {}x{} (NPU: 1 or 2)", what, npu.dy, npu.dx);
  }
  if (npu.padTop > 127 || npu.padLeft > 127 || npu.padBottom > 128 || npu.padRight > 128 || npu.padTop < 0 ||
      npu.padLeft < 0 || npu.padBottom < 0 || npu.padRight < 0) {
    return unsupported("{}: padding {}/{}/{}/{} (NPU: top/left 0..127, bottom/right 0..128)", what, npu.padTop, npu.padBottom,
                       npu.padLeft, npu.padRight);
  }
  npu.ifmZp = static_cast<int>(inputZp);
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(inputName, what));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int64_t> w, intValues(op.inputs[1], what + ": weight"));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int64_t> bias, intValues(op.inputs[2], what + ": bias"));
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(op.outputs[0], what));
  const tosa::Shape& ws = wt->shape;
  if (ws.size() != 4) return invalidInput("{}: weight must have rank 4", what);
  WeightVolume& vol = npu.weights;
  if (depthwise) {
    // TOSA depthwise weights are [KH, KW, C, M]; the NPU wants O = C, I = 1.
    if (ws[3] != 1) return unsupported("{}: depth multiplier {} (only 1 runs on the NPU)", what, ws[3]);
    vol.ofmDepth = static_cast<int>(ws[2]);
    vol.kernelHeight = static_cast<int>(ws[0]);
    vol.kernelWidth = static_cast<int>(ws[1]);
    vol.ifmDepth = 1;
    vol.values.resize(w.size());
    for (int ky = 0; ky < vol.kernelHeight; ++ky)
      for (int kx = 0; kx < vol.kernelWidth; ++kx)
        for (int c = 0; c < vol.ofmDepth; ++c)
          vol.values[static_cast<std::size_t>((c * vol.kernelHeight + ky) * vol.kernelWidth + kx)] = static_cast<std::int16_t>(
              w[static_cast<std::size_t>((ky * vol.kernelWidth + kx) * vol.ofmDepth + c)] - weightZp);
    vol.traversal = Traversal::Depthwise;
    if (npu.ifm.c != vol.ofmDepth) return invalidInput("{}: input channels {} != weight channels {}", what, npu.ifm.c, vol.ofmDepth);
  } else {
    vol.ofmDepth = static_cast<int>(ws[0]);
    vol.kernelHeight = static_cast<int>(ws[1]);
    vol.kernelWidth = static_cast<int>(ws[2]);
    vol.ifmDepth = static_cast<int>(ws[3]);
    vol.values.resize(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) vol.values[i] = static_cast<std::int16_t>(w[i] - weightZp);
    vol.traversal = vol.ifmDepth <= 8 ? Traversal::PartKernelFirst : Traversal::DepthFirst;
    if (npu.ifm.c != vol.ifmDepth) return invalidInput("{}: input channels {} != weight input channels {}", what, npu.ifm.c, vol.ifmDepth);
  }
  if (od.c != vol.ofmDepth) return invalidInput("{}: output channels {} != weight output channels {}", what, od.c, vol.ofmDepth);
  vol.dilationY = npu.dy;
  vol.dilationX = npu.dx;
  npu.kh = vol.kernelHeight;
  npu.kw = vol.kernelWidth;
  npu.bias.resize(static_cast<std::size_t>(od.c));
  if (bias.size() != 1 && bias.size() != static_cast<std::size_t>(od.c)) {
    return invalidInput("{}: bias: expected 1 or {} values, got {}", what, od.c, bias.size());
  }
  for (int c = 0; c < od.c; ++c) npu.bias[static_cast<std::size_t>(c)] = bias[bias.size() == 1 ? 0 : static_cast<std::size_t>(c)];
  // The hardware extent equation (specs/ethosu.md §2.2) equals TOSA's output size rule.
  const int khExt = (npu.kh - 1) * npu.dy + 1, kwExt = (npu.kw - 1) * npu.dx + 1;
  if ((od.h - 1) * npu.sy + khExt - npu.padTop - npu.padBottom != npu.ifm.h ||
      (od.w - 1) * npu.sx + kwExt - npu.padLeft - npu.padRight != npu.ifm.w) {
    return invalidInput("{}: output {}x{} does not match input {}x{}, kernel, stride and padding", what, od.h, od.w, npu.ifm.h,
                        npu.ifm.w);
  }
  std::string finalName;
  OPENVGF_TRY(fuseOutputStage(index, op.outputs[0], npu, od.c, finalName, true));
  npu.macs = static_cast<std::uint64_t>(od.h) * od.w * od.c * npu.kh * npu.kw * (depthwise ? 1 : vol.ifmDepth);
  pushOp(std::move(npu), finalName, od);
  return {};
}

Status Lowering::lowerMatMul(std::size_t index) {
  const tosa::Operator& op = block_.operators[index];
  const std::string what = opLabel(op);
  if (op.inputs.size() != 4 || op.outputs.size() != 1) return invalidInput("{}: expected 4 inputs and 1 output", what);
  const tosa::Tensor* a = tensor(op.inputs[0]);
  const tosa::Tensor* b = tensor(op.inputs[1]);
  const tosa::Tensor* out = tensor(op.outputs[0]);
  if (!a || !b || !out) return invalidInput("{}: undefined tensor", what);
  if (!isConst(op.inputs[1])) {
    return unsupported("{}: B must be a constant (activation x activation MATMUL is not lowered)", what);
  }
  if (a->dtype != DType::Int8 || b->dtype != DType::Int8 || out->dtype != DType::Int32) {
    return unsupported("{}: only INT8 x INT8 -> INT32 runs on the NPU", what);
  }
  if (a->shape.size() != 3 || b->shape.size() != 3 || a->shape[0] != 1 || b->shape[0] != 1) {
    return unsupported("{}: only batch 1 [1,H,C] x [1,C,W] is lowered", what);
  }
  const int rows = static_cast<int>(a->shape[1]), depth = static_cast<int>(a->shape[2]), cols = static_cast<int>(b->shape[2]);
  if (b->shape[1] != depth) return invalidInput("{}: A has {} columns but B has {} rows", what, depth, b->shape[1]);
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t aZp, scalarValue(op.inputs[2], what + ": A_zp"));
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t bZp, scalarValue(op.inputs[3], what + ": B_zp"));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int64_t> bv, intValues(op.inputs[1], what + ": B"));
  NpuOp npu;
  npu.kind = Kind::Conv;
  npu.what = what;
  npu.ifmZp = static_cast<int>(aZp);
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(op.inputs[0], what));
  // A 1x1 convolution over a 1 x rows x depth IFM: weights O = cols, I = depth.
  WeightVolume& vol = npu.weights;
  vol.ofmDepth = cols;
  vol.kernelHeight = vol.kernelWidth = 1;
  vol.ifmDepth = depth;
  vol.values.resize(static_cast<std::size_t>(cols) * static_cast<std::size_t>(depth));
  for (int o = 0; o < cols; ++o)
    for (int i = 0; i < depth; ++i)
      vol.values[static_cast<std::size_t>(o * depth + i)] =
          static_cast<std::int16_t>(bv[static_cast<std::size_t>(i * cols + o)] - bZp);
  vol.traversal = depth <= 8 ? Traversal::PartKernelFirst : Traversal::DepthFirst;
  npu.bias.assign(static_cast<std::size_t>(cols), 0);
  std::string finalName;
  OPENVGF_TRY(fuseOutputStage(index, op.outputs[0], npu, cols, finalName, true));
  Dims3 od{1, rows, cols};
  npu.macs = static_cast<std::uint64_t>(rows) * cols * depth;
  pushOp(std::move(npu), finalName, od);
  return {};
}

Status Lowering::lowerPool(std::size_t index) {
  const tosa::Operator& op = block_.operators[index];
  const std::string what = opLabel(op);
  NpuOp npu;
  npu.kind = Kind::Pool;
  npu.what = what;
  std::vector<std::int32_t> kernel, stride, pad;
  if (op.op == Op::MaxPool2d) {
    const auto* attrs = std::get_if<tosa::MaxPool2dAttrs>(&op.attrs);
    if (!attrs || op.inputs.size() != 1) return invalidInput("{}: expected 1 input and MAX_POOL2D attributes", what);
    kernel = attrs->kernel;
    stride = attrs->stride;
    pad = attrs->pad;
    npu.mode = 0;
  } else {
    const auto* attrs = std::get_if<tosa::AvgPool2dAttrs>(&op.attrs);
    if (!attrs || op.inputs.size() != 3) return invalidInput("{}: expected 3 inputs and AVG_POOL2D attributes", what);
    kernel = attrs->kernel;
    stride = attrs->stride;
    pad = attrs->pad;
    npu.mode = 1;
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t izp, scalarValue(op.inputs[1], what + ": input_zp"));
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t ozp, scalarValue(op.inputs[2], what + ": output_zp"));
    npu.ifmZp = static_cast<int>(izp);
    npu.ofmZp = static_cast<int>(ozp);
  }
  if (kernel.size() != 2 || stride.size() != 2 || pad.size() != 4) return invalidInput("{}: expected 2-D kernel/stride/pad", what);
  const tosa::Tensor* in = tensor(op.inputs[0]);
  const tosa::Tensor* out = tensor(op.outputs[0]);
  if (!in || !out || in->dtype != DType::Int8 || out->dtype != DType::Int8) return unsupported("{}: only INT8 runs on the NPU", what);
  npu.kh = kernel[0];
  npu.kw = kernel[1];
  npu.sy = stride[0];
  npu.sx = stride[1];
  npu.padTop = pad[0];
  npu.padBottom = pad[1];
  npu.padLeft = pad[2];
  npu.padRight = pad[3];
  std::string inputName = op.inputs[0];
  if (auto p = pads_.find(inputName); p != pads_.end() && npu.mode == 0) {
    // Hardware padding never wins a max, exactly like padding with the type minimum.
    if (p->second.value != -128) {
      return unsupported("{}: the PAD before it pads with {}; only -128 can be folded into a max pool", what, p->second.value);
    }
    npu.padTop += p->second.top;
    npu.padBottom += p->second.bottom;
    npu.padLeft += p->second.left;
    npu.padRight += p->second.right;
    inputName = p->second.input;
  }
  // A PAD with the input zero point before an average pool adds elements that count in the
  // divisor but contribute 0 to the sum.
  CountedPadding counted;
  if (auto p = pads_.find(inputName); p != pads_.end() && npu.mode == 1) {
    if (p->second.value != npu.ifmZp) {
      return unsupported("{}: the PAD before it pads with {}; only the input zero point {} can be folded into an average pool",
                         what, p->second.value, npu.ifmZp);
    }
    counted = CountedPadding{p->second.top, p->second.bottom, p->second.left, p->second.right};
    inputName = p->second.input;
  }
  if (npu.sy < 1 || npu.sy > 3 || npu.sx < 1 || npu.sx > 3) return unsupported("{}: stride {}x{} (NPU: 1..3)", what, npu.sy, npu.sx);
  if (npu.mode == 0 && (npu.padTop > 127 || npu.padLeft > 127 || npu.padBottom > 128 || npu.padRight > 128)) {
    return unsupported("{}: padding beyond the NPU limits", what);
  }
  if (npu.mode == 1) setAveragePoolScale(npu, npu.kh * npu.kw);
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(inputName, what));
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(op.outputs[0], what));
  if ((od.h - 1) * npu.sy + npu.kh - npu.padTop - npu.padBottom != npu.ifm.h + counted.top + counted.bottom ||
      (od.w - 1) * npu.sx + npu.kw - npu.padLeft - npu.padRight != npu.ifm.w + counted.left + counted.right ||
      od.c != npu.ifm.c) {
    return invalidInput("{}: output shape does not match input, kernel, stride and padding", what);
  }
  std::string finalName = op.outputs[0];
  fuseClamp(finalName, npu);
  if (npu.mode == 1 && (npu.padTop || npu.padBottom || npu.padLeft || npu.padRight || counted.top || counted.bottom ||
                        counted.left || counted.right)) {
    return lowerPaddedAveragePool(std::move(npu), counted, finalName, od);
  }
  pushOp(std::move(npu), finalName, od);
  return {};
}

namespace {

/// One run of output rows (or columns) whose pooling windows, clipped to the input, have the
/// same offset, size and divisor: they form one unpadded pool.
struct WindowRun {
  int first = 0, count = 0;  // output rows
  int inputStart = 0;        // input row of the first window
  int kernel = 0;            // window clipped to the input data
  int divisor = 0;           // window clipped to the input and the counted (PAD) padding
};

/// Rows (or columns) of a virtual input made of `countedBefore` counted padding rows, `inputs`
/// data rows and `countedAfter` counted rows, pooled with a kernel whose window starts at
/// y * stride - padBefore (pool padding, not counted).
std::vector<WindowRun> windowRuns(int outputs, int inputs, int kernel, int stride, int padBefore, int countedBefore,
                                  int countedAfter) {
  std::vector<WindowRun> runs;
  std::array<int, 4> last{-1, -1, -1, -1};
  const int virtualExtent = countedBefore + inputs + countedAfter;
  for (int y = 0; y < outputs; ++y) {
    const int origin = y * stride - padBefore;
    const int countA = std::max(0, origin), countB = std::min(virtualExtent, origin + kernel);
    const int dataA = std::max(countedBefore, origin), dataB = std::min(countedBefore + inputs, origin + kernel);
    const std::array<int, 4> key{countA - origin, countB - origin, dataA - origin, dataB - origin};
    if (!runs.empty() && key == last) {
      ++runs.back().count;
    } else {
      runs.push_back(WindowRun{y, 1, dataA - countedBefore, dataB - dataA, countB - countA});
    }
    last = key;
  }
  return runs;
}

}  // namespace

void Lowering::setAveragePoolScale(NpuOp& npu, int count) {
  // TOSA reciprocal_scale(count) with single rounding (specs/ethosu.md §4.3).
  unsigned k = 0;
  while (k < 32 && (std::uint64_t{1} << k) < static_cast<std::uint64_t>(count)) ++k;
  npu.globalScale = true;
  npu.ofmScale = static_cast<std::uint32_t>((((std::uint64_t{1} << 30) + 1) << k) / static_cast<std::uint64_t>(count));
  npu.ofmShift = 30 + k;
  npu.roundMode = 2;
}

Status Lowering::lowerPaddedAveragePool(NpuOp&& npu, const CountedPadding& counted, const std::string& finalName,
                                        const Dims3& od) {
  // TOSA divides each window sum by its count of in-bounds elements (a folded PAD's elements
  // count too and add 0). How the NPU's own padded average treats the divisor and rounding is
  // not specified, so the output is split into rectangles whose windows, clipped to the
  // input, have one size and one divisor; each runs as an unpadded average pool over the
  // clipped window with that divisor's reciprocal scale, which is the unpadded case that
  // matches TOSA exactly.
  const std::vector<WindowRun> rows = windowRuns(od.h, npu.ifm.h, npu.kh, npu.sy, npu.padTop, counted.top, counted.bottom);
  const std::vector<WindowRun> cols = windowRuns(od.w, npu.ifm.w, npu.kw, npu.sx, npu.padLeft, counted.left, counted.right);
  for (const WindowRun& r : rows) {
    if (r.kernel < 1) return unsupported("{}: output row {} has a pooling window of padding only", npu.what, r.first);
  }
  for (const WindowRun& c : cols) {
    if (c.kernel < 1) return unsupported("{}: output column {} has a pooling window of padding only", npu.what, c.first);
  }
  const View input = npu.ifm;
  const View output = allocateOutput(finalName, od);
  for (const WindowRun& r : rows) {
    for (const WindowRun& c : cols) {
      NpuOp part = npu;
      part.what = fmt::format("{} (rows {}..{}, columns {}..{})", npu.what, r.first, r.first + r.count - 1, c.first,
                              c.first + c.count - 1);
      part.padTop = part.padBottom = part.padLeft = part.padRight = 0;
      part.kh = r.kernel;
      part.kw = c.kernel;
      setAveragePoolScale(part, r.divisor * c.divisor);
      part.ifm = input;
      part.ifm.offset = input.offset + static_cast<std::uint32_t>(r.inputStart) * input.strideY +
                        static_cast<std::uint32_t>(c.inputStart) * input.strideX;
      part.ifm.h = (r.count - 1) * npu.sy + r.kernel;
      part.ifm.w = (c.count - 1) * npu.sx + c.kernel;
      part.ofm = output;
      part.ofm.offset = output.offset + static_cast<std::uint32_t>(r.first) * output.strideY +
                        static_cast<std::uint32_t>(c.first) * output.strideX;
      part.ofm.h = r.count;
      part.ofm.w = c.count;
      ops.push_back(std::move(part));
    }
  }
  // Several operations write the output, so a following TABLE runs as its own operation.
  views[finalName] = output;
  return {};
}

namespace {

/// m·2^-s == 2^target exactly, so that apply_scale_32 is an exact shift.
bool isExactPowerOfTwoScale(std::int64_t m, std::int64_t s, int target) {
  if (m <= 0 || (m & (m - 1)) != 0) return false;
  int k = 0;
  while ((std::int64_t{1} << k) != m) ++k;
  return k - s == target;
}

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
  const tosa::Operator& op = block_.operators[index];
  const std::string what = opLabel(op);
  if (op.inputs.size() != 2 || op.outputs.size() != 1) return invalidInput("{}: expected 2 inputs", what);
  const tosa::Tensor* out = tensor(op.outputs[0]);
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
    const std::string& name = op.inputs[static_cast<std::size_t>(k)];
    const tosa::Operator* prod = nullptr;
    for (std::size_t i = 0; i < index; ++i) {
      if (!block_.operators[i].outputs.empty() && block_.operators[i].outputs[0] == name) prod = &block_.operators[i];
    }
    const tosa::Tensor* source = prod && !prod->inputs.empty() ? tensor(prod->inputs[0]) : nullptr;
    if (!prod || prod->op != Op::Rescale || !singleConsumer(name) || !source || source->dtype != DType::Int8) {
      return unsupported("{}: input '{}' must come from a RESCALE INT8 -> INT32 used only by it", what, name);
    }
    OPENVGF_ASSIGN_OR_RETURN(in[k].r, readRescale(*prod));
    if (in[k].r.multiplier.size() != 1) return unsupported("{}: per-channel input RESCALE '{}'", what, name);
    if (in[k].r.outputZp != 0) return invalidInput("{}: RESCALE '{}' to INT32 must have output_zp 0", what, name);
    in[k].source = prod->inputs[0];
    OPENVGF_ASSIGN_OR_RETURN(in[k].d, dims3(name, what));
  }
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(op.outputs[0], what));
  auto full = [&](const Dims3& d) { return d.h == od.h && d.w == od.w && d.c == od.c; };
  // IFM must be full size; IFM2 may broadcast.
  int ifmIdx = full(in[0].d) ? 0 : 1;
  if (!full(in[ifmIdx].d)) return unsupported("{}: both inputs broadcast", what);
  const int ifm2Idx = 1 - ifmIdx;
  NpuOp npu;
  npu.kind = Kind::Elementwise;
  npu.mode = op.op == Op::Add ? 1 : 2;
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
  if (npu.swapOperands && npu.mode == 1) npu.swapOperands = false;
  const Rescale& ra = in[ifmIdx].r;
  const Rescale& rb = in[ifm2Idx].r;
  const std::optional<std::uint32_t> qa = exactIntegerScale(ra.multiplier[0], ra.shift[0]);
  const std::optional<std::uint32_t> qb = exactIntegerScale(rb.multiplier[0], rb.shift[0]);
  if (qa && qb && *qa <= 0xFFFF && *qb <= 0xFFFF) {
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
    npu.ifmRound = ra.round;
  } else if (isExactPowerOfTwoScale(ra.multiplier[0], ra.shift[0], 19)) {
    npu.ifmScaleMode = 2;  // OPB_32: IFM2 rescaled
    npu.opaScale = static_cast<std::uint32_t>(rb.multiplier[0]);
    npu.opaShift = static_cast<unsigned>(rb.shift[0]);
    npu.ifmRound = rb.round;
  } else {
    // No single operation computes round(a*ma) + round(b*mb) with both roundings: each input
    // RESCALE runs as its own elementwise ADD of a scalar 0 whose IFM path applies the
    // multiplier, shift and rounding and whose int32 OFM is written unscaled; the int32
    // operands are then combined with unit OPA_OPB_16 scales and the output RESCALE.
    View scaled[2];
    for (int k = 0; k < 2; ++k) {
      const Operand& o = in[k];
      NpuOp pre;
      pre.kind = Kind::Elementwise;
      pre.mode = 1;
      pre.what = fmt::format("{} (RESCALE of input {} to INT32)", what, k + 1);
      pre.ifm2Scalar = true;
      pre.ifmZp = static_cast<int>(o.r.inputZp);
      pre.ifmScaleMode = 1;
      pre.opaScale = static_cast<std::uint32_t>(o.r.multiplier[0]);
      pre.opaShift = static_cast<unsigned>(o.r.shift[0]);
      pre.ifmRound = o.r.round;
      pre.globalScale = true;
      pre.actMin = -32768;
      pre.actMax = 32767;
      OPENVGF_ASSIGN_OR_RETURN(pre.ifm, viewOf(o.source, what));
      pre.ofm = denseView(newBuffer(static_cast<std::uint32_t>(o.d.h * o.d.w * o.d.c * 4)), o.d.h, o.d.w, o.d.c, 4);
      scaled[k] = pre.ofm;
      ops.push_back(std::move(pre));
    }
    npu.ifmScaleMode = 0;
    npu.opaScale = 1;
    npu.opbScale = 1;
    npu.ifm = scaled[ifmIdx];
    npu.ifm2 = scaled[ifm2Idx];
    std::string finalName;
    OPENVGF_TRY(fuseOutputStage(index, op.outputs[0], npu, od.c, finalName, false));
    pushOp(std::move(npu), finalName, od);
    return {};
  }
  npu.ifmZp = static_cast<int>(ra.inputZp);
  npu.ifm2Zp = static_cast<int>(rb.inputZp);
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(in[ifmIdx].source, what));
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm2, viewOf(in[ifm2Idx].source, what));
  std::string finalName;
  OPENVGF_TRY(fuseOutputStage(index, op.outputs[0], npu, od.c, finalName, false));
  pushOp(std::move(npu), finalName, od);
  return {};
}

Status Lowering::lowerMul(std::size_t index) {
  const tosa::Operator& op = block_.operators[index];
  const std::string what = opLabel(op);
  if (op.inputs.size() != 3 || op.outputs.size() != 1) return invalidInput("{}: expected 3 inputs", what);
  const tosa::Tensor* out = tensor(op.outputs[0]);
  if (!out || out->dtype != DType::Int32) return unsupported("{}: only the INT32 product of INT8 values runs on the NPU", what);
  OPENVGF_ASSIGN_OR_RETURN(std::int64_t shift, scalarValue(op.inputs[2], what + ": shift"));
  if (shift != 0) return unsupported("{}: shift {} (only 0)", what, shift);
  std::string sources[2];
  int zps[2] = {0, 0};
  Dims3 dims[2];
  for (int k = 0; k < 2; ++k) {
    const std::string& name = op.inputs[static_cast<std::size_t>(k)];
    const tosa::Tensor* t = tensor(name);
    if (!t) return invalidInput("{}: undefined input '{}'", what, name);
    OPENVGF_ASSIGN_OR_RETURN(dims[k], dims3(name, what));
    if (t->dtype == DType::Int8) {
      sources[k] = name;
      continue;
    }
    const tosa::Operator* prod = nullptr;
    for (std::size_t i = 0; i < index; ++i) {
      if (!block_.operators[i].outputs.empty() && block_.operators[i].outputs[0] == name) prod = &block_.operators[i];
    }
    const tosa::Tensor* source = prod && !prod->inputs.empty() ? tensor(prod->inputs[0]) : nullptr;
    if (!prod || prod->op != Op::Rescale || !singleConsumer(name) || !source || source->dtype != DType::Int8) {
      return unsupported("{}: input '{}' must be INT8 or a RESCALE INT8 -> INT32 used only by it", what, name);
    }
    OPENVGF_ASSIGN_OR_RETURN(Rescale r, readRescale(*prod));
    if (r.multiplier.size() != 1 || !isExactPowerOfTwoScale(r.multiplier[0], r.shift[0], 0) || r.outputZp != 0) {
      return unsupported("{}: input RESCALE '{}' must only remove the zero point (scale exactly 1)", what, name);
    }
    sources[k] = prod->inputs[0];
    zps[k] = static_cast<int>(r.inputZp);
  }
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(op.outputs[0], what));
  auto full = [&](const Dims3& d) { return d.h == od.h && d.w == od.w && d.c == od.c; };
  const int ifmIdx = full(dims[0]) ? 0 : 1;
  if (!full(dims[ifmIdx])) return unsupported("{}: both inputs broadcast", what);
  const int ifm2Idx = 1 - ifmIdx;
  NpuOp npu;
  npu.kind = Kind::Elementwise;
  npu.mode = 0;
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
  OPENVGF_TRY(fuseOutputStage(index, op.outputs[0], npu, od.c, finalName, false));
  pushOp(std::move(npu), finalName, od);
  return {};
}

Status Lowering::lowerRescale(std::size_t index) {
  const tosa::Operator& op = block_.operators[index];
  const std::string what = opLabel(op);
  const tosa::Tensor* in = tensor(op.inputs.empty() ? std::string() : op.inputs[0]);
  const tosa::Tensor* out = tensor(op.outputs.empty() ? std::string() : op.outputs[0]);
  if (!in || !out) return invalidInput("{}: undefined tensor", what);
  if (in->dtype == DType::Int8 && out->dtype == DType::Int32) {
    // Part of an ADD/SUB/MUL pattern; the consumer lowers it.
    auto consumer = singleConsumer(op.outputs[0]);
    if (consumer) {
      const Op c = block_.operators[*consumer].op;
      if (c == Op::Add || c == Op::Sub || c == Op::Mul) return {};
    }
    return unsupported("{}: an INT8 -> INT32 RESCALE must feed a single ADD, SUB or MUL", what);
  }
  if (in->dtype != DType::Int8 || out->dtype != DType::Int8) {
    return unsupported("{}: standalone RESCALE {} -> {} (only INT8 -> INT8, or INT32 -> INT8 after a convolution)", what,
                       tosa::toString(in->dtype), tosa::toString(out->dtype));
  }
  OPENVGF_ASSIGN_OR_RETURN(Rescale r, readRescale(op));
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(op.outputs[0], what));
  NpuOp npu;
  npu.what = what;
  npu.ifmZp = static_cast<int>(r.inputZp);
  npu.ofmZp = static_cast<int>(r.outputZp);
  npu.roundMode = r.round;
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(op.inputs[0], what));
  if (r.multiplier.size() == 1) {
    // 1x1 AVERAGE pool: (x - zp) rescaled by the global OFM scale.
    npu.kind = Kind::Pool;
    npu.mode = 1;
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
    npu.weights.traversal = Traversal::Depthwise;
    npu.bias.assign(static_cast<std::size_t>(od.c), 0);
    npu.perChannel = true;
    for (int c = 0; c < od.c; ++c) {
      npu.scales.push_back(static_cast<std::uint32_t>(r.multiplier[static_cast<std::size_t>(c)]));
      npu.shifts.push_back(static_cast<std::uint8_t>(r.shift[static_cast<std::size_t>(c)]));
    }
  }
  std::string finalName = op.outputs[0];
  fuseClamp(finalName, npu);
  pushOp(std::move(npu), finalName, od);
  return {};
}

Status Lowering::lowerClampOrTable(std::size_t index) {
  const tosa::Operator& op = block_.operators[index];
  const std::string what = opLabel(op);
  const tosa::Tensor* in = tensor(op.inputs.empty() ? std::string() : op.inputs[0]);
  const tosa::Tensor* out = tensor(op.outputs.empty() ? std::string() : op.outputs[0]);
  if (!in || !out || in->dtype != DType::Int8 || out->dtype != DType::Int8) return unsupported("{}: only INT8 runs on the NPU", what);
  OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(op.outputs[0], what));
  NpuOp npu;
  npu.kind = Kind::Pool;
  npu.mode = 0;
  npu.what = what;
  OPENVGF_ASSIGN_OR_RETURN(npu.ifm, viewOf(op.inputs[0], what));
  std::string finalName = op.outputs[0];
  if (op.op == Op::Clamp) {
    const auto* attrs = std::get_if<tosa::ClampAttrs>(&op.attrs);
    if (!attrs || attrs->minVal.size() != 1 || attrs->maxVal.size() != 1) return invalidInput("{}: expected INT8 bounds", what);
    npu.actMin = static_cast<std::int8_t>(attrs->minVal[0]);
    npu.actMax = static_cast<std::int8_t>(attrs->maxVal[0]);
  } else {
    if (op.inputs.size() != 2) return invalidInput("{}: expected 2 inputs", what);
    auto table = constants_.find(op.inputs[1]);
    if (table == constants_.end() || table->second.dtype != DType::Int8 || table->second.bytes.size() != 256) {
      return unsupported("{}: the table must be a constant INT8[256]", what);
    }
    // The LUT is indexed with value + 128 for signed 8-bit data, as TOSA's table[in + 128].
    const std::uint32_t lutOffset = appendReadOnly(table->second.bytes);
    constantBytes += 256;
    // The output stage applies the LUT last (after zero point and clamp), so a table that is
    // the only consumer of an NPU op's int8 result runs inside that op.
    auto producer = producerOp_.find(op.inputs[0]);
    if (producer != producerOp_.end() && singleConsumer(op.inputs[0]) && !concatTargets_.count(op.inputs[0]) &&
        ops[producer->second].lutSlot < 0) {
      NpuOp& fused = ops[producer->second];
      fused.lutSlot = 0;
      fused.lutOffset = lutOffset;
      fused.what += " + " + what;
      views.erase(op.inputs[0]);
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

Status Lowering::lowerViewOp(std::size_t index) {
  const tosa::Operator& op = block_.operators[index];
  const std::string what = opLabel(op);
  const std::string& outName = op.outputs[0];
  if (op.op == Op::Reshape || op.op == Op::Identity) {
    const std::string& inName = op.inputs[0];
    if (isConst(inName)) {
      tosa::HostTensor t = constants_.at(inName);
      t.shape = tensor(outName)->shape;
      constants_[outName] = std::move(t);
      return {};
    }
    OPENVGF_ASSIGN_OR_RETURN(View v, viewOf(inName, what));
    OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(outName, what));
    if (tensor(outName)->dtype != DType::Int8) return unsupported("{}: only INT8 feature maps", what);
    if (v.dense()) {
      View r = v;
      r.h = od.h;
      r.w = od.w;
      r.c = od.c;
      r.strideX = static_cast<std::uint32_t>(od.c);
      r.strideY = static_cast<std::uint32_t>(od.c * od.w);
      if (concatTargets_.count(outName)) {
        copy(r, concatTargets_.at(outName), what);
        views[outName] = concatTargets_.at(outName);
      } else {
        views[outName] = r;
      }
      return {};
    }
    if (v.w == od.w && v.h == od.h && v.c == od.c) {
      View dst = allocateOutput(outName, od);
      copy(v, dst, what);
      views[outName] = dst;
      return {};
    }
    return unsupported("{}: reshaping a strided view is not supported", what);
  }
  if (op.op == Op::Slice) {
    OPENVGF_ASSIGN_OR_RETURN(View v, viewOf(op.inputs[0], what));
    OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int64_t> start, intValues(op.inputs[1], what + ": start"));
    const tosa::Tensor* in = tensor(op.inputs[0]);
    OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(outName, what));
    const std::size_t rank = in->shape.size();
    if (start.size() != rank) return invalidInput("{}: start has {} values for rank {}", what, start.size(), rank);
    // Map start to (h, w, c) the way dims3 maps shapes.
    std::int64_t sh = 0, sw = 0, sc = 0;
    if (rank == 4) { if (start[0] != 0) return unsupported("{}: slicing the batch", what); sh = start[1]; sw = start[2]; sc = start[3]; }
    if (rank == 3) { sh = start[0]; sw = start[1]; sc = start[2]; }
    if (rank == 2) { sw = start[0]; sc = start[1]; }
    if (rank == 1) { sc = start[0]; }
    if (sh < 0 || sw < 0 || sc < 0 || sh + od.h > v.h || sw + od.w > v.w || sc + od.c > v.c) {
      return invalidInput("{}: slice outside the input", what);
    }
    View r = v;
    r.offset = v.offset + static_cast<std::uint32_t>(sh) * v.strideY + static_cast<std::uint32_t>(sw) * v.strideX +
               static_cast<std::uint32_t>(sc);
    r.h = od.h;
    r.w = od.w;
    r.c = od.c;
    if (concatTargets_.count(outName)) {
      View dst = concatTargets_.at(outName);
      copy(r, dst, what);
      views[outName] = dst;
    } else {
      views[outName] = r;
    }
    return {};
  }
  if (op.op == Op::Concat) {
    const auto* attrs = std::get_if<tosa::AxisAttrs>(&op.attrs);
    if (!attrs) return invalidInput("{}: expected an axis", what);
    OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(outName, what));
    View target = concatTargets_.count(outName) ? concatTargets_.at(outName) : allocateOutput(outName, od);
    const std::size_t rank = tensor(outName)->shape.size();
    // Axis in (h, w, c) terms: 0 = H, 1 = W, 2 = C.
    const int axis = attrs->axis - static_cast<int>(rank) + 3;
    if (axis < 0 || (rank == 4 && attrs->axis == 0)) return unsupported("{}: concatenation along axis {}", what, attrs->axis);
    int at = 0;
    for (const std::string& inName : op.inputs) {
      OPENVGF_ASSIGN_OR_RETURN(Dims3 d, dims3(inName, what));
      View part = target;
      part.h = d.h;
      part.w = d.w;
      part.c = d.c;
      part.offset = target.offset + static_cast<std::uint32_t>(axis == 0 ? at * target.strideY
                                                               : axis == 1 ? at * target.strideX
                                                                           : at);
      at += axis == 0 ? d.h : axis == 1 ? d.w : d.c;
      auto existing = views.find(inName);
      const bool alreadyThere = existing != views.end() && existing->second.region == part.region &&
                                existing->second.buffer == part.buffer && existing->second.offset == part.offset;
      if (!alreadyThere) {
        OPENVGF_ASSIGN_OR_RETURN(View src, viewOf(inName, what));
        copy(src, part, what);
      }
    }
    views[outName] = target;
    return {};
  }
  if (op.op == Op::Pad) {
    const tosa::Tensor* in = tensor(op.inputs[0]);
    if (!in || in->dtype != DType::Int8 || op.inputs.size() != 3) return unsupported("{}: only INT8 PAD", what);
    OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int64_t> padding, intValues(op.inputs[1], what + ": padding"));
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t value, scalarValue(op.inputs[2], what + ": pad_const"));
    const std::size_t rank = in->shape.size();
    if (rank != 4 || padding.size() != 8 || padding[0] || padding[1] || padding[6] || padding[7]) {
      return unsupported("{}: only padding of H and W of a rank-4 tensor can be folded", what);
    }
    auto it = consumers_.find(outName);
    const bool foldable = !graphOutputs_.count(outName) && it != consumers_.end() &&
                          std::all_of(it->second.begin(), it->second.end(), [&](std::size_t c) {
                            Op k = block_.operators[c].op;
                            return k == Op::Conv2d || k == Op::DepthwiseConv2d || k == Op::MaxPool2d || k == Op::AvgPool2d;
                          });
    if (!foldable) {
      return unsupported("{}: PAD is only supported folded into a following CONV2D, DEPTHWISE_CONV2D, MAX_POOL2D or AVG_POOL2D",
                         what);
    }
    pads_[outName] = PendingPad{op.inputs[0], static_cast<int>(padding[2]), static_cast<int>(padding[3]),
                                static_cast<int>(padding[4]), static_cast<int>(padding[5]), value};
    return {};
  }
  return internalError("{}: not a view operator", what);
}

Status Lowering::planConcat() {
  // Outermost concatenations first, so that nested ones become sub-views of their target.
  for (std::size_t i = block_.operators.size(); i-- > 0;) {
    const tosa::Operator& op = block_.operators[i];
    if (op.op != Op::Concat) continue;
    const auto* attrs = std::get_if<tosa::AxisAttrs>(&op.attrs);
    const tosa::Tensor* out = tensor(op.outputs[0]);
    if (!attrs || !out || out->dtype != DType::Int8) continue;
    auto d = dims3(op.outputs[0], opLabel(op));
    if (!d) continue;
    const std::size_t rank = out->shape.size();
    const int axis = attrs->axis - static_cast<int>(rank) + 3;
    if (axis < 0 || (rank == 4 && attrs->axis == 0)) continue;
    View target = allocateOutput(op.outputs[0], *d);
    concatTargets_[op.outputs[0]] = target;
    int at = 0;
    for (const std::string& inName : op.inputs) {
      auto di = dims3(inName, opLabel(op));
      if (!di) break;
      View part = target;
      part.h = di->h;
      part.w = di->w;
      part.c = di->c;
      part.offset = target.offset + static_cast<std::uint32_t>(axis == 0 ? at * target.strideY
                                                               : axis == 1 ? at * target.strideX
                                                                           : at);
      at += axis == 0 ? di->h : axis == 1 ? di->w : di->c;
      // Producers write straight into the concatenation unless the tensor is also a graph
      // output (which needs dense storage), a graph input or constant, or feeds other ops.
      const bool isInput = std::find(block_.inputs.begin(), block_.inputs.end(), inName) != block_.inputs.end();
      auto cons = consumers_.find(inName);
      const bool onlyHere = cons != consumers_.end() && cons->second.size() == 1;
      if (!isInput && !isConst(inName) && !graphOutputs_.count(inName) && onlyHere && !concatTargets_.count(inName)) {
        concatTargets_[inName] = part;
      }
    }
  }
  return {};
}

Status Lowering::run() {
  for (const tosa::Tensor& t : block_.tensors) {
    if (t.data) constants_[t.name] = tosa::constantValue(t);
  }
  for (std::size_t i = 0; i < block_.operators.size(); ++i) {
    for (const std::string& in : block_.operators[i].inputs) consumers_[in].push_back(i);
  }
  graphOutputs_.insert(block_.outputs.begin(), block_.outputs.end());
  done_.assign(block_.operators.size(), false);
  for (const std::string& name : block_.inputs) {
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
  for (std::size_t i = 0; i < block_.operators.size(); ++i) {
    if (done_[i]) continue;
    const tosa::Operator& op = block_.operators[i];
    Status s;
    switch (op.op) {
      case Op::Const:
      case Op::ConstShape:
        break;
      case Op::Conv2d:
      case Op::DepthwiseConv2d: s = lowerConv(i); break;
      case Op::MatMul: s = lowerMatMul(i); break;
      case Op::MaxPool2d:
      case Op::AvgPool2d: s = lowerPool(i); break;
      case Op::Add:
      case Op::Sub: s = lowerAddSub(i); break;
      case Op::Mul: s = lowerMul(i); break;
      case Op::Rescale: s = lowerRescale(i); break;
      case Op::Clamp:
      case Op::Table: s = lowerClampOrTable(i); break;
      case Op::Reshape:
      case Op::Identity:
      case Op::Slice:
      case Op::Concat:
      case Op::Pad: s = lowerViewOp(i); break;
      default:
        s = unsupported("{}: operator {} is not supported by the Ethos-U backend", opLabel(op), tosa::toString(op.op));
    }
    OPENVGF_TRY(s);
    done_[i] = true;
  }
  // Graph outputs need dense storage of their own in the scratch arena.
  std::set<int> inputBuffers;
  for (const std::string& name : inputNames) inputBuffers.insert(views[name].buffer);
  std::set<int> usedOutputBuffers;
  for (const std::string& name : block_.outputs) {
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
  if (ops.empty()) return unsupported("the graph has no operation for the NPU to run");
  return {};
}

/// Lifetime-based first-fit placement of the scratch buffers; returns the arena size, counted
/// in 64 bits so that a sum past 4 GiB is seen (and refused) rather than wrapped.
std::uint64_t planArena(std::vector<Buffer>& buffers, const std::vector<int>& pinned) {
  std::vector<std::size_t> order(buffers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return buffers[a].size > buffers[b].size; });
  std::vector<std::size_t> placed;
  std::uint64_t total = 0;
  for (std::size_t i : order) {
    Buffer& b = buffers[i];
    if (b.last < 0) continue;  // never used
    const bool pin = std::find(pinned.begin(), pinned.end(), static_cast<int>(i)) != pinned.end();
    std::uint64_t address = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (std::size_t j : placed) {
        const Buffer& o = buffers[j];
        const bool pinnedOther = std::find(pinned.begin(), pinned.end(), static_cast<int>(j)) != pinned.end();
        const bool timeOverlap = pin || pinnedOther || !(o.last < b.first || b.last < o.first);
        const bool spaceOverlap = address < std::uint64_t{o.address} + o.size && o.address < address + b.size;
        if (timeOverlap && spaceOverlap) {
          address = o.address + o.size;
          moved = true;
        }
      }
    }
    b.address = static_cast<std::uint32_t>(address);  // exact whenever the arena is within its limit
    placed.push_back(i);
    total = std::max(total, address + b.size);
  }
  return total;
}

struct BlockChoice {
  int w = 0, h = 0, d = 0, ibEnd = 0, abStart = 0, ifm2IbStart = 0;
};

std::optional<BlockChoice> chooseBlock(const NpuOp& op, const AcceleratorConfig& cfg) {
  const Shape3 ub = cfg.ofmUblock;
  const int reservedEnd = cfg.shramBanks > 16 ? 2 : 0;
  const int lutStart = cfg.shramBanks - std::max(op.lutSlot >= 0 ? 2 : 0, reservedEnd);
  const int ofmW = op.ofm.w, ofmH = op.ofm.h, ofmD = op.ofm.c;
  const int maxW = std::min(64, roundUp(ofmW, ub.w)), maxH = std::min(32, roundUp(ofmH, ub.h));
  const int maxD = std::min(128, roundUp(ofmD, ub.d));
  std::optional<BlockChoice> best;
  long bestVolume = -1;
  const bool elementwise = op.kind == Kind::Elementwise;
  const bool weighted = op.kind == Kind::Conv || op.kind == Kind::Depthwise;
  for (int d = maxD; d >= ub.d; d -= ub.d) {
    // Two cores split each block's channels by parity; every core's share of a block must be
    // whole micro-blocks unless one block covers the OFM depth (Vela only makes such blocks).
    if (cfg.cores > 1 && weighted && d < ofmD && (d / cfg.cores) % ub.d != 0) continue;
    for (int h = maxH; h >= ub.h; h -= ub.h) {
      for (int w = maxW; w >= ub.w; w -= ub.w) {
        const long volume = static_cast<long>(w) * h * d;
        if (volume <= bestVolume) continue;
        const int khExt = (op.kh - 1) * op.dy + 1, kwExt = (op.kw - 1) * op.dx + 1;
        int ifmH = elementwise ? h : roundUp((h - 1) * op.sy + std::min(khExt, 8), ub.h);
        int ifmW = elementwise ? w : roundUp((w - 1) * op.sx + std::min(kwExt, 8), ub.w);
        int ifmD = op.kind == Kind::Conv
                       ? roundUp(std::min(op.ifm.c, op.weights.traversal == Traversal::PartKernelFirst ? 16 : 32), cfg.ifmUblock.d)
                       : d;
        const int granule = op.ifm.elem == 4 ? cfg.granuleIfm32 : elementwise ? cfg.granuleIfm8Ew : cfg.granuleIfm8;
        const int ifmBanks = roundUp(((ifmW * ifmH * roundUp(ifmD * op.ifm.elem, 8) + 1023) / 1024) * 2, granule);
        BlockChoice c{w, h, d, 2 + ifmBanks, 0, 0};
        if (elementwise) {
          c.ifm2IbStart = c.ibEnd;
          const int ifm2Banks = op.hasIfm2 ? ifmBanks : 0;
          if (c.ifm2IbStart + ifm2Banks > lutStart) continue;
          c.ibEnd = lutStart;
          c.abStart = lutStart;
        } else {
          const int accBanks = roundUp(((w * h * roundUp(d, 8) * 4 + 1023) / 1024) * 2, cfg.granuleAcc32);
          c.abStart = lutStart - accBanks;
          if (c.ibEnd > c.abStart) continue;
        }
        best = c;
        bestVolume = volume;
      }
    }
  }
  return best;
}

}  // namespace

Result<CompiledModel> compile(const tosa::Graph& graph, const CompileOptions& options, std::string_view sourceName) {
  auto configOpt = findAccelerator(options.target);
  if (!configOpt) {
    std::string names;
    for (const AcceleratorConfig& c : acceleratorConfigs()) names += (names.empty() ? "" : ", ") + std::string(c.name);
    return invalidInput("--target: expected one of {}, got '{}'", names, options.target);
  }
  const AcceleratorConfig config = *configOpt;
  // The lowering relies on what the verifier checks (operand counts, ranks, shapes): a graph
  // that breaks the rules is refused here, never half-lowered.
  OPENVGF_TRY(withContext(tosa::verify(graph), sourceName));
  const tosa::Block* block = graph.mainBlock();
  if (!block) return invalidInput("{}: expected a main block, got none", sourceName);
  Lowering lowering(*block, config);
  if (Status s = lowering.run(); !s) return Unexpected(std::move(s).error().addContext(sourceName));

  // Weights, scales and block configurations.
  CompileStats stats;
  for (NpuOp& op : lowering.ops) {
    auto choice = chooseBlock(op, config);
    if (!choice) return unsupported("{}: {}: no block configuration fits in SHRAM", sourceName, op.what);
    op.blkW = choice->w;
    op.blkH = choice->h;
    op.blkD = choice->d;
    op.ibEnd = choice->ibEnd;
    op.abStart = choice->abStart;
    op.ifm2IbStart = choice->ifm2IbStart;
    if (op.kind == Kind::Conv || op.kind == Kind::Depthwise) {
      // One stream pair per core: core k computes OFM channels k, k + cores, ... and its weights
      // are ordered for a block depth of (blkD + cores - 1 - k) / cores (Vela
      // weight_compressor.py). Per core: scales first, then weights, each 16-byte aligned.
      const int cores = std::min(config.cores, op.ofm.c);
      for (int core = 0; core < cores; ++core) {
        WeightVolume volume = op.weights;
        const std::size_t perChannel = static_cast<std::size_t>(volume.kernelHeight) * volume.kernelWidth * volume.ifmDepth;
        volume.ofmDepth = (op.weights.ofmDepth + config.cores - 1 - core) / config.cores;
        volume.ofmBlockDepth = (op.blkD + config.cores - 1 - core) / config.cores;
        volume.values.clear();
        std::vector<std::int64_t> bias;
        std::vector<std::uint32_t> scale;
        std::vector<std::uint8_t> shift;
        for (int c = core; c < op.weights.ofmDepth; c += config.cores) {
          const auto first = op.weights.values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c) * perChannel);
          volume.values.insert(volume.values.end(), first, first + static_cast<std::ptrdiff_t>(perChannel));
          bias.push_back(op.bias[static_cast<std::size_t>(c)]);
          scale.push_back(op.scales[static_cast<std::size_t>(c)]);
          shift.push_back(op.shifts[static_cast<std::size_t>(c)]);
        }
        const std::vector<std::int16_t> ordered = orderWeights(volume, config);
        const std::vector<std::uint8_t> stream = encodeWeightStream(ordered);
        const std::vector<std::uint8_t> scales = encodeScaleStream(bias, scale, shift);
        const auto k = static_cast<std::size_t>(core);
        lowering.readOnly.resize((lowering.readOnly.size() + 15) / 16 * 16, 0);
        op.scaleOffset[k] = static_cast<std::uint32_t>(lowering.readOnly.size());
        op.scaleLength[k] = static_cast<std::uint32_t>(scales.size());
        lowering.readOnly.insert(lowering.readOnly.end(), scales.begin(), scales.end());
        op.weightOffset[k] = static_cast<std::uint32_t>(lowering.readOnly.size());
        op.weightLength[k] = static_cast<std::uint32_t>(stream.size());
        lowering.readOnly.insert(lowering.readOnly.end(), stream.begin(), stream.end());
        stats.weightBytes += stream.size();
        stats.scaleBytes += scales.size();
      }
      // A core without channels gets core 0's addresses and length 0 (Vela's convention).
      for (int core = cores; core < config.cores; ++core) {
        op.weightOffset[static_cast<std::size_t>(core)] = op.weightOffset[0];
        op.scaleOffset[static_cast<std::size_t>(core)] = op.scaleOffset[0];
      }
    }
  }
  // Lifetimes: graph inputs from the start, outputs to the end.
  const int lastOp = static_cast<int>(lowering.ops.size());
  for (std::size_t i = 0; i < lowering.ops.size(); ++i) {
    const NpuOp& op = lowering.ops[i];
    lowering.use(op.ifm, static_cast<int>(i));
    if (op.hasIfm2) lowering.use(op.ifm2, static_cast<int>(i));
    lowering.use(op.ofm, static_cast<int>(i));
  }
  std::vector<int> pinned;
  for (const std::string& name : lowering.inputNames) {
    const View& v = lowering.views[name];
    Buffer& b = lowering.buffers[static_cast<std::size_t>(v.buffer)];
    b.first = -1;
    b.last = std::max(b.last, 0);
    pinned.push_back(v.buffer);
  }
  for (const View& v : lowering.outputViews) {
    lowering.use(v, lastOp);
    pinned.push_back(v.buffer);
  }
  const std::uint64_t arena = planArena(lowering.buffers, pinned);
  if (arena > kMaxEthosUScratchBytes) {
    return unsupported("the graph needs a scratch arena of {} bytes: expected at most {}", arena, kMaxEthosUScratchBytes);
  }
  const auto scratch = static_cast<std::uint32_t>(arena);
  auto address = [&](const View& v) -> std::uint32_t {
    return v.region == 1 ? lowering.buffers[static_cast<std::size_t>(v.buffer)].address + v.offset : v.offset;
  };

  // Command stream.
  reg::Emitter e;
  // Every Ethos-U65 stream starts by selecting single-core or dual-core (depth split) mode.
  if (config.product == 1) e.cmd0(reg::kParallelMode, static_cast<std::uint16_t>(config.cores - 1));
  const std::uint32_t lutStartBytes = static_cast<std::uint32_t>(config.shramBanks - 2) * 1024;
  for (const NpuOp& op : lowering.ops) {
    if (op.lutSlot >= 0) {
      // Wait for earlier kernels before replacing the table, then for the DMA before using it.
      e.op(reg::kOpKernelWait, 0);
      e.cmd0(reg::kDmaSrcRegion, 0);
      e.cmd1(reg::kDmaSrc, op.lutOffset);
      // INTERNAL destination; bits 2:0 are the core mask: every core's SHRAM gets the table.
      e.cmd0(reg::kDmaDstRegion, static_cast<std::uint16_t>(0x100 | ((1u << config.cores) - 1)));
      e.cmd1(reg::kDmaDst, lutStartBytes + static_cast<std::uint32_t>(op.lutSlot) * 256);
      e.cmd1(reg::kDmaLen, 256);
      e.op(reg::kOpDmaStart, 0);
      e.op(reg::kOpDmaWait, 0);
    }
    if (op.kind == Kind::Elementwise) {
      e.cmd1(reg::kOpaScale, op.opaScale, static_cast<std::uint16_t>(op.opaShift));
      e.cmd1(reg::kOpbScale, op.opbScale);
      e.cmd1(reg::kOfmScale, op.ofmScale, static_cast<std::uint16_t>(op.ofmShift));
    }
    auto fm = [&](const View& v, std::uint16_t regionReg, std::uint16_t base0, std::uint16_t h0, std::uint16_t h1,
                  std::uint16_t w0, std::uint16_t strideX) {
      e.cmd0(regionReg, static_cast<std::uint16_t>(v.region));
      e.cmd1(base0, address(v));
      e.cmd1(static_cast<std::uint16_t>(base0 + 1), 0);
      e.cmd1(static_cast<std::uint16_t>(base0 + 2), 0);
      e.cmd1(static_cast<std::uint16_t>(base0 + 3), 0);
      e.cmd0(h0, static_cast<std::uint16_t>(v.h - 1));
      e.cmd0(h1, static_cast<std::uint16_t>(v.h - 1));
      e.cmd0(w0, static_cast<std::uint16_t>(v.w - 1));
      e.cmd1(static_cast<std::uint16_t>(strideX + 2), static_cast<std::uint32_t>(v.elem));
      e.cmd1(static_cast<std::uint16_t>(strideX + 1), v.strideY);
      e.cmd1(strideX, v.strideX);
    };
    fm(op.ifm, reg::kIfmRegion, reg::kIfmBase0, reg::kIfmHeight0M1, reg::kIfmHeight1M1, reg::kIfmWidth0M1, reg::kIfmStrideX);
    e.cmd0(reg::kIfmDepthM1, static_cast<std::uint16_t>(op.ifm.c - 1));
    e.cmd0(reg::kIfmZeroPoint, static_cast<std::uint16_t>(op.ifmZp));
    e.cmd0(reg::kIfmPrecision, static_cast<std::uint16_t>(0x0001 | (precisionBits(op.ifm) << 2) | (op.ifmScaleMode << 8) |
                                                            (op.ifmRound << 14)));
    e.cmd0(reg::kIfmUpscale, 0);
    if (op.kind != Kind::Elementwise) {
      e.cmd0(reg::kIfmPadTop, static_cast<std::uint16_t>(op.padTop));
      e.cmd0(reg::kIfmPadLeft, static_cast<std::uint16_t>(op.padLeft));
      e.cmd0(reg::kIfmPadBottom, static_cast<std::uint16_t>(op.padBottom));
      e.cmd0(reg::kIfmPadRight, static_cast<std::uint16_t>(op.padRight));
    }
    fm(op.ofm, reg::kOfmRegion, reg::kOfmBase0, reg::kOfmHeight0M1, reg::kOfmHeight1M1, reg::kOfmWidth0M1, reg::kOfmStrideX);
    e.cmd0(reg::kOfmHeightM1, static_cast<std::uint16_t>(op.ofm.h - 1));
    e.cmd0(reg::kOfmWidthM1, static_cast<std::uint16_t>(op.ofm.w - 1));
    e.cmd0(reg::kOfmDepthM1, static_cast<std::uint16_t>(op.ofm.c - 1));
    e.cmd0(reg::kOfmZeroPoint, static_cast<std::uint16_t>(op.ofmZp));
    e.cmd0(reg::kOfmPrecision, static_cast<std::uint16_t>(0x0001 | (precisionBits(op.ofm) << 1) |
                                                            (op.globalScale || op.kind == Kind::Elementwise ? 0x100 : 0) |
                                                            (op.roundMode << 14)));
    if (op.kind != Kind::Elementwise) {
      const int khExt = (op.kh - 1) * op.dy + 1, kwExt = (op.kw - 1) * op.dx + 1;
      e.cmd0(reg::kKernelHeightM1, static_cast<std::uint16_t>(khExt - 1));
      e.cmd0(reg::kKernelWidthM1, static_cast<std::uint16_t>(kwExt - 1));
      const unsigned sx = static_cast<unsigned>(op.sx - 1), sy = static_cast<unsigned>(op.sy - 1);
      const bool pkf = op.weights.traversal == Traversal::PartKernelFirst && op.kind == Kind::Conv;
      e.cmd0(reg::kKernelStride, static_cast<std::uint16_t>((sx & 1) | ((sy & 1) << 1) | (pkf ? 4u : 0u) |
                                                            (op.dx == 2 ? 8u : 0u) | (op.dy == 2 ? 16u : 0u) |
                                                            ((sx >> 1) << 6) | ((sy >> 1) << 9)));
    }
    if (op.kind == Kind::Conv || op.kind == Kind::Depthwise) {
      e.cmd0(reg::kWeightRegion, 0);
      e.cmd1(reg::kWeightBase, op.weightOffset[0]);
      e.cmd1(reg::kWeightLength, op.weightLength[0]);
      if (config.cores > 1) {
        e.cmd1(reg::kWeight1Base, op.weightOffset[1]);
        e.cmd1(reg::kWeight1Length, op.weightLength[1]);
      }
      e.cmd0(reg::kScaleRegion, 0);
      e.cmd1(reg::kScaleBase, op.scaleOffset[0]);
      e.cmd1(reg::kScaleLength, op.scaleLength[0]);
      if (config.cores > 1) {
        e.cmd1(reg::kScale1Base, op.scaleOffset[1]);
        e.cmd1(reg::kScale1Length, op.scaleLength[1]);
      }
    } else if (op.kind == Kind::Pool && op.globalScale) {
      e.cmd1(reg::kOfmScale, op.ofmScale, static_cast<std::uint16_t>(op.ofmShift));
    }
    e.cmd0(reg::kActivation, static_cast<std::uint16_t>(op.lutSlot >= 0 ? 16 + op.lutSlot : 0));
    e.cmd0(reg::kActivationMin, static_cast<std::uint16_t>(op.actMin));
    e.cmd0(reg::kActivationMax, static_cast<std::uint16_t>(op.actMax));
    e.cmd0(reg::kOfmBlkHeightM1, static_cast<std::uint16_t>(op.blkH - 1));
    e.cmd0(reg::kOfmBlkWidthM1, static_cast<std::uint16_t>(op.blkW - 1));
    e.cmd0(reg::kOfmBlkDepthM1, static_cast<std::uint16_t>(op.blkD - 1));
    e.cmd0(reg::kIfmIbEnd, static_cast<std::uint16_t>(op.ibEnd));
    e.cmd0(reg::kAbStart, static_cast<std::uint16_t>(op.abStart));
    if (op.kind == Kind::Elementwise) e.cmd0(reg::kIfm2IbStart, static_cast<std::uint16_t>(op.ifm2IbStart));
    e.cmd0(reg::kAccFormat, 0);
    if (op.kind == Kind::Elementwise) {
      if (op.ifm2Scalar) {
        e.cmd0(reg::kIfm2Scalar, static_cast<std::uint16_t>(op.ifm2ScalarValue));
      } else {
        fm(op.ifm2, reg::kIfm2Region, reg::kIfm2Base0, reg::kIfm2Height0M1, reg::kIfm2Height1M1, reg::kIfm2Width0M1,
           reg::kIfm2StrideX);
      }
      // IFM2 precision must match the IFM's.
      e.cmd0(reg::kIfm2Precision, static_cast<std::uint16_t>(0x0001 | (precisionBits(op.ifm) << 2)));
      e.cmd0(reg::kIfm2ZeroPoint, static_cast<std::uint16_t>(op.ifm2Zp));
      e.cmd0(reg::kIfm2Broadcast, static_cast<std::uint16_t>(op.broadcast | (op.swapOperands ? 0x40u : 0u) |
                                                             (op.ifm2Scalar ? 0x80u : 0u)));
    }
    e.cmd0(reg::kBlockDep, 0);
    switch (op.kind) {
      case Kind::Conv: e.op(reg::kOpConv); break;
      case Kind::Depthwise: e.op(reg::kOpDepthwise); break;
      case Kind::Pool: e.op(reg::kOpPool, static_cast<std::uint16_t>(op.mode)); break;
      case Kind::Elementwise: e.op(reg::kOpElementwise, static_cast<std::uint16_t>(op.mode)); break;
    }
    ++stats.npuOperations;
    stats.macs += op.macs;
    const std::uint64_t ublock =
        static_cast<std::uint64_t>(config.ofmUblock.w) * config.ofmUblock.h * config.ofmUblock.d * static_cast<std::uint64_t>(config.cores);
    const std::uint64_t totalMacs = static_cast<std::uint64_t>(config.macs) * static_cast<std::uint64_t>(config.cores);
    const std::uint64_t elements = static_cast<std::uint64_t>(op.ofm.h) * op.ofm.w * op.ofm.c;
    stats.cycles += op.macs > 0 ? (op.macs + totalMacs - 1) / totalMacs
                                : (elements * static_cast<std::uint64_t>(op.kh * op.kw) + ublock - 1) / ublock;
  }
  e.op(reg::kOpStop, 0xFFFF);

  CompiledModel model;
  model.cop1 = encodeCop1(e.words(), config);
  model.weightData = std::move(lowering.readOnly);
  std::vector<IoPlacement> ins, outs;
  auto placement = [&](const std::string& name, const View& v) {
    IoPlacement io;
    const tosa::Shape& s = block->findTensor(name)->shape;
    for (std::size_t i = 0; i < s.size(); ++i) io.shape[6 - s.size() + i] = static_cast<std::int32_t>(s[i]);
    io.offset = static_cast<std::int32_t>(address(v));
    return io;
  };
  for (const std::string& name : lowering.inputNames) {
    ins.push_back(placement(name, lowering.views[name]));
    model.inputs.push_back(IoTensor{name, block->findTensor(name)->shape, static_cast<std::uint32_t>(ins.back().offset)});
  }
  for (std::size_t i = 0; i < lowering.outputNames.size(); ++i) {
    const std::string& name = lowering.outputNames[i];
    outs.push_back(placement(name, lowering.outputViews[i]));
    model.outputs.push_back(IoTensor{name, block->findTensor(name)->shape, static_cast<std::uint32_t>(outs.back().offset)});
  }
  model.velaBinStream = encodeVelaBinStream(model.cop1, model.weightData, scratch, ins, outs);
  stats.commands = e.commandCount();
  stats.scratchSize = scratch;
  stats.constantBytes = lowering.constantBytes;
  model.stats = stats;
  return model;
}

}  // namespace openvgf::converter::ethosu
