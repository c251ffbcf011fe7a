// SPDX-License-Identifier: Apache-2.0
// The TOSA graph IR shared by the reader/writer, verifier, reference interpreter and every
// backend. It mirrors the 1.0 serialization (graph -> regions -> blocks -> operators and
// tensors, all connected by tensor names) with typed attributes, so read -> write -> read is
// lossless, and it is plain data so passes can walk and rewrite it.
//
// Conventions:
// - Constant payloads are stored in host layout (see tosa::hostElementBytes), not packed.
// - Shape values (shape_t) are Tensors with dtype SHAPE, shape [rank] and int64 data; where a
//   file held them in TosaBasicBlock.shapes, `inShapeTable` is set so the writer puts them back.
// - Operators keep the serialized attribute union tag (which may disagree with `op`, e.g.
//   IDENTITY carrying a VariableReadAttribute); semantics always follow `op`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tosa/host_tensor.h"
#include "tosa/types.h"

namespace openvgf::tosa {

//===------------------------------------------------------------------===//
// Attributes (specs/tosa.md §1.2). One struct per attribute table shape.
//===------------------------------------------------------------------===//

struct ArgMaxAttrs {
  std::int32_t axis = 0;
  NanMode nanMode = NanMode::Propagate;
  bool operator==(const ArgMaxAttrs&) const = default;
};

struct AvgPool2dAttrs {
  std::vector<std::int32_t> kernel;  // [ky, kx]
  std::vector<std::int32_t> stride;  // [sy, sx]
  std::vector<std::int32_t> pad;     // [top, bottom, left, right]
  DType accType = DType::Unknown;    // INT32 / FP16 / FP32
  bool operator==(const AvgPool2dAttrs&) const = default;
};

struct MaxPool2dAttrs {
  std::vector<std::int32_t> kernel;
  std::vector<std::int32_t> stride;
  std::vector<std::int32_t> pad;
  NanMode nanMode = NanMode::Propagate;
  bool operator==(const MaxPool2dAttrs&) const = default;
};

/// CONV2D, CONV3D and DEPTHWISE_CONV2D.
struct ConvAttrs {
  std::vector<std::int32_t> pad;       // 2D: [top, bottom, left, right]; 3D: [d0, d1, top, bottom, left, right]
  std::vector<std::int32_t> stride;    // 2D: [y, x]; 3D: [d, y, x]
  std::vector<std::int32_t> dilation;  // 2D: [y, x]; 3D: [d, y, x]
  bool localBound = false;
  DType accType = DType::Unknown;      // INT32 / INT48 / FP16 / FP32
  bool operator==(const ConvAttrs&) const = default;
};

struct TransposeConv2dAttrs {
  std::vector<std::int32_t> outPad;  // [top, bottom, left, right]
  std::vector<std::int32_t> stride;  // [y, x]
  bool localBound = false;
  DType accType = DType::Unknown;
  bool operator==(const TransposeConv2dAttrs&) const = default;
};

/// FFT2D (inverse + local_bound) and RFFT2D (local_bound only).
struct FftAttrs {
  bool inverse = false;
  bool localBound = false;
  bool operator==(const FftAttrs&) const = default;
};

/// CLAMP bounds: the raw bytes of one element of the input type in host layout
/// (int8: 1 byte, int16/fp16/bf16: 2 bytes, fp32: 4 bytes), as serialized minus padding.
struct ClampAttrs {
  std::vector<std::uint8_t> minVal;
  std::vector<std::uint8_t> maxVal;
  NanMode nanMode = NanMode::Propagate;
  bool operator==(const ClampAttrs&) const = default;
};

struct ArithmeticRightShiftAttrs {
  bool round = false;
  bool operator==(const ArithmeticRightShiftAttrs&) const = default;
};

/// MAXIMUM, MINIMUM.
struct NanModeAttrs {
  NanMode nanMode = NanMode::Propagate;
  bool operator==(const NanModeAttrs&) const = default;
};

/// REDUCE_ALL/ANY/PRODUCT/SUM, CONCAT, REVERSE; REDUCE_MAX/MIN also use nanMode.
struct AxisAttrs {
  std::int32_t axis = 0;
  NanMode nanMode = NanMode::Propagate;  // only serialized for REDUCE_MAX / REDUCE_MIN
  bool operator==(const AxisAttrs&) const = default;
};

struct TransposeAttrs {
  std::vector<std::int32_t> perms;
  bool operator==(const TransposeAttrs&) const = default;
};

struct ResizeAttrs {
  ResizeMode mode = ResizeMode::Unknown;
  bool operator==(const ResizeAttrs&) const = default;
};

struct RescaleAttrs {
  bool scale32 = false;
  RoundingMode roundingMode = RoundingMode::Unknown;
  bool perChannel = false;
  bool inputUnsigned = false;
  bool outputUnsigned = false;
  bool operator==(const RescaleAttrs&) const = default;
};

struct CustomAttrs {
  std::string operatorName;
  std::string domainName;
  std::vector<std::uint8_t> implementationAttrs;
  bool operator==(const CustomAttrs&) const = default;
};

struct CondIfAttrs {
  std::string thenGraph;  // region name (new style) or block name (old style)
  std::string elseGraph;
  bool operator==(const CondIfAttrs&) const = default;
};

struct WhileLoopAttrs {
  std::string condGraph;
  std::string bodyGraph;
  bool operator==(const WhileLoopAttrs&) const = default;
};

/// monostate = an empty attribute table (ADD, RESHAPE, ...).
using Attributes =
    std::variant<std::monostate, ArgMaxAttrs, AvgPool2dAttrs, MaxPool2dAttrs, ConvAttrs,
                 TransposeConv2dAttrs, FftAttrs, ClampAttrs, ArithmeticRightShiftAttrs, NanModeAttrs,
                 AxisAttrs, TransposeAttrs, ResizeAttrs, RescaleAttrs, CustomAttrs, CondIfAttrs,
                 WhileLoopAttrs>;

//===------------------------------------------------------------------===//
// Graph structure.
//===------------------------------------------------------------------===//

struct Tensor {
  std::string name;
  Shape shape;                          // every dim >= 1 in a valid graph; [] = rank 0
  DType dtype = DType::Unknown;
  std::optional<std::vector<std::uint8_t>> data;  // host-layout payload for constants/variables
  bool variable = false;                // EXT-VARIABLE state tensor; data = initial value
  bool isUnranked = false;
  std::string variableName;
  std::uint64_t externalOffset = 0;     // TosaTensor.offset: data outside the flatbuffer (>2 GB models)
  std::uint64_t externalSize = 0;       // TosaTensor.size
  bool inShapeTable = false;            // shape value that came from (and goes to) TosaBasicBlock.shapes

