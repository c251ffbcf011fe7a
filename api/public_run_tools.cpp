// SPDX-License-Identifier: Apache-2.0
// What `openvgf run` does around a run, as installed API (openvgf/openvgf.hpp): binding
// inputs given by name or in order, judging outputs with the reference interpreter
// (Session::check), the driver's pipeline statistics, and profiles as a Chrome trace or a
// summary table.
#include <cstring>

#include <fmt/format.h>

#include "api/check.h"
#include "api/public_state.h"
#include "common/file_io.h"
#include "common/input_binding.h"
#include "runner/check.h"
#include "runner/profile.h"

namespace openvgf {
namespace {

tosa::HostTensor hostCopy(const Tensor& t, const std::string& what) {
  if (t.location() != MemoryLocation::Host) raiseInvalid(fmt::format("{}: expected a host tensor, got a device-resident one", what));
  if (!isModelType(t.dtype())) raiseInvalid(fmt::format("{}: expected a TOSA type, got FP64", what));
  tosa::HostTensor host(toDType(t.dtype()), t.shape());
  if (host.bytes.size() != t.byteSize()) raiseInvalid(fmt::format("{}: expected {} bytes, got {}", what, host.bytes.size(), t.byteSize()));
  if (t.byteSize() != 0) std::memcpy(host.bytes.data(), t.data(), t.byteSize());
  return host;
}

runner::RunTiming timingOf(const Profile& profile) {
  runner::RunTiming timing;
  timing.timestampsNs = profile.timestampsNs;
  timing.hostMs = profile.hostMs;
  return timing;
}

std::vector<std::string> segmentNamesOf(const std::vector<Profile>& runs) {
  std::vector<std::string> names;
  if (!runs.empty()) {
    for (const Profile::Segment& s : runs.front().segments) names.push_back(s.name);
  }
  return names;
}

runner::ProfileRecorder recorderOf(const std::vector<Profile>& runs) {
  runner::ProfileRecorder recorder(segmentNamesOf(runs));
  for (const Profile& run : runs) recorder.add(timingOf(run));
  return recorder;
}

}  // namespace

std::vector<int> Model::bindInputs(const std::vector<std::string>& names, const std::string& source) const {
  if (state_->ethosu) {
    std::vector<int> out;
    for (std::size_t k : detail::bindEthosUInputs(*state_, names, source)) out.push_back(static_cast<int>(k));
    return out;
  }
  std::vector<api::Model::BoundInput> bound = unwrap(state_->model->bindInputs(names, source));
  std::vector<int> out;
  for (const api::Model::BoundInput& b : bound) out.push_back(b.fallback ? -1 : static_cast<int>(b.given));
  return out;
}

namespace {

// The host values of a run that Session::check and checkOperators judge: every model input
// (given, or its default) and every output, in the model's orders.
struct RunValues {
  std::vector<tosa::HostTensor> inputs;
  std::vector<tosa::HostTensor> outputs;
};

RunValues runValues(const detail::ModelState& model, const std::map<std::string, Tensor>& inputs,
                    const std::vector<Tensor>& outputs) {
  const api::LoadedModel& loaded = model.model->loaded();
  std::vector<std::string> names;
  std::vector<const Tensor*> given;
  for (const auto& [name, tensor] : inputs) {
    names.push_back(name);
    given.push_back(&tensor);
  }
  std::vector<api::Model::BoundInput> bound = unwrap(model.model->bindInputs(names));
  std::vector<tosa::HostTensor> hostInputs;
  for (std::size_t i = 0; i < bound.size(); ++i) {
    const std::string what = fmt::format("{}: check: input '{}'", loaded.path(), model.inputs[i].name);
    hostInputs.push_back(bound[i].fallback ? *bound[i].fallback : hostCopy(*given[bound[i].given], what));
  }
  if (outputs.size() != model.outputs.size()) {
    raiseInvalid(fmt::format("{}: check: expected {} outputs, got {}", loaded.path(), model.outputs.size(), outputs.size()));
  }
  std::vector<tosa::HostTensor> hostOutputs;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    hostOutputs.push_back(hostCopy(outputs[o], fmt::format("{}: check: output '{}'", loaded.path(), model.outputs[o].name)));
  }
  return {std::move(hostInputs), std::move(hostOutputs)};
}

OutputCheck publicCheck(const std::string& part, const runner::OutputCheck& c) {
  const tosa::compliance::Verdict& v = c.verdict;
  return {part, c.name, v.pass, runner::formatCheck(c), std::string(tosa::compliance::toString(v.mode)),
          v.elements, v.failures, v.maxAbsError, v.maxUlpError, v.inconclusive};
}

}  // namespace

