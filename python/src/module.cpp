// SPDX-License-Identifier: Apache-2.0
// openvgf._openvgf: Python bindings of the C++ API (openvgf/openvgf.hpp), numpy in and out.
// Inputs are used in place when they are C-contiguous arrays of the model's dtype (anything
// numpy can view: ndarray, __array_interface__, the buffer protocol, DLPack); outputs are new
// arrays the session writes into directly. The GIL is released while a model opens, a
// conversion runs and a session runs. openvgf.Error (defined in __init__.py) carries the
// message, the error code and the CLI's exit code.
// Host I/O: Session.run_async returns a RunHandle (wait() gives the outputs); keep_on_device
// returns DeviceTensors, which any Session of a model on the same device (Model(...,
// share_device_with=)) takes as inputs; Model.pinned_empty gives numpy arrays in pinned memory,
// which runs move by DMA (the C++ API recognises views of pinned memory).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "openvgf/openvgf.hpp"

namespace py = pybind11;

namespace {

const char* codeName(openvgf::ErrorCode code) {
  switch (code) {
    case openvgf::ErrorCode::InvalidInput: return "InvalidInput";
    case openvgf::ErrorCode::Unsupported: return "Unsupported";
    case openvgf::ErrorCode::Environment: return "Environment";
    case openvgf::ErrorCode::Runtime: return "Runtime";
    case openvgf::ErrorCode::Internal: return "Internal";
  }
  return "Internal";
}

[[noreturn]] void invalid(const std::string& message) {
  throw openvgf::Exception(openvgf::ErrorCode::InvalidInput, message);
}

// The numpy dtype of each openvgf type; BFLOAT16 and FLOAT8 are their raw bits.
py::dtype numpyType(openvgf::DataType type) {
  using openvgf::DataType;
  switch (type) {
    case DataType::Bool: return py::dtype("bool");
    case DataType::Int4:
    case DataType::Int8: return py::dtype("int8");
    case DataType::Int16: return py::dtype("int16");
    case DataType::Int32: return py::dtype("int32");
    case DataType::Int48: return py::dtype("int64");
    case DataType::Float16: return py::dtype("float16");
    case DataType::BFloat16: return py::dtype("uint16");
    case DataType::Float32: return py::dtype("float32");
    case DataType::Float8E4M3:
    case DataType::Float8E5M2: return py::dtype("uint8");
    case DataType::Float64: return py::dtype("float64");
  }
  return py::dtype("uint8");
}

// The numpy dtype of a model input or output: uint8/16/32 for one the model declares unsigned
// (TensorInfo::isUnsigned, e.g. R8_UINT), the same bytes as its signless INT8/16/32.
py::dtype numpyType(const openvgf::TensorInfo& info) {
  using openvgf::DataType;
  if (info.isUnsigned) {
    if (info.dtype == DataType::Int8) return py::dtype("uint8");
    if (info.dtype == DataType::Int16) return py::dtype("uint16");
    if (info.dtype == DataType::Int32) return py::dtype("uint32");
  }
  return numpyType(info.dtype);
}

// The openvgf type of a numpy array given to the reference interpreter (the raw-bit types,
// BFLOAT16 and FLOAT8, cannot be told from their numpy dtype and are not accepted there).
std::optional<openvgf::DataType> openvgfType(const py::dtype& dtype) {
  using openvgf::DataType;
  for (DataType t : {DataType::Bool, DataType::Int8, DataType::Int16, DataType::Int32, DataType::Int48,
                     DataType::Float16, DataType::Float32}) {
    if (dtype.equal(numpyType(t))) return t;
  }
  return std::nullopt;
}

py::array asArray(const py::handle& value) {
  // DLPack producers (torch, jax, cupy on the host) without the array protocols.
  if (!py::isinstance<py::array>(value) && py::hasattr(value, "__dlpack__") &&
      !py::hasattr(value, "__array_interface__")) {
    return py::module_::import("numpy").attr("from_dlpack")(value);
  }
  return py::array::ensure(value, py::array::c_style);
}

std::vector<std::int64_t> shapeOf(const py::array& array) {
  return std::vector<std::int64_t>(array.shape(), array.shape() + array.ndim());
}

// An output a Session kept on the device (run(..., keep_on_device=True)).
struct PyDeviceTensor {
  openvgf::Tensor tensor;
};

// A view of `value` for an input described by `info` (an array of exactly the input's numpy
// dtype: no silent casts, or a DeviceTensor); the array goes to `keep`. `source` names the model.
openvgf::Tensor inputTensor(const py::handle& value, const openvgf::TensorInfo& info, const std::string& source,
                            std::vector<py::array>& keep, const std::string& role = "input") {
  const std::string what = source + ": " + role + " '" + info.name + "': ";
  if (py::isinstance<PyDeviceTensor>(value)) return value.cast<const PyDeviceTensor&>().tensor;
  py::array array = asArray(value);
  if (!array) {
    invalid(what + "expected a numpy array (or an object numpy can view), got " +
            std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  }
  const py::dtype expected = numpyType(info);
  // The other signedness of the same width is taken byte for byte, with the library's warning
  // when values read differently (openvgf::warnIfReinterpreted: the one rule, as for .npy files).
  const char kind = array.dtype().kind();
  const bool otherSignedness = (kind == 'i' || kind == 'u') && kind != expected.kind() &&
                               (expected.kind() == 'i' || expected.kind() == 'u') && array.itemsize() == expected.itemsize();
  if (!array.dtype().equal(expected) && !otherSignedness) {
    invalid(what + "expected dtype " + std::string(py::str(py::dtype(expected))) + " (" + openvgf::toString(info.dtype) +
            (info.isUnsigned ? ", stored unsigned" : "") +
            "), got " + std::string(py::str(array.dtype())));
  }
  keep.push_back(array);
  openvgf::Tensor tensor = openvgf::Tensor::view(info.dtype, shapeOf(array), const_cast<void*>(array.data()),
                                                 static_cast<std::size_t>(array.nbytes()));
  if (otherSignedness) openvgf::warnIfReinterpreted(info, tensor, kind == 'u', source + ": " + role + " '" + info.name + "'");
  return tensor;
}

py::array newOutput(const openvgf::TensorInfo& info, openvgf::Tensor& view) {
  py::array array(numpyType(info), std::vector<py::ssize_t>(info.shape.begin(), info.shape.end()));
  view = openvgf::Tensor::view(info.dtype, info.shape, array.mutable_data(), static_cast<std::size_t>(array.nbytes()));
  return array;
}

py::array toArray(const openvgf::Tensor& tensor) {
  py::array array(numpyType(tensor.dtype()), std::vector<py::ssize_t>(tensor.shape().begin(), tensor.shape().end()));
  if (tensor.byteSize() != 0) std::memcpy(array.mutable_data(), tensor.data(), tensor.byteSize());
  return array;
}

py::dict infoDict(const openvgf::TensorInfo& info) {
  py::dict d;
  d["name"] = info.name;
  d["dtype"] = numpyType(info);
  d["type"] = openvgf::toString(info.dtype);
  d["shape"] = py::tuple(py::cast(info.shape));
  if (info.intermediate || !info.producer.empty()) {  // keep_intermediates: which operator computes it
    d["intermediate"] = info.intermediate;
    d["producer"] = info.producer;
    d["producer_index"] = info.producerIndex;
  }
  return d;
}

py::list infoList(const std::vector<openvgf::TensorInfo>& infos) {
  py::list list;
  for (const openvgf::TensorInfo& info : infos) list.append(infoDict(info));
  return list;
}

openvgf::ModelOptions modelOptions(const std::string& device, const std::string& target, const std::string& plan,
                                   bool validate, bool pipelineCache, bool modelCache, const std::string& cacheDir) {
  openvgf::ModelOptions options;
  options.device = device;
  options.target = target;
  options.plan = plan;
  options.validate = validate;
  options.pipelineCache = pipelineCache;
  options.modelCache = modelCache;
  options.cacheDir = cacheDir;
  return options;
}

// ModelOptions' fields for Session.check / check_operators (docs/running.md).
openvgf::ModelOptions withChecking(openvgf::ModelOptions options, const std::string& reference, bool check,
                                   bool keepIntermediates) {
  options.reference = reference;
  options.check = check;
  options.keepIntermediates = keepIntermediates;
  return options;
}

py::dict checkDict(const openvgf::OutputCheck& c) {
  py::dict d;
  if (!c.part.empty()) d["part"] = c.part;
  d["output"] = c.output;
  d["pass"] = c.pass;
  d["inconclusive"] = c.inconclusive;
  d["rule"] = c.rule;
  d["elements"] = c.elements;
  d["failures"] = c.failures;
  d["max_abs_error"] = c.maxAbsError;
  d["max_ulp_error"] = c.maxUlpError;
  d["line"] = c.line;
  return d;
}

openvgf::Model openModel(const std::string& path, const openvgf::ModelOptions& options) {
  py::gil_scoped_release release;
  return openvgf::Model::open(path, options);
}

// Outputs as Python sees them: numpy arrays the session writes into, or DeviceTensors.
py::object outputObject(const openvgf::Tensor& tensor, const py::array& array) {
  if (tensor.location() == openvgf::MemoryLocation::Device) return py::cast(PyDeviceTensor{tensor});
  return array;
}

// A run's inputs and outputs, made ready from Python objects (with the GIL held).
struct PreparedRun {
  bool byName = false;
  std::vector<py::array> keep;  // input arrays (pinned ones are read until the run is waited for)
  std::vector<std::string> names;
  std::vector<openvgf::Tensor> given;
  std::vector<openvgf::Tensor> views;  // output views of `outputs`
  std::vector<py::array> outputs;

  std::map<std::string, openvgf::Tensor> named() const {
    std::map<std::string, openvgf::Tensor> map;
    for (std::size_t i = 0; i < names.size(); ++i) map.emplace(names[i], given[i]);
    return map;
  }
};

// dict -> dict by output name; any other sequence -> list in output order.
py::object resultObject(const openvgf::Model& model, const PreparedRun& prepared,
                        const std::vector<openvgf::Tensor>& tensors) {
  py::list list;
  py::dict dict;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    py::object value = outputObject(tensors[i], prepared.outputs[i]);
    list.append(value);
    dict[py::str(model.outputs()[i].name)] = value;
  }
  return prepared.byName ? py::object(dict) : py::object(list);
}

// A run started by Session.run_async.
struct PyRunHandle {
  openvgf::Model model;
  openvgf::RunHandle handle;
  PreparedRun prepared;

