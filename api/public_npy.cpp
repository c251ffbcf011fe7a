// SPDX-License-Identifier: Apache-2.0
// The installed API's .npy files (openvgf/openvgf.hpp NpyArray, readNpy, writeNpy) over
// tosa/npy.h, which holds the format and the NumPy <-> TOSA type rules, and toDoubles over
// tosa/compliance.h's decoding of every element type.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "api/inspect.h"
#include "api/public_state.h"
#include "common/file_io.h"
#include "tosa/compliance.h"
#include "tosa/npy.h"

namespace openvgf {

namespace detail {
struct NpyState {
  std::string path;
  tosa::npy::Array array;
};
}  // namespace detail

namespace {

Tensor fromHost(tosa::HostTensor&& host) {
  return Tensor::copyOf(fromDType(host.dtype), host.shape, host.bytes.data(), host.bytes.size());
}

std::string prefixed(const std::string& context, const std::string& path) {
  return context.empty() ? path : fmt::format("{}: {}", context, path);
}

bool isUnsignedArray(tosa::npy::DataType t) {
  using T = tosa::npy::DataType;
  return t == T::Uint8 || t == T::Uint16 || t == T::Uint32 || t == T::Uint64;
}

bool isSignedArray(tosa::npy::DataType t) {
  using T = tosa::npy::DataType;
  return t == T::Int8 || t == T::Int16 || t == T::Int32 || t == T::Int64;
}

// The array given for `input`, after warning when its bytes read differently as the input's type.
Tensor checkedSignedness(Tensor tensor, const TensorInfo& input, const tosa::npy::Array& array, const std::string& context) {
  const bool integer = input.dtype == DataType::Int8 || input.dtype == DataType::Int16 || input.dtype == DataType::Int32;
  const bool sameWidth = tosa::npy::elementBytes(array.dtype) == elementSize(input.dtype);
  if (integer && sameWidth && (isUnsignedArray(array.dtype) || isSignedArray(array.dtype))) {
    warnIfReinterpreted(input, tensor, isUnsignedArray(array.dtype), context);
  }
  return tensor;
}

std::string indexText(const Shape& shape, std::int64_t flat) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  return fmt::format("[{}]", fmt::join(index, ","));
}

}  // namespace

NpyArray NpyArray::read(const std::string& path) {
  auto state = std::make_shared<detail::NpyState>();
  state->path = path;
  state->array = unwrap(tosa::npy::readFile(path));
  return NpyArray(std::move(state));
}

NpyArray NpyArray::readRaw(const std::string& path, const Shape& shape, const std::string& numpyType) {
  const std::optional<tosa::npy::DataType> type = tosa::npy::typeNamed(numpyType);
  if (!type) raiseInvalid(fmt::format("{}: type: expected one of {}, got '{}'", path, tosa::npy::typeNames(), numpyType));
  if (std::any_of(shape.begin(), shape.end(), [](std::int64_t d) { return d < 0; })) {
    raiseInvalid(fmt::format("{}: shape: expected dimensions >= 0, got [{}]", path, fmt::join(shape, ",")));
  }
  auto state = std::make_shared<detail::NpyState>();
  state->path = path;
  state->array.dtype = *type;
  state->array.shape = shape;
  const std::uint64_t expected = static_cast<std::uint64_t>(tosa::elementCount(shape)) * tosa::npy::elementBytes(*type);
  MappedFile file = unwrap(MappedFile::open(path));
  if (file.bytes().size() != expected) {
    raiseInvalid(fmt::format("{}: expected {} bytes ({} x {}), got {}", path, expected, fmt::join(shape, "x"),
                             numpyType, file.bytes().size()));
  }
  state->array.data.assign(file.bytes().begin(), file.bytes().end());
  return NpyArray(std::move(state));
}

const std::string& NpyArray::path() const { return state_->path; }
const Shape& NpyArray::shape() const { return state_->array.shape; }
std::string NpyArray::numpyType() const { return std::string(tosa::npy::toString(state_->array.dtype)); }

Tensor NpyArray::toTensor(DataType dtype, const std::string& context) const {
  TensorInfo input;
  input.dtype = dtype;
  input.anyShape = true;
  return toTensor(input, context);
}

Tensor NpyArray::toTensor(const TensorInfo& input, const std::string& context) const {
  const std::string what = prefixed(context, path());
  if (!isModelType(input.dtype)) raiseInvalid(fmt::format("{}: expected a TOSA type, got FP64", what));
  const tosa::DType dtype = toDType(input.dtype);
  Tensor tensor = fromHost(unwrap(input.anyShape ? tosa::npy::toHostTensor(state_->array, dtype, what)
                                                 : tosa::npy::toHostTensor(state_->array, dtype, input.shape, what)));
  return checkedSignedness(std::move(tensor), input, state_->array, what);
}

