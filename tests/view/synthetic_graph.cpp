// SPDX-License-Identifier: Apache-2.0
// openvgf-view-synthetic OUT.tosa [OPERATORS]: writes a graph of OPERATORS (default 5000)
// elementwise operators for the `openvgf view` scale test: each operator reads one or two of
// the 32 most recent results, so the graph is a wide, tangled DAG (long edges, many crossings)
// rather than a chain. Deterministic (fixed seed); no CONST operators, so the page must show
// exactly OPERATORS operator nodes.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "tosa/builder.h"

int main(int argc, char** argv) {
  using namespace openvgf::tosa;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.tosa [OPERATORS]\n", argv[0]);
    return 2;
  }
  const int operators = argc > 2 ? std::stoi(argv[2]) : 5000;
  Builder b;
  std::vector<Value> recent{b.input("x", DType::Fp32, {1, 4, 4, 8}), b.input("y", DType::Fp32, {1, 4, 4, 8})};
  std::mt19937 random(35);
  auto pick = [&]() {
    // Mostly the last few results, sometimes one from further back (a long edge).
    const std::size_t span = std::min<std::size_t>(recent.size(), random() % 4 == 0 ? 32 : 4);
    return recent[recent.size() - 1 - random() % span];
  };
  for (int i = 0; i < operators; ++i) {
    Value v;
    switch (random() % 6) {
      case 0: v = b.add(pick(), pick()); break;
      case 1: v = b.sub(pick(), pick()); break;
      case 2: v = b.maximum(pick(), pick()); break;
      case 3: v = b.minimum(pick(), pick()); break;
      case 4: v = b.tanh(pick()); break;
      default: v = b.abs(pick()); break;
    }
    recent.push_back(v);
    if (recent.size() > 64) recent.erase(recent.begin());
  }
  b.output(recent.back());
  openvgf::Status written = b.write(argv[1]);
  if (!written) {
    std::fprintf(stderr, "%s\n", written.error().message().c_str());
    return 1;
  }
  return 0;
}
