// SPDX-License-Identifier: Apache-2.0
// openvgf C++ API: open a model file (.tosa, .vgf, .pte), run it on a Vulkan 1.3 device (or
// an Ethos-U command stream in the bit-exact simulator, see "Ethos-U models" below), convert,
// inspect and run the TOSA reference interpreter. C++17; depends on the standard
// library only. Errors are thrown as openvgf::Exception.
//
// Thread safety:
//   - A Model is immutable once opened: it may be shared by any number of threads, and
//     several threads may call Model::createSession on it at the same time.
//   - A Session may be shared by threads: its calls (run, runAsync, profile) and those of its
//     RunHandles (wait, valid, the destructor) hold a per-Session lock, so they take turns: a
//     second caller waits for the first, and every run gets its own inputs and outputs. Runs
//     are submitted one at a time, so threads sharing a Session gain no throughput; for
//     that, give each thread its own Session. Distinct Sessions, of one Model or of several,
//     run at the same time.
//   - runAsync with SessionOptions::inFlight runs already in flight (this thread's or
//     others') first finishes the oldest (its handle keeps its outputs), so it waits, never
//     fails for a full session. Any thread may wait() a RunHandle, once (InvalidInput after).
//     Destroying a handle that was not waited for finishes its run into its own outputs.
//   - Tensor is a handle: copies share one buffer. Threads may read one buffer together; a
//     buffer that one thread writes must not be used by another at the same time. An input
//     or output given to runAsync is in use until the run is waited for.
//   - A device-resident Tensor (RunOptions::keepOnDevice) links its producing Session and the
//     Session it is given to: a call that must finish the other's runs takes both locks (in a
//     fixed order, so threads calling them never deadlock); the producer's next run first
//     waits for the runs that read its outputs.
//   - Pinned tensors (Model::allocatePinned, importPinned) follow the Tensor rules.
//   - The free functions (listDevices, convert, inspect, reference, extract) may be called
//     from any thread at any time.
// A Session keeps its Model's device alive: Models and Sessions may be destroyed in any order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "openvgf/openvgf.h"

namespace openvgf {

/// "0.1.0"
OPENVGF_API const char* version();

/// What went wrong, in the classes the `openvgf` command turns into exit codes.
enum class ErrorCode : int {
  InvalidInput = OPENVGF_INVALID_INPUT,  ///< malformed or inconsistent input (file, tensor, argument)
  Unsupported = OPENVGF_UNSUPPORTED,     ///< valid input openvgf cannot handle (operator, type, device feature)
  Environment = OPENVGF_ENVIRONMENT,     ///< no Vulkan driver or device, file system failure
  Runtime = OPENVGF_RUNTIME,             ///< failure while running (device lost, validation error)
  Internal = OPENVGF_INTERNAL,           ///< a bug in openvgf
};

/// Every error of the API. what() names the file, the element and what was expected, as
/// the `openvgf` command prints it.
class OPENVGF_API Exception : public std::runtime_error {
 public:
  Exception(ErrorCode code, const std::string& message);
  ErrorCode code() const noexcept { return code_; }
  /// 2 for InvalidInput and Unsupported, 1 otherwise (the `openvgf` command's exit codes).
  int exitCode() const noexcept;

 private:
  ErrorCode code_;
};

/// Element types of model inputs and outputs (TOSA's types). Host storage: one element per
/// C++ scalar; Bool one byte (0/1), Int4 one int8, Int48 one int64 (sign-extended);
/// BFloat16 / Float8* are their raw bits. Float64 only appears in precise reference outputs.
enum class DataType : int {
  Bool = OPENVGF_BOOL,
  Int4 = OPENVGF_INT4,
  Int8 = OPENVGF_INT8,
  Int16 = OPENVGF_INT16,
  Int32 = OPENVGF_INT32,
  Int48 = OPENVGF_INT48,
  Float16 = OPENVGF_FLOAT16,
  BFloat16 = OPENVGF_BFLOAT16,
  Float32 = OPENVGF_FLOAT32,
  Float8E4M3 = OPENVGF_FLOAT8E4M3,
  Float8E5M2 = OPENVGF_FLOAT8E5M2,
  Float64 = OPENVGF_FLOAT64,
};
/// TOSA's spelling: "INT8", "FP32", "BF16", ... ("FP64" for Float64).
OPENVGF_API const char* toString(DataType type);
/// Bytes per element in host memory (see DataType).
OPENVGF_API std::size_t elementSize(DataType type);

using Shape = std::vector<std::int64_t>;

/// Where a tensor's memory lives; code that switches on it should keep a default branch.
enum class MemoryLocation : int {
  Host = 0,    ///< host memory (plain, or pinned: Tensor::pinned())
  Device = 1,  ///< an output kept on the device (RunOptions::keepOnDevice); data() is null
};

namespace detail {
struct PinnedBuffer;
struct DeviceValue;
struct TensorAccess;
}  // namespace detail

/// A dense, row-major tensor. Either owns its buffer (zero-filled at construction) or views
/// memory the caller owns (Tensor::view), which must outlive every use. Copies are handles to
/// the same buffer; clone() makes an owning deep copy. Host tensors may be pinned (the device
/// moves them by DMA, with no staging copy); a device-resident tensor is an output a Session
/// kept on the device, to be passed as an input of a Session on the same device.
class OPENVGF_API Tensor {
 public:
  Tensor() = default;
  Tensor(DataType dtype, Shape shape);
  /// Views `byteSize` bytes at `data`; fails (InvalidInput) when the size does not match.
  static Tensor view(DataType dtype, Shape shape, void* data, std::size_t byteSize);
  /// An owning tensor holding a copy of `byteSize` bytes at `data`.
  static Tensor copyOf(DataType dtype, Shape shape, const void* data, std::size_t byteSize);

  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  std::int64_t elementCount() const;
  std::size_t byteSize() const { return bytes_; }
  MemoryLocation location() const { return device_ ? MemoryLocation::Device : MemoryLocation::Host; }
  /// True for host memory of Model::allocatePinned or Model::importPinned.
  bool pinned() const { return pinned_ != nullptr; }
  bool empty() const { return data_ == nullptr && bytes_ == 0 && shape_.empty(); }
  /// True when the tensor owns its buffer (not a view).
  bool ownsData() const { return owner_ != nullptr; }
  void* data() { return data_; }
  const void* data() const { return data_; }
  template <typename T>
  T* dataAs() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* dataAs() const {
    return static_cast<const T*>(data_);
  }
  /// A host copy; InvalidInput for a device-resident tensor (run with keepOnDevice off, or
  /// feed it to a Session that returns it to the host).
  Tensor clone() const;

