#!/usr/bin/env bash
# The driver's statistics (`openvgf run --pipeline-stats`) of the GEMM kernels of the native
# target's tuning variants: one line "model | OPENVGF_TUNING" per conversion, then the GPU time
# (`openvgf bench`) beside the statistics. Usage: h100-pipeline-stats.sh BUNDLE
set -euo pipefail
B="${1:-build/bundle}"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
export XDG_CACHE_HOME="$W/cache" __GL_SHADER_DISK_CACHE_PATH="$W/cache/nvidia"
"$B/openvgf-zoo" --out "$W/zoo" --models matmul_4096_fp32,matmul_4096_fp16 >/dev/null
while IFS='|' read -r model tuning; do
  echo "== $model | ${tuning:-(table)}"
  OPENVGF_TUNING="$tuning" "$B/openvgf" -q convert "$W/zoo/$model.tosa" --target native -o "$W/m.vgf"
  inputs=()
  for f in "$W/zoo/$model"/inputs/*.npy; do inputs+=(-i "$f"); done
  "$B/openvgf" -q run "$W/m.vgf" "${inputs[@]}" --pipeline-stats --no-pipeline-cache
  "$B/openvgf" bench "$W/m.vgf" --iterations 30 2>&1 | grep "GPU-resident"
done <<'LIST'
matmul_4096_fp32|
matmul_4096_fp32|gemm=128x128x16/8x8/2
matmul_4096_fp32|gemm=128x64x8/8x4/2
matmul_4096_fp16|
matmul_4096_fp16|coopmat-acc16=4x2/64x128/32/1
matmul_4096_fp16|coopmat-acc16=2x2/64x64/32/2
matmul_4096_fp16|coopmat-khr=0
LIST
