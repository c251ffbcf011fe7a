// SPDX-License-Identifier: Apache-2.0
// Cooperative-matrix GEMM core (GL_NV_cooperative_matrix), the `native` target's fast path
// for fp16 (and int8, with GL_NV_integer_cooperative_matrix) MATMUL and CONV2D. Same
// contract as include/gemm.glsl (gemm_load_a / gemm_load_b / gemm_store, M N K), so the
// templates switch between the two with one define.
//
// A workgroup computes a BM x BN output tile. Per BK step its invocations stage the A
// (BM x BK) and B (BK x BN) slices in shared memory as the operand type, then each subgroup
// multiplies its WM x WN block of CM_M x CM_N accumulator tiles with coopMatMulAddNV. After
// the K loop each subgroup stores one accumulator tile at a time into a shared staging
// tile, and its invocations run the scalar epilogue (gemm_store) over it, so the epilogue
// (bias, RESCALE, CLAMP, residual ADD, ...) is the same code as the scalar kernel's.
// The next K slice is fetched into registers while the current one is multiplied.
//
// Defines (set by the converter; GEMM_COOPMAT=1 selects this file):
//   CM_M CM_N CM_K          one cooperative-matrix shape the device lists
//   CM_INT                  0: fp16 operands, 1: int8 operands with int32 accumulators
//   CM_ACC16                1: fp16 accumulators (TOSA acc_type fp16), else fp32
//   BM BN BK                workgroup tile; WM WN tiles per subgroup; SG subgroup size
// Workgroup: (BM / (WM*CM_M)) * (BN / (WN*CM_N)) subgroups of SG invocations.
#ifndef OVGF_GEMM_COOPMAT_GLSL
#define OVGF_GEMM_COOPMAT_GLSL

#if CM_INT
#define CM_OP_T int8_t
#define CM_AMAT icoopmatNV<8, gl_ScopeSubgroup, CM_M, CM_K>
#define CM_BMAT icoopmatNV<8, gl_ScopeSubgroup, CM_K, CM_N>
#define CM_CMAT icoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>
#define CM_ACC_T int
#elif CM_ACC16
#define CM_OP_T float16_t
#define CM_AMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K>
#define CM_BMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N>
#define CM_CMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_N>
#define CM_ACC_T float16_t
#else
#define CM_OP_T float16_t
#define CM_AMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K>
#define CM_BMAT fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N>
#define CM_CMAT fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>
#define CM_ACC_T float
#endif

#define CM_SG_M (BM / (WM * CM_M))  // subgroups along M
#define CM_SG_N (BN / (WN * CM_N))  // subgroups along N
#define GEMM_THREADS (CM_SG_M * CM_SG_N * SG)

// Row strides padded by 16 bytes: cooperative loads need 16-byte aligned rows, and the
// padding spreads consecutive rows over different shared-memory banks.
#define CM_PAD (16 / (CM_INT != 0 ? 1 : 2))
#define SA_STRIDE (BK + CM_PAD)
#define SB_STRIDE (BN + CM_PAD)
shared CM_OP_T sA[BM * SA_STRIDE];  // [m][k]
shared CM_OP_T sB[BK * SB_STRIDE];  // [k][n]
shared CM_ACC_T sC[CM_SG_M * CM_SG_N * CM_M * CM_N];  // one staging tile per subgroup

#define A_PER_THREAD ((BM * BK + GEMM_THREADS - 1) / GEMM_THREADS)
#define B_PER_THREAD ((BN * BK + GEMM_THREADS - 1) / GEMM_THREADS)

CM_OP_T cm_operand(A_CT v) {
#if CM_INT
  return int8_t(v);
#else
  return float16_t(v);
#endif
}

