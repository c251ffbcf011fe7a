// SPDX-License-Identifier: Apache-2.0
// Data layout operators (CONCAT, PAD, RESHAPE, REVERSE, SLICE, TILE, TRANSPOSE, IDENTITY)
// and GATHER / SCATTER. Layout operators are expressed as an index map (output element ->
// input element, or -1 for padding) applied to either storage kind, so one code path serves
// every element type.
#include <numeric>

#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

namespace {

// Calls fn(flatIndex, coord) for every element of `shape` in row-major order.
template <typename Fn>
void forEachIndex(const Shape& shape, Fn&& fn) {
  const std::int64_t n = elementCount(shape);
  std::vector<std::int64_t> coord(shape.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    fn(i, coord);
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
}

std::int64_t flatIndex(const std::vector<std::int64_t>& strides, const std::vector<std::int64_t>& coord) {
  std::int64_t off = 0;
  for (std::size_t d = 0; d < coord.size(); ++d) off += coord[d] * strides[d];
  return off;
}

// out[i] = src[map[i]], or `pad` where map[i] < 0.
Value remap(const Value& src, DType outType, Shape outShape, const std::vector<std::int64_t>& map,
            const Value* pad = nullptr) {
  Value out(outType, std::move(outShape));
  for (std::size_t i = 0; i < map.size(); ++i) {
    const std::int64_t s = map[i];
    if (src.isFloat()) {
      out.floats[i] = s >= 0 ? src.floats[static_cast<std::size_t>(s)] : (pad != nullptr ? scalarFloat(*pad) : 0.0);
    } else {
      out.ints[i] = s >= 0 ? src.ints[static_cast<std::size_t>(s)] : (pad != nullptr ? scalarInt(*pad) : 0);
    }
  }
  return out;
}

Result<std::vector<std::int64_t>> shapeInput(Context& ctx, const Value& v, std::size_t expected, const char* what) {
  std::vector<std::int64_t> values = shapeValues(v);
  if (values.size() != expected) return ctx.error("{}: expected {} values, got {}", what, expected, values.size());
  return values;
}

Result<Outputs> concat(Context& ctx, Inputs in) {
  const Value& x = *in[0];
  const std::size_t rank = x.shape.size();
  const auto* attrs = attrsAs<AxisAttrs>(ctx.op());
  if (attrs == nullptr) return ctx.error("attribute: expected an AxisAttribute");
  if (attrs->axis < 0 || static_cast<std::size_t>(attrs->axis) >= rank) {
    return ctx.error("axis: expected 0 <= axis < rank {}, got {}", rank, attrs->axis);
  }
  const auto axis = static_cast<std::size_t>(attrs->axis);
  Shape outShape = x.shape;
  outShape[axis] = 0;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const Value& v = *in[k];
    if (v.dtype != x.dtype || v.shape.size() != rank) {
      return ctx.error("input {}: expected {} of rank {}, got {} {}", k, toString(x.dtype), rank,
                       toString(v.dtype), shapeToString(v.shape));
    }
    for (std::size_t d = 0; d < rank; ++d) {
      if (d != axis && v.shape[d] != x.shape[d]) {
        return ctx.error("input {}: expected dimension {} = {}, got {}", k, d, x.shape[d], v.shape[d]);
      }
    }
    outShape[axis] += v.shape[axis];
  }
  OPENVGF_TRY(ctx.checkOutputShape(0, outShape));
  Value out(x.dtype, outShape);
  std::int64_t outer = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= x.shape[d];
  std::int64_t inner = 1;
  for (std::size_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
  std::size_t dst = 0;
  for (std::int64_t o = 0; o < outer; ++o) {
    for (const Value* v : in) {
      const std::int64_t chunk = v->shape[axis] * inner;
      for (std::int64_t j = 0; j < chunk; ++j, ++dst) {
        const auto s = static_cast<std::size_t>(o * chunk + j);
        if (x.isFloat()) {
          out.floats[dst] = v->floats[s];
        } else {
          out.ints[dst] = v->ints[s];
        }
      }
    }
  }
  return Outputs{std::move(out)};
}

Result<Outputs> pad(Context& ctx, Inputs in) {
  const Value& x = *in[0];
  const std::size_t rank = x.shape.size();
  const auto inStrides = stridesOf(x.shape);
  OPENVGF_ASSIGN_OR_RETURN(auto padding, shapeInput(ctx, *in[1], 2 * rank, "padding"));
  for (std::int64_t p : padding) {
    if (p < 0 || p > kMaxElements) return ctx.error("padding: expected values in [0, {}], got {}", kMaxElements, p);
  }
  Shape outShape(rank);
  for (std::size_t d = 0; d < rank; ++d) outShape[d] = padding[2 * d] + x.shape[d] + padding[2 * d + 1];
  OPENVGF_TRY(ctx.checkOutputShape(0, outShape));
  std::vector<std::int64_t> map(static_cast<std::size_t>(elementCount(outShape)));
  forEachIndex(outShape, [&](std::int64_t i, const std::vector<std::int64_t>& c) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      const std::int64_t s = c[d] - padding[2 * d];
      if (s < 0 || s >= x.shape[d]) {
        map[static_cast<std::size_t>(i)] = -1;
        return;
      }
      off += s * inStrides[d];
    }
    map[static_cast<std::size_t>(i)] = off;
  });
  const Value* padConst = in.size() > 2 ? in[2] : nullptr;
  return Outputs{remap(x, x.dtype, outShape, map, padConst)};
}

}  // namespace

