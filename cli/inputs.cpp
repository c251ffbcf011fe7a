// SPDX-License-Identifier: Apache-2.0
// The --input values of `run` and `compare` (see inputs.h).
#include "inputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <set>

namespace openvgf::cli {
namespace {

// "FILE:1x224x224x3:uint8" -> the raw file's shape and NumPy type; nullopt when the argument
// does not end in such a suffix (or names an existing file as it is).
struct RawSpec {
  std::string file;
  Shape shape;
  std::string type;
};
std::optional<RawSpec> rawSpec(const std::string& argument) {
  std::error_code ec;
  if (std::filesystem::exists(argument, ec)) return std::nullopt;
  const std::size_t typeColon = argument.rfind(':');
  if (typeColon == std::string::npos || typeColon == 0) return std::nullopt;
  const std::size_t shapeColon = argument.rfind(':', typeColon - 1);
  if (shapeColon == std::string::npos) return std::nullopt;
  const std::string shapeText = argument.substr(shapeColon + 1, typeColon - shapeColon - 1);
  if (shapeText.empty() || shapeText.find_first_not_of("0123456789x") != std::string::npos)
    return std::nullopt;
  RawSpec spec{argument.substr(0, shapeColon), {}, argument.substr(typeColon + 1)};
  std::size_t start = 0;
  while (start <= shapeText.size()) {
    const std::size_t x = std::min(shapeText.find('x', start), shapeText.size());
    const std::string dim = shapeText.substr(start, x - start);
    if (dim.empty() || dim.size() > 12) {
      fail(ErrorCode::InvalidInput,
           fmt::format("--input {}: shape '{}': expected dimensions like 1x224x224x3", argument, shapeText));
    }
    spec.shape.push_back(std::stoll(dim));
    start = x + 1;
  }
  return spec;
}

// Values for the inputs nobody gave: with --random-inputs, the model's inputs that have no
// default and no given value by name take one "" (next unbound input) each.
std::vector<std::string> namesWithRandom(const RunOptions& options, const Model& model,
                                         const GivenInputs& given, std::size_t& randomFrom) {
  std::vector<std::string> names = given.names();
  randomFrom = names.size();
  if (!options.randomSeed) return names;
  const std::set<std::string> named(names.begin(), names.end());
  const auto unnamed = static_cast<std::size_t>(std::count(names.begin(), names.end(), std::string()));
  std::size_t missing = 0;
  for (const TensorInfo& input : model.inputs()) {
    if (!input.hasDefault && !named.contains(input.name)) ++missing;
  }
  for (std::size_t k = unnamed; k < missing; ++k) names.emplace_back();
  return names;
}

}  // namespace

std::function<void()> addInputOptions(CLI::App& sub, RunOptions& options) {
  sub.add_option(
      "-i,--input", options.inputs,
      "[NAME=]FILE: a .npy, a PNG or JPEG image (see --mean, --std, --layout), or raw data as "
      "FILE:SHAPE:TYPE (x.bin:1x224x224x3:uint8); without NAME inputs bind in the model's input order");
  sub.add_option("--mean", options.mean,
                 "Image inputs: per-channel mean of pixel/255 (one value or one per channel)")
      ->delimiter(',');
  sub.add_option("--std", options.stddev,
                 "Image inputs: per-channel standard deviation (float = (pixel/255 - mean) / std)")
      ->delimiter(',');
  sub.add_option("--layout", options.layout, "Image inputs: nhwc or nchw (default: from the input's shape)")
      ->check(CLI::IsMember({"nhwc", "nchw"}));
  auto seed = std::make_shared<std::string>();
  CLI::Option* random =
      sub.add_option("--random-inputs", *seed,
                     "Seeded random values (default seed 0) for every input not given with --input")
          ->expected(0, 1)
          ->type_name("[SEED]");
  return [&options, seed, random]() {
    if (random->count() == 0) return;
    if (seed->empty()) {
      options.randomSeed = 0;
      return;
    }
    if (seed->find_first_not_of("0123456789") != std::string::npos || seed->size() > 19) {
      fail(ErrorCode::InvalidInput,
           fmt::format("--random-inputs: expected a whole number (the seed), got '{}'", *seed));
    }
    options.randomSeed = std::stoull(*seed);
  };
}

std::vector<std::string> GivenInputs::names() const {
  std::vector<std::string> out;
  for (const GivenInput& g : given) out.push_back(g.name);
  return out;
}

bool GivenInputs::allArrays() const {
  return std::all_of(given.begin(), given.end(), [](const GivenInput& g) { return g.array.has_value(); });
}

GivenInputs readGivenInputs(const RunOptions& options) {
  GivenInputs inputs;
  for (const std::string& argument : options.inputs) {
    auto [name, file] = splitNamedInput(argument);
    GivenInput g{std::move(name), file, std::nullopt};
    if (std::optional<RawSpec> raw = rawSpec(file)) {
      g.file = raw->file;
      g.array = NpyArray::readRaw(raw->file, raw->shape, raw->type);
    } else if (!isImageFile(file)) {
      g.array = NpyArray::read(file);
    }
    inputs.given.push_back(std::move(g));
  }
  return inputs;
}

std::map<std::string, Tensor> bindGivenInputs(const RunOptions& options, const Model& model,
                                              const GivenInputs& given) {
  std::size_t randomFrom = 0;
  const std::vector<std::string> names = namesWithRandom(options, model, given, randomFrom);
  std::vector<int> binding;
  try {
    binding = model.bindInputs(names, options.path + ": --input");
  } catch (const Exception& e) {
    const bool state = std::any_of(model.inputs().begin(), model.inputs().end(),
                                   [](const TensorInfo& t) { return t.name.starts_with("state:"); });
    const bool defaults = std::any_of(model.inputs().begin(), model.inputs().end(),
                                      [](const TensorInfo& t) { return t.hasDefault; });
    if (!state || defaults) throw;
    throw Exception(e.code(),
                    fmt::format("{}; `state:` inputs start from the variables' initial values when the "
                                "model is a .tosa or --check names the .tosa",
                                e.what()));
  }
  ImageOptions image;
  image.mean = options.mean;
  image.stddev = options.stddev;
  image.layout = options.layout;
  std::map<std::string, Tensor> inputs;
  for (std::size_t i = 0; i < binding.size(); ++i) {
    if (binding[i] < 0) continue;
    const auto k = static_cast<std::size_t>(binding[i]);
    const TensorInfo& info = model.inputs()[i];
    if (k >= randomFrom) {
      inputs[info.name] = randomTensor(info, *options.randomSeed + i);
      spdlog::info("input '{}': random values (seed {})", info.name, *options.randomSeed + i);
      continue;
    }
    const GivenInput& g = given.given[k];
    inputs[info.name] = g.array
                            ? g.array->toTensor(info, fmt::format("{}: input '{}'", options.path, info.name))
                            : readImage(g.file, info, image);
  }
  return inputs;
}

void printTopK(const Model& model, const std::vector<Tensor>& outputs, std::size_t count, int k) {
  for (std::size_t o = 0; o < count; ++o) {
    const std::vector<double> values = toDoubles(outputs[o]);
    std::vector<std::size_t> order(values.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t shown = std::min(order.size(), static_cast<std::size_t>(k));
    // Largest first; NaN last; ties by index.
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                      [&](std::size_t a, std::size_t b) {
                        if (std::isnan(values[a]) != std::isnan(values[b])) return std::isnan(values[b]);
                        return values[a] > values[b] || (values[a] == values[b] && a < b);
                      });
    std::vector<std::string> items;
    for (std::size_t i = 0; i < shown; ++i)
      items.push_back(fmt::format("{} ({:.6g})", order[i], values[order[i]]));
    std::printf("%s: top %zu: %s\n", model.outputs()[o].name.c_str(), shown,
                fmt::format("{}", fmt::join(items, ", ")).c_str());
  }
}

}  // namespace openvgf::cli
