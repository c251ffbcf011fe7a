// SPDX-License-Identifier: Apache-2.0
// `openvgf batch MODEL INPUTS... -o OUTDIR`: runs a model on many input sets, spread over one or
// more devices by a DevicePool (docs/multi-device.md). The steps are kept apart so that another
// executor can take the middle one: find the items (findItems), leave out those whose outputs
// are all written (pending), run the rest (runOnPool), write each result atomically as it comes
// (writeOutputs). Items are .npy files (single-input models) or folders of <input name>.npy
// (any model); a failed item is reported and the batch goes on; the exit code says whether any
// failed. With --scheduler the middle step runs on a Dask cluster instead (batch_dask.h).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "batch_dask.h"
#include "command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

namespace fs = std::filesystem;

struct BatchOptions {
  std::string model;
  std::vector<std::string> inputs;  // files and folders
  std::string outputDir;            // -o
  std::string devices;              // --devices: selectDevices' selector
  unsigned jobs = 2;                // --jobs: runs in flight per device
  std::string target = "portable";
  std::string plan;
  bool validate = false;
  bool noPipelineCache = false;
  std::string scheduler;            // --scheduler: run the pending items on this Dask cluster
};

// One input set: a .npy file (single-input model) or a folder of <input name>.npy.
struct Item {
  std::string name;                // its outputs' name in OUTDIR
  std::string source;              // what messages name: the file or the folder
  std::vector<std::string> files;  // per model input, in input order ("" = left to its default)
  std::vector<fs::path> outputs;   // per model output
};

bool isNpy(const fs::path& path) { return path.extension() == ".npy"; }

std::vector<fs::path> sortedEntries(const fs::path& folder) {
  std::vector<fs::path> entries;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
  if (ec) fail(ErrorCode::Environment, fmt::format("{}: cannot list the folder: {}", folder.string(), ec.message()));
  std::sort(entries.begin(), entries.end());
  return entries;
}

// A folder holding <input name>.npy for one or more inputs of the model is an item.
bool isItemFolder(const fs::path& folder, const std::vector<TensorInfo>& inputs) {
  return std::any_of(inputs.begin(), inputs.end(), [&](const TensorInfo& input) {
    return fs::is_regular_file(folder / (sanitizeFileName(input.name) + ".npy"));
  });
}

Item folderItem(const fs::path& folder, const std::vector<TensorInfo>& inputs) {
  Item item;
  fs::path named = fs::absolute(folder).lexically_normal();  // "in/" and "." have a name too
  if (!named.has_filename()) named = named.parent_path();
  item.name = named.filename().string();
  item.source = folder.string();
  for (const TensorInfo& input : inputs) {
    const fs::path file = folder / (sanitizeFileName(input.name) + ".npy");
    // A missing file is this item's error when it runs (prepare), not the batch's.
    item.files.push_back(fs::exists(file) || !input.hasDefault ? file.string() : "");
  }
  return item;
}

// The items of every INPUT, in argument order (a folder's entries sorted by name).
std::vector<Item> findItems(const BatchOptions& options, const std::vector<TensorInfo>& inputs) {
  std::vector<Item> items;
  const bool single = inputs.size() == 1;
  for (const std::string& argument : options.inputs) {
    const fs::path path(argument);
    if (fs::is_regular_file(path)) {
      if (!single) {
        fail(ErrorCode::InvalidInput,
             fmt::format("{}: expected a folder of <input name>.npy files ({} has {} inputs), got a file",
                         argument, options.model, inputs.size()));
      }
      items.push_back({path.stem().string(), argument, {argument}, {}});
    } else if (isItemFolder(path, inputs)) {
      items.push_back(folderItem(path, inputs));
    } else {
      for (const fs::path& entry : sortedEntries(path)) {
        if (single && fs::is_regular_file(entry) && isNpy(entry)) {
          items.push_back({entry.stem().string(), entry.string(), {entry.string()}, {}});
        } else if (fs::is_directory(entry) && isItemFolder(entry, inputs)) {
          items.push_back(folderItem(entry, inputs));
        }
      }
    }
  }
  if (items.empty()) {
    fail(ErrorCode::InvalidInput,
         fmt::format("INPUTS: expected .npy files{} or folders holding <input name>.npy, found none", single
                     ? "" : " (for a one-input model)"));
  }
  return items;
}

