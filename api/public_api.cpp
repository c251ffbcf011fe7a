// SPDX-License-Identifier: Apache-2.0
// The installed C++ API (openvgf/openvgf.hpp) over the api/ layer: Result errors become
// openvgf::Exception, internal tensors and infos become the public value types.
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/convert.h"
#include "api/devices.h"
#include "api/extract.h"
#include "api/file_kind.h"
#include "api/inspect.h"
#include "api/public_state.h"
#include "api/reference.h"
#include "common/file_io.h"
#include "common/input_binding.h"
#include "converter/passes/passes.h"
#include "openvgf/openvgf.hpp"

namespace openvgf {
namespace {

static_assert(static_cast<int>(ErrorKind::InvalidInput) + 1 == OPENVGF_INVALID_INPUT);
static_assert(static_cast<int>(ErrorKind::Unsupported) + 1 == OPENVGF_UNSUPPORTED);
static_assert(static_cast<int>(ErrorKind::Environment) + 1 == OPENVGF_ENVIRONMENT);
static_assert(static_cast<int>(ErrorKind::Runtime) + 1 == OPENVGF_RUNTIME);
static_assert(static_cast<int>(ErrorKind::Internal) + 1 == OPENVGF_INTERNAL);

tosa::HostTensor toHost(const Tensor& t) {
  if (t.location() != MemoryLocation::Host) raiseInvalid("reference: expected host tensors, got a device-resident one");
  tosa::HostTensor host(toDType(t.dtype()), t.shape());
  if (t.byteSize() != 0) std::memcpy(host.bytes.data(), t.data(), t.byteSize());
  return host;
}

}  // namespace

void raise(const Error& error) {
  throw Exception(static_cast<ErrorCode>(static_cast<int>(error.kind()) + 1), error.message());
}

void raiseInvalid(const std::string& message) { throw Exception(ErrorCode::InvalidInput, message); }

std::size_t byteSizeOf(DataType dtype, const Shape& shape) {
  std::size_t bytes = elementSize(dtype);
  for (std::int64_t d : shape) {
    if (d < 0) raiseInvalid(fmt::format("tensor shape [{}]: expected dimensions >= 0", fmt::join(shape, ",")));
    bytes *= static_cast<std::size_t>(d);
  }
  return bytes;
}

std::vector<TensorInfo> publicInfos(const std::vector<runner::TensorInfo>& infos) {
  std::vector<TensorInfo> out;
  for (const runner::TensorInfo& info : infos) {
    out.push_back({info.name, fromDType(info.dtype), info.shape, static_cast<std::size_t>(info.bytes)});
  }
  return out;
}

Tensor viewOf(const tosa::HostTensor& t) {
  return Tensor::view(fromDType(t.dtype), t.shape, const_cast<std::uint8_t*>(t.bytes.data()), t.bytes.size());
}

const char* version() { return OPENVGF_VERSION; }

Exception::Exception(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}

int Exception::exitCode() const noexcept {
  return code_ == ErrorCode::InvalidInput || code_ == ErrorCode::Unsupported ? 2 : 1;
}

const char* toString(DataType type) {
  if (type == DataType::Float64) return "FP64";
  std::string_view name = tosa::toString(toDType(type));
  return name.data();  // the table's string literals are NUL-terminated
}

std::size_t elementSize(DataType type) {
  return type == DataType::Float64 ? 8 : tosa::hostElementBytes(toDType(type));
}

//===------------------------------------------------------------------===//
// Tensor
//===------------------------------------------------------------------===//

Tensor::Tensor(DataType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  bytes_ = byteSizeOf(dtype_, shape_);
  owner_ = std::shared_ptr<void>(new std::uint8_t[std::max<std::size_t>(bytes_, 1)](),
                                 std::default_delete<std::uint8_t[]>());
  data_ = owner_.get();
}

Tensor Tensor::view(DataType dtype, Shape shape, void* data, std::size_t byteSize) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.bytes_ = byteSizeOf(dtype, t.shape_);
  if (t.bytes_ != byteSize) {
    raiseInvalid(fmt::format("tensor {} [{}]: expected {} bytes of data, got {}", toString(dtype),
                             fmt::join(t.shape_, ","), t.bytes_, byteSize));
  }
  if (data == nullptr && byteSize != 0) raiseInvalid("tensor view: expected data, got a null pointer");
  t.data_ = data;
  if (byteSize != 0) t.pinned_ = detail::PinnedBuffer::find(data, byteSize);
  return t;
}