Result<Outputs> evalDataLayout(Context& ctx, Inputs in) {
  const Value& x = *in[0];
  const Op op = ctx.op().op;
  const std::size_t rank = x.shape.size();
  const auto inStrides = stridesOf(x.shape);
  std::vector<std::int64_t> map;
  Shape outShape;
  switch (op) {
    case Op::Identity: return Outputs{x};
    case Op::Reshape: {
      outShape = shapeValues(*in[1]);
      for (std::int64_t d : outShape) {
        if (d < 1) return ctx.error("shape: expected dimensions >= 1, got {}", shapeToString(outShape));
      }
      OPENVGF_TRY(ctx.checkOutputShape(0, outShape));
      if (elementCount(outShape) != x.size()) {
        return ctx.error("shape: expected {} elements (input {}), got {}", x.size(), shapeToString(x.shape),
                         shapeToString(outShape));
      }
      Value out = x;
      out.shape = outShape;
      return Outputs{std::move(out)};
    }
    case Op::Concat: return concat(ctx, in);
    case Op::Pad: return pad(ctx, in);
    case Op::Reverse: {
      const auto* attrs = attrsAs<AxisAttrs>(ctx.op());
      if (attrs == nullptr) return ctx.error("attribute: expected an AxisAttribute");
      if (attrs->axis < 0 || static_cast<std::size_t>(attrs->axis) >= rank) {
        return ctx.error("axis: expected 0 <= axis < rank {}, got {}", rank, attrs->axis);
      }
      const auto axis = static_cast<std::size_t>(attrs->axis);
      outShape = x.shape;
      map.resize(static_cast<std::size_t>(x.size()));
      forEachIndex(outShape, [&](std::int64_t i, std::vector<std::int64_t> c) {
        c[axis] = x.shape[axis] - 1 - c[axis];
        map[static_cast<std::size_t>(i)] = flatIndex(inStrides, c);
      });
      break;
    }
    case Op::Slice: {
      OPENVGF_ASSIGN_OR_RETURN(auto start, shapeInput(ctx, *in[1], rank, "start"));
      OPENVGF_ASSIGN_OR_RETURN(auto size, shapeInput(ctx, *in[2], rank, "size"));
      for (std::size_t d = 0; d < rank; ++d) {
        if (start[d] < 0 || size[d] <= 0 || start[d] > x.shape[d] - size[d]) {
          return ctx.error("start/size: expected 0 <= start, 0 < size, start + size <= {} in dimension {}, got {} and {}",
                           x.shape[d], d, start[d], size[d]);
        }
      }
      outShape = size;
      map.resize(static_cast<std::size_t>(elementCount(outShape)));
      forEachIndex(outShape, [&](std::int64_t i, std::vector<std::int64_t> c) {
        for (std::size_t d = 0; d < rank; ++d) c[d] += start[d];
        map[static_cast<std::size_t>(i)] = flatIndex(inStrides, c);
      });
      break;
    }
    case Op::Tile: {
      OPENVGF_ASSIGN_OR_RETURN(auto multiples, shapeInput(ctx, *in[1], rank, "multiples"));
      outShape.resize(rank);
      for (std::size_t d = 0; d < rank; ++d) {
        if (multiples[d] < 1) return ctx.error("multiples: expected values >= 1, got {}", multiples[d]);
        if (multiples[d] > kMaxElements) return ctx.error("multiples: expected values <= {}, got {}", kMaxElements, multiples[d]);
        outShape[d] = x.shape[d] * multiples[d];
      }
      OPENVGF_TRY(ctx.checkOutputShape(0, outShape));
      map.resize(static_cast<std::size_t>(elementCount(outShape)));
      forEachIndex(outShape, [&](std::int64_t i, std::vector<std::int64_t> c) {
        for (std::size_t d = 0; d < rank; ++d) c[d] %= x.shape[d];
        map[static_cast<std::size_t>(i)] = flatIndex(inStrides, c);
      });
      break;
    }
    case Op::Transpose: {
      const auto* attrs = attrsAs<TransposeAttrs>(ctx.op());
      if (attrs == nullptr) return ctx.error("attribute: expected a TransposeAttribute");
      const auto& perms = attrs->perms;
      std::vector<bool> seen(rank, false);
      if (perms.size() != rank) return ctx.error("perms: expected {} values, got {}", rank, perms.size());
      for (std::int32_t p : perms) {
        if (p < 0 || static_cast<std::size_t>(p) >= rank || seen[static_cast<std::size_t>(p)]) {
          return ctx.error("perms: expected a permutation of 0..{}, got {}", rank - 1, p);
        }
        seen[static_cast<std::size_t>(p)] = true;
      }
      outShape.resize(rank);
      for (std::size_t d = 0; d < rank; ++d) outShape[d] = x.shape[static_cast<std::size_t>(perms[d])];
      map.resize(static_cast<std::size_t>(x.size()));
      forEachIndex(outShape, [&](std::int64_t i, const std::vector<std::int64_t>& c) {
        std::int64_t off = 0;
        for (std::size_t d = 0; d < rank; ++d) off += c[d] * inStrides[static_cast<std::size_t>(perms[d])];
        map[static_cast<std::size_t>(i)] = off;
      });
      break;
    }
    default: return ctx.notSupported("not a data layout operator");
  }
  return Outputs{remap(x, x.dtype, outShape, map)};
}