// Where each item's outputs go: OUTDIR/<item>.npy for a one-output model, else
// OUTDIR/<item>/<output name>.npy. Two items of one name are refused before anything runs.
void placeOutputs(const BatchOptions& options, const std::vector<TensorInfo>& outputs, std::vector<Item>& items) {
  std::vector<std::string> names;
  for (const TensorInfo& out : outputs) names.push_back(out.name);
  std::map<std::string, const Item*> taken;
  for (Item& item : items) {
    if (auto [at, inserted] = taken.emplace(item.name, &item); !inserted) {
      fail(ErrorCode::InvalidInput, fmt::format("INPUTS: items {} and {} both have the name '{}' and would write the "
                                                "same outputs in {}", at->second->source, item.source, item.name,
                                                options.outputDir));
    }
    const fs::path base = fs::path(options.outputDir) / sanitizeFileName(item.name);
    if (outputs.size() == 1) {
      item.outputs = {base.string() + ".npy"};
    } else {
      item.outputs = outputFiles(options.model, base, names);
    }
  }
}

// An item is done when each of its outputs reads as a whole .npy of the output's shape (outputs
// are written atomically, so a file that exists is whole; the read also catches foreign ones).
bool written(const Item& item, const std::vector<TensorInfo>& outputs) {
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    std::error_code ec;
    if (!fs::is_regular_file(item.outputs[o], ec)) return false;
    try {
      if (NpyArray::read(item.outputs[o].string()).shape() != outputs[o].shape) return false;
    } catch (const Exception&) {
      return false;
    }
  }
  return true;
}

// Inputs left to their defaults must be the last ones (Session::run takes inputs in order).
void checkDefaults(const Item& item, const std::vector<TensorInfo>& inputs) {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!item.files[i].empty()) continue;
    for (std::size_t j = i; j < inputs.size(); ++j) {
      if (!item.files[j].empty()) {
        fail(ErrorCode::InvalidInput, fmt::format("{}: expected {}.npy (only the last inputs may be left to their "
                                                  "initial values)", item.source, sanitizeFileName(inputs[i].name)));
      }
    }
    return;
  }
}

std::vector<Tensor> readInputs(const Item& item, const std::vector<TensorInfo>& inputs, const std::string& model) {
  checkDefaults(item, inputs);
  std::vector<Tensor> tensors;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (item.files[i].empty()) break;
    tensors.push_back(NpyArray::read(item.files[i]).toTensor(inputs[i], fmt::format("{}: input '{}'", model, inputs[i].name)));
  }
  return tensors;
}

void writeOutputs(const Item& item, const std::vector<TensorInfo>& outputs, const std::vector<Tensor>& tensors) {
  std::error_code ec;
  fs::create_directories(item.outputs[0].parent_path(), ec);
  if (ec) {
    fail(ErrorCode::Environment,
         fmt::format("{}: cannot create the output folder: {}", item.outputs[0].parent_path().string(), ec.message()));
  }
  for (std::size_t o = 0; o < outputs.size(); ++o) writeNpy(item.outputs[o].string(), tensors[o], outputs[o].isUnsigned);
}

// The progress line on a terminal (redrawn in place), nothing otherwise; errors and the summary always.
class Progress {
 public:
  Progress(std::size_t total, std::size_t skipped)
      : total_(total), skipped_(skipped), live_(!quiet() && ::isatty(::fileno(stderr)) == 1),
        start_(std::chrono::steady_clock::now()) {
    draw();
  }

  void succeeded() {
    ++done_;
    draw();
  }

  void failed(const Item& item, const std::string& message, int exitCode) {
    if (failed_++ == 0) exitCode_ = exitCode;
    clear();
    std::fprintf(stderr, "batch: item '%s' (%s) failed: %s\n", item.name.c_str(), item.source.c_str(), message.c_str());
    draw();
  }

  // A line about one item that is not its failure (it ran again elsewhere).
  void note(const std::string& line) {
    clear();
    std::fprintf(stderr, "batch: %s\n", line.c_str());
    draw();
  }

  int finish() {
    clear();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "batch: %zu done, %zu failed, %zu skipped (%.1fs)\n", done_, failed_, skipped_, seconds);
    return failed_ == 0 ? 0 : exitCode_;
  }

 private:
  void draw() const {
    if (live_) std::fprintf(stderr, "\rbatch: %zu/%zu (%zu failed, %zu skipped)", done_ + failed_ + skipped_, total_,
                            failed_, skipped_);
  }
  void clear() const {
    if (live_) std::fputs("\r\033[K", stderr);
  }

  std::size_t total_, skipped_, done_ = 0, failed_ = 0;
  bool live_;
  std::chrono::steady_clock::time_point start_;
  int exitCode_ = 0;
};

