// SPDX-License-Identifier: Apache-2.0
// The stages compile() runs after lowering, one file each: block configuration
// (block_config.cpp), weight and scale encoding (weights.cpp), scratch arena placement
// (arena.cpp) and register emission (emit.cpp for U55/U65, emit_u85.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/error.h"
#include "ethosu/command_stream.h"
#include "converter/ethosu/compiler.h"
#include "converter/ethosu/npu_op.h"
#include "ethosu/accelerator.h"

namespace openvgf::converter::ethosu {

using ::openvgf::ethosu::AcceleratorConfig;

/// Picks the block configuration (and, on U55/U65, the SHRAM layout) of every op; refuses
/// an op for which no block fits.
Status chooseBlocks(std::vector<NpuOp>& ops, const AcceleratorConfig& config);

/// U85: the OFM block and micro-block of one op (emit_u85.cpp).
Status chooseU85Block(NpuOp& op, const AcceleratorConfig& config);

/// Orders and encodes each convolution's weights and per-channel records into the read-only
/// data (one weight stream per core; scales first, then weights, each 16-byte aligned), and
/// fills the op's stream offsets and lengths.
Status encodeWeights(std::vector<NpuOp>& ops, const AcceleratorConfig& config, std::vector<std::uint8_t>& readOnly,
                     CompileStats& stats);

/// U85: the op's weight streams (one per core) and its scale stream (emit_u85.cpp).
Status encodeU85Weights(NpuOp& op, const AcceleratorConfig& config, std::vector<std::uint8_t>& readOnly, CompileStats& stats);

/// Lifetime-based first-fit placement of the scratch buffers; `pinned` buffers (graph inputs
/// and outputs) never share space. Returns the arena size, counted in 64 bits so that a sum
/// past 4 GiB is seen (and refused by compile()) rather than wrapped.
std::uint64_t planArena(std::vector<Buffer>& buffers, const std::vector<int>& pinned);

/// The byte address of a view in its region.
using AddressOf = std::function<std::uint32_t(const View&)>;

/// The command stream of the ops, ending with NPU_OP_STOP; counts operations and estimates
/// cycles in `stats`.
std::vector<std::uint32_t> emitU55(const std::vector<NpuOp>& ops, const AcceleratorConfig& config, const AddressOf& address,
                                   CompileStats& stats);
std::vector<std::uint32_t> emitU85(const std::vector<NpuOp>& ops, const AcceleratorConfig& config, const AddressOf& address,
                                   CompileStats& stats);

/// One operation's registers and its NPU_OP command, in a product's layout.
using EmitOperation = void (*)(::openvgf::ethosu::Emitter&, const NpuOp&, const AcceleratorConfig&, const AddressOf&);
/// Every op through `emitOne`, then NPU_OP_STOP; counts operations, MACs, estimated cycles and
/// commands in `stats`; returns the stream's words.
std::vector<std::uint32_t> emitOperations(::openvgf::ethosu::Emitter& e, const std::vector<NpuOp>& ops,
                                          const AcceleratorConfig& config, const AddressOf& address, CompileStats& stats,
                                          EmitOperation emitOne);
/// IFM, IFM2 or OFM registers of one view: region, single-tile bases and sizes, strides
/// (shared by the U55/U65 and U85 emitters; the precision registers differ).
void emitFeatureMap(::openvgf::ethosu::Emitter& e, const View& v, std::uint32_t address, std::uint16_t regionReg,
                    std::uint16_t base0, std::uint16_t height0, std::uint16_t height1, std::uint16_t width0,
                    std::uint16_t strideX);
/// IFM_UPSCALE, the IFM padding (none for elementwise ops), the OFM view and its shape and zero
/// point: the registers whose layout every product shares.
void emitPaddingAndOfm(::openvgf::ethosu::Emitter& e, const NpuOp& op, std::uint32_t ofmAddress, bool elementwise);
/// KERNEL_HEIGHT/WIDTH and KERNEL_STRIDE (same layout on every product).
void emitKernel(::openvgf::ethosu::Emitter& e, const NpuOp& op);

/// Appends `bytes` to the read-only data at a 16-byte boundary; returns the offset.
std::uint32_t appendReadOnly(std::vector<std::uint8_t>& readOnly, std::span<const std::uint8_t> bytes);
/// The OHWI weights in a stream's order (zero at padding positions).
std::vector<std::int16_t> weightsInOrder(std::span<const std::int64_t> order, std::span<const std::int16_t> ohwi);

/// The cycle estimate of one op: MACs over the NPU's MACs per cycle, or elements (times the
/// kernel) over the micro-block for ops without MACs.
std::uint64_t estimateCycles(const NpuOp& op, const AcceleratorConfig& config);

}  // namespace openvgf::converter::ethosu
