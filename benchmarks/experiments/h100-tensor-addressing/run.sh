#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Tensor-addressed workgroup-scope GEMMs (tensor_gemm_spirv.py) against openvgf's table kernel
# and torch.matmul, MATMUL 4096 fp16, in one call (issue 15; benchmarks/results/experiments/h100-gemm-limits.md, call 4).
#
#   g++ -O2 -std=c++20 tensor_gemm.cpp -o HARNESS_DIR/tensor_gemm -lvulkan -static-libstdc++ -static-libgcc
#   VARIANTS=benchmarks/results/experiments/h100-tensor-addressing/variants-1 run.sh HARNESS_DIR BUNDLE OUT
#
# VARIANTS: lines "BM BN BK PART_M THREADS ACC PREFETCH" (ACC 16 or 32; PREFETCH 0 or 1); the
# lists measured stay beside their results, and variants-2 there is the default.
set -uo pipefail
T="$1"; B="$2"; OUT="$3"
mkdir -p "$OUT"
export XDG_CACHE_HOME="$OUT/cache" __GL_SHADER_DISK_CACHE_PATH="$OUT/cache/nvidia"
# bm bn bk pm threads acc prefetch
while read -r bm bn bk pm threads acc pf; do
  name="wg-tensor ${bm}x${bn}x${bk} parts ${pm} rows, ${threads} threads, acc${acc}, prefetch ${pf}"
  flags=""; [ "$acc" = 16 ] && flags=--acc16; [ "$pf" = 1 ] && flags="$flags --prefetch"
  python3 "$(dirname "$0")/tensor_gemm_spirv.py" "$OUT/k.spv" --bm $bm --bn $bn --bk $bk --pm $pm --threads $threads $flags
  printf '%s | ' "$name"
  timeout 60 "$T/tensor_gemm" "$OUT/k.spv" 4096 4096 4096 $bm $bn 30 2>&1 | tail -1 | sed 's/^[^:]*: //'
done <"${VARIANTS:-$(dirname "$0")/../../results/experiments/h100-tensor-addressing/variants-2}"
"$B/openvgf-zoo" --out "$OUT/zoo" --models matmul_4096_fp16 >/dev/null
"$B/openvgf" -q convert "$OUT/zoo/matmul_4096_fp16.tosa" --target native -o "$OUT/t.vgf"
printf 'openvgf table kernel | '; "$B/openvgf" bench "$OUT/t.vgf" --iterations 30 2>&1 | grep "GPU-resident" | sed 's/^ *//'
python3 - <<'PY'
import torch
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16); b = torch.randn_like(a)
for _ in range(5): a @ b
s, e = torch.cuda.Event(True), torch.cuda.Event(True); ts = []
for _ in range(30):
    s.record(); a @ b; e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
ts.sort(); m = ts[len(ts) // 2]
print(f"torch.matmul 4096 fp16: {m:.3f} ms, {2 * 4096**3 / m / 1e9:.1f} TFLOP/s")
PY
