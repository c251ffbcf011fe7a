// SPDX-License-Identifier: Apache-2.0
// Debugging a model through the openvgf command (docs/debugging.md): `run --dump` writes every
// tensor the operators compute, `compare` reports error figures of two arrays and the first
// operator of a model whose output leaves its tolerance. Runs the binary on lavapipe; expected
// values are computed here by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <jpeglib.h>
#include <png.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_runner.h"
#include "tosa/builder.h"
#include "tosa/npy.h"
#include "tosa/reader.h"
#include "tosa/writer.h"
#include "vgf/decoder.h"

namespace openvgf {
namespace {

using testing::CommandResult;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::runCli;
namespace fs = std::filesystem;

class Debug : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("openvgf-debug-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
            "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cache");
    env_ = "XDG_CACHE_HOME=" + (dir_ / "cache").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  CommandResult run(const std::string& arguments) const { return runCli(arguments, env_); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return path(name);
  }
  std::string read(const std::string& name) const {
    std::ifstream in(dir_ / name, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  static tosa::HostTensor ints(std::vector<std::int32_t> values) {
    tosa::HostTensor t(tosa::DType::Int32, {1, static_cast<std::int64_t>(values.size())});
    for (std::size_t i = 0; i < values.size(); ++i) t.as<std::int32_t>()[i] = values[i];
    return t;
  }
  static tosa::HostTensor floats(std::vector<float> values, tosa::Shape shape) {
    tosa::HostTensor t(tosa::DType::Fp32, std::move(shape));
    for (std::size_t i = 0; i < values.size(); ++i) t.as<float>()[i] = values[i];
    return t;
  }
  std::string writeNpy(const std::string& name, const tosa::HostTensor& t) const {
    EXPECT_TRUE(tosa::npy::writeTensor(dir_ / name, t));
    return path(name);
  }
  std::vector<std::int32_t> readInts(const std::string& name) const {
    Result<tosa::HostTensor> t = tosa::npy::readTensor(dir_ / name, tosa::DType::Int32);
    EXPECT_TRUE(t) << name << ": " << (t ? "" : t.error().message());
    if (!t) return {};
    return {t->as<std::int32_t>().begin(), t->as<std::int32_t>().end()};
  }

  // a = x + c1; m = a * c2; y = m - c3 (int32 [1,4]); `c2` is the MUL's constant.
  std::string writeChain(const std::string& name, std::vector<std::int32_t> c2) const {
    tosa::Builder b;
    tosa::Value x = b.input("x", tosa::DType::Int32, {1, 4});
    tosa::Value a = b.add(x, b.constant(ints({1, 2, 3, 4}), "c1"), "a");
    tosa::Value m = b.mul(a, b.constant(ints(std::move(c2)), "c2"), 0, "layer/m");
    tosa::Value y = b.sub(m, b.constant(ints({5, 5, 5, 5}), "c3"), "y");
    b.output(y);
    EXPECT_TRUE(b.write(dir_ / name));
    return path(name);
  }

  // y = x + 0 (float) or y = int32(x) (int8): the output is the input value the command made.
  std::string writeIdentity(const std::string& name, tosa::DType dtype, tosa::Shape shape) const {
    tosa::Builder b;
    tosa::Value x = b.input("image", dtype, shape);
    // TOSA adds INT32 and floats only: an INT8 input is cast to INT32, which keeps its value.
    b.output(dtype == tosa::DType::Int8 ? b.cast(x, tosa::DType::Int32, "y")
                                        : b.add(x, b.splat(dtype, shape, 0.0, "zero"), "y"));
    EXPECT_TRUE(b.write(dir_ / name));
    return path(name);
  }

  // An 8-bit RGB PNG written with libpng; rgb[(y * width + x) * 3 + c].
  std::string writePng(const std::string& name, std::uint32_t width, std::uint32_t height,
                       const std::vector<std::uint8_t>& rgb) const {
    png_image image;
    std::memset(&image, 0, sizeof(image));
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = PNG_FORMAT_RGB;
    EXPECT_TRUE(png_image_write_to_file(&image, path(name).c_str(), 0, rgb.data(), 0, nullptr))
        << image.message;
    return path(name);
  }

  // A JPEG of one colour, quality 100, written with libjpeg.
  std::string writeJpeg(const std::string& name, int width, int height, const std::uint8_t rgb[3]) const {
    std::FILE* file = std::fopen(path(name).c_str(), "wb");
    jpeg_compress_struct info;
    jpeg_error_mgr error;
    info.err = jpeg_std_error(&error);
    jpeg_create_compress(&info);
    jpeg_stdio_dest(&info, file);
    info.image_width = static_cast<JDIMENSION>(width);
    info.image_height = static_cast<JDIMENSION>(height);
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, 100, TRUE);
    jpeg_start_compress(&info, TRUE);
    std::vector<std::uint8_t> row(static_cast<std::size_t>(width) * 3);
    for (int x = 0; x < width; ++x) std::memcpy(&row[static_cast<std::size_t>(x) * 3], rgb, 3);
    while (info.next_scanline < info.image_height) {
      JSAMPROW r = row.data();
      jpeg_write_scanlines(&info, &r, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    std::fclose(file);
    return path(name);
  }

  std::vector<float> readFloats(const std::string& name) const {
    Result<tosa::HostTensor> t = tosa::npy::readTensor(dir_ / name, tosa::DType::Fp32);
    EXPECT_TRUE(t) << name << ": " << (t ? "" : t.error().message());
    if (!t) return {};
    return {t->as<float>().begin(), t->as<float>().end()};
  }

  fs::path dir_;
  std::string env_;
};

// A test pattern: every channel of every pixel differs.
std::vector<std::uint8_t> pattern(std::uint32_t width, std::uint32_t height) {
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width) * height * 3);
  for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<std::uint8_t>((i * 37 + 11) % 256);
  return rgb;
}

// Every tensor the operators compute is written, named by its tensor name (sanitised), with
// the values the graph defines: x = [10, 20, 30, 40].
TEST_F(Debug, RunDumpWritesEveryComputedTensor) {
  const std::string model = writeChain("chain.tosa", {2, 3, 4, 5});
  const std::string x = writeNpy("x.npy", ints({10, 20, 30, 40}));
  CommandResult r =
      run("run " + model + " -i " + x + " -o " + path("y.npy") + " --dump " + path("dump") + " --validate");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(readInts("dump/a.npy"), (std::vector<std::int32_t>{11, 22, 33, 44}));
  EXPECT_EQ(readInts("dump/layer_m.npy"), (std::vector<std::int32_t>{22, 66, 132, 220}));
  EXPECT_EQ(readInts("dump/y.npy"), (std::vector<std::int32_t>{17, 61, 127, 215}));
  EXPECT_EQ(readInts("y.npy"), readInts("dump/y.npy"));  // -o still writes the graph's own output only
  const std::string index = read("dump/index.json");
  EXPECT_THAT(index,
              HasSubstr(R"("file": "layer_m.npy", "tensor": "layer/m", "shape": [1, 4], "dtype": "INT32", )"
                        R"("operator": "MUL", "operatorIndex": 4, "graphOutput": false)"));
  EXPECT_THAT(index, HasSubstr(R"("tensor": "y", "shape": [1, 4], "dtype": "INT32", "operator": "SUB")"));
  EXPECT_LT(index.find("\"a.npy\""), index.find("\"layer_m.npy\""));  // operator order
  // Constants are not computed tensors.
  EXPECT_FALSE(fs::exists(dir_ / "dump" / "c1.npy"));
}

// A model whose kernels were fused and whose intermediates share memory has none to dump.
TEST_F(Debug, RunDumpRefusesAVgf) {
  const std::string model = writeChain("chain.tosa", {2, 3, 4, 5});
  ASSERT_EQ(run("convert " + model + " -o " + path("chain.vgf")).exitCode, 0);
  CommandResult r = run("run " + path("chain.vgf") + " -i " + writeNpy("x.npy", ints({1, 2, 3, 4})) +
                        " --dump " + path("dump"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("chain.vgf: keeping intermediate tensors (run --dump, compare): expected a .tosa"));
}

TEST_F(Debug, CompareArraysReportsTosaErrorFigures) {
  const float next = std::nextafter(2.0f, 3.0f);  // 1 ulp above 2 in FP32
  const std::string a = writeNpy("a.npy", floats({1, 2, 3, 4}, {2, 2}));
  const std::string b = writeNpy("b.npy", floats({1, next, 3, 4}, {2, 2}));
  CommandResult same = run("compare " + a + " " + a);
  EXPECT_EQ(same.exitCode, 0) << same.output;
  EXPECT_THAT(same.output, HasSubstr("PASS (4 elements within exact; max abs error 0, max FP32 ulp error 0"));
  CommandResult differ = run("compare " + b + " " + a);
  EXPECT_EQ(differ.exitCode, 1) << differ.output;
  EXPECT_THAT(differ.output,
              HasSubstr("FAIL (1 of 4 elements beyond exact; max abs error 2.38419e-07, max FP32 ulp "
                        "error 1, max relative error 1.19e-07; first at [0,1]: 2.00000024 "
                        "expected 2)"));
  CommandResult tolerated = run("compare " + b + " " + a + " --ulp 1");
  EXPECT_EQ(tolerated.exitCode, 0) << tolerated.output;
  EXPECT_THAT(tolerated.output, HasSubstr("PASS (4 elements within 1 ulp or 0 absolute"));
  // Integers: exact, no ulp figure; the values, not the NumPy types, are compared.
  const std::string i = writeNpy("i.npy", ints({1, 2, 3, 4}));
  tosa::HostTensor f = floats({1, 2, 3, 5}, {1, 4});
  CommandResult mixed = run("compare " + i + " " + writeNpy("f.npy", f));
  EXPECT_EQ(mixed.exitCode, 1) << mixed.output;
  EXPECT_THAT(mixed.output,
              HasSubstr("FAIL (1 of 4 elements beyond exact; max abs error 1, max FP32 ulp error"));
  CommandResult shapes = run("compare " + a + " " + i);
  EXPECT_EQ(shapes.exitCode, 2) << shapes.output;
  EXPECT_THAT(shapes.output, HasSubstr("shape: expected arrays of one shape, got (2, 2) and (1, 4)"));
  CommandResult ints = run("compare " + i + " " + i + " --ulp 1");
  EXPECT_EQ(ints.exitCode, 2) << ints.output;
  EXPECT_THAT(ints.output, HasSubstr("ulp tolerance: expected a TOSA float type"));
}

// Image preprocessing, computed here independently: float inputs take (p / 255 - mean) / std
// per channel, NHWC; an NCHW input (its second dimension 3) takes the channel planes.
TEST_F(Debug, ImageInputsArePreprocessedAsDocumented) {
  const std::vector<std::uint8_t> rgb = pattern(5, 3);
  const std::string png = writePng("img.png", 5, 3, rgb);
  const double mean[3] = {0.485, 0.456, 0.406};
  const double stddev[3] = {0.229, 0.224, 0.225};
  const std::string nhwc = writeIdentity("nhwc.tosa", tosa::DType::Fp32, {1, 3, 5, 3});
  CommandResult r = run("run " + nhwc + " --input image=" + png +
                        " --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225 -o " + path("y.npy"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::vector<float> expected;
  for (std::size_t i = 0; i < rgb.size(); ++i) {
    expected.push_back(static_cast<float>((rgb[i] / 255.0 - mean[i % 3]) / stddev[i % 3]));
  }
  EXPECT_EQ(readFloats("y.npy"), expected);

  const std::string nchw = writeIdentity("nchw.tosa", tosa::DType::Fp32, {1, 3, 3, 5});
  r = run("run " + nchw + " --input " + png + " -o " + path("c.npy"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::vector<float> planes;
  for (std::size_t c = 0; c < 3; ++c) {
    for (std::size_t p = 0; p < 15; ++p) planes.push_back(static_cast<float>(rgb[p * 3 + c] / 255.0));
  }
  EXPECT_EQ(readFloats("c.npy"), planes);
  // --layout nhwc on an input whose last dimension is not a channel count is refused.
  r = run("run " + nchw + " --input " + png + " --layout nhwc");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("img.png: input 'image': expected 1, 3 or 4 channels (NHWC), got 5"));
}

// A 4x4 image resized to 2x2 by bilinear interpolation with half-pixel centres: each output
// pixel is the mean of a 2x2 block. INT8 inputs take round(pixel) - 128.
TEST_F(Debug, ImagesAreResizedBilinearAndInt8TakesPixelMinus128) {
  const std::vector<std::uint8_t> rgb = pattern(4, 4);
  const std::string png = writePng("img.png", 4, 4, rgb);
  const std::string model = writeIdentity("small.tosa", tosa::DType::Fp32, {1, 2, 2, 3});
  CommandResult r = run("run " + model + " --input " + png + " -o " + path("y.npy"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::vector<float> expected;
  std::vector<std::int32_t> quantised;
  for (std::size_t y = 0; y < 2; ++y) {
    for (std::size_t x = 0; x < 2; ++x) {
      for (std::size_t c = 0; c < 3; ++c) {
        double sum = 0;
        for (std::size_t dy = 0; dy < 2; ++dy) {
          for (std::size_t dx = 0; dx < 2; ++dx) sum += rgb[((2 * y + dy) * 4 + 2 * x + dx) * 3 + c];
        }
        expected.push_back(static_cast<float>(sum / 4 / 255.0));
        quantised.push_back(static_cast<std::int32_t>(std::round(sum / 4)) - 128);
      }
    }
  }
  std::vector<float> got = readFloats("y.npy");
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-6) << i;

  const std::string int8 = writeIdentity("int8.tosa", tosa::DType::Int8, {1, 2, 2, 3});
  r = run("run " + int8 + " --input " + png + " -o " + path("q.npy"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  Result<tosa::HostTensor> q = tosa::npy::readTensor(dir_ / "q.npy", tosa::DType::Int32);
  ASSERT_TRUE(q) << q.error().message();
  EXPECT_EQ(std::vector<std::int32_t>(q->as<std::int32_t>().begin(), q->as<std::int32_t>().end()), quantised);
  r = run("run " + int8 + " --input " + png + " --mean 0.5");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("mean / std: expected a float input, got INT8"));
}

TEST_F(Debug, JpegInputsAreDecoded) {
  const std::uint8_t colour[3] = {200, 100, 50};
  const std::string jpeg = writeJpeg("flat.jpg", 16, 16, colour);
  const std::string model = writeIdentity("m.tosa", tosa::DType::Fp32, {1, 16, 16, 3});
  CommandResult r = run("run " + model + " --input " + jpeg + " -o " + path("y.npy"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::vector<float> got = readFloats("y.npy");
  ASSERT_EQ(got.size(), 16u * 16 * 3);
  // JPEG is lossy: a flat colour comes back within 2 levels.
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i] * 255.0, colour[i % 3], 2.0) << i;
  write("broken.png", "\x89PNG\r\n\x1a\n truncated");
  r = run("run " + model + " --input " + path("broken.png"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("broken.png: PNG: "));
}

// Raw files with a shape and type, seeded random inputs and --top-k on the int32 chain
// (y = (x + [1,2,3,4]) * [2,3,4,5] - 5).
TEST_F(Debug, RawRandomAndTopK) {
  const std::string model = writeChain("chain.tosa", {2, 3, 4, 5});
  const std::int32_t x[4] = {10, 20, 30, 40};
  write("x.bin", std::string(reinterpret_cast<const char*>(x), sizeof(x)));
  CommandResult r =
      run("run " + model + " --input x=" + path("x.bin") + ":1x4:int32 -o " + path("y.npy") + " --top-k 2");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(readInts("y.npy"), (std::vector<std::int32_t>{17, 61, 127, 215}));
  EXPECT_THAT(r.output, HasSubstr("y: top 2: 3 (215), 2 (127)"));
  r = run("run " + model + " --input " + path("x.bin") + ":1x5:int32");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("x.bin: expected 20 bytes (1x5 x int32), got 16"));

  ASSERT_EQ(run("run " + model + " --random-inputs 7 -o " + path("r1.npy") + " --check").exitCode, 0);
  ASSERT_EQ(run("run " + model + " --random-inputs 7 -o " + path("r2.npy")).exitCode, 0);
  ASSERT_EQ(run("run " + model + " --random-inputs 8 -o " + path("r3.npy")).exitCode, 0);
  EXPECT_EQ(readInts("r1.npy"), readInts("r2.npy"));
  EXPECT_NE(readInts("r1.npy"), readInts("r3.npy"));
  r = run("run " + model + " --random-inputs seven");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--random-inputs: expected a whole number (the seed), got 'seven'"));
}

// The model's GPU run against the reference interpreter on a graph whose MUL constant differs
// (the constant the GPU sees was corrupted): the MUL is named, not the ADD before it nor the
// SUB after it, which differs only because the MUL does. Operators are numbered by their
// position in the main block, the builder's CONST operators included (ADD 1, MUL 4, SUB 6).
TEST_F(Debug, CompareModelNamesTheFirstOperatorBeyondTolerance) {
  const std::string good = writeChain("good.tosa", {2, 3, 4, 5});
  const std::string bad = writeChain("bad.tosa", {2, 3, 9, 5});
  const std::string x = writeNpy("x.npy", ints({10, 20, 30, 40}));
  CommandResult same = run("compare " + good + " -i " + x);
  EXPECT_EQ(same.exitCode, 0) << same.output;
  EXPECT_THAT(same.output,
              HasSubstr("all 3 computed tensors within TOSA's tolerance of the reference interpreter"));
  CommandResult differ = run("compare " + bad + " -i " + x + " --against model:" + good + " --all");
  EXPECT_EQ(differ.exitCode, 1) << differ.output;
  EXPECT_THAT(differ.output,
              HasSubstr("first difference at operator 4 MUL -> 'layer/m' [1,4] INT32: 1 of 4 elements "
                        "beyond tolerance (EXACT check), max abs error 165\n  layer/m: FAIL"));
  EXPECT_THAT(
      differ.output,
      HasSubstr("2 of 3 computed tensors beyond tolerance against the reference interpreter on " + good));
  EXPECT_THAT(differ.output, HasSubstr("operator 1 ADD -> 'a' [1,4] INT32: a: PASS"));
  // The corrupted model against its own graph: the device computes what the graph says.
  EXPECT_EQ(run("compare " + bad + " --random-inputs").exitCode, 0);
  CommandResult wrong = run("compare " + bad + " -i " + x + " --against device:1");
  EXPECT_EQ(wrong.exitCode, 2) << wrong.output;
  EXPECT_THAT(wrong.output, HasSubstr("--against: expected reference or model:OTHER.tosa, got 'device:1'"));
}

// --per-operator judges each operator alone on the device's own values of its inputs: the MUL
// whose constant differs from the reference graph's fails (its figures as computed by hand:
// a = [11,22,33,44], 33 * 9 - 33 * 4 = 165), while the SUB after it, fed the device's wrong
// `layer/m`, computes what TOSA says of that input and passes.
TEST_F(Debug, ComparePerOperatorNamesOnlyTheOperatorThatIsWrong) {
  const std::string good = writeChain("good.tosa", {2, 3, 4, 5});
  const std::string bad = writeChain("bad.tosa", {2, 3, 9, 5});
  const std::string x = writeNpy("x.npy", ints({10, 20, 30, 40}));
  CommandResult same = run("compare " + good + " -i " + x + " --per-operator");
  EXPECT_EQ(same.exitCode, 0) << same.output;
  EXPECT_THAT(same.output, HasSubstr(good + ": 3 of 3 operators within TOSA's per-operator tolerance on the "
                                            "device's own inputs, against the reference interpreter on "));
  CommandResult differ = run("compare " + bad + " -i " + x + " --against model:" + good + " --per-operator --all");
  EXPECT_EQ(differ.exitCode, 1) << differ.output;
  EXPECT_THAT(differ.output, HasSubstr("operator 1 ADD: a: PASS"));
  EXPECT_THAT(differ.output, HasSubstr("operator 4 MUL: layer/m: FAIL (max abs error 165;"));
  EXPECT_THAT(differ.output, HasSubstr("operator 6 SUB: y: PASS"));
  EXPECT_THAT(differ.output, HasSubstr("2 of 3 operators within TOSA's per-operator tolerance on the device's own "
                                       "inputs, against the reference interpreter on " + good));
  EXPECT_THAT(differ.output, HasSubstr(bad + ": first failing operator: operator 4 MUL -> 'layer/m' [1,4] INT32: 1 of 4 "
                                             "elements beyond tolerance (EXACT check), max abs error 165"));
  // Without --all only what fails is listed.
  CommandResult failing = run("compare " + bad + " -i " + x + " --against model:" + good + " --per-operator");
  EXPECT_EQ(failing.exitCode, 1) << failing.output;
  EXPECT_THAT(failing.output, HasSubstr("operator 4 MUL: layer/m: FAIL"));
  EXPECT_THAT(failing.output, Not(HasSubstr("PASS")));
}

// y = x * c - x * c is 0 everywhere: the tolerance the two MULs' rounding propagates to y is at
// least |y|, so tensor by tensor y cannot be judged (exit 3), while each operator on its own
// inputs can: all three pass.
TEST_F(Debug, ComparePerOperatorJudgesWhatTheChainedToleranceCannot) {
  tosa::Builder b;
  tosa::Value x = b.input("x", tosa::DType::Fp32, {1, 4});
  tosa::Value c = b.constant(floats({0.1f, 0.3f, 0.7f, 1.3f}, {1, 4}), "c");
  tosa::Value y = b.sub(b.mul(x, c, 0, "a"), b.mul(x, c, 0, "b"), "y");
  b.output(y);
  ASSERT_TRUE(b.write(dir_ / "cancel.tosa"));
  const std::string model = path("cancel.tosa");
  const std::string input = writeNpy("x.npy", floats({1.1f, -2.3f, 3.7f, 5.9f}, {1, 4}));
  CommandResult checked = run("run " + model + " -i " + input + " --check");
  EXPECT_EQ(checked.exitCode, 3) << checked.output;
  EXPECT_THAT(checked.output, HasSubstr("`openvgf compare MODEL.tosa --per-operator` judges each operator"));
  CommandResult tensors = run("compare " + model + " -i " + input);
  EXPECT_EQ(tensors.exitCode, 3) << tensors.output;
  EXPECT_THAT(tensors.output, HasSubstr("--per-operator judges each operator on the device's own inputs instead"));
  CommandResult operators = run("compare " + model + " -i " + input + " --per-operator --all");
  EXPECT_EQ(operators.exitCode, 0) << operators.output;
  EXPECT_THAT(operators.output, HasSubstr("y: PASS"));
  EXPECT_THAT(operators.output, HasSubstr("3 of 3 operators within TOSA's per-operator tolerance"));
  EXPECT_THAT(operators.output, Not(HasSubstr("INCONCLUSIVE")));
}

// An operator that reads EXT-VARIABLE state (the builder's IDENTITY of the variable) is not
// judged alone (its value depends on the whole run): the verdict names it and is no PASS
// (exit 3); the ADD after it is judged.
TEST_F(Debug, ComparePerOperatorNamesWhatItCannotJudge) {
  tosa::Builder b;
  tosa::Value x = b.input("x", tosa::DType::Int32, {1, 4});
  tosa::Value v = b.variable("acc", ints({1, 2, 3, 4}));
  tosa::Value y = b.add(x, b.variableRead(v, "acc_value"), "y");
  b.variableWrite(v, y);
  b.output(y);
  ASSERT_TRUE(b.write(dir_ / "state.tosa"));
  const std::string x4 = writeNpy("x.npy", ints({10, 20, 30, 40}));
  CommandResult r = run("compare " + path("state.tosa") + " -i x=" + x4 + " --per-operator --all");
  EXPECT_EQ(r.exitCode, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("operator 0 IDENTITY: NOT JUDGED per operator: expected no EXT-VARIABLE state"));
  EXPECT_THAT(r.output, HasSubstr("ADD: y: PASS"));
  EXPECT_THAT(r.output, HasSubstr("1 of 2 operators within TOSA's per-operator tolerance"));
  EXPECT_THAT(r.output, HasSubstr("; 1 not judged: operator 0 IDENTITY\n"));
  EXPECT_THAT(r.output, Not(HasSubstr("first failing")));
}

TEST_F(Debug, ComparePerOperatorRefusesWhatHasNoOperators) {
  const std::string a = writeNpy("a.npy", floats({1, 2}, {2}));
  CommandResult arrays = run("compare " + a + " " + a + " --per-operator");
  EXPECT_EQ(arrays.exitCode, 2) << arrays.output;
  EXPECT_THAT(arrays.output, HasSubstr("--per-operator: expected MODEL.tosa, got two arrays"));
  const std::string chain = writeChain("chain.tosa", {2, 3, 4, 5});
  ASSERT_EQ(run("convert " + chain + " -o " + path("chain.vgf")).exitCode, 0);
  CommandResult vgf = run("compare " + path("chain.vgf") + " --random-inputs --per-operator");
  EXPECT_EQ(vgf.exitCode, 2) << vgf.output;
  EXPECT_THAT(vgf.output, HasSubstr("chain.vgf: keeping intermediate tensors (run --dump, compare): expected a .tosa"));
}

#ifdef OPENVGF_ZOO
// The zoo's MobileNetV2 at 32x32, written and converted once for both parts below (its
// shaders compile once: the parts share the test's caches).
TEST_F(Debug, ZooMobileNetV2TakesAPngAsItsNpyAndItsCheckIsNoPass) {
  CommandResult zoo = testing::runCommand(std::string(OPENVGF_ZOO) + " --out " + path("zoo") +
                                          " --models mobilenet_v2 --resolution 32 --no-weights");
  ASSERT_EQ(zoo.exitCode, 0) << zoo.output;
  const std::string model = path("zoo/mobilenet_v2_r32.tosa");
  ASSERT_TRUE(fs::exists(model)) << zoo.output;

  // Acceptance (issue 35): a photo on a zoo classifier equals the same image passed as .npy
  // after the same preprocessing (computed here).
  const std::vector<std::uint8_t> rgb = pattern(32, 32);
  const std::string png = writePng("cat.png", 32, 32, rgb);
  tosa::HostTensor x(tosa::DType::Fp32, {1, 32, 32, 3});
  for (std::size_t i = 0; i < rgb.size(); ++i)
    x.as<float>()[i] = static_cast<float>((rgb[i] / 255.0 - 0.5) / 0.25);
  const std::string npy = writeNpy("cat.npy", x);
  CommandResult fromPng =
      run("run " + model + " --input " + png + " --mean 0.5 --std 0.25 -o " + path("a.npy") + " --top-k 3");
  ASSERT_EQ(fromPng.exitCode, 0) << fromPng.output;
  EXPECT_THAT(fromPng.output, HasSubstr("top 3: "));
  ASSERT_EQ(run("run " + model + " --input " + npy + " -o " + path("b.npy")).exitCode, 0);
  EXPECT_EQ(read("a.npy"), read("b.npy"));

  // Trust: `run --check` on a deep graph. MobileNetV2's output tolerance, propagated worst-case
  // through its ~60 operators (tosa/compliance.h), is larger than its logits: a VGF whose first
  // convolution's weights are negated (so it no longer computes what the .tosa says) passed
  // within it. Now neither it nor the intact VGF gets a PASS: both are INCONCLUSIVE (exit 3),
  // naming the tolerance and the output's magnitude.
  const std::string input = path("zoo/mobilenet_v2_r32/inputs/input.npy");
  const std::string good = path("good.vgf");
  // For this device, as the runs above converted it: its shaders are cached already.
  CommandResult converted = run("convert " + model + " --target native -o " + good);
  ASSERT_EQ(converted.exitCode, 0) << converted.output;
  // The corrupted VGF: every fp32 word of the first dispatch's first constant negated.
  std::string bytes = read("good.vgf");
  std::span<const std::uint8_t> view(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  Result<vgf::File> file = vgf::decode(view);
  ASSERT_TRUE(file) << file.error().message();
  ASSERT_FALSE(file->segments.empty());
  ASSERT_FALSE(file->segments[0].constants.empty());
  const vgf::Constant& weights = file->constants[file->segments[0].constants[0]];
  ASSERT_GE(weights.data.size(), 4u * 27);  // at least one 3x3x3 filter of fp32
  const std::size_t offset = static_cast<std::size_t>(weights.data.data() - view.data());
  std::string corrupted = bytes;
  for (std::size_t i = 3; i < weights.data.size(); i += 4) corrupted[offset + i] ^= static_cast<char>(0x80);
  const std::string bad = write("bad.vgf", corrupted);
  for (const std::string& vgfPath : {good, bad}) {
    const std::string out = vgfPath == good ? path("good.npy") : path("bad.npy");
    CommandResult checked = run("run " + vgfPath + " -i " + input + " -o " + out + " --check " + model);
    EXPECT_EQ(checked.exitCode, 3) << checked.output;
    EXPECT_THAT(checked.output, Not(HasSubstr("PASS"))) << vgfPath;
    EXPECT_THAT(checked.output, HasSubstr("reshape: INCONCLUSIVE (max abs error "));
    EXPECT_THAT(checked.output, HasSubstr("the tolerance propagated through the graph, up to "));
    EXPECT_THAT(checked.output, HasSubstr("is at least |reference| at every element (the largest "));
    EXPECT_THAT(checked.output, HasSubstr("`openvgf compare MODEL.tosa --per-operator` judges each operator on the device's own inputs"));
    EXPECT_THAT(checked.output, HasSubstr("\ncheck: INCONCLUSIVE\n"));
  }
  // The corruption is real: the logits moved by more than 0.5 (an independent comparison).
  CommandResult moved = run("compare " + path("bad.npy") + " " + path("good.npy") + " --atol 0.5");
  EXPECT_EQ(moved.exitCode, 1) << moved.output;
  // -q still prints what is not a PASS.
  CommandResult quiet = run("-q run " + model + " -i " + input + " --check");
  EXPECT_EQ(quiet.exitCode, 3) << quiet.output;
  EXPECT_THAT(quiet.output, HasSubstr("check: INCONCLUSIVE"));

  // Per operator, on the device's own inputs under each operator's own TOSA rule, the same
  // run gets a verdict: every operator that computes a value (counted here from the graph) passes.
  Result<tosa::Graph> graph = tosa::readGraph(fs::path(model));
  ASSERT_TRUE(graph) << graph.error().message();
  std::vector<tosa::Operator>& ops = graph->mainBlock()->operators;
  const auto computing = std::count_if(ops.begin(), ops.end(), [](const tosa::Operator& op) {
    return op.op != tosa::Op::Const && op.op != tosa::Op::ConstShape;
  });
  ASSERT_GT(computing, 50);
  for (const char* target : {"portable", "native"}) {  // native: the kernels tuned for lavapipe
    CommandResult perOperator =
        run("compare " + model + " -i " + input + " --per-operator --target " + std::string(target));
    EXPECT_EQ(perOperator.exitCode, 0) << target << ": " << perOperator.output;
    EXPECT_THAT(perOperator.output, HasSubstr(std::to_string(computing) + " of " + std::to_string(computing) +
                                              " operators within TOSA's per-operator tolerance"))
        << target;
  }
  // It can fail: against a copy of the graph whose tenth convolution has its weights negated,
  // exactly that convolution fails; the operators after it, fed the device's values of their
  // inputs, pass.
  std::size_t conv = 0;
  for (std::size_t i = 0, seen = 0; i < ops.size() && conv == 0; ++i) {
    if (ops[i].op == tosa::Op::Conv2d && ++seen == 10) conv = i;
  }
  ASSERT_GT(conv, 0u);
  tosa::Tensor* kernel = graph->mainBlock()->findTensor(ops[conv].inputs[1]);
  ASSERT_TRUE(kernel != nullptr && kernel->data && kernel->dtype == tosa::DType::Fp32);
  for (std::size_t i = 3; i < kernel->data->size(); i += 4) (*kernel->data)[i] ^= 0x80;
  ASSERT_TRUE(tosa::writeGraph(*graph, dir_ / "other.tosa"));
  CommandResult other =
      run("compare " + model + " -i " + input + " --against model:" + path("other.tosa") + " --per-operator");
  EXPECT_EQ(other.exitCode, 1) << other.output;
  EXPECT_THAT(other.output, HasSubstr(std::to_string(computing - 1) + " of " + std::to_string(computing) +
                                      " operators within TOSA's per-operator tolerance"));
  EXPECT_THAT(other.output, HasSubstr("first failing operator: operator " + std::to_string(conv) + " CONV2D -> '" +
                                      ops[conv].outputs[0] + "'"));
}
#endif

}  // namespace
}  // namespace openvgf
