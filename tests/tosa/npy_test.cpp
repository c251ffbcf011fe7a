// SPDX-License-Identifier: Apache-2.0
// tosa/npy against files written by NumPy at test time (oracle: numpy itself), files we write
// read back by NumPy, and corrupted files.
#include "tosa/npy.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/file_io.h"

namespace openvgf::tosa::npy {
namespace {

namespace fs = std::filesystem;

class NpyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / fmt::format("openvgf_npy_test_{}", ::getpid());
    fs::create_directories(dir_);
    // One python run writes every file the tests read.
    std::string script = R"PY(
import numpy as np, sys, os
d = sys.argv[1]
np.save(os.path.join(d, 'f32.npy'), np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.5)
np.save(os.path.join(d, 'f16.npy'), np.array([1.0, -2.0, 65504.0], dtype=np.float16))
np.save(os.path.join(d, 'f64.npy'), np.array([[1.5, -2.25]], dtype=np.float64))
np.save(os.path.join(d, 'i8.npy'), np.array([-128, -1, 0, 127], dtype=np.int8))
np.save(os.path.join(d, 'i16.npy'), np.array([-32768, 32767], dtype=np.int16))
np.save(os.path.join(d, 'i32.npy'), np.array([[-5, 7], [1 << 30, -(1 << 31)]], dtype=np.int32))
np.save(os.path.join(d, 'i64.npy'), np.array([-(1 << 47), (1 << 47) - 1], dtype=np.int64))
np.save(os.path.join(d, 'u8.npy'), np.array([0, 200, 255], dtype=np.uint8))
np.save(os.path.join(d, 'u16.npy'), np.array([0x3f80, 0xc000], dtype=np.uint16))
np.save(os.path.join(d, 'u32.npy'), np.array([4000000000], dtype=np.uint32))
np.save(os.path.join(d, 'b1.npy'), np.array([True, False, True]))
np.save(os.path.join(d, 'scalar.npy'), np.float32(3.25))
np.save(os.path.join(d, 'big.npy'), np.array([1, 2], dtype='>i4'))
np.save(os.path.join(d, 'fortran.npy'), np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
np.save(os.path.join(d, 'object.npy'), np.array([1, 'a'], dtype=object), allow_pickle=True)
np.save(os.path.join(d, 'v2.npy'), np.array([0x3f80, 0x4000], dtype=np.uint16).view('V2'))
np.lib.format.write_array(open(os.path.join(d, 'v2format.npy'), 'wb'), np.arange(3, dtype=np.int16), version=(2, 0))
np.lib.format.write_array(open(os.path.join(d, 'v3format.npy'), 'wb'), np.arange(3, dtype=np.int16), version=(3, 0))
)PY";
    fs::path scriptPath = dir_ / "make.py";
    std::ofstream(scriptPath) << script;
    std::string cmd = fmt::format("{} {} {}", OPENVGF_TEST_PYTHON, scriptPath.string(), dir_.string());
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static fs::path path(const char* name) { return dir_ / name; }

