/* SPDX-License-Identifier: Apache-2.0 */
/* openvgf C API: open a model file (.tosa, .vgf, .pte), run it on a Vulkan 1.3 device with
 * tensors in caller memory, convert .tosa files. C99; opaque handles; every call that can
 * fail returns an openvgf_status* (NULL on success) that carries an error code and the
 * message the `openvgf` command would print; free it with openvgf_status_free.
 *
 * Thread safety: a model may be used by several threads at once (including
 * openvgf_session_create). A session may be shared by threads: its calls, and those of its
 * openvgf_runs, hold a per-session lock and take turns (a second caller waits; every run
 * gets its own inputs and outputs); distinct sessions run at the same time, so give each
 * thread its own session for throughput. A run may be waited for from any thread, once; a
 * handle must not be released while another thread still uses it. A device tensor links the
 * session that made it and the one it feeds: calls needing both take both locks in a fixed
 * order (no deadlock). Pinned buffers may be shared by threads like any memory. A session
 * keeps its model's device alive, so handles may be released in any order. */
#ifndef OPENVGF_OPENVGF_H
#define OPENVGF_OPENVGF_H

#include <stddef.h>
#include <stdint.h>

#if defined(OPENVGF_BUILDING_LIBRARY)
#define OPENVGF_API __attribute__((visibility("default")))
#else
#define OPENVGF_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes; the `openvgf` command exits with 2 for INVALID_INPUT and UNSUPPORTED, 1 for
 * the others. */
typedef enum openvgf_code {
  OPENVGF_OK = 0,
  OPENVGF_INVALID_INPUT = 1, /* malformed or inconsistent input (file, tensor, argument) */
  OPENVGF_UNSUPPORTED = 2,   /* valid input openvgf cannot handle (operator, type, device feature) */
  OPENVGF_ENVIRONMENT = 3,   /* no Vulkan driver or device, file system failure */
  OPENVGF_RUNTIME = 4,       /* failure while running (device lost, validation error) */
  OPENVGF_INTERNAL = 5       /* a bug in openvgf */
} openvgf_code;

/* Element types (TOSA's). Host storage: BOOL one byte (0/1), INT4 one int8, INT48 one
 * int64, BFLOAT16 and FLOAT8* their raw bits. FLOAT64 only in precise reference outputs. */
typedef enum openvgf_dtype {
  OPENVGF_BOOL = 1,
  OPENVGF_INT4 = 2,
  OPENVGF_INT8 = 3,
  OPENVGF_INT16 = 4,
  OPENVGF_INT32 = 5,
  OPENVGF_INT48 = 6,
  OPENVGF_FLOAT32 = 7,
  OPENVGF_FLOAT16 = 8,
  OPENVGF_BFLOAT16 = 9,
  OPENVGF_FLOAT8E4M3 = 11,
  OPENVGF_FLOAT8E5M2 = 12,
  OPENVGF_FLOAT64 = 100
} openvgf_dtype;

typedef struct openvgf_status openvgf_status;
typedef struct openvgf_model openvgf_model;
typedef struct openvgf_session openvgf_session;
typedef struct openvgf_run openvgf_run;                      /* a run started by openvgf_session_run_async */
typedef struct openvgf_pinned openvgf_pinned;                /* host memory the device moves by DMA */
typedef struct openvgf_device_tensor openvgf_device_tensor;  /* an output kept on the device */

/* Status: NULL means success. */
OPENVGF_API openvgf_code openvgf_status_code(const openvgf_status* status);
OPENVGF_API const char* openvgf_status_message(const openvgf_status* status); /* "" for NULL */
OPENVGF_API int openvgf_status_exit_code(const openvgf_status* status);      /* 0, 1 or 2 */
OPENVGF_API void openvgf_status_free(openvgf_status* status);

OPENVGF_API const char* openvgf_version(void);
OPENVGF_API const char* openvgf_dtype_name(openvgf_dtype dtype); /* "INT8", ...; NULL if unknown */
OPENVGF_API size_t openvgf_dtype_size(openvgf_dtype dtype);      /* bytes per element; 0 if unknown */

/* Model options; initialise with openvgf_model_options_init. Strings may be NULL. */
typedef struct openvgf_model_options {
  size_t struct_size;     /* sizeof(openvgf_model_options), set by _init */
  const char* device;     /* NULL/"" best device; digits: index; else a name substring */
  const char* target;     /* .tosa conversion / GRAPH-segment lowering: "portable" (NULL) or "native" */
  const char* plan;       /* .pte execution plan, name or index; NULL = the only one, or "forward" */
  const char* cache_dir;  /* NULL = $XDG_CACHE_HOME/openvgf, else ~/.cache/openvgf */
  int validate;           /* Vulkan validation layer */
  int pipeline_cache;     /* read/write the pipeline cache (default 1) */
  int model_cache;        /* reuse converted .tosa and lowered GRAPH VGFs (default 1) */
} openvgf_model_options;
OPENVGF_API void openvgf_model_options_init(openvgf_model_options* options);

