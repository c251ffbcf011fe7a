// SPDX-License-Identifier: Apache-2.0
// compile(): the stages in order. Each stage is its own file (see stages.h, lowering.h).
#include "converter/ethosu/compiler.h"

#include <algorithm>

#include "common/limits.h"
#include "converter/ethosu/lowering.h"
#include "converter/ethosu/stages.h"
#include "converter/passes/passes.h"
#include "ethosu/cop1.h"
#include "ethosu/vela_bin_stream.h"
#include "tosa/verifier.h"

namespace openvgf::converter::ethosu {
namespace {

using namespace ::openvgf::ethosu;

/// Lifetimes of the scratch buffers: each op uses its operands; graph inputs live from the
/// start and outputs to the end, and neither shares space with anything.
std::uint64_t placeBuffers(Lowering& lowering) {
  const int lastOp = static_cast<int>(lowering.ops.size());
  auto use = [&](const View& v, int at) {
    if (v.region != 1 || v.buffer < 0) return;
    Buffer& b = lowering.buffers[static_cast<std::size_t>(v.buffer)];
    b.first = std::min(b.first, at);
    b.last = std::max(b.last, at);
  };
  for (std::size_t i = 0; i < lowering.ops.size(); ++i) {
    const NpuOp& op = lowering.ops[i];
    use(op.ifm, static_cast<int>(i));
    if (op.hasIfm2) use(op.ifm2, static_cast<int>(i));
    use(op.ofm, static_cast<int>(i));
  }
  std::vector<int> pinned;
  for (const std::string& name : lowering.inputNames) {
    const View& v = lowering.views[name];
    Buffer& b = lowering.buffers[static_cast<std::size_t>(v.buffer)];
    b.first = -1;
    b.last = std::max(b.last, 0);
    pinned.push_back(v.buffer);
  }
  for (const View& v : lowering.outputViews) {
    use(v, lastOp);
    pinned.push_back(v.buffer);
  }
  return planArena(lowering.buffers, pinned);
}

VelaIo placement(const tosa::Tensor& t, std::uint32_t offset) {
  VelaIo io;
  io.shape.fill(1);
  const tosa::Shape& s = t.shape;
  for (std::size_t i = 0; i < s.size(); ++i) io.shape[6 - s.size() + i] = static_cast<std::int32_t>(s[i]);
  io.elementSize = 1;
  io.offset = static_cast<std::int32_t>(offset);
  io.region = 1;
  return io;
}

Result<Program> preparedProgram(const tosa::Graph& graph) {
  OPENVGF_TRY(tosa::verify(graph));
  OPENVGF_ASSIGN_OR_RETURN(Program program, makeProgram(graph));
  // Of the graph-level passes the Vulkan backend shares, dead-code elimination applies as it
  // is. Its fusion passes are for its kernels (the NPU's own fusion is the lowering's pattern
  // matching), and constant folding would turn a RESCALE of a constant into an INT32 tensor
  // where the NPU wants the INT8 constant with the rescale as the operation's input scale.
  passes::PassOptions options;
  options.enabled = std::vector<std::string>{"eliminate-dead-code"};
  OPENVGF_TRY(passes::runPasses(program, options));
  return program;
}

}  // namespace

Result<CompiledModel> compile(const tosa::Graph& graph, const CompileOptions& options, std::string_view sourceName) {
  const std::optional<AcceleratorConfig> found = findAccelerator(options.target);
  if (!found) return invalidInput("--target: expected one of {}, got '{}'", acceleratorNames(), options.target);
  const AcceleratorConfig config = *found;
  OPENVGF_ASSIGN_OR_RETURN(const Program program, withContext(preparedProgram(graph), sourceName));
  Lowering lowering(program, config);
  OPENVGF_TRY(withContext(lowering.run(), sourceName));
  CompileStats stats;
  OPENVGF_TRY(withContext(chooseBlocks(lowering.ops, config), sourceName));
  OPENVGF_TRY(withContext(encodeWeights(lowering.ops, config, lowering.readOnly, stats), sourceName));
  const std::uint64_t arena = placeBuffers(lowering);
  if (arena > kMaxEthosUScratchBytes) {
    return unsupported("{}: the graph needs a scratch arena of {} bytes: expected at most {} (the scratch arena's limit)",
                       sourceName, arena, kMaxEthosUScratchBytes);
  }
  const auto scratch = static_cast<std::uint32_t>(arena);
  const AddressOf address = [&](const View& v) -> std::uint32_t {
    return v.region == 1 ? lowering.buffers[static_cast<std::size_t>(v.buffer)].address + v.offset : v.offset;
  };
  const std::vector<std::uint32_t> words = config.product == Product::U85 ? emitU85(lowering.ops, config, address, stats)
                                                                          : emitU55(lowering.ops, config, address, stats);
  CompiledModel model;
  OPENVGF_ASSIGN_OR_RETURN(model.cop1, withContext(writeCop1(words, config), sourceName));
  model.weightData = std::move(lowering.readOnly);
  std::vector<VelaIo> ins, outs;
  for (const std::string& name : lowering.inputNames) {
    const tosa::Tensor& t = *program.find(name);
    ins.push_back(placement(t, address(lowering.views[name])));
    model.inputs.push_back(IoTensor{name, t.shape, static_cast<std::uint32_t>(ins.back().offset)});
  }
  for (std::size_t i = 0; i < lowering.outputNames.size(); ++i) {
    const tosa::Tensor& t = *program.find(lowering.outputNames[i]);
    outs.push_back(placement(t, address(lowering.outputViews[i])));
    model.outputs.push_back(IoTensor{lowering.outputNames[i], t.shape, static_cast<std::uint32_t>(outs.back().offset)});
  }
  OPENVGF_ASSIGN_OR_RETURN(model.velaBinStream, withContext(makeVelaBinStream(model.cop1, model.weightData, scratch, ins, outs),
                                                            sourceName));
  stats.scratchSize = scratch;
  stats.constantBytes = lowering.constantBytes;
  model.stats = stats;
  return model;
}

}  // namespace openvgf::converter::ethosu
