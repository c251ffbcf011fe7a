// SPDX-License-Identifier: Apache-2.0
// convertEthosU: glue between the TOSA reader, the Ethos-U converter and the output file.
#include "cli/convert_ethosu.h"

#include <fmt/format.h>

#include "common/file_io.h"
#include "converter/ethosu/compiler.h"
#include "tosa/reader.h"

namespace openvgf::cli {

Result<int> convertEthosU(const std::string& input, const std::string& output, const std::string& target, bool stats) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, tosa::readGraph(std::filesystem::path(input)));
  converter::ethosu::CompileOptions options;
  if (!target.empty()) options.target = target;
  OPENVGF_ASSIGN_OR_RETURN(converter::ethosu::CompiledModel model, converter::ethosu::compile(graph, options, input));
  OPENVGF_TRY(writeFileAtomic(output, model.velaBinStream));
  if (stats) {
    const converter::ethosu::CompileStats& s = model.stats;
    fmt::print("target:            {}\n", options.target);
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
