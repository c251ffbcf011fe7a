// SPDX-License-Identifier: Apache-2.0
// PNG through libpng's simplified API (palette, grey, 16-bit and alpha handled by libpng),
// JPEG through libjpeg with an error manager that returns instead of exiting; both read the
// file mapped in memory (see image_decode.h).
#include "api/image_decode.h"

#include <jpeglib.h>
#include <png.h>

#include "common/file_io.h"

#include <csetjmp>
#include <cstdio>
#include <cstring>

namespace openvgf::api {
namespace {

Result<Rgba8Image> decodePng(const std::string& path, std::span<const std::uint8_t> bytes) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size())) {
    return invalidInput("{}: PNG: {}", path, image.message);
  }
  if (static_cast<std::uint64_t>(image.width) * image.height > kMaxImagePixels) {
    png_image_free(&image);
    return invalidInput("{}: PNG: expected at most {} pixels, got {} x {}", path, kMaxImagePixels,
                        image.width, image.height);
  }
  image.format = PNG_FORMAT_RGBA;
  Rgba8Image out;
  out.width = image.width;
  out.height = image.height;
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr)) {
    return invalidInput("{}: PNG: {}", path, image.message);
  }
  return out;
}

// libjpeg reports errors through error_exit, which must not return: it jumps back to
// decodeJpeg's setjmp. Only plain C data lives between the two.
struct JpegError {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpegErrorExit(j_common_ptr info) {
  auto* error = reinterpret_cast<JpegError*>(info->err);
  (*info->err->format_message)(info, error->message);
  std::longjmp(error->jump, 1);
}

// 0 on success; else the message is in `error`. `pixels` is sized by `allocate` once the
// header is read (returns null to refuse the size).
template <typename Allocate>
int readJpeg(std::span<const std::uint8_t> bytes, JpegError& error, std::uint32_t& width, std::uint32_t& height,
             Allocate allocate) {
  jpeg_decompress_struct info;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = jpegErrorExit;
  if (setjmp(error.jump)) {
    jpeg_destroy_decompress(&info);
    return 1;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&info, TRUE);
  info.out_color_space = JCS_EXT_RGBA;  // libjpeg-turbo: grey and YCbCr to RGBA, alpha 255
  jpeg_start_decompress(&info);
  width = info.output_width;
  height = info.output_height;
  std::uint8_t* pixels = allocate(width, height);
  if (pixels == nullptr) {
    jpeg_destroy_decompress(&info);
    return 2;
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = pixels + static_cast<std::size_t>(info.output_scanline) * width * 4;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return 0;
}

Result<Rgba8Image> decodeJpeg(const std::string& path, std::span<const std::uint8_t> bytes) {
  Rgba8Image out;
  JpegError error{};
  std::uint64_t pixelCount = 0;
  const int status =
      readJpeg(bytes, error, out.width, out.height, [&](std::uint32_t w, std::uint32_t h) -> std::uint8_t* {
        pixelCount = static_cast<std::uint64_t>(w) * h;
        if (pixelCount > kMaxImagePixels) return nullptr;
        out.pixels.resize(pixelCount * 4);
        return out.pixels.data();
      });
  if (status == 1) return invalidInput("{}: JPEG: {}", path, error.message);
  if (status == 2) {
    return invalidInput("{}: JPEG: expected at most {} pixels, got {} x {}", path, kMaxImagePixels, out.width,
                        out.height);
  }
  return out;
}

}  // namespace

ImageFormat detectImageFormat(std::span<const std::uint8_t> head) {
  static constexpr std::uint8_t kPng[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (head.size() >= 8 && std::memcmp(head.data(), kPng, 8) == 0) return ImageFormat::Png;
  if (head.size() >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF) return ImageFormat::Jpeg;
  return ImageFormat::None;
}

Result<Rgba8Image> decodeImage(const std::string& path) {
  // Opened as every input file is: a FIFO or a device is refused at once, never read.
  OPENVGF_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  switch (detectImageFormat(file.bytes())) {
    case ImageFormat::Png: return decodePng(path, file.bytes());
    case ImageFormat::Jpeg: return decodeJpeg(path, file.bytes());
    case ImageFormat::None: break;
  }
  return invalidInput("{}: expected a PNG or JPEG image (by its first bytes)", path);
}

}  // namespace openvgf::api
