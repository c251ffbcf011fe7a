// SPDX-License-Identifier: Apache-2.0
// The model zoo's registry: every model the zoo can write, by name, with the options that
// shape it (batch size and input resolution for the CNNs).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "benchmarks/models/net.h"
#include "common/error.h"

namespace openvgf::benchmarks {

struct ZooOptions {
  std::int64_t batch = 1;        // CNNs and conv micro models only
  std::int64_t resolution = 224; // CNN input height and width
};

struct ModelInfo {
  std::string name;
  std::string family;       // "cnn", "transformer", "matmul", "conv", "elementwise"
  std::string description;
  bool batched = false;     // takes --batch / --resolution
  std::function<Net(const ZooOptions&)> build;
};

/// Every model, in listing order.
const std::vector<ModelInfo>& zooModels();
const ModelInfo* findModel(std::string_view name);

/// The file stem a model is written under: the name, plus _b<B> for batch > 1 and _r<R> for
/// a resolution other than 224 (batched models only).
std::string modelStem(const ModelInfo& model, const ZooOptions& options);

// Families (one file each).
Net buildMobileNetV2(const std::string& name, bool int8, const ZooOptions& options);
Net buildResNet50(const std::string& name, bool int8, const ZooOptions& options);
Net buildBertLayer(const std::string& name, bool fp16);
Net buildMatmul(const std::string& name, std::int64_t n, bool fp16);
Net buildConvLayer(const std::string& name, std::int64_t size, std::int64_t inChannels,
                   std::int64_t outChannels, std::int64_t kernel, const ZooOptions& options);
Net buildAdd(const std::string& name, std::int64_t elements);

}  // namespace openvgf::benchmarks

namespace openvgf::benchmarks {

struct WriteOptions {
  bool weights = true;  // <stem>/weights/*.npy (the .tosa holds them anyway)
  bool inputs = true;   // <stem>/inputs/<input>.npy, deterministic
};

/// What writeModel produced.
struct WrittenModel {
  std::string stem;
  std::filesystem::path tosaPath;
  std::filesystem::path folder;
  std::int64_t parameters = 0;
  std::int64_t macs = 0;
  tosa::Graph graph;  // what was written
};

/// Builds `model` and writes <outDir>/<stem>.tosa plus the folder <outDir>/<stem>/ with
/// model.json, weights/*.npy and inputs/*.npy.
Result<WrittenModel> writeModel(const ModelInfo& model, const ZooOptions& options,
                                const std::filesystem::path& outDir, const WriteOptions& write);

/// The deterministic input the zoo writes for a graph input: U(-1, 1) for float types, the
/// same values times 127, rounded, for int8. `seed` is derived from the model stem (without
/// "_int8") and the input index.
tosa::HostTensor deterministicInput(const tosa::Shape& shape, tosa::DType dtype, std::uint64_t seed);

}  // namespace openvgf::benchmarks
