// SPDX-License-Identifier: Apache-2.0
// Shared by the API tests: the ADD fixture (tests/data/tosa/test_add_1x4x4x4_f32, with
// TensorFlow's inputs and result), model options for the test device with the validation
// layer on, scratch folders.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openvgf/openvgf.hpp"
#include "tosa/npy.h"

namespace openvgf::testing {

inline std::filesystem::path addDir() {
  return std::filesystem::path(OPENVGF_TEST_DATA) / "tosa" / "test_add_1x4x4x4_f32";
}
inline std::string addModel() { return (addDir() / "model.tosa").string(); }

inline std::vector<float> readFloats(const std::filesystem::path& npy) {
  Result<tosa::HostTensor> t = tosa::npy::readTensor(npy, tosa::DType::Fp32);
  EXPECT_TRUE(t) << t.error().message();
  if (!t) return {};
  std::span<const float> v = t->as<float>();
  return {v.begin(), v.end()};
}

/// The fixture adds a [1,4,4,1] input to a [1,4,4,4] one (broadcast along channels).
inline const Shape kAddShape0{1, 4, 4, 1};
inline const Shape kAddShape1{1, 4, 4, 4};

/// Element i of the ADD fixture's output, computed here.
inline float addResult(const Tensor& a, const Tensor& b, std::int64_t i) {
  return a.dataAs<float>()[i / 4] + b.dataAs<float>()[i];
}

/// TensorFlow's two inputs of the ADD fixture, in the graph's input order.
inline std::vector<Tensor> addInputs() {
  std::vector<float> a = readFloats(addDir() / "placeholder_0.npy");
  std::vector<float> b = readFloats(addDir() / "placeholder_1.npy");
  return {Tensor::copyOf(DataType::Float32, kAddShape0, a.data(), a.size() * sizeof(float)),
          Tensor::copyOf(DataType::Float32, kAddShape1, b.data(), b.size() * sizeof(float))};
}

inline std::string readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void writeBytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

/// A fresh folder for the running test, removed by the caller.
inline std::filesystem::path freshTestDir(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("openvgf-" + prefix + "-" + info->name() + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// The test device (OPENVGF_TEST_DEVICE, else lavapipe), validation on, caches under `cache`.
inline ModelOptions modelOptions(const std::filesystem::path& cache) {
  ModelOptions options;
  const char* device = std::getenv("OPENVGF_TEST_DEVICE");
  options.device = device != nullptr ? device : "llvmpipe";
  options.validate = true;
  options.cacheDir = cache.string();
  return options;
}

/// Owns a C API status for the duration of a check.
struct StatusGuard {
  openvgf_status* status;
  ~StatusGuard() { openvgf_status_free(status); }
};

/// Expects `body` to throw an openvgf::Exception with `code` whose message contains `text`.
template <typename Body>
void expectError(Body&& body, ErrorCode code, const std::string& text) {
  try {
    body();
    ADD_FAILURE() << "expected an exception containing: " << text;
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_THAT(e.what(), ::testing::HasSubstr(text));
    EXPECT_EQ(e.exitCode(), code == ErrorCode::InvalidInput || code == ErrorCode::Unsupported ? 2 : 1);
  }
}

}  // namespace openvgf::testing