PoolOptions poolOptions(const BatchOptions& options) {
  PoolOptions pool;
  pool.devices = options.devices;
  pool.inFlight = options.jobs;
  pool.model.target = options.target;
  pool.model.plan = options.plan;
  pool.model.validate = options.validate;
  pool.model.pipelineCache = !options.noPipelineCache;
  return pool;
}

std::string deviceName(const DevicePool& pool, int index) {
  for (std::size_t m = 0; m < pool.models().size(); ++m) {
    if (pool.deviceIndices()[m] == index) return fmt::format("device {} ({})", index, pool.models()[m].deviceName());
  }
  return fmt::format("device {}", index);
}

// "item 'x' (in/x.npy): device 1 (NVIDIA H200) was lost running it (retired from the batch); ran again on device 0 (...)"
std::string retriedLine(const DevicePool& pool, const Item& item, const PoolResult& result) {
  std::string lost;
  for (int device : result.lostDevices) lost += (lost.empty() ? "" : ", ") + deviceName(pool, device);
  return fmt::format("item '{}' ({}): {} {} lost running it (retired from the batch); {}", item.name, item.source, lost,
                     result.lostDevices.size() == 1 ? "was" : "were",
                     result.ok ? "ran again on " + deviceName(pool, result.device) : "no device is left to run it");
}

// Runs `pending` on the pool; each result is written (or its error reported) as it comes, in order.
void runOnPool(DevicePool& pool, const BatchOptions& options, const std::vector<const Item*>& pending,
               Progress& progress) {
  const std::vector<TensorInfo>& inputs = pool.inputs();
  const std::vector<TensorInfo>& outputs = pool.outputs();
  pool.run(
      pending.size(),
      [&](std::size_t index, std::vector<Tensor>& tensors) { tensors = readInputs(*pending[index], inputs, options.model); },
      [&](std::size_t index, PoolResult result) {
        const Item& item = *pending[index];
        if (!result.lostDevices.empty()) progress.note(retriedLine(pool, item, result));
        if (result.ok) {
          try {
            writeOutputs(item, outputs, result.outputs);
            progress.succeeded();
            return;
          } catch (const Exception& e) {
            result.code = e.code();
            result.error = e.what();
          }
        }
        progress.failed(item, result.error, Exception(result.code, "").exitCode());
      });
}

// The items of every INPUT with their outputs placed; `pending` gets those not yet written.
std::vector<Item> planItems(const BatchOptions& options, const std::vector<TensorInfo>& inputs,
                            const std::vector<TensorInfo>& outputs, std::vector<const Item*>& pending) {
  std::vector<Item> items = findItems(options, inputs);
  placeOutputs(options, outputs, items);
  for (const Item& item : items) {
    if (!written(item, outputs)) pending.push_back(&item);
  }
  return items;
}

// --scheduler: the same items, skip rule, progress and summary; the pending items run on a
// Dask cluster (openvgf.dask.batch_main writes their outputs). The model's inputs and outputs
// come from a Model opened here, on this machine's default device (lavapipe will do).
int runOnScheduler(const BatchOptions& options) {
  const Model model = Model::open(options.model, poolOptions(options).model);
  std::vector<const Item*> pending;
  const std::vector<Item> items = planItems(options, model.inputs(), model.outputs(), pending);
  if (!quiet()) {
    std::fprintf(stderr, "batch: %zu items (%zu already written) on the Dask cluster at %s\n", items.size(),
                 items.size() - pending.size(), options.scheduler.c_str());
  }
  Progress progress(items.size(), items.size() - pending.size());
  DaskBatch batch{options.scheduler, fs::absolute(options.model).lexically_normal().string(), {}, {}};
  batch.options.emplace_back("target", options.target);
  if (!options.plan.empty()) batch.options.emplace_back("plan", options.plan);
  if (options.validate) batch.options.emplace_back("validate", "1");
  if (options.noPipelineCache) batch.options.emplace_back("pipeline_cache", "0");
  std::vector<const Item*> sent;
  for (const Item* item : pending) {
    try {
      checkDefaults(*item, model.inputs());
    } catch (const Exception& e) {
      progress.failed(*item, e.what(), e.exitCode());
      continue;
    }
    sent.push_back(item);
    DaskItem& task = batch.items.emplace_back();
    task.inputs = item->files;
    for (const fs::path& output : item->outputs) task.outputs.push_back(output.string());
  }
  if (!sent.empty()) {
    runOnDask(
        batch, [&](std::size_t) { progress.succeeded(); },
        [&](std::size_t index, int exitCode, const std::string& message) {
          progress.failed(*sent[index], message, exitCode);
        });
  }
  return progress.finish();
}

