// SPDX-License-Identifier: Apache-2.0
// ResNet-50 (v1.5: the stride sits on the 3x3 conv of the bottleneck): 7x7/2 stem + ReLU,
// 3x3/2 max pool, bottleneck stages of 3, 4, 6, 3 blocks (1x1, 3x3, 1x1 x4 with projection
// shortcuts where shape changes), global average pool, 1000-way classifier. NHWC, SAME
// padding; a strided 1x1 projection on an even input first drops the row/column the kernel
// never reaches (TOSA's exact output-size rule).
#include <fmt/format.h>

#include "benchmarks/models/cnn.h"
#include "benchmarks/models/zoo.h"

namespace openvgf::benchmarks {

Net buildResNet50(const std::string& name, bool int8, const ZooOptions& options) {
  Net net(name, 0x5265734E65743530ull);
  Cnn cnn(net, int8 ? Precision::Int8 : Precision::Fp32, options.resolution);
  Act x = cnn.input(options.batch, options.resolution, options.resolution, 3);
  x = cnn.conv(x, 64, 7, 2, Activation::Relu, "stem");
  x = cnn.maxPool(x, 3, 2);
  constexpr std::int64_t kBlocks[] = {3, 4, 6, 3};
  std::int64_t width = 64;
  std::int64_t channels = 64;
  for (int stage = 0; stage < 4; ++stage) {
    for (std::int64_t i = 0; i < kBlocks[stage]; ++i) {
      std::int64_t stride = (i == 0 && stage > 0) ? 2 : 1;
      std::string prefix = fmt::format("layer{}_{}", stage + 1, i);
      Act h = cnn.conv(x, width, 1, 1, Activation::Relu, prefix + "_conv1");
      h = cnn.conv(h, width, 3, stride, Activation::Relu, prefix + "_conv2");
      h = cnn.conv(h, width * 4, 1, 1, Activation::None, prefix + "_conv3");
      Act shortcut = x;
      if (stride != 1 || channels != width * 4) {
        shortcut = cnn.conv(x, width * 4, 1, stride, Activation::None, prefix + "_downsample");
      }
      x = cnn.add(h, shortcut, Activation::Relu);
      channels = width * 4;
    }
    width *= 2;
  }
  x = cnn.globalAvgPool(x);
  net.output(cnn.classifier(x, 1000));
  return net;
}

}  // namespace openvgf::benchmarks
