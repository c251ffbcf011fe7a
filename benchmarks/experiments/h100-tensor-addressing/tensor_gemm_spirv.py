#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a workgroup-scope cooperative-matrix GEMM whose operands are loaded with
OpCooperativeMatrixLoadTensorNV (SPV_NV_cooperative_matrix2 + SPV_NV_tensor_addressing), as raw
SPIR-V words: Debian's glslang cannot compile GL_NV_cooperative_matrix2.

C[M,N] (fp16) = A[M,K] (fp16, row-major) x B[K,N] (fp16, row-major). Bindings 0, 1, 2 of set 0
are A, B and C, each a runtime array of fp16. Workgroup (x, y) computes the BM x BN tile at
rows y*BM, columns x*BN, as BM/PM accumulators of PM x BN. M, N and K must be multiples of
the tile (the layouts clamp nothing).

Usage: tensor_gemm_spirv.py OUT.spv --m 4096 --n 4096 --k 4096 --bm 128 --bn 256 --bk 32
                            --pm 128 --threads 256 [--acc16]
Opcode and enumerant values are the SPIR-V registry's (spirv.core.grammar.json).
"""
import argparse
import struct

# Core opcodes.
OpExtension, OpMemoryModel, OpEntryPoint, OpExecutionMode, OpCapability = 10, 14, 15, 16, 17
OpTypeVoid, OpTypeBool, OpTypeInt, OpTypeFloat, OpTypeVector = 19, 20, 21, 22, 23
OpTypeRuntimeArray, OpTypeStruct, OpTypePointer, OpTypeFunction = 29, 30, 32, 33
OpConstant, OpConstantComposite = 43, 44
OpFunction, OpFunctionEnd, OpVariable, OpLoad, OpAccessChain = 54, 56, 59, 61, 65
OpDecorate, OpMemberDecorate, OpCompositeExtract, OpFConvert = 71, 72, 81, 115
OpIAdd, OpIMul, OpULessThan = 128, 132, 176
OpPhi, OpLoopMerge, OpLabel, OpBranch, OpBranchConditional, OpReturn = 245, 246, 248, 249, 250, 253
# SPV_KHR_cooperative_matrix.
OpTypeCooperativeMatrixKHR, OpCooperativeMatrixMulAddKHR = 4456, 4459
# SPV_NV_cooperative_matrix2 and SPV_NV_tensor_addressing.
OpCooperativeMatrixLoadTensorNV, OpCooperativeMatrixStoreTensorNV = 5367, 5368
OpTypeTensorLayoutNV, OpCreateTensorLayoutNV, OpTensorLayoutSetDimensionNV, OpTensorLayoutSliceNV = 5370, 5372, 5373, 5375
# Capabilities.
CapShader, CapFloat16, CapStorageBuffer16 = 1, 9, 4433
CapCoopMatKHR, CapCoopMatTensorAddressingNV, CapTensorAddressingNV = 6022, 5433, 5439
# Enumerants.
StorageInput, StorageStorageBuffer = 1, 12
DecBlock, DecArrayStride, DecBuiltIn, DecBinding, DecDescriptorSet, DecOffset = 2, 6, 11, 33, 34, 35
BuiltInWorkgroupId = 26
ScopeWorkgroup = 2
UseA, UseB, UseAcc = 0, 1, 2
ClampUndefined = 0


def string_words(text):
    data = text.encode() + b"\0"
    data += b"\0" * (-len(data) % 4)
    return list(struct.unpack(f"<{len(data) // 4}I", data))


class Module:
    def __init__(self):
        self.bound = 1
        self.sections = {name: [] for name in ("caps", "ext", "model", "entry", "mode", "dec", "types", "code")}

    def id(self):
        self.bound += 1
        return self.bound - 1

    def op(self, section, opcode, *operands):
        words = []
        for o in operands:
            words.extend(o if isinstance(o, list) else [o])
        self.sections[section].append(((len(words) + 1) << 16) | opcode)
        self.sections[section].extend(words)

    def result(self, section, opcode, *operands):
        r = self.id()
        self.op(section, opcode, r, *operands)
        return r

    def typed(self, section, opcode, type_, *operands):
        r = self.id()
        self.op(section, opcode, type_, r, *operands)
        return r

    def words(self):
        body = []
        for name in ("caps", "ext", "model", "entry", "mode", "dec", "types", "code"):
            body.extend(self.sections[name])
        return [0x07230203, 0x00010600, 0, self.bound, 0] + body


def build(m, n, k, bm, bn, bk, pm, threads, acc16, prefetch):
    assert m % bm == 0 and n % bn == 0 and k % bk == 0 and bm % pm == 0
    s = Module()
    for cap in (CapShader, CapFloat16, CapStorageBuffer16, CapCoopMatKHR, CapCoopMatTensorAddressingNV,
                CapTensorAddressingNV):
        s.op("caps", OpCapability, cap)
    for ext in ("SPV_KHR_cooperative_matrix", "SPV_NV_cooperative_matrix2", "SPV_NV_tensor_addressing"):
        s.op("ext", OpExtension, string_words(ext))
    s.op("model", OpMemoryModel, 0, 1)  # Logical GLSL450

    T = lambda opcode, *ops: s.result("types", opcode, *ops)
    void = T(OpTypeVoid)
    fn = T(OpTypeFunction, void)
    boolean = T(OpTypeBool)
    u32 = T(OpTypeInt, 32, 0)
    f16 = T(OpTypeFloat, 16)
    f32 = T(OpTypeFloat, 32)
    v3u = T(OpTypeVector, u32, 3)
    p_in_v3u = T(OpTypePointer, StorageInput, v3u)
    rt = T(OpTypeRuntimeArray, f16)
    block = T(OpTypeStruct, rt)
    p_block = T(OpTypePointer, StorageStorageBuffer, block)
    p_f16 = T(OpTypePointer, StorageStorageBuffer, f16)

    consts = {}

    def c(value):
        if value not in consts:
            consts[value] = s.typed("types", OpConstant, u32, value)
        return consts[value]

    f16zero = s.typed("types", OpConstant, f16, 0)
    f32zero = s.typed("types", OpConstant, f32, 0)
    acc_t, acc_zero = (f16, f16zero) if acc16 else (f32, f32zero)
    scope = c(ScopeWorkgroup)
    mat_a = T(OpTypeCooperativeMatrixKHR, f16, scope, c(pm), c(bk), c(UseA))
    mat_b = T(OpTypeCooperativeMatrixKHR, f16, scope, c(bk), c(bn), c(UseB))
    mat_c = T(OpTypeCooperativeMatrixKHR, acc_t, scope, c(pm), c(bn), c(UseAcc))
    mat_o = mat_c if acc16 else T(OpTypeCooperativeMatrixKHR, f16, scope, c(pm), c(bn), c(UseAcc))
    layout_t = T(OpTypeTensorLayoutNV, c(2), c(ClampUndefined))
    zero_a = s.typed("types", OpConstantComposite, mat_a, f16zero)
    zero_b = s.typed("types", OpConstantComposite, mat_b, f16zero)
    zero_c = s.typed("types", OpConstantComposite, mat_c, acc_zero)

    wgid = s.typed("types", OpVariable, p_in_v3u, StorageInput)
    buffers = [s.typed("types", OpVariable, p_block, StorageStorageBuffer) for _ in range(3)]

    s.op("dec", OpDecorate, wgid, DecBuiltIn, BuiltInWorkgroupId)
    s.op("dec", OpDecorate, rt, DecArrayStride, 2)
    s.op("dec", OpMemberDecorate, block, 0, DecOffset, 0)
    s.op("dec", OpDecorate, block, DecBlock)
    for binding, var in enumerate(buffers):
        s.op("dec", OpDecorate, var, DecDescriptorSet, 0)
        s.op("dec", OpDecorate, var, DecBinding, binding)

    main = s.id()
    s.op("entry", OpEntryPoint, 5, main, string_words("main"), wgid, *buffers)
    s.op("mode", OpExecutionMode, main, 17, threads, 1, 1)  # LocalSize

    C = lambda opcode, type_, *ops: s.typed("code", opcode, type_, *ops)
    s.op("code", OpFunction, void, main, 0, fn)
    entry, header, body, cont, merge = (s.id() for _ in range(5))
    s.op("code", OpLabel, entry)
    wg = C(OpLoad, v3u, wgid)
    n0 = C(OpIMul, u32, C(OpCompositeExtract, u32, wg, 0), c(bn))
    m0 = C(OpIMul, u32, C(OpCompositeExtract, u32, wg, 1), c(bm))
    la = C(OpTensorLayoutSetDimensionNV, layout_t, C(OpCreateTensorLayoutNV, layout_t), c(m), c(k))
    lb = C(OpTensorLayoutSetDimensionNV, layout_t, C(OpCreateTensorLayoutNV, layout_t), c(k), c(n))
    lc = C(OpTensorLayoutSetDimensionNV, layout_t, C(OpCreateTensorLayoutNV, layout_t), c(m), c(n))
    pa, pb, pc = (C(OpAccessChain, p_f16, buf, c(0), c(0)) for buf in buffers)
    parts = bm // pm
    rows = [m0] + [C(OpIAdd, u32, m0, c(p * pm)) for p in range(1, parts)]
    def load_b(kk):
        return C(OpCooperativeMatrixLoadTensorNV, mat_b, pb, zero_b,
                 C(OpTensorLayoutSliceNV, layout_t, lb, kk, c(bk), n0, c(bn)), 0, 0)

    def load_a(p, kk):
        return C(OpCooperativeMatrixLoadTensorNV, mat_a, pa, zero_a,
                 C(OpTensorLayoutSliceNV, layout_t, la, rows[p], c(pm), kk, c(bk)), 0, 0)

    # With prefetch the loop multiplies the slice the previous iteration loaded while it loads
    # the next one, and the last slice is multiplied after the loop.
    if prefetch:
        first_b = load_b(c(0))
        first_a = [load_a(p, c(0)) for p in range(parts)]
    s.op("code", OpBranch, header)

    s.op("code", OpLabel, header)
    kv, knext = s.id(), s.id()
    s.op("code", OpPhi, u32, kv, c(0), entry, knext, cont)
    accs, new_accs = [], [s.id() for _ in range(parts)]
    for p in range(parts):
        accs.append(C(OpPhi, mat_c, zero_c, entry, new_accs[p], cont))
    if prefetch:
        next_b, next_a = s.id(), [s.id() for _ in range(parts)]
        cur_b = C(OpPhi, mat_b, first_b, entry, next_b, cont)
        cur_a = [C(OpPhi, mat_a, first_a[p], entry, next_a[p], cont) for p in range(parts)]
    more = C(OpULessThan, boolean, kv, c(k - bk if prefetch else k))
    s.op("code", OpLoopMerge, merge, cont, 0)
    s.op("code", OpBranchConditional, more, body, merge)

    s.op("code", OpLabel, body)
    s.op("code", OpIAdd, u32, knext, kv, c(bk))
    if prefetch:
        s.op("code", OpCooperativeMatrixLoadTensorNV, mat_b, next_b, pb, zero_b,
             C(OpTensorLayoutSliceNV, layout_t, lb, knext, c(bk), n0, c(bn)), 0, 0)
        for p in range(parts):
            s.op("code", OpCooperativeMatrixLoadTensorNV, mat_a, next_a[p], pa, zero_a,
                 C(OpTensorLayoutSliceNV, layout_t, la, rows[p], c(pm), knext, c(bk)), 0, 0)
            s.op("code", OpCooperativeMatrixMulAddKHR, mat_c, new_accs[p], cur_a[p], cur_b, accs[p])
    else:
        b = load_b(kv)
        for p in range(parts):
            s.op("code", OpCooperativeMatrixMulAddKHR, mat_c, new_accs[p], load_a(p, kv), b, accs[p])
    s.op("code", OpBranch, cont)

    s.op("code", OpLabel, cont)
    s.op("code", OpBranch, header)

    s.op("code", OpLabel, merge)
    for p in range(parts):
        final = C(OpCooperativeMatrixMulAddKHR, mat_c, cur_a[p], cur_b, accs[p]) if prefetch else accs[p]
        out = final if acc16 else C(OpFConvert, mat_o, final)
        s.op("code", OpCooperativeMatrixStoreTensorNV, pc, out,
             C(OpTensorLayoutSliceNV, layout_t, lc, rows[p], c(pm), n0, c(bn)), 0, 0)
    s.op("code", OpReturn)
    s.op("code", OpFunctionEnd)
    return s.words()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    for name, default in (("m", 4096), ("n", 4096), ("k", 4096), ("bm", 128), ("bn", 128), ("bk", 32),
                          ("pm", 0), ("threads", 256)):
        ap.add_argument(f"--{name}", type=int, default=default)
    ap.add_argument("--acc16", action="store_true", help="fp16 accumulators (default fp32)")
    ap.add_argument("--prefetch", action="store_true", help="load the next K slice before multiplying this one")
    a = ap.parse_args()
    words = build(a.m, a.n, a.k, a.bm, a.bn, a.bk, a.pm or a.bm, a.threads, a.acc16, a.prefetch)
    with open(a.out, "wb") as f:
        f.write(struct.pack(f"<{len(words)}I", *words))


if __name__ == "__main__":
    main()