 private:
  friend struct detail::TensorAccess;
  DataType dtype_ = DataType::Float32;
  Shape shape_;
  std::shared_ptr<void> owner_;  // null for views
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::shared_ptr<const detail::PinnedBuffer> pinned_;  // the pinned memory data_ lies in
  std::shared_ptr<const detail::DeviceValue> device_;   // set for device-resident tensors
};

/// The values of a host tensor as doubles, in row-major order: every element type, fp16,
/// bf16 and fp8 decoded, Bool as 0/1. InvalidInput for a device-resident tensor.
OPENVGF_API std::vector<double> toDoubles(const Tensor& tensor);

/// A tensor with a name (reference outputs, named inputs).
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

/// A model input or output.
struct TensorInfo {
  std::string name;
  DataType dtype = DataType::Float32;
  Shape shape;
  std::size_t byteSize = 0;
  /// An input or output the file stores unsigned (R8/R16/R32_UINT, an ExecuTorch Byte tensor):
  /// `dtype` is the signless INT8/16/32 of its width, its values are the bit patterns of
  /// uint8/16/32 (writeNpy's asUnsigned), and it takes uint8/16/32 arrays (warnIfReinterpreted).
  bool isUnsigned = false;
  /// An input that may be left out of a run: the initial value of an EXT-VARIABLE `state:`
  /// input, known when the model is a .tosa or ModelOptions::reference names one.
  bool hasDefault = false;
  /// A .tosa input declared unranked (ReferenceModel::inputs): a value of any shape is taken;
  /// `shape` is empty.
  bool anyShape = false;
  /// ModelOptions::keepIntermediates: the TOSA operator that computes this output ("CONV2D")
  /// and its index in the main block (-1: not known), and whether it is an intermediate
  /// tensor kept as an extra output rather than one of the graph's own outputs.
  std::string producer{};
  int producerIndex = -1;
  bool intermediate = false;
};

namespace detail {
struct NpyState;
}  // namespace detail

/// A NumPy .npy file (format 1.0 to 3.0, little-endian, C order) as read from disk: its shape
/// and NumPy element type, to be turned into a Tensor of the type a model input takes. Copies
/// share the bytes.
class OPENVGF_API NpyArray {
 public:
  /// Reads and checks the whole file; InvalidInput naming the file and the field otherwise
  /// (big-endian, Fortran order, object or structured dtypes, truncated data).
  static NpyArray read(const std::string& path);
  /// A headerless file of little-endian `numpyType` elements ("uint8", "float32", ... as
  /// numpyType() names them) in C order, of `shape`: InvalidInput naming the file when its size is
  /// not the shape's.
  static NpyArray readRaw(const std::string& path, const Shape& shape, const std::string& numpyType);

  const std::string& path() const;
  const Shape& shape() const;
  /// NumPy's name of the element type: "float32", "int8", "uint8", "bool", "V2", ...
  std::string numpyType() const;
  /// The array as a tensor of `dtype`, NumPy types mapped as the TOSA tools map them: bool
  /// for Bool; any integer array for the integer types (an array of the other signedness and
  /// the same width is taken byte for byte, with warnIfReinterpreted's warning when values
  /// change; other widths are range-checked); float16/float32 for Float16/Float32;
  /// the raw bits (V2 or uint16) for BFloat16 and (V1, uint8 or int8) for the Float8 types.
  /// `context` prefixes error messages (e.g. "model.vgf: input 'x'").
  Tensor toTensor(DataType dtype, const std::string& context = "") const;
  /// As above, for a model input: its dtype, its signedness (TensorInfo::isUnsigned: a uint8
  /// array for an unsigned input is taken as it is), and its shape, which the array must have
  /// (unless TensorInfo::anyShape).
  Tensor toTensor(const TensorInfo& input, const std::string& context = "") const;

