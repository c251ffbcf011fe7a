// SPDX-License-Identifier: Apache-2.0
// Shared prologue of every openvgf compute template: extensions, workgroup-size and grid
// defaults, and the flat-index helper for 2D dispatch grids.
//
// Defines (all optional):
//   WG_X, WG_Y, WG_Z   workgroup size (default 64,1,1)
//   GRID_X             workgroup count along x of the dispatch (for flattening x/y grids)
//   PARAMS_BINDING     binding of the kernel's constant parameter buffer `ovgf_params`
#ifndef OVGF_COMMON_GLSL
#define OVGF_COMMON_GLSL

// 8/16-bit types are storage-only (converted to 32-bit for arithmetic), so modules need
// StorageBuffer8/16BitAccess but not the Int8/Int16/Float16 arithmetic capabilities.
// int64 arithmetic is used by apply_scale and INT48; only modules that use it get Int64.
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : enable

#ifndef WG_X
#define WG_X 64
#endif
#ifndef WG_Y
#define WG_Y 1
#endif
#ifndef WG_Z
#define WG_Z 1
#endif
#ifndef GRID_X
#define GRID_X 1
#endif

// Large 1D problems are dispatched as a 2D grid of workgroups (x limited to 65535);
// this folds the grid back into one linear workgroup index.
uint ovgf_linear_group() { return gl_WorkGroupID.y * uint(GRID_X) + gl_WorkGroupID.x; }

// Per-kernel constant parameters (per-channel RESCALE multipliers and shifts, TABLE
// entries) that the converter binds as an INT32 buffer instead of writing constant arrays.
#ifdef PARAMS_BINDING
layout(set = 0, binding = PARAMS_BINDING) readonly buffer OvgfParams { int ovgf_params[]; };
#endif

#define OVGF_CAT_(a, b) a##b
#define OVGF_CAT(a, b) OVGF_CAT_(a, b)

#endif  // OVGF_COMMON_GLSL
