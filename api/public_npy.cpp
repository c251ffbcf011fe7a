// SPDX-License-Identifier: Apache-2.0
// The installed API's .npy files (openvgf/openvgf.hpp NpyArray, readNpy, writeNpy) over
// tosa/npy.h, which holds the format and the NumPy <-> TOSA type rules, and toDoubles over
// tosa/compliance.h's decoding of every element type.
#include <cstring>

#include <fmt/format.h>

#include "api/public_state.h"
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

}  // namespace

NpyArray NpyArray::read(const std::string& path) {
  auto state = std::make_shared<detail::NpyState>();
  state->path = path;
  state->array = unwrap(tosa::npy::readFile(path));
  return NpyArray(std::move(state));
}

const std::string& NpyArray::path() const { return state_->path; }
const Shape& NpyArray::shape() const { return state_->array.shape; }
std::string NpyArray::numpyType() const { return std::string(tosa::npy::toString(state_->array.dtype)); }

Tensor NpyArray::toTensor(DataType dtype, const std::string& context) const {
  if (!isModelType(dtype)) raiseInvalid(fmt::format("{}: expected a TOSA type, got FP64", prefixed(context, path())));
  return fromHost(unwrap(tosa::npy::toHostTensor(state_->array, toDType(dtype), prefixed(context, path()))));
}

Tensor NpyArray::toTensor(const TensorInfo& input, const std::string& context) const {
  if (input.anyShape) return toTensor(input.dtype, context);
  if (!isModelType(input.dtype)) raiseInvalid(fmt::format("{}: expected a TOSA type, got FP64", prefixed(context, path())));
  return fromHost(
      unwrap(tosa::npy::toHostTensor(state_->array, toDType(input.dtype), input.shape, prefixed(context, path()))));
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