 private:
  explicit NpyArray(std::shared_ptr<const detail::NpyState> state) : state_(std::move(state)) {}
  std::shared_ptr<const detail::NpyState> state_;
};

/// The one rule for an integer array whose signedness is not the input's (uint8 given for an
/// INT8 input, int8 for an input the model declares unsigned; 16 and 32 bits alike), used by
/// NpyArray::toTensor, the `openvgf` command and the Python binding: the bytes are taken as
/// they are, and when values read differently as the input's type (200 in a uint8 array is -56
/// as INT8) a warning names `context`, how many values and the first one, so reinterpreting
/// bytes is never silent. `given` holds the array's bytes as the input's dtype and shape;
/// `givenUnsigned` says whether the array was unsigned. Returns how many values read differently.
OPENVGF_API std::size_t warnIfReinterpreted(const TensorInfo& input, const Tensor& given, bool givenUnsigned,
                                            const std::string& context);

/// "min -1.5, max 2, mean 0.25; first 8 of 64: 0.5 1 ..." of a host tensor's values (NaN and
/// infinities counted apart; with `asUnsigned`, INT8/16/32 read as uint8/16/32): the output
/// preview of `openvgf run`, as `openvgf inspect x.npy` summarizes an array.
OPENVGF_API std::string summarizeValues(const Tensor& tensor, bool asUnsigned = false);

// ---- Comparing arrays (`openvgf compare a.npy b.npy`; docs/debugging.md) ----

/// The tolerance of compareTensors: an element passes when it equals the expected one, or is
/// within `absTolerance`, or within `ulp` units in the last place of the expected value in the
/// floating-point type of the arrays. NaN matches NaN; infinities match only themselves.
struct CompareOptions {
  double ulp = 0;
  double absTolerance = 0;
};

/// TOSA-style error figures of one array against another.
struct Comparison {
  bool pass = true;
  std::int64_t elements = 0;
  std::int64_t failures = 0;        ///< elements beyond the tolerance
  std::int64_t firstFailure = -1;   ///< flat index of the first one (-1: none)
  double maxAbsError = 0;           ///< max |actual - expected| over finite pairs
  double maxUlpError = 0;           ///< in ulps of the float type (0 for integer arrays)
  double maxRelativeError = 0;      ///< max |actual - expected| / |expected| over nonzero expected values
  std::string ulpType{};            ///< the type whose ulp is counted ("FP32"; "" for integer arrays)
  /// "PASS (64 elements, max abs error 0, ...)" or "FAIL (3 of 64 elements beyond 1 ulp, ...;
  /// first at [0,1]: 2.5 expected 2)".
  std::string line{};
};

/// Compares two host tensors of the same shape element by element (their types may differ:
/// values are compared; the ulp unit is that of the float type among them, the lower precision
/// when both are floats; FP64 alone has no TOSA ulp, so `ulp` is refused for it).
/// InvalidInput for different shapes or a device-resident tensor.
OPENVGF_API Comparison compareTensors(const Tensor& actual, const Tensor& expected, const CompareOptions& options = {});
/// compareTensors of two .npy files, read with their own element types (unsigned integers as
/// their values, bool as 0/1); errors name the files.
OPENVGF_API Comparison compareNpy(const std::string& actualPath, const std::string& expectedPath,
                                  const CompareOptions& options = {});

// ---- Inputs people have: images, raw files, random values (docs/debugging.md) ----

/// How readImage turns pixels into an input tensor.
struct ImageOptions {
  /// Float inputs take (pixel / 255 - mean[c]) / stddev[c] per channel c: one value for every
  /// channel or one per channel (empty: mean 0, std 1). Refused for integer inputs.
  std::vector<double> mean;
  std::vector<double> stddev;
  /// "nhwc", "nchw", or "" for the input's shape to decide: NHWC (TOSA's layout) when the
  /// last dimension is 1, 3 or 4, else NCHW when the second (rank 3: HWC / CHW) is.
  std::string layout;
};

/// True when the file starts with a PNG or JPEG signature.
OPENVGF_API bool isImageFile(const std::string& path);
/// A PNG or JPEG file (libpng, libjpeg-turbo) as the value of `input`: decoded to 8-bit RGB
/// (1 channel: grey, 0.299 R + 0.587 G + 0.114 B; 4 channels: RGBA), resized to the input's
/// height and width by bilinear interpolation with half-pixel centres and clamped edges (no
/// antialiasing: OpenCV's INTER_LINEAR), then converted to its type: FP32 / FP16 / BF16 as
/// ImageOptions says; INT8 as round(pixel) - 128 (the zero point of int8 models quantised from
/// 0..255 or 0..1 pixels). The input must have rank 3 or 4 (batch 1), 1, 3 or 4 channels and
/// static dimensions. InvalidInput / Unsupported naming the file, the input and what was expected.
OPENVGF_API Tensor readImage(const std::string& path, const TensorInfo& input, const ImageOptions& options = {});
/// A tensor of `input`'s type and shape with pseudo-random values from `seed` (splitmix64, the
/// same on every platform): uniform in [-1, 1) for float types, the whole range for INT4 / INT8
/// / INT16, [-32768, 32767] for INT32 / INT48 (room for sums), 0 or 1 for BOOL.
OPENVGF_API Tensor randomTensor(const TensorInfo& input, std::uint64_t seed);

/// NpyArray::read(path).toTensor(dtype).
OPENVGF_API Tensor readNpy(const std::string& path, DataType dtype);
/// Writes `tensor` as a .npy file, atomically (no partial file on failure); with `asUnsigned`
/// Int8/Int16/Int32 are written as uint8/uint16/uint32 bit patterns (TensorInfo::isUnsigned).
OPENVGF_API void writeNpy(const std::string& path, const Tensor& tensor, bool asUnsigned = false);

/// A Vulkan device as `openvgf devices` lists it.
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string type;        ///< "discrete-gpu", "integrated-gpu", "virtual-gpu", "cpu", "other"
  std::string apiVersion;  ///< "1.3.239"
  std::string driver;      ///< driver name and info
  bool isDefault = false;  ///< the device chosen when ModelOptions::device is empty
  bool usable = false;     ///< Vulkan 1.3 with a compute queue
  std::uint64_t deviceLocalBytes = 0;
  std::uint32_t subgroupSize = 0;
  std::vector<std::string> features;  ///< optional features it has (Vulkan spelling)
  // Host I/O facts.
  bool transferQueue = false;             ///< a dedicated transfer-only queue family (uploads overlap compute)
  std::uint64_t hostVisibleDeviceLocalBytes = 0;  ///< largest device-local host-visible heap (BAR window)
  bool externalMemoryHost = false;        ///< VK_EXT_external_memory_host (Model::importPinned)
  std::uint64_t importAlignment = 0;      ///< minImportedHostPointerAlignment in bytes (0 without the extension)
  bool timelineSemaphores = false;        ///< timeline semaphores (runs in flight ordered on the GPU)
};

/// Checks, before long work, that `path` can be written as a file (its folder exists and is
/// writable, the name fits the file system, it is not a folder): InvalidInput or Environment
/// naming `what` (e.g. "--output") and the path.
OPENVGF_API void checkWritableFile(const std::string& path, const std::string& what);
/// The same for a folder that files will be written into (created when missing).
OPENVGF_API void checkWritableFolder(const std::string& path, const std::string& what);
/// Writes `bytes` to `path` atomically: a reader sees the old file or the whole new one, and a
/// failure leaves no partial file.
OPENVGF_API void writeFile(const std::string& path, const std::string& bytes);

/// Every Vulkan device. Throws Environment when no Vulkan loader or driver is installed.
OPENVGF_API std::vector<DeviceInfo> listDevices(bool validate = false);
/// What `openvgf devices` prints: each device's type, API version, driver, subgroup size, the
/// limits openvgf checks, the optional features it may enable (and those missing), host I/O
/// facts, and which one a model opens by default; with `json`, the same as one JSON object
/// {"devices": [...]} with every limit and feature by its Vulkan name.
OPENVGF_API std::string describeDevices(bool json = false, bool validate = false);

/// What a Model runs, from the file's content (not its extension).
enum class ModelFormat : int {
  Tosa = 0,
  Vgf = 1,
  Pte = 2,     ///< an ExecuTorch program's VGF delegates, on a device
  EthosU = 3,  ///< an Ethos-U command stream in the simulator: a .ethosu file (vela_bin_stream), or
               ///< the one Ethos-U delegate of a .pte whose delegates are all Ethos-U (source() names it)
};

// Ethos-U models. Model::open runs a .ethosu file (vela_bin_stream), or a .pte whose
// delegates are all Ethos-U streams (exactly one, in ModelOptions::plan when given), in
// openvgf's bit-exact Ethos-U simulator on the CPU: no Vulkan device is opened, and
// deviceName() is the simulated NPU ("Ethos-U55 simulator (ethos-u55-128)"). The stream holds
// no names, no rank and only element sizes: its tensors are input_<i> / output_<i>, INT8,
// INT16 or INT32 by element size, with the stream's shape less the padding 1s in front
// (down to 4 dimensions: NHWC). With ModelOptions::reference (the .tosa it was compiled
// from) they take the graph's names, types and shapes, and Session::check compares every
// output with the reference interpreter's byte for byte (OutputCheck::line "output 'y':
// bit-exact (256 elements)" or "... MISMATCH: ..."). Inputs of any shape with the tensor's
// element count are taken (the stream does not know the rank).
// Options that name what the simulator does not have are refused (Unsupported, naming the
// option), never ignored: ModelOptions::device (non-empty), validate, pipelineStatistics,
// opening with shareDeviceOf, SessionOptions::profile (GPU timestamps), RunOptions::keepOnDevice,
// device-resident inputs, allocatePinned and importPinned (importAlignment() is 0); check
// without a reference is refused as for a VGF of COMPUTE segments (the stream carries no
// graph). Options about converting or caching do not apply and are ignored: target,
// pipelineCache, modelCache, cacheDir, inputShapes, inputShapeNames;
// SessionOptions::inFlight is range-checked, and runAsync completes the run before it
// returns. Session::profile() gives the host time and the simulator's counts
// (Profile::npuOperations, macs); pipelineStatistics() is empty.

