// SPDX-License-Identifier: Apache-2.0
// openvgf-vgf-edit IN.vgf OUT.vgf SEED: writes IN with one structured edit of its tables, chosen
// by SEED, and prints the edit ("<kind>: <what>") or "no-edit: <why>". The mutation campaign
// (mutation_campaign.py, class `vgftable`) runs each edited file: every edit below makes a file
// whose tables contradict its shaders or its own dataflow, or leaves the program as it was, so
// a run that is accepted must give the seed's outputs bit for bit. Byte-level mutation rarely
// produces such files: they decode cleanly and describe a well-formed, wrong program.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/file_io.h"
#include "vgf/decoder.h"
#include "vgf/encoder.h"

namespace {

using namespace openvgf;

std::uint64_t resourceBytes(const vgf::Resource& r) {
  std::uint64_t n = vgf::formatElementBytes(r.vkFormat);
  for (std::int64_t d : r.shape) n *= d > 0 ? static_cast<std::uint64_t>(d) : 1;
  return n;
}

template <typename T>
std::size_t pick(std::mt19937& rng, const std::vector<T>& v) {
  return std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng);
}

// Each edit returns a description, or "" when the file has nothing it applies to.
std::string removeSegment(vgf::File& f, std::mt19937& rng) {
  if (f.segments.size() < 2) return "";
  const std::size_t s = pick(rng, f.segments);
  f.segments.erase(f.segments.begin() + static_cast<std::ptrdiff_t>(s));
  return fmt::format("segment {} of {} removed", s, f.segments.size() + 1);
}

// Two bindings of one segment exchange resources of different sizes or formats: the shader
// then reads or writes each through the other's extent.
std::string swapBindings(vgf::File& f, std::mt19937& rng) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (segment, set)
  for (std::size_t s = 0; s < f.segments.size(); ++s) {
    for (std::size_t k = 0; k < f.segments[s].setInfos.size(); ++k) {
      if (f.segments[s].setInfos[k].bindings.size() >= 2) pairs.emplace_back(s, k);
    }
  }
  for (int attempt = 0; attempt < 16 && !pairs.empty(); ++attempt) {
    auto [s, k] = pairs[pick(rng, pairs)];
    auto& bindings = f.segments[s].setInfos[k].bindings;
    const std::size_t a = pick(rng, bindings), b = pick(rng, bindings);
    if (a == b || bindings[a].mrtIndex >= f.resources.size() || bindings[b].mrtIndex >= f.resources.size()) continue;
    const vgf::Resource& ra = f.resources[bindings[a].mrtIndex];
    const vgf::Resource& rb = f.resources[bindings[b].mrtIndex];
    if (resourceBytes(ra) == resourceBytes(rb) && ra.vkFormat == rb.vkFormat) continue;
    std::swap(bindings[a].mrtIndex, bindings[b].mrtIndex);
    return fmt::format("segment {} bindings {} and {} swapped", s, bindings[a].binding, bindings[b].binding);
  }
  return "";
}

// A resource's shape changes its byte size: shrunk to ones, one dimension halved or doubled.
std::string resizeResource(vgf::File& f, std::mt19937& rng) {
  for (int attempt = 0; attempt < 16 && !f.resources.empty(); ++attempt) {
    const std::size_t i = pick(rng, f.resources);
    vgf::Resource& r = f.resources[i];
    if (r.shape.empty() || r.category == vgf::ResourceCategory::Constant) continue;
    const std::uint64_t before = resourceBytes(r);
    const std::size_t d = pick(rng, r.shape);
    switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
      case 0: for (std::int64_t& x : r.shape) x = 1; break;
      case 1: r.shape[d] = std::max<std::int64_t>(1, r.shape[d] / 2); break;
      default: r.shape[d] *= 2; break;
    }
    if (resourceBytes(r) == before) continue;
    return fmt::format("resource {} ({}) resized from {} to {} bytes", i, vgf::toString(r.category), before,
                       resourceBytes(r));
  }
  return "";
}

// An intermediate joins another's alias group (or two ungrouped ones share a new group).
std::string mergeAliasGroups(vgf::File& f, std::mt19937& rng) {
  std::vector<std::size_t> intermediates;
  for (std::size_t i = 0; i < f.resources.size(); ++i) {
    if (f.resources[i].category == vgf::ResourceCategory::Intermediate) intermediates.push_back(i);
  }
  if (intermediates.size() < 2) return "";
  const std::size_t a = intermediates[pick(rng, intermediates)], b = intermediates[pick(rng, intermediates)];
  if (a == b || (f.resources[a].aliasGroup == f.resources[b].aliasGroup && f.resources[a].aliasGroup != vgf::kUnset)) {
    return "";
  }
  std::uint32_t group = f.resources[b].aliasGroup;
  if (group == vgf::kUnset) {
    group = 0;
    for (const vgf::Resource& r : f.resources) {
      if (r.aliasGroup != vgf::kUnset) group = std::max(group, r.aliasGroup + 1);
    }
    f.resources[b].aliasGroup = group;
  }
  f.resources[a].aliasGroup = group;
  return fmt::format("resources {} and {} share alias group {}", a, b, group);
}

