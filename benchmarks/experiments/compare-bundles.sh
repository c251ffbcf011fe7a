#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Whether two bundles (benchmarks/bundle.sh) produce byte-identical outputs on the same inputs,
# for changes that must not change a single rounding. Usage: compare-bundles.sh OLD NEW
set -euo pipefail
O="$1"; N="$2"; W="$(mktemp -d)"
export XDG_CACHE_HOME="$W/cache" __GL_SHADER_DISK_CACHE_PATH="$W/cache/nvidia"
"$N/openvgf-zoo" --out "$W/zoo" --models resnet50,matmul_1024_fp32,bert_layer,bert_layer_fp16 >/dev/null
for v in "resnet50|--precision fp16" "resnet50|--precision bf16" "matmul_1024_fp32|--precision fp16" "bert_layer|--precision fp16" "bert_layer_fp16|" "resnet50|--precision fp16|fp16-min-depth=1"; do
  IFS='|' read -r model opts tuning <<<"$v"
  IN=()
  while read -r name file; do IN+=(-i "$name=$W/zoo/$model/$file"); done < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for i, f in zip(d["inputs"], d["input_files"]): print(i["name"], f)' "$W/zoo/$model/model.json")
  for b in O N; do
    dir=${!b}
    OPENVGF_TUNING="$tuning" "$dir/openvgf" -q convert "$W/zoo/$model.tosa" --target native $opts -o "$W/$b.vgf"
    "$dir/openvgf" -q run "$W/$b.vgf" "${IN[@]}" -o "$W/$b.npy"
  done
  if cmp -s "$W/O.npy" "$W/N.npy"; then echo "$model $opts $tuning: outputs identical"; else echo "$model $opts $tuning: OUTPUTS DIFFER"; fi
done
