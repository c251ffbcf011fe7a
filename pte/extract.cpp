// SPDX-License-Identifier: Apache-2.0
// Payload selection, output naming, manifest and inspect views of a program (see extract.h).
#include "pte/extract.h"

#include <fmt/format.h>

#include <charconv>

#include "common/sha256.h"
#include "ethosu/cop1.h"
#include "vgf/json.h"
#include "vgf/summary.h"

namespace openvgf::pte {
namespace {

/// File-name-safe text: characters outside [A-Za-z0-9._-] become '_'.
std::string safeName(std::string_view text) {
  std::string out(text.empty() ? "unnamed" : text);
  for (char& c : out) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

std::string_view extensionFor(PayloadKind kind) {
  switch (kind) {
    case PayloadKind::Vgf: return ".vgf";
    case PayloadKind::VelaBinStream: return ".ethosu.bin";
    case PayloadKind::Raw: break;
  }
  return ".bin";
}

/// The accelerator a vela_bin_stream's COP1 CONFIG image names ("ethos-u85-256"), or why
/// there is none.
std::string velaAccelerator(const VelaStream& v) {
  if (v.commandStreamMagic != "COP1") return "unknown (no COP1 command stream)";
  Result<::openvgf::ethosu::Cop1Payload> cop1 = ::openvgf::ethosu::readCop1(v.commandStream);
  if (!cop1) return "unknown (" + cop1.error().message() + ")";
  Result<::openvgf::ethosu::AcceleratorConfig> config = ::openvgf::ethosu::acceleratorFromConfigWord(cop1->config);
  if (!config) return "unknown (" + config.error().message() + ")";
  return std::string(config->name);
}

/// Compile-spec values are usually UTF-8 text; anything else is shown as hex.
std::string specText(std::span<const std::uint8_t> value) {
  bool text = true;
  for (std::uint8_t c : value) text = text && c >= 0x20 && c < 0x7F;
  if (text) return std::string(value.begin(), value.end());
  std::string out = "0x";
  for (std::uint8_t c : value) out += fmt::format("{:02x}", c);
  return out;
}

nlohmann::json ioJson(const std::vector<VelaIo>& ios, int rank) {
  nlohmann::json out = nlohmann::json::array();
  for (const VelaIo& io : ios) {
    std::vector<std::int32_t> shape(io.shape.begin(), io.shape.begin() + rank);
    out.push_back(
        {{"shape", shape}, {"element_size", io.elementSize}, {"offset", io.offset}, {"region", io.region}});
  }
  return out;
}

}  // namespace

Result<std::vector<ExtractionItem>> selectPayloads(const Program& program, const ExtractionFilter& filter) {
  std::optional<std::size_t> planPosition;
  if (filter.plan) {
    for (std::size_t p = 0; p < program.plans.size(); ++p) {
      if (program.plans[p].name == *filter.plan) planPosition = p;
    }
    std::size_t number = 0;
    const std::string& text = *filter.plan;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (!planPosition && ec == std::errc() && end == text.data() + text.size() &&
        number < program.plans.size()) {
      planPosition = number;
    }
    if (!planPosition) {
      std::string names;
      for (const ExecutionPlan& plan : program.plans)
        names += fmt::format("{}'{}'", names.empty() ? "" : ", ", plan.name);
      return invalidInput("--plan: expected a plan name or index ({}), got '{}'",
                          names.empty() ? "none" : names, *filter.plan);
    }
  }
  std::vector<ExtractionItem> items;
  bool delegateFound = false;
  for (std::size_t p = 0; p < program.plans.size(); ++p) {
    if (planPosition && *planPosition != p) continue;
    const ExecutionPlan& plan = program.plans[p];
    for (std::size_t d = 0; d < plan.delegates.size(); ++d) {
      if (filter.delegate && *filter.delegate != d) continue;
      delegateFound = true;
      const Delegate& delegate = plan.delegates[d];
      ExtractionItem item;
      item.plan = plan.name;
      item.planIndex = p;
      item.delegateIndex = d;
      item.delegate = &delegate;
      item.fileName = fmt::format("{}_{}_{}{}", safeName(plan.name), d, safeName(delegate.backendId),
                                  extensionFor(delegate.kind));
      items.push_back(std::move(item));
    }
  }
  if (filter.delegate && !delegateFound) {
    return invalidInput("--delegate: expected a delegate index that exists in the selected plan(s), got {}",
                        *filter.delegate);
  }
  // Plans with equal sanitized names would collide: keep names unique by adding the plan position.
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (std::size_t j = i + 1; j < items.size(); ++j) {
      if (items[j].fileName == items[i].fileName)
        items[j].fileName = fmt::format("p{}_{}", items[j].planIndex, items[j].fileName);
    }
  }
  return items;
}

nlohmann::json manifestJson(const std::string& source, const std::vector<ExtractionItem>& items) {
  nlohmann::json delegates = nlohmann::json::array();
  for (const ExtractionItem& item : items) {
    const Delegate& d = *item.delegate;
    nlohmann::json entry = {{"plan", item.plan},
                            {"plan_index", item.planIndex},
                            {"index", item.delegateIndex},
                            {"backend_id", d.backendId},
                            {"location", toString(d.location)},
                            {"data_index", d.dataIndex},
                            {"offset", d.payloadOffset},
                            {"size", d.payload.size()},
                            {"sha256", sha256Hex(d.payload)},
                            {"payload_kind", toString(d.kind)},
                            {"file", item.fileName}};
    if (!d.payloadProblem.empty()) entry["problem"] = d.payloadProblem;
    delegates.push_back(entry);
  }
  return {{"source", source}, {"delegates", delegates}};
}

std::string formatSummary(const Program& program) {
  std::string out;
  auto line = [&out](const std::string& text) { out += text + "\n"; };
  if (program.extendedHeader) {
    line(fmt::format(
        "ExecuTorch program (ET12), extended header eh00 length {}: program_size {}, segment_base_offset "
        "{}, segment_data_size {}",
        program.extendedHeader->length, program.programSize, program.segmentBaseOffset,
        program.extendedHeader->segmentDataSize));
  } else {
    line(fmt::format("ExecuTorch program (ET12), no extended header, {} bytes", program.programSize));
  }
  line(fmt::format("inline delegate data: {}, segments: {}", program.inlineDataCount,
                   program.segments.size()));
  for (std::size_t s = 0; s < program.segments.size(); ++s) {
    line(fmt::format("  segment [{}] offset {} size {}", s, program.segments[s].offset,
                     program.segments[s].size));
  }
  for (const NamedData& named : program.namedData) {
    line(fmt::format("  named data '{}' -> segment {}", named.key, named.segmentIndex));
  }
  line(fmt::format("execution plans ({}):", program.plans.size()));
  for (std::size_t p = 0; p < program.plans.size(); ++p) {
    const ExecutionPlan& plan = program.plans[p];
    line(fmt::format("  [{}] '{}': {} delegate(s)", p, plan.name, plan.delegates.size()));
    for (std::size_t d = 0; d < plan.delegates.size(); ++d) {
      const Delegate& delegate = plan.delegates[d];
      line(fmt::format("    delegate [{}] {}: {} index {}, {} bytes at offset {}, payload {}", d,
                       delegate.backendId, toString(delegate.location), delegate.dataIndex,
                       delegate.payload.size(), delegate.payloadOffset, toString(delegate.kind)));
      for (const CompileSpec& spec : delegate.compileSpecs) {
        line(fmt::format("      spec {} = {}", spec.key, specText(spec.value)));
      }
      if (!delegate.payloadProblem.empty()) {
        line(fmt::format("      INVALID payload: {}", delegate.payloadProblem));
        continue;
      }
      if (delegate.vela) {
        const VelaStream& v = *delegate.vela;
        line(fmt::format("      vela_bin_stream: {} blocks, layout {}", v.blocks.size(), toString(v.layout)));
        if (!v.commandStreamMagic.empty()) {
          line(fmt::format("      command stream {} ({} bytes), weights {} bytes, scratch {} bytes",
                           v.commandStreamMagic, v.commandStream.size(), v.weights.size(),
                           v.scratchSize ? fmt::format("{}", *v.scratchSize) : std::string("?")));
          line(fmt::format("      accelerator {}", velaAccelerator(v)));
        }
        for (const VelaExternalRef& ref : v.externalBlocks) {
          line(fmt::format("      {} is external (.ptd named data key {})", ref.block, ref.key));
        }
        line(fmt::format("      inputs {}, outputs {}", v.inputs.size(), v.outputs.size()));
        for (const std::string& name : v.unknownBlocks) line(fmt::format("      unknown block '{}'", name));
      }
      if (delegate.kind == PayloadKind::Vgf) {
        std::vector<std::uint8_t> storage;
        Result<vgf::File> file = decodeVgfPayload(delegate.payload, storage);
        if (file) out += vgf::formatSummary(*file, "      ");
      }
    }
  }
  return out;
}

nlohmann::json toJson(const Program& program) {
  nlohmann::json root;
  if (program.extendedHeader) {
    root["extended_header"] = {{"length", program.extendedHeader->length},
                               {"program_size", program.extendedHeader->programSize},
                               {"segment_base_offset", program.extendedHeader->segmentBaseOffset},
                               {"segment_data_size", program.extendedHeader->segmentDataSize}};
  }
  root["program_size"] = program.programSize;
  root["version"] = program.version;
  nlohmann::json segments = nlohmann::json::array();
  for (const Segment& s : program.segments) segments.push_back({{"offset", s.offset}, {"size", s.size}});
  root["segments"] = segments;
  nlohmann::json named = nlohmann::json::array();
  for (const NamedData& n : program.namedData)
    named.push_back({{"key", n.key}, {"segment_index", n.segmentIndex}});
  root["named_data"] = named;
  nlohmann::json plans = nlohmann::json::array();
  for (const ExecutionPlan& plan : program.plans) {
    nlohmann::json delegates = nlohmann::json::array();
    for (std::size_t d = 0; d < plan.delegates.size(); ++d) {
      const Delegate& delegate = plan.delegates[d];
      nlohmann::json specs = nlohmann::json::array();
      for (const CompileSpec& spec : delegate.compileSpecs) {
        specs.push_back({{"key", spec.key}, {"value", specText(spec.value)}});
      }
      nlohmann::json entry = {{"index", d},
                              {"backend_id", delegate.backendId},
                              {"location", toString(delegate.location)},
                              {"data_index", delegate.dataIndex},
                              {"offset", delegate.payloadOffset},
                              {"size", delegate.payload.size()},
                              {"payload_kind", toString(delegate.kind)},
                              {"compile_specs", specs}};
      if (!delegate.payloadProblem.empty()) entry["problem"] = delegate.payloadProblem;
      if (delegate.vela) {
        const VelaStream& v = *delegate.vela;
        nlohmann::json blocks = nlohmann::json::array();
        for (const VelaBlock& b : v.blocks) {
          blocks.push_back(
              {{"name", b.name}, {"offset", b.headerOffset}, {"size", b.size}, {"external", b.external}});
        }
        nlohmann::json external = nlohmann::json::array();
        for (const VelaExternalRef& ref : v.externalBlocks)
          external.push_back({{"block", ref.block}, {"key", ref.key}});
        entry["vela_bin_stream"] = {{"layout", toString(v.layout)},
                                    {"blocks", blocks},
                                    {"command_stream_magic", v.commandStreamMagic},
                                    {"command_stream_size", v.commandStream.size()},
                                    {"weight_size", v.weights.size()},
                                    {"inputs", ioJson(v.inputs, v.ioRank)},
                                    {"outputs", ioJson(v.outputs, v.ioRank)},
                                    {"external_blocks", external},
                                    {"unknown_blocks", v.unknownBlocks}};
        if (v.scratchSize) entry["vela_bin_stream"]["scratch_size"] = *v.scratchSize;
        if (!v.commandStreamMagic.empty()) entry["vela_bin_stream"]["accelerator"] = velaAccelerator(v);
      }
      if (delegate.kind == PayloadKind::Vgf && delegate.payloadProblem.empty()) {
        std::vector<std::uint8_t> storage;
        Result<vgf::File> file = decodeVgfPayload(delegate.payload, storage);
        if (file) entry["vgf"] = vgf::toJson(*file);
      }
      delegates.push_back(entry);
    }
    plans.push_back({{"name", plan.name}, {"delegates", delegates}});
  }
  root["execution_plans"] = plans;
  return root;
}

}  // namespace openvgf::pte
