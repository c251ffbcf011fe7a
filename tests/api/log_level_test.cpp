// SPDX-License-Identifier: Apache-2.0
// The library's log level from C++ and C (issue 35 item 4): Warn when nothing sets it, so that
// opening a model (here Arm's GRAPH VGF, lowered and then taken from the cache) prints nothing;
// Info shows what the library did. One state for both APIs; level names parsed with a hint.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openvgf/openvgf.h"
#include "openvgf/openvgf.hpp"

namespace openvgf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kArmGraph = std::string(OPENVGF_TEST_DATA) + "/vgf-graph/simple_conv2d_rescale_graph.vgf";

// First in this file: nothing has set a level yet (ctest sets no OPENVGF_LOG_LEVEL).
TEST(LogLevel, LibraryUseLogsOnlyWarningsUntilAskedForMore) {
  ASSERT_EQ(std::getenv("OPENVGF_LOG_LEVEL"), nullptr);
  EXPECT_EQ(logLevel(), LogLevel::Warn);
  const std::filesystem::path cache = std::filesystem::temp_directory_path() / ("openvgf-log-" + std::to_string(::getpid()));
  std::filesystem::remove_all(cache);
  ModelOptions options;
  options.cacheDir = cache.string();
  ::testing::internal::CaptureStderr();
  Model::open(kArmGraph, options);  // lowers the GRAPH segments
  Model::open(kArmGraph, options);  // from the cache
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");

  setLogLevel(LogLevel::Info);
  ::testing::internal::CaptureStderr();
  const Model model = Model::open(kArmGraph, options);
  const std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(model.fromCache());
  EXPECT_THAT(logged, HasSubstr("[info] " + kArmGraph + ": lowered VGF from the cache"));
  setLogLevel(LogLevel::Warn);
  std::filesystem::remove_all(cache);
}

TEST(LogLevel, CAndCppShareOneLevel) {
  openvgf_set_log_level(OPENVGF_LOG_DEBUG);
  EXPECT_EQ(logLevel(), LogLevel::Debug);
  setLogLevel(LogLevel::Off);
  EXPECT_EQ(openvgf_get_log_level(), OPENVGF_LOG_OFF);
  openvgf_set_log_level(static_cast<openvgf_log_level>(5));  // no such level: ignored
  EXPECT_EQ(openvgf_get_log_level(), OPENVGF_LOG_OFF);
  setLogLevel(LogLevel::Warn);
}

TEST(LogLevel, NamesAreParsedWithAHint) {
  EXPECT_EQ(parseLogLevel("Trace"), LogLevel::Trace);
  EXPECT_EQ(parseLogLevel("off"), LogLevel::Off);
  for (LogLevel level : {LogLevel::Trace, LogLevel::Debug, LogLevel::Info, LogLevel::Warn, LogLevel::Error, LogLevel::Off}) {
    EXPECT_EQ(parseLogLevel(toString(level)), level);
  }
  try {
    parseLogLevel("eror");
    FAIL() << "expected InvalidInput";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
    EXPECT_THAT(std::string(e.what()), HasSubstr("expected trace, debug, info, warn, error or off, got 'eror' (did you "
                                                 "mean 'error'?)"));
  }
  EXPECT_EQ(didYouMean("conver", {"convert", "inspect", "run"}), " (did you mean 'convert'?)");
  EXPECT_EQ(didYouMean("--inptu", {"--input", "--output"}), " (did you mean '--input'?)");
  EXPECT_EQ(didYouMean("zzz", {"convert", "inspect", "run"}), "");
}

}  // namespace
}  // namespace openvgf