struct ModelOptions {
  std::string device;               ///< "" best device; digits: index; else a name substring
  std::string target = "portable";  ///< .tosa conversion target: "portable" or "native" (for `device`)
  std::string plan;                 ///< .pte: execution plan (name or index); "" = the only one, or "forward"
  bool validate = false;            ///< Vulkan validation layer; a validation error fails the run
  bool pipelineCache = true;        ///< read and write the on-disk pipeline cache
  bool modelCache = true;           ///< reuse a converted (.tosa) or lowered (GRAPH segments) VGF from the cache
  std::string cacheDir;             ///< "" = $XDG_CACHE_HOME/openvgf, else ~/.cache/openvgf
  /// A VGF with GRAPH segments whose inputs have dynamic dimensions: the shape of every
  /// input, in input order, to lower it for (empty: the file's shapes).
  std::vector<Shape> inputShapes;
  /// Names of the inputShapes entries, bound as Session::run binds named inputs: a name binds
  /// to that input, "" to the next unbound one in input order (empty: all in input order).
  std::vector<std::string> inputShapeNames;
  /// The .tosa the model was made from (for a .tosa or .vgf; "" = none): its variables'
  /// initial values become the defaults of the `state:` inputs (TensorInfo::hasDefault), and
  /// Session::check judges outputs against it instead of the graph the model carries.
  std::string reference;
  /// Sessions will be checked (Session::check): without a reference, the graphs the model
  /// carries are decoded once, here, and a model that carries none (a VGF of COMPUTE
  /// segments) is refused now, naming the part, rather than after its runs.
  bool check = false;
  /// Ask the driver for each pipeline's statistics (Session::pipelineStatistics; needs
  /// VK_KHR_pipeline_executable_properties).
  bool pipelineStatistics = false;
  /// Per-layer outputs (`run --dump`, `compare`), for a .tosa model only (Unsupported
  /// otherwise): every tensor the main block's operators compute becomes an extra output, after
  /// the graph's own, in operator order (TensorInfo::intermediate, producer). Constants, shape
  /// values, variables and the insides of COND_IF / WHILE_LOOP bodies are not kept. Operators
  /// are not fused across a kept tensor, so the run measures the unfused kernels. Session::check
  /// judges every kept tensor too, on the reference graph with the same rewrite (tensors
  /// matched by name).
  bool keepIntermediates = false;
};

struct SessionOptions {
  bool profile = false;  ///< GPU timestamps around every dispatch (Session::profile)
  /// Runs that may be in flight at once (Session::runAsync), 1..8; each has its own staging
  /// and device I/O memory, so the next run's upload overlaps the current one's compute.
  unsigned inFlight = 1;
};

struct RunOptions {
  /// Outputs stay on the device, as MemoryLocation::Device tensors that another Session of
  /// the same device (Model::open with shareDeviceOf) takes as inputs with no host round
  /// trip. Such a tensor is valid until its Session's next run. Models of one part only
  /// (.tosa, .vgf), not .pte plans.
  bool keepOnDevice = false;
};

/// Timings of a Session's last run.
struct Profile {
  double hostMs = 0;  ///< wall time of run(), inputs in to outputs out
  double gpuMs = 0;   ///< GPU time of the whole command buffer (SessionOptions::profile)
  struct Segment {
    std::string name;
    double gpuMs = 0;
  };
  std::vector<Segment> segments;  ///< one per dispatch, in order (SessionOptions::profile)
  /// The GPU timestamps in ns (the device's clock): [0] before the first dispatch, [i+1]
  /// after segment i (SessionOptions::profile).
  std::vector<std::uint64_t> timestampsNs;
  /// An Ethos-U model (ModelFormat::EthosU, or a .pte of Ethos-U delegates): the NPU
  /// operations and multiply-accumulates the simulator ran.
  std::uint64_t npuOperations = 0;
  std::uint64_t macs = 0;
};

/// A Chrome trace-event JSON document of profiled runs (one process row per run, a slice per
/// dispatch, microseconds from the first run's start): Perfetto and chrome://tracing load it.
OPENVGF_API std::string chromeTrace(const std::vector<Profile>& runs);
/// A text table of profiled runs: the `top` slowest dispatches by median GPU time, the total
/// GPU time and the host's overhead (wall time minus GPU time), medians over the runs.
OPENVGF_API std::string profileSummary(const std::vector<Profile>& runs, std::size_t top = 10);

/// What the driver reports of one compiled pipeline (ModelOptions::pipelineStatistics).
struct PipelineStatistics {
  std::string module;                 ///< the SPIR-V module (a .pte's prefixed with its delegate)
  std::vector<std::string> segments;  ///< the dispatches that use it
  struct Statistic {
    std::string executable;  ///< the driver's name of the pipeline executable
    std::string name;        ///< e.g. "Register Count", as the driver names it
    std::string value;
  };
  std::vector<Statistic> statistics;
};

/// One output judged against the TOSA reference interpreter under TOSA's compliance rules.
struct OutputCheck {
  std::string part;    ///< "" for a single model; a .pte's delegate call
  std::string output;  ///< the output's name
  bool pass = false;
  std::string line;    ///< the verdict as `run --check` prints it (errors, bound, ...)
  // The figures of the verdict.
  std::string rule{};            ///< the TOSA compliance mode: "EXACT", "ULP", "ABS_ERROR", "DOT_PRODUCT", ...
  std::int64_t elements = 0;
  std::int64_t failures = 0;     ///< elements beyond the tolerance
  double maxAbsError = 0;
  double maxUlpError = 0;        ///< floating-point outputs
  /// Neither PASS nor FAIL (pass is false, failures 0): the tolerance propagated through the
  /// graph to this output is at least |value| at every element, so it cannot tell a right answer
  /// from a wrong one (deep graphs; tosa/compliance.h, docs/running.md). Judge the operators
  /// one by one on the device's own inputs (Session::checkOperators, `openvgf compare MODEL.tosa
  /// --per-operator`).
  bool inconclusive = false;
};
struct CheckReport {
  bool pass = true;                  ///< every output passed
  /// Not pass, yet no output failed: some were inconclusive (`run --check` exits 3).
  bool inconclusive = false;
  std::vector<OutputCheck> outputs;  ///< one per output (a `state:` output included), in order
};

