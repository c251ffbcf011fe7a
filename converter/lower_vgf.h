// SPDX-License-Identifier: Apache-2.0
// Lowering a VGF with GRAPH segments (Arm's encoding) into a VGF of COMPUTE segments that
// runner/ runs on any Vulkan 1.3 device. Each run of consecutive GRAPH segments is decoded
// (converter/graph_segments.h) and converted with the same passes and kernels as a .tosa
// (converter::convert); its COMPUTE segments are spliced in where the run was, COMPUTE segments
// of the file are kept, and the model interface is the file's. Dynamic dimensions are fixed by
// the input shapes given, so a model is lowered once per distinct input shape.
//
// Lowered files are cached under <cache root>/lowered/ (common/cache_dir.h), keyed by SHA-256 over the
// input VGF's bytes, the input shapes, the conversion target and the converter's version (its
// release and the embedded shader library), so a second run of the same file does not lower
// again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "converter/convert.h"
#include "converter/graph_segments.h"
#include "vgf/file.h"

namespace openvgf::converter {

struct LowerOptions {
  ConvertOptions convert;         // target, SPIR-V cache, threads, passes
  bool useCache = true;           // read and write the lowered-VGF cache
  bool cacheOnly = false;         // a cache miss returns a LoweredModel without `file` (nothing lowered)
  std::filesystem::path cacheDir; // empty: <cacheRoot()>/lowered (common/cache_dir.h)
};

struct LoweredModel {
  std::vector<std::uint8_t> vgf;  // COMPUTE segments only
  bool cacheHit = false;          // taken from the lowered-VGF cache
  std::string cacheKey;           // hex SHA-256
  std::filesystem::path cacheFile;  // where the cache keeps it (empty: not cached)
  std::size_t graphRuns = 0;      // runs of consecutive GRAPH segments in the input
  std::size_t kernels = 0;        // COMPUTE segments of the result
  // `vgf` decoded (and so validated) once. It views vgf's buffer, which moving the vector
  // keeps: valid while the bytes live, wherever the vector is moved to.
  std::optional<vgf::File> file;
};

/// True when `file` has a GRAPH segment.
bool hasGraphSegments(const vgf::File& file);

/// The shapes to lower with: every model input whose resource shape is dynamic needs one in
/// `given` (by model input index); static ones must agree with it when given.
Result<KnownShapes> modelInputShapes(const vgf::File& file, const std::vector<tosa::Shape>& given, std::string_view source);

/// Lowers `file` (decoded from `bytes`). `source` names the file in messages.
Result<LoweredModel> lowerGraphSegments(std::span<const std::uint8_t> bytes, const vgf::File& file,
                                        const KnownShapes& inputShapes, std::string_view source,
                                        const LowerOptions& options = {});

/// Which of the model inputs or outputs `slots` (file.inputs or file.outputs) are stored
/// unsigned (R8/R16/R32_UINT): they take and give uint8/16/32 arrays, as the model declares them.
std::vector<bool> unsignedTensors(const vgf::File& file, const std::vector<vgf::BindingSlot>& slots);

}  // namespace openvgf::converter
