// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the .tosa reader. Any input must give a clean error or a graph; a
// graph must survive the verifier, the JSON dump and the profile report, and must write and
// read back equal (the reader/writer round-trip property).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "tosa/json.h"
#include "tosa/reader.h"
#include "tosa/verifier.h"
#include "tosa/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openvgf::tosa;
  auto graph = readGraph(std::span<const std::uint8_t>(data, size), "fuzz.tosa");
  if (!graph) return 0;
  (void)verifyAll(*graph);
  (void)requirements(*graph);
  JsonOptions options;
  options.maxValues = 16;
  (void)toJson(*graph, options);
  auto bytes = writeGraph(*graph);
  if (!bytes) std::abort();  // everything the reader produces must be writable
  auto again = readGraph(*bytes, "rewritten.tosa");
  if (!again || !(*again == *graph)) std::abort();
  return 0;
}
