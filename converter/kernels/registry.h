// SPDX-License-Identifier: Apache-2.0
// The kernel registry: one KernelSpec per op family (STYLE.md item 5). A spec names its
// operators, checks type combinations (the error names operator index, op and types) and
// lowers a Node (with its fused epilogue) to PlanKernels: template, defines, bindings, grid.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "converter/plan.h"
#include "tosa/types.h"

namespace openvgf::converter {

struct KernelSpec {
  std::string_view family;                  // e.g. "conv2d"
  std::vector<tosa::Op> ops;                // operators it lowers
  /// Ok if the node's type combination (and parameters) are supported.
  Status (*check)(const LoweringContext& ctx, const Node& node) = nullptr;
  Status (*lower)(LoweringContext& ctx, const Node& node) = nullptr;
  /// Which epilogue ops this family can fuse (nullptr: none).
  bool (*acceptsEpilogue)(const Program& program, const Node& node, const FusedOp& next) = nullptr;
  /// Which of its tensors the family binds by LoweringContext::storedType, computing in fp32
  /// whatever the storage, so that they may be stored narrower than their TOSA type
  /// (narrowStorage): its epilogue inputs and output, and its anchor's first input (the
  /// activations of a convolution or pool, not its weights or bias) or all of them.
  enum class Storage { TosaTypes, FirstInput, AllInputs };
  Storage storage = Storage::TosaTypes;
};

/// Every registered family, in registry order.
std::span<const KernelSpec> kernelSpecs();
/// The spec of an operator, or nullptr.
const KernelSpec* findKernel(tosa::Op op);

/// Under --precision fp16 (Tuning::fp16Storage): the fp32 buffers that every node touching
/// them binds by storage (KernelSpec::storage), model inputs, outputs and constants excepted,
/// each mapped to fp16; otherwise none. Keys are buffer names (Program::bufferOf).
std::map<std::string, tosa::DType> narrowStorage(const Program& program, const Target& target);

/// Lowers every node of the program (unsupported op/type => error naming it).
Result<Plan> lowerProgram(const Program& program, const Target& target);

// Family entries (one per converter/kernels/<family>.cpp).
KernelSpec elementwiseKernel();
KernelSpec conv2dKernel();
KernelSpec depthwiseConv2dKernel();
KernelSpec matmulKernel();
KernelSpec pool2dKernel();
KernelSpec reduceKernel();
KernelSpec dataLayoutKernel();
KernelSpec gatherKernel();
KernelSpec argmaxKernel();
KernelSpec resizeKernel();
KernelSpec transposeConv2dKernel();
KernelSpec conv3dKernel();
KernelSpec fftKernel();

}  // namespace openvgf::converter
