// SPDX-License-Identifier: Apache-2.0
// .pte reader (see program.h), following the extraction steps of specs/pte.md §0: file
// identifier, optional extended header, flatbuffer verification over [0, program_size),
// then each plan's delegates with their data resolved and bounds-checked against the
// flatbuffer (INLINE) or the file (SEGMENT, relative to the segment base offset).
#include "pte/program.h"
#include "common/bytes.h"

#include <flatbuffers/flatbuffers.h>
#include <fmt/format.h>

#include <cstring>

#include "pte/program_generated.h"
#include "vgf/decoder.h"

namespace openvgf::pte {
namespace {

namespace schema = openvgf::pte::fb;

constexpr std::size_t kMinExtendedHeaderLength = 24;

/// uint64 table fields read bytewise: the reader does not rely on the buffer's alignment.
std::uint64_t u64Field(const void* table, flatbuffers::voffset_t slot) {
  const std::uint8_t* address = reinterpret_cast<const flatbuffers::Table*>(table)->GetAddressOf(slot);
  return address == nullptr ? 0 : loadLe<std::uint64_t>(address);
}

std::string hexBytes(std::span<const std::uint8_t> bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) out += fmt::format("{}{:02X}", i == 0 ? "" : " ", bytes[i]);
  return out;
}

Result<ExtendedHeader> readExtendedHeader(std::span<const std::uint8_t> bytes) {
  ExtendedHeader header;
  if (bytes.size() < 16) {
    return invalidInput("extended header: expected its length field at offset 12, got a {}-byte file",
                        bytes.size());
  }
  header.length = loadLe<std::uint32_t>(bytes.data() + 12);
  if (header.length < kMinExtendedHeaderLength) {
    return invalidInput("extended header: length: expected at least {}, got {}", kMinExtendedHeaderLength,
                        header.length);
  }
  std::size_t needed = header.length >= 32 ? 40 : 32;
  if (bytes.size() < needed) {
    return invalidInput("extended header: expected {} bytes of file for a {}-byte header, got {}", needed,
                        header.length, bytes.size());
  }
  header.programSize = loadLe<std::uint64_t>(bytes.data() + 16);
  header.segmentBaseOffset = loadLe<std::uint64_t>(bytes.data() + 24);
  if (header.length >= 32) header.segmentDataSize = loadLe<std::uint64_t>(bytes.data() + 32);
  if (header.programSize < needed || header.programSize > bytes.size()) {
    return invalidInput("extended header: program_size: expected {} to {} (the file size), got {}", needed,
                        bytes.size(), header.programSize);
  }
  if (header.segmentBaseOffset > bytes.size()) {
    return invalidInput("extended header: segment_base_offset: expected at most the file size {}, got {}",
                        bytes.size(), header.segmentBaseOffset);
  }
  if (header.segmentDataSize > bytes.size() - header.segmentBaseOffset) {
    return invalidInput(
        "extended header: segment_data_size: expected at most {} (bytes after segment_base_offset "
        "{}), got {}",
        bytes.size() - header.segmentBaseOffset, header.segmentBaseOffset, header.segmentDataSize);
  }
  return header;
}

void recognisePayload(Delegate& delegate) {
  delegate.kind = payloadKindForBackend(delegate.backendId);
  if (delegate.kind == PayloadKind::Vgf) {
    std::vector<std::uint8_t> storage;
    Result<vgf::File> file = decodeVgfPayload(delegate.payload, storage);
    if (!file) delegate.payloadProblem = file.error().message();
  } else if (delegate.kind == PayloadKind::VelaBinStream) {
    Result<VelaStream> stream = parseVelaBinStream(delegate.payload);
    if (stream)
      delegate.vela = std::move(*stream);
    else
      delegate.payloadProblem = stream.error().message();
  }
}

std::vector<std::int32_t> ints(const flatbuffers::Vector<std::int32_t>* v) {
  return v == nullptr ? std::vector<std::int32_t>{} : std::vector<std::int32_t>(v->begin(), v->end());
}

Value readValue(const schema::EValue* e) {
  Value v;
  if (e == nullptr) return v;
  v.kind = static_cast<Value::Kind>(e->val_type());
  switch (e->val_type()) {
    case schema::KernelTypes::Int: v.intValue = e->val_as_Int()->int_val(); break;
    case schema::KernelTypes::Bool: v.intValue = e->val_as_Bool()->bool_val() ? 1 : 0; break;
    case schema::KernelTypes::Tensor: {
      const schema::Tensor* t = e->val_as_Tensor();
      v.scalarType = t->scalar_type();
      v.sizes = ints(t->sizes());
      if (t->dim_order() != nullptr) v.dimOrder.assign(t->dim_order()->begin(), t->dim_order()->end());
      v.dataBufferIndex = t->data_buffer_idx();
      break;
    }
    case schema::KernelTypes::IntList:
      if (const auto* items = e->val_as_IntList()->items()) v.items.assign(items->begin(), items->end());
      break;
    case schema::KernelTypes::TensorList:
      if (const auto* items = e->val_as_TensorList()->items()) v.items.assign(items->begin(), items->end());
      break;
    case schema::KernelTypes::OptionalTensorList:
      if (const auto* items = e->val_as_OptionalTensorList()->items()) v.items.assign(items->begin(), items->end());
      break;
    default:
      if (static_cast<std::uint8_t>(e->val_type()) > static_cast<std::uint8_t>(Value::Kind::OptionalTensorList)) {
        v.kind = Value::Kind::None;
      }
      break;
  }
  return v;
}

Instruction readInstruction(const schema::Instruction* i) {
  Instruction out;
  if (i == nullptr) return out;
  switch (i->instr_args_type()) {
    case schema::InstructionArguments::KernelCall:
      out.kind = Instruction::Kind::KernelCall;
      out.index = i->instr_args_as_KernelCall()->op_index();
      out.args = ints(i->instr_args_as_KernelCall()->args());
      break;
    case schema::InstructionArguments::DelegateCall:
      out.kind = Instruction::Kind::DelegateCall;
      out.index = i->instr_args_as_DelegateCall()->delegate_index();
      out.args = ints(i->instr_args_as_DelegateCall()->args());
      break;
    case schema::InstructionArguments::MoveCall:
      out.kind = Instruction::Kind::MoveCall;
      out.index = i->instr_args_as_MoveCall()->move_from();
      out.target = i->instr_args_as_MoveCall()->move_to();
      break;
    case schema::InstructionArguments::JumpFalseCall:
      out.kind = Instruction::Kind::JumpFalseCall;
      out.index = i->instr_args_as_JumpFalseCall()->cond_value_index();
      out.target = i->instr_args_as_JumpFalseCall()->destination_instruction();
      break;
    case schema::InstructionArguments::FreeCall:
      out.kind = Instruction::Kind::FreeCall;
      out.index = i->instr_args_as_FreeCall()->value_index();
      break;
    default: break;
  }
  return out;
}

/// The instruction chain of a plan: values, interface, instructions, operators.
void readPlanContents(const schema::ExecutionPlan* plan, ExecutionPlan& out) {
  if (const auto* values = plan->values()) {
    for (const schema::EValue* e : *values) out.values.push_back(readValue(e));
  }
  out.inputs = ints(plan->inputs());
  out.outputs = ints(plan->outputs());
  if (const auto* chains = plan->chains()) {
    for (const schema::Chain* chain : *chains) {
      std::vector<Instruction> instructions;
      if (chain->instructions() != nullptr) {
        for (const schema::Instruction* i : *chain->instructions()) instructions.push_back(readInstruction(i));
      }
      out.chains.push_back(std::move(instructions));
    }
  }
  if (const auto* operators = plan->operators()) {
    for (const schema::Operator* op : *operators) {
      out.operators.push_back({op->name() == nullptr ? std::string() : std::string(op->name()->string_view()),
                               op->overload() == nullptr ? std::string() : std::string(op->overload()->string_view())});
    }
  }
}

}  // namespace

