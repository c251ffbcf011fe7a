// SPDX-License-Identifier: Apache-2.0
// Subcommand registry of the openvgf CLI. Each cli/<command>.cpp registers one subcommand;
// `inspect` and `run` dispatch on the detected file kind to handlers that register
// themselves the same way, so each format's CLI code lives in its own file.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "api/file_kind.h"
#include "common/error.h"
#include "openvgf/openvgf.hpp"
#include "tosa/host_tensor.h"

namespace openvgf::cli {

/// Errors of the commands written on the installed API are its exceptions; main() prints them.
[[noreturn]] inline void fail(ErrorCode code, const std::string& message) { throw Exception(code, message); }
template <typename T>
T orThrow(Result<T>&& result) {
  if (!result) fail(static_cast<ErrorCode>(static_cast<int>(result.error().kind()) + 1), result.error().message());
  return std::move(*result);
}

/// What a chosen subcommand runs after parsing. Returns the exit code (0 success; a
/// command may return 1 for a negative verdict such as a failed --check).
using Action = std::function<Result<int>()>;

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

/// File kinds, detected from content (magic bytes), never from the extension.
using api::FileKind;
using api::detectFileKind;
using api::describeFile;
using api::toString;

struct InspectOptions {
  std::string path;
  bool json = false;
  std::optional<int> dumpSpirv;     // --dump-spirv N
  std::optional<std::string> dumpConstant;  // --dump-constant N (VGF) or NAME|N (TOSA)
  std::string output;               // -o for dumps
};

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
};

using InspectHandler = std::function<Result<int>(const InspectOptions&, std::span<const std::uint8_t>)>;
using RunHandler = std::function<Result<int>(const RunOptions&, std::span<const std::uint8_t>)>;

bool registerInspectHandler(FileKind kind, InspectHandler handler);
bool registerRunHandler(FileKind kind, RunHandler handler);
const InspectHandler* findInspectHandler(FileKind kind);
const RunHandler* findRunHandler(FileKind kind);

/// -q/--quiet: commands print only what was asked for (listings, JSON, --stats, dumps) and
/// errors; no progress, summaries, previews or passing check lines.
void setQuiet(bool quiet);
bool quiet();

/// "NAME=FILE" -> {NAME, FILE}; "FILE" -> {"", FILE}. A '=' only splits when the part
/// before it is not an existing path.
std::pair<std::string, std::string> splitNamedInput(const std::string& argument);

/// The .npy file of each of the inputs `names` (the model `source`'s, in order) from the
/// --input `arguments`, bound by openvgf::bindInputs: "NAME=FILE" binds by name, plain files fill the
/// remaining inputs in order. Inputs in `defaults` not named take their default when fewer
/// files than inputs are given: their path is empty.
Result<std::vector<std::string>> bindInputPaths(std::string_view source, const std::vector<std::string>& arguments,
                                                const std::vector<std::string>& names,
                                                const std::map<std::string, tosa::HostTensor>& defaults = {});

/// Output file name for a tensor name: characters outside [A-Za-z0-9._-] become '_'.
std::string sanitizeFileName(std::string_view name);

/// DIR/<sanitized name>.npy for each output name, in order; an invalid-input error naming
/// `source` and both outputs when two names map to one file ('a/b' and 'a_b'), so that no
/// output overwrites another. The one rule for every command that writes outputs by name.
Result<std::vector<std::filesystem::path>> outputFiles(std::string_view source, const std::filesystem::path& dir,
                                                       const std::vector<std::string>& names);

}  // namespace openvgf::cli

#define OPENVGF_CLI_CONCAT_INNER(a, b) a##b
#define OPENVGF_CLI_CONCAT(a, b) OPENVGF_CLI_CONCAT_INNER(a, b)
#define OPENVGF_REGISTER_COMMAND(...) \
  static const bool OPENVGF_CLI_CONCAT(openvgf_command_, __LINE__) = ::openvgf::cli::registerCommand(__VA_ARGS__)
#define OPENVGF_REGISTER_INSPECT(kind, handler) \
  static const bool OPENVGF_CLI_CONCAT(openvgf_inspect_, __LINE__) = ::openvgf::cli::registerInspectHandler(kind, handler)
#define OPENVGF_REGISTER_RUN(kind, handler) \
  static const bool OPENVGF_CLI_CONCAT(openvgf_run_, __LINE__) = ::openvgf::cli::registerRunHandler(kind, handler)