/// One operator of a .tosa model's main block judged alone (Session::checkOperators): the
/// reference interpreter (precise mode) runs that operator with the device's values of its
/// inputs (the graph's inputs, tensors the device computed) and the graph's constants as exact
/// givens, and the device's outputs of it are judged under the operator's own TOSA compliance
/// rule. No error of the operators before it is propagated: TOSA defines accuracy per operator.
struct OperatorCheck {
  int index = 0;                     ///< position in the main block
  std::string op;                    ///< "CONV2D"
  std::vector<OutputCheck> outputs;  ///< a verdict per output the device returned; empty when not judged
  /// Why it was not judged ("" when it was): it reads or writes EXT-VARIABLE state, the device
  /// returned none of its outputs, an input has no value, or the reference refused it.
  std::string notJudged;
  /// Operators computed by the reference together with this one, because the device returns
  /// no value of an input they produce (shape values): their outputs are exact givens only when
  /// they are exact operators, else the verdict is chained (and may be inconclusive).
  int upstream = 0;
};
struct OperatorReport {
  bool pass = true;  ///< every operator judged and within its tolerance
  /// Not pass, yet no operator failed: some were not judged or inconclusive.
  bool inconclusive = false;
  /// In main block order; left out: operators that compute no value (CONST, CONST_SHAPE,
  /// VARIABLE, VARIABLE_WRITE) or only shape values (judged through the operators using them).
  std::vector<OperatorCheck> operators;
};

class Session;
namespace detail {
struct ModelState;
struct SessionState;
struct RunState;
}  // namespace detail

/// A model file made ready to run on one device: read, lowered to compute shaders where
/// needed, checked against the device. A .tosa is converted in-process and a VGF with GRAPH
/// segments (Arm's model-converter, TOSA.001000.1 SPIR-V) is lowered; both results are cached
/// under the cache folder, keyed by the SHA-256 of the file, the target and the openvgf build.
/// A .pte runs its plan: every VgfBackend delegate call in order (copies and views between
/// them), with the plan's inputs and outputs (input_<i>, output_<i>). Copies share the same
/// model.
class OPENVGF_API Model {
 public:
  static Model open(const std::string& path, const ModelOptions& options = {});
  /// Opens `path` on the device of `shareDeviceOf` (one Vulkan device and context), so the
  /// device-resident outputs of either model's sessions can be inputs of the other's.
  /// options.device, validate and pipelineCache are those of `shareDeviceOf`. Unsupported,
  /// naming the feature, when this model needs a device feature the shared device was not
  /// created with (open the more demanding model first).
  static Model open(const std::string& path, const ModelOptions& options, const Model& shareDeviceOf);

  const std::string& path() const;
  /// What runs, as messages about it name it: the path, or for a .pte run in the Ethos-U
  /// simulator "<path>: execution_plan[p] 'name' delegates[d] (EthosUBackend)".
  const std::string& source() const;
  ModelFormat format() const;
  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  /// Name of the device the model runs on.
  const std::string& deviceName() const;
  /// True when the converted (.tosa) or lowered (GRAPH segments) VGFs all came from the cache.
  bool fromCache() const;
  /// True when both models run on one device and context (Model::open with shareDeviceOf).
  bool sharesDeviceWith(const Model& other) const;
  /// Which given value each model input takes, for values given with `names` as
  /// Session::run binds them (a name binds to that input, "" to the next unbound one in input
  /// order): one entry per input, an index into `names`, or -1 for an input left to its
  /// default (TensorInfo::hasDefault). InvalidInput naming the input otherwise; messages
  /// start with `source` ("" = the model's path).
  std::vector<int> bindInputs(const std::vector<std::string>& names, const std::string& source = "") const;

  /// A zero-filled host tensor in pinned memory of this model's device: runs read and write
  /// it by DMA, with no staging copy. Memory of the host imported with
  /// VK_EXT_external_memory_host where the device offers it, else host-visible memory of
  /// the device. Usable by every Session on this device.
  Tensor allocatePinned(DataType dtype, Shape shape) const;
  /// Pins caller memory in place (a view: it must outlive the tensor and every run using
  /// it). Unsupported when the device lacks VK_EXT_external_memory_host or when `data` or
  /// `byteSize` is not a multiple of importAlignment(): then pass the memory as a plain
  /// Tensor::view (copied through staging) or use allocatePinned.
  Tensor importPinned(DataType dtype, Shape shape, void* data, std::size_t byteSize) const;
  /// Alignment in bytes importPinned needs of address and size; 0 when it is unavailable.
  std::size_t importAlignment() const;

  Session createSession(const SessionOptions& options = {}) const;

 private:
  explicit Model(std::shared_ptr<const detail::ModelState> state) : state_(std::move(state)) {}
  std::shared_ptr<const detail::ModelState> state_;
};

/// A run started by Session::runAsync. wait() blocks until it is done and returns its
/// outputs (the tensors given to runAsync, or new owning ones); handles of one Session may
/// be waited for in any order, each once, from any thread. A handle keeps its Session's memory
/// alive; destroyed unwaited, it finishes its run first.
class OPENVGF_API RunHandle {
 public:
  RunHandle() = default;
  /// Started and not waited for yet.
  bool valid() const;
  /// Throws what the run failed with; InvalidInput when the handle was already waited for.
  std::vector<Tensor> wait();

 private:
  friend class Session;
  explicit RunHandle(std::shared_ptr<detail::RunState> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::RunState> state_;
};

/// One model ready to run on its device: memory, pipelines and one recorded command buffer
/// per run in flight. Each run is one submit. Threads sharing a Session take turns (see the top
/// of this file).
class OPENVGF_API Session {
 public:
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;

