// SPDX-License-Identifier: Apache-2.0
// Graph -> JSON with nlohmann::json. Constant values are decoded from host layout; FP16/BF16/
// FP8 values are printed as their bit patterns (exact, and what the file holds). Attributes
// are printed as the op's serialized layout holds them (tosa/attributes.def).
#include "tosa/json.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "tosa/attribute_fields.h"

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

template <detail::FieldKind K, typename T>
json fieldValue(const T& value) {
  using detail::FieldKind;
  if constexpr (K == FieldKind::AccType || K == FieldKind::NanMode || K == FieldKind::ResizeMode ||
                K == FieldKind::RoundingMode) {
    return toString(value);  // enumerations by their spec spelling
  } else {
    return json(value);  // numbers, booleans, strings and lists of numbers as they are
  }
}

// The fields tosa/attributes.def lists for the op's layout, by schema name, in schema order.
json attributes(const Operator& op) {
  json a = json::object();
  detail::visitLayout(detail::attrLayout(op.op), [&](auto layout) {
    constexpr detail::AttrLayout kLayout = decltype(layout)::value;
    const auto* attrs = std::get_if<detail::LayoutStruct<kLayout>>(&op.attrs);
    if (attrs == nullptr) return;
    detail::forEachField<kLayout>(*attrs, [&](auto kind, std::string_view name, std::uint16_t, const auto& value) {
      a[std::string(name)] = fieldValue<decltype(kind)::value>(value);
    });
  });
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