Tensor Tensor::copyOf(DataType dtype, Shape shape, const void* data, std::size_t byteSize) {
  Tensor source = view(dtype, std::move(shape), const_cast<void*>(data), byteSize);
  return source.clone();
}

std::int64_t Tensor::elementCount() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape_) n *= d;
  return n;
}

Tensor Tensor::clone() const {
  if (device_) {
    raiseInvalid(fmt::format("tensor {} [{}]: clone: expected host data, got a device-resident tensor (run with "
                             "keepOnDevice off, or pass it to a session on its device)",
                             toString(dtype_), fmt::join(shape_, ",")));
  }
  Tensor copy(dtype_, shape_);
  if (bytes_ != 0) std::memcpy(copy.data_, data_, bytes_);
  return copy;
}

//===------------------------------------------------------------------===//
// Devices
//===------------------------------------------------------------------===//

std::vector<DeviceInfo> listDevices(bool validate) {
  api::DeviceList list = unwrap(api::listDevices(validate));
  std::vector<DeviceInfo> out;
  for (std::size_t i = 0; i < list.devices.size(); ++i) {
    const vulkan::DeviceSnapshot& d = list.devices[i];
    DeviceInfo info;
    info.index = static_cast<int>(d.index);
    info.name = d.name;
    info.type = std::string(vulkan::toString(d.type));
    info.apiVersion = vulkan::apiVersionString(d.apiVersion);
    info.driver = d.driverName + (d.driverInfo.empty() ? "" : " " + d.driverInfo);
    info.isDefault = list.defaultIndex && *list.defaultIndex == d.index;
    info.usable = d.apiVersion >= (1u << 22 | 3u << 12) && d.hasComputeQueue;
    info.deviceLocalBytes = d.deviceLocalBytes;
    info.subgroupSize = d.subgroupSize;
    for (vulkan::Feature f : vulkan::features(d.features)) info.features.emplace_back(vulkan::featureName(f));
    info.transferQueue = d.dedicatedTransferQueue;
    info.hostVisibleDeviceLocalBytes = list.hostVisibleDeviceLocalBytes[i];
    info.externalMemoryHost = d.externalMemoryHost;
    info.importAlignment = d.externalMemoryHost ? d.minImportedHostPointerAlignment : 0;
    info.timelineSemaphores = d.features.has(vulkan::Feature::TimelineSemaphore);
    out.push_back(std::move(info));
  }
  return out;
}

//===------------------------------------------------------------------===//
// Free functions
//===------------------------------------------------------------------===//

InspectReport inspectReport(const std::string& path, bool json) {
  api::Inspection inspection = unwrap(api::inspectFile(path, json));
  InspectReport report;
  report.text = std::move(inspection.text);
  if (!inspection.problem) {
    report.problem = inspection.problem.error().message();
    report.problemCode = static_cast<ErrorCode>(static_cast<int>(inspection.problem.error().kind()) + 1);
  }
  return report;
}

std::string inspect(const std::string& path, bool json) {
  InspectReport report = inspectReport(path, json);
  if (!report.problem.empty()) throw Exception(report.problemCode, report.problem);
  return report.text;
}

void dumpSpirv(const std::string& path, int module, const std::string& output) {
  unwrap(api::dumpFromFile(path, module, "", output));
}

void dumpConstant(const std::string& path, const std::string& selector, const std::string& output) {
  unwrap(api::dumpFromFile(path, std::nullopt, selector, output));
}

//===------------------------------------------------------------------===//
// Reference interpreter
//===------------------------------------------------------------------===//

namespace detail {
struct ReferenceState {
  std::string path;
  tosa::Graph graph;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
};
}  // namespace detail

