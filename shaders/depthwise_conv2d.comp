// SPDX-License-Identifier: Apache-2.0
// DEPTHWISE_CONV2D with a tile of outputs per invocation: each invocation owns one output
// channel (c*M + m, the fastest dim, so loads and stores are coalesced across the
// workgroup) and OXT consecutive output columns; every weight tap is loaded once and
// reused for the OXT outputs. Bias and the fused epilogue follow.
//
// Defines: BATCH IH IW C CM (channel multiplier) OH OW KH KW STRIDE_Y STRIDE_X DIL_Y DIL_X
//   PAD_T PAD_L IN_ZP W_ZP BIAS_BCAST, IN_STYPE IN_LD W_STYPE W_LD BIAS_STYPE BIAS_LD,
//   A_CT ACC_CT, OXT, WG_X, epilogue defines.
// Bindings (set 0): 0 input, 1 weight [KH,KW,C,CM], 2 bias, 3.. epilogue, OUT_BINDING output.
// Grid: (ceil(C*CM/WG_X), ceil(OW/OXT), BATCH*OH).
//
// DW_RUNTIME (Tuning::runtimeShapes, CPU devices): BATCH IH IW C OH OW KH STRIDE_Y DIL_Y
// PAD_T PAD_L IN_ZP W_ZP are entries 0..12 of the parameter buffer (PARAMS_BINDING) rather
// than defines, so one module serves every layer with the same KW, STRIDE_X, DIL_X, CM,
// types and epilogue; and each input row's window is loaded once into registers and reused
// by every tap and output column (the second main below).
//
// DW_LANES (with DW_RUNTIME; CM = 1, fp32 or int8 data, no epilogue tensor input): each
// invocation owns the DW_LANES channels of one 64-bit word (2 fp32 or 8 int8 channels) and
// reads and writes whole words (the first main below). Why: llvmpipe runs 8 invocations in
// one SIMD vector, but a buffer load or store whose index differs between them is a loop over
// the 8 lanes with a bounds check and a branch per lane and per component, ~60 instructions a
// lane; what counts is the number of components, not their bytes. A 64-bit word carries 2 or
// 8 channels per component, so an output costs 1/2 (fp32) or 1/8 (int8) of the looped loads
// and stores. The arithmetic per output and its order are those of the other paths, so
// results do not change. Entries 13, 14 of the parameter buffer divide the flat invocation
// index by the words per pixel (ovgf_udiv); the grid is (ceil(words * tiles / WG_X), 1,
// BATCH*OH) with tiles = ceil(OW/OXT).
#version 460
#extension GL_GOOGLE_include_directive : require
#ifndef DW_RUNTIME
#define DW_RUNTIME 0
#endif
#if DW_RUNTIME
#extension GL_EXT_control_flow_attributes : require
#endif
#include "include/common.glsl"
#include "include/types.glsl"
#include "include/intmath.glsl"
#include "include/ew_ops.glsl"

#if DW_RUNTIME
// Read once into locals (dw_*) at the start of main: llvmpipe does not merge repeated buffer
// loads.
#define BATCH dw_batch
#define IH dw_ih
#define IW dw_iw
#define C dw_c
#define OH dw_oh
#define OW dw_ow
#define KH dw_kh
#define STRIDE_Y dw_stride_y
#define DIL_Y dw_dil_y
#define PAD_T dw_pad_t
#define PAD_L dw_pad_l
#define IN_ZP dw_in_zp
#define W_ZP dw_w_zp
#endif
#ifndef BATCH
#define BATCH 1
#define IH 8
#define IW 8
#define C 16
#define CM 1
#define OH 8
#define OW 8
#define KH 3
#define KW 3
#define STRIDE_Y 1
#define STRIDE_X 1
#define DIL_Y 1
#define DIL_X 1
#define PAD_T 1
#define PAD_L 1
#define IN_STYPE float
#define IN_LD ld_f32
#define W_STYPE float
#define W_LD ld_f32
#define BIAS_STYPE float
#define BIAS_LD ld_f32
#define A_CT float
#define ACC_CT float
#define OUT_STYPE float
#define OUT_ST st_f32
#define OUT_CT float
#define OUT_BINDING 3
#endif
#ifndef IN_ZP
#define IN_ZP 0
#endif
#ifndef W_ZP
#define W_ZP 0
#endif
#ifndef BIAS_BCAST
#define BIAS_BCAST 0
#endif
#ifndef OXT
#define OXT 4
#endif

#define OCH (C * CM)

