// SPDX-License-Identifier: Apache-2.0
// The installed C API (openvgf/openvgf.h) over the C++ API: handles own C++ objects, every
// exception becomes an openvgf_status, and no exception crosses into C.
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#include "openvgf/openvgf.h"
#include "openvgf/openvgf.hpp"

struct openvgf_status {
  openvgf_code code;
  std::string message;
};

struct openvgf_model {
  openvgf::Model model;
};

struct openvgf_session {
  openvgf::Session session;
};

struct openvgf_run {
  openvgf::RunHandle handle;
  std::vector<openvgf::Tensor> outputs;  // after openvgf_run_wait
};

struct openvgf_pinned {
  openvgf::Tensor tensor;  // INT8 bytes in pinned memory
};

struct openvgf_device_tensor {
  openvgf::Tensor tensor;
};

struct openvgf_pool {
  openvgf::DevicePool pool;
  std::vector<openvgf_model> models;  // the pool's models, for openvgf_pool_model
};

namespace {

// Returned when even the status cannot be allocated (never freed).
openvgf_status outOfMemory{OPENVGF_RUNTIME, "out of host memory"};

openvgf_status* makeStatus(openvgf_code code, std::string message) {
  openvgf_status* status = new (std::nothrow) openvgf_status{code, std::move(message)};
  return status != nullptr ? status : &outOfMemory;
}

// Runs `body`, turning any exception into a status.
template <typename Body>
openvgf_status* guarded(Body&& body) {
  try {
    body();
    return nullptr;
  } catch (const openvgf::Exception& e) {
    return makeStatus(static_cast<openvgf_code>(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return &outOfMemory;
  } catch (const std::exception& e) {
    return makeStatus(OPENVGF_INTERNAL, e.what());
  }
}

openvgf_status* nullArgument(const char* function, const char* argument) {
  return makeStatus(OPENVGF_INVALID_INPUT, std::string(function) + ": " + argument + ": expected a pointer, got NULL");
}

std::string orEmpty(const char* text) { return text == nullptr ? std::string() : std::string(text); }

bool knownDtype(openvgf_dtype dtype) {
  switch (dtype) {
    case OPENVGF_BOOL: case OPENVGF_INT4: case OPENVGF_INT8: case OPENVGF_INT16: case OPENVGF_INT32:
    case OPENVGF_INT48: case OPENVGF_FLOAT32: case OPENVGF_FLOAT16: case OPENVGF_BFLOAT16:
    case OPENVGF_FLOAT8E4M3: case OPENVGF_FLOAT8E5M2: case OPENVGF_FLOAT64:
      return true;
  }
  return false;
}

openvgf_tensor_info infoOf(const openvgf::TensorInfo& info) {
  return {info.name.c_str(), static_cast<openvgf_dtype>(info.dtype), info.shape.size(), info.shape.data(),
          info.byteSize};
}

// openvgf_model_input / _output: entry `index` of `list`.
openvgf_status* tensorInfoAt(const char* function, const openvgf_model* model,
                             const std::vector<openvgf::TensorInfo>& (openvgf::Model::*list)() const, size_t index,
                             openvgf_tensor_info* out_info) {
  if (model == nullptr) return nullArgument(function, "model");
  if (out_info == nullptr) return nullArgument(function, "out_info");
  const std::vector<openvgf::TensorInfo>& infos = (model->model.*list)();
  if (index >= infos.size()) {
    return makeStatus(OPENVGF_INVALID_INPUT, std::string(function) + ": index: expected < " +
                                                 std::to_string(infos.size()) + ", got " + std::to_string(index));
  }
  *out_info = infoOf(infos[index]);
  return nullptr;
}

// A C tensor as a view; `what` names it in messages ("inputs[0]").
openvgf::Tensor viewOf(const openvgf_tensor& t, const std::string& what) {
  if (!knownDtype(t.dtype)) {
    throw openvgf::Exception(openvgf::ErrorCode::InvalidInput,
                             what + ".dtype: expected an openvgf_dtype, got " + std::to_string(t.dtype));
  }
  if (t.rank != 0 && t.shape == nullptr) {
    throw openvgf::Exception(openvgf::ErrorCode::InvalidInput, what + ".shape: expected a pointer, got NULL");
  }
  openvgf::Shape shape(t.shape, t.shape + t.rank);
  try {
    return openvgf::Tensor::view(static_cast<openvgf::DataType>(t.dtype), std::move(shape), t.data, t.byte_size);
  } catch (const openvgf::Exception& e) {
    throw openvgf::Exception(e.code(), what + ": " + e.what());
  }
}

// The C inputs as tensors; a non-NULL device_inputs[i] replaces inputs[i].
std::vector<openvgf::Tensor> inputTensors(const openvgf_tensor* inputs, size_t count,
                                          const openvgf_device_tensor* const* deviceInputs) {
  std::vector<openvgf::Tensor> in;
  for (size_t i = 0; i < count; ++i) {
    const std::string what = "inputs[" + std::to_string(i) + "]";
    if (deviceInputs != nullptr && deviceInputs[i] != nullptr) {
      in.push_back(deviceInputs[i]->tensor);
    } else if (inputs == nullptr) {
      throw openvgf::Exception(openvgf::ErrorCode::InvalidInput,
                               what + ": expected a tensor (inputs is NULL and device_inputs[" + std::to_string(i) +
                                   "] is NULL)");
    } else {
      in.push_back(viewOf(inputs[i], what));
    }
  }
  return in;
}

// input_count against the model before inputs[] or device_inputs[] is read: a count above the
// model's inputs would read past the caller's array. Fewer may be given (state: inputs take
// their defaults; the binder names any other missing one).
openvgf_status* checkInputCount(const char* function, const openvgf_session* session, size_t count) {
  const size_t inputs = session->session.inputs().size();
  if (count <= inputs) return nullptr;
  return makeStatus(OPENVGF_INVALID_INPUT, std::string(function) + ": input_count: expected at most " +
                                               std::to_string(inputs) + " (the model's inputs), got " +
                                               std::to_string(count));
}

// The caller's output buffers as views. They must match exactly: the C++ API would otherwise
// allocate instead of writing into them.
std::vector<openvgf::Tensor> outputViews(const std::vector<openvgf::TensorInfo>& expected, const char* function,
                                         const openvgf_tensor* outputs, size_t count) {
  if (count != expected.size()) {
    throw openvgf::Exception(openvgf::ErrorCode::InvalidInput, std::string(function) + ": output_count: expected " +
                                                                   std::to_string(expected.size()) + ", got " +
                                                                   std::to_string(count));
  }
  std::vector<openvgf::Tensor> out;
  for (size_t i = 0; i < count; ++i) {
    const std::string what = "outputs[" + std::to_string(i) + "] '" + expected[i].name + "'";
    out.push_back(viewOf(outputs[i], what));
    if (out.back().dtype() != expected[i].dtype || out.back().shape() != expected[i].shape) {
      throw openvgf::Exception(openvgf::ErrorCode::InvalidInput,
                               what + ": expected " + openvgf::toString(expected[i].dtype) + " with the model's shape");
    }
  }
  return out;
}

// Checks struct_size of an options struct made by its _init function.
template <typename Options>
void checkStructSize(const Options* options, const char* function, const char* init) {
  if (options != nullptr && options->struct_size != sizeof(Options)) {
    throw openvgf::Exception(openvgf::ErrorCode::InvalidInput,
                             std::string(function) + ": options: expected struct_size set by " + init);
  }
}

openvgf::ModelOptions modelOptions(const openvgf_model_options* options) {
  openvgf::ModelOptions o;
  checkStructSize(options, "openvgf_model_open", "openvgf_model_options_init");
  if (options != nullptr) {
    o.device = orEmpty(options->device);
    if (options->target != nullptr) o.target = options->target;
    o.plan = orEmpty(options->plan);
    o.cacheDir = orEmpty(options->cache_dir);
    o.validate = options->validate != 0;
    o.pipelineCache = options->pipeline_cache != 0;
    o.modelCache = options->model_cache != 0;
  }
  return o;
}

// The item statuses of openvgf_pool_run_many, all NULL, so a call that fails leaves no garbage.
void clearStatuses(openvgf_status** statuses, size_t count) {
  for (size_t i = 0; i < count; ++i) statuses[i] = nullptr;
}

}  // namespace

extern "C" {

openvgf_code openvgf_status_code(const openvgf_status* status) { return status ? status->code : OPENVGF_OK; }
const char* openvgf_status_message(const openvgf_status* status) { return status ? status->message.c_str() : ""; }
int openvgf_status_exit_code(const openvgf_status* status) {
  if (status == nullptr) return 0;
  return status->code == OPENVGF_INVALID_INPUT || status->code == OPENVGF_UNSUPPORTED ? 2 : 1;
}
void openvgf_status_free(openvgf_status* status) {
  if (status != &outOfMemory) delete status;
}

const char* openvgf_version(void) { return openvgf::version(); }

const char* openvgf_dtype_name(openvgf_dtype dtype) {
  return knownDtype(dtype) ? openvgf::toString(static_cast<openvgf::DataType>(dtype)) : nullptr;
}

size_t openvgf_dtype_size(openvgf_dtype dtype) {
  return knownDtype(dtype) ? openvgf::elementSize(static_cast<openvgf::DataType>(dtype)) : 0;
}

void openvgf_model_options_init(openvgf_model_options* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->pipeline_cache = 1;
  options->model_cache = 1;
}

openvgf_status* openvgf_model_open(const char* path, const openvgf_model_options* options, openvgf_model** out_model) {
  if (path == nullptr) return nullArgument("openvgf_model_open", "path");
  if (out_model == nullptr) return nullArgument("openvgf_model_open", "out_model");
  return guarded([&] { *out_model = new openvgf_model{openvgf::Model::open(path, modelOptions(options))}; });
}

openvgf_status* openvgf_model_open_shared(const char* path, const openvgf_model_options* options,
                                          const openvgf_model* share_device_of, openvgf_model** out_model) {
  if (path == nullptr) return nullArgument("openvgf_model_open_shared", "path");
  if (share_device_of == nullptr) return nullArgument("openvgf_model_open_shared", "share_device_of");
  if (out_model == nullptr) return nullArgument("openvgf_model_open_shared", "out_model");
  return guarded([&] {
    *out_model = new openvgf_model{openvgf::Model::open(path, modelOptions(options), share_device_of->model)};
  });
}

void openvgf_model_release(openvgf_model* model) { delete model; }

size_t openvgf_model_input_count(const openvgf_model* model) { return model ? model->model.inputs().size() : 0; }
size_t openvgf_model_output_count(const openvgf_model* model) { return model ? model->model.outputs().size() : 0; }

openvgf_status* openvgf_model_input(const openvgf_model* model, size_t index, openvgf_tensor_info* out_info) {
  return tensorInfoAt("openvgf_model_input", model, &openvgf::Model::inputs, index, out_info);
}

openvgf_status* openvgf_model_output(const openvgf_model* model, size_t index, openvgf_tensor_info* out_info) {
  return tensorInfoAt("openvgf_model_output", model, &openvgf::Model::outputs, index, out_info);
}

const char* openvgf_model_device_name(const openvgf_model* model) {
  return model ? model->model.deviceName().c_str() : "";
}

void openvgf_session_options_init(openvgf_session_options* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->in_flight = 1;
}

openvgf_status* openvgf_session_create(const openvgf_model* model, const openvgf_session_options* options,
                                       openvgf_session** out_session) {
  if (model == nullptr) return nullArgument("openvgf_session_create", "model");
  if (out_session == nullptr) return nullArgument("openvgf_session_create", "out_session");
  return guarded([&] {
    openvgf::SessionOptions o;
    checkStructSize(options, "openvgf_session_create", "openvgf_session_options_init");
    if (options != nullptr) {
      o.profile = options->profile != 0;
      o.inFlight = options->in_flight;
    }
    *out_session = new openvgf_session{model->model.createSession(o)};
  });
}

void openvgf_session_release(openvgf_session* session) { delete session; }

openvgf_status* openvgf_session_run(openvgf_session* session, const openvgf_tensor* inputs, size_t input_count,
                                    const openvgf_tensor* outputs, size_t output_count) {
  if (session == nullptr) return nullArgument("openvgf_session_run", "session");
  if (input_count != 0 && inputs == nullptr) return nullArgument("openvgf_session_run", "inputs");
  if (output_count != 0 && outputs == nullptr) return nullArgument("openvgf_session_run", "outputs");
  if (openvgf_status* count = checkInputCount("openvgf_session_run", session, input_count)) return count;
  return guarded([&] {
    std::vector<openvgf::Tensor> in = inputTensors(inputs, input_count, nullptr);
    std::vector<openvgf::Tensor> out = outputViews(session->session.outputs(), "openvgf_session_run", outputs, output_count);
    session->session.run(in, out);
  });
}

void openvgf_run_options_init(openvgf_run_options* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
}

openvgf_status* openvgf_session_run_async(openvgf_session* session, const openvgf_tensor* inputs, size_t input_count,
                                          const openvgf_tensor* outputs, size_t output_count,
                                          const openvgf_run_options* options, openvgf_run** out_run) {
  const char* function = "openvgf_session_run_async";
  if (session == nullptr) return nullArgument(function, "session");
  if (output_count != 0 && outputs == nullptr) return nullArgument(function, "outputs");
  if (out_run == nullptr) return nullArgument(function, "out_run");
  if (openvgf_status* count = checkInputCount(function, session, input_count)) return count;
  return guarded([&] {
    checkStructSize(options, function, "openvgf_run_options_init");
    openvgf::RunOptions o;
    const openvgf_device_tensor* const* deviceInputs = nullptr;
    if (options != nullptr) {
      o.keepOnDevice = options->keep_on_device != 0;
      deviceInputs = options->device_inputs;
    }
    std::vector<openvgf::Tensor> in = inputTensors(inputs, input_count, deviceInputs);
    std::vector<openvgf::Tensor> out;
    if (o.keepOnDevice) {
      if (output_count != 0) {
        throw openvgf::Exception(openvgf::ErrorCode::InvalidInput,
                                 std::string(function) + ": output_count: expected 0 with keep_on_device, got " +
                                     std::to_string(output_count));
      }
    } else {
      out = outputViews(session->session.outputs(), function, outputs, output_count);
    }
    auto run = std::make_unique<openvgf_run>();
    run->handle = session->session.runAsync(in, std::move(out), o);
    *out_run = run.release();
  });
}

openvgf_status* openvgf_run_wait(openvgf_run* run) {
  if (run == nullptr) return nullArgument("openvgf_run_wait", "run");
  return guarded([&] { run->outputs = run->handle.wait(); });
}

openvgf_status* openvgf_run_device_output(const openvgf_run* run, size_t index, openvgf_device_tensor** out_tensor) {
  const char* function = "openvgf_run_device_output";
  if (run == nullptr) return nullArgument(function, "run");
  if (out_tensor == nullptr) return nullArgument(function, "out_tensor");
  return guarded([&] {
    if (index >= run->outputs.size() || run->outputs[index].location() != openvgf::MemoryLocation::Device) {
      throw openvgf::Exception(openvgf::ErrorCode::InvalidInput,
                               std::string(function) + ": index " + std::to_string(index) +
                                   ": expected a device output of a waited keep_on_device run (it has " +
                                   std::to_string(run->outputs.size()) + " output(s))");
    }
    *out_tensor = new openvgf_device_tensor{run->outputs[index]};
  });
}

void openvgf_run_release(openvgf_run* run) { delete run; }  // ~RunHandle waits for a run in flight

openvgf_status* openvgf_device_tensor_info(const openvgf_device_tensor* tensor, openvgf_tensor_info* out_info) {
  if (tensor == nullptr) return nullArgument("openvgf_device_tensor_info", "tensor");
  if (out_info == nullptr) return nullArgument("openvgf_device_tensor_info", "out_info");
  const openvgf::Tensor& t = tensor->tensor;
  *out_info = {"", static_cast<openvgf_dtype>(t.dtype()), t.shape().size(), t.shape().data(), t.byteSize()};
  return nullptr;
}

void openvgf_device_tensor_release(openvgf_device_tensor* tensor) { delete tensor; }

openvgf_status* openvgf_pinned_allocate(const openvgf_model* model, size_t byte_size, openvgf_pinned** out_pinned) {
  if (model == nullptr) return nullArgument("openvgf_pinned_allocate", "model");
  if (out_pinned == nullptr) return nullArgument("openvgf_pinned_allocate", "out_pinned");
  return guarded([&] {
    const openvgf::Shape shape{static_cast<std::int64_t>(byte_size)};
    *out_pinned = new openvgf_pinned{model->model.allocatePinned(openvgf::DataType::Int8, shape)};
  });
}

openvgf_status* openvgf_pinned_import(const openvgf_model* model, void* data, size_t byte_size,
                                      openvgf_pinned** out_pinned) {
  if (model == nullptr) return nullArgument("openvgf_pinned_import", "model");
  if (data == nullptr) return nullArgument("openvgf_pinned_import", "data");
  if (out_pinned == nullptr) return nullArgument("openvgf_pinned_import", "out_pinned");
  if (byte_size > static_cast<size_t>(INT64_MAX)) {
    return makeStatus(OPENVGF_INVALID_INPUT, "openvgf_pinned_import: byte_size: expected at most INT64_MAX, got " +
                                                 std::to_string(byte_size));
  }
  // NULL, size 0, a range past the end of the address space, unmapped pages and the device's
  // alignment are refused by the import itself (vulkan::Arena::importHost).
  return guarded([&] {
    const openvgf::Shape shape{static_cast<std::int64_t>(byte_size)};
    *out_pinned = new openvgf_pinned{model->model.importPinned(openvgf::DataType::Int8, shape, data, byte_size)};
  });
}

void* openvgf_pinned_data(const openvgf_pinned* pinned) {
  return pinned ? const_cast<void*>(pinned->tensor.data()) : nullptr;
}
size_t openvgf_pinned_size(const openvgf_pinned* pinned) { return pinned ? pinned->tensor.byteSize() : 0; }
void openvgf_pinned_release(openvgf_pinned* pinned) { delete pinned; }

size_t openvgf_model_import_alignment(const openvgf_model* model) {
  return model ? model->model.importAlignment() : 0;
}

void openvgf_session_last_timing(const openvgf_session* session, double* out_host_ms, double* out_gpu_ms) {
  openvgf::Profile profile;
  if (session != nullptr) profile = session->session.profile();
  if (out_host_ms != nullptr) *out_host_ms = profile.hostMs;
  if (out_gpu_ms != nullptr) *out_gpu_ms = profile.gpuMs;
}

void openvgf_pool_options_init(openvgf_pool_options* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->in_flight = 2;
}

openvgf_status* openvgf_pool_open(const char* path, const openvgf_model_options* model_options,
                                  const openvgf_pool_options* options, openvgf_pool** out_pool) {
  if (path == nullptr) return nullArgument("openvgf_pool_open", "path");
  if (out_pool == nullptr) return nullArgument("openvgf_pool_open", "out_pool");
  return guarded([&] {
    checkStructSize(options, "openvgf_pool_open", "openvgf_pool_options_init");
    openvgf::PoolOptions o;
    o.model = modelOptions(model_options);
    if (options != nullptr) {
      o.devices = orEmpty(options->devices);
      o.inFlight = options->in_flight;
    }
    openvgf::DevicePool pool = openvgf::DevicePool::open(path, o);
    std::vector<openvgf_model> models;
    for (const openvgf::Model& model : pool.models()) models.push_back({model});
    *out_pool = new openvgf_pool{std::move(pool), std::move(models)};
  });
}

void openvgf_pool_release(openvgf_pool* pool) { delete pool; }

size_t openvgf_pool_device_count(const openvgf_pool* pool) { return pool ? pool->models.size() : 0; }

const openvgf_model* openvgf_pool_model(const openvgf_pool* pool, size_t index) {
  return pool != nullptr && index < pool->models.size() ? &pool->models[index] : nullptr;
}

openvgf_status* openvgf_pool_run_many(openvgf_pool* pool, const openvgf_tensor* inputs, size_t input_count,
                                      const openvgf_tensor* outputs, size_t output_count, size_t item_count,
                                      openvgf_status** item_statuses) {
  const char* function = "openvgf_pool_run_many";
  if (pool == nullptr) return nullArgument(function, "pool");
  if (item_count != 0 && item_statuses == nullptr) return nullArgument(function, "item_statuses");
  clearStatuses(item_statuses, item_count);
  const std::vector<openvgf::TensorInfo>& expected = pool->pool.outputs();
  if (input_count > pool->pool.inputs().size() || output_count != expected.size()) {
    return makeStatus(OPENVGF_INVALID_INPUT, std::string(function) + ": expected at most " +
                                                 std::to_string(pool->pool.inputs().size()) + " inputs and " +
                                                 std::to_string(expected.size()) + " outputs per item, got " +
                                                 std::to_string(input_count) + " and " + std::to_string(output_count));
  }
  if (item_count != 0 && ((input_count != 0 && inputs == nullptr) || (output_count != 0 && outputs == nullptr))) {
    return nullArgument(function, inputs == nullptr ? "inputs" : "outputs");
  }
  const size_t most = SIZE_MAX / (input_count + output_count + 1);
  if (item_count > most) {
    return makeStatus(OPENVGF_INVALID_INPUT, std::string(function) + ": item_count: expected at most " +
                                                 std::to_string(most) + ", got " + std::to_string(item_count));
  }
  openvgf_status* status = guarded([&] {
    // Every output buffer is checked before anything runs; inputs per item (a bad one fails its item).
    std::vector<std::vector<openvgf::Tensor>> views;
    for (size_t i = 0; i < item_count; ++i) {
      views.push_back(outputViews(expected, function, outputs + i * output_count, output_count));
    }
    pool->pool.run(
        item_count,
        [&](size_t i, std::vector<openvgf::Tensor>& in) { in = inputTensors(inputs + i * input_count, input_count, nullptr); },
        [&](size_t i, openvgf::PoolResult result) {
          if (!result.ok) {
            item_statuses[i] = makeStatus(static_cast<openvgf_code>(result.code), result.error);
            return;
          }
          for (size_t o = 0; o < output_count; ++o) {
            if (expected[o].byteSize != 0) std::memcpy(views[i][o].data(), result.outputs[o].data(), expected[o].byteSize);
          }
        });
  });
  if (status != nullptr) {  // the call failed: no item statuses to free
    for (size_t i = 0; i < item_count; ++i) openvgf_status_free(item_statuses[i]);
    clearStatuses(item_statuses, item_count);
  }
  return status;
}

openvgf_status* openvgf_convert(const char* input, const char* output, const char* target) {
  if (input == nullptr) return nullArgument("openvgf_convert", "input");
  if (output == nullptr) return nullArgument("openvgf_convert", "output");
  return guarded([&] {
    openvgf::ConvertOptions options;
    if (target != nullptr) options.target = target;
    openvgf::convert(input, output, options);
  });
}

void openvgf_set_log_level(openvgf_log_level level) {
  switch (level) {
    case OPENVGF_LOG_TRACE:
    case OPENVGF_LOG_DEBUG:
    case OPENVGF_LOG_INFO:
    case OPENVGF_LOG_WARN:
    case OPENVGF_LOG_ERROR:
    case OPENVGF_LOG_OFF: openvgf::setLogLevel(static_cast<openvgf::LogLevel>(level)); break;
  }
}

openvgf_log_level openvgf_get_log_level(void) { return static_cast<openvgf_log_level>(openvgf::logLevel()); }

}  // extern "C"