  /// Inputs in the model's input order; returns new owning outputs in output order. Inputs
  /// left out at the end take their defaults: the initial value of each `state:<name>`
  /// input of a model opened from a .tosa (EXT-VARIABLE).
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, const RunOptions& options = {});
  /// Inputs by name (every input once; `state:` inputs may be left out, as above).
  std::vector<Tensor> runNamed(const std::map<std::string, Tensor>& inputs, const RunOptions& options = {});
  void runNamed(const std::map<std::string, Tensor>& inputs, std::vector<Tensor>& outputs,
                const RunOptions& options = {});
  /// Write the outputs into `outputs`: tensors of the right dtype and shape (owning or
  /// views of caller memory) are filled in place, anything else is replaced by a new owning
  /// tensor, so repeated runs allocate nothing.
  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, const RunOptions& options = {});

  /// Starts a run and returns once the inputs are taken: host inputs may be reused at once,
  /// pinned ones are read by DMA until the run is waited for. `outputs` (optional) are
  /// filled as run() fills them; they must not be used until wait(). At most
  /// SessionOptions::inFlight runs are in flight: one more first finishes the oldest (its
  /// handle keeps its outputs). A .pte plan runs
  /// its delegate calls one after another through host memory: its runAsync completes the
  /// run before it returns.
  RunHandle runAsync(const std::vector<Tensor>& inputs, std::vector<Tensor> outputs = {},
                     const RunOptions& options = {});
  RunHandle runNamedAsync(const std::map<std::string, Tensor>& inputs, std::vector<Tensor> outputs = {},
                          const RunOptions& options = {});

  /// Timings of the last run.
  Profile profile() const;

  /// Judges `outputs` of a run on `inputs` (as runNamed takes them) with the TOSA reference
  /// interpreter on the model's reference (ModelOptions::reference), or else on the graph the
  /// model carries (a .tosa's own, a VGF's GRAPH segments', each of a .pte's delegates').
  /// InvalidInput when there is none (a VGF of COMPUTE segments without a reference).
  CheckReport check(const std::map<std::string, Tensor>& inputs, const std::vector<Tensor>& outputs) const;
  /// Judges every operator of the main block alone on the device's own values (OperatorCheck):
  /// `inputs` and `outputs` as for check(), of a .tosa model opened with
  /// ModelOptions::keepIntermediates (InvalidInput otherwise: a fused or converted model has no
  /// values between its operators). The operators are those of ModelOptions::reference when
  /// given (tensors matched by name), else of the model's own graph.
  OperatorReport checkOperators(const std::map<std::string, Tensor>& inputs, const std::vector<Tensor>& outputs) const;
  /// The driver's statistics of every pipeline (ModelOptions::pipelineStatistics).
  std::vector<PipelineStatistics> pipelineStatistics() const;

 private:
  friend class Model;
  explicit Session(std::shared_ptr<detail::SessionState> state);
  std::shared_ptr<detail::RunState> start(const std::vector<std::string>& names, const std::vector<Tensor>& given,
                                          std::vector<Tensor> outputs, const RunOptions& options);
  std::shared_ptr<detail::SessionState> state_;
};

struct BenchmarkOptions {
  std::string device;               ///< as ModelOptions::device
  std::string target = "portable";  ///< as ModelOptions::target
  bool validate = false;            ///< Vulkan validation layer (slows everything down)
  int warmup = 5;                   ///< untimed runs before the measurement
  int iterations = 50;              ///< timed runs (at least); benchmarkTransfers: at most 20
  double minTimeS = 0;              ///< keep timing until this many seconds have passed as well
  int gpuIterations = 0;            ///< runs with GPU timestamps, in a separate session (0: min(20, iterations))
  std::string cacheDir;             ///< empty folder for the cold/warm pipeline-cache measurement ("" = a temporary one)
  unsigned pipelined = 0;           ///< also time runAsync with this many runs in flight (1..8; 0 = not)
  bool uploadViaHost = false;       ///< stage uploads in host memory even where a resizable BAR could take them
  /// Host inputs staged and uploaded in pieces of this many bytes, pipelined (0: whole; -1:
  /// the session's default; `openvgf bench --upload-chunk`)
  std::int64_t uploadChunkBytes = -1;
  /// At most this many of the first dispatches run a piece of the batch at a time, each as its
  /// images are uploaded (-1: the session's default; 0: none; `openvgf bench --overlap`)
  std::int64_t overlapSegments = -1;
  bool json = false;                ///< the report as one JSON object instead of text
};

/// What `openvgf bench MODEL` prints: session creation (cold and warm pipeline cache), first
/// inference, wall latency statistics, GPU time from timestamps, throughput and device
/// memory of the model (a .tosa, .vgf, or .pte that runs as one VGF) on one device.
OPENVGF_API std::string benchmark(const std::string& path, const BenchmarkOptions& options = {});
/// What `openvgf bench --transfer` prints: host <-> device bandwidth of `bytes` bytes against a
/// plain vkCmdCopyBuffer.
OPENVGF_API std::string benchmarkTransfers(std::uint64_t bytes, const BenchmarkOptions& options = {});

struct ConvertOptions {
  /// "portable", "native", or an Ethos-U configuration ("ethos-u55-128", ...; writes a
  /// vela_bin_stream).
  std::string target = "portable";
  /// "native": the device to convert for, as ModelOptions::device names it ("" = the one
  /// Model::open would pick). Env OPENVGF_TUNING overrides its tuning-table entries.
  std::string device;
  /// "compute" (COMPUTE segments for any Vulkan 1.3 device) or "arm-graph" (one GRAPH segment,
  /// the SPIR-V TOSA graph, as Arm's model-converter writes it).
  std::string format = "compute";
  /// "fp32" (TOSA's precision), "fp16", "bf16", "fp16x3", "bf16x3" or "fp32-bf16": how fp32 MATMUL / CONV2D operands
  /// are multiplied on cooperative matrices (`openvgf convert --help` has the details).
  std::string precision = "fp32";
  bool cache = true;    ///< SPIR-V cache (and the lowered-VGF cache of a GRAPH-segment input)
  /// Graph passes: "all", "none", or a comma-separated list of graphPasses() (they run in
  /// that order whatever the order of the list).
  std::string passes = "all";
  bool verifyEach = false;  ///< re-check the graph's invariants after every pass, naming the one that breaks them
  /// Progress of shader compilation: (modules done, modules total).
  std::function<void(std::size_t done, std::size_t total)> progress = nullptr;
  /// Called with "input" before the graph passes, then after each pass that ran: whether it
  /// changed the graph, and the graph as text (one line per node with result types).
  std::function<void(const std::string& pass, bool changed, const std::string& listing)> afterPass = nullptr;
};

/// What a conversion produced.
struct ConvertStats {
  std::string target;
  std::size_t outputBytes = 0;
  std::size_t kernels = 0;        ///< Vulkan: compute dispatches; Ethos-U: NPU operations
  std::size_t uniqueModules = 0;  ///< Vulkan: distinct SPIR-V modules
  std::uint64_t constantBytes = 0;
  std::uint64_t peakLiveBytes = 0;  ///< Vulkan: intermediates live at once
  bool fromCache = false;           ///< a GRAPH-segment VGF lowered earlier, taken from the cache
  /// Every figure of the conversion as `openvgf convert --stats` prints it, one per line.
  std::string report;
};

/// Every ConvertOptions::target: "portable", "native", then the Ethos-U configurations.
OPENVGF_API std::vector<std::string> conversionTargets();
/// The optional graph passes of a Vulkan conversion, in the order they run.
OPENVGF_API std::vector<std::string> graphPasses();
/// The passes a ConvertOptions::passes value runs, in order; InvalidInput listing the choices
/// for a name that is none of them, or an empty value.
OPENVGF_API std::vector<std::string> passesThatRun(const std::string& passes);

