#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Pieces of the batch, as committed: correctness with the driver's shader cache warm (the
# dispatch-base pipelines get words of their own), then off / default (6) / 4 / 8 dispatches.
set -u
G=$PWD/.gpu/ov; B=/tmp/ov/bundle
mkdir -p /tmp/ov && tar -xJf $G/bundle.tar.xz -C /tmp/ov
for i in 1 2; do OPENVGF_TEST_WITHOUT_VALIDATION=1 LD_LIBRARY_PATH=$B/lib timeout 120 $G/converter_batch_pieces_test 2>&1 | grep -E "OK|FAILED|got|Failure" | head -6; done
args=()
for v in "off=--overlap 0" "default=" "o4=--overlap 4" "o8=--overlap 8"; do
  args+=(--bundle "${v%%=*}=$B"); [ -n "${v#*=}" ] && args+=(--bench-args "$v")
done
PYTHONUNBUFFERED=1 python3 benchmarks/compare_bundles.py "${args[@]}" --models resnet50_b32,mobilenet_v2_b32 \
  --zoo-args '--batch 32' --target native --precision fp16 --pipelined 1 --rounds 3 --iterations 100 --min-time 0.3 \
  --torch-python python3 --out "$OUT/h200-b32-overlap" --work /tmp/cb 2>&1 | grep -v '^+ '
