// SPDX-License-Identifier: Apache-2.0
// NumPy .npy files (format versions 1.0, 2.0 and 3.0): the exchange format for model inputs,
// outputs and reference results. Only what a dense tensor needs is accepted: little-endian
// (or byte-order-free) scalar dtypes in C order. Big-endian data, Fortran order, object and
// structured dtypes, truncated data and malformed headers are refused with a message that
// names the file and the field.
//
// TOSA element types map onto NumPy dtypes as the TOSA tools do (specs/tosa.md §4.2):
// BOOL |b1, INT4/INT8 |i1, INT16 <i2, INT32 <i4, INT48 and SHAPE <i8, FP16 <f2, FP32 <f4,
// BF16 <V2 (raw bits; <u2 accepted), FP8E4M3/FP8E5M2 |u1 (<V1 accepted).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "tosa/host_tensor.h"
#include "tosa/types.h"

namespace openvgf::tosa::npy {

/// The element types openvgf reads and writes. Void1/Void2 are raw bytes (`V1`, `V2`), the
/// NumPy spelling of FP8 and BF16 payloads without ml_dtypes.
enum class DataType {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  Uint8,
  Uint16,
  Uint32,
  Uint64,
  Float16,
  Float32,
  Float64,
  Void1,
  Void2,
};

/// Bytes per element (1, 2, 4 or 8).
std::size_t elementBytes(DataType type);
/// The descr string written to files, e.g. "<f4", "|b1", "<V2".
std::string_view descr(DataType type);
/// NumPy's dtype name, e.g. "float32", "bool", "V2".
std::string_view toString(DataType type);
/// The type of a NumPy dtype name as toString() spells it; nullopt for any other name.
std::optional<DataType> typeNamed(std::string_view name);
/// Every name typeNamed() takes, comma-separated (for messages).
std::string typeNames();

/// A dense C-order array as stored in a .npy file; `data` holds little-endian elements.
struct Array {
  DataType dtype = DataType::Float32;
  Shape shape;                     // () = 0-d array, one element
  std::vector<std::uint8_t> data;  // elementCount(shape) * elementBytes(dtype)

  std::int64_t size() const { return elementCount(shape); }
  bool operator==(const Array&) const = default;
};

/// Parses a whole .npy file held in memory. `sourceName` prefixes every message.
Result<Array> parse(std::span<const std::uint8_t> bytes, std::string_view sourceName);
/// Reads and parses a .npy file.
Result<Array> readFile(const std::filesystem::path& path);

/// Serializes as format 1.0 (2.0 when the header needs more than 65535 bytes), header padded
/// to a multiple of 64 bytes as NumPy does.
std::vector<std::uint8_t> serialize(const Array& array);
/// Writes atomically (no partial file on failure).
Status writeFile(const std::filesystem::path& path, const Array& array);

/// Converts an array into a host tensor of TOSA type `dtype`. Accepted sources:
/// - integer types (INT4/8/16/32/48, SHAPE): any integer or bool array. A same-width unsigned
///   array is taken as the signless bit pattern (uint8 -> INT8 for RESCALE's unsigned mode);
///   other widths are converted with a range check that names the first offending element.
/// - BOOL: |b1, or any integer array holding only 0 and 1.
/// - FP32 <f4, FP16 <f2, BF16 <V2 or <u2, FP8 |u1, |V1 or |i1 (bit patterns).
/// `what` names the tensor in messages (e.g. "model.tosa: input 'x'"). When `expectedShape`
/// is given the array's shape must equal it.
Result<HostTensor> toHostTensor(const Array& array, DType dtype, std::string_view what);
Result<HostTensor> toHostTensor(const Array& array, DType dtype, const Shape& expectedShape,
                                std::string_view what);

/// Converts a host tensor to the array written for its TOSA type (see the file comment).
/// With `asUnsigned`, INT8/INT16/INT32 are written as uint8/uint16/uint32 bit patterns.
Result<Array> fromHostTensor(const HostTensor& tensor, bool asUnsigned = false);

/// readFile + toHostTensor; messages name the path.
Result<HostTensor> readTensor(const std::filesystem::path& path, DType dtype);
Result<HostTensor> readTensor(const std::filesystem::path& path, DType dtype, const Shape& expectedShape);
/// fromHostTensor + writeFile.
Status writeTensor(const std::filesystem::path& path, const HostTensor& tensor, bool asUnsigned = false);

}  // namespace openvgf::tosa::npy