  PyRunHandle(openvgf::Model m, openvgf::RunHandle h, PreparedRun p)
      : model(std::move(m)), handle(std::move(h)), prepared(std::move(p)) {}
  PyRunHandle(PyRunHandle&&) = default;  // the moved-from handle is empty: its destructor waits for nothing
  PyRunHandle& operator=(PyRunHandle&&) = delete;
  // Dropped unwaited: the run writes into prepared.outputs, so it finishes before those arrays
  // go. Without the GIL: the wait may queue behind other threads' runs of the Session (which
  // never need the GIL while they hold the Session).
  ~PyRunHandle() {
    py::gil_scoped_release release;
    handle = openvgf::RunHandle();
  }

  bool pending() const {
    py::gil_scoped_release release;  // valid() takes the Session's lock, which a run may hold
    return handle.valid();
  }

  py::object wait() {
    std::vector<openvgf::Tensor> tensors;
    {
      py::gil_scoped_release release;
      tensors = handle.wait();
    }
    return resultObject(model, prepared, tensors);
  }
};

// A Session with its Model (Python keeps both alive together).
struct PySession {
  openvgf::Model model;
  openvgf::Session session;

  py::object run(const py::object& inputs, bool keepOnDevice) {
    PreparedRun prepared = prepare(inputs, keepOnDevice);
    {
      py::gil_scoped_release release;
      if (prepared.byName) {
        session.runNamed(prepared.named(), prepared.views, {keepOnDevice});
      } else {
        session.run(prepared.given, prepared.views, {keepOnDevice});
      }
    }
    return resultObject(model, prepared, prepared.views);
  }