Result<Outputs> evalGatherScatter(Context& ctx, Inputs in) {
  const Value& values = *in[0];
  const Value& indices = *in[1];
  if (values.shape.size() != 3 || indices.shape.size() != 2 || indices.shape[0] != values.shape[0]) {
    return ctx.error("values/indices: expected [N,K,C] and [N,W], got {} and {}", shapeToString(values.shape),
                     shapeToString(indices.shape));
  }
  const std::int64_t n = values.shape[0];
  const std::int64_t k = values.shape[1];
  const std::int64_t c = values.shape[2];
  const std::int64_t w = indices.shape[1];
  if (ctx.op().op == Op::Gather) {
    std::vector<std::int64_t> map(static_cast<std::size_t>(n * w * c));
    for (std::int64_t b = 0; b < n; ++b) {
      for (std::int64_t j = 0; j < w; ++j) {
        std::int64_t idx = indices.ints[static_cast<std::size_t>(b * w + j)];
        if (idx < 0 || idx >= k) {
          ctx.require(false, "GATHER: index {} outside [0, {}) (REQUIRE)", idx, k);
          idx = std::clamp<std::int64_t>(idx, 0, k - 1);
        }
        for (std::int64_t ch = 0; ch < c; ++ch) {
          map[static_cast<std::size_t>((b * w + j) * c + ch)] = (b * k + idx) * c + ch;
        }
      }
    }
    return Outputs{remap(values, values.dtype, Shape{n, w, c}, map)};
  }
  const Value& input = *in[2];
  if (input.shape != Shape{n, w, c} || input.dtype != values.dtype) {
    return ctx.error("input: expected {} [{},{},{}], got {} {}", toString(values.dtype), n, w, c,
                     toString(input.dtype), shapeToString(input.shape));
  }
  Value out = values;
  std::vector<bool> written(static_cast<std::size_t>(n * k), false);
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t j = 0; j < w; ++j) {
      const std::int64_t idx = indices.ints[static_cast<std::size_t>(b * w + j)];
      if (idx < 0 || idx >= k) {
        ctx.require(false, "SCATTER: index {} outside [0, {}) (REQUIRE)", idx, k);
        continue;
      }
      const auto row = static_cast<std::size_t>(b * k + idx);
      ctx.require(!written[row], "SCATTER: position {} written twice (REQUIRE)", idx);
      written[row] = true;
      for (std::int64_t ch = 0; ch < c; ++ch) {
        const auto dst = static_cast<std::size_t>((b * k + idx) * c + ch);
        const auto src = static_cast<std::size_t>((b * w + j) * c + ch);
        if (out.isFloat()) {
          out.floats[dst] = input.floats[src];
        } else {
          out.ints[dst] = input.ints[src];
        }
      }
    }
  }
  return Outputs{std::move(out)};
}

}  // namespace openvgf::tosa::reference