layout(local_size_x = WG_X, local_size_y = 1, local_size_z = 1) in;

#ifndef DW_LANES
#define DW_LANES 0
#endif

#if DW_LANES
// Every binding as 64-bit words: DW_LANES channels of the input and of the weights, two
// 32-bit bias values (fp32 or int32; or one bias for all channels, BIAS_BCAST),
// DW_OUT_BITS-bit outputs (32: fp32 or int32; 8: int8).
layout(set = 0, binding = 0) readonly buffer In { uint64_t in0[]; };
layout(set = 0, binding = 1) readonly buffer Weight { uint64_t w0[]; };
#if BIAS_BCAST
layout(set = 0, binding = 2) readonly buffer Bias { BIAS_STYPE bias0[]; };
#else
layout(set = 0, binding = 2) readonly buffer Bias { uint64_t bias0[]; };
#endif
layout(set = 0, binding = OUT_BINDING) writeonly buffer Out { uint64_t out0[]; };
#ifndef EW_DECLS
#define EW_DECLS
#endif
#ifdef DW_SCALE_SLOT
// The epilogue's one per-channel RESCALE (its table's start is entry DW_SCALE_SLOT) reads
// each channel's (multiplier, shift) from dw_scales, loaded once per invocation, instead of
// three looped loads per output; `ch` is then the channel's place in the word.
ivec2 dw_scales[DW_LANES];
#undef ovgf_channel_pair_at
#define ovgf_channel_pair_at(slot, k) dw_scales[ch][k]
#endif
EW_DECLS
#else
layout(set = 0, binding = 0) readonly buffer In { IN_STYPE in0[]; };
layout(set = 0, binding = 1) readonly buffer Weight { W_STYPE w0[]; };
layout(set = 0, binding = 2) readonly buffer Bias { BIAS_STYPE bias0[]; };

#include "include/epilogue.glsl"
#endif

// The input columns that one invocation's OXT outputs read in one input row.
#define DW_SPAN ((OXT - 1) * STRIDE_X + (KW - 1) * DIL_X + 1)

#if DW_LANES
#define DW_IN_BITS (64 / DW_LANES)
#define DW_BIAS_WORDS (DW_LANES / 2)
#define DW_OUT_WORDS (DW_LANES * DW_OUT_BITS / 64)

// Element j of a word of `bits`-bit elements, sign-extended to 32 bits (j and bits are
// constants once unrolled, so this is a shift or two).
uint dw_field(uint64_t word, int j, int bits) {
  const uvec2 halves = unpackUint2x32(word);
  const uint half32 = j * bits < 32 ? halves.x : halves.y;
  return bits == 32 ? half32 : uint(bitfieldExtract(int(half32), (j * bits) & 31, bits));
}
#if DW_LANES == 2
#define DW_VALUE(bits) uintBitsToFloat(bits)
#define DW_OUT_FIELD(r) floatBitsToUint(r)
#else
#define DW_VALUE(bits) int(bits)
#define DW_OUT_FIELD(r) uint(r)
#endif

// The fused epilogue of one output (EPI_BODY reads `v` and the channel `ch`).
OUT_CT dw_epilogue(ACC_CT v, uint ch) {
  OUT_CT r;
  EPI_BODY
  return r;
}

