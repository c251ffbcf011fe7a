// SPDX-License-Identifier: Apache-2.0
// What a SPIR-V compute module declares, read once from its declaration section (everything
// before the first OpFunction): capabilities and extensions (what it asks of a device), and
// per entry point the workgroup size, the descriptor-bound variables with their set, binding,
// storage class, access qualifiers and buffer layout, and its shared memory; from the function
// bodies, which variables are loaded and stored and every OpControlBarrier. `openvgf inspect`
// shows the requirements; the runner checks a VGF's bindings against the interface before any
// Vulkan object is created (runner/model.cpp).
//
// This is a reflection, not a validator: spirv-val judges whether a module is valid. Every
// read is bounds-checked, so any word sequence gives a result or an error, never a crash.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace openvgf::vgf {

struct SpirvRequirements {
  std::vector<std::string> capabilities;  // e.g. "Float16", "CooperativeMatrixNV"; unknown: "Capability<n>"
  std::vector<std::string> extensions;    // e.g. "SPV_NV_cooperative_matrix"
};

/// Scans the module up to its first function. A malformed module yields what was read up to
/// the damage (the decoder and the runner report malformed code; this is for display).
SpirvRequirements spirvRequirements(std::span<const std::uint32_t> module);

/// SPIR-V storage classes (spec §3.7) that descriptor-bound variables use.
enum class SpirvStorageClass : std::uint32_t {
  UniformConstant = 0,
  Uniform = 2,
  Workgroup = 4,
  PushConstant = 9,
  StorageBuffer = 12,
};

/// What kind of descriptor a variable needs, from its storage class and block decoration.
enum class SpirvDescriptorKind : std::uint8_t {
  StorageBuffer,  // StorageBuffer + Block, or Uniform + BufferBlock
  UniformBuffer,  // Uniform + Block
  Other,          // images, samplers, acceleration structures (UniformConstant), ...
};

/// Scalar kinds of array elements.
enum class SpirvScalarKind : std::uint8_t { Other, SignedInt, UnsignedInt, Float };

/// A variable with DescriptorSet/Binding decorations that an entry point uses.
struct SpirvDescriptor {
  std::uint32_t id = 0;            // result id of the OpVariable (for messages)
  std::uint32_t set = 0;           // DescriptorSet decoration (0 when absent)
  std::uint32_t binding = 0;       // Binding decoration
  bool hasBinding = false;         // both decorations present
  std::uint32_t storageClass = 0;  // raw SPIR-V storage class
  SpirvDescriptorKind kind = SpirvDescriptorKind::Other;
  std::uint32_t descriptorCount = 1;  // array length of an arrayed variable; 0 = runtime-sized array
  bool nonWritable = false;           // on the variable, or on every member of its block
  bool nonReadable = false;
  std::uint64_t staticBytes = 0;     // block bytes before its runtime array (all of it without one)
  std::uint32_t elementStride = 0;   // bytes per element of the block's trailing array; 0 = none
  std::uint32_t componentBytes = 0;  // bytes of the element's scalar (of its vector); 0 = not a number
  SpirvScalarKind componentKind = SpirvScalarKind::Other;
  bool runtimeArray = false;  // the trailing array is runtime-sized
  // Static use in the module's functions (Vulkan's "statically used"): loads and stores through
  // the variable. `escaped`: a pointer into it reaches an instruction this scan does not follow
  // (a call, OpPhi, ...), so only the declared NonWritable/NonReadable tell what it does.
  bool used = false;
  bool loads = false;
  bool stores = false;
  bool escaped = false;
  /// Whether the module may write / read through the variable.
  bool mayWrite() const { return escaped ? !nonWritable : stores; }
  bool mayRead() const { return escaped ? !nonReadable : loads; }
};

