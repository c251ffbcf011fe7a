// SPDX-License-Identifier: Apache-2.0
// runner::Model: a validated, device-independent view of a VGF for execution. Everything a
// Session needs is checked here once (segments, modules, bindings, resources, constants, the
// model interface), so Session::create only deals with the device.
//
// Lifetime: SPIR-V words and constant payloads are spans into the bytes the vgf::File was
// decoded from; those bytes must outlive the Model and every Session::create call on it.
// A created Session no longer reads them (constants are on the device by then).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "tosa/host_tensor.h"
#include "vgf/file.h"
#include "vgf/spirv_info.h"
#include "vulkan/snapshot.h"

namespace openvgf::runner {

/// A model input or output.
struct TensorInfo {
  std::string name;             // from the VGF name table, else "input_<i>" / "output_<i>"
  std::uint32_t mrtIndex = 0;   // model resource table index
  std::uint32_t vkFormat = 0;   // raw VkFormat
  tosa::DType dtype = tosa::DType::Unknown;
  tosa::Shape shape;
  std::uint64_t bytes = 0;      // elementCount * storage bytes per element
};

/// InvalidInput naming the tensor when a value's dtype, shape or byte count is not `info`'s.
Status checkTensor(const TensorInfo& info, tosa::DType dtype, const tosa::Shape& shape, std::size_t bytes);

/// One resource of the model resource table as the runner sees it.
struct ResourceInfo {
  vgf::ResourceCategory category = vgf::ResourceCategory::Intermediate;
  std::uint32_t vkFormat = 0;
  tosa::Shape shape;
  std::uint64_t bytes = 0;                     // exact tensor bytes
  std::uint32_t aliasGroup = vgf::kUnset;      // intermediates only
  std::optional<std::uint32_t> constantIndex;  // into File::constants, for CONSTANT resources
  bool used = false;                           // bound by some segment or part of the interface
};

enum class Access : std::uint8_t { Read = 1, Write = 2, ReadWrite = 3 };

struct BindingInfo {
  std::uint32_t set = 0;
  std::uint32_t binding = 0;
  std::uint32_t mrtIndex = 0;
  Access access = Access::Read;
  bool listed = true;  // in the segment's inputs or outputs (else `access` is the runner's assumption)
  bool used = true;    // the module's entry point statically uses it (else the binding is inert)
};

struct ModuleInfo {
  std::string name;
  std::string entryPoint;
  std::span<const std::uint32_t> spirv;
  vulkan::FeatureSet features;         // from the OpCapability list
  std::uint32_t subgroupOperations = 0;
  std::uint32_t roundingModeRte = 0;  // vulkan::kFloatWidth* bits
  std::array<std::uint32_t, 3> localSize{1, 1, 1};  // invocations per workgroup, from the SPIR-V
  std::uint64_t sharedMemoryBytes = 0;              // Workgroup variables (a lower bound)
  std::string firstSegment;            // name of a segment that uses it (for messages)
};

struct SegmentInfo {
  std::string name;
  std::uint32_t moduleIndex = 0;
  std::array<std::uint32_t, 3> dispatch{1, 1, 1};  // workgroup counts
  std::vector<BindingInfo> bindings;               // sorted by (set, binding)
  // How its workgroups map to the images of a batch, from its module's record for this
  // dispatch (vgf::batchGrids; checked against the bindings), if the converter wrote one.
  std::optional<vgf::SpirvBatchGrid> batchGrid;
};

/// Largest sum of the bytes of a model's tensors, before any device limit is consulted.
inline constexpr std::uint64_t kMaxModelBytes = std::uint64_t{1} << 40;

/// Most shader invocations (workgroups x workgroup size, summed over segments) one run may
/// start. Each dispatch is also held to one workgroup per element of the largest tensor it
/// binds (Model::checkWork), so this only bounds models that are large as well as long: a
/// trillion invocations is hours on lavapipe and minutes on a datacentre GPU.
inline constexpr std::uint64_t kMaxRunInvocations = std::uint64_t{1} << 40;

/// The checks every compute module passes before a pipeline is made from it, whoever wrote it
/// (a VGF segment's module, a scenario's shader): spirv-val for Vulkan 1.3, workgroup barriers
/// that make shared memory visible, and at most 64 KiB of private memory per invocation.
Status checkComputeModule(std::span<const std::uint32_t> words, const vgf::SpirvModule& reflected,
                          const vgf::SpirvEntryPoint& entry);

class Model {
 public:
  /// Validates `file` for execution. `source` names the file in messages. GRAPH segments,
  /// modules without SPIR-V, non-buffer resources, dynamic shapes and capabilities no Vulkan
  /// compute device can enable are refused (Unsupported); inconsistencies are InvalidInput.
  /// Every module must pass spirv-val (Vulkan 1.3) and every segment must bind exactly what
  /// its module's entry point declares (set, binding, storage buffer, readonly/writeonly,
  /// element size, static size); intermediates must be written before they are read and
  /// members of one alias group must not be live at the same time (runner/README.md).
  static Result<Model> create(const vgf::File& file, std::string source);

