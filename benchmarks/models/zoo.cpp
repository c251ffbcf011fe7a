// SPDX-License-Identifier: Apache-2.0
// The zoo's model table.
#include "benchmarks/models/zoo.h"

#include <cmath>

#include <fmt/format.h>

#include "common/file_io.h"
#include "tosa/float_types.h"
#include "tosa/npy.h"
#include "tosa/writer.h"

namespace openvgf::benchmarks {

namespace {

struct ConvShape {
  std::int64_t size, in, out, kernel;
};

// ResNet-50 layer shapes: the 3x3 conv of each stage, and its 1x1 reduce / expand convs.
constexpr ConvShape kConvShapes[] = {
    {56, 64, 64, 3},    {28, 128, 128, 3},  {14, 256, 256, 3},  {7, 512, 512, 3},
    {56, 256, 64, 1},   {56, 64, 256, 1},   {28, 512, 128, 1},  {14, 1024, 256, 1},
    {7, 2048, 512, 1},  {7, 512, 2048, 1}};

std::vector<ModelInfo> makeModels() {
  std::vector<ModelInfo> models;
  auto cnn = [&](std::string name, std::string description, auto build, bool int8) {
    models.push_back({name, "cnn", std::move(description), true,
                      [=](const ZooOptions& o) { return build(name, int8, o); }});
  };
  cnn("mobilenet_v2", "MobileNetV2 1.0, 224x224, fp32", buildMobileNetV2, false);
  cnn("mobilenet_v2_int8", "MobileNetV2 1.0, 224x224, int8 per-channel", buildMobileNetV2, true);
  cnn("resnet50", "ResNet-50 v1.5, 224x224, fp32", buildResNet50, false);
  cnn("resnet50_int8", "ResNet-50 v1.5, 224x224, int8 per-channel", buildResNet50, true);
  for (bool fp16 : {false, true}) {
    std::string name = fp16 ? "bert_layer_fp16" : "bert_layer";
    models.push_back({name, "transformer",
                      fmt::format("BERT-base encoder layer, seq 128, {}", fp16 ? "fp16" : "fp32"), false,
                      [=](const ZooOptions&) { return buildBertLayer(name, fp16); }});
  }
  for (bool fp16 : {false, true}) {
    for (std::int64_t n : {512, 1024, 2048, 4096}) {
      std::string name = fmt::format("matmul_{}_{}", n, fp16 ? "fp16" : "fp32");
      models.push_back({name, "matmul", fmt::format("MATMUL 1x{0}x{0}x{0} {1}", n, fp16 ? "fp16" : "fp32"), false,
                        [=](const ZooOptions&) { return buildMatmul(name, n, fp16); }});
    }
  }
  for (const ConvShape& c : kConvShapes) {
    std::string name = c.kernel == 3 ? fmt::format("conv3x3_{0}x{0}x{1}", c.size, c.in)
                                     : fmt::format("conv1x1_{0}x{0}x{1}x{2}", c.size, c.in, c.out);
    models.push_back({name, "conv",
                      fmt::format("CONV2D {0}x{0} on {1}x{1}x{2} -> {3} channels, fp32", c.kernel, c.size, c.in, c.out),
                      true, [=](const ZooOptions& o) { return buildConvLayer(name, c.size, c.in, c.out, c.kernel, o); }});
  }
  models.push_back({"add_64m", "elementwise", "ADD of two fp32 tensors of 64 Mi elements", false,
                    [](const ZooOptions&) { return buildAdd("add_64m", 64ll * 1024 * 1024); }});
  return models;
}

}  // namespace

const std::vector<ModelInfo>& zooModels() {
  static const std::vector<ModelInfo> models = makeModels();
  return models;
}

const ModelInfo* findModel(std::string_view name) {
  for (const ModelInfo& m : zooModels()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string modelStem(const ModelInfo& model, const ZooOptions& options) {
  std::string stem = model.name;
  if (model.batched && options.batch != 1) stem += fmt::format("_b{}", options.batch);
  if (model.batched && model.family == "cnn" && options.resolution != 224) stem += fmt::format("_r{}", options.resolution);
  return stem;
}

}  // namespace openvgf::benchmarks

namespace openvgf::benchmarks {

namespace {

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (char c : text) {
    h ^= static_cast<std::uint8_t>(c);
    h *= 0x100000001B3ull;
  }
  return h;
}

}  // namespace

tosa::HostTensor deterministicInput(const tosa::Shape& shape, tosa::DType dtype, std::uint64_t seed) {
  tosa::HostTensor t(dtype, shape);
  Rng rng(seed);
  std::int64_t n = t.size();
  switch (dtype) {
    case tosa::DType::Fp32:
      for (float& v : t.as<float>()) v = rng.symmetric();
      break;
    case tosa::DType::Fp16:
      for (std::uint16_t& v : t.as<std::uint16_t>()) v = tosa::floatToFp16(rng.symmetric());
      break;
    case tosa::DType::Int8:
      // The float input quantised with scale 1/127: the int8 twin of a model sees its input.
      for (std::int64_t i = 0; i < n; ++i) {
        t.as<std::int8_t>()[i] = static_cast<std::int8_t>(std::lround(rng.symmetric() * 127.0f));
      }
      break;
    default:
      break;
  }
  return t;
}

Result<WrittenModel> writeModel(const ModelInfo& model, const ZooOptions& options, const std::filesystem::path& outDir,
                                const WriteOptions& write) {
  WrittenModel result;
  result.stem = modelStem(model, options);
  Net net = model.build(options);
  result.tosaPath = outDir / (result.stem + ".tosa");
  result.folder = outDir / result.stem;
  result.parameters = net.parameterCount();
  result.macs = net.macCount();

  std::error_code ec;
  std::filesystem::create_directories(result.folder / "weights", ec);
  if (!ec) std::filesystem::create_directories(result.folder / "inputs", ec);
  if (ec) return environmentError("{}: cannot create folder: {}", result.folder.string(), ec.message());

  OPENVGF_ASSIGN_OR_RETURN(result.graph, net.graph());
  const tosa::Graph& graph = result.graph;
  OPENVGF_TRY(withContext(tosa::writeGraph(graph, result.tosaPath), result.tosaPath.string()));

  nlohmann::json description = net.description();
  description["stem"] = result.stem;
  description["family"] = model.family;
  description["description"] = model.description;
  description["tosa"] = result.stem + ".tosa";
  if (model.batched) {
    description["batch"] = options.batch;
    if (model.family == "cnn") description["resolution"] = options.resolution;
  }
  if (write.weights) {
    for (const auto& [name, tensor] : net.weights()) {
      std::filesystem::path path = result.folder / "weights" / (name + ".npy");
      OPENVGF_TRY(tosa::npy::writeTensor(path, tensor));
    }
  }
  nlohmann::json inputFiles = nlohmann::json::array();
  const tosa::Block& block = *graph.mainBlock();
  for (std::size_t i = 0; i < block.inputs.size(); ++i) {
    const tosa::Tensor* t = block.findTensor(block.inputs[i]);
    std::string file = fmt::format("inputs/{}.npy", t->name);
    inputFiles.push_back(file);
    if (write.inputs) {
      // Seeded by the stem without "_int8", so a model and its int8 twin get the same input.
      std::string seedName = result.stem;
      if (std::size_t at = seedName.find("_int8"); at != std::string::npos) seedName.erase(at, 5);
      tosa::HostTensor value = deterministicInput(t->shape, t->dtype, fnv1a(seedName) + i);
      OPENVGF_TRY(tosa::npy::writeTensor(result.folder / file, value));
    }
  }
  description["input_files"] = std::move(inputFiles);
  OPENVGF_TRY(writeFileAtomic(result.folder / "model.json", description.dump(1)));
  return result;
}

}  // namespace openvgf::benchmarks
