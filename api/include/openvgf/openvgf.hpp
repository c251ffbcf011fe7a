// SPDX-License-Identifier: Apache-2.0
// openvgf C++ API: open a model file (.tosa, .vgf, .pte), run it on a Vulkan 1.3 device,
// convert, inspect and run the TOSA reference interpreter. C++17; depends on the standard
// library only. Errors are thrown as openvgf::Exception.
//
// Thread safety:
//   - A Model is immutable once opened: it may be shared by any number of threads, and
//     several threads may call Model::createSession on it at the same time.
//   - A Session is not thread-safe: one thread at a time may call it (it may move between
//     threads). Distinct Sessions, of one Model or of several, may run at the same time.
//   - Tensor is a handle: copies share one buffer. Threads may read one buffer together; a
//     buffer that one thread writes must not be used by another at the same time.
//   - The free functions (listDevices, convert, inspect, reference, extract) may be called
//     from any thread at any time.
// A Session keeps its Model's device alive: Models and Sessions may be destroyed in any order.
#pragma once

#include <cstddef>
#include <cstdint>
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

/// Where a tensor's memory lives. Only Host exists today; device-resident buffers will be a
/// further value, so code that switches on it should keep a default branch.
enum class MemoryLocation : int { Host = 0 };

/// A dense, row-major tensor. Either owns its buffer (zero-filled at construction) or views
/// memory the caller owns (Tensor::view), which must outlive every use. Copies are handles to
/// the same buffer; clone() makes an owning deep copy.
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
  MemoryLocation location() const { return MemoryLocation::Host; }
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
  Tensor clone() const;

 private:
  DataType dtype_ = DataType::Float32;
  Shape shape_;
  std::shared_ptr<void> owner_;  // null for views
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

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
};

/// A Vulkan device as `openvgf devices` lists it.
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string type;        ///< "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"
  std::string apiVersion;  ///< "1.3.239"
  std::string driver;      ///< driver name and info
  bool isDefault = false;  ///< the device chosen when ModelOptions::device is empty
  bool usable = false;     ///< Vulkan 1.3 with a compute queue
  std::uint64_t deviceLocalBytes = 0;
  std::uint32_t subgroupSize = 0;
  std::vector<std::string> features;  ///< optional features it has (Vulkan spelling)
};

/// Every Vulkan device. Throws Environment when no Vulkan loader or driver is installed.
OPENVGF_API std::vector<DeviceInfo> listDevices(bool validate = false);

/// The kind of file a Model was opened from (detected from content, not the extension).
enum class ModelFormat : int { Tosa = 0, Vgf = 1, Pte = 2 };

struct ModelOptions {
  std::string device;               ///< "" best device; digits: index; else a name substring
  std::string target = "portable";  ///< .tosa conversion target: "portable" or "native"
  std::string plan;                 ///< .pte: execution plan (name or index); "" = the only one, or "forward"
  bool validate = false;            ///< Vulkan validation layer; a validation error fails the run
  bool pipelineCache = true;        ///< read and write the on-disk pipeline cache
  bool modelCache = true;           ///< reuse a converted (.tosa) or lowered (GRAPH segments) VGF from the cache
  std::string cacheDir;             ///< "" = $XDG_CACHE_HOME/openvgf, else ~/.cache/openvgf
  /// A VGF with GRAPH segments whose inputs have dynamic dimensions: the shape of every
  /// input, in input order, to lower it for (empty: the file's shapes).
  std::vector<Shape> inputShapes;
};

struct SessionOptions {
  bool profile = false;  ///< GPU timestamps around every dispatch (Session::profile)
};

/// Per-run options. Empty today; device buffers and asynchronous runs will add fields here.
struct RunOptions {};

/// Timings of a Session's last run.
struct Profile {
  double hostMs = 0;  ///< wall time of run(), inputs in to outputs out
  double gpuMs = 0;   ///< GPU time of the whole command buffer (SessionOptions::profile)
  struct Segment {
    std::string name;
    double gpuMs = 0;
  };
  std::vector<Segment> segments;  ///< one per dispatch, in order (SessionOptions::profile)
};

class Session;
namespace detail {
struct ModelState;
struct SessionState;
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

  const std::string& path() const;
  ModelFormat format() const;
  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  /// Name of the device the model runs on.
  const std::string& deviceName() const;
  /// True when the converted (.tosa) or lowered (GRAPH segments) VGFs all came from the cache.
  bool fromCache() const;

  Session createSession(const SessionOptions& options = {}) const;

 private:
  explicit Model(std::shared_ptr<const detail::ModelState> state) : state_(std::move(state)) {}
  std::shared_ptr<const detail::ModelState> state_;
};

/// One model ready to run on its device: memory, pipelines and one recorded command buffer.
/// Each run is one submit. Not thread-safe (see the top of this file).
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

  /// Timings of the last run.
  Profile profile() const;

 private:
  friend class Model;
  explicit Session(std::unique_ptr<detail::SessionState> state);
  void runBound(const std::vector<std::string>& names, const std::vector<Tensor>& given, std::vector<Tensor>& outputs,
                const RunOptions& options);
  std::unique_ptr<detail::SessionState> state_;
};

struct ConvertOptions {
  std::string target = "portable";  ///< "portable", "native", or an Ethos-U configuration ("ethos-u55-128", ...)
  bool cache = true;                ///< SPIR-V cache
  std::string passes;               ///< "" or "all", "none", or a comma-separated list of pass names
};

/// What a conversion produced (`openvgf convert --stats`).
struct ConvertStats {
  std::string target;
  std::size_t outputBytes = 0;
  std::size_t kernels = 0;        ///< Vulkan: compute dispatches; Ethos-U: NPU operations
  std::size_t uniqueModules = 0;  ///< Vulkan: distinct SPIR-V modules
  std::uint64_t constantBytes = 0;
  std::uint64_t peakLiveBytes = 0;  ///< Vulkan: intermediates live at once
};

/// Converts a .tosa file to a VGF (Vulkan targets) or an Ethos-U vela_bin_stream, or lowers
/// a VGF with GRAPH segments (Arm's encoding) to a VGF of COMPUTE segments; the output is
/// written atomically (no partial file on failure).
OPENVGF_API ConvertStats convert(const std::string& input, const std::string& output,
                                 const ConvertOptions& options = {});

/// A text summary of a .tosa, .vgf or .pte file, or with `json` its JSON form
/// (`openvgf inspect [--json]`). Throws when the file is invalid.
OPENVGF_API std::string inspect(const std::string& path, bool json = false);

struct ReferenceOptions {
  bool precise = false;  ///< floating-point operators in fp64; float outputs as Float64
  bool strict = false;   ///< a REQUIRE violation is an error instead of a warning
  bool dynamic = false;  ///< EXT-DYNAMIC: computed values where the spec wants constants
};

/// Runs a .tosa graph on the CPU reference interpreter. Inputs by name, or with empty names
/// in the graph's input order; outputs in graph order.
OPENVGF_API std::vector<NamedTensor> reference(const std::string& path, const std::vector<NamedTensor>& inputs,
                                               const ReferenceOptions& options = {});

/// Writes the delegate payloads of a .pte (and manifest.json) to `outputDir`; returns the
/// payload file names. `plan`: name or index, "" = all; `delegate` < 0 = all.
OPENVGF_API std::vector<std::string> extract(const std::string& path, const std::string& outputDir,
                                             const std::string& plan = "", int delegate = -1);

}  // namespace openvgf
