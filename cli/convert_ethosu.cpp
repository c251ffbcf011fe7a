// SPDX-License-Identifier: Apache-2.0
// convertEthosU: `convert --target ethos-u*` through api::convertToEthosU, and its --stats.
#include "cli/convert_ethosu.h"

#include <fmt/format.h>

#include "api/convert.h"

namespace openvgf::cli {

Result<int> convertEthosU(const std::string& input, const std::string& output, const std::string& target, bool stats) {
  OPENVGF_ASSIGN_OR_RETURN(converter::ethosu::CompiledModel model, api::convertToEthosU(input, output, target));
  if (stats) {
    const converter::ethosu::CompileStats& s = model.stats;
    fmt::print("target:            {}\n", target);
    fmt::print("npu operations:    {}\n", s.npuOperations);
    fmt::print("commands:          {}\n", s.commands);
    fmt::print("weight bytes:      {}\n", s.weightBytes);
    fmt::print("scale bytes:       {}\n", s.scaleBytes);
    fmt::print("other constants:   {}\n", s.constantBytes);
    fmt::print("scratch size:      {}\n", s.scratchSize);
    fmt::print("MACs:              {}\n", s.macs);
    fmt::print("estimated cycles:  {}\n", s.cycles);
  }
  return 0;
}

}  // namespace openvgf::cli