std::string_view toString(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::None: return "None";
    case Value::Kind::Null: return "Null";
    case Value::Kind::Int: return "Int";
    case Value::Kind::Bool: return "Bool";
    case Value::Kind::Double: return "Double";
    case Value::Kind::Tensor: return "Tensor";
    case Value::Kind::String: return "String";
    case Value::Kind::IntList: return "IntList";
    case Value::Kind::DoubleList: return "DoubleList";
    case Value::Kind::BoolList: return "BoolList";
    case Value::Kind::TensorList: return "TensorList";
    case Value::Kind::OptionalTensorList: return "OptionalTensorList";
  }
  return "None";
}

std::string scalarTypeName(std::int8_t scalarType) {
  switch (scalarType) {
    case 0: return "Byte";
    case 1: return "Char";
    case 2: return "Short";
    case 3: return "Int";
    case 4: return "Long";
    case 5: return "Half";
    case 6: return "Float";
    case 7: return "Double";
    case 11: return "Bool";
    case 15: return "BFloat16";
    default: return fmt::format("ScalarType({})", scalarType);
  }
}

std::string_view toString(DataLocation location) {
  return location == DataLocation::Segment ? "SEGMENT" : "INLINE";
}

std::string_view toString(PayloadKind kind) {
  switch (kind) {
    case PayloadKind::Vgf: return "vgf";
    case PayloadKind::VelaBinStream: return "vela_bin_stream";
    case PayloadKind::Raw: break;
  }
  return "raw";
}

