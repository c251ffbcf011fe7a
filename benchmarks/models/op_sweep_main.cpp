// SPDX-License-Identifier: Apache-2.0
// openvgf-op-sweep: writes the operator sweep's single-op graphs (tests/support/op_sweep_cases.h,
// the cases op_sweep_test runs) as .tosa files with their seeded inputs, so tools outside the test
// suite can run them (benchmarks/peers/arm-mlsdk/compare.py sends them through Arm's stack).
//
//   openvgf-op-sweep --list
//   openvgf-op-sweep --out sweep --cases CONV2D_INT8,ADD_FP32     # substrings of case names
//
// Per case: <out>/<case>.tosa and <out>/<case>/inputs/<graph input name>.npy.
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "tests/support/op_sweep_cases.h"
#include "tosa/npy.h"
#include "tosa/writer.h"

namespace {

using namespace openvgf;

bool selected(const std::string& name, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  for (const std::string& p : patterns) {
    if (name.find(p) != std::string::npos) return true;
  }
  return false;
}

Status writeCase(const testing::Case& c, const std::filesystem::path& out) {
  auto [graph, inputs] = testing::buildCase(c);
  if (!graph) return Unexpected(std::move(graph).error());
  if (auto written = tosa::writeGraph(*graph, out / (c.name + ".tosa")); !written) return written;
  const std::vector<std::string>& names = graph->mainBlock()->inputs;
  if (names.size() != inputs.size()) {
    return makeError(ErrorKind::Internal, "case {}: {} graph inputs but {} input tensors", c.name, names.size(),
                     inputs.size());
  }
  const std::filesystem::path dir = out / c.name / "inputs";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return makeError(ErrorKind::Environment, "{}: {}", dir.string(), ec.message());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (auto w = tosa::npy::writeTensor(dir / (names[i] + ".npy"), inputs[i]); !w) return w;
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"openvgf-op-sweep: the operator sweep's single-op graphs as .tosa files with their inputs"};
  std::string out;
  std::vector<std::string> patterns;
  bool list = false;
  app.add_option("--out", out, "Output folder");
  app.add_option("--cases", patterns, "Case-name substrings (comma-separated; default: every case)")->delimiter(',');
  app.add_flag("--list", list, "List the case names");
  CLI11_PARSE(app, argc, argv);
  if (!list && out.empty()) {
    std::fprintf(stderr, "openvgf-op-sweep: --out DIR or --list is required\n");
    return 2;
  }
  std::error_code ec;
  if (!list) std::filesystem::create_directories(out, ec);
  if (ec) {
    std::fprintf(stderr, "openvgf-op-sweep: %s: %s\n", out.c_str(), ec.message().c_str());
    return 1;
  }
  int written = 0;
  for (const testing::Case& c : testing::allCases()) {
    if (!selected(c.name, patterns)) continue;
    if (list) {
      fmt::print("{}\n", c.name);
      continue;
    }
    if (Status s = writeCase(c, out); !s) {
      std::fprintf(stderr, "openvgf-op-sweep: %s\n", s.error().message().c_str());
      return 1;
    }
    ++written;
  }
  if (!list && written == 0) {
    std::fprintf(stderr, "openvgf-op-sweep: no case name contains any of the --cases substrings\n");
    return 2;
  }
  if (!list) fmt::print("wrote {} case(s) to {}\n", written, out);
  return 0;
}
