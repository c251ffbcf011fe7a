#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How far --precision outputs of ResNet-50 and MobileNetV2 (batch 32) are from openvgf's fp32
# outputs, per OPENVGF_TUNING variant: relative L2 difference and top-1 agreement.
# Usage: h100-precision-accuracy.sh BUNDLE "label|OPENVGF_TUNING|convert options" ...
set -euo pipefail
B="$1"; shift; W="$(mktemp -d)"
export XDG_CACHE_HOME="$W/cache" __GL_SHADER_DISK_CACHE_PATH="$W/cache/nvidia"
for model in resnet50 mobilenet_v2; do
  "$B/openvgf-zoo" --out "$W/zoo" --models "$model" --batch 32 >/dev/null
  IN=$(ls "$W/zoo/${model}_b32/inputs/"*.npy | head -1)
  "$B/openvgf" -q convert "$W/zoo/${model}_b32.tosa" --target native -o "$W/fp32.vgf"
  "$B/openvgf" -q run "$W/fp32.vgf" -i "$IN" -o "$W/fp32.npy"
  for v in "$@"; do
    IFS='|' read -r label tuning options <<<"$v"
    # shellcheck disable=SC2086  # the options are words
    OPENVGF_TUNING="$tuning" "$B/openvgf" -q convert "$W/zoo/${model}_b32.tosa" --target native $options -o "$W/p.vgf"
    "$B/openvgf" -q run "$W/p.vgf" -i "$IN" -o "$W/p.npy"
    python3 - "$W/fp32.npy" "$W/p.npy" "$model $label" <<'PY'
import sys
import numpy as np
a, b = (np.load(f).astype(np.float64).reshape(32, -1) for f in sys.argv[1:3])
rel = np.linalg.norm(a - b) / np.linalg.norm(a)
top1 = (a.argmax(1) == b.argmax(1)).mean()
print(f"{sys.argv[3]}: relative L2 from fp32 {rel:.2e}, top-1 agreement {top1 * 32:.0f}/32")
PY
  done
done