  PyRunHandle runAsync(const py::object& inputs, bool keepOnDevice) {
    PreparedRun prepared = prepare(inputs, keepOnDevice);
    openvgf::RunHandle handle;
    {
      py::gil_scoped_release release;
      handle = prepared.byName ? session.runNamedAsync(prepared.named(), prepared.views, {keepOnDevice})
                               : session.runAsync(prepared.given, prepared.views, {keepOnDevice});
    }
    return PyRunHandle(model, std::move(handle), std::move(prepared));
  }

  PreparedRun prepare(const py::object& inputs, bool keepOnDevice) {
    PreparedRun run;
    std::vector<py::array>& keep = run.keep;
    std::vector<std::string>& names = run.names;
    std::vector<openvgf::Tensor>& given = run.given;
    const bool byName = py::isinstance<py::dict>(inputs);
    run.byName = byName;
    if (byName) {
      for (auto item : py::reinterpret_borrow<py::dict>(inputs)) {
        const std::string name = py::str(item.first);
        const openvgf::TensorInfo* info = findInput(name);
        if (info == nullptr) {
          // Let the binder produce its message listing the inputs.
          names.push_back(name);
          given.emplace_back();
          continue;
        }
        names.push_back(name);
        given.push_back(inputTensor(item.second, *info, model.path(), keep));
      }
    } else {
      if (py::isinstance<py::array>(inputs) || !py::isinstance<py::sequence>(inputs) || py::isinstance<py::str>(inputs)) {
        invalid(model.path() + ": run: expected a dict {name: array} or a list of arrays in input order");
      }
      py::sequence sequence = py::reinterpret_borrow<py::sequence>(inputs);
      for (std::size_t i = 0; i < sequence.size(); ++i) {
        names.emplace_back();
        if (i < model.inputs().size()) {
          given.push_back(inputTensor(sequence[i], model.inputs()[i], model.path(), keep));
        } else {
          given.emplace_back();
        }
      }
    }
    run.views.resize(model.outputs().size());
    for (std::size_t i = 0; i < run.views.size(); ++i) {
      run.outputs.push_back(keepOnDevice ? py::array() : newOutput(model.outputs()[i], run.views[i]));
    }
    return run;
  }

  // A finished run as Session::check takes it: inputs by name (a dict, or a sequence in input
  // order, as run() took them) and outputs in output order (the dict or list run() returned).
  struct JudgedRun {
    std::map<std::string, openvgf::Tensor> inputs;
    std::vector<openvgf::Tensor> outputs;
    std::vector<py::array> keep;
  };

