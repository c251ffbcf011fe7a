// SPDX-License-Identifier: Apache-2.0
// The Ethos-U backend entry point: verifies the TOSA graph, runs the shared graph passes
// (constant folding, dead-code elimination), lowers the int8 graph to one NPU operation per
// (fused) graph operation, chooses block configurations, encodes weights and scales, plans the
// scratch arena, emits the register command stream and packages it as COP1 +
// vela_bin_stream.
//
// Supported (int8 activations, NHWC): CONV2D / DEPTHWISE_CONV2D (multiplier 1) / MATMUL with a
// constant B, each followed by RESCALE int32->int8 [+ CLAMP]; MAX_POOL2D; AVG_POOL2D (with
// padding: split into unpadded pools over regions of equal clipped window size); ADD/SUB in
// the RESCALE(i8->i32) x2 -> op -> RESCALE(i32->i8) form with per-tensor input rescales (one
// elementwise op when both input scales are 16-bit integers or one is exactly 2^19, else each
// input is first rescaled into int32 scratch by its own elementwise op); MUL with
// zero-point-removing (identity) input rescales; standalone RESCALE int8->int8; CLAMP; TABLE
// int8; RESHAPE/IDENTITY, CONCAT and SLICE on H/W/C as views; PAD folded into a following
// convolution or pool. Everything else is refused with a message naming the operator:
// nothing is approximated.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "ethosu/accelerator.h"
#include "tosa/graph.h"

namespace openvgf::converter::ethosu {

struct CompileOptions {
  std::string target{::openvgf::ethosu::kDefaultAccelerator};
};

struct CompileStats {
  std::size_t commands = 0;      ///< commands in the stream (including NPU_OP_STOP)
  std::size_t npuOperations = 0; ///< NPU_OP_CONV/DEPTHWISE/POOL/ELEMENTWISE
  std::size_t weightBytes = 0;   ///< encoded weight streams
  std::size_t scaleBytes = 0;    ///< scale/bias streams
  std::size_t constantBytes = 0; ///< other read-only data (constant feature maps, LUTs)
  std::uint32_t scratchSize = 0;
  std::uint64_t macs = 0;
  std::uint64_t cycles = 0;      ///< estimate: MACs / MACs-per-cycle + elementwise/pool elements / micro-block
};

struct IoTensor {
  std::string name;
  tosa::Shape shape;
  std::uint32_t offset = 0;  ///< byte offset in the scratch arena (region 1)
};

struct CompiledModel {
  std::vector<std::uint8_t> velaBinStream;  ///< the .ethosu file
  std::vector<std::uint8_t> cop1;           ///< cmd_data
  std::vector<std::uint8_t> weightData;     ///< region 0
  std::vector<IoTensor> inputs;
  std::vector<IoTensor> outputs;
  CompileStats stats;
};

/// `sourceName` prefixes error messages (usually the .tosa path). A graph that breaks a TOSA
/// rule is InvalidInput, an operator or shape the backend does not run Unsupported (both
/// exit 2 in the CLI); nothing in the graph can make it crash.
Result<CompiledModel> compile(const tosa::Graph& graph, const CompileOptions& options, std::string_view sourceName);

}  // namespace openvgf::converter::ethosu
