// SPDX-License-Identifier: Apache-2.0
// An owning, dense, row-major tensor in host memory: the value type of the reference
// interpreter, npy I/O and constant payloads. Element storage is described by
// tosa::hostElementBytes (one C++ scalar per element; INT4 in int8, INT48 in int64).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "tosa/types.h"

namespace openvgf::tosa {

using Shape = std::vector<std::int64_t>;

/// Number of elements of a shape (1 for rank 0). Callers validate dims >= 1 first.
inline std::int64_t elementCount(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

/// "[1,224,224,3]"
std::string shapeToString(const Shape& shape);

struct HostTensor {
  DType dtype = DType::Unknown;
  Shape shape;
  std::vector<std::uint8_t> bytes;  // elementCount(shape) * hostElementBytes(dtype)

  HostTensor() = default;
  HostTensor(DType type, Shape dims)
      : dtype(type), shape(std::move(dims)),
        bytes(static_cast<std::size_t>(elementCount(shape)) * hostElementBytes(type)) {}

  std::int64_t size() const { return elementCount(shape); }

  template <typename T>
  std::span<T> as() {
    return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
  template <typename T>
  std::span<const T> as() const {
    return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
  }

  bool operator==(const HostTensor& other) const = default;
};

}  // namespace openvgf::tosa