void gemm_main() {
  uint tid = gl_LocalInvocationIndex;
  uint sg = tid / uint(SG);
  uint lane = tid % uint(SG);
  uint sgM = sg / uint(CM_SG_N);
  uint sgN = sg % uint(CM_SG_N);
  uint m0 = gl_WorkGroupID.y * uint(BM);
  uint n0 = gl_WorkGroupID.x * uint(BN);
  uint batch = gl_WorkGroupID.z;

  CM_CMAT acc[WM][WN];
  for (int i = 0; i < WM; ++i)
    for (int j = 0; j < WN; ++j) acc[i][j] = CM_CMAT(CM_ACC_T(0));

  // Register stage of the next K slice (loaded while the current one is multiplied).
  CM_OP_T ra[A_PER_THREAD];
  CM_OP_T rb[B_PER_THREAD];
  for (uint k0 = 0u; k0 < uint(K) + uint(BK); k0 += uint(BK)) {
    if (k0 > 0u) {
      // Publish the slice fetched last iteration; all subgroups finished reading the old one.
      barrier();
      for (int r = 0; r < A_PER_THREAD; ++r) {
        uint e = tid + uint(r * GEMM_THREADS);
        if (e < uint(BM * BK)) sA[(e / uint(BK)) * uint(SA_STRIDE) + e % uint(BK)] = ra[r];
      }
      for (int r = 0; r < B_PER_THREAD; ++r) {
        uint e = tid + uint(r * GEMM_THREADS);
        if (e < uint(BN * BK)) sB[(e / uint(BN)) * uint(SB_STRIDE) + e % uint(BN)] = rb[r];
      }
      barrier();
    }
    if (k0 < uint(K)) {
      for (int r = 0; r < A_PER_THREAD; ++r) {
        uint e = tid + uint(r * GEMM_THREADS);
        uint m = m0 + e / uint(BK);
        uint k = k0 + e % uint(BK);
        ra[r] = cm_operand((e < uint(BM * BK) && m < uint(M) && k < uint(K)) ? gemm_load_a(batch, m, k) : A_CT(0));
      }
      for (int r = 0; r < B_PER_THREAD; ++r) {
        uint e = tid + uint(r * GEMM_THREADS);
        uint k = k0 + e / uint(BN);
        uint n = n0 + e % uint(BN);
        rb[r] = cm_operand((e < uint(BN * BK) && n < uint(N) && k < uint(K)) ? gemm_load_b(batch, k, n) : A_CT(0));
      }
    }
    if (k0 > 0u) {
      for (uint kk = 0u; kk < uint(BK); kk += uint(CM_K)) {
        CM_AMAT fa[WM];
        CM_BMAT fb[WN];
        for (int i = 0; i < WM; ++i) {
          uint row = (sgM * uint(WM) + uint(i)) * uint(CM_M);
          coopMatLoadNV(fa[i], sA, row * uint(SA_STRIDE) + kk, uint(SA_STRIDE), false);
        }
        for (int j = 0; j < WN; ++j) {
          uint col = (sgN * uint(WN) + uint(j)) * uint(CM_N);
          coopMatLoadNV(fb[j], sB, kk * uint(SB_STRIDE) + col, uint(SB_STRIDE), false);
        }
        for (int i = 0; i < WM; ++i)
          for (int j = 0; j < WN; ++j) acc[i][j] = coopMatMulAddNV(fa[i], fb[j], acc[i][j]);
      }
    }
  }

  for (int i = 0; i < WM; ++i) {
    for (int j = 0; j < WN; ++j) {
      coopMatStoreNV(acc[i][j], sC, sg * uint(CM_M * CM_N), uint(CM_N), false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      uint mBase = m0 + (sgM * uint(WM) + uint(i)) * uint(CM_M);
      uint nBase = n0 + (sgN * uint(WN) + uint(j)) * uint(CM_N);
      for (uint e = lane; e < uint(CM_M * CM_N); e += uint(SG)) {
        uint m = mBase + e / uint(CM_N);
        uint n = nBase + e % uint(CM_N);
        if (m < uint(M) && n < uint(N)) gemm_store(batch, m, n, ACC_CT(sC[sg * uint(CM_M * CM_N) + e]));
      }
      subgroupBarrier();
    }
  }
}

#endif  // OVGF_GEMM_COOPMAT_GLSL
