// SPDX-License-Identifier: Apache-2.0
// COP1 reading and writing; every length is checked against the bytes present before use.
#include "ethosu/cop1.h"
#include "common/bytes.h"

#include <cstring>

namespace openvgf::ethosu {
namespace {

constexpr std::uint8_t kActionOptimizerConfig = 0x01;
constexpr std::uint8_t kActionCommandStream = 0x02;
constexpr std::uint8_t kActionReadApb = 0x03;
constexpr std::uint8_t kActionDumpShram = 0x04;
constexpr std::uint8_t kActionNop = 0x05;


}  // namespace

Result<Cop1Payload> readCop1(std::span<const std::uint8_t> bytes, std::string_view name) {
  if (bytes.size() < 4) return invalidInput("{}: expected at least 4 bytes, got {}", name, bytes.size());
  if (bytes.size() % 4 != 0) return invalidInput("{}: expected a size that is a multiple of 4, got {}", name, bytes.size());
  const std::uint32_t magic = loadLe<std::uint32_t>(bytes, 0);
  if (magic != kCop1Magic) {
    if (std::memcmp(bytes.data(), "COP2", 4) == 0) return unsupported("{}: COP2 payloads are not supported (only COP1)", name);
    return invalidInput("{}: word 0: expected the COP1 magic 0x{:08x}, got 0x{:08x}", name, kCop1Magic, magic);
  }
  Cop1Payload payload;
  bool haveConfig = false;
  bool haveStream = false;
  std::size_t offset = 4;
  while (offset < bytes.size()) {
    const std::uint32_t action = loadLe<std::uint32_t>(bytes, offset);
    const std::uint8_t code = action & 0xFF;
    const std::size_t word = offset / 4;
    switch (code) {
      case kActionOptimizerConfig:
        if (bytes.size() - offset < 12) {
          return invalidInput("{}: word {}: OPTIMIZER_CONFIG: expected CONFIG and ID words, got end of payload", name, word);
        }
        payload.optimizerParam = action >> 16;
        payload.config = loadLe<std::uint32_t>(bytes, offset + 4);
        payload.id = loadLe<std::uint32_t>(bytes, offset + 8);
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
  return payload;
}

Result<std::vector<std::uint8_t>> writeCop1(const Cop1Payload& payload) {
  if (payload.commandStream.size() % 4 != 0) {
    return internalError("COP1 payload: command stream size {} is not a multiple of 4", payload.commandStream.size());
  }
  const std::size_t words = payload.commandStream.size() / 4;
  if (words >= (std::size_t{1} << 24)) return unsupported("COP1 payload: command stream of {} words exceeds 2^24", words);
  std::vector<std::uint8_t> out;
  appendLe<std::uint32_t>(out, kCop1Magic);
  appendLe<std::uint32_t>(out, kActionOptimizerConfig | ((payload.optimizerParam & 0xFFFF) << 16));
  appendLe<std::uint32_t>(out, payload.config);
  appendLe<std::uint32_t>(out, payload.id);
  // The driver wants the stream itself 16-byte aligned: pad with NOPs so that the word after
  // COMMAND_STREAM starts on a 16-byte boundary.
  while ((out.size() + 4) % 16 != 0) appendLe<std::uint32_t>(out, kActionNop);
  appendLe<std::uint32_t>(out, kActionCommandStream | static_cast<std::uint32_t>((words >> 16) << 8) |
                     static_cast<std::uint32_t>((words & 0xFFFF) << 16));
  out.insert(out.end(), payload.commandStream.begin(), payload.commandStream.end());
  return out;
}

Result<std::vector<std::uint8_t>> writeCop1(std::span<const std::uint32_t> words, const AcceleratorConfig& config) {
  Cop1Payload payload;
  payload.config = configWord(config);
  payload.id = idWord(config.product);
  for (std::uint32_t w : words) appendLe(payload.commandStream, w);
  return writeCop1(payload);
}

}  // namespace openvgf::ethosu
