// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the .pte reader and the vela_bin_stream parser: any input must be
// read or rejected cleanly, and everything `inspect` and `extract` derive from a program
// (summary, JSON, payload selection, manifest) must work on whatever was read.
#include <cstdint>
#include <vector>

#include "pte/extract.h"
#include "pte/program.h"
#include "ethosu/vela_bin_stream.h"
#include "vgf/json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openvgf;
  std::vector<std::uint8_t> bytes(data, data + size);  // 8-byte aligned, as the reader expects
  (void)pte::parseVelaBinStream(bytes);
  Result<pte::Program> program = pte::readProgram(bytes);
  if (!program) return 0;
  (void)pte::formatSummary(*program);
  (void)vgf::dumpJson(pte::toJson(*program));
  Result<std::vector<pte::ExtractionItem>> items = pte::selectPayloads(*program, {});
  if (items) (void)vgf::dumpJson(pte::manifestJson("fuzz.pte", *items));
  return 0;
}
