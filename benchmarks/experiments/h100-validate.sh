#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The validation layer over this session's kernels on the GPU: ResNet-50 (batch 1) fp32 with
# --check against the reference interpreter (fold-crops, split-K), and --precision fp16 with
# the cooperative-matrix kernels NV-encoded (Debian's layer 1.3.239 does not know the KHR
# ones): residual accumulators, the narrow tile, the stem's chunk decoding; and at batch 32,
# where the tiles by grid size (mid, residual and narrow tiles) and the paired fp16
# MAX_POOL2D run; --precision fp16x3 at batch 1 with --check.
# Usage: h100-validate.sh BUNDLE
set -euo pipefail
B="$1"; W="$(mktemp -d)"
export XDG_CACHE_HOME="$W/cache" __GL_SHADER_DISK_CACHE_PATH="$W/cache/nvidia"
"$B/openvgf-zoo" --out "$W/zoo" --models resnet50 >/dev/null
IN=$(ls "$W/zoo/resnet50/inputs/"*.npy | head -1)
"$B/openvgf" -q convert "$W/zoo/resnet50.tosa" --target native -o "$W/fp32.vgf"
"$B/openvgf" run "$W/fp32.vgf" -i "$IN" --validate --check "$W/zoo/resnet50.tosa" 2>&1 | tail -3
OPENVGF_TUNING=coopmat-khr=0 "$B/openvgf" -q convert "$W/zoo/resnet50.tosa" --target native --precision fp16 -o "$W/p.vgf"
"$B/openvgf" run "$W/p.vgf" -i "$IN" --validate -o "$W/p.npy" 2>&1 | tail -3
"$B/openvgf-zoo" --out "$W/zoo" --models resnet50 --batch 32 >/dev/null
IN32=$(ls "$W/zoo/resnet50_b32/inputs/"*.npy | head -1)
OPENVGF_TUNING=coopmat-khr=0 "$B/openvgf" -q convert "$W/zoo/resnet50_b32.tosa" --target native --precision fp16 \
  -o "$W/p32.vgf"
"$B/openvgf" run "$W/p32.vgf" -i "$IN32" --validate -o "$W/p32.npy" 2>&1 | tail -3
# --precision fp16x3, NV-encoded, judged by --check's fp32 rules at batch 1.
OPENVGF_TUNING=coopmat-khr=0 "$B/openvgf" -q convert "$W/zoo/resnet50.tosa" --target native \
  --precision fp16x3 -o "$W/x3.vgf"
"$B/openvgf" run "$W/x3.vgf" -i "$IN" --validate --check "$W/zoo/resnet50.tosa" 2>&1 | tail -3
echo "all runs passed the validation layer (a validation error fails a run, and this script with it)"
