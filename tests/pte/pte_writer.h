// SPDX-License-Identifier: Apache-2.0
// Test-only writer of ExecuTorch .pte programs with flatbuffers and openvgf's program
// schema, reproducing serialize_pte_binary's layout (specs/pte.md §1.3, §4.2): inline
// payloads in backend_delegate_data (16-byte aligned), or payloads moved into segments
// after an inserted eh00 extended header (24- or 32-byte length field, header block of 32
// or 64 bytes), segments aligned to 128 bytes.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "pte/program_generated.h"

namespace openvgf::pte::testing {

struct TestDelegate {
  std::string backendId;
  std::uint32_t payload = 0;  // index into TestProgram::payloads
  std::vector<std::pair<std::string, std::string>> compileSpecs;
  bool omitProcessed = false;  // no BackendDelegateDataReference table at all
};

/// An EValue: a tensor (scalar type + sizes), an IntList or an Int.
struct TestValue {
  enum class Kind { Tensor, IntList, Int } kind = Kind::Tensor;
  std::int8_t scalarType = 6;  // Float
  std::vector<std::int32_t> sizes{};
  std::vector<std::int64_t> items{};
  std::int64_t intValue = 0;
  std::uint32_t dataBufferIndex = 0;
};

struct TestInstruction {
  enum class Kind { Kernel, Delegate, Move, Free, JumpFalse } kind = Kind::Delegate;
  std::int32_t index = 0;   // op_index / delegate_index / move_from / value_index / cond
  std::int32_t target = 0;  // move_to / destination
  std::vector<std::int32_t> args{};
};

struct TestPlan {
  std::string name;
  std::vector<TestDelegate> delegates;
  // The instruction chain (written when `values` is not empty).
  std::vector<TestValue> values{};
  std::vector<std::int32_t> inputs{};
  std::vector<std::int32_t> outputs{};
  std::vector<TestInstruction> instructions{};
  std::vector<std::pair<std::string, std::string>> operators{};  // (name, overload)
};

struct TestProgram {
  std::vector<TestPlan> plans;
  std::vector<std::vector<std::uint8_t>> payloads;
  bool segments = false;           // payloads in segments instead of inline
  std::uint32_t headerLength = 0;  // 0: no eh00; 24 or 32
  std::size_t headerBlock = 32;    // bytes inserted at offset 8 (32, or 64 for delegate_alignment 64)
  std::vector<std::pair<std::string, std::uint32_t>> namedData;
};

/// A plan that calls VgfBackend delegate 0 (payload 0) once on FP32 tensors: values are the
/// inputs, then the outputs, with the shapes given; DelegateCall args are all of them.
inline TestPlan oneDelegatePlan(std::string name, const std::vector<std::vector<std::int32_t>>& inputs,
                                const std::vector<std::vector<std::int32_t>>& outputs) {
  TestPlan plan;
  plan.name = std::move(name);
  plan.delegates = {{"VgfBackend", 0, {}, false}};
  TestInstruction call{TestInstruction::Kind::Delegate, 0, 0, {}};
  for (const auto* shapes : {&inputs, &outputs}) {
    for (const std::vector<std::int32_t>& shape : *shapes) {
      const auto index = static_cast<std::int32_t>(plan.values.size());
      plan.values.push_back({TestValue::Kind::Tensor, 6, shape});
      (shapes == &inputs ? plan.inputs : plan.outputs).push_back(index);
      call.args.push_back(index);
    }
  }
  plan.instructions = {call};
  return plan;
}

inline std::size_t alignUp(std::size_t value, std::size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

template <typename T>
void putLe(std::vector<std::uint8_t>& out, std::size_t offset, T value) {
  std::memcpy(out.data() + offset, &value, sizeof(T));
}

/// Where each payload ends up, for the test oracles.
struct WrittenProgram {
  std::vector<std::uint8_t> bytes;
  std::vector<std::size_t> payloadOffsets;  // absolute file offsets, by payload index
  std::size_t programSize = 0;
  std::size_t segmentBase = 0;
};

/// One execution plan of a test program: its delegates and, when it has values, its chain.
inline flatbuffers::Offset<openvgf::pte::fb::ExecutionPlan> writePlan(flatbuffers::FlatBufferBuilder& b,
                                                                      const TestPlan& plan, bool segments) {
  namespace schema = openvgf::pte::fb;
  std::vector<flatbuffers::Offset<schema::BackendDelegate>> delegates;
  for (const TestDelegate& d : plan.delegates) {
    std::vector<flatbuffers::Offset<schema::CompileSpec>> specs;
    for (const auto& [key, value] : d.compileSpecs) {
      specs.push_back(schema::CreateCompileSpec(
          b, b.CreateString(key),
          b.CreateVector(reinterpret_cast<const std::uint8_t*>(value.data()), value.size())));
    }
    flatbuffers::Offset<schema::BackendDelegateDataReference> processed;
    if (!d.omitProcessed) {
      processed = schema::CreateBackendDelegateDataReference(
          b, segments ? schema::DataLocation::SEGMENT : schema::DataLocation::INLINE, d.payload);
    }
    delegates.push_back(
        schema::CreateBackendDelegate(b, b.CreateString(d.backendId), processed, b.CreateVector(specs)));
  }
  auto name = b.CreateString(plan.name);
  auto delegateVector = b.CreateVector(delegates);
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<schema::EValue>>> values;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<schema::Chain>>> chains;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<schema::Operator>>> operators;
  if (!plan.values.empty()) {
    std::vector<flatbuffers::Offset<schema::EValue>> evalues;
    for (const TestValue& v : plan.values) {
      switch (v.kind) {
        case TestValue::Kind::Tensor: {
          auto sizes = b.CreateVector(v.sizes);
          schema::TensorBuilder tb(b);
          tb.add_scalar_type(v.scalarType);
          tb.add_sizes(sizes);
          tb.add_data_buffer_idx(v.dataBufferIndex);
          evalues.push_back(schema::CreateEValue(b, schema::KernelTypes::Tensor, tb.Finish().Union()));
          break;
        }
        case TestValue::Kind::IntList:
          evalues.push_back(schema::CreateEValue(b, schema::KernelTypes::IntList,
                                                 schema::CreateIntList(b, b.CreateVector(v.items)).Union()));
          break;
        case TestValue::Kind::Int:
          evalues.push_back(schema::CreateEValue(b, schema::KernelTypes::Int, schema::CreateInt(b, v.intValue).Union()));
          break;
      }
    }
    values = b.CreateVector(evalues);
    std::vector<flatbuffers::Offset<schema::Instruction>> instructions;
    for (const TestInstruction& i : plan.instructions) {
      switch (i.kind) {
        case TestInstruction::Kind::Kernel:
          instructions.push_back(schema::CreateInstruction(b, schema::InstructionArguments::KernelCall,
                                                           schema::CreateKernelCall(b, i.index, b.CreateVector(i.args)).Union()));
          break;
        case TestInstruction::Kind::Delegate:
          instructions.push_back(schema::CreateInstruction(b, schema::InstructionArguments::DelegateCall,
                                                           schema::CreateDelegateCall(b, i.index, b.CreateVector(i.args)).Union()));
          break;
        case TestInstruction::Kind::Move:
          instructions.push_back(schema::CreateInstruction(b, schema::InstructionArguments::MoveCall,
                                                           schema::CreateMoveCall(b, i.index, i.target).Union()));
          break;
        case TestInstruction::Kind::Free:
          instructions.push_back(schema::CreateInstruction(b, schema::InstructionArguments::FreeCall,
                                                           schema::CreateFreeCall(b, i.index).Union()));
          break;
        case TestInstruction::Kind::JumpFalse:
          instructions.push_back(schema::CreateInstruction(b, schema::InstructionArguments::JumpFalseCall,
                                                           schema::CreateJumpFalseCall(b, i.index, i.target).Union()));
          break;
      }
    }
    auto chainInputs = b.CreateVector(plan.inputs);
    auto chainOutputs = b.CreateVector(plan.outputs);
    chains = b.CreateVector(std::vector<flatbuffers::Offset<schema::Chain>>{
        schema::CreateChain(b, chainInputs, chainOutputs, b.CreateVector(instructions))});
    std::vector<flatbuffers::Offset<schema::Operator>> ops;
    for (const auto& [opName, overload] : plan.operators) {
      ops.push_back(schema::CreateOperator(b, b.CreateString(opName), b.CreateString(overload)));
    }
    operators = b.CreateVector(ops);
  }
  auto planInputs = b.CreateVector(plan.inputs);
  auto planOutputs = b.CreateVector(plan.outputs);
  schema::ExecutionPlanBuilder pb(b);
  pb.add_name(name);
  pb.add_delegates(delegateVector);
  if (!plan.values.empty()) {
    pb.add_values(values);
    pb.add_inputs(planInputs);
    pb.add_outputs(planOutputs);
    pb.add_chains(chains);
    pb.add_operators(operators);
  }
  return pb.Finish();
}

inline WrittenProgram writeProgram(const TestProgram& spec) {
  namespace schema = openvgf::pte::fb;
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<schema::ExecutionPlan>> plans;
  for (const TestPlan& plan : spec.plans) plans.push_back(writePlan(b, plan, spec.segments));
  std::vector<flatbuffers::Offset<schema::BackendDelegateInlineData>> inlineData;
  std::vector<flatbuffers::Offset<schema::DataSegment>> segments;
  std::vector<std::size_t> segmentOffsets;
  std::size_t segmentEnd = 0;
  if (spec.segments) {
    std::size_t offset = 0;
    for (const auto& payload : spec.payloads) {
      segmentOffsets.push_back(offset);
      segments.push_back(schema::CreateDataSegment(b, offset, payload.size()));
      segmentEnd = offset + payload.size();
      offset = alignUp(offset + payload.size(), 128);
    }
  } else {
    for (const auto& payload : spec.payloads) {
      inlineData.push_back(schema::CreateBackendDelegateInlineDataDirect(b, &payload));
    }
    // A zero-size constant segment entry, as real inline files carry.
    segments.push_back(schema::CreateDataSegment(b, 0, 0));
  }
  std::vector<flatbuffers::Offset<schema::NamedData>> named;
  for (const auto& [key, index] : spec.namedData)
    named.push_back(schema::CreateNamedData(b, b.CreateString(key), index));
  auto root =
      schema::CreateProgram(b, 0, b.CreateVector(plans), b.CreateVector(inlineData), b.CreateVector(segments),
                            0, 0, named.empty() ? 0 : b.CreateVector(named));
  schema::FinishProgramBuffer(b, root);
  std::vector<std::uint8_t> fb(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());

  WrittenProgram out;
  if (spec.headerLength == 0) {
    out.bytes = fb;
    out.programSize = fb.size();
    // Segments with no header to find them (a malformed file the reader must reject).
    out.segmentBase = spec.segments ? alignUp(out.programSize, 128) : 0;
  } else {
    const std::size_t h = spec.headerBlock;
    out.programSize = fb.size() + h;
    out.segmentBase = spec.segments ? alignUp(out.programSize, 128) : 0;
    std::uint32_t rootOffset;
    std::memcpy(&rootOffset, fb.data(), 4);
    out.bytes.assign(8 + h, 0);
    putLe<std::uint32_t>(out.bytes, 0, rootOffset + static_cast<std::uint32_t>(h));
    std::memcpy(out.bytes.data() + 4, fb.data() + 4, 4);
    std::memcpy(out.bytes.data() + 8, "eh00", 4);
    putLe<std::uint32_t>(out.bytes, 12, spec.headerLength);
    putLe<std::uint64_t>(out.bytes, 16, out.programSize);
    putLe<std::uint64_t>(out.bytes, 24, out.segmentBase);
    if (spec.headerLength >= 32) putLe<std::uint64_t>(out.bytes, 32, segmentEnd);
    out.bytes.insert(out.bytes.end(), fb.begin() + 8, fb.end());
  }
  if (spec.segments) {
    for (std::size_t i = 0; i < spec.payloads.size(); ++i) {
      std::size_t at = out.segmentBase + segmentOffsets[i];
      out.bytes.resize(at, 0);
      out.bytes.insert(out.bytes.end(), spec.payloads[i].begin(), spec.payloads[i].end());
      out.payloadOffsets.push_back(at);
    }
  } else {
    // Find each inline payload through the flatbuffer itself (its position is the builder's choice).
    const auto* program = flatbuffers::GetRoot<schema::Program>(out.bytes.data());
    for (const auto* data : *program->backend_delegate_data()) {
      out.payloadOffsets.push_back(static_cast<std::size_t>(data->data()->data() - out.bytes.data()));
    }
  }
  return out;
}

}  // namespace openvgf::pte::testing
