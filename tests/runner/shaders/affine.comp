// SPDX-License-Identifier: Apache-2.0
// Test kernel: y[i] = x[i] * SCALE + BIAS over N floats. Bindings: set SET, 0 = x, 1 = y.
// Defines: N, SCALE, BIAS, SET. Grid: ceil(N / 64) x 1 x 1.
#version 450
layout(local_size_x = 64) in;
layout(set = SET, binding = 0) readonly buffer X { float x[]; };
layout(set = SET, binding = 1) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < N) y[i] = x[i] * SCALE + BIAS;
}
