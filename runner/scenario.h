// SPDX-License-Identifier: Apache-2.0
// Scenario files of Arm's ML SDK scenario-runner (JSON: resources and commands; the subset
// openvgf runs is in docs/scenario.md). load() reads the whole scenario and checks it before
// any Vulkan object exists: every field known, every reference to a declared resource of the
// right kind, .npy sources against the declared sizes, shapes and formats, each compute
// shader's SPIR-V against its bindings and push constants, and each graph's VGF interface
// against its bindings. ComputeDispatcher then runs `dispatch_compute` commands on a device;
// graphs run through the public Model in api/scenario.cpp, which drives the command list.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "runner/context.h"
#include "tosa/npy.h"
#include "vgf/spirv_info.h"
#include "vulkan/snapshot.h"

namespace openvgf::runner::scenario {

enum class ResourceKind { Buffer, Tensor, RawData, Graph, Shader, MemoryBarrier, BufferBarrier, TensorBarrier };

/// The JSON key of a resource kind ("buffer", "tensor", ...).
const char* toString(ResourceKind kind);

/// A graph's model input or output: the VGF binding slot the scenario binds by `id`.
struct GraphSlot {
  std::uint32_t binding = 0;
  std::uint32_t vkFormat = 0;
  tosa::Shape shape;
  std::uint64_t bytes = 0;
};

struct Resource {
  ResourceKind kind = ResourceKind::Buffer;
  std::string uid;
  std::string where;  // "resources[2] (buffer 'out')" for messages

  // buffer, tensor: the memory the commands share, `bytes` long, zero-filled or `initial`.
  std::uint64_t bytes = 0;
  std::uint32_t vkFormat = 0;  // tensor
  tosa::Shape dims;            // tensor
  bool readOnly = false;       // shader_access "readonly"
  std::vector<std::uint8_t> initial;  // from `src` (raw_data: its payload); empty = zeros
  std::filesystem::path dst;          // "" = not written
  tosa::npy::DataType dstType = tosa::npy::DataType::Int8;  // element type written to `dst`

  // shader
  std::vector<std::uint32_t> spirv;
  std::string entry = "main";
  std::uint32_t pushConstantBytes = 0;
  std::vector<vgf::SpirvDescriptor> descriptors;  // of the entry point
  bool usesPushConstants = false;
  std::array<std::uint32_t, 3> localSize{1, 1, 1};  // invocations per workgroup

  // graph
  std::filesystem::path vgf;
  std::vector<GraphSlot> inputs, outputs;  // in the VGF's model-sequence order

  // buffer_barrier, tensor_barrier: the resource they name (buffer_barrier: bytes
  // [rangeOffset, rangeOffset + rangeSize) of it)
  std::optional<std::size_t> target;
  std::uint64_t rangeOffset = 0, rangeSize = 0;
};

enum class CommandKind { DispatchCompute, DispatchGraph, DispatchBarrier, MarkBoundary };

struct Binding {
  std::uint32_t set = 0;
  std::uint32_t binding = 0;
  std::size_t resource = 0;  // index into Scenario::resources
};

struct Command {
  CommandKind kind = CommandKind::MarkBoundary;
  std::string where;  // "commands[1] (dispatch_compute)"
  std::size_t target = 0;  // the shader (dispatch_compute) or graph (dispatch_graph)
  std::vector<Binding> bindings;
  std::array<std::uint32_t, 3> groups{1, 1, 1};  // rangeND: workgroup counts
  std::optional<std::size_t> pushData;           // raw_data resource
  // dispatch_graph: the resource bound to each model input / output, in slot order.
  std::vector<std::size_t> graphInputs, graphOutputs;
};

struct Scenario {
  std::filesystem::path file;
  std::vector<Resource> resources;
  std::vector<Command> commands;
  vulkan::FeatureSet features;  // what the compute shaders need of a device
  bool hasCompute = false;
};

/// Most bytes of one buffer or tensor and of all of them together (the scenario lives in host
/// memory as well as on the device).
inline constexpr std::uint64_t kMaxResourceBytes = std::uint64_t{1} << 32;
inline constexpr std::uint64_t kMaxScenarioBytes = std::uint64_t{16} << 30;
/// Most shader invocations one dispatch_compute may start (workgroups x workgroup size).
inline constexpr std::uint64_t kMaxDispatchInvocations = std::uint64_t{1} << 36;

/// Reads and checks the scenario at `file` whole (paths resolve against its folder). Errors
/// name the file, the JSON path and what is supported: InvalidInput for malformed or
/// inconsistent scenarios, Unsupported for scenario-runner features openvgf does not run.
Result<Scenario> load(const std::filesystem::path& file);

/// Runs dispatch_compute commands on one device. Each dispatch is one submission that
/// finishes before the next command starts, so every barrier a scenario asks for (implicit,
/// dispatch_barrier) holds, and more.
class ComputeDispatcher {
 public:
  static Result<std::unique_ptr<ComputeDispatcher>> create(const Scenario& scenario, const ContextOptions& options);
  ~ComputeDispatcher();
  /// Runs `command` with `memory` (one byte vector per resource, indexed like
  /// Scenario::resources): bound resources are copied in, the ones the shader may write are
  /// copied back.
  Status dispatch(const Scenario& scenario, const Command& command, std::vector<std::vector<std::uint8_t>>& memory);
  /// An error when the validation layer reported one.
  Status checkValidation() const;

 private:
  struct Impl;
  explicit ComputeDispatcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace openvgf::runner::scenario
