// SPDX-License-Identifier: Apache-2.0
// The library's log level (openvgf::setLogLevel, openvgf_set_log_level, OPENVGF_LOG_LEVEL) and
// the public "did you mean" hint. Every layer logs through spdlog's default logger (one per
// process: Debian's libspdlog is a shared library), so the level is spdlog's global level.
// Messages go to stderr; the default level is Warn, not spdlog's Info: a program or a Python
// session that opens a model sees warnings and errors, not what the library did (`openvgf -v`
// shows that).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cctype>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "api/public_state.h"
#include "common/suggest.h"
#include "openvgf/openvgf.hpp"

namespace openvgf {
namespace {

constexpr LogLevel kLevels[] = {LogLevel::Trace, LogLevel::Debug, LogLevel::Info,
                                LogLevel::Warn,  LogLevel::Error, LogLevel::Off};

static_assert(static_cast<int>(LogLevel::Trace) == spdlog::level::trace);
static_assert(static_cast<int>(LogLevel::Debug) == spdlog::level::debug);
static_assert(static_cast<int>(LogLevel::Info) == spdlog::level::info);
static_assert(static_cast<int>(LogLevel::Warn) == spdlog::level::warn);
static_assert(static_cast<int>(LogLevel::Error) == spdlog::level::err);
static_assert(static_cast<int>(LogLevel::Off) == spdlog::level::off);

// When the library is loaded: spdlog's own default logger (stdout, with a date) becomes one on
// stderr that prints "[level] message" (a program that set its default logger keeps it), and
// the level is OPENVGF_LOG_LEVEL, else Warn.
const bool kInitialLevel = [] {
  if (spdlog::default_logger()->name().empty()) {
    auto logger = spdlog::stderr_color_mt("openvgf-library");
    logger->set_pattern("[%l] %v");
    spdlog::set_default_logger(std::move(logger));
  }
  setLogLevel(LogLevel::Warn);
  const char* env = std::getenv("OPENVGF_LOG_LEVEL");
  if (env == nullptr || *env == '\0') return true;
  try {
    setLogLevel(parseLogLevel(env));
  } catch (const Exception& e) {
    spdlog::warn("OPENVGF_LOG_LEVEL: {}; logging warnings and errors", e.what());
  }
  return true;
}();

}  // namespace

void setLogLevel(LogLevel level) { spdlog::set_level(static_cast<spdlog::level::level_enum>(level)); }

LogLevel logLevel() { return static_cast<LogLevel>(spdlog::get_level()); }

const char* toString(LogLevel level) {
  switch (level) {
    case LogLevel::Trace: return "trace";
    case LogLevel::Debug: return "debug";
    case LogLevel::Info: return "info";
    case LogLevel::Warn: return "warn";
    case LogLevel::Error: return "error";
    case LogLevel::Off: return "off";
  }
  return "warn";
}

LogLevel parseLogLevel(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::string> names;
  for (LogLevel level : kLevels) {
    if (lower == toString(level)) return level;
    names.emplace_back(toString(level));
  }
  raiseInvalid(fmt::format("log level: expected trace, debug, info, warn, error or off, got '{}'{}", name,
                           openvgf::didYouMean(lower, names)));
}

std::string didYouMean(const std::string& word, const std::vector<std::string>& choices) {
  return openvgf::didYouMean(std::string_view(word), choices);
}

}  // namespace openvgf
