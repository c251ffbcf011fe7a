// SPDX-License-Identifier: Apache-2.0
// What a file is, from its first bytes (never from its extension): the kinds openvgf reads,
// and, for anything else, what the file looks like (ONNX, TensorFlow Lite, PyTorch, ...) so
// that a refusal can say so.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace openvgf::api {

enum class FileKind { Unknown, Tosa, Vgf, Pte, EthosU, Npy, SpirV };

/// "TOSA flatbuffer", "VGF", "ExecuTorch program", ...
std::string_view toString(FileKind kind);
FileKind detectFileKind(std::span<const std::uint8_t> bytes);

/// For a file openvgf does not read: "an ONNX model", "a TensorFlow Lite model", ...; empty
/// when the bytes match no format openvgf knows of.
std::string describeForeignFile(std::span<const std::uint8_t> bytes);

/// "a VGF", "an ExecuTorch program", "an ONNX model", "a file of unknown format": what to call
/// a file in a message.
std::string describeFile(std::span<const std::uint8_t> bytes);

}  // namespace openvgf::api
