// SPDX-License-Identifier: Apache-2.0
// Host I/O with the openvgf C++ API on a model whose output has the shape of its last input
// (the ADD fixture): float inputs of 1.5 in pinned memory, two runs in flight waited for in
// reverse order, then the output kept on the device as the last input of a second model on
// the same device. Usage: openvgf_host_io_example MODEL.{tosa,vgf}
#include <openvgf/openvgf.hpp>

#include <cstdio>
#include <vector>

static void print(const char* what, const openvgf::Tensor& t) {
  std::printf("%s:", what);
  for (std::int64_t i = 0; i < 4 && i < t.elementCount(); ++i) std::printf(" %g", t.dataAs<float>()[i]);
  std::printf("\n");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  try {
    openvgf::Model first = openvgf::Model::open(argv[1]);
    openvgf::Model second = openvgf::Model::open(argv[1], {}, first);  // on first's device
    openvgf::SessionOptions options;
    options.inFlight = 2;  // the next run's upload overlaps this one's compute
    openvgf::Session session = first.createSession(options);
    std::vector<openvgf::Tensor> inputs;
    for (const openvgf::TensorInfo& info : first.inputs()) {
      openvgf::Tensor tensor = first.allocatePinned(info.dtype, info.shape);  // moved by DMA
      for (std::int64_t i = 0; i < tensor.elementCount(); ++i) tensor.dataAs<float>()[i] = 1.5f;
      inputs.push_back(tensor);
    }
    openvgf::RunHandle one = session.runAsync(inputs);
    openvgf::RunHandle two = session.runAsync(inputs);
    print("second run", two.wait()[0]);
    print("first run", one.wait()[0]);

    openvgf::RunOptions keep;
    keep.keepOnDevice = true;
    std::vector<openvgf::Tensor> kept = session.run(inputs, keep);  // MemoryLocation::Device
    std::vector<openvgf::Tensor> chained = inputs;
    chained.back() = kept[0];  // no host round trip
    print("chained", second.createSession().run(chained)[0]);
  } catch (const openvgf::Exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return e.exitCode();
  }
  return 0;
}
