#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Measures GEMM tile configs of the native target's tuning table (converter/targets/tuning.cpp)
# in one go, by converting each zoo model once per OPENVGF_TUNING override and taking the GPU
# time of `openvgf bench`; then checks the chosen tiles with `openvgf run --check` on models
# small enough for the reference interpreter, and times torch.matmul beside them (TF32 off).
#
#   benchmarks/gemm_tiles.sh --bundle build/bundle --out results-folder [--variants FILE] [--checks FILE]
#
# FILE (default: the list below) has lines "model|OPENVGF_TUNING value|label[|convert options]",
# e.g. "resnet50_b32||fp16 operands|--precision fp16"; the checks FILE
# (default: the list below) has lines "model|OPENVGF_TUNING value[|convert options]". Output: one line per
# variant in OUT/gemm_tiles.txt (model, label, GPU median ms, TFLOP/s for MATMUL models).
set -euo pipefail
BUNDLE=build/bundle
OUT=gemm-tiles
VARIANTS=""
CHECKS=""
ITER=20
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) BUNDLE="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --variants) VARIANTS="$2"; shift 2 ;;
    --checks) CHECKS="$2"; shift 2 ;;
    --iterations) ITER="$2"; shift 2 ;;
    *) echo "gemm_tiles.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="$WORK/cache" __GL_SHADER_DISK_CACHE_PATH="$WORK/cache/nvidia"
DEFAULT_VARIANTS="matmul_4096_fp32|gemm-min-groups=1000000|64x64x16/4x4 single
matmul_4096_fp32||table default
matmul_4096_fp32|gemm=128x128x16/8x8/2|128x128x16 double
matmul_4096_fp32|gemm=128x128x8/8x8/1|128x128x8 single
matmul_4096_fp32|gemm=128x64x8/8x4/2|128x64x8 double
matmul_4096_fp32|gemm=64x64x16/4x4/2|64x64x16/4x4 double
matmul_4096_fp16||coopmat table default
matmul_4096_fp16|coopmat=2x4/64x64/16|coopmat 128x256 bk16
matmul_4096_fp16|coopmat=4x2/64x64/16|coopmat 256x128 bk16
matmul_4096_fp16|coopmat=2x2/64x128/16|coopmat 128x256 (64x128 per sg) bk16
matmul_4096_fp16|coopmat=4x2/32x64/32|coopmat 128x128 8 sg bk32
matmul_4096_fp16|coopmat=2x2/64x64/16|coopmat 128x128 bk16
resnet50_b32|gemm-min-groups=1000000|64x64 only
resnet50_b32||table default
resnet50_b32|gemm=128x128x8/8x8/2,gemm-min-groups=132|128x128 from 132 groups"
[ -n "$VARIANTS" ] && DEFAULT_VARIANTS="$(cat "$VARIANTS")"
DEFAULT_CHECKS="matmul_1024_fp32|
matmul_1024_fp32|gemm=128x128x16/8x8/2
conv1x1_56x56x64x256|gemm-min-groups=1
conv1x1_56x56x64x256|gemm=128x64x8/8x4/2,gemm-min-groups=1"
[ -n "$CHECKS" ] && DEFAULT_CHECKS="$(cat "$CHECKS")"
# The zoo models the variants name (a _b<B> suffix: the CNN at batch B), plus the checked ones.
for model in $( (echo "$DEFAULT_VARIANTS"; echo "$DEFAULT_CHECKS") | cut -d'|' -f1 | sort -u); do
  case "$model" in
    *_b[0-9]*) "$BUNDLE/openvgf-zoo" --out "$WORK/zoo" --models "${model%_b*}" --batch "${model##*_b}" >/dev/null ;;
    *) "$BUNDLE/openvgf-zoo" --out "$WORK/zoo" --models "$model" >/dev/null ;;
  esac
done
: >"$OUT/gemm_tiles.txt"
i=0
while IFS='|' read -r model tuning label options; do
  [ -n "$model" ] || continue
  i=$((i + 1))
  vgf="$WORK/v$i.vgf"
  # shellcheck disable=SC2086  # the options are words
  if ! OPENVGF_TUNING="$tuning" "$BUNDLE/openvgf" convert "$WORK/zoo/$model.tosa" --target native $options -o "$vgf" >"$OUT/convert_$i.log" 2>&1; then
    echo "$model | $label | convert failed: $(head -3 "$OUT/convert_$i.log" | tr "\n" " ")" | tee -a "$OUT/gemm_tiles.txt"; continue
  fi
  gpu=$("$BUNDLE/openvgf" bench "$vgf" --warmup 3 --iterations "$ITER" --min-time 0 2>&1 </dev/null | sed -n 's/.*GPU-resident latency.*median \([0-9.]*\) ms.*/\1/p')
  tflops=""
  case "$model" in matmul_*) n=$(echo "$model" | cut -d_ -f2); tflops=$(awk -v n="$n" -v t="$gpu" 'BEGIN { if (t > 0) printf "%.1f TFLOP/s", 2 * n^3 / (t * 1e-3) / 1e12 }') ;; esac
  echo "$model | $label | ${tuning:-(table)}${options:+ $options} | GPU ${gpu:-?} ms | $tflops" | tee -a "$OUT/gemm_tiles.txt"
done <<<"$DEFAULT_VARIANTS"
# Correctness of the large tiles on the GPU: --check against the reference interpreter.
while IFS='|' read -r model tuning options; do
  [ -n "$model" ] || continue
  inputs=()
  while read -r name file; do inputs+=(-i "$name=$WORK/zoo/$model/$file"); done < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for i, f in zip(d["inputs"], d["input_files"]): print(i["name"], f)' "$WORK/zoo/$model/model.json")
  # shellcheck disable=SC2086  # the options are words
  if ! OPENVGF_TUNING="$tuning" "$BUNDLE/openvgf" convert "$WORK/zoo/$model.tosa" --target native $options -o "$WORK/c.vgf" >"$WORK/c.log" 2>&1; then
    echo "check $model ${tuning:-(table)}${options:+ $options}: convert failed: $(head -3 "$WORK/c.log" | tr "\n" " ")" | tee -a "$OUT/gemm_tiles.txt"; continue
  fi
  # Every output's line (its error statistics) and the verdict.
  verdict=$("$BUNDLE/openvgf" run "$WORK/c.vgf" "${inputs[@]}" --check "$WORK/zoo/$model.tosa" 2>&1 </dev/null |
    grep -E 'PASS|FAIL|check:|rror' | tr '\n' ' ' || true)
  echo "check $model ${tuning:-(table)}${options:+ $options}: $verdict" | tee -a "$OUT/gemm_tiles.txt"
done <<<"$DEFAULT_CHECKS"
python3 - <<'PY' 2>&1 | tee -a "$OUT/gemm_tiles.txt" || true
import torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
n = 4096
for dt in (torch.float32, torch.float16):
    a = torch.randn(n, n, device="cuda", dtype=dt); b = torch.randn(n, n, device="cuda", dtype=dt)
    for _ in range(5): a @ b
    ts = []
    for _ in range(30):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); a @ b; e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); t = ts[len(ts) // 2]
    print(f"torch.matmul {n} {dt} (TF32 off): {t:.3f} ms, {2 * n**3 / t / 1e9:.1f} TFLOP/s")
PY
