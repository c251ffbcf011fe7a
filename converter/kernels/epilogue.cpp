// SPDX-License-Identifier: Apache-2.0
// Fused epilogues of GEMM-like kernels (see epilogue.h): the chain of elementwise operators
// becomes EPI_BODY, calls of shaders/include/ew_ops.glsl like the elementwise family's.
#include "converter/kernels/epilogue.h"

#include <algorithm>

#include <fmt/format.h>

#include "converter/kernels/common.h"
#include "converter/kernels/data_layout.h"
#include "tosa/op_table.h"

namespace openvgf::converter {
namespace {

constexpr std::size_t kMaxEpilogueInputs = 2;

// How an extra epilogue input is indexed: like the output, or per channel (last dim).
enum class EpiIndex { None, Output, Channel, Scalar };

EpiIndex epilogueIndexing(const Program& program, const std::string& name, const tosa::Shape& outShape) {
  const tosa::Tensor* t = program.find(name);
  if (t == nullptr) return EpiIndex::None;
  if (program.isConstant(name) && tosa::elementCount(t->shape) == 1) return EpiIndex::Scalar;
  if (t->shape == outShape) return EpiIndex::Output;
  if (!outShape.empty() && t->shape.size() == outShape.size() && t->shape.back() == outShape.back() &&
      tosa::elementCount(t->shape) == outShape.back()) {
    return EpiIndex::Channel;
  }
  return EpiIndex::None;
}

// The store position of each result when the epilogue ends with a TRANSPOSE (fused by
// fuse-transposes): `i` indexes the transpose's input, as the kernel produces it; the
// function returns its offset in the transposed output. Dims of size 1 are skipped.
Result<std::string> transposedIndexFunction(const tosa::Tensor& input, const tosa::Tensor& output,
                                            const tosa::Operator& transpose) {
  const auto* attrs = std::get_if<tosa::TransposeAttrs>(&transpose.attrs);
  const std::size_t rank = input.shape.size();
  if (attrs == nullptr || attrs->perms.size() != rank || output.shape.size() != rank) {
    return invalidInput("TRANSPOSE: expected one perm per input dim");
  }
  // Output dim d is input dim perms[d], so input dim perms[d] advances by the output's stride d.
  const std::vector<std::int64_t> outStride = rowMajorStrides(output.shape);
  std::vector<std::int64_t> strideOfInputDim(rank, 0);
  for (std::size_t d = 0; d < rank; ++d) {
    const auto from = attrs->perms[d];
    if (from < 0 || static_cast<std::size_t>(from) >= rank) return invalidInput("TRANSPOSE: perm {} out of range", from);
    strideOfInputDim[static_cast<std::size_t>(from)] = outStride[d];
  }
  std::string body = "uint o = 0u; ";
  for (std::size_t d = rank; d-- > 0;) {
    const std::int64_t dim = input.shape[d];
    if (dim == 1) continue;
    body += fmt::format("o += (i % {}u) * {}u; i /= {}u; ", dim, strideOfInputDim[d], dim);
  }
  return fmt::format("uint ovgf_transposed_index(uint i) {{ {}return o; }} ", body);
}

// Whether the epilogue's operators from `first` on read nothing but the previous result and
// scalar constants.
bool readsOnlyScalarsFrom(const Program& program, const Node& node, std::size_t first) {
  for (std::size_t k = first; k < node.epilogue.size(); ++k) {
    const FusedOp& f = node.epilogue[k];
    const tosa::Tensor* fOut = program.find(f.op.outputs.at(0));
    for (std::size_t i : dataInputs(f.op)) {
      if (i == f.chainInput || fOut == nullptr) continue;
      if (epilogueIndexing(program, f.op.inputs[i], fOut->shape) != EpiIndex::Scalar) return false;
    }
  }
  return true;
}

}  // namespace

bool endsWithTranspose(const Node& node) {
  return !node.epilogue.empty() && node.epilogue.back().op.op == tosa::Op::Transpose;
}

bool epilogueFusable(const Program& program, const Node& node, const FusedOp& next) {
  if (!tosa::isElementwise(next.op.op) || next.op.op == tosa::Op::Identity || endsWithTranspose(node)) return false;
  const tosa::Tensor* prevOut = program.find(node.output());
  const tosa::Tensor* nextOut = program.find(next.op.outputs.at(0));
  if (prevOut == nullptr || nextOut == nullptr || prevOut->shape != nextOut->shape) return false;
  std::vector<std::string> extra;
  auto collect = [&](const tosa::Operator& op, std::size_t chainInput) -> bool {
    for (std::size_t i : dataInputs(op)) {
      if (i == chainInput) continue;
      EpiIndex how = epilogueIndexing(program, op.inputs[i], nextOut->shape);
      if (how == EpiIndex::None) return false;
      if (how == EpiIndex::Scalar) continue;
      if (std::find(extra.begin(), extra.end(), op.inputs[i]) == extra.end()) extra.push_back(op.inputs[i]);
    }
    return true;
  };
  for (const FusedOp& f : node.epilogue) {
    if (!collect(f.op, f.chainInput)) return false;
  }
  if (!collect(next.op, next.chainInput)) return false;
  return extra.size() <= kMaxEpilogueInputs;
}

bool epilogueStartsWithResidualAdd(const Program& program, const Node& node) {
  if (node.epilogue.empty() || endsWithTranspose(node)) return false;
  const FusedOp& add = node.epilogue.front();
  const tosa::Tensor* out = program.find(node.op.outputs.at(0));
  if (add.op.op != tosa::Op::Add || add.op.inputs.size() != 2 || add.chainInput > 1 || out == nullptr ||
      out->dtype != tosa::DType::Fp32) {
    return false;
  }
  const std::string& residual = add.op.inputs[1 - add.chainInput];
  const tosa::Tensor* r = program.find(residual);
  if (r == nullptr || r->dtype != tosa::DType::Fp32 ||
      epilogueIndexing(program, residual, out->shape) != EpiIndex::Output) {
    return false;
  }
  // The kernel adds 0 where the accumulator holds the residual, so no later operator may
  // read it, and it must be the epilogue's only tensor input (e0).
  return readsOnlyScalarsFrom(program, node, 1);
}

bool epilogueIsPerElement(const Program& program, const Node& node, bool residualStarted) {
  if (endsWithTranspose(node)) return false;
  for (const FusedOp& f : node.epilogue) {
    const tosa::Tensor* fOut = program.find(f.op.outputs.at(0));
    if (fOut == nullptr || !tosa::isFloat(fOut->dtype)) return false;
  }
  return readsOnlyScalarsFrom(program, node, residualStarted ? 1 : 0);
}

Status buildEpilogue(LoweringContext& ctx, const Node& node, const std::string& accCompute, ShaderDefines& defines,
                     PlanKernel& kernel, std::vector<std::int32_t> params, std::vector<std::size_t>* tableSlots) {
  const Program& p = ctx.program();
  const tosa::Tensor& anchorOut = ctx.tensor(node.op.outputs.at(0));
  // A fused TRANSPOSE only moves where results are stored: the elementwise chain before it
  // is indexed like the tensor the transpose reads.
  const bool transposed = endsWithTranspose(node);
  const std::size_t chainOps = node.epilogue.size() - (transposed ? 1 : 0);
  const tosa::Tensor& finalOut =
      ctx.tensor(chainOps == 0 ? node.op.outputs.at(0) : node.epilogue[chainOps - 1].op.outputs.at(0));
  auto anchorInfo = typeInfo(anchorOut.dtype);
  if (!anchorInfo) return unsupported("{}: output type {} has no storage", nodeLabel(node), tosa::toString(anchorOut.dtype));
  std::string body;
  std::string first = fmt::format("{}(v)", anchorInfo->compute);
  if (tosa::isFloat(anchorOut.dtype)) first = roundToType(anchorOut.dtype, first);
  body += fmt::format("{} t0 = {}; ", anchorInfo->compute, first);
  std::string prev = "t0";
  std::string decls;
  ParamTables tables;  // run-time shapes: per-channel tables after everything else
  std::vector<std::string> extra;
  for (std::size_t k = 0; k < chainOps; ++k) {
    const FusedOp& f = node.epilogue[k];
    OPENVGF_TRY(checkElementwiseTypes(ctx, f.op, f.index));
    std::vector<std::string> args;
    for (std::size_t i : dataInputs(f.op)) {
      if (i == f.chainInput) {
        args.push_back(prev);
        continue;
      }
      const std::string& name = f.op.inputs[i];
      EpiIndex how = epilogueIndexing(p, name, finalOut.shape);
      if (how == EpiIndex::Scalar) {
        const tosa::Tensor& t = ctx.tensor(name);
        tosa::HostTensor v = tosa::constantValue(t);
        args.push_back(tosa::isFloat(t.dtype) ? glslFloat(static_cast<float>(constFloat(v, 0)))
                       : t.dtype == tosa::DType::Bool ? (constInt(v, 0) != 0 ? "true" : "false")
                                                      : glslInt(constInt(v, 0)));
        continue;
      }
      if (how == EpiIndex::None) return internalError("{}: epilogue input '{}' is not fusable", nodeLabel(node), name);
      auto it = std::find(extra.begin(), extra.end(), name);
      std::size_t slot = static_cast<std::size_t>(it - extra.begin());
      if (it == extra.end()) {
        extra.push_back(name);
        if (how == EpiIndex::Channel) defines.setCode(fmt::format("EPI{}_INDEX", slot), "ch");
      }
      args.push_back(fmt::format("e{}", slot));
    }
    OPENVGF_ASSIGN_OR_RETURN(std::string expr,
                             elementwiseExpression(ctx, f.op, f.index, args, decls, params, static_cast<int>(k), &tables));
    auto info = typeInfo(ctx.tensor(f.op.outputs.at(0)).dtype);
    body += fmt::format("{} t{} = {}; ", info->compute, k + 1, expr);
    prev = fmt::format("t{}", k + 1);
  }
  body += fmt::format("r = {};", prev);
  (void)accCompute;
  if (transposed) {
    const FusedOp& t = node.epilogue.back();
    auto function = transposedIndexFunction(ctx.tensor(t.op.inputs.at(0)), ctx.tensor(t.op.outputs.at(0)), t.op);
    if (!function) return invalidInput("{}: fused {}", nodeLabel(node), function.error().message());
    decls += *function;
    defines.setCode("OUT_INDEX(i)", "ovgf_transposed_index(i)");
  }
  defines.setCode("EPI_BODY", body).set("NUM_EPI", static_cast<std::int64_t>(extra.size()));
  if (!decls.empty()) defines.setCode("EW_DECLS", decls);
  for (std::size_t i = 0; i < extra.size(); ++i) {
    setBufferType(defines, fmt::format("EPI{}", i), ctx.storedType(extra[i]));
    defines.set(fmt::format("EPI{}_BINDING", i), static_cast<std::int64_t>(kernel.bindings.size()));
    kernel.bindings.push_back(ctx.tensorId(extra[i]));
    kernel.writes.push_back(false);
  }
  setBufferType(defines, "OUT", ctx.storedType(node.output()));
  defines.set("OUT_BINDING", static_cast<std::int64_t>(kernel.bindings.size()));
  kernel.bindings.push_back(ctx.tensorId(node.output()));
  kernel.writes.push_back(true);
  placeTables(params, tables);
  if (tableSlots != nullptr) *tableSlots = tables.slots;
  bindParams(ctx, std::move(params), defines, kernel);
  return {};
}

}  // namespace openvgf::converter
