#!/usr/bin/env bash
# --precision bf16 against fp16 and fp32 on the GPU: the relative L2 difference of each
# MATMUL 1024 output from the fp32 reference interpreter's (bf16 keeps 8 significant bits,
# fp16 11), then GPU times of MATMUL 4096 and ResNet-50 batch 32. Usage: h100-bf16.sh BUNDLE OUT
set -euo pipefail
B="${1:-build/bundle}"
OUT="${2:-.}"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
export XDG_CACHE_HOME="$W/cache" __GL_SHADER_DISK_CACHE_PATH="$W/cache/nvidia"
"$B/openvgf-zoo" --out "$W/zoo" --models matmul_1024_fp32,matmul_4096_fp32 >/dev/null
"$B/openvgf-zoo" --out "$W/zoo" --models resnet50 --batch 32 >/dev/null
"$B/openvgf" convert "$W/zoo/matmul_1024_fp32.tosa" --target native -o "$W/native.vgf" --stats | grep target:
IN=(-i "$W/zoo/matmul_1024_fp32/inputs/a.npy" -i "$W/zoo/matmul_1024_fp32/inputs/b.npy")
"$B/openvgf" -q reference "$W/zoo/matmul_1024_fp32.tosa" "${IN[@]}" -o "$W/ref.npy"
for p in fp32 fp16 bf16; do
  "$B/openvgf" -q convert "$W/zoo/matmul_1024_fp32.tosa" --target native --precision $p -o "$W/m_$p.vgf"
  "$B/openvgf" -q run "$W/m_$p.vgf" "${IN[@]}" -o "$W/out_$p.npy"
done
python3 - "$W" <<'PY'
import sys, numpy as np
w = sys.argv[1]
ref = np.load(f"{w}/ref.npy").astype(np.float64)
for p in ("fp32", "fp16", "bf16"):
    out = np.load(f"{w}/out_{p}.npy").astype(np.float64)
    rel = np.linalg.norm(out - ref) / np.linalg.norm(ref)
    print(f"matmul_1024_fp32 --precision {p}: relative L2 difference from the reference {rel:.2e}, "
          f"finite {np.isfinite(out).all()}")
PY
for model in matmul_4096_fp32 resnet50_b32; do
  for p in fp16 bf16; do
    "$B/openvgf" -q convert "$W/zoo/$model.tosa" --target native --precision $p -o "$W/b.vgf"
    printf "%s --precision %s: " $model $p
    "$B/openvgf" bench "$W/b.vgf" --iterations 30 2>&1 | grep "GPU-resident" | sed 's/^ *//'
  done
done
"$B/openvgf" run "$W/m_bf16.vgf" "${IN[@]}" --pipeline-stats -q | head -8
