#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Epilogue and tile variants of the cooperative-matrix core on ResNet-50 batch 32 and the
# BERT-base layer (--precision fp16): per-dispatch GPU profiles (Chrome traces, compare them
# with profile_table.py) and whether each variant's outputs are byte-identical to the first
# one's (else their largest difference relative to the first one's largest magnitude).
# Usage: [MODELS="zoo-model:batch ..."] h100-profile-variants.sh BUNDLE OUT [name|OPENVGF_TUNING[|VAR=VALUE] ...]
# (MODELS defaults to "resnet50:32 bert_layer:1").
set -euo pipefail
B="$1"; OUT="$2"; shift 2; W="$(mktemp -d)"
export XDG_CACHE_HOME="$W/cache" __GL_SHADER_DISK_CACHE_PATH="$W/cache/nvidia"
MODEL_NAMES=()
for entry in ${MODELS:-resnet50:32 bert_layer:1}; do
  name="${entry%%:*}"; batch="${entry##*:}"
  "$B/openvgf-zoo" --out "$W/zoo" --models "$name" --batch "$batch" >/dev/null
  if [ "$batch" = 1 ]; then MODEL_NAMES+=("$name"); else MODEL_NAMES+=("${name}_b$batch"); fi
done
for model in "${MODEL_NAMES[@]}"; do
  IN=()
  while read -r name file; do IN+=(-i "$name=$W/zoo/$model/$file"); done < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for i, f in zip(d["inputs"], d["input_files"]): print(i["name"], f)' "$W/zoo/$model/model.json")
  first=""
  for v in "$@"; do
    IFS='|' read -r name tuning environment <<<"$v"
    env $environment OPENVGF_TUNING="$tuning" "$B/openvgf" -q convert "$W/zoo/$model.tosa" --target native --precision fp16 -o "$W/r.vgf"
    "$B/openvgf" run "$W/r.vgf" "${IN[@]}" --repeat 30 --profile "$OUT/${model}_$name.json" -o "$W/$name.npy" 2>&1 |
      grep -i "median" | sed "s/^/$model $name: /" || true
    if [ -z "$first" ]; then first="$name"
    elif cmp -s "$W/$first.npy" "$W/$name.npy"; then echo "$model $name: outputs identical to $first"
    else python3 -c 'import numpy as np, sys; a, b = (np.load(f).astype(np.float64) for f in sys.argv[1:3])
print(sys.argv[3], "differs from the first variant by", np.abs(a - b).max() / np.abs(a).max(), "(max abs diff / max abs)")' \
      "$W/$first.npy" "$W/$name.npy" "$model $name"; fi
  done
done
