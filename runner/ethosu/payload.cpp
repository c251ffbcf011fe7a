// SPDX-License-Identifier: Apache-2.0
// COP1 payload and vela_bin_stream reading/writing; every length is checked against the
// bytes actually present before use.
#include "runner/ethosu/payload.h"

#include <cstring>

#include "common/limits.h"

namespace openvgf::runner::ethosu {
namespace {

constexpr std::uint8_t kActionOptimizerConfig = 0x01;
constexpr std::uint8_t kActionCommandStream = 0x02;
constexpr std::uint8_t kActionReadApb = 0x03;
constexpr std::uint8_t kActionDumpShram = 0x04;
constexpr std::uint8_t kActionNop = 0x05;

std::uint32_t readU32(std::span<const std::uint8_t> bytes, std::size_t offset) {
  const std::uint8_t* b = bytes.data() + offset;
  return std::uint32_t{b[0]} | (std::uint32_t{b[1]} << 8) | (std::uint32_t{b[2]} << 16) | (std::uint32_t{b[3]} << 24);
}

void appendU32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

std::size_t alignUp16(std::size_t v) { return (v + 15) & ~std::size_t{15}; }

Result<std::vector<VelaIo>> parseIoList(std::span<const std::uint8_t> data, std::string_view what) {
  if (data.size() < 4) return invalidInput("{}: expected at least a 4-byte count, got {} bytes", what, data.size());
  const std::int32_t count = static_cast<std::int32_t>(readU32(data, 0));
  if (count < 0) return invalidInput("{}: count: expected >= 0, got {}", what, count);
  std::vector<VelaIo> list;
  if (count == 0) {
    if (data.size() != 4) return invalidInput("{}: expected 4 bytes for an empty list, got {}", what, data.size());
    return list;
  }
  const std::size_t body = data.size() - 4;
  std::size_t recordBytes = body / static_cast<std::size_t>(count);
  if (body % static_cast<std::size_t>(count) != 0 || (recordBytes != 36 && recordBytes != 28)) {
    return invalidInput("{}: expected {} records of 36 (6-D) or 28 (4-D) bytes, got {} bytes", what, count, body);
  }
  const std::size_t rank = recordBytes == 36 ? 6 : 4;
  for (std::int32_t r = 0; r < count; ++r) {
    std::size_t at = 4 + static_cast<std::size_t>(r) * recordBytes;
    VelaIo io;
    io.shape.fill(1);
    if (rank == 4) {
      // 4-D records are zero padded at the end; keep them as the leading dims of a 6-D shape
      // padded with 1s in front so that element counts are preserved.
      for (std::size_t d = 0; d < 4; ++d) io.shape[2 + d] = static_cast<std::int32_t>(readU32(data, at + 4 * d));
    } else {
      for (std::size_t d = 0; d < 6; ++d) io.shape[d] = static_cast<std::int32_t>(readU32(data, at + 4 * d));
    }
    io.elemSize = static_cast<std::int32_t>(readU32(data, at + 4 * rank));
    io.offset = static_cast<std::int32_t>(readU32(data, at + 4 * rank + 4));
    io.region = static_cast<std::int32_t>(readU32(data, at + 4 * rank + 8));
    for (std::size_t d = 0; d < 6; ++d) {
      if (io.shape[d] < 0) return invalidInput("{}[{}]: shape[{}]: expected >= 0, got {}", what, r, d, io.shape[d]);
    }
    if (io.elemSize != 1 && io.elemSize != 2 && io.elemSize != 4) {
      return invalidInput("{}[{}]: elem_size: expected 1, 2 or 4, got {}", what, r, io.elemSize);
    }
    std::uint64_t bytes = static_cast<std::uint64_t>(io.elemSize);
    for (std::int32_t d : io.shape) {
      if (__builtin_mul_overflow(bytes, static_cast<std::uint64_t>(d), &bytes)) bytes = ~std::uint64_t{0};
    }
    if (bytes > kMaxEthosUScratchBytes) {
      return invalidInput("{}[{}]: shape {}x{}x{}x{}x{}x{} of {}-byte elements: expected at most {} bytes (the scratch "
                          "arena's limit)",
                          what, r, io.shape[0], io.shape[1], io.shape[2], io.shape[3], io.shape[4], io.shape[5],
                          io.elemSize, kMaxEthosUScratchBytes);
    }
    if (io.offset < 0) return invalidInput("{}[{}]: offset: expected >= 0, got {}", what, r, io.offset);
    if (io.region < 0 || io.region > 7) return invalidInput("{}[{}]: region: expected 0..7, got {}", what, r, io.region);
    list.push_back(io);
  }
  return list;
}

void appendBlock(std::vector<std::uint8_t>& out, std::string_view name, std::span<const std::uint8_t> data) {
  std::uint8_t header[32] = {};
  std::memcpy(header, name.data(), std::min<std::size_t>(name.size(), 15));
  const auto size = static_cast<std::uint32_t>(data.size());
  for (int i = 0; i < 4; ++i) header[16 + i] = static_cast<std::uint8_t>(size >> (8 * i));
  out.insert(out.end(), header, header + 32);
  out.insert(out.end(), data.begin(), data.end());
  out.resize(alignUp16(out.size()), 0);
}

std::vector<std::uint8_t> ioListBytes(const std::vector<VelaIo>& list) {
  std::vector<std::uint8_t> out;
  appendU32(out, static_cast<std::uint32_t>(list.size()));
  for (const VelaIo& io : list) {
    for (std::int32_t d : io.shape) appendU32(out, static_cast<std::uint32_t>(d));
    appendU32(out, static_cast<std::uint32_t>(io.elemSize));
    appendU32(out, static_cast<std::uint32_t>(io.offset));
    appendU32(out, static_cast<std::uint32_t>(io.region));
  }
  return out;
}

}  // namespace

std::uint32_t makeConfigWord(Product product, unsigned macsPerCycle, unsigned shramKb) {
  unsigned log2Macs = 0;
  while ((2u << log2Macs) <= macsPerCycle) ++log2Macs;
  return (log2Macs & 0xF) | ((shramKb & 0xFF) << 8) | (static_cast<std::uint32_t>(product) << 28);
}

Result<Cop1Payload> readCop1(std::span<const std::uint8_t> bytes, std::string_view name) {
  if (bytes.size() < 4) return invalidInput("{}: expected at least 4 bytes, got {}", name, bytes.size());
  if (bytes.size() % 4 != 0) return invalidInput("{}: expected a size that is a multiple of 4, got {}", name, bytes.size());
  const std::uint32_t magic = readU32(bytes, 0);
  if (magic != kCop1Magic) {
    if (std::memcmp(bytes.data(), "COP2", 4) == 0) return unsupported("{}: COP2 payloads are not supported (only COP1)", name);
    return invalidInput("{}: word 0: expected the COP1 magic 0x{:08x}, got 0x{:08x}", name, kCop1Magic, magic);
  }
  Cop1Payload payload;
  bool haveConfig = false;
  bool haveStream = false;
  std::size_t offset = 4;
  while (offset < bytes.size()) {
    const std::uint32_t action = readU32(bytes, offset);
    const std::uint8_t code = action & 0xFF;
    const std::size_t word = offset / 4;
    switch (code) {
      case kActionOptimizerConfig:
        if (bytes.size() - offset < 12) {
          return invalidInput("{}: word {}: OPTIMIZER_CONFIG: expected CONFIG and ID words, got end of payload", name, word);
        }
        payload.optimizerParam = action >> 16;
        payload.config = readU32(bytes, offset + 4);
        payload.id = readU32(bytes, offset + 8);
        haveConfig = true;
        offset += 12;
        break;
      case kActionNop:
        offset += 4;
        break;
      case kActionCommandStream: {
        if (haveStream) return invalidInput("{}: word {}: expected one COMMAND_STREAM, got a second", name, word);
        const std::size_t words = ((action >> 8) & 0xFF) << 16 | (action >> 16);
        const std::size_t available = (bytes.size() - offset - 4) / 4;
        if (words > available) {
          return invalidInput("{}: word {}: COMMAND_STREAM: expected at most {} words, got length {}", name, word,
                              available, words);
        }
        payload.commandStream.assign(bytes.begin() + static_cast<std::ptrdiff_t>(offset + 4),
                                     bytes.begin() + static_cast<std::ptrdiff_t>(offset + 4 + words * 4));
        haveStream = true;
        offset += 4 + words * 4;
        break;
      }
      case kActionReadApb:
      case kActionDumpShram:
        return unsupported("{}: word {}: driver action 0x{:02x} is not supported", name, word, code);
      default:
        return invalidInput("{}: word {}: expected a driver action (1 OPTIMIZER_CONFIG, 2 COMMAND_STREAM, 5 NOP), got 0x{:08x}",
                            name, word, action);
    }
  }
  if (!haveConfig) return invalidInput("{}: expected an OPTIMIZER_CONFIG action, got none", name);
  if (!haveStream) return invalidInput("{}: expected a COMMAND_STREAM action, got none", name);
  const unsigned product = (payload.config >> 28) & 0xF;
  if (product > 1) return unsupported("{}: CONFIG: product {} is not Ethos-U55 (0) or Ethos-U65 (1)", name, product);
  if (((payload.config >> 4) & 0xF) != 0) {
    return unsupported("{}: CONFIG: cmd_stream_version {} is not the U55/U65 version 0", name, (payload.config >> 4) & 0xF);
  }
  return payload;
}

Result<std::vector<std::uint8_t>> writeCop1(const Cop1Payload& payload) {
  if (payload.commandStream.size() % 4 != 0) {
    return internalError("COP1 payload: command stream size {} is not a multiple of 4", payload.commandStream.size());
  }
  const std::size_t words = payload.commandStream.size() / 4;
  if (words >= (std::size_t{1} << 24)) return unsupported("COP1 payload: command stream of {} words exceeds 2^24", words);
  std::vector<std::uint8_t> out;
  appendU32(out, kCop1Magic);
  appendU32(out, kActionOptimizerConfig | ((payload.optimizerParam & 0xFFFF) << 16));
  appendU32(out, payload.config);
  appendU32(out, payload.id);
  // The driver wants the stream itself 16-byte aligned: pad with NOPs so that the word after
  // COMMAND_STREAM starts on a 16-byte boundary.
  while ((out.size() + 4) % 16 != 0) appendU32(out, kActionNop);
  appendU32(out, kActionCommandStream | static_cast<std::uint32_t>((words >> 16) << 8) |
                     static_cast<std::uint32_t>((words & 0xFFFF) << 16));
  out.insert(out.end(), payload.commandStream.begin(), payload.commandStream.end());
  return out;
}

Result<VelaBinStream> readVelaBinStream(std::span<const std::uint8_t> bytes, std::string_view name) {
  VelaBinStream stream;
  std::size_t offset = 0;
  bool first = true;
  bool ended = false;
  bool haveCmd = false;
  bool haveInputs = false;
  bool haveOutputs = false;
  while (offset < bytes.size()) {
    if (ended) return invalidInput("{}: offset {}: expected the stream to end after vela_end_stream, got more bytes", name, offset);
    if (bytes.size() - offset < 32) {
      return invalidInput("{}: offset {}: expected a 32-byte block header, got {} bytes", name, offset, bytes.size() - offset);
    }
    const char* rawName = reinterpret_cast<const char*>(bytes.data() + offset);
    const std::size_t nameLen = strnlen(rawName, 16);
    if (nameLen == 16) return invalidInput("{}: offset {}: expected a NUL-terminated block name, got 16 characters", name, offset);
    const std::string blockName(rawName, nameLen);
    const std::uint32_t size = readU32(bytes, offset + 16);
    const std::uint8_t external = bytes[offset + 20];
    const std::size_t dataOffset = offset + 32;
    if (size > bytes.size() - dataOffset) {
      return invalidInput("{}: block '{}' at offset {}: expected at most {} data bytes, got size {}", name, blockName, offset,
                          bytes.size() - dataOffset, size);
    }
    if (external != 0) {
      return unsupported("{}: block '{}': external (named-data) blocks are not supported", name, blockName);
    }
    std::span<const std::uint8_t> data = bytes.subspan(dataOffset, size);
    const std::string where = fmt::format("{}: block '{}'", name, blockName);
    if (first && blockName != "vela_bin_stream") {
      return invalidInput("{}: expected the first block to be 'vela_bin_stream', got '{}'", name, blockName);
    }
    if (blockName == "vela_bin_stream") {
      if (!first) return invalidInput("{}: expected 'vela_bin_stream' only as the first block", name);
    } else if (blockName == "cmd_data") {
      stream.cmdData.assign(data.begin(), data.end());
      haveCmd = true;
    } else if (blockName == "weight_data") {
      stream.weightData.assign(data.begin(), data.end());
    } else if (blockName == "scratch_size" || blockName == "scratch_data") {
      if (blockName == "scratch_size" && size != 4) return invalidInput("{}: expected 4 bytes, got {}", where, size);
      stream.scratchSize = blockName == "scratch_size" ? readU32(data, 0) : size;
      if (stream.scratchSize > kMaxEthosUScratchBytes) {
        return invalidInput("{}: expected a scratch arena of at most {} bytes, got {}", where, kMaxEthosUScratchBytes,
                            stream.scratchSize);
      }
    } else if (blockName == "inputs") {
      OPENVGF_ASSIGN_OR_RETURN(stream.inputs, parseIoList(data, where));
      haveInputs = true;
    } else if (blockName == "outputs") {
      OPENVGF_ASSIGN_OR_RETURN(stream.outputs, parseIoList(data, where));
      haveOutputs = true;
    } else if (blockName == "vela_end_stream") {
      ended = true;
    }
    first = false;
    std::size_t next = dataOffset + alignUp16(size);
    offset = next > bytes.size() ? bytes.size() : next;
  }
  if (first) return invalidInput("{}: expected blocks, got an empty stream", name);
  if (!ended) return invalidInput("{}: expected a final 'vela_end_stream' block, got none", name);
  if (!haveCmd) return invalidInput("{}: expected a 'cmd_data' block, got none", name);
  if (!haveInputs || !haveOutputs) return invalidInput("{}: expected 'inputs' and 'outputs' blocks", name);
  return stream;
}

std::vector<std::uint8_t> writeVelaBinStream(const VelaBinStream& stream) {
  std::vector<std::uint8_t> out;
  appendBlock(out, "vela_bin_stream", {});
  appendBlock(out, "cmd_data", stream.cmdData);
  appendBlock(out, "weight_data", stream.weightData);
  std::vector<std::uint8_t> scratch;
  appendU32(scratch, stream.scratchSize);
  appendBlock(out, "scratch_size", scratch);
  appendBlock(out, "inputs", ioListBytes(stream.inputs));
  appendBlock(out, "outputs", ioListBytes(stream.outputs));
  appendBlock(out, "vela_end_stream", {});
  return out;
}

}  // namespace openvgf::runner::ethosu