void main() {
  const int dw_batch = ovgf_params[0];
  const int dw_ih = ovgf_params[1];
  const int dw_iw = ovgf_params[2];
  const int dw_c = ovgf_params[3];
  const int dw_oh = ovgf_params[4];
  const int dw_ow = ovgf_params[5];
  const int dw_kh = ovgf_params[6];
  const int dw_stride_y = ovgf_params[7];
  const int dw_dil_y = ovgf_params[8];
  const int dw_pad_t = ovgf_params[9];
  const int dw_pad_l = ovgf_params[10];
  const int dw_in_zp = ovgf_params[11];
  const int dw_w_zp = ovgf_params[12];
  const uint words = uint(C) / uint(DW_LANES);  // words per pixel (C is a multiple of DW_LANES)
  const uint tile = ovgf_udiv(gl_GlobalInvocationID.x, uint(ovgf_params[13]), uint(ovgf_params[14]));
  const uint cw = gl_GlobalInvocationID.x - tile * words;
  if (tile >= uint((OW + OXT - 1) / OXT)) return;
  const uint c0 = cw * uint(DW_LANES);
  uint oy = gl_WorkGroupID.z, b = 0u;
  while (oy >= uint(OH)) {
    oy -= uint(OH);
    ++b;
  }
  const uint ox0 = tile * uint(OXT);
  const int x0 = int(ox0) * STRIDE_X - PAD_L;

  ACC_CT acc[OXT][DW_LANES];
  [[unroll]] for (int t = 0; t < OXT; ++t) {
    [[unroll]] for (int j = 0; j < DW_LANES; ++j) acc[t][j] = ACC_CT(0);
  }
  for (int ky = 0; ky < KH; ++ky) {
    const int y = int(oy) * STRIDE_Y - PAD_T + ky * DIL_Y;
    if (y < 0 || y >= IH) continue;
    const uint row = (b * uint(IH) + uint(y)) * uint(IW);
    // Padding columns hold 0 (the zero point, once subtracted).
    A_CT window[DW_SPAN][DW_LANES];
    [[unroll]] for (int i = 0; i < DW_SPAN; ++i) {
      const int x = x0 + i;
      const bool inside = x >= 0 && x < IW;
      uint64_t word = 0ul;
      if (inside) word = in0[(row + uint(x)) * words + cw];
      [[unroll]] for (int j = 0; j < DW_LANES; ++j) {
        window[i][j] = A_CT(0);
        if (inside) window[i][j] = A_CT(DW_VALUE(dw_field(word, j, DW_IN_BITS))) - A_CT(IN_ZP);
      }
    }
    [[unroll]] for (int kx = 0; kx < KW; ++kx) {
      const uint64_t wword = w0[uint(ky * KW + kx) * words + cw];
      [[unroll]] for (int j = 0; j < DW_LANES; ++j) {
        const A_CT wv = A_CT(DW_VALUE(dw_field(wword, j, DW_IN_BITS))) - A_CT(W_ZP);
        [[unroll]] for (int t = 0; t < OXT; ++t) {
          acc[t][j] += ACC_CT(window[t * STRIDE_X + kx * DIL_X][j]) * ACC_CT(wv);
        }
      }
    }
  }
  ACC_CT bias[DW_LANES];
#if BIAS_BCAST
  const ACC_CT bias1 = ACC_CT(BIAS_LD(bias0[0]));
  [[unroll]] for (int j = 0; j < DW_LANES; ++j) bias[j] = bias1;
#else
  [[unroll]] for (int k = 0; k < DW_BIAS_WORDS; ++k) {
    const uint64_t bword = bias0[cw * uint(DW_BIAS_WORDS) + uint(k)];
    bias[2 * k] = ACC_CT(DW_VALUE(dw_field(bword, 0, 32)));
    bias[2 * k + 1] = ACC_CT(DW_VALUE(dw_field(bword, 1, 32)));
  }
#endif
#ifdef DW_SCALE_SLOT
  const int table = ovgf_params[DW_SCALE_SLOT] + 2 * int(c0);
  [[unroll]] for (int j = 0; j < DW_LANES; ++j) {
    dw_scales[j] = ivec2(ovgf_params[table + 2 * j], ovgf_params[table + 2 * j + 1]);
  }
#define DW_EPILOGUE_CH(j) uint(j)
#else
#define DW_EPILOGUE_CH(j) (c0 + uint(j))
#endif
  [[unroll]] for (int t = 0; t < OXT; ++t) {
    const uint ox = ox0 + uint(t);
    if (ox >= uint(OW)) break;
    const uint at = (((b * uint(OH) + oy) * uint(OW) + ox) * words + cw) * uint(DW_OUT_WORDS);
    [[unroll]] for (int k = 0; k < DW_OUT_WORDS; ++k) {
      uvec2 halves = uvec2(0u);
      [[unroll]] for (int j = 0; j < 64 / DW_OUT_BITS; ++j) {
        const int ch = k * (64 / DW_OUT_BITS) + j;
        uint field = DW_OUT_FIELD(dw_epilogue(acc[t][ch] + bias[ch], DW_EPILOGUE_CH(ch)));
        if (DW_OUT_BITS < 32) field = (field & ((1u << (DW_OUT_BITS & 31)) - 1u)) << ((j * DW_OUT_BITS) & 31);
        if (j * DW_OUT_BITS < 32) {
          halves.x |= field;
        } else {
          halves.y |= field;
        }
      }
      out0[at + uint(k)] = packUint2x32(halves);
    }
  }
}
#elif DW_RUNTIME