  static inline fs::path dir_;
};

template <typename T>
std::vector<T> values(const std::vector<std::uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

TEST_F(NpyTest, ReadsFloat32) {
  auto a = readFile(path("f32.npy"));
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(a->dtype, DataType::Float32);
  EXPECT_EQ(a->shape, (Shape{2, 3, 4}));
  auto v = values<float>(a->data);
  ASSERT_EQ(v.size(), 24u);
  EXPECT_EQ(v[0], 0.0f);
  EXPECT_EQ(v[23], 11.5f);
  auto t = toHostTensor(*a, DType::Fp32, "x");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->dtype, DType::Fp32);
  EXPECT_EQ(t->as<float>()[5], 2.5f);
}

TEST_F(NpyTest, ReadsEveryIntegerAndFloatType) {
  struct Case {
    const char* file;
    DataType type;
    Shape shape;
  };
  for (const Case& c :
       {Case{"f16.npy", DataType::Float16, {3}}, Case{"f64.npy", DataType::Float64, {1, 2}},
        Case{"i8.npy", DataType::Int8, {4}}, Case{"i16.npy", DataType::Int16, {2}},
        Case{"i32.npy", DataType::Int32, {2, 2}}, Case{"i64.npy", DataType::Int64, {2}},
        Case{"u8.npy", DataType::Uint8, {3}}, Case{"u16.npy", DataType::Uint16, {2}},
        Case{"u32.npy", DataType::Uint32, {1}}, Case{"b1.npy", DataType::Bool, {3}},
        Case{"scalar.npy", DataType::Float32, {}}, Case{"v2.npy", DataType::Void2, {2}},
        Case{"v2format.npy", DataType::Int16, {3}}, Case{"v3format.npy", DataType::Int16, {3}}}) {
    auto a = readFile(path(c.file));
    ASSERT_TRUE(a) << c.file << ": " << a.error().message();
    EXPECT_EQ(a->dtype, c.type) << c.file;
    EXPECT_EQ(a->shape, c.shape) << c.file;
  }
  auto i32 = readFile(path("i32.npy"));
  EXPECT_EQ(values<std::int32_t>(i32->data), (std::vector<std::int32_t>{-5, 7, 1 << 30, INT32_MIN}));
  auto f16 = readFile(path("f16.npy"));
  // IEEE half bit patterns of 1.0, -2.0, 65504.
  EXPECT_EQ(values<std::uint16_t>(f16->data), (std::vector<std::uint16_t>{0x3C00, 0xC000, 0x7BFF}));
}

TEST_F(NpyTest, TosaTypeConversions) {
  auto i64 = readFile(path("i64.npy"));
  auto int48 = toHostTensor(*i64, DType::Int48, "t");
  ASSERT_TRUE(int48) << int48.error().message();
  EXPECT_EQ(int48->as<std::int64_t>()[0], -(std::int64_t{1} << 47));
  // INT32 does not hold 2^47 - 1: the element is named.
  auto tooBig = toHostTensor(*i64, DType::Int32, "t");
  ASSERT_FALSE(tooBig);
  EXPECT_NE(tooBig.error().message().find("element [0]"), std::string::npos) << tooBig.error().message();

  // uint8 -> INT8 keeps the bit pattern (unsigned RESCALE data).
  auto u8 = toHostTensor(*readFile(path("u8.npy")), DType::Int8, "t");
  ASSERT_TRUE(u8);
  EXPECT_EQ(u8->as<std::int8_t>()[1], static_cast<std::int8_t>(200));
  // int8 -> INT4 range check names the first value outside [-8, 7].
  auto i4 = toHostTensor(*readFile(path("i8.npy")), DType::Int4, "t");
  ASSERT_FALSE(i4);
  EXPECT_NE(i4.error().message().find("-128"), std::string::npos);
  // BF16 from raw V2 and from uint16.
  auto bf = toHostTensor(*readFile(path("v2.npy")), DType::Bf16, "t");
  ASSERT_TRUE(bf);
  EXPECT_EQ(bf->as<std::uint16_t>()[0], 0x3f80);
  EXPECT_TRUE(toHostTensor(*readFile(path("u16.npy")), DType::Bf16, "t"));
  // bool.
  auto b = toHostTensor(*readFile(path("b1.npy")), DType::Bool, "t");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->bytes, (std::vector<std::uint8_t>{1, 0, 1}));
  // Float type mismatch is named.
  auto mismatch = toHostTensor(*readFile(path("f64.npy")), DType::Fp32, "input 'x'");
  ASSERT_FALSE(mismatch);
  EXPECT_NE(mismatch.error().message().find("input 'x': expected a NumPy array of float32"),
            std::string::npos)
      << mismatch.error().message();
  // Shape mismatch.
  auto shape = toHostTensor(*readFile(path("f32.npy")), DType::Fp32, Shape{2, 12}, "input 'x'");
  ASSERT_FALSE(shape);
  EXPECT_NE(shape.error().message().find("expected shape [2,12], got [2,3,4]"), std::string::npos);
}

TEST_F(NpyTest, RefusesBigEndianFortranAndObject) {
  auto big = readFile(path("big.npy"));
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message().find("big-endian"), std::string::npos) << big.error().message();
  EXPECT_EQ(big.error().exitCode(), 2);
  auto fortran = readFile(path("fortran.npy"));
  ASSERT_FALSE(fortran);
  EXPECT_NE(fortran.error().message().find("Fortran"), std::string::npos);
  auto object = readFile(path("object.npy"));
  ASSERT_FALSE(object);
  EXPECT_NE(object.error().message().find("object"), std::string::npos) << object.error().message();
}

