// SPDX-License-Identifier: Apache-2.0
// ExecuTorch program (.pte) reader (facts: specs/pte.md §0-§1): the "ET12" flatbuffer, the
// optional "eh00" extended header (24- and 32-byte variants), execution plans, delegates
// with backend id, compile specs and processed data at INLINE or SEGMENT locations, and the
// program's named-data keys. Each delegate payload is recognised by backend id: VgfBackend
// payloads are validated as VGF files, EthosUBackend / ArmBackend payloads as
// vela_bin_stream block chains, anything else is kept as raw bytes.
//
// A Program is a view of the file bytes (payloads and compile-spec values are spans); the
// bytes must outlive it and start 8-byte aligned (a MappedFile or std::vector is).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "ethosu/vela_bin_stream.h"
#include "vgf/file.h"

namespace openvgf::pte {

// Ethos-U payloads are read with the format library's vela_bin_stream reader.
using ::openvgf::ethosu::VelaBlock;
using ::openvgf::ethosu::VelaExternalRef;
using ::openvgf::ethosu::VelaIo;
using ::openvgf::ethosu::VelaStream;
using ::openvgf::ethosu::parseVelaBinStream;

enum class DataLocation : std::uint8_t { Inline = 0, Segment = 1 };
std::string_view toString(DataLocation location);  // "INLINE" / "SEGMENT"

enum class PayloadKind { Vgf, VelaBinStream, Raw };
std::string_view toString(PayloadKind kind);  // "vgf" / "vela_bin_stream" / "raw"
/// The payload kind a backend id implies ("VgfBackend" -> Vgf, "EthosUBackend"/"ArmBackend" ->
/// VelaBinStream).
PayloadKind payloadKindForBackend(std::string_view backendId);

struct CompileSpec {
  std::string key;
  std::span<const std::uint8_t> value;
};

struct Delegate {
  std::string backendId;
  DataLocation location = DataLocation::Inline;
  std::uint32_t dataIndex = 0;  // index into backend_delegate_data (INLINE) or segments (SEGMENT)
  std::vector<CompileSpec> compileSpecs;
  std::span<const std::uint8_t> payload;
  std::uint64_t payloadOffset = 0;  // absolute file offset of the first payload byte
  PayloadKind kind = PayloadKind::Raw;
  /// Why the payload is not a valid VGF / vela_bin_stream; empty when it is (or is raw).
  std::string payloadProblem;
  std::optional<VelaStream> vela;  // parsed Ethos-U stream
};

struct ExecutionPlan {
  std::string name;
  std::vector<Delegate> delegates;
};

struct ExtendedHeader {
  std::uint32_t length = 0;  // 24 (pre-1.0 writers) or 32
  std::uint64_t programSize = 0;
  std::uint64_t segmentBaseOffset = 0;
  std::uint64_t segmentDataSize = 0;  // 0 when length < 32
};

struct Segment {
  std::uint64_t offset = 0;  // relative to the segment base offset
  std::uint64_t size = 0;
};

struct NamedData {
  std::string key;
  std::uint32_t segmentIndex = 0;
};

struct Program {
  std::optional<ExtendedHeader> extendedHeader;
  std::uint64_t programSize = 0;        // flatbuffer bytes from offset 0
  std::uint64_t segmentBaseOffset = 0;  // 0 without extended header
  std::uint32_t version = 0;
  std::vector<ExecutionPlan> plans;
  std::size_t inlineDataCount = 0;
  std::vector<Segment> segments;
  std::vector<NamedData> namedData;  // keys into this program's segments
};

/// Reads a whole .pte. Container problems (header, flatbuffer, indexes, ranges) fail with
/// InvalidInput naming the element; payload problems are recorded in Delegate::payloadProblem.
Result<Program> readProgram(std::span<const std::uint8_t> bytes);

/// Decodes a VGF payload; copies it into `storage` first when it is not 4-byte aligned, in
/// which case the File views `storage`.
Result<vgf::File> decodeVgfPayload(std::span<const std::uint8_t> payload, std::vector<std::uint8_t>& storage);

}  // namespace openvgf::pte
