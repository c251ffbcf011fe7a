// SPDX-License-Identifier: Apache-2.0
#include "common/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace openvgf {
namespace {

// FIPS 180-4 example vectors.
TEST(Sha256, KnownVectors) {
  EXPECT_EQ(Sha256().update("").hexDigest(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256().update("abc").hexDigest(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256().update("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hexDigest(),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, IncrementalEqualsOneShot) {
  std::string million(1000000, 'a');
  Sha256 h;
  for (std::size_t i = 0; i < million.size(); i += 997) h.update(std::string_view(million).substr(i, 997));
  EXPECT_EQ(h.hexDigest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace openvgf
