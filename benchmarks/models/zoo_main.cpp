// SPDX-License-Identifier: Apache-2.0
// openvgf-zoo: writes the benchmark models as .tosa files (plus, per model, a folder with
// model.json, weights/*.npy and deterministic inputs/*.npy).
//
//   openvgf-zoo --list
//   openvgf-zoo --out zoo --models mobilenet_v2,resnet50 --batch 32
#include <chrono>
#include <cstdio>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "benchmarks/models/zoo.h"

namespace {

using namespace openvgf;
using namespace openvgf::benchmarks;

std::vector<std::string> splitList(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const std::string& item : items) {
    std::stringstream stream(item);
    std::string part;
    while (std::getline(stream, part, ',')) {
      if (!part.empty()) out.push_back(part);
    }
  }
  return out;
}

Result<int> runZoo(const std::string& outDir, const std::vector<std::string>& requested, bool list,
                   const ZooOptions& options, const WriteOptions& write) {
  if (list) {
    for (const ModelInfo& m : zooModels()) {
      fmt::print("{:<26} {:<12} {}{}\n", m.name, m.family, m.description, m.batched ? " [--batch]" : "");
    }
    return 0;
  }
  std::vector<const ModelInfo*> chosen;
  if (requested.empty()) {
    for (const ModelInfo& m : zooModels()) chosen.push_back(&m);
  } else {
    for (const std::string& name : requested) {
      const ModelInfo* m = findModel(name);
      if (m == nullptr) return invalidInput("--models: unknown model '{}' (see --list)", name);
      chosen.push_back(m);
    }
  }
  for (const ModelInfo* m : chosen) {
    auto start = std::chrono::steady_clock::now();
    OPENVGF_ASSIGN_OR_RETURN(WrittenModel written, writeModel(*m, options, outDir, write));
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("{:<30} {:>11} params {:>8.3f} GMAC  {:.2f} s  -> {}\n", written.stem, written.parameters,
               static_cast<double>(written.macs) * 1e-9, seconds, written.tosaPath.string());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"openvgf-zoo: writes the benchmark model zoo as TOSA 1.0 files"};
  std::string outDir = "zoo";
  std::vector<std::string> models;
  bool list = false;
  ZooOptions options;
  bool noWeights = false;
  bool noInputs = false;
  app.add_option("-o,--out", outDir, "Output folder")->capture_default_str();
  app.add_option("-m,--models", models, "Comma-separated model names (default: all)");
  app.add_flag("-l,--list", list, "List the models and exit");
  app.add_option("-b,--batch", options.batch, "Batch size of the CNNs and conv micro models")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("-r,--resolution", options.resolution, "Input height/width of the CNNs (>= 8)")
      ->check(CLI::Range(8, 1024))
      ->capture_default_str();
  app.add_flag("--no-weights", noWeights, "Do not write <model>/weights/*.npy");
  app.add_flag("--no-inputs", noInputs, "Do not write <model>/inputs/*.npy");
  CLI11_PARSE(app, argc, argv);

  Result<int> result = runZoo(outDir, splitList(models), list, options, {!noWeights, !noInputs});
  if (!result) {
    fmt::print(stderr, "openvgf-zoo: error: {}\n", result.error().message());
    return result.error().exitCode();
  }
  return *result;
}