  JudgedRun judged(const py::object& inputs, const py::object& outputs, const char* call) const {
    JudgedRun run;
    const std::string& path = model.path();
    if (py::isinstance<py::dict>(inputs)) {
      for (auto item : py::reinterpret_borrow<py::dict>(inputs)) {
        const std::string name = py::str(item.first);
        const openvgf::TensorInfo* info = findInput(name);
        if (info == nullptr) invalid(path + ": " + call + ": expected inputs of the model, got one named '" + name + "'");
        run.inputs.emplace(name, inputTensor(item.second, *info, path, run.keep));
      }
    } else {
      if (!py::isinstance<py::sequence>(inputs) || py::isinstance<py::str>(inputs) || py::isinstance<py::array>(inputs)) {
        invalid(path + ": " + call + ": expected the run's inputs: a dict {name: array} or a list of arrays in input order");
      }
      py::sequence sequence = py::reinterpret_borrow<py::sequence>(inputs);
      if (sequence.size() > model.inputs().size()) {
        invalid(path + ": " + call + ": expected at most " + std::to_string(model.inputs().size()) + " inputs, got " +
                std::to_string(sequence.size()));
      }
      for (std::size_t i = 0; i < sequence.size(); ++i) {
        const openvgf::TensorInfo& info = model.inputs()[i];
        run.inputs.emplace(info.name, inputTensor(sequence[i], info, path, run.keep));
      }
    }
    const std::vector<openvgf::TensorInfo>& infos = model.outputs();
    const bool byName = py::isinstance<py::dict>(outputs);
    if (!byName && (!py::isinstance<py::sequence>(outputs) || py::isinstance<py::str>(outputs) ||
                    py::isinstance<py::array>(outputs) || py::len(outputs) != infos.size())) {
      invalid(path + ": " + call + ": expected the run's outputs as run() returned them: a dict by output name or a "
              "list of " + std::to_string(infos.size()) + " arrays in output order");
    }
    for (std::size_t i = 0; i < infos.size(); ++i) {
      py::object value;
      if (byName) {
        py::dict dict = py::reinterpret_borrow<py::dict>(outputs);
        if (!dict.contains(py::str(infos[i].name))) invalid(path + ": " + call + ": output '" + infos[i].name + "' missing");
        value = dict[py::str(infos[i].name)];
      } else {
        value = py::reinterpret_borrow<py::sequence>(outputs)[i];
      }
      run.outputs.push_back(inputTensor(value, infos[i], path, run.keep, "output"));
    }
    return run;
  }

  py::dict check(const py::object& inputs, const py::object& outputs) const {
    JudgedRun run = judged(inputs, outputs, "check");
    openvgf::CheckReport report;
    {
      py::gil_scoped_release release;
      report = session.check(run.inputs, run.outputs);
    }
    py::list lines;
    for (const openvgf::OutputCheck& c : report.outputs) lines.append(checkDict(c));
    py::dict d;
    d["pass"] = report.pass;
    d["inconclusive"] = report.inconclusive;
    d["outputs"] = lines;
    return d;
  }

  py::dict checkOperators(const py::object& inputs, const py::object& outputs) const {
    JudgedRun run = judged(inputs, outputs, "check_operators");
    openvgf::OperatorReport report;
    {
      py::gil_scoped_release release;
      report = session.checkOperators(run.inputs, run.outputs);
    }
    py::list operators;
    for (const openvgf::OperatorCheck& op : report.operators) {
      py::list checks;
      for (const openvgf::OutputCheck& c : op.outputs) checks.append(checkDict(c));
      py::dict d;
      d["index"] = op.index;
      d["op"] = op.op;
      d["outputs"] = checks;
      d["not_judged"] = op.notJudged;
      d["upstream"] = op.upstream;
      operators.append(d);
    }
    py::dict d;
    d["pass"] = report.pass;
    d["inconclusive"] = report.inconclusive;
    d["operators"] = operators;
    return d;
  }

  const openvgf::TensorInfo* findInput(const std::string& name) const {
    for (const openvgf::TensorInfo& info : model.inputs()) {
      if (info.name == name) return &info;
    }
    return nullptr;
  }

