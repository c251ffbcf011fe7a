#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Pieces of the batch: how many dispatches (--overlap) and how large the pieces (--upload-chunk
# MiB: the smallest piece size the grids allow that holds this much input), pinned and pageable.
set -u
G=$PWD/.gpu/ov; B=/tmp/ov/bundle
mkdir -p /tmp/ov && tar -xJf $G/bundle.tar.xz -C /tmp/ov
OPENVGF_TEST_WITHOUT_VALIDATION=1 LD_LIBRARY_PATH=$B/lib timeout 120 $G/converter_batch_pieces_test 2>&1 | grep -v "RUN" | tail -6
args=()
for v in "off=--overlap 0" "o6c4=--overlap 6 --upload-chunk 4" "o8c4=--overlap 8 --upload-chunk 4" \
         "o12c4=--overlap 12 --upload-chunk 4" "o6c8=--overlap 6 --upload-chunk 8" "o12c8=--overlap 12 --upload-chunk 8" \
         "o4c2=--overlap 4"; do
  args+=(--bundle "${v%%=*}=$B" --bench-args "$v")
done
PYTHONUNBUFFERED=1 python3 benchmarks/compare_bundles.py "${args[@]}" --models resnet50_b32,mobilenet_v2_b32 \
  --zoo-args '--batch 32' --target native --precision fp16 --pipelined 1 --rounds 2 --iterations 100 --min-time 0.3 \
  --torch-python python3 --out "$OUT/h200-b32-overlap-sizes" --work /tmp/cb 2>&1 | grep -v '^+ '
python3 - "$OUT/h200-b32-overlap-sizes.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
seen = set()
def walk(x):
    if isinstance(x, dict):
        if "io" in x and isinstance(x["io"], str) and x["io"] not in seen:
            seen.add(x["io"]); print(x.get("model", ""), x["io"])
        for v in x.values(): walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
walk(d)
PY
