// SPDX-License-Identifier: Apache-2.0
// Test helper: hand-built TOSA flatbuffers with arbitrary (also invalid) op and type numbers,
// which the writer rightly refuses to produce.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tosa/tosa_generated.h"

namespace openvgf::tosa {

namespace fb = ::openvgf::tosa::fb;

struct RawTensor {
  std::string name;
  std::vector<std::int32_t> shape;
  std::uint32_t type;
  std::vector<std::uint8_t> data;
  std::uint64_t offset = 0, size = 0;  // an external data range (offset from the start of the file)
};

inline std::vector<std::uint8_t> rawGraph(std::int32_t major, std::int32_t minor, std::uint32_t op,
                                          const std::vector<RawTensor>& tensors, std::uint8_t tag = 0) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::TosaTensor>> ts;
  for (const RawTensor& t : tensors) {
    auto data = t.data.empty() ? 0 : fbb.CreateVector(t.data).o;
    ts.push_back(fb::CreateTosaTensor(fbb, fbb.CreateString(t.name), fbb.CreateVector(t.shape),
                                      static_cast<fb::DType>(t.type),
                                      flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>>(data), false, false, 0,
                                      t.offset, t.size));
  }
  std::vector<std::string> outs = {tensors.empty() ? "x" : tensors[0].name};
  auto opTable = fb::CreateTosaOperator(fbb, static_cast<fb::Op>(op), static_cast<fb::Attribute>(tag), 0, 0,
                                        fbb.CreateVectorOfStrings(outs));
  std::vector<flatbuffers::Offset<fb::TosaOperator>> ops = {opTable};
  auto block =
      fb::CreateTosaBasicBlock(fbb, fbb.CreateString("main"), fbb.CreateVector(ops), fbb.CreateVector(ts));
  std::vector<flatbuffers::Offset<fb::TosaBasicBlock>> blocks = {block};
  std::vector<flatbuffers::Offset<fb::TosaRegion>> regions = {
      fb::CreateTosaRegion(fbb, fbb.CreateString("main"), fbb.CreateVector(blocks))};
  auto root =
      fb::CreateTosaGraph(fbb, fb::CreateVersion(fbb, major, minor, 0, false), fbb.CreateVector(regions));
  fb::FinishTosaGraphBuffer(fbb, root);
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

}  // namespace openvgf::tosa