TEST_F(NpyTest, TruncatedAndCorruptFiles) {
  auto bytes = openvgf::readFile(path("f32.npy"));
  ASSERT_TRUE(bytes);
  // Every truncation is an error, never a crash.
  for (std::size_t n = 0; n < bytes->size(); ++n) {
    auto r = parse(std::span<const std::uint8_t>(bytes->data(), n), "cut.npy");
    ASSERT_FALSE(r) << n;
    EXPECT_EQ(r.error().message().rfind("cut.npy: ", 0), 0u);
  }
  auto truncated = parse(std::span<const std::uint8_t>(bytes->data(), bytes->size() - 4), "cut.npy");
  EXPECT_NE(truncated.error().message().find("truncated"), std::string::npos) << truncated.error().message();

  std::vector<std::uint8_t> badMagic = *bytes;
  badMagic[1] = 'X';
  EXPECT_NE(parse(badMagic, "m.npy").error().message().find("\\x93NUMPY"), std::string::npos);

  std::vector<std::uint8_t> badVersion = *bytes;
  badVersion[6] = 7;
  EXPECT_NE(parse(badVersion, "m.npy").error().message().find("version 7.0"), std::string::npos);

  std::string header(reinterpret_cast<const char*>(bytes->data() + 10), bytes->size() - 10);
  std::vector<std::uint8_t> badHeader = *bytes;
  std::size_t pos = header.find("False");
  ASSERT_NE(pos, std::string::npos);
  std::memcpy(badHeader.data() + 10 + pos, "Fal$e", 5);
  auto r = parse(badHeader, "h.npy");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("npy header: expected True or False"), std::string::npos)
      << r.error().message();
}

TEST_F(NpyTest, WrittenFilesReadBackInNumpy) {
  HostTensor t(DType::Int48, {2, 2});
  auto v = t.as<std::int64_t>();
  v[0] = -3;
  v[1] = 1LL << 40;
  v[2] = 7;
  v[3] = -(1LL << 47);
  ASSERT_TRUE(writeTensor(path("out_i48.npy"), t));
  HostTensor h(DType::Fp16, {3});
  h.as<std::uint16_t>()[0] = 0x3C00;
  h.as<std::uint16_t>()[1] = 0xC000;
  h.as<std::uint16_t>()[2] = 0x7BFF;
  ASSERT_TRUE(writeTensor(path("out_f16.npy"), h));
  HostTensor s(DType::Fp32, {});
  s.as<float>()[0] = 2.5f;
  ASSERT_TRUE(writeTensor(path("out_scalar.npy"), s));
  HostTensor b(DType::Bool, {1});
  b.bytes[0] = 1;
  ASSERT_TRUE(writeTensor(path("out_bool.npy"), b));

  std::string script = fmt::format(
      "import numpy as np\n"
      "a = np.load('{0}/out_i48.npy'); assert a.dtype == np.int64 and a.shape == (2, 2), a\n"
      "assert a.tolist() == [[-3, 1 << 40], [7, -(1 << 47)]], a\n"
      "h = np.load('{0}/out_f16.npy'); assert h.dtype == np.float16 and h.tolist() == [1.0, -2.0, 65504.0], "
      "h\n"
      "s = np.load('{0}/out_scalar.npy'); assert s.shape == () and s == 2.5, s\n"
      "b = np.load('{0}/out_bool.npy'); assert b.dtype == np.bool_ and b.tolist() == [True], b\n",
      dir_.string());
  std::ofstream(dir_ / "check.py") << script;
  std::string cmd = fmt::format("{} {}/check.py", OPENVGF_TEST_PYTHON, dir_.string());
  EXPECT_EQ(std::system(cmd.c_str()), 0);

  // And we read our own files back identically.
  auto back = readTensor(path("out_i48.npy"), DType::Int48);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, t);
}

TEST(NpyFixture, ReadsReferenceModelFiles) {
  std::string dir = std::string(OPENVGF_TEST_DATA) + "/tosa/test_add_1x4x4x4_f32/";
  auto result = readTensor(dir + "tf_result.npy", DType::Fp32, Shape{1, 4, 4, 4});
  ASSERT_TRUE(result) << result.error().message();
  auto conv = readFile(std::string(OPENVGF_TEST_DATA) +
                       "/tosa/test_conv2d_1x1_1x32x32x8_f32_st11_padSAME_dilat11/tf_result.npy");
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->dtype, DataType::Float32);
  EXPECT_EQ(conv->shape, (Shape{1, 32, 32, 16}));
}

TEST_F(NpyTest, SerializeAlignsDataTo64Bytes) {
  Array a;
  a.dtype = DataType::Int32;
  a.shape = {3};
  a.data = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0};
  std::vector<std::uint8_t> bytes = serialize(a);
  EXPECT_EQ((bytes.size() - a.data.size()) % 64, 0u);
  auto back = parse(bytes, "mem");
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, a);
}

}  // namespace
}  // namespace openvgf::tosa::npy
