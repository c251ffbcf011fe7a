// SPDX-License-Identifier: Apache-2.0
// Test kernel for the SPIR-V reflection (vgf::reflectSpirv): one block of each shape the
// reflection reports (fixed-size readonly array, writeonly runtime array of uvec4 words, a
// header before a runtime array that is read and written, an unused block), shared memory and
// private memory (a Private array, and Function variables: i and taps).
#version 450
layout(local_size_x = 8, local_size_y = 4, local_size_z = 2) in;
layout(set = 0, binding = 0) readonly buffer Fixed { float a[16]; };
layout(set = 0, binding = 1) writeonly buffer Words { uvec4 w[]; };
layout(set = 1, binding = 3) buffer Header { int n; float data[]; };
layout(set = 0, binding = 2) readonly buffer Unused { float u[]; };
shared float tile[256];
float history[12];
void main() {
  uint i = gl_LocalInvocationIndex;
  vec4 taps[5];
  taps[i % 5u] = vec4(a[i % 16u]);
  history[i % 12u] = taps[0].x;
  tile[i] = a[i % 16u] + history[0];
  barrier();
  w[i] = uvec4(floatBitsToUint(tile[(i + 1u) % 64u]));
  data[i] = float(n);
}