/// Converts a .tosa file to a VGF (Vulkan targets) or an Ethos-U vela_bin_stream, or lowers
/// a VGF with GRAPH segments (Arm's encoding) to a VGF of COMPUTE segments; the output is
/// written atomically (no partial file on failure). Options that do not apply to the target
/// or format are refused (InvalidInput), not ignored.
OPENVGF_API ConvertStats convert(const std::string& input, const std::string& output,
                                 const ConvertOptions& options = {});

/// A text summary of a .tosa, .vgf, .pte or Ethos-U command stream (.ethosu, bare COP1
/// payload) file, or with `json` its JSON form
/// (`openvgf inspect [--json]`). Throws when the file is invalid.
OPENVGF_API std::string inspect(const std::string& path, bool json = false);

/// inspect() of a file that may be invalid: the listing of what could be read, and beside it
/// what makes the file invalid (a graph that breaks the spec's rules, a bad delegate payload),
/// as `openvgf inspect` prints both. Throws only when nothing could be listed.
struct InspectReport {
  std::string text;
  std::string problem;  ///< "" when the file is valid
  ErrorCode problemCode = ErrorCode::InvalidInput;
};
OPENVGF_API InspectReport inspectReport(const std::string& path, bool json = false);
/// Writes the SPIR-V code of module `module` of a VGF to `output` (`inspect --dump-spirv`).
OPENVGF_API void dumpSpirv(const std::string& path, int module, const std::string& output);
/// Writes a constant to `output` (`inspect --dump-constant`): a .npy when the name ends in .npy,
/// else the raw bytes. TOSA: the main block's tensor `selector` (a name, or its position among
/// the constants) in TOSA layout; VGF: constant `selector` (an index) with its resource's
/// shape and type, in the layout the kernels read.
OPENVGF_API void dumpConstant(const std::string& path, const std::string& selector, const std::string& output);

struct ReferenceOptions {
  bool precise = false;  ///< floating-point operators in fp64; float outputs as Float64
  bool strict = false;   ///< a REQUIRE violation is an error instead of a warning
  bool dynamic = false;  ///< EXT-DYNAMIC: computed values where the spec wants constants (read time)
  /// Called with each REQUIRE violation of a run when not `strict` (TOSA calls the results of
  /// such a run unpredictable); unset: they are dropped.
  std::function<void(const std::string& warning)> onWarning = nullptr;
};

namespace detail {
struct ReferenceState;
}  // namespace detail

/// A .tosa graph read and checked against the spec's ERROR_IF rules once, to run on the CPU
/// reference interpreter any number of times. Immutable: threads may share it.
class OPENVGF_API ReferenceModel {
 public:
  /// `dynamic`: EXT-DYNAMIC, computed values accepted where the spec wants constants.
  static ReferenceModel open(const std::string& path, bool dynamic = false);

  const std::string& path() const;
  /// The main block's inputs; an unranked one has TensorInfo::anyShape set.
  const std::vector<TensorInfo>& inputs() const;
  /// The main block's outputs, as declared (run() gives Float64 for float outputs when precise).
  const std::vector<TensorInfo>& outputs() const;
  /// Which of the values given with `names` each input takes, as run() binds them (a name binds
  /// to that input, "" to the next unbound one in input order): an index into `names` per
  /// input. InvalidInput naming the input otherwise; messages start with `source` ("" = the path).
  std::vector<int> bindInputs(const std::vector<std::string>& names, const std::string& source = "") const;
  /// Inputs by name, or with empty names in the graph's input order; outputs in graph order.
  std::vector<NamedTensor> run(const std::vector<NamedTensor>& inputs, const ReferenceOptions& options = {}) const;

 private:
  explicit ReferenceModel(std::shared_ptr<const detail::ReferenceState> state) : state_(std::move(state)) {}
  std::shared_ptr<const detail::ReferenceState> state_;
};

/// ReferenceModel::open(path, options.dynamic).run(inputs, options).
OPENVGF_API std::vector<NamedTensor> reference(const std::string& path, const std::vector<NamedTensor>& inputs,
                                               const ReferenceOptions& options = {});

/// One delegate payload extract() wrote.
struct ExtractedPayload {
  std::string file;       ///< its file name under the output folder
  std::string plan;       ///< the execution plan it belongs to
  int delegate = 0;       ///< its index in the plan's delegates
  std::string backendId;  ///< e.g. "VgfBackend", "EthosUBackend"
  /// Why the payload is not a valid VGF / vela_bin_stream ("" = it is). Such a payload is
  /// still written: the bytes are what the caller asked for.
  std::string problem;
};

/// Writes the delegate payloads of a .pte (and manifest.json) to `outputDir`, atomically.
/// `plan`: name or index, "" = all; `delegate` < 0 = all.
OPENVGF_API std::vector<ExtractedPayload> extract(const std::string& path, const std::string& outputDir,
                                                  const std::string& plan = "", int delegate = -1);

// ---- Several devices in one process (docs/multi-device.md) ----
//
// A DevicePool opens one model on several Vulkan devices, one Model and one Session per device,
// and spreads a sequence of input sets over them: each device has its own host thread that
// keeps up to PoolOptions::inFlight runs submitted (Session::runAsync), so devices never wait
// for each other. Results come back in input order; an item that fails (a bad input, a failed
// run) reports its error and the others go on. A run that fails because its device was lost
// (VK_ERROR_DEVICE_LOST) runs again on another live device, and the lost one is retired from
// the pool (for this and later calls); its error is the item's only when no device is left.

/// The devices `selector` names among `devices` (listDevices()), as device indices in the
/// order named: "" the device a Model opens by default (DeviceInfo::isDefault); "all" every
/// usable device of the best kind present (the discrete GPUs when there are any; lavapipe, a
/// CPU device, only where nothing better exists); else a comma-separated list of indices and
/// case-insensitive name substrings, a substring naming every usable device whose name holds
/// it ("H200"). InvalidInput for an empty entry, an index past the last device, a name no
/// device has, or a device named twice; Environment for a named device that is not usable
/// (DeviceInfo::usable) or when none is. Pure: tests pass made-up lists.
OPENVGF_API std::vector<int> selectDevices(const std::string& selector, const std::vector<DeviceInfo>& devices);

struct PoolOptions {
  std::string devices;  ///< which devices, as selectDevices names them ("" = the default device)
  /// How each device's Model opens; `device` must be empty (the pool sets it per device).
  ModelOptions model;
  /// Runs each device keeps in flight (SessionOptions::inFlight), 1..8: the next run's upload
  /// and the host's work on inputs and outputs overlap the device's compute.
  unsigned inFlight = 2;
};

