// SPDX-License-Identifier: Apache-2.0
// Subcommand registry of the openvgf CLI. Each cli/<command>.cpp registers one subcommand and
// is written on the installed API (openvgf/openvgf.hpp) alone: errors are its exceptions,
// which main() prints with their exit code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "openvgf/openvgf.hpp"

namespace openvgf::cli {

[[noreturn]] inline void fail(ErrorCode code, const std::string& message) { throw Exception(code, message); }

/// What a chosen subcommand runs after parsing. Returns the exit code (0 success; a
/// command may return 1 for a negative verdict such as a failed --check); errors are thrown.
using Action = std::function<int()>;

struct Command {
  std::string name;
  std::string description;
  int order = 100;  // position in --help
  /// Adds options to `sub` and sets `action` (called once, before parsing).
  std::function<void(CLI::App& sub, Action& action)> setup;
};

/// Called from static initialisers; see OPENVGF_REGISTER_COMMAND.
bool registerCommand(Command command);
const std::vector<Command>& registeredCommands();

struct RunOptions {
  std::string path;
  std::vector<std::string> inputs;  // [NAME=]FILE.npy
  std::string output;               // --output FILE.npy (single output)
  std::string outputDir;            // --output-dir DIR
  std::string device;               // --device N|substring
  int repeat = 1;
  std::string profile;              // --profile trace.json
  bool validate = false;
  std::string check;                // --check model.tosa
  bool checkSelf = false;           // --check without a file: the graph the model itself carries
  bool noPipelineCache = false;
  bool pipelineStats = false;       // --pipeline-stats: print the driver's statistics of each pipeline
  std::string target = "portable";  // --target: how a .tosa is converted and GRAPH segments lowered
  std::string plan;                 // --plan: the .pte execution plan ("" = the only one, or forward)
  std::string dump;                 // --dump DIR: every tensor of the run (cli/debug.h)
  // Inputs people have (cli/inputs.h).
  std::vector<double> mean;         // --mean: per channel, for image inputs
  std::vector<double> stddev;       // --std
  std::string layout;               // --layout nhwc|nchw ("" = from the input's shape)
  std::optional<std::uint64_t> randomSeed;  // --random-inputs [SEED]
  int topK = 0;                     // --top-k K
};

/// `openvgf run` once its options are parsed and checked (run_vgf.cpp): opens the model with
/// Model::open, which tells a Vulkan model from an Ethos-U one, and runs it.
int runModel(const RunOptions& options);

/// -q/--quiet: commands print only what was asked for (listings, JSON, --stats, dumps) and
/// errors; no progress, summaries, previews or passing check lines.
void setQuiet(bool quiet);
bool quiet();

/// A check for a numeric option whose message says the valid range in words ("expected a
/// whole number of at least 1, got '0'"), not CLI11's range up to the type's maximum.
/// With `above`, the minimum itself is refused ("a number above 0").
CLI::Validator atLeast(double minimum, bool whole = true, bool above = false);
/// A check for an option that takes one of `choices`: "expected auto or host, got 'hots' (did
/// you mean 'host'?)".
CLI::Validator oneOf(std::vector<std::string> choices);

/// The median of timing samples (the mean of the middle two for an even count); at least one.
double median(std::vector<double> samples);

/// `text` as a JSON string literal, quotes included (names and paths are free text).
std::string jsonString(const std::string& text);

/// "812 bytes", "12.3 kB", "1.2 MB" (powers of 1000).
std::string sizeText(std::uint64_t bytes);

/// Prints (unless -q) one line per output of a run: the file it was written to (`files[i]`,
/// "" = not written), its name, type, shape, min / max / mean and its first values; when none
/// was written, a last line says how to write them. The success report of `run`.
void reportOutputs(const std::vector<TensorInfo>& infos, const std::vector<Tensor>& outputs,
                   const std::vector<std::string>& files);
/// The files `run` writes the outputs of `model` to: --output (one output), each
/// --output-dir file (outputFiles), or none.
std::vector<std::string> outputPaths(const RunOptions& options, const Model& model);

/// "NAME=FILE" -> {NAME, FILE}; "FILE" -> {"", FILE}. A '=' only splits when the part
/// before it is not an existing path.
std::pair<std::string, std::string> splitNamedInput(const std::string& argument);

/// Output file name for a tensor name: characters outside [A-Za-z0-9._-] become '_'.
std::string sanitizeFileName(std::string_view name);

/// DIR/<sanitized name>.npy for each output name, in order; InvalidInput naming `source` and
/// both outputs when two names map to one file ('a/b' and 'a_b'), so that no output
/// overwrites another. The one rule for every command that writes outputs by name.
std::vector<std::filesystem::path> outputFiles(std::string_view source, const std::filesystem::path& dir,
                                               const std::vector<std::string>& names);

}  // namespace openvgf::cli

#define OPENVGF_CLI_CONCAT_INNER(a, b) a##b
#define OPENVGF_CLI_CONCAT(a, b) OPENVGF_CLI_CONCAT_INNER(a, b)
#define OPENVGF_REGISTER_COMMAND(...) \
  static const bool OPENVGF_CLI_CONCAT(openvgf_command_, __LINE__) = ::openvgf::cli::registerCommand(__VA_ARGS__)
