// SPDX-License-Identifier: Apache-2.0
// File-kind detection from magic bytes (see file_kind.h).
#include "api/file_kind.h"

#include <cstring>

#include "common/bytes.h"

namespace openvgf::api {
namespace {

bool hasAt(std::span<const std::uint8_t> bytes, std::size_t offset, std::string_view magic) {
  return bytes.size() >= offset + magic.size() && std::memcmp(bytes.data() + offset, magic.data(), magic.size()) == 0;
}

// A ZIP archive's first member name says what wrote it: torch.save writes "<name>/data.pkl"
// (and "<name>/version"), numpy.savez "<array>.npy", Keras 3 "metadata.json"/"config.json".
std::string describeZip(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 30) return "a ZIP archive";
  const std::size_t nameLength = loadLe<std::uint16_t>(bytes, 26);
  if (bytes.size() < 30 + nameLength) return "a ZIP archive";
  const std::string_view name(reinterpret_cast<const char*>(bytes.data() + 30), nameLength);
  auto endsWith = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  if (endsWith("data.pkl") || endsWith("/version") || endsWith(".data/version") || endsWith("byteorder")) {
    return "a PyTorch model";
  }
  if (endsWith(".npy")) return "a NumPy .npz archive";
  if (name == "metadata.json" || name == "config.json") return "a Keras model";
  return "a ZIP archive";
}

// ONNX ModelProto: field 1 (ir_version, varint, tag 0x08) comes first in every exporter,
// with a small version, followed by another ModelProto field tag.
bool looksLikeOnnx(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 3 || bytes[0] != 0x08 || bytes[1] == 0 || bytes[1] > 20) return false;
  switch (bytes[2]) {
    case 0x12: case 0x1a: case 0x22: case 0x28: case 0x32: case 0x3a: case 0x42: return true;
    default: return false;
  }
}

}  // namespace

std::string_view toString(FileKind kind) {
  switch (kind) {
    case FileKind::Unknown: return "unknown";
    case FileKind::Tosa: return "TOSA flatbuffer";
    case FileKind::Vgf: return "VGF";
    case FileKind::Pte: return "ExecuTorch program";
    case FileKind::EthosU: return "Ethos-U command stream";
    case FileKind::Npy: return "NumPy array";
    case FileKind::SpirV: return "SPIR-V module";
  }
  return "unknown";
}

FileKind detectFileKind(std::span<const std::uint8_t> bytes) {
  if (hasAt(bytes, 4, "TOSA")) return FileKind::Tosa;
  if (hasAt(bytes, 4, "ET12")) return FileKind::Pte;
  // VGF: 'VGF1' or the deprecated magic 0xF0E1D2C3 (LE) at offset 0 of the 128-byte header.
  if (hasAt(bytes, 0, "VGF1") || hasAt(bytes, 0, "\xC3\xD2\xE1\xF0")) return FileKind::Vgf;
  if (hasAt(bytes, 0, "\x93NUMPY")) return FileKind::Npy;
  if (hasAt(bytes, 0, "\x03\x02\x23\x07")) return FileKind::SpirV;
  // Ethos-U: ExecuTorch vela_bin_stream (first block named "vela_bin_stream") or a raw
  // COP1 driver payload.
  if (hasAt(bytes, 0, "vela_bin_stream") || hasAt(bytes, 0, "COP1") || hasAt(bytes, 0, "COP2")) {
    return FileKind::EthosU;
  }
  return FileKind::Unknown;
}

std::string describeForeignFile(std::span<const std::uint8_t> bytes) {
  if (hasAt(bytes, 4, "TFL3")) return "a TensorFlow Lite model";
  if (hasAt(bytes, 4, "BP08")) return "an ExecuTorch bundled program";
  if (hasAt(bytes, 0, "PK\x03\x04")) return describeZip(bytes);
  if (hasAt(bytes, 0, "\x89HDF\r\n\x1a\n")) return "an HDF5 file, such as a Keras .h5 model";
  if (hasAt(bytes, 0, "GGUF")) return "a GGUF model";
  if (hasAt(bytes, 0, "ML\xEFR")) return "an MLIR bytecode file";
  if (hasAt(bytes, 0, "7767517")) return "an ncnn .param file";
  if (bytes.size() >= 2 && bytes[0] == 0x80 && bytes[1] >= 2 && bytes[1] <= 5) {
    return "a Python pickle, such as an old PyTorch .pt file";
  }
  // safetensors: 8-byte little-endian header length, then the JSON header.
  if (bytes.size() >= 10 && loadLe<std::uint32_t>(bytes, 4) == 0 && bytes[8] == '{' &&
      loadLe<std::uint32_t>(bytes, 0) <= bytes.size() - 8) {
    return "a safetensors file";
  }
  if (looksLikeOnnx(bytes)) return "an ONNX model";
  if (hasAt(bytes, 0, "module") || hasAt(bytes, 0, "func.func")) return "an MLIR text file";
  return {};
}

std::string describeFile(std::span<const std::uint8_t> bytes) {
  switch (detectFileKind(bytes)) {
    case FileKind::Tosa: return "a TOSA flatbuffer";
    case FileKind::Vgf: return "a VGF file";
    case FileKind::Pte: return "an ExecuTorch program";
    case FileKind::EthosU: return "an Ethos-U command stream";
    case FileKind::Npy: return "a NumPy array";
    case FileKind::SpirV: return "a SPIR-V module";
    case FileKind::Unknown: break;
  }
  std::string foreign = describeForeignFile(bytes);
  return foreign.empty() ? "a file of unknown format" : foreign;
}

}  // namespace openvgf::api
