// SPDX-License-Identifier: Apache-2.0
// Micro models: one operator each, to measure a kernel against the hardware's limits.
//   matmul_<N>_<type>: MATMUL [1,N,N] x [1,N,N], both operands graph inputs (compute bound)
//   conv<K>x<K>_<HxWxC>[x<OC>]: one CONV2D with bias at a ResNet-50 layer shape
//   add_64m: ADD of two fp32 tensors of 64 Mi elements (memory bound: 768 MiB moved)
#include <cmath>

#include "benchmarks/models/zoo.h"

namespace openvgf::benchmarks {

Net buildMatmul(const std::string& name, std::int64_t n, bool fp16) {
  Net net(name, 0x4D61744D756C0000ull + static_cast<std::uint64_t>(n));
  tosa::DType type = fp16 ? tosa::DType::Fp16 : tosa::DType::Fp32;
  Value a = net.input("a", {1, n, n}, type);
  Value b = net.input("b", {1, n, n}, type);
  net.output(net.matmul(a, b));
  return net;
}

Net buildConvLayer(const std::string& name, std::int64_t size, std::int64_t inChannels, std::int64_t outChannels,
                   std::int64_t kernel, const ZooOptions& options) {
  Net net(name, 0x436F6E7600000000ull + static_cast<std::uint64_t>(size * 4096 + inChannels));
  Value x = net.input("input", {options.batch, size, size, inChannels}, tosa::DType::Fp32);
  Value w = net.heWeight("conv_w", {outChannels, kernel, kernel, inChannels}, kernel * kernel * inChannels,
                         std::sqrt(2.0f), tosa::DType::Fp32);
  Value b = net.uniformWeight("conv_b", {outChannels}, -0.1f, 0.1f, tosa::DType::Fp32);
  std::int32_t p = static_cast<std::int32_t>(kernel / 2);
  net.output(net.conv2d(x, w, b, {p, p, p, p}, {1, 1}, tosa::DType::Fp32));
  return net;
}

Net buildAdd(const std::string& name, std::int64_t elements) {
  Net net(name, 0x4164640000000000ull);
  tosa::Shape shape = {elements / (1024 * 1024), 1024, 1024};
  Value a = net.input("a", shape, tosa::DType::Fp32);
  Value b = net.input("b", shape, tosa::DType::Fp32);
  net.output(net.add(a, b));
  return net;
}

}  // namespace openvgf::benchmarks