/* A model input or output; strings and shape stay valid while the model lives. */
typedef struct openvgf_tensor_info {
  const char* name;
  openvgf_dtype dtype;
  size_t rank;
  const int64_t* shape;
  size_t byte_size;
} openvgf_tensor_info;

/* Opens a model and prepares it for the chosen device. options may be NULL (defaults). */
OPENVGF_API openvgf_status* openvgf_model_open(const char* path, const openvgf_model_options* options,
                                               openvgf_model** out_model);
/* Opens a model on the device of `share_device_of` (one Vulkan device and context), so device
 * tensors of either model's sessions can feed the other's. options' device, validate and
 * pipeline_cache are those of `share_device_of`. UNSUPPORTED naming the feature when this model
 * needs a device feature the shared device was not created with. */
OPENVGF_API openvgf_status* openvgf_model_open_shared(const char* path, const openvgf_model_options* options,
                                                      const openvgf_model* share_device_of,
                                                      openvgf_model** out_model);
OPENVGF_API void openvgf_model_release(openvgf_model* model);
OPENVGF_API size_t openvgf_model_input_count(const openvgf_model* model);
OPENVGF_API size_t openvgf_model_output_count(const openvgf_model* model);
OPENVGF_API openvgf_status* openvgf_model_input(const openvgf_model* model, size_t index,
                                                openvgf_tensor_info* out_info);
OPENVGF_API openvgf_status* openvgf_model_output(const openvgf_model* model, size_t index,
                                                 openvgf_tensor_info* out_info);
OPENVGF_API const char* openvgf_model_device_name(const openvgf_model* model);

/* Session options; initialise with openvgf_session_options_init. */
typedef struct openvgf_session_options {
  size_t struct_size;
  int profile;        /* GPU timestamps around every dispatch */
  unsigned in_flight; /* runs that may be in flight at once (openvgf_session_run_async), 1..8; default 1 */
} openvgf_session_options;
OPENVGF_API void openvgf_session_options_init(openvgf_session_options* options);

OPENVGF_API openvgf_status* openvgf_session_create(const openvgf_model* model, const openvgf_session_options* options,
                                                   openvgf_session** out_session);
OPENVGF_API void openvgf_session_release(openvgf_session* session);

/* A tensor in caller memory: dtype, shape and byte_size must match the model's tensor. */
typedef struct openvgf_tensor {
  openvgf_dtype dtype;
  size_t rank;
  const int64_t* shape;
  void* data;
  size_t byte_size;
} openvgf_tensor;

/* Runs once: inputs in the model's input order, outputs written into the caller's buffers in
 * output order. Counts, dtypes, shapes and sizes are checked before anything runs; input_count
 * (at most the model's inputs) before inputs[] is read. */
OPENVGF_API openvgf_status* openvgf_session_run(openvgf_session* session, const openvgf_tensor* inputs,
                                                size_t input_count, const openvgf_tensor* outputs,
                                                size_t output_count);
/* Pinned memory: host memory of `model`'s device that runs read and write by DMA, with no
 * staging copy. An openvgf_tensor whose data lies inside a live pinned buffer of the session's
 * device is moved that way. _allocate: zero-filled, owned by the handle. _import: the caller's
 * memory (it must outlive the handle); UNSUPPORTED when the device lacks
 * VK_EXT_external_memory_host or when data or byte_size is not a multiple of
 * openvgf_model_import_alignment: then use the memory unpinned (copied through staging) or
 * _allocate. _import refuses (INVALID_INPUT) NULL, size 0, a size above INT64_MAX, a range
 * past the end of the address space and pages not mapped in the process; it cannot check
 * that the memory is writable (runs write outputs into it) or stays allocated while the
 * handle lives: both are the caller's promise. */
OPENVGF_API openvgf_status* openvgf_pinned_allocate(const openvgf_model* model, size_t byte_size,
                                                    openvgf_pinned** out_pinned);
OPENVGF_API openvgf_status* openvgf_pinned_import(const openvgf_model* model, void* data, size_t byte_size,
                                                  openvgf_pinned** out_pinned);
OPENVGF_API void* openvgf_pinned_data(const openvgf_pinned* pinned);
OPENVGF_API size_t openvgf_pinned_size(const openvgf_pinned* pinned);
OPENVGF_API void openvgf_pinned_release(openvgf_pinned* pinned);
/* Alignment in bytes openvgf_pinned_import needs of address and size; 0 when unavailable. */
OPENVGF_API size_t openvgf_model_import_alignment(const openvgf_model* model);

/* Options of openvgf_session_run_async; initialise with openvgf_run_options_init. */
typedef struct openvgf_run_options {
  size_t struct_size;
  /* Outputs stay on the device (pass no outputs: NULL, 0); after openvgf_run_wait, take them
   * with openvgf_run_device_output. Models of one part only (.tosa, .vgf). */
  int keep_on_device;
  /* NULL, or input_count entries: a non-NULL entry is the value of that input instead of
   * inputs[i] (which is then ignored), copied on the device with no host round trip. */
  const openvgf_device_tensor* const* device_inputs;
} openvgf_run_options;
OPENVGF_API void openvgf_run_options_init(openvgf_run_options* options);