struct SpirvEntryPoint {
  std::string name;
  std::uint32_t executionModel = 0;                 // 5 = GLCompute
  std::uint32_t id = 0;                             // the function's result id
  std::array<std::uint32_t, 3> localSize{0, 0, 0};  // resolved workgroup size; 0 = unknown
  bool localSizeId = false;                  // given by OpExecutionModeId LocalSizeId / LocalSizeHintId
  std::uint32_t roundingModeRteWidths = 0;   // bit w/16: RoundingModeRTE for float width 16, 32, 64
  std::vector<SpirvDescriptor> descriptors;  // in declaration order
  bool workgroupVariables = false;           // it declares Workgroup (shared) variables
  std::uint64_t workgroupBytes = 0;          // shared memory of its Workgroup variables (lower bound)
  bool pushConstants = false;                // uses a PushConstant variable
};

inline constexpr std::uint32_t kSpirvGlCompute = 5;
/// roundingModeRteWidths bits.
inline constexpr std::uint32_t kSpirvWidth16 = 1u << 0, kSpirvWidth32 = 1u << 1, kSpirvWidth64 = 1u << 2;

/// An OpControlBarrier of a function body. Scopes and semantics are <id>s of constants; an
/// operand that names no constant of the declarations is std::nullopt.
struct SpirvControlBarrier {
  std::size_t word = 0;  // offset of the instruction in the module
  std::optional<std::uint32_t> executionScope, memoryScope, semantics;
};

/// SPIR-V scope (§3.27) and memory-semantics (§3.25) values the runner's barrier rule reads.
inline constexpr std::uint32_t kSpirvScopeCrossDevice = 0, kSpirvScopeDevice = 1, kSpirvScopeWorkgroup = 2,
                               kSpirvScopeSubgroup = 3, kSpirvScopeQueueFamily = 5;
inline constexpr std::uint32_t kSpirvSemanticsOrdering = 0x2 | 0x4 | 0x8 | 0x10;  // Acquire ... SeqCst
inline constexpr std::uint32_t kSpirvSemanticsWorkgroupMemory = 0x100;

/// An Input variable decorated BuiltIn, with the shape of what it points to: `components` 1
/// for a scalar, n for an n-vector, 0 for anything else (arrays, structs, ...).
struct SpirvBuiltinInput {
  std::uint32_t id = 0;
  std::uint32_t builtIn = 0;     // SPIR-V spec §3.21
  std::uint32_t components = 0;  // 1 scalar, n vector, 0 other
  std::uint32_t bits = 0;        // the component width
  bool integer = false;          // OpTypeInt components
};

/// What the converter bound to one binding of a module: the tensor's vk_format and element
/// count. Storage buffers are runtime arrays, so the SPIR-V types cannot say how far a shader
/// reaches; the sizes it was compiled for are preprocessor constants. openvgf's converter
/// records them in the module as OpModuleProcessed strings (a debug instruction that every
/// consumer ignores, Arm's tools included) and the runner holds every segment to them.
struct SpirvBindingExtent {
  std::uint32_t set = 0;
  std::uint32_t binding = 0;
  std::uint32_t vkFormat = 0;
  std::uint64_t elements = 0;
  bool operator==(const SpirvBindingExtent&) const = default;
};

struct SpirvModule {
  std::uint32_t version = 0;                // header word 1 (0x00010600 = 1.6)
  std::vector<std::string> processes;       // OpModuleProcessed strings, in order
  std::vector<std::uint32_t> capabilities;  // OpCapability operands, in order
  std::vector<std::string> extensions;
  std::vector<SpirvEntryPoint> entryPoints;
  std::vector<SpirvControlBarrier> controlBarriers;  // in module order
  // An OpTypeCooperativeMatrixKHR of Workgroup scope (VK_NV_cooperative_matrix2), which no
  // capability announces.
  bool workgroupScopeMatrices = false;
  // Bytes of every Private and Function variable of the module (saturating; runtime arrays and
  // opaque types count 0): what one invocation may need of private memory, at most.
  std::uint64_t privateBytes = 0;
  std::vector<SpirvBuiltinInput> builtinInputs;  // in declaration order

  /// The entry point called `name`, or nullptr.
  const SpirvEntryPoint* findEntryPoint(std::string_view name) const;
};