ReferenceModel ReferenceModel::open(const std::string& path, bool dynamic) {
  auto state = std::make_shared<detail::ReferenceState>();
  state->path = path;
  state->graph = unwrap(api::readVerifiedGraph(path, dynamic));
  const tosa::Block& main = *state->graph.mainBlock();
  auto infos = [&](const std::vector<std::string>& names, const char* what) {
    std::vector<TensorInfo> out;
    for (const std::string& name : names) {
      const tosa::Tensor* t = main.findTensor(name);
      if (t == nullptr) {
        raiseInvalid(fmt::format("{}: {} '{}': expected a tensor declared in the main block", path, what, name));
      }
      TensorInfo info;
      info.name = name;
      info.dtype = fromDType(t->dtype);
      info.anyShape = t->isUnranked;
      if (!t->isUnranked) {
        info.shape = t->shape;
        info.byteSize = byteSizeOf(info.dtype, info.shape);
      }
      out.push_back(std::move(info));
    }
    return out;
  };
  state->inputs = infos(main.inputs, "input");
  state->outputs = infos(main.outputs, "output");
  return ReferenceModel(std::move(state));
}

const std::string& ReferenceModel::path() const { return state_->path; }
const std::vector<TensorInfo>& ReferenceModel::inputs() const { return state_->inputs; }
const std::vector<TensorInfo>& ReferenceModel::outputs() const { return state_->outputs; }

std::vector<int> ReferenceModel::bindInputs(const std::vector<std::string>& names, const std::string& source) const {
  std::vector<std::string> declared;
  for (const TensorInfo& t : state_->inputs) declared.push_back(t.name);
  std::vector<int> out;
  for (std::size_t k : unwrap(openvgf::bindInputs(declaredInputs(declared), names, source.empty() ? state_->path : source))) {
    out.push_back(static_cast<int>(k));
  }
  return out;
}

std::vector<NamedTensor> ReferenceModel::run(const std::vector<NamedTensor>& inputs, const ReferenceOptions& options) const {
  const std::string& path = state_->path;
  const tosa::Block& main = *state_->graph.mainBlock();
  std::vector<std::string> names;
  for (const NamedTensor& input : inputs) names.push_back(input.name);
  std::vector<std::size_t> order = unwrap(openvgf::bindInputs(declaredInputs(main.inputs), names, path));
  std::vector<tosa::HostTensor> hostInputs;
  for (std::size_t k : order) {
    if (!isModelType(inputs[k].tensor.dtype())) {
      raiseInvalid(fmt::format("{}: input '{}': expected a TOSA type, got FP64", path, main.inputs[hostInputs.size()]));
    }
    hostInputs.push_back(toHost(inputs[k].tensor));
  }
  tosa::reference::RunOptions run;
  run.precise = options.precise;
  run.strict = options.strict;
  tosa::reference::RunResult result = unwrap(api::runReference(state_->graph, path, hostInputs, run));
  if (options.onWarning) {
    for (const auto& d : result.diagnostics) {
      options.onWarning(fmt::format("{}: unpredictable result (REQUIRE failed): {}", path, tosa::reference::toString(d)));
    }
  }
  std::vector<NamedTensor> outputs;
  for (const tosa::reference::OutputValue& out : result.outputs) {
    if (options.precise && !out.precise.empty()) {
      outputs.push_back({out.name, Tensor::copyOf(DataType::Float64, out.value.shape, out.precise.data(),
                                                  out.precise.size() * sizeof(double))});
    } else {
      outputs.push_back({out.name, viewOf(out.value).clone()});
    }
  }
  return outputs;
}

std::vector<NamedTensor> reference(const std::string& path, const std::vector<NamedTensor>& inputs,
                                   const ReferenceOptions& options) {
  return ReferenceModel::open(path, options.dynamic).run(inputs, options);
}

std::vector<ExtractedPayload> extract(const std::string& path, const std::string& outputDir, const std::string& plan,
                                      int delegate) {
  pte::ExtractionFilter filter;
  if (!plan.empty()) filter.plan = plan;
  if (delegate >= 0) filter.delegate = static_cast<std::size_t>(delegate);
  std::vector<ExtractedPayload> written;
  for (api::ExtractedPayload& payload : unwrap(api::extractPayloads(path, outputDir, filter))) {
    written.push_back({std::move(payload.fileName), std::move(payload.plan), static_cast<int>(payload.delegateIndex),
                       std::move(payload.backendId), std::move(payload.problem)});
  }
  return written;
}

}  // namespace openvgf
