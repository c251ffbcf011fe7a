// SPDX-License-Identifier: Apache-2.0
// Graph -> JSON with nlohmann::json. Constant values are decoded from host layout; FP16/BF16/
// FP8 values are printed as their bit patterns (exact, and what the file holds). Attributes
// are printed as the op's serialized layout (tosa/ops.def) holds them.
#include "tosa/json.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "tosa/attribute_layout.h"

namespace openvgf::tosa {

namespace {

using json = nlohmann::ordered_json;

json values(const Tensor& t, std::size_t maxValues) {
  json out = json::array();
  std::size_t eb = hostElementBytes(t.dtype);
  if (eb == 0 || !t.data) return out;
  std::size_t n = std::min(t.data->size() / eb, maxValues);
  const std::uint8_t* p = t.data->data();
  for (std::size_t i = 0; i < n; ++i, p += eb) {
    switch (t.dtype) {
      case DType::Bool: out.push_back(p[0] != 0); break;
      case DType::Int4:
      case DType::Int8: out.push_back(static_cast<std::int8_t>(p[0])); break;
      case DType::Int16: {
        std::int16_t v;
        std::memcpy(&v, p, 2);
        out.push_back(v);
        break;
      }
      case DType::Int32: {
        std::int32_t v;
        std::memcpy(&v, p, 4);
        out.push_back(v);
        break;
      }
      case DType::Int48:
      case DType::Shape: {
        std::int64_t v;
        std::memcpy(&v, p, 8);
        out.push_back(v);
        break;
      }
      case DType::Fp32: {
        float v;
        std::memcpy(&v, p, 4);
        out.push_back(v);
        break;
      }
      case DType::Fp16:
      case DType::Bf16: {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        out.push_back(v);
        break;
      }
      default: out.push_back(p[0]); break;
    }
  }
  return out;
}

json ints(const std::vector<std::int32_t>& v) {
  return json(v);
}

json attributes(const Operator& op) {
  json a = json::object();
  std::visit(
      [&](const auto& attrs) {
        using T = std::decay_t<decltype(attrs)>;
        if constexpr (std::is_same_v<T, ArgMaxAttrs>) {
          a["axis"] = attrs.axis;
          a["nan_mode"] = toString(attrs.nanMode);
        } else if constexpr (std::is_same_v<T, AvgPool2dAttrs>) {
          a["kernel"] = ints(attrs.kernel);
          a["stride"] = ints(attrs.stride);
          a["pad"] = ints(attrs.pad);
          a["acc_type"] = toString(attrs.accType);
        } else if constexpr (std::is_same_v<T, MaxPool2dAttrs>) {
          a["kernel"] = ints(attrs.kernel);
          a["stride"] = ints(attrs.stride);
          a["pad"] = ints(attrs.pad);
          a["nan_mode"] = toString(attrs.nanMode);
        } else if constexpr (std::is_same_v<T, ConvAttrs>) {
          a["pad"] = ints(attrs.pad);
          a["stride"] = ints(attrs.stride);
          a["dilation"] = ints(attrs.dilation);
          a["local_bound"] = attrs.localBound;
          a["acc_type"] = toString(attrs.accType);
        } else if constexpr (std::is_same_v<T, TransposeConv2dAttrs>) {
          a["out_pad"] = ints(attrs.outPad);
          a["stride"] = ints(attrs.stride);
          a["local_bound"] = attrs.localBound;
          a["acc_type"] = toString(attrs.accType);
        } else if constexpr (std::is_same_v<T, FftAttrs>) {
          if (detail::attrLayout(op.op) == detail::AttrLayout::Fft) a["inverse"] = attrs.inverse;
          a["local_bound"] = attrs.localBound;
        } else if constexpr (std::is_same_v<T, ClampAttrs>) {
          a["min_val"] = attrs.minVal;
          a["max_val"] = attrs.maxVal;
          a["nan_mode"] = toString(attrs.nanMode);
        } else if constexpr (std::is_same_v<T, ArithmeticRightShiftAttrs>) {
          a["round"] = attrs.round;
        } else if constexpr (std::is_same_v<T, NanModeAttrs>) {
          a["nan_mode"] = toString(attrs.nanMode);
        } else if constexpr (std::is_same_v<T, AxisAttrs>) {
          a["axis"] = attrs.axis;
          if (detail::attrLayout(op.op) == detail::AttrLayout::AxisNan) a["nan_mode"] = toString(attrs.nanMode);
        } else if constexpr (std::is_same_v<T, TransposeAttrs>) {
          a["perms"] = ints(attrs.perms);
        } else if constexpr (std::is_same_v<T, ResizeAttrs>) {
          a["mode"] = toString(attrs.mode);
        } else if constexpr (std::is_same_v<T, RescaleAttrs>) {
          a["scale32"] = attrs.scale32;
          a["rounding_mode"] = toString(attrs.roundingMode);
          a["per_channel"] = attrs.perChannel;
          a["input_unsigned"] = attrs.inputUnsigned;
          a["output_unsigned"] = attrs.outputUnsigned;
        } else if constexpr (std::is_same_v<T, CustomAttrs>) {
          a["operator_name"] = attrs.operatorName;
          a["domain_name"] = attrs.domainName;
          a["implementation_attrs"] = attrs.implementationAttrs;
        } else if constexpr (std::is_same_v<T, CondIfAttrs>) {
          a["then_graph"] = attrs.thenGraph;
          a["else_graph"] = attrs.elseGraph;
        } else if constexpr (std::is_same_v<T, WhileLoopAttrs>) {
          a["cond_graph"] = attrs.condGraph;
          a["body_graph"] = attrs.bodyGraph;
        }
      },
      op.attrs);
  return a;
}

}  // namespace

std::string toJson(const Graph& graph, const JsonOptions& options) {
  json root;
  root["version"] = {{"major", graph.version.major},
                     {"minor", graph.version.minor},
                     {"patch", graph.version.patch},
                     {"draft", graph.version.draft}};
  json regions = json::array();
  for (const Region& r : graph.regions) {
    json blocks = json::array();
    for (const Block& b : r.blocks) {
      json tensors = json::array();
      for (const Tensor& t : b.tensors) {
        json jt = {{"name", t.name}, {"type", toString(t.dtype)}, {"shape", t.shape}};
        if (t.variable) jt["variable"] = true;
        if (!t.variableName.empty()) jt["variable_name"] = t.variableName;
        if (t.isUnranked) jt["is_unranked"] = true;
        if (t.inShapeTable) jt["in_shape_table"] = true;
        if (t.data) {
          std::size_t eb = hostElementBytes(t.dtype);
          std::size_t count = eb == 0 ? 0 : t.data->size() / eb;
          jt["data"] = {{"elements", count},
                        {"values", values(t, options.maxValues)},
                        {"truncated", count > options.maxValues}};
        }
        tensors.push_back(std::move(jt));
      }
      json ops = json::array();
      for (const Operator& op : b.operators) {
        json jo = {{"op", toString(op.op)},
                   {"inputs", op.inputs},
                   {"outputs", op.outputs},
                   {"attributes", attributes(op)}};
        if (op.attributeTag != 0xFF && op.attributeTag != static_cast<std::uint32_t>(op.op)) {
          jo["attribute_tag"] = op.attributeTag;
        }
        if (op.location) jo["location"] = *op.location;
        ops.push_back(std::move(jo));
      }
      blocks.push_back({{"name", b.name},
                        {"inputs", b.inputs},
                        {"outputs", b.outputs},
                        {"tensors", std::move(tensors)},
                        {"operators", std::move(ops)}});
    }
    regions.push_back({{"name", r.name}, {"blocks", std::move(blocks)}});
  }
  root["regions"] = std::move(regions);
  // Names come from files: replace invalid UTF-8 instead of throwing.
  return root.dump(options.indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace openvgf::tosa
