// SPDX-License-Identifier: Apache-2.0
// Weight and scale streams of the convolutions, in the format library's weight order.
#include <algorithm>

#include "converter/ethosu/stages.h"
#include "ethosu/scale_stream.h"
#include "ethosu/weight_codec.h"
#include "ethosu/weight_order.h"

namespace openvgf::converter::ethosu {
namespace {

using namespace ::openvgf::ethosu;

/// U55/U65: one stream pair per core. Core k computes OFM channels k, k + cores, ... and its
/// weights are ordered for a block depth of (blkD + cores - 1 - k) / cores (Vela
/// weight_compressor.py).
Status encodeU55(NpuOp& op, const AcceleratorConfig& config, std::vector<std::uint8_t>& readOnly, CompileStats& stats) {
  const WeightVolume& v = op.weights;
  const int cores = std::min(config.cores, v.ofmDepth);
  const std::size_t perChannel = static_cast<std::size_t>(v.kernelHeight) * v.kernelWidth * v.ifmDepth;
  for (int core = 0; core < cores; ++core) {
    WeightLayout layout;
    layout.ofmDepth = (v.ofmDepth + config.cores - 1 - core) / config.cores;
    layout.ofmBlockDepth = (op.blkD + config.cores - 1 - core) / config.cores;
    layout.kernelHeight = v.kernelHeight;
    layout.kernelWidth = v.kernelWidth;
    layout.ifmDepth = v.ifmDepth;
    layout.ofmUblockDepth = config.ofmUblock.d;
    layout.ifmUblockDepth = config.ifmUblock.d;
    layout.dilationY = op.dy;
    layout.dilationX = op.dx;
    layout.traversal = v.traversal;
    std::vector<std::int16_t> values;
    std::vector<ScaleRecord> records;
    for (int c = core; c < v.ofmDepth; c += config.cores) {
      const auto first = v.values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c) * perChannel);
      values.insert(values.end(), first, first + static_cast<std::ptrdiff_t>(perChannel));
      const auto k = static_cast<std::size_t>(c);
      records.push_back(ScaleRecord{op.bias[k], op.scales[k], op.shifts[k]});
    }
    const std::vector<std::uint8_t> stream = encodeWeightStream(weightsInOrder(weightStreamOrder(layout), values));
    OPENVGF_ASSIGN_OR_RETURN(const std::vector<std::uint8_t> scales, withContext(encodeScaleStream(records), op.what));
    const auto k = static_cast<std::size_t>(core);
    op.scaleOffset[k] = appendReadOnly(readOnly, scales);
    op.scaleLength[k] = static_cast<std::uint32_t>(scales.size());
    op.weightOffset[k] = appendReadOnly(readOnly, stream);
    op.weightLength[k] = static_cast<std::uint32_t>(stream.size());
    stats.weightBytes += stream.size();
    stats.scaleBytes += scales.size();
  }
  // A core without channels gets core 0's addresses and length 0 (Vela's convention).
  for (int core = cores; core < config.cores; ++core) {
    op.weightOffset[static_cast<std::size_t>(core)] = op.weightOffset[0];
    op.scaleOffset[static_cast<std::size_t>(core)] = op.scaleOffset[0];
  }
  return {};
}

}  // namespace

std::uint32_t appendReadOnly(std::vector<std::uint8_t>& readOnly, std::span<const std::uint8_t> bytes) {
  readOnly.resize((readOnly.size() + 15) / 16 * 16, 0);
  const auto at = static_cast<std::uint32_t>(readOnly.size());
  readOnly.insert(readOnly.end(), bytes.begin(), bytes.end());
  return at;
}

std::vector<std::int16_t> weightsInOrder(std::span<const std::int64_t> order, std::span<const std::int16_t> ohwi) {
  std::vector<std::int16_t> ordered;
  ordered.reserve(order.size());
  for (std::int64_t index : order) ordered.push_back(index < 0 ? std::int16_t{0} : ohwi[static_cast<std::size_t>(index)]);
  return ordered;
}

Status encodeWeights(std::vector<NpuOp>& ops, const AcceleratorConfig& config, std::vector<std::uint8_t>& readOnly,
                     CompileStats& stats) {
  for (NpuOp& op : ops) {
    if (op.kind != Kind::Conv && op.kind != Kind::Depthwise) continue;
    if (config.product == Product::U85) {
      OPENVGF_TRY(encodeU85Weights(op, config, readOnly, stats));
    } else {
      OPENVGF_TRY(encodeU55(op, config, readOnly, stats));
    }
  }
  return {};
}

}  // namespace openvgf::converter::ethosu