  py::dict profile() const {
    openvgf::Profile p;
    {
      py::gil_scoped_release release;
      p = session.profile();
    }
    py::dict d;
    d["host_ms"] = p.hostMs;
    d["gpu_ms"] = p.gpuMs;
    py::list segments;
    for (const openvgf::Profile::Segment& s : p.segments) segments.append(py::make_tuple(s.name, s.gpuMs));
    d["segments"] = segments;
    return d;
  }
};

py::dict deviceDict(const openvgf::DeviceInfo& d) {
  py::dict out;
  out["index"] = d.index;
  out["name"] = d.name;
  out["type"] = d.type;
  out["api_version"] = d.apiVersion;
  out["driver"] = d.driver;
  out["default"] = d.isDefault;
  out["usable"] = d.usable;
  out["device_local_bytes"] = d.deviceLocalBytes;
  out["subgroup_size"] = d.subgroupSize;
  out["features"] = d.features;
  out["transfer_queue"] = d.transferQueue;
  out["host_visible_device_local_bytes"] = d.hostVisibleDeviceLocalBytes;
  out["external_memory_host"] = d.externalMemoryHost;
  out["import_alignment"] = d.importAlignment;
  out["timeline_semaphores"] = d.timelineSemaphores;
  return out;
}

// A numpy array of `shape` and the numpy dtype `dtype` in pinned memory of `model`'s device;
// the array keeps the memory alive.
py::array pinnedEmpty(const openvgf::Model& model, const std::vector<std::int64_t>& shape, const py::object& dtype) {
  py::dtype want = py::dtype::from_args(dtype);
  std::optional<openvgf::DataType> type = openvgfType(want);
  if (!type) invalid("pinned_empty: dtype: expected bool, int8, int16, int32, int64, float16 or float32, got " +
                     std::string(py::str(want)));
  auto* tensor = new openvgf::Tensor(model.allocatePinned(*type, shape));
  py::capsule owner(tensor, [](void* p) { delete static_cast<openvgf::Tensor*>(p); });
  return py::array(want, std::vector<py::ssize_t>(shape.begin(), shape.end()), tensor->data(), owner);
}

// DeviceTensor and RunHandle: what sessions hand back.
void bindHandles(py::module_& m) {
  py::class_<PyDeviceTensor>(m, "DeviceTensor",
                             "An output a Session kept on the device (keep_on_device=True): an input of any "
                             "Session of a model on the same device, until its Session runs again.")
      .def_property_readonly("shape", [](const PyDeviceTensor& t) { return py::tuple(py::cast(t.tensor.shape())); })
      .def_property_readonly("dtype", [](const PyDeviceTensor& t) { return numpyType(t.tensor.dtype()); })
      .def_property_readonly("type", [](const PyDeviceTensor& t) { return openvgf::toString(t.tensor.dtype()); })
      .def("__repr__", [](const PyDeviceTensor& t) {
        return "DeviceTensor(" + std::string(openvgf::toString(t.tensor.dtype())) + ", " +
               std::string(py::str(py::tuple(py::cast(t.tensor.shape())))) + ")";
      });

  py::class_<PyRunHandle>(m, "RunHandle", "A run started by Session.run_async; wait() returns its outputs.")
      .def("wait", &PyRunHandle::wait, "Waits for the run (once) and returns its outputs as run() would.")
      .def_property_readonly("pending", &PyRunHandle::pending,
                             "True until wait() is called.");

}

// Model: a file opened on a device.
void bindModel(py::module_& m) {
  py::class_<openvgf::Model>(m, "Model", "A model file made ready to run on one Vulkan device.")
      .def(py::init([](const std::string& path, const std::string& device, const std::string& target,
                       const std::string& plan, bool validate, bool pipelineCache, bool modelCache,
                       const std::string& cacheDir, const openvgf::Model* shareDeviceWith, const std::string& reference,
                       bool check, bool keepIntermediates) {
             const openvgf::ModelOptions options =
                 withChecking(modelOptions(device, target, plan, validate, pipelineCache, modelCache, cacheDir),
                              reference, check, keepIntermediates);
             if (shareDeviceWith == nullptr) return openModel(path, options);
             py::gil_scoped_release release;
             return openvgf::Model::open(path, options, *shareDeviceWith);
           }),
           py::arg("path"), py::kw_only(), py::arg("device") = "", py::arg("target") = "portable",
           py::arg("plan") = "", py::arg("validate") = false, py::arg("pipeline_cache") = true,
           py::arg("model_cache") = true, py::arg("cache_dir") = "", py::arg("share_device_with") = nullptr,
           py::arg("reference") = "", py::arg("check") = false, py::arg("keep_intermediates") = false)
      .def("shares_device_with", &openvgf::Model::sharesDeviceWith, py::arg("other"))
      .def("pinned_empty", &pinnedEmpty, py::arg("shape"), py::arg("dtype") = "float32",
           "A zero-filled numpy array in pinned memory of this model's device: runs move it by DMA.")
      .def_property_readonly("path", &openvgf::Model::path)
      .def_property_readonly("format", [](const openvgf::Model& model) {
        switch (model.format()) {
          case openvgf::ModelFormat::Tosa: return "tosa";
          case openvgf::ModelFormat::Vgf: return "vgf";
          case openvgf::ModelFormat::Pte: return "pte";
          case openvgf::ModelFormat::EthosU: return "ethosu";
        }
        return "vgf";
      })
      .def_property_readonly("inputs", [](const openvgf::Model& model) { return infoList(model.inputs()); })
      .def_property_readonly("outputs", [](const openvgf::Model& model) { return infoList(model.outputs()); })
      .def(
          "read_image",
          [](const openvgf::Model& model, const std::string& path, const std::string& input,
             std::vector<double> mean, std::vector<double> stddev, const std::string& layout) {
            const std::vector<openvgf::TensorInfo>& inputs = model.inputs();
            auto it = std::find_if(inputs.begin(), inputs.end(), [&](const openvgf::TensorInfo& t) {
              return input.empty() || t.name == input;
            });
            if (it == inputs.end()) invalid(model.path() + ": read_image: expected an input named '" + input + "'");
            openvgf::ImageOptions options;
            options.mean = std::move(mean);
            options.stddev = std::move(stddev);
            options.layout = layout;
            return toArray(openvgf::readImage(path, *it, options));
          },
          py::arg("path"), py::kw_only(), py::arg("input") = "", py::arg("mean") = std::vector<double>{},
          py::arg("std") = std::vector<double>{}, py::arg("layout") = "",
          "A PNG or JPEG file preprocessed for an input (the first, or `input` by name) as `openvgf run "
          "--input` does it: resized bilinear, (pixel/255 - mean) / std for float inputs, pixel - 128 for "
          "int8 (docs/debugging.md).")
      .def_property_readonly("device", &openvgf::Model::deviceName)
      .def_property_readonly("from_cache", &openvgf::Model::fromCache)
      .def("session", [](const openvgf::Model& model, bool profile, unsigned inFlight) {
             openvgf::Session session = [&] {
               py::gil_scoped_release release;
               return model.createSession({.profile = profile, .inFlight = inFlight});
             }();
             return PySession{model, std::move(session)};
           },
           py::kw_only(), py::arg("profile") = false, py::arg("in_flight") = 1);

}

// Session: a model ready to run, shared safely between threads.
void bindSession(py::module_& m) {
  py::class_<PySession>(m, "Session",
                        "One model ready to run: Session(path_or_model, profile=False, **model_options). "
                        "Thread-safe: threads sharing a Session take turns (a call waits for the one before).")
      .def(py::init([](const openvgf::Model& model, bool profile, unsigned inFlight) {
             py::gil_scoped_release release;
             return PySession{model, model.createSession({.profile = profile, .inFlight = inFlight})};
           }),
           py::arg("model"), py::kw_only(), py::arg("profile") = false, py::arg("in_flight") = 1)
      .def(py::init([](const std::string& path, bool profile, unsigned inFlight, const std::string& device,
                       const std::string& target, const std::string& plan, bool validate, bool pipelineCache,
                       bool modelCache, const std::string& cacheDir, const openvgf::Model* shareDeviceWith,
                       const std::string& reference, bool check, bool keepIntermediates) {
             const openvgf::ModelOptions options =
                 withChecking(modelOptions(device, target, plan, validate, pipelineCache, modelCache, cacheDir),
                              reference, check, keepIntermediates);
             openvgf::Model model = shareDeviceWith ? openvgf::Model::open(path, options, *shareDeviceWith)
                                                    : openModel(path, options);
             py::gil_scoped_release release;
             return PySession{model, model.createSession({.profile = profile, .inFlight = inFlight})};
           }),
           py::arg("path"), py::kw_only(), py::arg("profile") = false, py::arg("in_flight") = 1,
           py::arg("device") = "", py::arg("target") = "portable", py::arg("plan") = "", py::arg("validate") = false,
           py::arg("pipeline_cache") = true, py::arg("model_cache") = true, py::arg("cache_dir") = "",
           py::arg("share_device_with") = nullptr, py::arg("reference") = "", py::arg("check") = false,
           py::arg("keep_intermediates") = false)
      .def("check", &PySession::check, py::arg("inputs"), py::arg("outputs"),
           "Judges a run's outputs (as run() returned them, for these inputs) with the TOSA reference interpreter "
           "under TOSA's compliance rules, as `openvgf run --check` does: {'pass', 'inconclusive', 'outputs': "
           "[{'output', 'pass', 'inconclusive', 'rule', 'elements', 'failures', 'max_abs_error', 'max_ulp_error', "
           "'line'}]}. Against reference= when given, else the graph the model carries.")
      .def("check_operators", &PySession::checkOperators, py::arg("inputs"), py::arg("outputs"),
           "Judges every operator alone on the device's own values of its inputs, under its own TOSA rule, as "
           "`openvgf compare --per-operator` does (a .tosa opened with keep_intermediates=True): {'pass', "
           "'inconclusive', 'operators': [{'index', 'op', 'outputs': [as check()], 'not_judged', 'upstream'}]}.")
      .def("run", &PySession::run, py::arg("inputs"), py::kw_only(), py::arg("keep_on_device") = false,
           "Runs once. A dict {name: array} returns a dict {output name: array}; a list of arrays in input "
           "order returns a list. `state:` inputs of a .tosa model may be left out (their initial value). "
           "Inputs may be DeviceTensors; keep_on_device=True returns DeviceTensors instead of arrays.")
      .def("run_async", &PySession::runAsync, py::arg("inputs"), py::kw_only(), py::arg("keep_on_device") = false,
           "Starts a run as run() would; returns a RunHandle. Up to in_flight runs in flight (one more finishes the "
           "oldest first), waited for in any order; inputs unchanged until wait(); a dropped handle finishes its run.")
      .def_property_readonly("model", [](const PySession& s) { return s.model; })
      .def_property_readonly("inputs", [](const PySession& s) { return infoList(s.model.inputs()); })
      .def_property_readonly("outputs", [](const PySession& s) { return infoList(s.model.outputs()); })
      .def_property_readonly("profile", &PySession::profile,
                             "Timings of the last run: host_ms, gpu_ms and per-dispatch segments (with profile=True).");

}

// A DevicePool with its item conversions: DevicePool.run_many.
struct PyPool {
  openvgf::DevicePool pool;

