// SPDX-License-Identifier: Apache-2.0
// vela_bin_stream reader and writer (see vela_bin_stream.h). The walk bounds-checks every
// header and data range before touching it; block meaning (command-stream magic, IO list
// record size, scratch size) is checked after the chain itself is known to be well formed.
#include "ethosu/vela_bin_stream.h"
#include "common/bytes.h"

#include <fmt/format.h>

#include <cstring>

namespace openvgf::ethosu {
namespace {

constexpr std::string_view kStart = "vela_bin_stream";
constexpr std::string_view kEnd = "vela_end_stream";
constexpr std::size_t kNameBytes = 16;
constexpr std::size_t kIoRecord4D = 7 * 4;
constexpr std::size_t kIoRecord6D = 9 * 4;

std::size_t alignUp(std::size_t value) {
  return (value + kVelaBlockAlignment - 1) / kVelaBlockAlignment * kVelaBlockAlignment;
}

bool isKnown(std::string_view name) {
  for (std::string_view known : {kStart, kEnd, std::string_view("cmd_data"), std::string_view("weight_data"),
                                 std::string_view("scratch_size"), std::string_view("scratch_data"),
                                 std::string_view("inputs"), std::string_view("outputs"),
                                 std::string_view("persistent_size"), std::string_view("persistent_init")}) {
    if (name == known) return true;
  }
  return false;
}

std::string printable(std::span<const std::uint8_t> bytes) {
  std::string out;
  for (std::uint8_t c : bytes) {
    if (c >= 0x20 && c < 0x7F)
      out.push_back(static_cast<char>(c));
    else
      out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

Result<std::vector<VelaIo>> parseIoList(const VelaBlock& block, std::size_t index, int& rank) {
  const std::string where = fmt::format("vela_bin_stream: block {} '{}'", index, block.name);
  if (block.external)
    return invalidInput("{}: external: expected inline IO data, got an external block", where);
  if (block.size < 4)
    return invalidInput("{}: size: expected at least 4 bytes (count), got {}", where, block.size);
  std::int32_t count = loadLe<std::int32_t>(block.data.data());
  std::size_t body = block.size - 4;
  if (count < 0) return invalidInput("{}: count: expected >= 0, got {}", where, count);
  if (count == 0) {
    if (body != 0)
      return invalidInput("{}: size: expected 4 bytes for an empty list, got {}", where, block.size);
    return std::vector<VelaIo>{};
  }
  std::size_t record = body / static_cast<std::size_t>(count);
  if (body % static_cast<std::size_t>(count) != 0 || (record != kIoRecord4D && record != kIoRecord6D)) {
    return invalidInput(
        "{}: size: expected 4 + count * 28 (4-D records) or 4 + count * 36 (6-D records) bytes for "
        "count {}, got {}",
        where, count, block.size);
  }
  int thisRank = record == kIoRecord4D ? 4 : 6;
  if (rank != 0 && rank != thisRank) {
    return invalidInput("{}: expected {}-D records like the other IO list, got {}-D records", where, rank,
                        thisRank);
  }
  rank = thisRank;
  std::vector<VelaIo> ios(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < ios.size(); ++i) {
    const std::uint8_t* p = block.data.data() + 4 + i * record;
    for (int d = 0; d < thisRank; ++d) ios[i].shape[d] = loadLe<std::int32_t>(p + 4 * d);
    ios[i].elementSize = loadLe<std::int32_t>(p + 4 * thisRank);
    ios[i].offset = loadLe<std::int32_t>(p + 4 * thisRank + 4);
    ios[i].region = loadLe<std::int32_t>(p + 4 * thisRank + 8);
  }
  return ios;
}

}  // namespace

std::optional<std::uint64_t> velaIoElements(const VelaIo& io, int rank) {
  std::uint64_t n = 1;
  for (int d = 0; d < rank && d < 6; ++d) {
    if (io.shape[static_cast<std::size_t>(d)] < 0) return std::nullopt;
    const auto dim = static_cast<std::uint64_t>(io.shape[static_cast<std::size_t>(d)]);
    if (dim != 0 && n > (std::uint64_t{1} << 62) / dim) return std::nullopt;
    n *= dim;
  }
  return n;
}

std::string_view toString(VelaLayout layout) {
  switch (layout) {
    case VelaLayout::ScratchData4D: return "scratch_data, 4-D IO (ExecuTorch <= 0.6)";
    case VelaLayout::ScratchSize4D: return "scratch_size, 4-D IO (ExecuTorch 0.7)";
    case VelaLayout::ScratchSize6D: return "scratch_size, 6-D IO (ExecuTorch >= 1.0)";
  }
  return "unknown";
}

Result<VelaStream> parseVelaBinStream(std::span<const std::uint8_t> bytes) {
  VelaStream stream;
  std::size_t pos = 0;
  bool ended = false;
  while (pos < bytes.size()) {
    const std::size_t index = stream.blocks.size();
    if (ended) {
      return invalidInput(
          "vela_bin_stream: block {} 'vela_end_stream': expected the last block, got {} more bytes "
          "after it",
          index - 1, bytes.size() - pos);
    }
    if (bytes.size() - pos < kVelaBlockHeaderBytes) {
      return invalidInput(
          "vela_bin_stream: block {}: expected a {}-byte block header at offset {}, got {} bytes", index,
          kVelaBlockHeaderBytes, pos, bytes.size() - pos);
    }
    const std::uint8_t* header = bytes.data() + pos;
    const void* nul = std::memchr(header, 0, kNameBytes);
    if (nul == nullptr) {
      return invalidInput(
          "vela_bin_stream: block {}: name: expected at most 15 characters and a NUL, got \"{}\"", index,
          printable({header, kNameBytes}));
    }
    std::size_t nameLength = static_cast<std::size_t>(static_cast<const std::uint8_t*>(nul) - header);
    for (std::size_t c = 0; c < nameLength; ++c) {
      if (header[c] < 0x20 || header[c] >= 0x7F) {
        return invalidInput("vela_bin_stream: block {}: name: expected printable ASCII, got \"{}\"", index,
                            printable({header, nameLength}));
      }
    }
    VelaBlock block;
    block.name.assign(reinterpret_cast<const char*>(header), nameLength);
    block.headerOffset = pos;
    block.size = loadLe<std::uint32_t>(header + 16);
    std::uint8_t external = header[20];
    if (external > 1) {
      return invalidInput("vela_bin_stream: block {} '{}': external: expected 0 or 1, got {}", index,
                          block.name, external);
    }
    block.external = external == 1;
    const std::size_t dataStart = pos + kVelaBlockHeaderBytes;
    const std::size_t left = bytes.size() - dataStart;
    if (block.size > left) {
      return invalidInput(
          "vela_bin_stream: block {} '{}': size: expected at most {} (bytes left in the stream), got {}",
          index, block.name, left, block.size);
    }
    if (alignUp(block.size) > left) {
      return invalidInput(
          "vela_bin_stream: block {} '{}': expected its data padded to a multiple of 16 bytes, got the "
          "stream ending {} bytes after the data",
          index, block.name, left - block.size);
    }
    block.data = bytes.subspan(dataStart, block.size);
    if (index == 0 && block.name != kStart) {
      return invalidInput(
          "vela_bin_stream: block 0: expected the first block to be 'vela_bin_stream', got '{}'", block.name);
    }
    if (block.name == kEnd) ended = true;
    pos = dataStart + alignUp(block.size);
    stream.blocks.push_back(std::move(block));
  }
  if (stream.blocks.empty()) {
    return invalidInput(
        "vela_bin_stream: expected at least the 'vela_bin_stream' and 'vela_end_stream' blocks, got 0 "
        "bytes");
  }
  if (!ended) {
    return invalidInput("vela_bin_stream: block {} '{}': expected the last block to be 'vela_end_stream'",
                        stream.blocks.size() - 1, stream.blocks.back().name);
  }

  bool haveCommands = false;
  bool scratchData = false;
  int rank = 0;
  for (std::size_t i = 0; i < stream.blocks.size(); ++i) {
    const VelaBlock& block = stream.blocks[i];
    const std::string where = fmt::format("vela_bin_stream: block {} '{}'", i, block.name);
    if (!isKnown(block.name)) {
      stream.unknownBlocks.push_back(block.name);
      continue;
    }
    if ((block.name == kStart && i != 0) || (block.name == kEnd && i + 1 != stream.blocks.size())) {
      return invalidInput("{}: expected only once, as the {} block", where,
                          block.name == kStart ? "first" : "last");
    }
    if (block.external && block.name != "cmd_data" && block.name != "weight_data") {
      return invalidInput("{}: external: expected only cmd_data or weight_data to be external", where);
    }
    if (block.name == "cmd_data") {
      if (haveCommands) return invalidInput("{}: expected one cmd_data block, got a second", where);
      haveCommands = true;
      if (block.external) {
        stream.externalBlocks.push_back({block.name, std::string(block.data.begin(), block.data.end())});
        continue;
      }
      if (block.size < 4 || (std::memcmp(block.data.data(), "COP1", 4) != 0 &&
                             std::memcmp(block.data.data(), "COP2", 4) != 0)) {
        return invalidInput("{}: expected a command stream starting with COP1 or COP2, got \"{}\"", where,
                            printable(block.data.first(std::min<std::size_t>(4, block.size))));
      }
      stream.commandStream = block.data;
      stream.commandStreamMagic.assign(reinterpret_cast<const char*>(block.data.data()), 4);
    } else if (block.name == "weight_data") {
      if (block.external) {
        stream.externalBlocks.push_back({block.name, std::string(block.data.begin(), block.data.end())});
      } else {
        stream.weights = block.data;
      }
    } else if (block.name == "scratch_size") {
      if (block.size != 4) return invalidInput("{}: size: expected 4 bytes (u32), got {}", where, block.size);
      stream.scratchSize = loadLe<std::uint32_t>(block.data.data());
    } else if (block.name == "scratch_data") {
      scratchData = true;
      stream.scratchSize = block.size;
    } else if (block.name == "persistent_size") {
      if (block.size != 4) return invalidInput("{}: size: expected 4 bytes (u32), got {}", where, block.size);
      stream.persistentSize = loadLe<std::uint32_t>(block.data.data());
    } else if (block.name == "persistent_init") {
      stream.persistentInit = block.data;
    } else if (block.name == "inputs") {
      OPENVGF_ASSIGN_OR_RETURN(stream.inputs, parseIoList(block, i, rank));
    } else if (block.name == "outputs") {
      OPENVGF_ASSIGN_OR_RETURN(stream.outputs, parseIoList(block, i, rank));
    }
  }
  if (!haveCommands) return invalidInput("vela_bin_stream: expected a 'cmd_data' block, got none");
  stream.ioRank = rank == 0 ? 6 : rank;
  stream.layout = scratchData          ? VelaLayout::ScratchData4D
                  : stream.ioRank == 4 ? VelaLayout::ScratchSize4D
                                       : VelaLayout::ScratchSize6D;
  return stream;
}

Result<std::vector<std::uint8_t>> writeVelaBinStream(const std::vector<VelaBlockData>& blocks) {
  std::vector<std::uint8_t> out;
  auto frame = [&out](std::string_view name, std::span<const std::uint8_t> data, bool external) -> Status {
    if (name.empty() || name.size() >= kNameBytes) {
      return invalidInput("vela_bin_stream: block '{}': name: expected 1 to 15 characters, got {}", name,
                          name.size());
    }
    if (data.size() > 0xFFFFFFFFu) {
      return invalidInput("vela_bin_stream: block '{}': size: expected at most 4294967295 bytes, got {}",
                          name, data.size());
    }
    std::uint8_t header[kVelaBlockHeaderBytes] = {};
    std::memcpy(header, name.data(), name.size());
    storeLe(header + 16, static_cast<std::uint32_t>(data.size()));
    header[20] = external ? 1 : 0;
    out.insert(out.end(), header, header + kVelaBlockHeaderBytes);
    out.insert(out.end(), data.begin(), data.end());
    out.resize(alignUp(out.size()), 0);
    return {};
  };
  OPENVGF_TRY(frame(kStart, {}, false));
  for (const VelaBlockData& block : blocks) OPENVGF_TRY(frame(block.name, block.data, block.external));
  OPENVGF_TRY(frame(kEnd, {}, false));
  return out;
}

std::vector<std::uint8_t> encodeVelaIoList(const std::vector<VelaIo>& ios) {
  std::vector<std::uint8_t> out;
  appendLe<std::int32_t>(out, static_cast<std::int32_t>(ios.size()));
  for (const VelaIo& io : ios) {
    for (std::int32_t dim : io.shape) appendLe<std::int32_t>(out, dim);
    appendLe<std::int32_t>(out, io.elementSize);
    appendLe<std::int32_t>(out, io.offset);
    appendLe<std::int32_t>(out, io.region);
  }
  return out;
}

Result<std::vector<std::uint8_t>> makeVelaBinStream(std::span<const std::uint8_t> commandStream,
                                                    std::span<const std::uint8_t> weights,
                                                    std::uint32_t scratchSize,
                                                    const std::vector<VelaIo>& inputs,
                                                    const std::vector<VelaIo>& outputs) {
  std::vector<std::uint8_t> scratch;
  appendLe<std::uint32_t>(scratch, scratchSize);
  return writeVelaBinStream({
      {"cmd_data", {commandStream.begin(), commandStream.end()}, false},
      {"weight_data", {weights.begin(), weights.end()}, false},
      {"scratch_size", scratch, false},
      {"inputs", encodeVelaIoList(inputs), false},
      {"outputs", encodeVelaIoList(outputs), false},
  });
}

}  // namespace openvgf::ethosu
