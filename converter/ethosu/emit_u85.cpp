// SPDX-License-Identifier: Apache-2.0
// U85 register emission.
#include "converter/ethosu/stages.h"

namespace openvgf::converter::ethosu {

Status chooseU85Block(NpuOp& op, const AcceleratorConfig& config) {
  return unsupported("{}: compiling for {} is not implemented", op.what, config.name);
}

Status encodeU85Weights(NpuOp& op, const AcceleratorConfig& config, std::vector<std::uint8_t>&, CompileStats&) {
  return unsupported("{}: compiling for {} is not implemented", op.what, config.name);
}

std::vector<std::uint32_t> emitU85(const std::vector<NpuOp>&, const AcceleratorConfig&, const AddressOf&, CompileStats&) {
  return {};
}

}  // namespace openvgf::converter::ethosu
