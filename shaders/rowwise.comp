// SPDX-License-Identifier: Apache-2.0
// Row-wise chains (converter/kernels/rowwise.cpp): one workgroup per row of N columns; the
// converter writes the chain (reductions over the row and the elementwise operators
// around them) as straight-line code over `row`, `tid` and per-invocation column arrays.
//
// Defines: ROWS (workgroups that own a row), ROW_THREADS (invocations per workgroup),
//   ROW_BUFFERS (binding declarations: in0.. then out0), ROW_SHARED (shared arrays of the
//   reductions), ROW_BODY (the chain, ending with the stores), EW_DECLS (helper functions),
//   GRID_X (include/common.glsl).
// Grid: ROWS workgroups, linear (include/common.glsl).
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
#include "include/common.glsl"
#include "include/types.glsl"
#include "include/ew_ops.glsl"

#ifndef ROWS
// A softmax over rows of 100 columns: max, subtract and exponentiate, sum, scale.
#define ROWS 8
#define ROW_THREADS 32
#define ROW_BUFFERS                                                       \
  layout(set = 0, binding = 0) readonly buffer In0 { float in0[]; };      \
  layout(set = 0, binding = 1) writeonly buffer Out { float out0[]; };
#define ROW_SHARED shared float ovgf_row_partial0[32]; shared float ovgf_row_partial1[32];
#define ROW_BODY                                                                                         \
  float x0[4];                                                                                           \
  for (uint e = 0u; e < 4u; ++e) { uint c = tid + e * 32u; x0[e] = c < 100u ? in0[row * 100u + c] : 0.0; } \
  float r0 = -kOvgfInf;                                                                                  \
  for (uint e = 0u; e < 4u; ++e) { uint c = tid + e * 32u; if (c < 100u) r0 = ovgf_max_p(r0, x0[e]); }  \
  ovgf_row_partial0[tid] = r0; barrier();                                                                \
  for (uint h = 16u; h > 0u; h >>= 1u) {                                                                 \
    if (tid < h) ovgf_row_partial0[tid] = ovgf_max_p(ovgf_row_partial0[tid], ovgf_row_partial0[tid + h]); \
    barrier();                                                                                           \
  }                                                                                                      \
  r0 = ovgf_row_partial0[0];                                                                             \
  float r1[4];                                                                                           \
  for (uint e = 0u; e < 4u; ++e) r1[e] = exp(x0[e] - r0);                                                \
  float r2 = 0.0;                                                                                        \
  for (uint e = 0u; e < 4u; ++e) { uint c = tid + e * 32u; if (c < 100u) r2 += r1[e]; }                  \
  r2 = subgroupAdd(r2);                                                                                  \
  if (subgroupElect()) ovgf_row_partial1[gl_SubgroupID] = r2; barrier();                                 \
  r2 = ovgf_row_partial1[0];                                                                             \
  for (uint g = 1u; g < gl_NumSubgroups; ++g) r2 += ovgf_row_partial1[g];                                \
  for (uint e = 0u; e < 4u; ++e) { uint c = tid + e * 32u; if (c < 100u) out0[row * 100u + c] = r1[e] / r2; }
#endif
#ifndef EW_DECLS
#define EW_DECLS
#endif

layout(local_size_x = ROW_THREADS, local_size_y = 1, local_size_z = 1) in;
ROW_BUFFERS
ROW_SHARED
EW_DECLS

void main() {
  // Rows are whole workgroups, so every invocation of a workgroup takes the same branch and
  // reaches the same barriers.
  const uint row = ovgf_linear_group();
  if (row >= uint(ROWS)) return;
  const uint tid = gl_LocalInvocationIndex;
  ROW_BODY
}
