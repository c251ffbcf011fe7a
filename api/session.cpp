// SPDX-License-Identifier: Apache-2.0
// api::Session (see session.h).
#include "api/session.h"

#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "api/check.h"

namespace openvgf::api {

Result<Session> Session::create(const Model& model, const runner::SessionOptions& options) {
  Session session;
  session.model_ = &model;
  const LoadedModel& loaded = model.loaded();
  for (std::size_t k = 0; k < loaded.partCount(); ++k) {
    OPENVGF_ASSIGN_OR_RETURN(runner::Session part, model.createPartSession(k, options));
    session.parts_.push_back(std::move(part));
  }
  if (const Program* program = loaded.program()) {
    for (std::size_t i = 0; i < program->inputs.size(); ++i) {
      session.values_[program->inputs[i]] = tosa::HostTensor(loaded.inputs()[i].dtype, loaded.inputs()[i].shape);
    }
    for (const ProgramStep& step : program->steps) {
      if (!step.part) continue;
      for (const std::string& name : session.parts_[*step.part].segmentNames()) {
        session.segmentNames_.push_back(fmt::format("delegates[{}] {}", *step.part, name));
      }
    }
  }
  return session;
}

Status Session::checkInput(std::size_t index, tosa::DType dtype, const tosa::Shape& shape, std::size_t bytes) const {
  if (!model_->loaded().program()) return parts_[0].checkInput(index, dtype, shape, bytes);
  return runner::checkTensor(inputs()[index], dtype, shape, bytes);
}

std::span<std::uint8_t> Session::inputMemory(std::size_t index) {
  if (const Program* program = model_->loaded().program()) return values_.at(program->inputs[index]).bytes;
  return parts_[0].inputMemory(index);
}

std::span<const std::uint8_t> Session::outputMemory(std::size_t index) const {
  if (const Program* program = model_->loaded().program()) return values_.at(program->outputs[index]).bytes;
  return parts_[0].outputMemory(index);
}

Status Session::runInPlace() { return model_->loaded().program() ? runProgram() : parts_[0].runInPlace(); }

Status Session::run(std::span<const tosa::HostTensor* const> inputs, std::vector<tosa::HostTensor>& outputs) {
  if (!model_->loaded().program()) return parts_[0].run(inputs, outputs);
  if (inputs.size() != this->inputs().size()) {
    return invalidInput("inputs: expected {} tensors, got {}", this->inputs().size(), inputs.size());
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    OPENVGF_TRY(checkInput(i, inputs[i]->dtype, inputs[i]->shape, inputs[i]->bytes.size()));
    std::span<std::uint8_t> memory = inputMemory(i);
    if (!memory.empty()) std::memcpy(memory.data(), inputs[i]->bytes.data(), memory.size());
  }
  OPENVGF_TRY(runProgram());
  outputs.resize(this->outputs().size());
  for (std::size_t i = 0; i < outputs.size(); ++i) outputs[i] = values_.at(model_->loaded().program()->outputs[i]);
  return {};
}

// The plan's steps in order over values_; the parts' timings are laid end to end.
Status Session::runProgram() {
  const auto start = std::chrono::steady_clock::now();
  const LoadedModel& loaded = model_->loaded();
  runner::RunTiming timing;
  for (const ProgramStep& step : loaded.program()->steps) {
    if (!step.part) {
      tosa::HostTensor copy = values_.at(step.inputs[0]);
      copy.shape = loaded.program()->shapes.at(step.outputs[0]);
      values_[step.outputs[0]] = std::move(copy);
      continue;
    }
    runner::Session& part = parts_[*step.part];
    const std::string& where = loaded.part(*step.part).where;
    for (std::size_t j = 0; j < step.inputs.size(); ++j) {
      const tosa::HostTensor& value = values_.at(step.inputs[j]);
      OPENVGF_TRY(withContext(part.checkInput(j, value.dtype, value.shape, value.bytes.size()), where));
      std::span<std::uint8_t> memory = part.inputMemory(j);
      if (!memory.empty()) std::memcpy(memory.data(), value.bytes.data(), memory.size());
    }
    OPENVGF_TRY(withContext(part.runInPlace(), where));
    for (std::size_t j = 0; j < step.outputs.size(); ++j) {
      const runner::TensorInfo& info = part.outputs()[j];
      tosa::HostTensor& value = values_[step.outputs[j]];
      if (value.dtype != info.dtype || value.shape != info.shape) value = tosa::HostTensor(info.dtype, info.shape);
      std::span<const std::uint8_t> memory = part.outputMemory(j);
      if (!memory.empty()) std::memcpy(value.bytes.data(), memory.data(), memory.size());
    }
    const std::vector<std::uint64_t>& stamps = part.lastTiming().timestampsNs;
    if (stamps.size() >= 2) {
      if (timing.timestampsNs.empty()) timing.timestampsNs.push_back(0);
      const std::uint64_t base = timing.timestampsNs.back();
      for (std::size_t t = 1; t < stamps.size(); ++t) timing.timestampsNs.push_back(base + stamps[t] - stamps[0]);
    }
  }
  timing.hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  timing_ = std::move(timing);
  return {};
}

const runner::RunTiming& Session::lastTiming() const {
  return model_->loaded().program() ? timing_ : parts_[0].lastTiming();
}

Result<std::vector<runner::PipelineStatistics>> Session::pipelineStatistics() const {
  std::vector<runner::PipelineStatistics> out;
  const bool program = model_->loaded().program() != nullptr;
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    OPENVGF_ASSIGN_OR_RETURN(std::vector<runner::PipelineStatistics> part, parts_[k].pipelineStatistics());
    for (runner::PipelineStatistics& p : part) {
      if (program) p.module = fmt::format("delegates[{}] {}", k, p.module);
      out.push_back(std::move(p));
    }
  }
  return out;
}

const std::vector<std::string>& Session::segmentNames() const {
  return model_->loaded().program() ? segmentNames_ : parts_[0].segmentNames();
}

Result<std::vector<PartCheck>> checkCarriedGraphs(const Session& session, std::span<const tosa::Graph> graphs,
                                                  std::span<const tosa::HostTensor> inputs,
                                                  std::span<const tosa::HostTensor> outputs) {
  const LoadedModel& loaded = session.model().loaded();
  std::vector<PartCheck> result;
  const Program* program = loaded.program();
  if (!program) {
    const std::vector<runner::TensorInfo>& in = session.inputs();
    const std::vector<runner::TensorInfo>& out = session.outputs();
    OPENVGF_ASSIGN_OR_RETURN(std::vector<runner::OutputCheck> checks,
                             checkOutputs(graphs[0], loaded.path(), in, inputs, out, outputs));
    result.push_back({"", std::move(checks)});
    return result;
  }
  for (const ProgramStep& step : program->steps) {
    if (!step.part) continue;
    const ModelPart& part = loaded.part(*step.part);
    std::vector<tosa::HostTensor> partInputs, partOutputs;
    for (std::int32_t v : step.inputs) partInputs.push_back(session.values_.at(v));
    for (std::int32_t v : step.outputs) partOutputs.push_back(session.values_.at(v));
    OPENVGF_ASSIGN_OR_RETURN(std::vector<runner::OutputCheck> checks,
                             checkOutputs(graphs[*step.part], part.where, part.model->inputs(), partInputs,
                                          part.model->outputs(), partOutputs));
    result.push_back({part.where, std::move(checks)});
  }
  return result;
}

}  // namespace openvgf::api