/// The outcome of one input set run by a DevicePool.
struct PoolResult {
  bool ok = false;
  std::vector<Tensor> outputs;  ///< owning, in the model's output order; empty when not ok
  ErrorCode code = ErrorCode::Internal;  ///< what the item failed with (when not ok)
  std::string error;                     ///< its message, as Exception::what() (when not ok)
  int device = -1;  ///< index of the device that ran it (listDevices); -1 when it never reached one
  /// Devices lost (VK_ERROR_DEVICE_LOST) while running this item, in order: it then ran again
  /// on another live device of the pool, and each was retired from the pool.
  std::vector<int> lostDevices;
};

namespace detail {
struct PoolState;
}  // namespace detail

/// One model open on several devices (a Model and a Session each); runs input sets on them
/// in parallel, in order. Calls on one pool take turns (a second caller waits); each run call
/// starts one host thread per device and joins them before it returns.
class OPENVGF_API DevicePool {
 public:
  /// Opens `path` on every device options.devices names: the first device first (a .tosa is
  /// converted once and cached), then the others in parallel. An Ethos-U model (see "Ethos-U
  /// models") runs in the simulator: one session, device index -1; options.devices must be "".
  static DevicePool open(const std::string& path, const PoolOptions& options = {});
  DevicePool(DevicePool&&) noexcept;
  DevicePool& operator=(DevicePool&&) noexcept;
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;
  ~DevicePool();

  /// One per device, in the order selectDevices gave them.
  const std::vector<Model>& models() const;
  /// The device index (listDevices) of each model; -1 for the Ethos-U simulator.
  const std::vector<int>& deviceIndices() const;
  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;

  /// Fills `inputs` with the inputs of item `index`, in the model's input order (as
  /// Session::run takes them); an Exception it throws is that item's error.
  using Prepare = std::function<void(std::size_t index, std::vector<Tensor>& inputs)>;
  /// As Prepare, or returns false when there is no item `index` (the stream has ended).
  using Next = std::function<bool(std::size_t index, std::vector<Tensor>& inputs)>;
  /// Called with each item's result, in index order, on the calling thread.
  using Done = std::function<void(std::size_t index, PoolResult result)>;

  /// Runs items 0..count-1. `prepare` is called from the devices' threads, several at once
  /// (distinct indices, each once): it must be safe to call so (reading files is). At most
  /// 2 x inFlight x devices items are taken and not yet given to `done`. An exception other
  /// than openvgf::Exception from `prepare`, or any from `done`, stops the run: the runs in
  /// flight finish, and it is rethrown here.
  void run(std::size_t count, const Prepare& prepare, const Done& done);
  /// Runs a stream of unknown length: `next` is called with 0, 1, 2, ... one call at a time
  /// (from the devices' threads) until it returns false.
  void runStream(const Next& next, const Done& done);
  /// Runs every input set; the results in the same order.
  std::vector<PoolResult> runMany(const std::vector<std::vector<Tensor>>& inputs);

 private:
  explicit DevicePool(std::unique_ptr<detail::PoolState> state);
  std::unique_ptr<detail::PoolState> state_;
};

// ---- Graph view (openvgf view; docs/view.md) ----

enum class ViewFormat {
  Html,  ///< one self-contained page: graph, search, zoom/pan, attributes; no network needed
  Json,  ///< Model Explorer's graph collection JSON
  Dot,   ///< Graphviz DOT
};

struct ViewOptions {
  ViewFormat format = ViewFormat::Html;
  /// A Chrome trace written by `openvgf run --profile` (chromeTrace) of the same model: each node
  /// gets the median GPU time of its dispatches, and the page colours nodes by it. "" = none.
  std::string profile;
};

/// The graph of a .tosa, .vgf (COMPUTE and GRAPH segments), .pte (its delegates) or Ethos-U
/// stream: operators or dispatches as nodes, tensors as edges with type and shape, constants,
/// segment boundaries and which Vulkan kernel each TOSA operator becomes (or is fused into),
/// laid out and written in `options.format`. Throws on a file it cannot read.
OPENVGF_API std::string viewReport(const std::string& path, const ViewOptions& options = {});

// ---- Scenario files of Arm's ML SDK scenario-runner (docs/scenario.md) ----

struct ScenarioOptions {
  std::string device;          ///< as ModelOptions::device
  bool validate = false;       ///< Vulkan validation layer; a validation error fails the run
  bool pipelineCache = true;   ///< read and write the on-disk pipeline cache
  bool modelCache = true;      ///< reuse lowered graphs (ModelOptions::modelCache)
  std::string cacheDir;        ///< as ModelOptions::cacheDir
};

struct ScenarioResult {
  std::size_t commands = 0;          ///< commands run
  std::vector<std::string> written;  ///< the `dst` .npy files written, in resource order
};

/// Runs a JSON scenario of Arm's scenario-runner: buffers and tensors (.npy `src` / `dst`),
/// graphs (`src` .vgf, run as Model) and SPIR-V compute shaders; commands dispatch_graph,
/// dispatch_compute, dispatch_barrier and mark_boundary, in order. The whole file is checked
/// before anything runs; a field or command outside that subset is refused (Unsupported)
/// naming its JSON path. Relative paths resolve against the scenario's folder; `dst` files are
/// written only once every command has run.
OPENVGF_API ScenarioResult runScenario(const std::string& path, const ScenarioOptions& options = {});

// ---- Log level and hints (docs/library.md "Log output") ----

/// What the library writes to stderr: Warn (the default) shows warnings (bytes reinterpreted,
/// a cache not used) and errors; Info adds what it did (a graph lowered, taken from the
/// cache); Debug and Trace add details. The environment variable OPENVGF_LOG_LEVEL (trace,
/// debug, info, warn, error, off) sets it when the library is loaded; setLogLevel overrides it.
enum class LogLevel : int {
  Trace = OPENVGF_LOG_TRACE,
  Debug = OPENVGF_LOG_DEBUG,
  Info = OPENVGF_LOG_INFO,
  Warn = OPENVGF_LOG_WARN,
  Error = OPENVGF_LOG_ERROR,
  Off = OPENVGF_LOG_OFF,
};
OPENVGF_API void setLogLevel(LogLevel level);
OPENVGF_API LogLevel logLevel();
/// "trace", "debug", "info", "warn", "error" or "off" (any case); InvalidInput naming them otherwise.
OPENVGF_API LogLevel parseLogLevel(const std::string& name);
/// LogLevel's name, as parseLogLevel takes it.
OPENVGF_API const char* toString(LogLevel level);

/// " (did you mean 'convert'?)" when `word` is close to some of `choices` (a prefix of them, or
/// one or two letters off), else "": the hint every openvgf message about an unknown name
/// (command, flag, target, precision, pass) ends with.
OPENVGF_API std::string didYouMean(const std::string& word, const std::vector<std::string>& choices);

}  // namespace openvgf
