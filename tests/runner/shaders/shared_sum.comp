// SPDX-License-Identifier: Apache-2.0
// Test kernel with the binary interface (set 0: 0 = a, 1 = b, 2 = c) that shares memory in its
// workgroup: c[i] = a[i] + b[j], where j is i mirrored inside its workgroup of 64, read from
// shared memory after a barrier. Defines: N (element count).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
shared float mirrored[64];
void main() {
  uint i = gl_GlobalInvocationID.x, lane = gl_LocalInvocationID.x;
  mirrored[63u - lane] = i < N ? b[i] : 0.0;
  barrier();
  if (i < N) c[i] = a[i] + mirrored[lane];
}
