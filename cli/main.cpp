// SPDX-License-Identifier: Apache-2.0
// Entry point of the openvgf command: global flags, subcommand dispatch, and the one place
// where errors are printed. Exit codes: 0 success, 1 runtime/environment failure, 2 bad input
// or usage. Words CLI11 would misreport (an unknown command, a mistyped flag that CLI11 would
// answer with "--input is required") are named first, with the nearest valid one.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "command.h"

namespace openvgf::cli {
namespace {

// Every name `app` takes as a flag: --long and -s, its own and the global ones.
std::vector<std::string> flagNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* level = &app; level != nullptr; level = level->get_parent()) {
    for (const CLI::Option* option : level->get_options()) {
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
      for (const std::string& name : option->get_snames()) names.push_back("-" + name);
    }
  }
  return names;
}

// A word that CLI11 reads as a flag: "-x...", "--name[=value]"; not "-" (stdin) or a
// negative number (a value).
bool isFlag(const std::string& word) {
  if (word.size() < 2 || word[0] != '-') return false;
  return !(std::isdigit(static_cast<unsigned char>(word[1])) != 0 || word[1] == '.');
}

// The flag a word names: "--name" of "--name=value", "-x" of "-xVALUE" or "-vv".
std::string flagOf(const std::string& word) {
  if (word.starts_with("--")) return word.substr(0, word.find('='));
  return word.substr(0, 2);
}

bool takesFlag(CLI::App& app, const std::string& flag) {
  for (CLI::App* level = &app; level != nullptr; level = level->get_parent()) {
    if (level->get_option_no_throw(flag) != nullptr) return true;
  }
  return false;
}

// The first word of the command line that names no command or flag, as the error to print.
std::optional<std::string> unknownWord(CLI::App& app, const std::vector<Command>& commands, int argc, char** argv) {
  std::vector<std::string> names;
  for (const Command& c : commands) names.push_back(c.name);
  CLI::App* sub = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;  // positional arguments only from here
    if (sub == nullptr && !isFlag(word)) {
      if (std::find(names.begin(), names.end(), word) == names.end()) {
        return fmt::format("unknown command '{}'{}: expected one of {} (see openvgf --help)", word,
                           didYouMean(word, names), fmt::join(names, ", "));
      }
      sub = app.get_subcommand(word);
      continue;
    }
    if (!isFlag(word)) continue;
    CLI::App& level = sub != nullptr ? *sub : app;
    const std::string flag = flagOf(word);
    if (takesFlag(level, flag)) continue;
    return fmt::format("{}unknown option '{}'{} (see openvgf {}--help)",
                       sub != nullptr ? sub->get_name() + ": " : "", flag, didYouMean(flag, flagNames(level)),
                       sub != nullptr ? sub->get_name() + " " : "");
  }
  return std::nullopt;
}

// -v / -q when given, else OPENVGF_LOG_LEVEL (read by the library), else warnings and errors.
void setVerbosity(int verbosity, bool quiet) {
  setQuiet(quiet);
  if (quiet) {
    setLogLevel(LogLevel::Error);
  } else if (verbosity > 0) {
    setLogLevel(verbosity >= 2 ? LogLevel::Trace : LogLevel::Debug);
  }
  auto logger = spdlog::stderr_color_mt("openvgf");
  logger->set_level(static_cast<spdlog::level::level_enum>(logLevel()));
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%l] %v");
}

}  // namespace
}  // namespace openvgf::cli

int main(int argc, char** argv) {
  using namespace openvgf;
  CLI::App app{
      "openvgf: convert TOSA 1.0 graphs to VGF and run them on any Vulkan 1.3 device.\n"
      "File kinds (.tosa, .vgf, .pte, Ethos-U streams, .npy) are detected from their content.\n"
      "Log output: -v, -q, or the environment variable OPENVGF_LOG_LEVEL (trace, debug, info, warn, error, off)."};
  app.require_subcommand(1);
  app.fallthrough();  // global flags are accepted after the subcommand too
  app.set_version_flag("--version", std::string("openvgf ") + version());
  int verbosity = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbosity, "More log output (repeat for trace level)");
  app.add_flag("-q,--quiet", quiet,
               "Print only what was asked for (listings, JSON, --stats, dumps) and errors: no 'wrote' lines or "
               "output previews");

  std::vector<cli::Command> commands = cli::registeredCommands();
  std::stable_sort(commands.begin(), commands.end(),
                   [](const cli::Command& a, const cli::Command& b) { return a.order < b.order; });
  std::map<CLI::App*, cli::Action> actions;
  for (const cli::Command& command : commands) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    command.setup(*sub, actions[sub]);
  }

  if (std::optional<std::string> unknown = cli::unknownWord(app, commands, argc, argv)) {
    std::fprintf(stderr, "openvgf: error: %s\n", unknown->c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  cli::setVerbosity(verbosity, quiet);

  for (auto& [sub, action] : actions) {
    if (!sub->parsed()) continue;
    if (!action) {
      std::fprintf(stderr, "openvgf: error: '%s' is not available in this build\n", sub->get_name().c_str());
      return 1;
    }
    try {
      return action();
    } catch (const Exception& e) {
      std::fprintf(stderr, "openvgf: error: %s\n", e.what());
      return e.exitCode();
    }
  }
  return 2;
}
