// SPDX-License-Identifier: Apache-2.0
// Runs a model with the openvgf C++ API: every float input filled with 1.5, the first
// values of each output printed. Usage: openvgf_example MODEL.{tosa,vgf,pte}
#include <openvgf/openvgf.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  try {
    openvgf::Model model = openvgf::Model::open(argv[1]);  // .tosa is converted (and cached)
    openvgf::Session session = model.createSession();
    std::vector<openvgf::Tensor> inputs;
    for (const openvgf::TensorInfo& info : model.inputs()) {
      openvgf::Tensor tensor(info.dtype, info.shape);  // zero-filled
      if (info.dtype == openvgf::DataType::Float32) {
        for (std::int64_t i = 0; i < tensor.elementCount(); ++i) tensor.dataAs<float>()[i] = 1.5f;
      }
      inputs.push_back(tensor);
    }
    std::vector<openvgf::Tensor> outputs = session.run(inputs);
    std::printf("device: %s\n", model.deviceName().c_str());
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      std::printf("%s %s:", model.outputs()[k].name.c_str(), openvgf::toString(outputs[k].dtype()));
      for (std::int64_t i = 0; i < 4 && i < outputs[k].elementCount(); ++i) {
        if (outputs[k].dtype() == openvgf::DataType::Float32) std::printf(" %g", outputs[k].dataAs<float>()[i]);
      }
      std::printf("\n");
    }
  } catch (const openvgf::Exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return e.exitCode();
  }
  return 0;
}
