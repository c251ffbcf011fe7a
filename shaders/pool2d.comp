// SPDX-License-Identifier: Apache-2.0
// AVG_POOL2D and MAX_POOL2D with a tile of outputs per invocation: one channel (fastest
// dim, coalesced) and OXT consecutive output columns per invocation.
//
// Defines: POOL_MAX (1 = MAX_POOL2D, 0 = AVG_POOL2D), BATCH IH IW C OH OW KH KW
//   STRIDE_Y STRIDE_X PAD_T PAD_L, IN_STYPE IN_LD, A_CT (compute), ACC_CT (accumulator),
//   IS_FLOAT, NAN_IGNORE (MAX_POOL2D), IN_ZP OUT_ZP OUT_MIN OUT_MAX (integer AVG_POOL2D),
//   ACC_RND (rounding of the float accumulator to acc_t, e.g. st_f16 -> ld_f16), OXT, WG_X,
//   epilogue defines (OUT_*, EPI_BODY receives the pooled value as v).
//   POOL_VEC (MAX_POOL2D, float, no fused epilogue, input and output stored alike; see below)
// Bindings (set 0): 0 input, 1.. epilogue inputs, OUT_BINDING output.
// Grid: (ceil(C/WG_X), ceil(OW/OXT), BATCH*OH); with POOL_VEC (ceil(C/POOL_VEC*OW/WG_X), 1, BATCH*OH).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "include/common.glsl"
#include "include/types.glsl"
#include "include/intmath.glsl"
#include "include/ew_ops.glsl"

#ifndef BATCH
#define POOL_MAX 0
#define BATCH 1
#define IH 8
#define IW 8
#define C 16
#define OH 4
#define OW 4
#define KH 2
#define KW 2
#define STRIDE_Y 2
#define STRIDE_X 2
#define PAD_T 0
#define PAD_L 0
#define IN_STYPE float
#define IN_LD ld_f32
#define A_CT float
#define ACC_CT float
#define IS_FLOAT 1
#define OUT_STYPE float
#define OUT_ST st_f32
#define OUT_CT float
#define OUT_BINDING 1
#endif
#ifndef NAN_IGNORE
#define NAN_IGNORE 0
#endif
#ifndef IN_ZP
#define IN_ZP 0
#endif
#ifndef OUT_ZP
#define OUT_ZP 0
#endif
#ifndef OUT_MIN
#define OUT_MIN (-2147483647 - 1)
#endif
#ifndef OUT_MAX
#define OUT_MAX 2147483647
#endif
#ifndef ACC_RND
#define ACC_RND(x) (x)
#endif
#ifndef OXT
#define OXT 4
#endif
#ifndef POOL_VEC
#define POOL_VEC 0
#endif

layout(local_size_x = WG_X, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0) readonly buffer In { IN_STYPE in0[]; };

#include "include/epilogue.glsl"

#if POOL_MAX
A_CT pool_max(A_CT a, A_CT b) {
#if IS_FLOAT && NAN_IGNORE
  return ovgf_max_i(a, b);
#elif IS_FLOAT
  return ovgf_max_p(a, b);
#else
  return max(a, b);
#endif
}
#endif

