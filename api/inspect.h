// SPDX-License-Identifier: Apache-2.0
// `inspect` as library calls: the text summary or JSON of a .tosa, .vgf or .pte, and the
// dumps of a VGF's SPIR-V modules and constants. An invalid file still gets its listing
// (what could be read), with the problem returned beside it so the caller can show both.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "tosa/npy.h"
#include "vgf/file.h"

namespace openvgf::api {

struct Inspection {
  std::string text;  // the summary, or JSON (with a final newline)
  Status problem;    // what makes the file invalid, after the listing
};

/// "min -1.5, max 2, mean 0.25; first 8 of 64: 0.5 1 ..." of `values` (NaN and infinities
/// counted apart): the summary of `run`'s output preview and of `inspect x.npy`.
std::string valueSummary(const std::vector<double>& values);
/// `inspect x.npy`: dtype, shape, size and valueSummary (JSON: the same as fields).
Result<Inspection> inspectNpy(std::span<const std::uint8_t> bytes, const std::string& path, bool json);

Result<Inspection> inspectTosa(std::span<const std::uint8_t> bytes, const std::string& path, bool json);
Result<Inspection> inspectVgf(std::span<const std::uint8_t> bytes, const std::string& path, bool json);
Result<Inspection> inspectPte(std::span<const std::uint8_t> bytes, const std::string& path, bool json);
/// An Ethos-U vela_bin_stream or bare COP1 payload: accelerator, regions, I/O placement and the
/// disassembled command stream.
Result<Inspection> inspectEthosU(std::span<const std::uint8_t> bytes, const std::string& path, bool json);
/// The graphs of a SPIR-V module of TOSA graphs (TOSA.001000.1): interface and operators, as text.
Result<Inspection> inspectSpirv(std::span<const std::uint8_t> bytes, const std::string& path, bool json);
/// Any of these, by content; InvalidInput naming what the file looks like otherwise.
Result<Inspection> inspectFile(const std::string& path, bool json);

/// `inspect --dump-spirv N` (spirvModule) or `--dump-constant NAME|N` of the file at `path`:
/// dumpVgfSpirv / dumpVgfConstant for a VGF, dumpTosaConstant for a .tosa; InvalidInput
/// saying what to do for any other kind.
Status dumpFromFile(const std::string& path, std::optional<int> spirvModule, const std::string& constant,
                    const std::filesystem::path& output);

/// Writes module `index`'s SPIR-V words to `output`.
Status dumpVgfSpirv(const vgf::File& file, const std::string& path, int index, const std::filesystem::path& output);
/// Writes VGF constant `index` (decimal) to `output`: a .npy with its resource's shape and
/// dtype when the name ends in .npy, else its raw bytes. VGF constants are stored in the layout
/// the kernels read (openvgf's CONV2D weights, for one, pre-transposed to [KH*KW*IC, OC]);
/// dumpTosaConstant gives the TOSA tensor.
Status dumpVgfConstant(const vgf::File& file, const std::string& path, const std::string& index,
                       const std::filesystem::path& output);
/// Writes the constant tensor `selector` of a TOSA graph's main block (a tensor name, or its
/// position among the block's constants) in TOSA layout and type: .npy, else the host bytes.
Status dumpTosaConstant(std::span<const std::uint8_t> bytes, const std::string& path, const std::string& selector,
                        const std::filesystem::path& output);
/// Constant `index` as a NumPy array with its resource's shape and element type.
Result<tosa::npy::Array> vgfConstantArray(const vgf::File& file, const std::string& path, std::size_t index);

}  // namespace openvgf::api
