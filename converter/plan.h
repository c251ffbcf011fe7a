// SPDX-License-Identifier: Apache-2.0
// The lowered form of a model, between kernel selection and VGF emission: tensors
// (with category, storage type and, for constants, their payload) and kernels (a shader
// instance, its binding list and its dispatch grid), in execution order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "converter/program.h"
#include "converter/shader_compiler.h"
#include "converter/targets/target.h"
#include "tosa/host_tensor.h"
#include "vgf/file.h"
#include "vgf/spirv_info.h"

namespace openvgf::converter {

struct PlanTensor {
  std::string name;                        // TOSA tensor name ("" for converter-made constants)
  tosa::DType dtype = tosa::DType::Unknown;
  tosa::Shape shape;
  vgf::ResourceCategory category = vgf::ResourceCategory::Intermediate;
  std::vector<std::uint8_t> data;          // constants: payload in storage layout
};

struct PlanKernel {
  std::string name;                        // segment name, e.g. "CONV2D_3"
  ShaderInstance shader;
  std::vector<std::size_t> bindings;       // plan tensor per binding 0..n-1 (descriptor set 0)
  std::vector<bool> writes;                // per binding: the kernel writes it
  std::array<std::uint32_t, 3> grid{1, 1, 1};  // workgroup counts
  bool splitKPartial = false;              // the partial pass of a split-K GEMM (its reduction follows)
  // How its workgroups map to the images of a batch, where the kernel family knows
  // (vgf::SpirvBatchGrid; `dispatch` is `grid`): recorded in its module for the runner.
  std::optional<vgf::SpirvBatchGrid> batchGrid;
};

struct Plan {
  std::vector<PlanTensor> tensors;
  std::vector<PlanKernel> kernels;
  std::vector<std::size_t> inputs;         // model inputs (plan tensor ids)
  std::vector<std::size_t> outputs;
};

/// Helpers the kernel families use to build a Plan from Nodes.
class LoweringContext {
 public:
  LoweringContext(const Program& program, const Target& target, Plan& plan)
      : program_(program), target_(target), plan_(plan) {}

  const Program& program() const { return program_; }
  const Target& target() const { return target_; }

  const tosa::Tensor& tensor(const std::string& name) const { return *program_.find(name); }
  /// The element type `name`'s buffer holds: its TOSA type, or the narrower float type the
  /// lowering chose for it (narrowStorage, kernels/registry.h). Kernels type their bindings
  /// with it; the values keep their TOSA type's meaning.
  tosa::DType storedType(const std::string& name) const;
  /// Buffers (by the name bufferOf gives) stored in a narrower type than their TOSA type.
  void setStorage(std::map<std::string, tosa::DType> storage) { storage_ = std::move(storage); }
  /// The plan tensor of a TOSA tensor (created on first use; constants get their payload,
  /// identical constants are stored once).
  std::size_t tensorId(const std::string& name);
  /// A converter-made constant (e.g. pre-transposed weights), deduplicated by content.
  std::size_t addConstant(tosa::DType dtype, tosa::Shape shape, std::vector<std::uint8_t> data);
  /// A converter-made intermediate buffer (e.g. between the passes of a two-pass kernel).
  std::size_t addIntermediate(tosa::DType dtype, tosa::Shape shape);
  /// A CTC input's value, or an error naming the operator if it is not constant.
  Result<tosa::HostTensor> constantInput(const Node& node, std::size_t input, std::string_view what) const;
  void addKernel(PlanKernel kernel) { plan_.kernels.push_back(std::move(kernel)); }
  /// A plan tensor made by tensorId, addConstant or addIntermediate.
  const PlanTensor& planTensor(std::size_t id) const { return plan_.tensors.at(id); }

 private:
  const Program& program_;
  const Target& target_;
  Plan& plan_;
  std::map<std::string, std::size_t> byName_;
  std::map<std::string, tosa::DType> storage_;
  std::map<std::string, std::size_t> byContent_;  // constant payload hash -> tensor
};

/// "<index> <OP>" prefix for messages about a node.
std::string nodeLabel(const Node& node);

}  // namespace openvgf::converter
