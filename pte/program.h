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

/// An EValue of a plan (schema KernelTypes). Only what planning needs is kept.
struct Value {
  enum class Kind : std::uint8_t {
    None = 0, Null, Int, Bool, Double, Tensor, String, IntList, DoubleList, BoolList, TensorList, OptionalTensorList
  };
  Kind kind = Kind::None;
  std::int64_t intValue = 0;             // Int, Bool
  std::int8_t scalarType = 0;            // Tensor: ExecuTorch ScalarType
  std::vector<std::int32_t> sizes;       // Tensor
  std::vector<std::uint8_t> dimOrder;    // Tensor (empty: contiguous)
  std::uint32_t dataBufferIndex = 0;     // Tensor: > 0 when the program holds its data
  std::vector<std::int64_t> items;       // IntList; TensorList / OptionalTensorList value indexes
};
std::string_view toString(Value::Kind kind);
/// "Float", "Char", "Byte", ... (ExecuTorch ScalarType names); "ScalarType(<n>)" otherwise.
std::string scalarTypeName(std::int8_t scalarType);

struct Instruction {
  enum class Kind : std::uint8_t { None = 0, KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall };
  Kind kind = Kind::None;
  std::int32_t index = 0;          // op_index, delegate_index, move_from, cond_value_index, value_index
  std::int32_t target = 0;         // MoveCall: move_to; JumpFalseCall: destination_instruction
  std::vector<std::int32_t> args;  // KernelCall / DelegateCall: value indexes
};

struct Operator {
  std::string name;      // e.g. "aten::view_copy"
  std::string overload;  // e.g. "out"
};

struct ExecutionPlan {
  std::string name;
  std::vector<Delegate> delegates;
  std::vector<Value> values;
  std::vector<std::int32_t> inputs;   // value indexes
  std::vector<std::int32_t> outputs;  // value indexes
  std::vector<std::vector<Instruction>> chains;
  std::vector<Operator> operators;
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
