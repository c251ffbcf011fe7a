// SPDX-License-Identifier: Apache-2.0
// PNG and JPEG files decoded to 8-bit RGBA through Debian's libpng and libjpeg-turbo, for
// openvgf::readImage (public_inputs.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace openvgf::api {

/// Images larger than this are refused before their pixels are allocated.
inline constexpr std::uint64_t kMaxImagePixels = 100'000'000;

struct Rgba8Image {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> pixels;  // height * width * 4, row-major, RGBA (alpha 255 when the file has none)
};

enum class ImageFormat { None, Png, Jpeg };
/// From the file's first bytes (its signature), not its name.
ImageFormat detectImageFormat(std::span<const std::uint8_t> head);

/// Decodes a whole PNG or JPEG file; InvalidInput naming the file and what the decoder reports.
Result<Rgba8Image> decodeImage(const std::string& path);

}  // namespace openvgf::api