  // One item (a dict by input name or a list in input order) as views of its arrays, kept in
  // `keep`; an openvgf::Exception names what is wrong with it.
  std::vector<openvgf::Tensor> itemInputs(const py::handle& item, std::vector<py::array>& keep) const {
    const std::vector<openvgf::TensorInfo>& infos = pool.inputs();
    const std::string& source = pool.models()[0].path();
    std::vector<openvgf::Tensor> tensors;
    if (py::isinstance<py::dict>(item)) {
      py::dict dict = py::reinterpret_borrow<py::dict>(item);
      for (const openvgf::TensorInfo& info : infos) {
        if (!dict.contains(info.name)) invalid(source + ": input '" + info.name + "': expected it in the dict");
        tensors.push_back(inputTensor(dict[py::str(info.name)], info, source, keep));
      }
      if (dict.size() != infos.size()) invalid(source + ": expected a dict of the model's " +
                                               std::to_string(infos.size()) + " inputs, got " +
                                               std::to_string(dict.size()) + " entries");
      return tensors;
    }
    if (py::isinstance<py::array>(item) || !py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item)) {
      invalid(source + ": run_many: expected each item as a dict {name: array} or a list of arrays in input order");
    }
    py::sequence sequence = py::reinterpret_borrow<py::sequence>(item);
    if (sequence.size() > infos.size()) {
      invalid(source + ": expected at most " + std::to_string(infos.size()) + " inputs, got " +
              std::to_string(sequence.size()));
    }
    for (std::size_t i = 0; i < sequence.size(); ++i) tensors.push_back(inputTensor(sequence[i], infos[i], source, keep));
    return tensors;
  }