  bool operator==(const Tensor&) const = default;
};

struct Operator {
  Op op = Op::Unknown;
  Attributes attrs;
  /// Serialized attribute union tag; 0xFF means "derive from op when writing".
  std::uint8_t attributeTag = 0xFF;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::optional<std::string> location;  // OpLocation.text (opaque debug text)

  bool operator==(const Operator&) const = default;
};

struct Block {
  std::string name;
  std::vector<Operator> operators;
  std::vector<Tensor> tensors;  // includes shape values (see Tensor::inShapeTable)
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;

  const Tensor* findTensor(std::string_view tensorName) const;
  Tensor* findTensor(std::string_view tensorName);

  bool operator==(const Block&) const = default;
};

struct Region {
  std::string name;
  std::vector<Block> blocks;
  bool operator==(const Region&) const = default;
};

struct Version {
  std::int32_t major = 1;
  std::int32_t minor = 0;
  std::int32_t patch = 0;
  bool draft = false;
  bool operator==(const Version&) const = default;
};

struct Graph {
  Version version;
  std::vector<Region> regions;

  /// regions[0].blocks: the block named "main", else the first block. nullptr if none.
  const Block* mainBlock() const;
  Block* mainBlock();

  /// Resolves a control-flow graph name: a region's first block (new style) or a block of
  /// the region that holds `from` (old style).
  const Block* findGraph(std::string_view name) const;

  /// The block holding the COND_IF / WHILE_LOOP operator that names `block` as one of its
  /// graphs; nullptr for the main block and for blocks nothing refers to.
  const Block* parentBlock(const Block& block) const;

  /// Resolves a tensor name as seen from `block`: the block's own tensors first, then those
  /// of its parent block, outward (nested blocks may use the parent's tensors by name).
  const Tensor* findTensor(const Block& block, std::string_view tensorName) const;

  bool operator==(const Graph&) const = default;
};

/// A tensor's constant payload as a HostTensor (requires tensor.data).
HostTensor constantValue(const Tensor& tensor);

}  // namespace openvgf::tosa
