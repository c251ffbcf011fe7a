// SPDX-License-Identifier: Apache-2.0
// Fused epilogue for GEMM-like kernels: bias add, then an optional elementwise chain
// (RESCALE, CLAMP, ADD of a residual, ...) written by the converter, then the store.
//
// Defines:
//   NUM_EPI                 extra epilogue inputs (0..2), each indexed like the output
//   EPI<k>_BINDING, EPI<k>_STYPE, EPI<k>_LD, EPI<k>_CT
//   EPI<k>_INDEX            idx (same shape as the output) or ch (per-channel vector)
//   OUT_BINDING, OUT_STYPE, OUT_ST, OUT_CT   (PARAMS_BINDING, when set, follows OUT_BINDING)
//   EPI_BODY                statements computing `OUT_CT r` from `v` (accumulator + bias,
//                           of type ACC_CT), e0, e1 and `ch` (output channel); default r = v
//   EW_DECLS                helper functions EPI_BODY uses (per-channel RESCALE parameters
//                           and TABLE entries come from `ovgf_params`, include/common.glsl)
//   OUT_INDEX(i)            where the result for output index i is stored: i, or the
//                           transposed position when a TRANSPOSE is fused into the store
#ifndef OVGF_EPILOGUE_GLSL
#define OVGF_EPILOGUE_GLSL

#ifndef NUM_EPI
#define NUM_EPI 0
#endif
#ifndef EPI0_INDEX
#define EPI0_INDEX idx
#endif
#ifndef EPI1_INDEX
#define EPI1_INDEX idx
#endif
#ifndef EPI_BODY
#define EPI_BODY r = OUT_CT(v);
#endif
#ifndef EW_DECLS
#define EW_DECLS
#endif
#ifndef OUT_INDEX
#define OUT_INDEX(i) (i)
#endif

#if NUM_EPI > 0
layout(set = 0, binding = EPI0_BINDING) readonly buffer Epi0 { EPI0_STYPE epi0[]; };
#endif
#if NUM_EPI > 1
layout(set = 0, binding = EPI1_BINDING) readonly buffer Epi1 { EPI1_STYPE epi1[]; };
#endif
layout(set = 0, binding = OUT_BINDING) writeonly buffer Out { OUT_STYPE out0[]; };

EW_DECLS

// epilogue_store with its one tensor input given rather than read: the cooperative-matrix
// core passes 0 where the accumulator already holds it (CM_RESIDUAL_ACC).
#if NUM_EPI == 1
void epilogue_store_with(uint idx, uint ch, ACC_CT v, EPI0_CT e0) {
  OUT_CT r;
  EPI_BODY
  out0[OUT_INDEX(idx)] = OUT_ST(r);
}
#endif

// The epilogue's result for an accumulator that already holds the epilogue's tensor input,
// if it has one (the cooperative-matrix core's whole-fragment stores, CM_DIRECT_STORE, whose
// epilogue the converter has checked reads nothing else: no element position either).
#if defined(CM_DIRECT_STORE) && CM_DIRECT_STORE && NUM_EPI <= 1
OUT_CT epilogue_value(ACC_CT v) {
#if NUM_EPI == 1
  EPI0_CT e0 = EPI0_CT(0);
#endif
  OUT_CT r;
  EPI_BODY
  return r;
}
#endif

void epilogue_store(uint idx, uint ch, ACC_CT v) {
#if NUM_EPI > 0
  EPI0_CT e0 = EPI0_LD(epi0[EPI0_INDEX]);
#endif
#if NUM_EPI > 1
  EPI1_CT e1 = EPI1_LD(epi1[EPI1_INDEX]);
#endif
  OUT_CT r;
  EPI_BODY
  out0[OUT_INDEX(idx)] = OUT_ST(r);
}

#endif  // OVGF_EPILOGUE_GLSL
