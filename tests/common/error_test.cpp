// SPDX-License-Identifier: Apache-2.0
#include "common/error.h"

#include <gtest/gtest.h>

namespace openvgf {
namespace {

Result<int> fails() { return invalidInput("expected {}, got {}", 1, 2); }

Result<int> propagates() {
  OPENVGF_ASSIGN_OR_RETURN(int v, fails());
  return v + 1;
}

TEST(Error, ContextIsPrependedOutermostFirst) {
  Result<int> r = withContext(propagates(), "operator 3 (CONV2D)");
  ASSERT_FALSE(r);
  r.error().addContext("model.tosa");
  EXPECT_EQ(r.error().message(), "model.tosa: operator 3 (CONV2D): expected 1, got 2");
  EXPECT_EQ(r.error().exitCode(), 2);
}

TEST(Error, ExitCodesFollowKind) {
  EXPECT_EQ(Error(ErrorKind::Unsupported, "").exitCode(), 2);
  EXPECT_EQ(Error(ErrorKind::Environment, "").exitCode(), 1);
  EXPECT_EQ(Error(ErrorKind::Runtime, "").exitCode(), 1);
}

}  // namespace
}  // namespace openvgf