void main() {
  const int dw_batch = ovgf_params[0];
  const int dw_ih = ovgf_params[1];
  const int dw_iw = ovgf_params[2];
  const int dw_c = ovgf_params[3];
  const int dw_oh = ovgf_params[4];
  const int dw_ow = ovgf_params[5];
  const int dw_kh = ovgf_params[6];
  const int dw_stride_y = ovgf_params[7];
  const int dw_dil_y = ovgf_params[8];
  const int dw_pad_t = ovgf_params[9];
  const int dw_pad_l = ovgf_params[10];
  const int dw_in_zp = ovgf_params[11];
  const int dw_w_zp = ovgf_params[12];
  uint oc = gl_GlobalInvocationID.x;
  if (oc >= uint(OCH)) return;
  uint c = oc / uint(CM);
  // z = b * OH + oy without a run-time division (llvmpipe scalarizes those); batches are few.
  uint oy = gl_WorkGroupID.z, b = 0u;
  while (oy >= uint(OH)) {
    oy -= uint(OH);
    ++b;
  }
  uint ox0 = gl_WorkGroupID.y * uint(OXT);
  int x0 = int(ox0) * STRIDE_X - PAD_L;

  ACC_CT acc[OXT];
  for (int t = 0; t < OXT; ++t) acc[t] = ACC_CT(0);
  for (int ky = 0; ky < KH; ++ky) {
    int y = int(oy) * STRIDE_Y - PAD_T + ky * DIL_Y;
    if (y < 0 || y >= IH) continue;
    uint row = (b * uint(IH) + uint(y)) * uint(IW);
    // Padding columns hold 0 (the zero point, once subtracted).
    A_CT window[DW_SPAN];
    [[unroll]] for (int i = 0; i < DW_SPAN; ++i) {
      int x = x0 + i;
      window[i] = A_CT(0);
      if (x >= 0 && x < IW) window[i] = A_CT(IN_LD(in0[(row + uint(x)) * uint(C) + c])) - A_CT(IN_ZP);
    }
    [[unroll]] for (int kx = 0; kx < KW; ++kx) {
      A_CT wv = A_CT(W_LD(w0[uint(ky * KW + kx) * uint(OCH) + oc])) - A_CT(W_ZP);
      [[unroll]] for (int t = 0; t < OXT; ++t) acc[t] += ACC_CT(window[t * STRIDE_X + kx * DIL_X]) * ACC_CT(wv);
    }
  }
  ACC_CT bias = ACC_CT(BIAS_LD(bias0[BIAS_BCAST != 0 ? 0u : oc]));
  for (int t = 0; t < OXT; ++t) {
    uint ox = ox0 + uint(t);
    if (ox >= uint(OW)) break;
    epilogue_store(((b * uint(OH) + oy) * uint(OW) + ox) * uint(OCH) + oc, oc, acc[t] + bias);
  }
}
#else
void main() {
  uint oc = gl_GlobalInvocationID.x;
  if (oc >= uint(OCH)) return;
  uint c = oc / uint(CM);
  uint ox0 = gl_WorkGroupID.y * uint(OXT);
  uint oy = gl_WorkGroupID.z % uint(OH);
  uint b = gl_WorkGroupID.z / uint(OH);

  ACC_CT acc[OXT];
  for (int t = 0; t < OXT; ++t) acc[t] = ACC_CT(0);
  for (int ky = 0; ky < KH; ++ky) {
    int y = int(oy) * STRIDE_Y - PAD_T + ky * DIL_Y;
    if (y < 0 || y >= IH) continue;
    for (int kx = 0; kx < KW; ++kx) {
      A_CT wv = A_CT(W_LD(w0[uint(ky * KW + kx) * uint(OCH) + oc])) - A_CT(W_ZP);
      for (int t = 0; t < OXT; ++t) {
        int x = int(ox0 + uint(t)) * STRIDE_X - PAD_L + kx * DIL_X;
        if (x < 0 || x >= IW) continue;
        A_CT iv = A_CT(IN_LD(in0[((b * uint(IH) + uint(y)) * uint(IW) + uint(x)) * uint(C) + c])) - A_CT(IN_ZP);
        acc[t] += ACC_CT(iv) * ACC_CT(wv);
      }
    }
  }
  ACC_CT bias = ACC_CT(BIAS_LD(bias0[BIAS_BCAST != 0 ? 0u : oc]));
  for (int t = 0; t < OXT; ++t) {
    uint ox = ox0 + uint(t);
    if (ox >= uint(OW)) break;
    epilogue_store(((b * uint(OH) + oy) * uint(OW) + ox) * uint(OCH) + oc, oc, acc[t] + bias);
  }
}
#endif