CheckReport Session::check(const std::map<std::string, Tensor>& inputs, const std::vector<Tensor>& outputs) const {
  std::lock_guard lock(state_->mutex);
  const detail::ModelState& model = *state_->model;
  if (model.ethosu) return detail::checkEthosU(model, inputs, outputs);
  const api::LoadedModel& loaded = model.model->loaded();
  auto [hostInputs, hostOutputs] = runValues(model, inputs, outputs);
  std::vector<api::PartCheck> parts;
  if (model.reference) {
    parts.push_back({"", unwrap(api::checkOutputs(*model.reference, model.referencePath, loaded.inputs(), hostInputs,
                                                  loaded.outputs(), hostOutputs))});
  } else {
    std::vector<tosa::Graph> decoded;
    if (model.carried.empty()) decoded = unwrap(loaded.carriedGraphs());
    const std::vector<tosa::Graph>& graphs = model.carried.empty() ? decoded : model.carried;
    parts = unwrap(api::checkCarriedGraphs(*state_->session, graphs, hostInputs, hostOutputs));
  }
  CheckReport report;
  bool failed = false;
  for (const api::PartCheck& part : parts) {
    for (const runner::OutputCheck& c : part.checks) {
      report.outputs.push_back(publicCheck(part.label, c));
      report.pass = report.pass && c.verdict.pass;
      failed = failed || (!c.verdict.pass && !c.verdict.inconclusive);
    }
  }
  report.inconclusive = !report.pass && !failed;
  return report;
}

OperatorReport Session::checkOperators(const std::map<std::string, Tensor>& inputs,
                                       const std::vector<Tensor>& outputs) const {
  std::lock_guard lock(state_->mutex);
  const detail::ModelState& model = *state_->model;
  if (model.ethosu) detail::refuseForEthosU(model, "checkOperators (the tensors between a .tosa's operators)");
  const api::LoadedModel& loaded = model.model->loaded();
  if (loaded.computedTensors().empty()) {
    raiseInvalid(fmt::format("{}: per-operator check: expected a .tosa opened with keepIntermediates (the tensors "
                             "the device computed between the operators), got none kept",
                             loaded.path()));
  }
  auto [hostInputs, hostOutputs] = runValues(model, inputs, outputs);
  std::map<std::string, tosa::HostTensor> values;
  for (std::size_t i = 0; i < hostInputs.size(); ++i) values[model.inputs[i].name] = std::move(hostInputs[i]);
  for (std::size_t o = 0; o < hostOutputs.size(); ++o) values[model.outputs[o].name] = std::move(hostOutputs[o]);
  std::vector<tosa::Graph> decoded;
  if (!model.reference && model.carried.empty()) decoded = unwrap(loaded.carriedGraphs());
  const tosa::Graph& graph = model.reference ? *model.reference : model.carried.empty() ? decoded.at(0) : model.carried.at(0);

  OperatorReport report;
  bool failed = false;
  for (const api::OperatorVerdict& v : api::checkOperators(graph, values)) {
    OperatorCheck op{static_cast<int>(v.index), std::string(tosa::toString(v.op)), {}, v.notJudged,
                     static_cast<int>(v.upstream)};
    for (const runner::OutputCheck& c : v.checks) {
      op.outputs.push_back(publicCheck("", c));
      failed = failed || (!c.verdict.pass && !c.verdict.inconclusive);
      report.pass = report.pass && c.verdict.pass;
    }
    report.pass = report.pass && v.notJudged.empty();
    report.operators.push_back(std::move(op));
  }
  report.inconclusive = !report.pass && !failed;
  return report;
}

std::vector<PipelineStatistics> Session::pipelineStatistics() const {
  std::lock_guard lock(state_->mutex);
  std::vector<PipelineStatistics> out;
  if (!state_->session) return out;  // an Ethos-U model: no pipelines
  for (const runner::PipelineStatistics& p : unwrap(state_->session->pipelineStatistics())) {
    PipelineStatistics stats{p.module, p.segments, {}};
    for (const vulkan::PipelineStatistic& s : p.statistics) stats.statistics.push_back({s.executable, s.name, s.value});
    out.push_back(std::move(stats));
  }
  return out;
}

void checkWritableFile(const std::string& path, const std::string& what) { unwrap(checkOutputPath(path, what)); }

void checkWritableFolder(const std::string& path, const std::string& what) { unwrap(checkOutputFolder(path, what)); }

void writeFile(const std::string& path, const std::string& bytes) { unwrap(writeFileAtomic(path, std::string_view(bytes))); }

std::string chromeTrace(const std::vector<Profile>& runs) { return recorderOf(runs).chromeTrace(); }

std::string profileSummary(const std::vector<Profile>& runs, std::size_t top) { return recorderOf(runs).summary(top); }

}  // namespace openvgf