  py::list runMany(const py::iterable& items, bool returnErrors) {
    std::vector<py::array> keep;
    std::vector<bool> byName;
    std::vector<std::vector<openvgf::Tensor>> inputs;
    std::vector<std::optional<openvgf::Exception>> refused;  // items that could not be read
    for (const py::handle& item : items) {
      byName.push_back(py::isinstance<py::dict>(item));
      try {
        inputs.push_back(itemInputs(item, keep));
        refused.emplace_back();
      } catch (const openvgf::Exception& e) {
        inputs.emplace_back();
        refused.emplace_back(e);
      }
    }
    std::vector<openvgf::PoolResult> results(inputs.size());
    {
      py::gil_scoped_release release;
      pool.run(
          inputs.size(),
          [&](std::size_t i, std::vector<openvgf::Tensor>& in) {
            if (refused[i]) throw *refused[i];
            in = inputs[i];
          },
          [&](std::size_t i, openvgf::PoolResult result) { results[i] = std::move(result); });
    }
    py::list out;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const openvgf::PoolResult& r = results[i];
      if (!r.ok) {
        openvgf::Exception error(r.code, r.error);
        if (!returnErrors) throw error;
        out.append(py::module_::import("openvgf").attr("Error")(r.error, codeName(r.code), error.exitCode()));
        continue;
      }
      py::list list;
      py::dict dict;
      for (std::size_t o = 0; o < r.outputs.size(); ++o) {
        py::array array = toArray(r.outputs[o]);
        list.append(array);
        dict[py::str(pool.outputs()[o].name)] = array;
      }
      out.append(byName[i] ? py::object(dict) : py::object(list));
    }
    return out;
  }
};

void bindPool(py::module_& m) {
  py::class_<PyPool>(m, "DevicePool",
                     "One model open on several devices (a session each): run_many spreads input sets over them, "
                     "one thread per device, results in input order.")
      .def(py::init([](const std::string& path, const std::string& devices, unsigned inFlight, const std::string& target,
                       const std::string& plan, bool validate, bool pipelineCache, bool modelCache,
                       const std::string& cacheDir) {
             openvgf::PoolOptions options;
             options.devices = devices;
             options.inFlight = inFlight;
             options.model = modelOptions("", target, plan, validate, pipelineCache, modelCache, cacheDir);
             py::gil_scoped_release release;
             return PyPool{openvgf::DevicePool::open(path, options)};
           }),
           py::arg("path"), py::kw_only(), py::arg("devices") = "", py::arg("in_flight") = 2,
           py::arg("target") = "portable", py::arg("plan") = "", py::arg("validate") = false,
           py::arg("pipeline_cache") = true, py::arg("model_cache") = true, py::arg("cache_dir") = "",
           "devices: '' the default device, 'all' every device of the best kind, or indices and name substrings "
           "separated by commas ('0,1', 'H200'); in_flight: runs in flight per device (1..8).")
      .def("run_many", &PyPool::runMany, py::arg("items"), py::kw_only(), py::arg("return_errors") = false,
           "Runs every item (a dict {name: array} or a list in input order) and returns their outputs in item "
           "order, as Session.run would. A failed item raises openvgf.Error once all have run; with "
           "return_errors=True its place holds the openvgf.Error instead and the others are kept.")
      .def_property_readonly("devices", [](const PyPool& p) {
        std::vector<std::string> names;
        for (const openvgf::Model& model : p.pool.models()) names.push_back(model.deviceName());
        return names;
      }, "The device name of each session, in pool order.")
      .def_property_readonly("device_indices", [](const PyPool& p) { return p.pool.deviceIndices(); })
      .def_property_readonly("inputs", [](const PyPool& p) { return infoList(p.pool.inputs()); })
      .def_property_readonly("outputs", [](const PyPool& p) { return infoList(p.pool.outputs()); });
}