PayloadKind payloadKindForBackend(std::string_view backendId) {
  if (backendId == "VgfBackend") return PayloadKind::Vgf;
  if (backendId == "EthosUBackend" || backendId == "ArmBackend") return PayloadKind::VelaBinStream;
  return PayloadKind::Raw;
}

Result<vgf::File> decodeVgfPayload(std::span<const std::uint8_t> payload,
                                   std::vector<std::uint8_t>& storage) {
  if (reinterpret_cast<std::uintptr_t>(payload.data()) % 4 != 0) {
    storage.assign(payload.begin(), payload.end());
    return vgf::decode(storage);
  }
  return vgf::decode(payload);
}

Result<Program> readProgram(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 8) {
    return invalidInput("file identifier: expected \"ET12\" at offset 4, got a {}-byte file", bytes.size());
  }
  if (std::memcmp(bytes.data() + 4, "ET12", 4) != 0) {
    return invalidInput("file identifier: expected \"ET12\" at offset 4, got {}",
                        hexBytes(bytes.subspan(4, 4)));
  }
  if (reinterpret_cast<std::uintptr_t>(bytes.data()) % 8 != 0) {
    return internalError("program buffer: expected an 8-byte aligned buffer in memory");
  }
  Program program;
  program.programSize = bytes.size();
  if (bytes.size() >= 12 && std::memcmp(bytes.data() + 8, "eh00", 4) == 0) {
    OPENVGF_ASSIGN_OR_RETURN(ExtendedHeader header, readExtendedHeader(bytes));
    program.programSize = header.programSize;
    program.segmentBaseOffset = header.segmentBaseOffset;
    program.extendedHeader = header;
  }
  if (program.programSize > FLATBUFFERS_MAX_BUFFER_SIZE) {
    return invalidInput("program: expected a flatbuffer of at most {} bytes, got {}",
                        FLATBUFFERS_MAX_BUFFER_SIZE, program.programSize);
  }
  flatbuffers::Verifier verifier(bytes.data(), static_cast<std::size_t>(program.programSize));
  if (!verifier.VerifyBuffer<schema::Program>("ET12")) {
    return invalidInput(
        "program: expected a valid ExecuTorch Program flatbuffer in bytes [0, {}), got data that fails "
        "verification",
        program.programSize);
  }
  const schema::Program* root = flatbuffers::GetRoot<schema::Program>(bytes.data());
  program.version = root->version();
  const auto* inlineData = root->backend_delegate_data();
  program.inlineDataCount = inlineData == nullptr ? 0 : inlineData->size();
  if (const auto* segments = root->segments()) {
    for (const schema::DataSegment* segment : *segments) {
      program.segments.push_back({u64Field(segment, schema::DataSegment::VT_OFFSET),
                                  u64Field(segment, schema::DataSegment::VT_SIZE)});
    }
  }
  if (const auto* named = root->named_data()) {
    for (const schema::NamedData* entry : *named) {
      NamedData data;
      data.key = entry->key() == nullptr ? std::string() : std::string(entry->key()->string_view());
      data.segmentIndex = entry->segment_index();
      if (data.segmentIndex >= program.segments.size()) {
        return invalidInput("program: named_data '{}': segment_index: expected < {} (segment count), got {}",
                            data.key, program.segments.size(), data.segmentIndex);
      }
      program.namedData.push_back(std::move(data));
    }
  }
  if (root->execution_plan() == nullptr) return program;
  for (flatbuffers::uoffset_t p = 0; p < root->execution_plan()->size(); ++p) {
    const schema::ExecutionPlan* plan = root->execution_plan()->Get(p);
    ExecutionPlan out;
    out.name = plan->name() == nullptr ? std::string() : std::string(plan->name()->string_view());
    if (plan->delegates() != nullptr) {
      for (flatbuffers::uoffset_t d = 0; d < plan->delegates()->size(); ++d) {
        const schema::BackendDelegate* entry = plan->delegates()->Get(d);
        const std::string where = fmt::format("execution_plan[{}] '{}': delegates[{}]", p, out.name, d);
        Delegate delegate;
        delegate.backendId = entry->id() == nullptr ? std::string() : std::string(entry->id()->string_view());
        // An absent reference or absent fields mean INLINE, index 0 (schema defaults).
        std::int8_t location = 0;
        if (const schema::BackendDelegateDataReference* processed = entry->processed()) {
          location = static_cast<std::int8_t>(processed->location());
          delegate.dataIndex = processed->index();
        }
        if (location != 0 && location != 1) {
          return invalidInput("{}: processed.location: expected 0 (INLINE) or 1 (SEGMENT), got {}", where,
                              location);
        }
        delegate.location = static_cast<DataLocation>(location);
        if (const auto* specs = entry->compile_specs()) {
          for (const schema::CompileSpec* spec : *specs) {
            CompileSpec compileSpec;
            compileSpec.key =
                spec->key() == nullptr ? std::string() : std::string(spec->key()->string_view());
            if (const auto* value = spec->value()) compileSpec.value = {value->data(), value->size()};
            delegate.compileSpecs.push_back(std::move(compileSpec));
          }
        }
        if (delegate.location == DataLocation::Inline) {
          if (delegate.dataIndex >= program.inlineDataCount) {
            return invalidInput("{}: processed.index: expected < {} (backend_delegate_data entries), got {}",
                                where, program.inlineDataCount, delegate.dataIndex);
          }
          if (const auto* data = inlineData->Get(delegate.dataIndex)->data()) {
            delegate.payload = {data->data(), data->size()};
            delegate.payloadOffset = static_cast<std::uint64_t>(data->data() - bytes.data());
          }
        } else {
          if (!program.extendedHeader) {
            return invalidInput(
                "{}: processed.location: expected INLINE in a file without the eh00 extended header, "
                "got SEGMENT",
                where);
          }
          if (delegate.dataIndex >= program.segments.size()) {
            return invalidInput("{}: processed.index: expected < {} (segments), got {}", where,
                                program.segments.size(), delegate.dataIndex);
          }
          const Segment& segment = program.segments[delegate.dataIndex];
          const std::uint64_t available = bytes.size() - program.segmentBaseOffset;
          if (segment.offset > available || segment.size > available - segment.offset) {
            return invalidInput(
                "{}: segments[{}]: expected offset + size <= {} (file bytes after the segment base "
                "offset {}), got offset {} size {}",
                where, delegate.dataIndex, available, program.segmentBaseOffset, segment.offset,
                segment.size);
          }
          delegate.payloadOffset = program.segmentBaseOffset + segment.offset;
          delegate.payload = bytes.subspan(static_cast<std::size_t>(delegate.payloadOffset),
                                           static_cast<std::size_t>(segment.size));
        }
        recognisePayload(delegate);
        out.delegates.push_back(std::move(delegate));
      }
    }
    readPlanContents(plan, out);
    program.plans.push_back(std::move(out));
  }
  return program;
}

}  // namespace openvgf::pte