#if POOL_VEC
// POOL_VEC (8 with fp16 storage, 4 with fp32) channels of one output pixel per invocation,
// one 16-byte load per window tap and one 16-byte store. Invocations run along the channel
// vectors, then the output columns, so a subgroup reads and writes contiguous 16-byte runs,
// and the taps' loads (addresses clamped into the tensor, the out-of-range ones then
// skipped) do not wait on each other's bounds tests. The scalar kernel below ran
// ResNet-50's 3x3 stride-2 pool at batch 32 at about 1 TB/s on an H200.
#define CV (C / POOL_VEC)
#if POOL_VEC == 8
layout(set = 0, binding = 0) readonly buffer InVec { uvec4 in0v[]; };
layout(set = 0, binding = OUT_BINDING) writeonly buffer OutVec { uvec4 out0v[]; };
void pool_load(uint i, out float v[POOL_VEC]) {
  const uvec4 q = in0v[i];
  for (int w = 0; w < 4; ++w) {
    const vec2 pair = unpackHalf2x16(q[w]);
    v[2 * w] = pair.x;
    v[2 * w + 1] = pair.y;
  }
}
void pool_store(uint i, float v[POOL_VEC]) {
  out0v[i] = uvec4(packHalf2x16(vec2(v[0], v[1])), packHalf2x16(vec2(v[2], v[3])), packHalf2x16(vec2(v[4], v[5])),
                   packHalf2x16(vec2(v[6], v[7])));
}
#elif POOL_VEC == 4
layout(set = 0, binding = 0) readonly buffer InVec { vec4 in0v[]; };
layout(set = 0, binding = OUT_BINDING) writeonly buffer OutVec { vec4 out0v[]; };
void pool_load(uint i, out float v[POOL_VEC]) {
  const vec4 q = in0v[i];
  for (int w = 0; w < 4; ++w) v[w] = q[w];
}
void pool_store(uint i, float v[POOL_VEC]) { out0v[i] = vec4(v[0], v[1], v[2], v[3]); }
#else
#error "POOL_VEC is 8 (fp16 storage) or 4 (fp32)"
#endif
#if !POOL_MAX || !IS_FLOAT
#error "POOL_VEC is for float MAX_POOL2D"
#endif

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= uint(CV * OW)) return;
  const uint cv = i % uint(CV);
  const uint ox = i / uint(CV);
  const uint oy = gl_WorkGroupID.z % uint(OH);
  const uint b = gl_WorkGroupID.z / uint(OH);
  float acc[POOL_VEC];
  for (int e = 0; e < POOL_VEC; ++e) acc[e] = NAN_IGNORE != 0 ? kOvgfNan : -kOvgfInf;
  for (int ky = 0; ky < KH; ++ky) {
    const int y = int(oy) * STRIDE_Y - PAD_T + ky;
    for (int kx = 0; kx < KW; ++kx) {
      const int x = int(ox) * STRIDE_X - PAD_L + kx;
      const uint at = (b * uint(IH) + uint(clamp(y, 0, IH - 1))) * uint(IW) + uint(clamp(x, 0, IW - 1));
      float v[POOL_VEC];
      pool_load(at * uint(CV) + cv, v);
      if (y >= 0 && y < IH && x >= 0 && x < IW) {
        for (int e = 0; e < POOL_VEC; ++e) acc[e] = pool_max(acc[e], v[e]);
      }
    }
  }
  pool_store(((b * uint(OH) + oy) * uint(OW) + ox) * uint(CV) + cv, acc);
}
#else
void main() {
  uint c = gl_GlobalInvocationID.x;
  if (c >= uint(C)) return;
  uint ox0 = gl_WorkGroupID.y * uint(OXT);
  uint oy = gl_WorkGroupID.z % uint(OH);
  uint b = gl_WorkGroupID.z / uint(OH);

  for (int t = 0; t < OXT; ++t) {
    uint ox = ox0 + uint(t);
    if (ox >= uint(OW)) break;
#if POOL_MAX
#if IS_FLOAT
    A_CT acc = NAN_IGNORE != 0 ? kOvgfNan : -kOvgfInf;
#else
    A_CT acc = A_CT(-2147483647 - 1);
#endif
#else
    ACC_CT acc = ACC_CT(0);
    uint count = 0u;
#endif
    for (int ky = 0; ky < KH; ++ky) {
      int y = int(oy) * STRIDE_Y - PAD_T + ky;
      if (y < 0 || y >= IH) continue;
      for (int kx = 0; kx < KW; ++kx) {
        int x = int(ox) * STRIDE_X - PAD_L + kx;
        if (x < 0 || x >= IW) continue;
        A_CT v = A_CT(IN_LD(in0[((b * uint(IH) + uint(y)) * uint(IW) + uint(x)) * uint(C) + c]));
#if POOL_MAX
        acc = pool_max(acc, v);
#else
        acc = ACC_RND(acc + ACC_CT(v) - ACC_CT(IN_ZP));
        count += 1u;
#endif
      }
    }
#if POOL_MAX
    A_CT v = acc;
#elif IS_FLOAT
    ACC_CT v = ACC_RND(acc / ACC_CT(count));
#else
    ivec2 ms = reciprocal_scale(count);
    int v = ovgf_clip(apply_scale_32(acc, ms.x, ms.y, false) + OUT_ZP, OUT_MIN, OUT_MAX);
#endif
    epilogue_store(((b * uint(OH) + oy) * uint(OW) + ox) * uint(C) + c, c, v);
  }
}
#endif  // POOL_VEC
