#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fp32 GEMMs on bf16 cooperative matrices (issue 36 item 2), all in one call on a GPU with
# VK_KHR_shader_bfloat16 (an H200 here):
#   1. MATMUL 4096 fp32 GPU time on each route: the FMA core (--precision fp32), fp16x3,
#      bf16x3 and fp32-bf16 (openvgf bench --target native), and PyTorch's cuBLAS SGEMM with
#      TF32 off in the same call;
#   2. `openvgf run --check` (TOSA's fp32 rules against the reference interpreter) under
#      fp32-bf16 (and bf16x3 for comparison) on MATMUL 1024, two CONV2Ds, ResNet-50 and
#      MobileNetV2, with the zoo's own inputs and with data of extreme magnitudes (near 2^+-100,
#      FLT_MAX-scale products, subnormals in a few rows, mixed and same signs);
#   3. two probes of what the device's bf16 matrices do with subnormals (--precision bf16, no
#      fp32 path): bf16 subnormal operands, and products below fp32's normal range.
# Usage: h200-bf16split.sh BUNDLE OUT   (BUNDLE from benchmarks/bundle.sh; results in OUT;
#        W=DIR scratch folder, default /tmp/bf16split)
set -uo pipefail
B="${1:?usage: h200-bf16split.sh BUNDLE OUT}"
OUT="${2:?usage: h200-bf16split.sh BUNDLE OUT}"
W="${W:-/tmp/bf16split}"
OV="$B/openvgf"
mkdir -p "$W/data" "$OUT"
LOG="$OUT/bf16split.txt"
say() { echo "$*" | tee -a "$LOG"; }
"$B/openvgf-zoo" -o "$W/zoo" -m matmul_4096_fp32,matmul_1024_fp32,conv3x3_28x28x128,conv1x1_14x14x1024x256,resnet50,mobilenet_v2 >/dev/null
"$OV" devices 2>&1 | head -5 | tee -a "$LOG"

# 1. MATMUL 4096: GPU time per route.
for p in fp32 fp16x3 bf16x3 fp32-bf16; do
  "$OV" convert "$W/zoo/matmul_4096_fp32.tosa" -o "$W/mm4096-$p.vgf" --target native --precision "$p" >/dev/null
  "$OV" bench "$W/mm4096-$p.vgf" --json --min-time 0.5 >"$OUT/bench-mm4096-$p.json" 2>>"$LOG"
  python3 - "$OUT/bench-mm4096-$p.json" "$p" <<'EOF' | tee -a "$LOG"
import json, sys
d = json.load(open(sys.argv[1]))
print(f"matmul_4096_fp32 --precision {sys.argv[2]}: GPU median {d['gpu_median_ms']:.3f} ms, min {d['gpu_min_ms']:.3f} ms, "
      f"{2 * 4096**3 / (d['gpu_median_ms'] * 1e-3) / 1e12:.1f} TFLOP/s (median)")
EOF
done
python3 - <<'EOF' | tee -a "$LOG"
import torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
a = torch.randn(4096, 4096, device="cuda")
b = torch.randn(4096, 4096, device="cuda")
for _ in range(10): torch.matmul(a, b)
torch.cuda.synchronize()
times = []
for _ in range(50):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); torch.matmul(a, b); e.record(); torch.cuda.synchronize()
    times.append(s.elapsed_time(e))
