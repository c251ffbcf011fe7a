// SPDX-License-Identifier: Apache-2.0
// api::EthosUModel: finding the Ethos-U stream in a file, describing its tensors, running it
// in the simulator and judging its outputs against the reference interpreter bit for bit.
#include "api/ethosu_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/file_kind.h"
#include "common/file_io.h"
#include "ethosu/accelerator.h"
#include "pte/program.h"
#include "tosa/reference/reference.h"

namespace openvgf::api {
namespace {

namespace eu = runner::ethosu;

tosa::DType typeForElementSize(std::int32_t elementSize) {
  return elementSize == 4 ? tosa::DType::Int32 : elementSize == 2 ? tosa::DType::Int16 : tosa::DType::Int8;
}

// The stream pads a tensor's shape with leading 1s to its record's rank (4 or 6) and does not
// keep the tensor's own rank. The NPU works on NHWC feature maps, so the padding is dropped
// down to 4 dimensions: a (1,8,8,16) tensor written as (1,1,1,8,8,16) reads back as (1,8,8,16).
tosa::Shape streamShape(const eu::LoadedModel& model, const eu::VelaIo& io) {
  tosa::Shape shape(io.shape.begin(), io.shape.begin() + model.ioRank);
  while (shape.size() > 4 && shape.front() == 1) shape.erase(shape.begin());
  return shape;
}

std::vector<runner::TensorInfo> streamInfos(const eu::LoadedModel& model, const std::vector<eu::VelaIo>& ios,
                                            const char* prefix) {
  std::vector<runner::TensorInfo> infos;
  for (std::size_t i = 0; i < ios.size(); ++i) {
    runner::TensorInfo info;
    info.name = fmt::format("{}_{}", prefix, i);
    info.dtype = typeForElementSize(ios[i].elementSize);
    info.shape = streamShape(model, ios[i]);
    info.bytes = eu::ioByteSize(model, ios[i]);
    infos.push_back(std::move(info));
  }
  return infos;
}

bool planMatches(const pte::ExecutionPlan& plan, std::size_t index, const std::string& wanted) {
  return wanted.empty() || plan.name == wanted || wanted == std::to_string(index);
}

// The one Ethos-U delegate of a program whose delegates are all Ethos-U streams; nullopt when
// it has another kind of delegate (or none), which Model::open runs on a device.
Result<std::optional<eu::LoadedModel>> programStream(std::span<const std::uint8_t> bytes, const std::string& path,
                                                     const std::string& plan, std::string& source) {
  OPENVGF_ASSIGN_OR_RETURN(pte::Program program, withContext(pte::readProgram(bytes), path));
  const pte::Delegate* found = nullptr;
  std::string foundWhere;
  bool other = false;
  for (std::size_t p = 0; p < program.plans.size(); ++p) {
    const pte::ExecutionPlan& ep = program.plans[p];
    for (std::size_t d = 0; d < ep.delegates.size(); ++d) {
      if (ep.delegates[d].kind != pte::PayloadKind::VelaBinStream) {
        other = true;
        continue;
      }
      if (!planMatches(ep, p, plan)) continue;
      const std::string where = fmt::format("execution_plan[{}] '{}' delegates[{}] ({})", p, ep.name, d,
                                            ep.delegates[d].backendId);
      if (found) {
        return unsupported("{}: more than one Ethos-U delegate ({} and {}); run one with `openvgf extract` and "
                           "`openvgf run` on its .ethosu.bin",
                           path, foundWhere, where);
      }
      found = &ep.delegates[d];
      foundWhere = where;
      source = fmt::format("{}: {}", path, where);
    }
  }
  if (other || !found) {
    if (!other && !program.plans.empty() && !plan.empty()) {
      return invalidInput("{}: plan '{}': expected an Ethos-U (EthosUBackend) delegate in it, found none", path, plan);
    }
    return std::optional<eu::LoadedModel>();
  }
  if (!found->vela) return invalidInput("{}: payload: {}", source, found->payloadProblem);
  OPENVGF_ASSIGN_OR_RETURN(eu::LoadedModel model, eu::loadModel(*found->vela, source));
  return std::optional<eu::LoadedModel>(std::move(model));
}

}  // namespace

Result<std::optional<EthosUModel>> EthosUModel::load(const std::filesystem::path& path, const std::string& plan) {
  OPENVGF_ASSIGN_OR_RETURN(MappedFile mapped, MappedFile::open(path));
  EthosUModel model;
  model.path_ = path.string();
  model.source_ = model.path_;
  const FileKind kind = detectFileKind(mapped.bytes());
  if (kind == FileKind::EthosU) {
    OPENVGF_ASSIGN_OR_RETURN(model.model_, eu::loadModel(mapped.bytes(), model.source_));
  } else if (kind == FileKind::Pte) {
    OPENVGF_ASSIGN_OR_RETURN(std::optional<eu::LoadedModel> stream,
                             programStream(mapped.bytes(), model.path_, plan, model.source_));
    if (!stream) return std::optional<EthosUModel>();
    model.model_ = std::move(*stream);
  } else {
    return std::optional<EthosUModel>();
  }
  OPENVGF_TRY(model.describe());
  return std::optional<EthosUModel>(std::move(model));
}

Status EthosUModel::describe() {
  if (!model_.hasIo) {
    return invalidInput("{}: a bare COP1 payload has no input/output placement; run a vela_bin_stream", source_);
  }
  simulatorName_ = fmt::format("{} simulator ({})", ::openvgf::ethosu::productName(model_.accelerator.product),
                               model_.accelerator.name);
  inputs_ = streamInfos(model_, model_.inputs, "input");
  outputs_ = streamInfos(model_, model_.outputs, "output");
  return {};
}

Status EthosUModel::useReference(const tosa::Graph& graph, const std::string& graphPath) {
  const tosa::Block* block = graph.mainBlock();
  if (!block) return invalidInput("{}: expected a main block", graphPath);
  if (block->inputs.size() != inputs_.size() || block->outputs.size() != outputs_.size()) {
    return invalidInput("{}: expected the {} inputs and {} outputs of {}, got {} and {}", graphPath, inputs_.size(),
                        outputs_.size(), source_, block->inputs.size(), block->outputs.size());
  }
  for (auto [infos, names, role] : {std::tuple{&inputs_, &block->inputs, "input"}, std::tuple{&outputs_, &block->outputs, "output"}}) {
    for (std::size_t i = 0; i < infos->size(); ++i) {
      runner::TensorInfo& info = (*infos)[i];
      const tosa::Tensor* tensor = block->findTensor((*names)[i]);
      if (!tensor) return invalidInput("{}: {} '{}': expected a tensor of that name", graphPath, role, (*names)[i]);
      const std::uint64_t bytes = tosa::HostTensor(tensor->dtype, tensor->shape).bytes.size();
      if (tosa::hostElementBytes(tensor->dtype) != tosa::hostElementBytes(info.dtype) || bytes != info.bytes) {
        return invalidInput("{}: {} '{}': expected {} bytes of {}-byte elements, as {} {} {} holds ({} [{}]), got {} [{}]",
                            graphPath, role, (*names)[i], info.bytes, tosa::hostElementBytes(info.dtype), source_, role,
                            i, tosa::toString(info.dtype), fmt::join(info.shape, ","), tosa::toString(tensor->dtype),
                            fmt::join(tensor->shape, ","));
      }
      info.name = (*names)[i];
      info.dtype = tensor->dtype;
      info.shape = tensor->shape;
    }
  }
  return {};
}

Result<std::vector<std::vector<std::uint8_t>>> EthosUModel::run(std::span<const std::vector<std::uint8_t>> inputs,
                                                                eu::SimulatorStats* stats) const {
  return eu::runModel(model_, inputs, source_, stats);
}

Result<std::vector<BitExactCheck>> EthosUModel::checkBitExact(const tosa::Graph& graph, const std::string& graphPath,
                                                              std::span<const tosa::HostTensor> inputs,
                                                              std::span<const tosa::HostTensor> outputs) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::reference::RunResult reference, withContext(tosa::reference::run(graph, inputs), graphPath));
  if (reference.outputs.size() != outputs.size()) {
    return invalidInput("{}: expected {} outputs, the reference gave {}", graphPath, outputs.size(), reference.outputs.size());
  }
  std::vector<BitExactCheck> checks;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::vector<std::uint8_t>& want = reference.outputs[i].value.bytes;
    const std::vector<std::uint8_t>& got = outputs[i].bytes;
    std::size_t bad = 0, first = 0;
    for (std::size_t k = 0; k < want.size() && k < got.size(); ++k) {
      if (want[k] != got[k] && bad++ == 0) first = k;
    }
    BitExactCheck check;
    check.output = reference.outputs[i].name;
    check.pass = bad == 0 && want.size() == got.size();
    check.line = check.pass
                     ? fmt::format("output '{}': bit-exact ({} elements)", check.output, outputs[i].size())
                     : fmt::format("output '{}': MISMATCH: {} of {} bytes differ, first at byte {} (simulator 0x{:02x}, "
                                   "reference 0x{:02x})",
                                   check.output, bad, want.size(), first, first < got.size() ? got[first] : 0,
                                   first < want.size() ? want[first] : 0);
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace openvgf::api