/// Reads a module's declarations. InvalidInput naming the word offset when the words are not a
/// SPIR-V module (magic, header, instruction lengths, truncated operands).
Result<SpirvModule> reflectSpirv(std::span<const std::uint32_t> module);

/// `module` with one OpModuleProcessed "openvgf.binding set=S binding=B vk_format=F elements=N"
/// per extent, placed after the module's other debug instructions (SPIR-V §2.4, layout 7c).
/// The code is unchanged: only the words of those strings are added.
std::vector<std::uint32_t> recordBindingExtents(std::span<const std::uint32_t> module,
                                                std::span<const SpirvBindingExtent> extents);
/// `module` with one more OpModuleProcessed string (placed as recordBindingExtents places its
/// records); the code is unchanged, the words differ.
std::vector<std::uint32_t> recordProcess(std::span<const std::uint32_t> module, const std::string& text);
/// The extents recordBindingExtents wrote into a module (none for a module openvgf did not
/// convert); InvalidInput naming the string when one of openvgf's records is malformed or
/// names a binding twice.
Result<std::vector<SpirvBindingExtent>> bindingExtents(const SpirvModule& module);

/// How a kernel's workgroups map to the images of a batch, as openvgf's converter knows it and
/// records it in the module (OpModuleProcessed "openvgf.batch-grid dispatch=X,Y,Z axis=A images=N
/// per-image=R per-group=U bindings=B,..."), so that a runner may dispatch the groups of a few
/// images at a time, each piece as soon as its part of the input is on the device
/// (runner/piece_plan.h). Kernels that differ only in shape share a module (run-time shapes),
/// so a record names the dispatch (workgroup counts) of the segments it describes; a module
/// has at most one record per dispatch. The record promises, for a segment that runs the
/// module with that dispatch: along `axis`, workgroup g covers units [g * U, (g + 1) * U) of N * R
/// units, units [b * R, (b + 1) * R) being image b's; the other axes do not depend on the
/// image. The groups that cover only units of images [a, c) read and write, of each listed
/// binding (set 0: a buffer holding the N images one after another), only the bytes of images
/// [a, c); every binding not listed is only read, and whole.
struct SpirvBatchGrid {
  std::array<std::uint32_t, 3> dispatch{0, 0, 0};  // the segments' workgroup counts
  std::uint32_t axis = 0;  // 0 = x, 1 = y, 2 = z
  std::uint64_t images = 0;
  std::uint64_t unitsPerImage = 0;
  std::uint64_t unitsPerGroup = 0;
  std::vector<std::uint32_t> bindings;  // set 0, ascending
  bool operator==(const SpirvBatchGrid&) const = default;

  /// Workgroups along `axis` for the whole batch.
  std::uint64_t groups() const { return (images * unitsPerImage + unitsPerGroup - 1) / unitsPerGroup; }
  /// The first workgroup of image `image` (0 < image < images) when no group straddles the
  /// boundary before it, else nullopt; groups() for image == images.
  std::optional<std::uint64_t> firstGroupOf(std::uint64_t image) const;
};

/// `module` with one batch-grid record per grid added after its other debug instructions (as
/// recordBindingExtents does); the code is unchanged.
std::vector<std::uint32_t> recordBatchGrids(std::span<const std::uint32_t> module,
                                            std::span<const SpirvBatchGrid> grids);
/// The records recordBatchGrids wrote (none for a module without them); InvalidInput naming
/// the string when an "openvgf.batch-grid" record is malformed (zero or out-of-range numbers,
/// bindings not strictly ascending, a grid whose groups() is not its dispatch along its axis)
/// or two name one dispatch.
Result<std::vector<SpirvBatchGrid>> batchGrids(const SpirvModule& module);

/// "Int8", "StorageBuffer8BitAccess", ...; "Capability<n>" for numbers this table lacks.
std::string spirvCapabilityName(std::uint32_t capability);

}  // namespace openvgf::vgf
