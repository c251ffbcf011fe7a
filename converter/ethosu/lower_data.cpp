// SPDX-License-Identifier: Apache-2.0
// Data movement as views: RESHAPE/IDENTITY of dense data and SLICE change only where an
// operation reads; CONCAT makes its inputs' producers write into slices of one buffer (a copy
// only where that is impossible); PAD is folded into the convolution or pool that reads it.
#include <algorithm>

#include "converter/ethosu/lowering.h"

namespace openvgf::converter::ethosu {

using tosa::DType;
using tosa::Op;

Status Lowering::lowerReshape(std::size_t index) {
  const tosa::Operator& o = op(index);
  const std::string what = label(index);
  const std::string& outName = o.outputs[0];
  {
    const std::string& inName = o.inputs[0];
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
}

Status Lowering::lowerSlice(std::size_t index) {
  const tosa::Operator& o = op(index);
  const std::string what = label(index);
  const std::string& outName = o.outputs[0];
  {
    OPENVGF_ASSIGN_OR_RETURN(View v, viewOf(o.inputs[0], what));
    OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int64_t> start, intValues(o.inputs[1], what + ": start"));
    const tosa::Tensor* in = tensor(o.inputs[0]);
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
}

Status Lowering::lowerConcat(std::size_t index) {
  const tosa::Operator& o = op(index);
  const std::string what = label(index);
  const std::string& outName = o.outputs[0];
  {
    const auto* attrs = std::get_if<tosa::AxisAttrs>(&o.attrs);
    if (!attrs) return invalidInput("{}: expected an axis", what);
    OPENVGF_ASSIGN_OR_RETURN(Dims3 od, dims3(outName, what));
    View target = concatTargets_.count(outName) ? concatTargets_.at(outName) : allocateOutput(outName, od);
    const std::size_t rank = tensor(outName)->shape.size();
    // Axis in (h, w, c) terms: 0 = H, 1 = W, 2 = C.
    const int axis = attrs->axis - static_cast<int>(rank) + 3;
    if (axis < 0 || (rank == 4 && attrs->axis == 0)) return unsupported("{}: concatenation along axis {}", what, attrs->axis);
    int at = 0;
    for (const std::string& inName : o.inputs) {
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
}

Status Lowering::lowerPad(std::size_t index) {
  const tosa::Operator& o = op(index);
  const std::string what = label(index);
  const std::string& outName = o.outputs[0];
  {
    const tosa::Tensor* in = tensor(o.inputs[0]);
    if (!in || in->dtype != DType::Int8 || o.inputs.size() != 3) return unsupported("{}: only INT8 PAD", what);
    OPENVGF_ASSIGN_OR_RETURN(std::vector<std::int64_t> padding, intValues(o.inputs[1], what + ": padding"));
    OPENVGF_ASSIGN_OR_RETURN(std::int64_t value, scalarValue(o.inputs[2], what + ": pad_const"));
    const std::size_t rank = in->shape.size();
    if (rank != 4 || padding.size() != 8 || padding[0] || padding[1] || padding[6] || padding[7]) {
      return unsupported("{}: only padding of H and W of a rank-4 tensor can be folded", what);
    }
    auto it = consumers_.find(outName);
    const bool foldable = !graphOutputs_.count(outName) && it != consumers_.end() &&
                          std::all_of(it->second.begin(), it->second.end(), [&](std::size_t c) {
                            Op k = op(c).op;
                            return k == Op::Conv2d || k == Op::DepthwiseConv2d || k == Op::MaxPool2d || k == Op::AvgPool2d;
                          });
    if (!foldable) {
      return unsupported("{}: PAD is only supported folded into a following CONV2D, DEPTHWISE_CONV2D, MAX_POOL2D or AVG_POOL2D",
                         what);
    }
    pads_[outName] = PendingPad{o.inputs[0], static_cast<int>(padding[2]), static_cast<int>(padding[3]),
                                static_cast<int>(padding[4]), static_cast<int>(padding[5]), value};
    return {};
  }
}

Status Lowering::planConcat() {
  // Outermost concatenations first, so that nested ones become sub-views of their target.
  for (std::size_t i = operatorCount(); i-- > 0;) {
    const tosa::Operator& o = op(i);
    if (o.op != Op::Concat) continue;
    const auto* attrs = std::get_if<tosa::AxisAttrs>(&o.attrs);
    const tosa::Tensor* out = tensor(o.outputs[0]);
    if (!attrs || !out || out->dtype != DType::Int8) continue;
    auto d = dims3(o.outputs[0], label(i));
    if (!d) continue;
    const std::size_t rank = out->shape.size();
    const int axis = attrs->axis - static_cast<int>(rank) + 3;
    if (axis < 0 || (rank == 4 && attrs->axis == 0)) continue;
    View target = allocateOutput(o.outputs[0], *d);
    concatTargets_[o.outputs[0]] = target;
    int at = 0;
    for (const std::string& inName : o.inputs) {
      auto di = dims3(inName, label(i));
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
      const bool isInput = std::find(program_.inputs.begin(), program_.inputs.end(), inName) != program_.inputs.end();
      auto cons = consumers_.find(inName);
      const bool onlyHere = cons != consumers_.end() && cons->second.size() == 1;
      if (!isInput && !isConst(inName) && !graphOutputs_.count(inName) && onlyHere && !concatTargets_.count(inName)) {
        concatTargets_[inName] = part;
      }
    }
  }
  return {};
}

}  // namespace openvgf::converter::ethosu
