// SPDX-License-Identifier: Apache-2.0
// Conversion targets: the device features a VGF may use and the tile/workgroup configs
// of the heavy kernels (STYLE.md item 8: strategy apart from lowering). `portable` uses
// only what Vulkan 1.3 desktop GPUs and lavapipe share; `native` probes the local device.
#pragma once

#include <cstdint>
#include <string>

#include "common/error.h"

namespace openvgf::converter {

struct GemmTile {
  int bm = 64, bn = 64, bk = 16;  // workgroup tile (M x N) and K step
  int tm = 4, tn = 4;             // register block per invocation
};

struct Target {
  std::string name;                       // "portable", "native"
  GemmTile gemm;                          // CONV2D / MATMUL / CONV3D / TRANSPOSE_CONV2D
  GemmTile gemmSmall{16, 64, 16, 4, 4};   // GEMMs whose M or N is small (transposed for small N)
  // Large register blocks (fewer invocations, more work each) for GEMMs whose grid has at
  // least gemmLargeMinGroups workgroups of this tile; 0 = never. Lavapipe runs a GEMM
  // fastest with the largest block, a GPU needs enough invocations to fill its cores, so
  // the switch is made where a GPU is full either way (a VGF is not re-tiled per device).
  GemmTile gemmLarge{64, 64, 16, 8, 8};
  int gemmLargeMinGroups = 0;
  int elementwiseWg = 256;                // invocations per elementwise workgroup
  int elementsPerInvocation = 4;
  int reduceThreads = 256;                // RX*RY of reductions
  int maxSharedBytes = 16384;             // shared memory a kernel may use
  int maxInvocations = 256;               // per workgroup
  std::uint32_t subgroupSize = 0;         // 0 = unknown (portable)
  bool fp16Arithmetic = false;            // native: fp16 math in shaders
  bool integerDotProduct = false;         // native: GL_EXT_integer_dot_product
  bool cooperativeMatrixNv = false;       // native: GL_NV_cooperative_matrix
  std::string deviceName;                 // native: probed device
};

Target portableTarget();
/// Probes the first Vulkan device through the loader (a few raw Vulkan calls).
Result<Target> nativeTarget();
/// "portable" | "native".
Result<Target> targetByName(const std::string& name);

/// Checks a target's tile configs against its limits (invocations, shared memory).
Status verifyTarget(const Target& target);

}  // namespace openvgf::converter