std::size_t warnIfReinterpreted(const TensorInfo& input, const Tensor& given, bool givenUnsigned, const std::string& context) {
  if (givenUnsigned == input.isUnsigned || given.location() != MemoryLocation::Host) return 0;
  const std::size_t bytes = elementSize(given.dtype());
  if (given.dtype() != DataType::Int8 && given.dtype() != DataType::Int16 && given.dtype() != DataType::Int32) return 0;
  // A value reads differently exactly when its top bit is set: >= 2^(bits-1) unsigned, < 0 signed.
  const auto* data = static_cast<const std::uint8_t*>(given.data());
  const std::int64_t count = given.elementCount();
  std::size_t changed = 0;
  std::int64_t first = -1;
  for (std::int64_t i = 0; i < count; ++i) {
    if ((data[static_cast<std::size_t>(i) * bytes + bytes - 1] & 0x80) == 0) continue;
    if (changed++ == 0) first = i;
  }
  if (changed == 0) return 0;
  const int bits = static_cast<int>(8 * bytes);
  std::int64_t asSigned = 0;
  std::memcpy(&asSigned, data + static_cast<std::size_t>(first) * bytes, bytes);
  asSigned -= std::int64_t{1} << bits;  // the top bit is set: sign-extend
  const std::int64_t asUnsigned = asSigned + (std::int64_t{1} << bits);
  const std::string inputType = fmt::format("{}{}", input.isUnsigned ? "U" : "", toString(input.dtype));
  spdlog::warn("{}: {} of {} values of this {}int{} array read differently as the {} input (element {}: {} -> {}); its "
               "bytes are taken as they are. Give {}int{} values to silence this (docs/limits.md, \"uint8 and int8\")",
               context, changed, count, givenUnsigned ? "u" : "", bits, inputType, indexText(given.shape(), first),
               givenUnsigned ? asUnsigned : asSigned, givenUnsigned ? asSigned : asUnsigned, input.isUnsigned ? "u" : "",
               bits);
  return changed;
}

std::vector<double> toDoubles(const Tensor& tensor) {
  if (tensor.location() != MemoryLocation::Host) raiseInvalid("toDoubles: expected a host tensor, got a device-resident one");
  if (tensor.dtype() == DataType::Float64) {
    const double* values = tensor.dataAs<double>();
    return std::vector<double>(values, values + tensor.elementCount());
  }
  tosa::HostTensor host(toDType(tensor.dtype()), tensor.shape());
  if (tensor.byteSize() != 0) std::memcpy(host.bytes.data(), tensor.data(), tensor.byteSize());
  return unwrap(tosa::compliance::toDoubles(host));
}

std::string summarizeValues(const Tensor& tensor, bool asUnsigned) {
  std::vector<double> values = toDoubles(tensor);
  const DataType t = tensor.dtype();
  if (asUnsigned && (t == DataType::Int8 || t == DataType::Int16 || t == DataType::Int32)) {
    const double range = std::ldexp(1.0, static_cast<int>(8 * elementSize(t)));
    for (double& v : values) v = v < 0 ? v + range : v;
  }
  return api::valueSummary(values);
}

Tensor readNpy(const std::string& path, DataType dtype) { return NpyArray::read(path).toTensor(dtype); }

void writeNpy(const std::string& path, const Tensor& tensor, bool asUnsigned) {
  if (tensor.location() != MemoryLocation::Host) {
    raiseInvalid(fmt::format("{}: expected a host tensor, got a device-resident one", path));
  }
  tosa::npy::Array array;
  if (tensor.dtype() == DataType::Float64) {
    array.dtype = tosa::npy::DataType::Float64;
    array.shape = tensor.shape();
    array.data.assign(tensor.dataAs<std::uint8_t>(), tensor.dataAs<std::uint8_t>() + tensor.byteSize());
  } else {
    tosa::HostTensor host(toDType(tensor.dtype()), tensor.shape());
    if (tensor.byteSize() != 0) std::memcpy(host.bytes.data(), tensor.data(), tensor.byteSize());
    array = unwrap(tosa::npy::fromHostTensor(host, asUnsigned));
  }
  unwrap(tosa::npy::writeFile(path, array));
}

}  // namespace openvgf
