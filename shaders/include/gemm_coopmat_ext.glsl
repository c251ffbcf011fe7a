// SPDX-License-Identifier: Apache-2.0
// Extensions of the native GEMM paths (include/gemm_coopmat.glsl, include/gemm_dot4.glsl).
// Included by the GEMM templates before any declaration, since #extension must precede them.
// Only modules converted with GEMM_COOPMAT=1 / GEMM_DOT4=1 declare them, so portable modules
// never need VK_NV_cooperative_matrix or shaderIntegerDotProduct.
#ifndef OVGF_GEMM_COOPMAT_EXT_GLSL
#define OVGF_GEMM_COOPMAT_EXT_GLSL

// The scalar core without shared memory (GEMM_STAGES 0, include/gemm.glsl; CPU devices)
// passes A operands between lanes by subgroupBroadcast.
#if defined(GEMM_STAGES) && GEMM_STAGES == 0
#extension GL_KHR_shader_subgroup_ballot : require
#endif

#ifndef GEMM_COOPMAT
#define GEMM_COOPMAT 0
#endif
#ifndef CM_INT
#define CM_INT 0
#endif
// How the converter encodes the cores' GL_NV_cooperative_matrix built-ins in the module
// (converter/coopmat_khr.h): 0 as NV, 1 as KHR (subgroup scope), 2 as KHR matrices of
// workgroup scope (VK_NV_cooperative_matrix2; include/gemm_coopmat_wg.glsl).
#ifndef CM_ENCODING
#define CM_ENCODING 0
#endif
// Operands per 16-byte shared-memory chunk (and per vector load of GEMM_VEC_A/B).
#define CM_CHUNK (CM_INT != 0 ? 16 : 8)
#ifndef GEMM_VEC_A
#define GEMM_VEC_A 0
#endif
#ifndef GEMM_VEC_B
#define GEMM_VEC_B 0
#endif
// --precision fp16 (CM_F32_OPERANDS=1): fp32 tensors feed fp16 fragments, rounded to fp16
// when the core writes them to shared memory. The templates' 16-byte views (GEMM_VEC_A/B)
// are then CM_VIEW_T = vec4 arrays, and CM_CHUNK_AT fetches two of them (8 operands) as one
// CM_FETCH_T = mat2x4, packed later by the core; otherwise a chunk is one uvec4 of raw fp16
// or int8 operands. `i` is the element index of the chunk's first operand. (Packing where
// the chunk is fetched made each K slice's loads complete before the slice in flight was
// multiplied: MATMUL 4096 ran at 66 TFLOP/s, against 308 for an fp16 model.)
#ifndef CM_F32_OPERANDS
#define CM_F32_OPERANDS 0
#endif
// --precision bf16 (CM_BF16=1, with CM_F32_OPERANDS=1): the operands are rounded to bf16
// instead, as bit patterns (glslang 12 has no bf16 type). The fragments are declared fp16
// here and the converter re-encodes the A and B matrices with bf16 components
// (converter/coopmat_khr.h), so shared memory holds the bf16 bits they load.
#ifndef CM_BF16
#define CM_BF16 0
#endif
// Two fp32 as bf16 bits in one word (include/types.glsl, which the templates include after
// this file: this file precedes their #extension lines, so it declares no function).
#define CM_BF16X2(v) ovgf_f32x2_to_bf16x2(v)
#if CM_F32_OPERANDS
#define CM_VIEW_T vec4
#if CM_BF16
#define CM_HALF2(v) CM_BF16X2(v)
#else
#define CM_HALF2(v) packFloat2x16(f16vec2(v))
#endif
#define CM_FETCH_T mat2x4
#define CM_FETCH_ZERO mat2x4(0.0)
#define CM_CHUNK_AT(view, i) mat2x4(view[(i) / 4u], view[(i) / 4u + 1u])
#else
#define CM_VIEW_T uvec4
#define CM_FETCH_T uvec4
#define CM_FETCH_ZERO uvec4(0u)
#define CM_CHUNK_AT(view, i) view[(i) / uint(CM_CHUNK)]
#endif
// CONV2D weights stored in the fragments' type (CM_NARROW_B=1: --precision rounds constant
// fp32 weights at conversion time): B is read as raw chunks, whatever A is. The B view of
// the templates uses these.
#ifndef CM_NARROW_B
#define CM_NARROW_B 0
#endif
#if CM_NARROW_B
#define CM_VIEW_B_T uvec4
#define CM_FETCH_B_T uvec4
#define CM_FETCH_B_ZERO uvec4(0u)
#define CM_CHUNK_B_AT(view, i) view[(i) / uint(CM_CHUNK)]
#else
#define CM_VIEW_B_T CM_VIEW_T
#define CM_FETCH_B_T CM_FETCH_T
#define CM_FETCH_B_ZERO CM_FETCH_ZERO
#define CM_CHUNK_B_AT(view, i) CM_CHUNK_AT(view, i)
#endif
// fp32 vec4 loads of the scalar core (include/gemm.glsl), tested by the templates' #if.
#ifndef GEMM_VEC4_A
#define GEMM_VEC4_A 0
#endif
#ifndef GEMM_VEC4_B
#define GEMM_VEC4_B 0
#endif
#ifndef GEMM_DOT4
#define GEMM_DOT4 0
#endif
// [[unroll]] on the scalar core's loops over register arrays (include/gemm.glsl): a register
// block indexed in a loop the driver does not unroll lives in local memory (the 8x8 block ran
// at 2 TFLOP/s on an H100). Templates without this file declare it themselves.
#extension GL_EXT_control_flow_attributes : enable
#if GEMM_DOT4
#extension GL_EXT_spirv_intrinsics : require
#endif
#if GEMM_COOPMAT
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#if CM_INT
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#endif
#endif


#endif  // OVGF_GEMM_COOPMAT_EXT_GLSL