/* Starts a run and returns once the inputs are taken (host input memory may be reused at
 * once; pinned memory is read until the run is waited for); output buffers are written by
 * openvgf_run_wait. At most in_flight runs of a session are in flight: one more first
 * finishes the oldest (its outputs are written, its handle keeps its status); they may be
 * waited for in any order. options may be NULL. A .pte plan completes its run before
 * returning. */
OPENVGF_API openvgf_status* openvgf_session_run_async(openvgf_session* session, const openvgf_tensor* inputs,
                                                      size_t input_count, const openvgf_tensor* outputs,
                                                      size_t output_count, const openvgf_run_options* options,
                                                      openvgf_run** out_run);
/* Waits for the run; its status (NULL: the outputs are written). Once per run. */
OPENVGF_API openvgf_status* openvgf_run_wait(openvgf_run* run);
/* Output `index` of a waited keep_on_device run, as a new device tensor handle. */
OPENVGF_API openvgf_status* openvgf_run_device_output(const openvgf_run* run, size_t index,
                                                      openvgf_device_tensor** out_tensor);
/* Releases a run; one not waited for is waited for first (its outputs are written). */
OPENVGF_API void openvgf_run_release(openvgf_run* run);

/* A device tensor's dtype and shape (valid while the handle lives; name is ""). It may feed a
 * session until the session that made it runs again. */
OPENVGF_API openvgf_status* openvgf_device_tensor_info(const openvgf_device_tensor* tensor,
                                                       openvgf_tensor_info* out_info);
OPENVGF_API void openvgf_device_tensor_release(openvgf_device_tensor* tensor);

/* Wall time of the last run and its GPU time (0 unless the session profiles), in ms. */
OPENVGF_API void openvgf_session_last_timing(const openvgf_session* session, double* out_host_ms,
                                             double* out_gpu_ms);

/* Converts a .tosa file; target NULL = "portable". The output is written atomically. */
OPENVGF_API openvgf_status* openvgf_convert(const char* input, const char* output, const char* target);

/* ---- Several devices in one process (docs/multi-device.md) ----
 * A pool opens one model on several devices (a model and a session each) and spreads input
 * sets over them, one host thread per device, results in input order. Calls on one pool take
 * turns. */
typedef struct openvgf_pool openvgf_pool;

typedef struct openvgf_pool_options {
  size_t struct_size;
  /* NULL/"" the default device; "all" every usable device of the best kind (the discrete GPUs
   * when there are any); else indices and name substrings separated by commas ("0,1", "H200"). */
  const char* devices;
  unsigned in_flight; /* runs in flight per device, 1..8; default 2 */
} openvgf_pool_options;
OPENVGF_API void openvgf_pool_options_init(openvgf_pool_options* options);

/* Opens `path` on every device options->devices names; model_options->device must be NULL or ""
 * (the pool names the devices). Either options pointer may be NULL (defaults). */
OPENVGF_API openvgf_status* openvgf_pool_open(const char* path, const openvgf_model_options* model_options,
                                              const openvgf_pool_options* options, openvgf_pool** out_pool);
OPENVGF_API void openvgf_pool_release(openvgf_pool* pool);
OPENVGF_API size_t openvgf_pool_device_count(const openvgf_pool* pool);
/* The model on device `index` of the pool (for openvgf_model_input, _device_name, ...); NULL past
 * the end. Owned by the pool. */
OPENVGF_API const openvgf_model* openvgf_pool_model(const openvgf_pool* pool, size_t index);
/* Runs item_count input sets over the pool's devices. Item i's inputs are inputs[i * input_count
 * ...] (model input order) and its outputs are written to outputs[i * output_count ...] (buffers of
 * the model's output dtypes and shapes). item_statuses (item_count entries) gets each item's
 * outcome: NULL when it ran, else its error (free each with openvgf_status_free); a failed item
 * leaves its outputs unwritten and the others go on. The returned status is the call's own:
 * bad arguments, or a failure that stopped the whole run (then every item status is NULL). */
OPENVGF_API openvgf_status* openvgf_pool_run_many(openvgf_pool* pool, const openvgf_tensor* inputs, size_t input_count,
                                                  const openvgf_tensor* outputs, size_t output_count, size_t item_count,
                                                  openvgf_status** item_statuses);

/* What the library writes to stderr (openvgf::LogLevel): WARN by default, or the environment
 * variable OPENVGF_LOG_LEVEL (trace, debug, info, warn, error, off) when the library loads. */
typedef enum openvgf_log_level {
  OPENVGF_LOG_TRACE = 0,
  OPENVGF_LOG_DEBUG = 1,
  OPENVGF_LOG_INFO = 2,
  OPENVGF_LOG_WARN = 3,
  OPENVGF_LOG_ERROR = 4,
  OPENVGF_LOG_OFF = 6
} openvgf_log_level;
OPENVGF_API void openvgf_set_log_level(openvgf_log_level level); /* an unknown value is ignored */
OPENVGF_API openvgf_log_level openvgf_get_log_level(void);

#ifdef __cplusplus
}
#endif

#endif /* OPENVGF_OPENVGF_H */
