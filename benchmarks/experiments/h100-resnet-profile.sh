#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Per-dispatch GPU profiles (Chrome traces) of ResNet-50 batch 32: fp32, --precision fp16 with
# the tuning table, and --precision fp16 with every convolution on cooperative matrices.
# Usage: h100-resnet-profile.sh BUNDLE OUT; compare the traces with profile_table.py.
set -euo pipefail
B="$1"; OUT="$2"; W="$(mktemp -d)"
export XDG_CACHE_HOME="$W/cache" __GL_SHADER_DISK_CACHE_PATH="$W/cache/nvidia"
"$B/openvgf-zoo" --out "$W/zoo" --models resnet50 --batch 32 >/dev/null
IN=$(ls "$W"/zoo/resnet50_b32/inputs/*.npy | head -1)
for v in "fp32||" "table|--precision fp16|" "all|--precision fp16|fp16-min-depth=1"; do
  IFS='|' read -r name opts tuning <<<"$v"
  OPENVGF_TUNING="$tuning" "$B/openvgf" -q convert "$W/zoo/resnet50_b32.tosa" --target native $opts -o "$W/r.vgf"
  "$B/openvgf" run "$W/r.vgf" -i "$IN" --repeat 30 --profile "$OUT/resnet_$name.json" -q 2>&1 | grep "total GPU" || true
done