int runBatch(const BatchOptions& options) {
  for (const std::string& input : options.inputs) {
    std::error_code ec;
    if (!fs::exists(input, ec)) fail(ErrorCode::InvalidInput, fmt::format("{}: expected a .npy file or a folder, "
                                                                          "got nothing there", input));
  }
  checkWritableFolder(options.outputDir, "-o/--output-dir");
  if (!options.scheduler.empty()) return runOnScheduler(options);
  DevicePool pool = DevicePool::open(options.model, poolOptions(options));
  std::vector<const Item*> pending;
  const std::vector<Item> items = planItems(options, pool.inputs(), pool.outputs(), pending);
  if (!quiet()) {
    std::string devices;
    for (const Model& model : pool.models()) devices += (devices.empty() ? "" : ", ") + model.deviceName();
    std::fprintf(stderr, "batch: %zu items (%zu already written) on %s\n", items.size(), items.size() - pending.size(),
                 devices.c_str());
  }
  Progress progress(items.size(), items.size() - pending.size());
  runOnPool(pool, options, pending, progress);
  return progress.finish();
}

void setup(CLI::App& sub, Action& action) {
  auto options = std::make_shared<BatchOptions>();
  sub.add_option("model", options->model, "The model: a .tosa, .vgf or .pte, as `openvgf run` takes it")->required();
  sub.add_option("inputs", options->inputs,
                 "Input sets: .npy files (one-input models; a folder's .npy files are one item each) or folders "
                 "holding <input name>.npy for every input (a folder's sub-folders are one item each)")
      ->required();
  sub.add_option("-o,--output-dir", options->outputDir,
                 "Writes OUTDIR/<item>.npy (one-output models) or OUTDIR/<item>/<output name>.npy, atomically; "
                 "items whose outputs are all there are skipped, so an interrupted batch resumes")
      ->required();
  CLI::Option* devices = sub.add_option(
      "--devices", options->devices,
      "Devices to spread the items over: all (every device of the best kind), indices and name "
      "substrings separated by commas (0,1 or H200); default: the device `run` picks");
  CLI::Option* jobs = sub.add_option("--jobs", options->jobs, "Runs in flight per device (1..8)")
                          ->check(CLI::Range(1, 8))
                          ->capture_default_str();
  sub.add_option("--scheduler", options->scheduler,
                 "Run the items on a Dask cluster instead (tcp://HOST:PORT of a `dask scheduler` whose workers were "
                 "started with --resources VK=1, one per device): needs /usr/bin/python3 (or OPENVGF_PYTHON) with "
                 "python3-distributed and the openvgf Python package; the model path must be readable by every "
                 "worker; inputs are read and outputs written here. See docs/cluster.md")
      ->excludes(devices)
      ->excludes(jobs);
  sub.add_option("--target", options->target, "How a .tosa is converted: portable (default) or native")
      ->capture_default_str();
  sub.add_option("--plan", options->plan, "A .pte's execution plan (name or index)");
  sub.add_flag("--validate", options->validate, "Enable the Vulkan validation layer");
  sub.add_flag("--no-pipeline-cache", options->noPipelineCache, "Do not read or write the pipeline cache");
  sub.footer(
      "An item that fails (a bad .npy, a failed run) is named with its error and the batch goes on; the exit code "
      "is then that of the first failure (2 bad input, 1 otherwise). A summary line ends every batch: "
      "`batch: N done, N failed, N skipped (Ts)`. See docs/multi-device.md, and docs/cluster.md for --scheduler.");
  action = [options]() -> int { return runBatch(*options); };
}

OPENVGF_REGISTER_COMMAND({"batch", "Run a model on many input sets (.npy files or folders) over one or more devices",
                          45, setup});

}  // namespace
}  // namespace openvgf::cli
