// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the VGF decoder: any input must decode or fail cleanly; a decoded
// file must render as JSON and text without faults, and must survive encode -> decode
// (the encoder's output of a valid File is always decodable).
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "vgf/decoder.h"
#include "vgf/encoder.h"
#include "vgf/json.h"
#include "vgf/summary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openvgf;
  // The decoder requires a 4-byte aligned buffer, as every real caller provides.
  std::vector<std::uint8_t> bytes(data, data + size);
  Result<vgf::File> file = vgf::decode(bytes);
  if (!file) return 0;
  (void)vgf::dumpJson(vgf::toJson(*file));
  (void)vgf::formatSummary(*file);
  Result<std::vector<std::uint8_t>> encoded = vgf::encode(*file);
  if (!encoded) return 0;
  Result<vgf::File> again = vgf::decode(*encoded);
  if (!again) std::abort();
  Result<std::vector<std::uint8_t>> reencoded = vgf::encode(*again);
  if (!reencoded || *reencoded != *encoded) std::abort();
  return 0;
}
