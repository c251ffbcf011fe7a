// SPDX-License-Identifier: Apache-2.0
// The explicit kernel table (one line per family) and the lowering driver.
#include "converter/kernels/registry.h"

#include <fmt/format.h>

#include "converter/kernels/common.h"

namespace openvgf::converter {

std::span<const KernelSpec> kernelSpecs() {
  static const std::vector<KernelSpec> specs = {
      elementwiseKernel(),
      conv2dKernel(),
      depthwiseConv2dKernel(),
      matmulKernel(),
      pool2dKernel(),
      reduceKernel(),
      dataLayoutKernel(),
      gatherKernel(),
      argmaxKernel(),
      resizeKernel(),
      transposeConv2dKernel(),
      conv3dKernel(),
      fftKernel(),
  };
  return specs;
}

const KernelSpec* findKernel(tosa::Op op) {
  for (const KernelSpec& spec : kernelSpecs()) {
    for (tosa::Op o : spec.ops) {
      if (o == op) return &spec;
    }
  }
  return nullptr;
}

std::map<std::string, tosa::DType> narrowStorage(const Program& program, const Target& target) {
  std::map<std::string, tosa::DType> storage;
  if (target.precision != Precision::Fp16 || !target.tuning.fp16Storage) return storage;
  // Per buffer: whether every node that touches it (through any alias) binds it by storage.
  std::map<std::string, bool> narrowable;
  auto touch = [&](const std::string& name, bool capable) {
    auto [it, fresh] = narrowable.emplace(program.bufferOf(name), capable);
    if (!fresh) it->second = it->second && capable;
  };
  for (const Node& node : program.nodes) {
    const KernelSpec* spec = findKernel(node.op.op);
    const auto binds = spec != nullptr ? spec->storage : KernelSpec::Storage::TosaTypes;
    const bool capable = binds != KernelSpec::Storage::TosaTypes;
    for (std::size_t i = 0; i < node.op.inputs.size(); ++i) {
      touch(node.op.inputs[i], capable && (i == 0 || binds == KernelSpec::Storage::AllInputs));
    }
    for (const FusedOp& f : node.epilogue) {
      for (const auto& name : f.op.inputs) touch(name, capable);
    }
    for (const auto& name : node.op.outputs) touch(name, capable);
    touch(node.output(), capable);
  }
  for (const auto& names : {program.inputs, program.outputs, program.variables}) {
    for (const auto& name : names) touch(name, false);
  }
  for (const auto& [name, capable] : narrowable) {
    const tosa::Tensor* t = program.find(name);
    if (capable && t != nullptr && t->dtype == tosa::DType::Fp32 && !program.isConstant(name)) {
      storage.emplace(name, tosa::DType::Fp16);
    }
  }
  return storage;
}

Result<Plan> lowerProgram(const Program& program, const Target& target) {
  Plan plan;
  LoweringContext ctx(program, target, plan);
  ctx.setStorage(narrowStorage(program, target));
  for (const auto& name : program.inputs) {
    if (program.find(name) == nullptr) return invalidInput("graph: input '{}': expected a tensor of the block", name);
    std::size_t id = ctx.tensorId(name);
    plan.tensors[id].category = vgf::ResourceCategory::Input;
    plan.inputs.push_back(id);
  }
  for (const Node& node : program.nodes) {
    for (const auto& name : node.op.outputs) {
      const tosa::Tensor* t = program.find(name);
      if (t == nullptr || !typeInfo(t->dtype)) {
        return unsupported("{}: output '{}': expected a tensor type with GPU storage, got {}", describeOp(program, node.op, node.index),
                           name, t ? tosa::toString(t->dtype) : "none");
      }
    }
    const KernelSpec* spec = findKernel(node.op.op);
    if (spec == nullptr) {
      return unsupported("{}: expected an operator with a Vulkan kernel, got none for this op",
                         describeOp(program, node.op, node.index));
    }
    OPENVGF_TRY(spec->check(ctx, node));
    OPENVGF_TRY(spec->lower(ctx, node));
  }
  for (const auto& name : program.outputs) {
    if (program.find(name) == nullptr) return invalidInput("graph: output '{}': expected a tensor of the block", name);
    std::size_t id = ctx.tensorId(name);
    if (plan.tensors[id].category == vgf::ResourceCategory::Input || plan.tensors[id].category == vgf::ResourceCategory::Constant) {
      return unsupported("graph: output '{}': expected a tensor computed by the graph, got a model {} passed through",
                         name, plan.tensors[id].category == vgf::ResourceCategory::Input ? "input" : "constant");
    }
    plan.tensors[id].category = vgf::ResourceCategory::Output;
    plan.outputs.push_back(id);
  }
  return plan;
}

}  // namespace openvgf::converter
