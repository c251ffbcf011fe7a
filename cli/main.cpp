// SPDX-License-Identifier: Apache-2.0
// Entry point of the openvgf command: global flags, subcommand dispatch, and the one place
// where errors are printed. Exit codes: 0 success, 1 runtime/environment failure, 2 bad input
// or usage.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "command.h"

int main(int argc, char** argv) {
  using namespace openvgf;
  CLI::App app{
      "openvgf: convert TOSA 1.0 graphs to VGF and run them on any Vulkan 1.3 device.\n"
      "File kinds (.tosa, .vgf, .pte, Ethos-U streams, .npy) are detected from their content."};
  app.require_subcommand(1);
  app.fallthrough();  // global flags are accepted after the subcommand too
  app.set_version_flag("--version", std::string("openvgf ") + version());
  int verbosity = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbosity, "More log output (repeat for trace level)");
  app.add_flag("-q,--quiet", quiet, "Print only what was asked for (listings, JSON, --stats, dumps) and errors");

  std::vector<cli::Command> commands = cli::registeredCommands();
  std::stable_sort(commands.begin(), commands.end(),
                   [](const cli::Command& a, const cli::Command& b) { return a.order < b.order; });
  std::map<CLI::App*, cli::Action> actions;
  for (const cli::Command& command : commands) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    command.setup(*sub, actions[sub]);
  }

  // The first word that is not a flag names the subcommand (the global flags take no value).
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.starts_with("-")) continue;
    if (std::none_of(commands.begin(), commands.end(), [&](const cli::Command& c) { return c.name == word; })) {
      std::string names;
      for (const cli::Command& c : commands) names += (names.empty() ? "" : ", ") + c.name;
      std::fprintf(stderr, "openvgf: error: unknown command '%s': expected one of %s (see openvgf --help)\n",
                   word.c_str(), names.c_str());
      return 2;
    }
    break;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  auto logger = spdlog::stderr_color_mt("openvgf");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%l] %v");
  cli::setQuiet(quiet);
  spdlog::set_level(quiet ? spdlog::level::err
                          : verbosity >= 2 ? spdlog::level::trace
                          : verbosity == 1 ? spdlog::level::debug
                                           : spdlog::level::warn);

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
