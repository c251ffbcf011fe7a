#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --precision fp16x3 on operands beyond fp16's range (issue 15). Runs zoo models with their own
# inputs and with inputs where a few elements (or one image patch) are scaled by 2^17, so that
# their hi halves would be infinite in fp16, under `openvgf run --check` (TOSA's fp32 rules),
# and times both with `run --repeat`; then the wide inputs NV-encoded under the validation
# layer. Usage: [PRECISION=fp16x3] h200-fp16x3-range.sh BUNDLE [BUNDLE ...]
# (PRECISION=fp32: the same runs on the default path, for comparison).
set -euo pipefail
PRECISION="${PRECISION:-fp16x3}"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
export XDG_CACHE_HOME="$W/cache" __GL_SHADER_DISK_CACHE_PATH="$W/cache/nvidia"
PY=python3
"$PY" -c 'import numpy' 2>/dev/null || PY=/usr/bin/python3
"$1/openvgf-zoo" --out "$W/zoo" --models matmul_1024_fp32,conv1x1_56x56x64x256,resnet50 >/dev/null
# wide/: 0.1 % of each input's elements (ResNet-50: a 32x32 patch of the image) times 2^17.
"$PY" - "$W/zoo" <<'PY'
import json, os, sys
import numpy as np
root = sys.argv[1]
for model in ("matmul_1024_fp32", "conv1x1_56x56x64x256", "resnet50"):
    d = json.load(open(os.path.join(root, model, "model.json")))
    os.makedirs(os.path.join(root, model, "wide"), exist_ok=True)
    rng = np.random.default_rng(7)
    for f in d["input_files"]:
        x = np.load(os.path.join(root, model, f)).astype(np.float32)
        if model == "resnet50":
            x[:, 96:128, 96:128, :] *= 2.0**17
        else:
            flat = x.reshape(-1)
            pick = rng.choice(flat.size, size=max(1, flat.size // 1000), replace=False)
            flat[pick] *= 2.0**17
        print(f"{model} {f}: max |x| {np.abs(x).max():.3g}")
        np.save(os.path.join(root, model, "wide", os.path.basename(f)), x)
PY
for bundle in "$@"; do
  for model in matmul_1024_fp32 conv1x1_56x56x64x256 resnet50; do
    "$bundle/openvgf" -q convert "$W/zoo/$model.tosa" --target native --precision "$PRECISION" -o "$W/m.vgf"
    for set in own wide; do
      inputs=()
      while read -r name file; do
        [ "$set" = wide ] && file="wide/$(basename "$file")"
        inputs+=(-i "$name=$W/zoo/$model/$file")
      done < <("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))
for i, f in zip(d["inputs"], d["input_files"]): print(i["name"], f)' "$W/zoo/$model/model.json")
      verdict=$("$bundle/openvgf" run "$W/m.vgf" "${inputs[@]}" --check "$W/zoo/$model.tosa" 2>&1 </dev/null |
        grep -E 'PASS|FAIL|check:|rror' | tr '\n' ' ' || true)
      timing=$("$bundle/openvgf" run "$W/m.vgf" "${inputs[@]}" --repeat 20 2>&1 </dev/null | grep -i -E 'median|latency' | tr '\n' ' ' || true)
      echo "$bundle $model $PRECISION $set inputs: $verdict| $timing"
    done
  done
done
# The rare path under the validation layer: NV-encoded (Debian's layer does not know the KHR
# cooperative-matrix opcodes), wide inputs, --check.
for model in matmul_1024_fp32 conv1x1_56x56x64x256; do
  inputs=()
  while read -r name file; do inputs+=(-i "$name=$W/zoo/$model/wide/$(basename "$file")"); done < <("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))
for i, f in zip(d["inputs"], d["input_files"]): print(i["name"], f)' "$W/zoo/$model/model.json")
  OPENVGF_TUNING=coopmat-khr=0 "$1/openvgf" -q convert "$W/zoo/$model.tosa" --target native --precision "$PRECISION" -o "$W/nv.vgf"
  verdict=$("$1/openvgf" run "$W/nv.vgf" "${inputs[@]}" --validate --check "$W/zoo/$model.tosa" 2>&1 </dev/null |
    grep -E 'PASS|FAIL|check:|rror|VUID' | tr '\n' ' ' || true)
  echo "$1 $model $PRECISION wide inputs, NV encoding, --validate: $verdict"
done