times.sort()
med = times[len(times) // 2]
print(f"torch {torch.__version__} cuBLAS SGEMM 4096 (TF32 off): median {med:.3f} ms, min {times[0]:.3f} ms, "
      f"{2 * 4096**3 / (med * 1e-3) / 1e12:.1f} TFLOP/s (median)")
EOF

# 2. Inputs of extreme magnitude (numpy, seeded).
python3 - "$W" <<'EOF'
import numpy as np, sys
w = sys.argv[1]
rng = np.random.default_rng(36)
def mags(shape, lo, hi, signs=True):
    m = rng.uniform(1, 2, shape) * np.exp2(rng.integers(lo, hi + 1, shape))
    return (m * (rng.choice([-1, 1], shape) if signs else 1)).astype(np.float32)
def subnormal_rows(a, rows):  # a few fp32 subnormals in the first rows: those tiles take the fp32 path
    v = a.reshape(-1, a.shape[-1])
    v[:rows, ::97] = np.float32(2.0**-140) * rng.choice([-1, 1], v[:rows, ::97].shape)
    return a
d = f"{w}/data"
np.save(f"{d}/mm-a-2p100.npy", subnormal_rows(mags((1, 1024, 1024), 97, 103), 4))
np.save(f"{d}/mm-b-2m94.npy", mags((1, 1024, 1024), -94, -90))
np.save(f"{d}/mm-b-2m100.npy", mags((1, 1024, 1024), -103, -97))
np.save(f"{d}/mm-a-max.npy", mags((1, 1024, 1024), 120, 127))
np.save(f"{d}/mm-same-a.npy", mags((1, 1024, 1024), -4, 4, signs=False))
np.save(f"{d}/mm-same-b.npy", mags((1, 1024, 1024), -4, 4, signs=False))
for name in ["conv3x3_28x28x128", "conv1x1_14x14x1024x256", "resnet50", "mobilenet_v2"]:
    import glob
    x = np.load(sorted(glob.glob(f"{w}/zoo/{name}/inputs/*.npy"))[0]).astype(np.float32)
    flip = rng.choice([-1, 1], x.shape).astype(np.float32)
    np.save(f"{d}/{name}-2p100.npy", subnormal_rows((x * flip * np.float32(2.0**100)).astype(np.float32), 2))
    np.save(f"{d}/{name}-2m100.npy", (x * flip * np.float32(2.0**-100)).astype(np.float32))
# Probes (--precision bf16): bf16 subnormal operands; products below 2^-126.
np.save(f"{d}/probe-a-sub.npy", np.full((1, 1024, 1024), 2.0**-130, np.float32))
np.save(f"{d}/probe-b-big.npy", np.full((1, 1024, 1024), 2.0**60, np.float32))
np.save(f"{d}/probe-small.npy", np.full((1, 1024, 1024), 2.0**-70, np.float32))
EOF

# 3. Conversions (one at a time: each compiles its shaders on all cores), then the checks in parallel.
for m in matmul_1024_fp32 conv3x3_28x28x128 conv1x1_14x14x1024x256 resnet50 mobilenet_v2; do
  for p in fp32-bf16 bf16x3; do
    "$OV" convert "$W/zoo/$m.tosa" -o "$W/$m-$p.vgf" --target native --precision "$p" >/dev/null 2>>"$LOG"
  done
done
"$OV" convert "$W/zoo/matmul_1024_fp32.tosa" -o "$W/probe-bf16.vgf" --target native --precision bf16 >/dev/null
D="$W/data"
checks=(
  "matmul_1024_fp32 fp32-bf16 zoo"
  "matmul_1024_fp32 fp32-bf16 2^100x2^-94 -i $D/mm-a-2p100.npy -i $D/mm-b-2m94.npy"
  "matmul_1024_fp32 fp32-bf16 2^100x2^-100 -i $D/mm-a-2p100.npy -i $D/mm-b-2m100.npy"
  "matmul_1024_fp32 fp32-bf16 2^127x2^-94 -i $D/mm-a-max.npy -i $D/mm-b-2m94.npy"
  "matmul_1024_fp32 fp32-bf16 same-signs -i $D/mm-same-a.npy -i $D/mm-same-b.npy"
  "matmul_1024_fp32 bf16x3 zoo"
  "matmul_1024_fp32 bf16x3 same-signs -i $D/mm-same-a.npy -i $D/mm-same-b.npy"
)
for m in conv3x3_28x28x128 conv1x1_14x14x1024x256 resnet50 mobilenet_v2; do
  checks+=("$m fp32-bf16 zoo" "$m fp32-bf16 2^100 -i $D/$m-2p100.npy" "$m fp32-bf16 2^-100 -i $D/$m-2m100.npy")
done
checks+=("resnet50 bf16x3 zoo" "mobilenet_v2 bf16x3 zoo")
check() {
  read -r m p label args <<<"$1"
  local inputs="$args"
  [ "$label" = zoo ] && inputs="$(ls "$W/zoo/$m/inputs/"*.npy | sed 's/^/-i /' | tr '\n' ' ')"
  local result
  result="$(timeout 200 "$OV" run "$W/$m-$p.vgf" $inputs --check "$W/zoo/$m.tosa" 2>&1 | grep -iE 'pass|fail|error' | tr '\n' ' ')"
  echo "check $m --precision $p, $label data: ${result:-no verdict (timeout?)}"
}
export -f check
export W OV D
# ONLY=REGEX keeps the matching checks (a smoke run elsewhere), JOBS how many run at once.
printf '%s\n' "${checks[@]}" | grep -E "${ONLY:-.}" | xargs -P "${JOBS:-12}" -I{} bash -c 'check "$@"' _ {} | sort | tee -a "$LOG"

# 4. Probes.
"$OV" run "$W/probe-bf16.vgf" -i "$D/probe-a-sub.npy" -i "$D/probe-b-big.npy" -o "$W/probe1.npy" >/dev/null 2>&1
"$OV" run "$W/probe-bf16.vgf" -i "$D/probe-small.npy" -i "$D/probe-small.npy" -o "$W/probe2.npy" >/dev/null 2>&1
python3 - "$W" <<'EOF' | tee -a "$LOG"
import numpy as np, sys
w = sys.argv[1]
p1 = float(np.load(f"{w}/probe1.npy").flat[0]); p2 = float(np.load(f"{w}/probe2.npy").flat[0])
print(f"probe --precision bf16, 1024 x (2^-130 bf16 subnormal x 2^60): {p1!r} (kept: {2.0**-60!r}, flushed: 0)")
print(f"probe --precision bf16, 1024 x (2^-70 x 2^-70 = 2^-140 products): {p2!r} (kept: {2.0**-130!r}, flushed: 0)")
EOF