std::string growDispatch(vgf::File& f, std::mt19937& rng) {
  if (f.segments.empty()) return "";
  const std::size_t s = pick(rng, f.segments);
  if (!f.segments[s].dispatchShape) return "";
  auto& shape = *f.segments[s].dispatchShape;
  const std::size_t d = std::uniform_int_distribution<std::size_t>(0, 2)(rng);
  const std::uint32_t before = shape[d];
  const std::uint32_t factors[] = {2, 16, 1024, 65535};
  shape[d] = static_cast<std::uint32_t>(std::min<std::uint64_t>(
      65535, static_cast<std::uint64_t>(std::max(before, 1u)) * factors[std::uniform_int_distribution<int>(0, 3)(rng)]));
  if (shape[d] == before) return "";
  return fmt::format("segment {} dispatch[{}] {} -> {}", s, d, before, shape[d]);
}

// A resource's element type changes (another width or kind: int8 <-> float, 16 <-> 32 bits).
std::string changeFormat(vgf::File& f, std::mt19937& rng) {
  using V = vgf::VkFormatValue;
  const std::uint32_t formats[] = {static_cast<std::uint32_t>(V::R8Sint), static_cast<std::uint32_t>(V::R16Sint),
                                   static_cast<std::uint32_t>(V::R16Sfloat), static_cast<std::uint32_t>(V::R32Sint),
                                   static_cast<std::uint32_t>(V::R32Sfloat)};
  if (f.resources.empty()) return "";
  const std::size_t i = pick(rng, f.resources);
  vgf::Resource& r = f.resources[i];
  if (r.category == vgf::ResourceCategory::Constant) return "";
  const std::uint32_t before = r.vkFormat;
  r.vkFormat = formats[std::uniform_int_distribution<int>(0, 4)(rng)];
  if (r.vkFormat == before) return "";
  return fmt::format("resource {} format {} -> {}", i, vgf::formatName(before), vgf::formatName(r.vkFormat));
}

// A model output (or input) slot points at another resource.
std::string retargetInterface(vgf::File& f, std::mt19937& rng) {
  const bool output = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
  std::vector<vgf::BindingSlot>& slots = output ? f.outputs : f.inputs;
  if (slots.empty() || f.resources.size() < 2) return "";
  const std::size_t k = pick(rng, slots);
  const std::uint32_t before = slots[k].mrtIndex;
  slots[k].mrtIndex = static_cast<std::uint32_t>(pick(rng, f.resources));
  if (slots[k].mrtIndex == before) return "";
  return fmt::format("model {} {} points at resource {} instead of {}", output ? "output" : "input", k,
                     slots[k].mrtIndex, before);
}

// Two inputs or two outputs get the same name.
std::string duplicateName(vgf::File& f, std::mt19937& rng) {
  const bool output = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
  std::vector<std::string>& names = output ? f.outputNames : f.inputNames;
  if (names.size() < 2) return "";
  const std::size_t a = pick(rng, names), b = pick(rng, names);
  if (a == b) return "";
  names[a] = names[b];
  return fmt::format("{} names {} and {} both '{}'", output ? "output" : "input", a, b, names[b]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: openvgf-vgf-edit IN.vgf OUT.vgf SEED\n");
    return 2;
  }
  Result<std::vector<std::uint8_t>> bytes = readFile(argv[1]);
  if (!bytes) {
    fmt::print(stderr, "{}\n", bytes.error().message());
    return 2;
  }
  Result<vgf::File> file = vgf::decode(*bytes);  // its constants point into `bytes`
  if (!file) {
    fmt::print(stderr, "{}\n", file.error().message());
    return 2;
  }
  std::mt19937 rng(static_cast<std::uint32_t>(std::stoul(argv[3])));
  using Edit = std::string (*)(vgf::File&, std::mt19937&);
  struct Named {
    const char* kind;
    Edit edit;
  };
  const Named edits[] = {{"remove-segment", removeSegment},  {"swap-bindings", swapBindings},
                         {"resize-resource", resizeResource}, {"merge-alias", mergeAliasGroups},
                         {"grow-dispatch", growDispatch},     {"change-format", changeFormat},
                         {"retarget-interface", retargetInterface}, {"duplicate-name", duplicateName}};
  const Named& chosen = edits[std::uniform_int_distribution<std::size_t>(0, std::size(edits) - 1)(rng)];
  const std::string what = chosen.edit(*file, rng);
  if (what.empty()) {
    fmt::print("no-edit: {} does not apply\n", chosen.kind);
    return 0;
  }
  Result<std::vector<std::uint8_t>> encoded = vgf::encode(*file);
  if (!encoded) {
    fmt::print("no-edit: {}: the encoder refuses the result: {}\n", chosen.kind, encoded.error().message());
    return 0;
  }
  if (Status written = writeFileAtomic(argv[2], *encoded); !written) {
    fmt::print(stderr, "{}\n", written.error().message());
    return 2;
  }
  fmt::print("{}: {}\n", chosen.kind, what);
  return 0;
}
