// SPDX-License-Identifier: Apache-2.0
// `openvgf bench MODEL --devices LIST`: how a DevicePool's throughput scales. Each named
// device is measured alone (a pool of that one device) and then all of them together, with
// the same inputs, runs in flight and item counts, so the efficiency (together / the sum of
// alone) compares like with like. Inputs are pseudo-random values made once and shared by
// every item (the pool reads them; nothing is generated inside the timed loop).
#include "bench_devices.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

struct Measurement {
  std::string devices;                 ///< the pool's selector: one index, or the whole list
  double itemsPerS = 0;                ///< median over the repeats
  std::vector<double> samples;         ///< items/s of each repeat
  std::map<int, std::size_t> perDevice;  ///< items each device ran in the last repeat
};

// Runs `count` items of `inputs` through `pool`; every item must succeed (a benchmark that
// skipped failures would time less work than it claims). Returns the items each device ran.
std::map<int, std::size_t> runItems(DevicePool& pool, std::size_t count, const std::vector<Tensor>& inputs) {
  std::map<int, std::size_t> perDevice;
  pool.run(
      count, [&](std::size_t, std::vector<Tensor>& item) { item = inputs; },
      [&](std::size_t index, PoolResult result) {
        if (!result.ok) fail(result.code, fmt::format("bench --devices: item {} failed: {}", index, result.error));
        ++perDevice[result.device];
      });
  return perDevice;
}

Measurement measure(const DevicesBenchOptions& options, const std::string& devices, std::size_t deviceCount,
                    std::vector<Tensor>& inputs) {
  PoolOptions poolOptions;
  poolOptions.devices = devices;
  poolOptions.inFlight = options.inFlight;
  poolOptions.model.target = options.target;
  poolOptions.model.validate = options.validate;
  DevicePool pool = DevicePool::open(options.path, poolOptions);
  if (inputs.empty()) {
    for (std::size_t i = 0; i < pool.inputs().size(); ++i) inputs.push_back(randomTensor(pool.inputs()[i], 1 + i));
  }
  Measurement m;
  m.devices = devices;
  if (options.warmup > 0) runItems(pool, static_cast<std::size_t>(options.warmup) * deviceCount, inputs);
  const std::size_t count = static_cast<std::size_t>(options.iterations) * deviceCount;
  for (int r = 0; r < options.repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    m.perDevice = runItems(pool, count, inputs);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m.samples.push_back(static_cast<double>(count) / seconds);
  }
  m.itemsPerS = median(m.samples);
  return m;
}

std::string sampleList(const std::vector<double>& samples) {
  std::string text;
  for (double s : samples) text += fmt::format("{}{:.1f}", text.empty() ? "" : ", ", s);
  return text;
}

std::string deviceLabel(const std::vector<DeviceInfo>& all, int index) {
  for (const DeviceInfo& info : all) {
    if (info.index == index) return fmt::format("device {} ({})", index, info.name);
  }
  return fmt::format("device {}", index);
}

// Samples per item: dimension 0 of the first input when it has rank 2 or more (a batch), else 0.
std::int64_t samplesPerItem(const std::vector<Tensor>& inputs) {
  if (inputs.empty() || inputs[0].shape().size() < 2) return 0;
  return inputs[0].shape()[0];
}

std::string textReport(const DevicesBenchOptions& options, const std::vector<DeviceInfo>& all,
                       const std::vector<int>& indices, const std::vector<Measurement>& alone,
                       const Measurement& together, double efficiency, std::int64_t batch) {
  std::string out = fmt::format(
      "{}: {} device(s), {} runs in flight per device, {} timed items per device (median of {} repeats){}\n",
      options.path, indices.size(), options.inFlight, options.iterations, options.repeats,
      batch > 1 ? fmt::format(", {} samples per item", batch) : "");
  auto rate = [&](double itemsPerS) {
    return batch > 1 ? fmt::format("{:.1f} items/s ({:.0f} samples/s)", itemsPerS, itemsPerS * static_cast<double>(batch))
                     : fmt::format("{:.1f} items/s", itemsPerS);
  };
  for (std::size_t i = 0; i < indices.size(); ++i) {
    out += fmt::format("  {} alone: {} [{}]\n", deviceLabel(all, indices[i]), rate(alone[i].itemsPerS),
                       sampleList(alone[i].samples));
  }
  std::string split;
  for (const auto& [device, count] : together.perDevice) {
    split += fmt::format("{}device {} ran {}", split.empty() ? "" : ", ", device, count);
  }
  out += fmt::format("  all {} together: {} [{}] ({} in the last repeat)\n", indices.size(), rate(together.itemsPerS),
                     sampleList(together.samples), split);
  out += fmt::format("  scaling efficiency: {:.3f} (together / sum of alone)\n", efficiency);
  return out;
}

std::string jsonReport(const DevicesBenchOptions& options, const std::vector<DeviceInfo>& all,
                       const std::vector<int>& indices, const std::vector<Measurement>& alone,
                       const Measurement& together, double efficiency, std::int64_t batch) {
  std::string devices;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    std::string name;
    for (const DeviceInfo& info : all) {
      if (info.index == indices[i]) name = info.name;
    }
    devices += fmt::format("{}{{\"index\": {}, \"name\": {}, \"items_per_s\": {:.3f}, \"samples\": [{}]}}",
                           i == 0 ? "" : ", ", indices[i], jsonString(name), alone[i].itemsPerS,
                           sampleList(alone[i].samples));
  }
  std::string split;
  for (const auto& [device, count] : together.perDevice) {
    split += fmt::format("{}\"{}\": {}", split.empty() ? "" : ", ", device, count);
  }
  return fmt::format(
      "{{\"model\": {}, \"in_flight\": {}, \"items_per_device\": {}, \"repeats\": {}, \"samples_per_item\": {}, "
      "\"alone\": [{}], \"together_items_per_s\": {:.3f}, \"together_samples\": [{}], \"together_items_by_device\": "
      "{{{}}}, \"efficiency\": {:.4f}}}\n",
      jsonString(options.path), options.inFlight, options.iterations, options.repeats, batch, devices,
      together.itemsPerS, sampleList(together.samples), split, efficiency);
}

}  // namespace

std::string benchmarkDevices(const DevicesBenchOptions& options) {
  const std::vector<DeviceInfo> all = listDevices();
  const std::vector<int> indices = selectDevices(options.devices, all);
  std::vector<Tensor> inputs;
  std::vector<Measurement> alone;
  for (int index : indices) alone.push_back(measure(options, std::to_string(index), 1, inputs));
  const Measurement together = measure(options, options.devices, indices.size(), inputs);
  double sumAlone = 0;
  for (const Measurement& m : alone) sumAlone += m.itemsPerS;
  const double efficiency = together.itemsPerS / sumAlone;
  const std::int64_t batch = samplesPerItem(inputs);
  return options.json ? jsonReport(options, all, indices, alone, together, efficiency, batch)
                      : textReport(options, all, indices, alone, together, efficiency, batch);
}

}  // namespace openvgf::cli
