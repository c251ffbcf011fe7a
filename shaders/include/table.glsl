// SPDX-License-Identifier: Apache-2.0
// TABLE (specs/tosa.md §2.3) with the table entries in the kernel's parameter buffer
// `ovgf_params` (include/common.glsl) from `offset` on. Included by ew_ops.glsl.
#ifndef OVGF_TABLE_GLSL
#define OVGF_TABLE_GLSL

// INT8: 256 entries indexed by value + 128.
#define ovgf_table8(offset, x) ovgf_params[(offset) + 128 + (x)]

// INT16 -> INT32: int NAME(int x), 513 entries; the value's top 9 bits pick an entry, the
// low 7 bits interpolate linearly to the next one (the result keeps 7 fraction bits).
#define OVGF_DEFINE_TABLE16(NAME, OFFSET)       \
  int NAME(int x) {                             \
    int v = clamp(x, -32768, 32767) + 32768;    \
    int i = (OFFSET) + (v >> 7);                \
    int f = v & 0x7F;                           \
    int base = ovgf_params[i];                  \
    return (base << 7) + (ovgf_params[i + 1] - base) * f; \
  }

#endif  // OVGF_TABLE_GLSL
