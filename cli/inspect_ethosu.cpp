// SPDX-License-Identifier: Apache-2.0
// `openvgf inspect model.ethosu`: the packaging (accelerator, regions, I/O placement) and the
// disassembled command stream of a vela_bin_stream or a bare COP1 payload, as the installed
// API's openvgf::inspect writes it (`--json` too).
#include <cstdio>

#include "cli/command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

Result<int> inspectEthosU(const InspectOptions& options, std::span<const std::uint8_t>) {
  if (options.dumpSpirv || options.dumpConstant) {
    fail(ErrorCode::InvalidInput,
         options.path + ": --dump-spirv / --dump-constant: expected a .vgf file, got an Ethos-U command stream");
  }
  const std::string text = inspect(options.path, options.json);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return 0;
}

OPENVGF_REGISTER_INSPECT(FileKind::EthosU, inspectEthosU);

}  // namespace
}  // namespace openvgf::cli
