// SPDX-License-Identifier: Apache-2.0
// y[i] = a[i] * scale + b[i] for i < count, with scale and count as push constants; bindings in
// two descriptor sets (0: a, y; 1: b at binding 3) so the scenario's set/id pairs matter.
#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer A { int a[]; };
layout(set = 0, binding = 1) writeonly buffer Y { int y[]; };
layout(set = 1, binding = 3) readonly buffer B { int b[]; };
layout(push_constant) uniform Parameters {
  int scale;
  int count;
} p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < uint(p.count)) y[i] = a[i] * p.scale + b[i];
}
