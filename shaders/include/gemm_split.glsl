// SPDX-License-Identifier: Apache-2.0
// Split-K for the GEMM cores (include/gemm.glsl, gemm_dot4.glsl, gemm_coopmat.glsl; the converter's
// chooseSplitK / addGemmKernel): a GEMM whose tile grid is too small to fill the device is
// cut along K; partial GEMMs write raw accumulators and a reduction pass applies the
// template's gemm_store (bias and epilogue) to their sum.
//
// Defines (all optional; without GEMM_SPLIT_K the core is unchanged):
//   GEMM_BATCHES            GEMMs per dispatch along gl_WorkGroupID.z (default 1)
//   GEMM_SPLIT_K, GEMM_KS   K cut into GEMM_SPLIT_K slices of GEMM_KS (a multiple of BK)
//   GEMM_SPLIT_PASS         1: each workgroup (z = batch * GEMM_SPLIT_K + slice) writes its
//                           accumulators to gemm_partial[slice][batch][M][N];
//                           2: gemm_main below, one invocation per output (linear grid,
//                           include/common.glsl), summing the slices in order
//   PARTIAL_BINDING         binding of gemm_partial (ACC_CT elements)
//   GEMM_REDUCE_VEC4        1 (fp32 accumulators, N % 4 == 0, many outputs): the reduction
//                           pass sums four neighbouring outputs per invocation with 16-byte
//                           loads, on a grid a quarter the size
// The including core defines GEMM_THREADS, takes its batch and K range from gemm_batch(),
// gemm_k_begin() and gemm_k_end(), and stores through GEMM_STORE.
#ifndef OVGF_GEMM_SPLIT_GLSL
#define OVGF_GEMM_SPLIT_GLSL

#ifndef GEMM_BATCHES
#define GEMM_BATCHES 1
#endif
#ifndef GEMM_SPLIT_K
#define GEMM_SPLIT_K 1
#define GEMM_KS K
#endif
#ifndef GEMM_SPLIT_PASS
#define GEMM_SPLIT_PASS 0
#endif
#ifndef GEMM_REDUCE_VEC4
#define GEMM_REDUCE_VEC4 0
#endif

// This workgroup's GEMM and split-K slice (gl_WorkGroupID.z = batch * GEMM_SPLIT_K + slice)
// and the K range [gemm_k_begin(), gemm_k_end()) of the slice: all of K without split-K.
uint gemm_batch() { return gl_WorkGroupID.z / uint(GEMM_SPLIT_K); }
uint gemm_slice() { return gl_WorkGroupID.z % uint(GEMM_SPLIT_K); }
uint gemm_k_begin() { return gemm_slice() * uint(GEMM_KS); }
uint gemm_k_end() { return min(gemm_k_begin() + uint(GEMM_KS), uint(K)); }

#if GEMM_SPLIT_K > 1
layout(set = 0, binding = PARTIAL_BINDING) buffer GemmPartial { ACC_CT gemm_partial[]; };

// Where output (batch, m, n) of this workgroup's slice goes in gemm_partial. A macro: a
// function would change the SPIR-V of every partial pass, which the VGF hashes pin.
#define GEMM_PARTIAL_INDEX(batch, m, n) (((gemm_slice() * uint(GEMM_BATCHES) + (batch)) * uint(M) + (m)) * uint(N) + (n))
void gemm_store_partial(uint batch, uint m, uint n, ACC_CT acc) { gemm_partial[GEMM_PARTIAL_INDEX(batch, m, n)] = acc; }
#define GEMM_STORE(batch, m, n, acc) gemm_store_partial(batch, m, n, acc)
#else
#define GEMM_STORE(batch, m, n, acc) gemm_store(batch, m, n, acc)
#endif

#if GEMM_SPLIT_PASS == 2 && GEMM_REDUCE_VEC4
// The reduction pass, four outputs per invocation: fixed slice order, so results do not
// depend on scheduling.
layout(set = 0, binding = PARTIAL_BINDING) readonly buffer GemmPartial4 { vec4 gemm_partial4[]; };
void gemm_main() {
  const uint total4 = uint(GEMM_BATCHES) * uint(M) * uint(N) / 4u;
  const uint idx4 = ovgf_linear_group() * uint(GEMM_THREADS) + gl_LocalInvocationIndex;
  if (idx4 >= total4) return;
  vec4 acc = vec4(0.0);
  for (uint s = 0u; s < uint(GEMM_SPLIT_K); ++s) acc += gemm_partial4[s * total4 + idx4];
  const uint n = (idx4 * 4u) % uint(N);
  const uint t = (idx4 * 4u) / uint(N);
  [[unroll]] for (uint q = 0u; q < 4u; ++q) gemm_store(t / uint(M), t % uint(M), n + q, acc[q]);
}
#elif GEMM_SPLIT_PASS == 2
// The reduction pass: fixed slice order, so results do not depend on scheduling.
void gemm_main() {
  const uint total = uint(GEMM_BATCHES) * uint(M) * uint(N);
  uint idx = ovgf_linear_group() * uint(GEMM_THREADS) + gl_LocalInvocationIndex;
  if (idx >= total) return;
  ACC_CT acc = ACC_CT(0);
  for (uint s = 0u; s < uint(GEMM_SPLIT_K); ++s) acc += gemm_partial[s * total + idx];
  uint n = idx % uint(N);
  uint t = idx / uint(N);
  gemm_store(t / uint(M), t % uint(M), n, acc);
}
#endif

#endif  // OVGF_GEMM_SPLIT_GLSL