// devices, convert, inspect: the command-line tools as functions.
void bindTools(py::module_& m) {
  m.def("devices", [](bool validate) {
    py::list list;
    for (const openvgf::DeviceInfo& d : openvgf::listDevices(validate)) list.append(deviceDict(d));
    return list;
  }, py::kw_only(), py::arg("validate") = false, "Every Vulkan device, as dicts.");

  m.def("convert", [](const std::string& input, const std::string& output, const std::string& target, bool cache,
                      const std::string& passes, const std::string& device, const std::string& format,
                      const std::string& precision) {
    openvgf::ConvertOptions options;
    options.target = target;
    options.cache = cache;
    options.passes = passes;
    options.device = device;
    options.format = format;
    options.precision = precision;
    openvgf::ConvertStats stats;
    {
      py::gil_scoped_release release;
      stats = openvgf::convert(input, output, options);
    }
    py::dict d;
    d["target"] = stats.target;
    d["output_bytes"] = stats.outputBytes;
    d["kernels"] = stats.kernels;
    d["unique_modules"] = stats.uniqueModules;
    d["constant_bytes"] = stats.constantBytes;
    d["peak_live_bytes"] = stats.peakLiveBytes;
    return d;
  }, py::arg("input"), py::arg("output"), py::kw_only(), py::arg("target") = "portable", py::arg("cache") = true,
        py::arg("passes") = "all", py::arg("device") = "", py::arg("format") = "compute", py::arg("precision") = "fp32",
        "Converts a .tosa file to a VGF (or an Ethos-U stream); returns its statistics. device: for target "
        "'native', the device to convert for (index or name substring; default: the one Model would pick). "
        "format: 'compute' or 'arm-graph' (one GRAPH segment, as Arm's model-converter writes). precision: 'fp32', "
        "'fp16', 'bf16', 'fp16x3', 'bf16x3' or 'fp32-bf16' (see `openvgf convert --help`).");

  m.def("inspect_text", [](const std::string& path) { return openvgf::inspect(path, false); }, py::arg("path"));
  m.def("set_log_level", [](const std::string& level) { openvgf::setLogLevel(openvgf::parseLogLevel(level)); },
        py::arg("level"),
        "What the library writes to stderr: trace, debug, info, warn (the default; also env OPENVGF_LOG_LEVEL), "
        "error or off.");
  m.def("log_level", []() { return std::string(openvgf::toString(openvgf::logLevel())); });
  m.def("inspect_json", [](const std::string& path) { return openvgf::inspect(path, true); }, py::arg("path"));

}

// reference and extract: the CPU interpreter and .pte payloads.
void bindReferenceAndExtract(py::module_& m) {
  m.def("reference", [](const std::string& path, const py::object& inputs, bool precise, bool strict, bool dynamic) {
    std::vector<openvgf::NamedTensor> given;
    auto add = [&](const std::string& name, const py::handle& value) {
      py::array array = asArray(value);
      if (!array) invalid(path + ": input '" + name + "': expected a numpy array");
      std::optional<openvgf::DataType> type = openvgfType(array.dtype());
      if (!type) invalid(path + ": input '" + name + "': unsupported numpy dtype " + std::string(py::str(array.dtype())));
      given.push_back({name, openvgf::Tensor::copyOf(*type, shapeOf(array), array.data(),
                                                     static_cast<std::size_t>(array.nbytes()))});
    };
    if (py::isinstance<py::dict>(inputs)) {
      for (auto item : py::reinterpret_borrow<py::dict>(inputs)) add(py::str(item.first), item.second);
    } else {
      for (const py::handle& value : py::reinterpret_borrow<py::sequence>(inputs)) add("", value);
    }
    std::vector<openvgf::NamedTensor> outputs;
    std::vector<std::string> warnings;
    {
      py::gil_scoped_release release;
      openvgf::ReferenceOptions options;
      options.precise = precise;
      options.strict = strict;
      options.dynamic = dynamic;
      options.onWarning = [&warnings](const std::string& warning) { warnings.push_back(warning); };
      outputs = openvgf::reference(path, given, options);
    }
    // REQUIRE violations: the results are unpredictable (TOSA), which Python callers hear as warnings.
    for (const std::string& warning : warnings) {
      if (PyErr_WarnEx(PyExc_RuntimeWarning, warning.c_str(), 1) != 0) throw py::error_already_set();
    }
    py::dict result;
    for (const openvgf::NamedTensor& out : outputs) result[py::str(out.name)] = toArray(out.tensor);
    return result;
  }, py::arg("path"), py::arg("inputs"), py::kw_only(), py::arg("precise") = false, py::arg("strict") = false,
        py::arg("dynamic") = false,
        "Runs a .tosa graph on the CPU reference interpreter; inputs as a dict or a list in graph order.");

  m.def("extract", [](const std::string& path, const std::string& outputDir, const std::string& plan, int delegate) {
    std::vector<std::string> files;
    for (const openvgf::ExtractedPayload& payload : openvgf::extract(path, outputDir, plan, delegate)) {
      files.push_back(payload.file);
    }
    return files;
  }, py::arg("path"), py::arg("output_dir"), py::kw_only(), py::arg("plan") = "", py::arg("delegate") = -1,
        "Writes the delegate payloads of a .pte and manifest.json to output_dir; returns the payload file names.");
}

}  // namespace

PYBIND11_MODULE(_openvgf, m) {
  m.doc() = "openvgf: run TOSA, VGF and ExecuTorch models on Vulkan devices (see the openvgf package)";
  m.attr("__version__") = openvgf::version();

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const openvgf::Exception& e) {
      py::object error = py::module_::import("openvgf").attr("Error");
      py::object instance = error(e.what(), codeName(e.code()), e.exitCode());
      PyErr_SetObject(error.ptr(), instance.ptr());
    }
  });

  bindHandles(m);
  bindModel(m);
  bindSession(m);
  bindPool(m);
  bindTools(m);
  bindReferenceAndExtract(m);
}
