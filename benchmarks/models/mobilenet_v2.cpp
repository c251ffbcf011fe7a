// SPDX-License-Identifier: Apache-2.0
// MobileNetV2 (width 1.0): 3x3/2 stem, 17 inverted residual blocks (expand 1x1 + ReLU6,
// depthwise 3x3 + ReLU6, linear 1x1 projection, identity shortcut when shapes allow),
// 1x1 conv to 1280 + ReLU6, global average pool, 1000-way classifier. NHWC, SAME padding.
#include <fmt/format.h>

#include "benchmarks/models/cnn.h"
#include "benchmarks/models/zoo.h"

namespace openvgf::benchmarks {

namespace {

struct Stage {
  std::int64_t expansion;
  std::int64_t channels;
  std::int64_t repeats;
  std::int64_t stride;
};

// The (t, c, n, s) table of the MobileNetV2 paper.
constexpr Stage kStages[] = {{1, 16, 1, 1},  {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                             {6, 96, 3, 1},  {6, 160, 3, 2}, {6, 320, 1, 1}};

}  // namespace

Net buildMobileNetV2(const std::string& name, bool int8, const ZooOptions& options) {
  Net net(name, 0x4D6F62696C654E32ull);  // same seed for fp32 and int8: same float weights
  Cnn cnn(net, int8 ? Precision::Int8 : Precision::Fp32, options.resolution);
  Act x = cnn.input(options.batch, options.resolution, options.resolution, 3);
  x = cnn.conv(x, 32, 3, 2, Activation::Relu6, "stem");
  std::int64_t channels = 32;
  int block = 0;
  for (const Stage& stage : kStages) {
    for (std::int64_t i = 0; i < stage.repeats; ++i) {
      std::int64_t stride = i == 0 ? stage.stride : 1;
      std::string prefix = fmt::format("block{}", block++);
      Act h = x;
      if (stage.expansion != 1) h = cnn.conv(h, channels * stage.expansion, 1, 1, Activation::Relu6, prefix + "_expand");
      h = cnn.depthwise(h, 3, stride, Activation::Relu6, prefix + "_dw");
      h = cnn.conv(h, stage.channels, 1, 1, Activation::None, prefix + "_project");
      if (stride == 1 && channels == stage.channels) h = cnn.add(x, h, Activation::None);
      x = h;
      channels = stage.channels;
    }
  }
  x = cnn.conv(x, 1280, 1, 1, Activation::Relu6, "head");
  x = cnn.globalAvgPool(x);
  net.output(cnn.classifier(x, 1000));
  return net;
}

}  // namespace openvgf::benchmarks