  const std::string& source() const { return source_; }
  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  std::optional<std::size_t> findInput(std::string_view name) const;
  std::optional<std::size_t> findOutput(std::string_view name) const;

  const std::vector<ResourceInfo>& resources() const { return resources_; }
  const std::vector<SegmentInfo>& segments() const { return segments_; }
  /// Modules, indexed like File::modules (entries of unused modules are empty).
  const std::vector<ModuleInfo>& modules() const { return modules_; }
  /// Constant payloads, indexed like File::constants.
  const std::vector<std::span<const std::uint8_t>>& constantData() const { return constants_; }

  /// Union of the optional features every used module needs.
  vulkan::FeatureSet requiredFeatures() const;
  /// Checks the model against a device before anything is built: each module's capabilities
  /// (naming the capability and the segment), subgroup operations, descriptor-set count,
  /// dispatch sizes, and every tensor against maxStorageBufferRange (naming the tensor).
  Status checkDevice(const vulkan::DeviceSnapshot& device) const;

  /// "input 'x'" / "output 'y'" / "tensor 5" for messages about MRT entry `mrtIndex`.
  std::string describeTensor(std::uint32_t mrtIndex) const;

 private:
  Status checkResources(const vgf::File& file);
  Status attachConstants(const vgf::File& file);
  Status checkInterface(const vgf::File& file);
  Status checkModule(const vgf::File& file, std::uint32_t index, const std::string& segmentName);
  Status checkSegment(const vgf::File& file, std::size_t index);
  Status collectBindings(const vgf::Segment& segment, std::vector<BindingInfo>& bindings);
  Status checkWork(const SegmentInfo& segment) const;
  Status checkRunWork() const;
  Status checkBatchGrid(SegmentInfo& segment) const;
  Status checkExtents(std::uint32_t moduleIndex, const std::vector<BindingInfo>& bindings,
                      const std::string& moduleWhere) const;
  Status matchInterface(const std::vector<vgf::SpirvDescriptor>& declared, const std::vector<BindingInfo>& bindings,
                        const std::string& moduleWhere) const;
  Status checkDataflow() const;

  std::string source_;
  std::vector<TensorInfo> inputs_;
  std::vector<TensorInfo> outputs_;
  std::vector<ResourceInfo> resources_;
  std::vector<SegmentInfo> segments_;
  std::vector<ModuleInfo> modules_;
  std::vector<std::span<const std::uint8_t>> constants_;
  // Per module: the descriptors its entry point declares (checked against every segment).
  std::vector<std::vector<vgf::SpirvDescriptor>> moduleDescriptors_;
  // Per module, the tensors the converter compiled it for (vgf::bindingExtents; empty for a
  // module openvgf did not convert).
  std::vector<std::vector<vgf::SpirvBindingExtent>> moduleExtents_;
  // Per module, its batch grids (vgf::batchGrids; empty for a module without records).
  std::vector<std::vector<vgf::SpirvBatchGrid>> moduleGrids_;
};

}  // namespace openvgf::runner
