// SPDX-License-Identifier: Apache-2.0
// Test kernel: c[i] = a[i] + b[i] over N elements of type T (XOR of truth values when BOOL_XOR
// is defined, for R8_BOOL_ARM tensors). Bindings: set 0, 0 = a, 1 = b, 2 = c.
// Defines: T (element type), N (element count). Grid: ceil(N / 64) x 1 x 1.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { T a[]; };
layout(set = 0, binding = 1) readonly buffer B { T b[]; };
layout(set = 0, binding = 2) writeonly buffer C { T c[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= N) return;
#ifdef BOOL_XOR
  c[i] = T((a[i] != T(0)) != (b[i] != T(0)) ? 1 : 0);
#else
  c[i] = T(a[i] + b[i]);
#endif
}
